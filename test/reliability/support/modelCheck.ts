/**
 * One model-based run: a command sequence applied to the library and to the
 * reference model of contract sections 4 to 8 (and 16.2 for compactions),
 * compared after every command.
 */
import { assert } from "@effect/vitest"
import { Cause, Effect, Equal, Exit, Option } from "effect"
import type { Memory } from "../../../src/index.js"
import { Message, Summarizer, SummarizerError } from "../../../src/index.js"
import * as Model from "../../support/specModel.js"
import type { Sequence } from "./commands.js"
import { accountingHolds, assertAccounting, encodeFold, idsOf } from "./harness.js"
import { accountingOf, build, restore, type Strategy } from "./strategies.js"

/**
 * The summarizer, a pure function shared by the library and the model: it
 * folds with {@link encodeFold}, and fails on about one call in seven.
 */
export const summarize = (summary: string, messages: ReadonlyArray<Model.ModelMessage>): string | undefined =>
  (summary.length + messages.length) % 7 === 3
    ? undefined
    : encodeFold(summary, messages as ReadonlyArray<Message.Message>)

/** How RollingMemory and SummaryMemory keep their summary (docs/contract.md section 10.9). */
export type SummaryMode = "single" | "segments"

/**
 * With summary segments, the model's summary is the segments' join: each
 * fold appends the evicted turns' segment, {@link encodeFold} of them alone,
 * after a blank line. The same calls fail: the library's summarizer is given
 * the earlier segments' join, which is the model's summary.
 */
export const summarizeSegments = (
  summary: string,
  messages: ReadonlyArray<Model.ModelMessage>
): string | undefined => {
  const segment = summarize(summary, messages) === undefined
    ? undefined
    : encodeFold("", messages as ReadonlyArray<Message.Message>)
  return segment === undefined ? undefined : summary === "" ? segment : `${summary}\n\n${segment}`
}

const modelSummarizer = (mode: SummaryMode) => mode === "segments" ? summarizeSegments : summarize

/** The context string of a model state in segments mode: one system message per segment. */
const segmentsContext = (state: Model.ModelState<Message.Message>): string =>
  [
    ...(state.summary === "" ? [] : state.summary.split("\n\n").map((segment) => `system: ${segment}`)),
    ...state.buffer.map(String)
  ].join("\n")

interface LibraryCall {
  readonly summary: string
  readonly ids: ReadonlyArray<string>
}

export const modelOf = (strategy: Strategy, s: Sequence, mode: SummaryMode = "single"): Model.Strategy => {
  const summarize = modelSummarizer(mode)
  switch (strategy) {
    case "rolling":
      return Model.rolling({ maxTokens: s.maxTokens, summarize })
    case "rolling-drop":
      return Model.rolling({ maxTokens: s.maxTokens })
    case "window":
      return Model.window({ maxMessages: s.maxMessages })
    case "buffer":
      return Model.buffer
    case "summary":
      return Model.summary({ summarize })
  }
}

/** Fails with `assert`'s message only when the cheap comparison fails (the loop runs millions of times). */
const expectSame = (actual: unknown, expected: unknown, label: () => string): void => {
  if (actual !== expected) assert.strictEqual(actual, expected, label())
}

const callsKey = (calls: ReadonlyArray<LibraryCall>): string =>
  calls.map((call) => `${call.summary}|${call.ids.join(",")}`).join("\n")

/**
 * contract 16.2 in the model: RollingMemory folds (or drops) the cutoff of a
 * prune started over the budget, with the target (default: half the budget)
 * as its budget; SummaryMemory folds every pending turn. `undefined` for the
 * strategies without `compact`.
 */
export const compactModel = (
  strategy: Strategy,
  s: Sequence,
  state: Model.ModelState<Message.Message>,
  targetTokens: number | undefined,
  mode: SummaryMode = "single"
): Model.Step<Message.Message> | undefined => {
  const none = { state, calls: [], failed: false }
  switch (strategy) {
    case "rolling":
    case "rolling-drop": {
      const target = targetTokens ?? Math.max(1, Math.floor(s.maxTokens / 2))
      const weights = state.buffer.map((m) => Model.wordCount(Model.tokenText(m)))
      const cut = Model.cutoff(state.buffer, weights, target)
      if (cut === 0) return none
      if (strategy === "rolling-drop") return { ...none, state: { ...state, buffer: state.buffer.slice(cut) } }
      return foldModel(state, cut, mode)
    }
    case "summary":
      return state.buffer.length === 0 ? none : foldModel(state, state.buffer.length, mode)
    default:
      return undefined
  }
}

const foldModel = (
  state: Model.ModelState<Message.Message>,
  cut: number,
  mode: SummaryMode
): Model.Step<Message.Message> => {
  const evicted = state.buffer.slice(0, cut)
  const result = modelSummarizer(mode)(state.summary, evicted)
  const call = { summary: state.summary, messages: evicted, result }
  return result === undefined
    ? { state, calls: [call], failed: true }
    : { state: { summary: result, buffer: state.buffer.slice(cut) }, calls: [call], failed: false }
}

/**
 * Runs one sequence against the library and the model, comparing after every
 * command; with `mode` `"segments"`, RollingMemory and SummaryMemory keep
 * summary segments (no summary budget: no consolidation), which the model
 * keeps as their join.
 */
export const check = (strategy: Strategy, s: Sequence, mode: SummaryMode = "single"): void => {
  const calls: Array<LibraryCall> = []
  // it honours request.mode: a segment is the evicted turns' fold alone
  const service = Summarizer.fromFunction(Summarizer.honouringMode((summary, messages, request) => {
    calls.push({ summary, ids: idsOf(messages) })
    const result = summarize(summary, messages)
    if (result === undefined) throw failure
    return request.mode === "segment" ? encodeFold("", messages) : result
  }))
  const budgets = { maxTokens: s.maxTokens, maxMessages: s.maxMessages, summary: mode }
  const model = modelOf(strategy, s, mode)
  const accounting = accountingOf[strategy]
  const contextOf = mode === "segments" ? segmentsContext : Model.context
  Effect.runSync(Effect.gen(function*() {
    let memory: Memory.Memory = yield* build(strategy, { summarizer: service }, budgets)
    let state: Model.ModelState<Message.Message> = Model.empty
    // Turns added since the last clear, in order.
    let added: Array<string> = []
    for (let i = 0; i < s.commands.length; i++) {
      const c = s.commands[i]
      const label = (what: string) => () => `command ${i} (${c._tag}): ${what}`
      const callsBefore = calls.length
      switch (c._tag) {
        case "Add": {
          const step = model.add(state, c.message)
          const exit = yield* Effect.exit(memory.add(c.message))
          if (step.failed) {
            const error = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : Option.none()
            expectSame(Option.isSome(error) && error.value instanceof SummarizerError, true, label("SummarizerError"))
          } else if (Exit.isFailure(exit)) assert.fail(label(Cause.pretty(exit.cause))())
          const expectedCalls = step.calls.map((call) => ({
            summary: call.summary,
            ids: idsOf(call.messages as ReadonlyArray<Message.Message>)
          }))
          expectSame(callsKey(calls.slice(callsBefore)), callsKey(expectedCalls), label("summarizer calls"))
          state = step.state
          added.push(c.message.id!)
          break
        }
        case "Clear": {
          yield* memory.clear
          state = Model.empty
          added = []
          break
        }
        case "Compact": {
          const step = compactModel(strategy, s, state, c.targetTokens, mode)
          const compact = (memory as Partial<Memory.Compactable>).compact
          if (step === undefined) {
            expectSame(compact, undefined, label("no compact"))
            break
          }
          const exit = yield* Effect.exit(compact!({ targetTokens: c.targetTokens }))
          if (step.failed) {
            const error = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : Option.none()
            expectSame(Option.isSome(error) && error.value instanceof SummarizerError, true, label("SummarizerError"))
          } else if (Exit.isFailure(exit)) assert.fail(label(Cause.pretty(exit.cause))())
          const expectedCalls = step.calls.map((call) => ({
            summary: call.summary,
            ids: idsOf(call.messages as ReadonlyArray<Message.Message>)
          }))
          expectSame(callsKey(calls.slice(callsBefore)), callsKey(expectedCalls), label("summarizer calls"))
          state = step.state
          break
        }
        case "RoundTrip": {
          const json = JSON.parse(JSON.stringify(yield* memory.toJSON))
          const before = yield* memory.buffer
          memory = yield* restore(strategy, json, { summarizer: service }, budgets)
          // Restored verbatim, never pruned, no summarizer call.
          const after = yield* memory.buffer
          expectSame(after.length, before.length, label("restored length"))
          for (let k = 0; k < after.length; k++) expectSame(Equal.equals(after[k], before[k]), true, label(`[${k}]`))
          expectSame(calls.length, callsBefore, label("no summarizer call"))
          break
        }
      }
      const [summary, buffer, tokens, context] = yield* Effect.all([
        memory.summary,
        memory.buffer,
        memory.bufferTokens,
        memory.context
      ])
      expectSame(summary, state.summary, label("summary"))
      expectSame(idsOf(buffer).join(","), idsOf(state.buffer).join(","), label("buffer"))
      let expectedTokens = 0
      for (const m of state.buffer) expectedTokens += Model.wordCount(Model.tokenText(m))
      expectSame(tokens, expectedTokens, label("bufferTokens"))
      expectSame(context, contextOf(state), label("context"))
      if (!accountingHolds({ summary, buffer }, added, accounting)) {
        assertAccounting({ summary, buffer }, added, accounting)
      }
    }
  }))
}

const failure = new Error("summarizer failed")
