/**
 * Model-based sequences on the Effect 4 line: random sequences of adds (all
 * roles, tool calls with one to three parallel calls, results in and out of
 * order, orphans, empty contents, unicode), clears, JSON round trips and
 * compactions, run against every strategy and compared after every command
 * with the reference model of docs/contract.md sections 4 to 8
 * (test/support/specModel.ts, shared with the Effect 3 line's
 * test/reliability/model.test.ts): summary, buffer, token count, context
 * string, summarizer calls and failures. The sequences come from a seeded
 * generator shaped as the Effect 3 line's arbitraries (a failure names its
 * seed and command).
 *
 * ROLLMEM_PROP_RUNS sets the sequences per strategy (default 2,000).
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer } from "effect"
import * as Model from "../../test/support/specModel.js"
import { BufferMemory, Message, RollingMemory, Summarizer, SummaryMemory, WindowMemory } from "../src/index.js"
import type { Memory } from "../src/index.js"

const RUNS = Number(process.env.ROLLMEM_PROP_RUNS ?? 2_000)
const SEED = 20_240_402
const MAX_COMMANDS = 10

type Strategy = "rolling" | "rolling-drop" | "window" | "buffer" | "summary"

/** mulberry32: a small seeded generator. */
const random = (seed: number) => {
  let a = seed >>> 0
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1))
  const pick = <A>(items: ReadonlyArray<A>): A => items[int(0, items.length - 1)]
  return { next, int, pick }
}

type Random = ReturnType<typeof random>

const WORDS = ["w", "héllo", "日本語", "😀", "<|endoftext|>", "x\ufeffy", "a-b"]
const SEPARATORS = [" ", "  ", "\n", "\t", "\u0085", "\u001c", "\u3000", "\u00a0"]
const CALL_IDS = ["c0", "c1", "c2", "c3", ""]

const text = (r: Random): string => {
  if (r.int(0, 4) === 0) return ""
  const n = r.int(1, 6)
  let out = ""
  for (let i = 0; i < n; i++) out += (i === 0 ? "" : r.pick(SEPARATORS)) + r.pick(WORDS)
  return out
}

const message = (r: Random, id: string): Message.Message => {
  const kind = r.int(0, 12)
  if (kind < 5) {
    return Message.make(r.pick(["user", "user", "assistant", "assistant", "system", "tool", "critic"]), text(r), { id })
  }
  if (kind < 8) {
    const calls = Array.from({ length: r.int(1, 3) }, () => ({
      id: r.pick(CALL_IDS),
      name: r.pick(["f", "search"]),
      arguments: r.pick(["", "{}", "{\"q\": \"a b\"}"])
    }))
    return Message.make(r.pick(["assistant", "assistant", "assistant", "user", "critic"]), text(r), {
      id,
      toolCalls: calls
    })
  }
  if (kind < 12) {
    return Message.make(r.pick(["tool", "tool", "tool", "user", "critic"]), text(r), {
      id,
      toolCallId: r.pick(CALL_IDS)
    })
  }
  return Message.make("assistant", text(r), {
    id,
    toolCallId: r.pick(CALL_IDS),
    toolCalls: [{ id: r.pick(CALL_IDS), name: "f", arguments: "" }]
  })
}

type Command =
  | { readonly _tag: "Add"; readonly message: Message.Message }
  | { readonly _tag: "Clear" }
  | { readonly _tag: "RoundTrip" }
  | { readonly _tag: "Compact"; readonly targetTokens: number | undefined }

interface Sequence {
  readonly maxTokens: number
  readonly maxMessages: number
  readonly commands: ReadonlyArray<Command>
}

const sequence = (r: Random): Sequence => {
  const maxTokens = r.int(1, 12)
  const maxMessages = r.int(1, 5)
  const commands: Array<Command> = []
  let n = 0
  const length = r.int(0, MAX_COMMANDS)
  for (let i = 0; i < length; i++) {
    const w = r.int(0, 17)
    if (w < 14) commands.push({ _tag: "Add", message: message(r, `n${++n}`) })
    else if (w === 14) commands.push({ _tag: "Clear" })
    else if (w === 15) commands.push({ _tag: "RoundTrip" })
    else commands.push({ _tag: "Compact", targetTokens: r.int(0, 1) === 0 ? undefined : r.int(1, 12) })
  }
  return { maxTokens, maxMessages, commands }
}

const encodeFold = (summary: string, messages: ReadonlyArray<{ readonly id?: string | undefined }>): string =>
  summary + messages.map((m) => `<${m.id ?? "?"}>`).join("")

/** The summarizer shared by the library and the model: it fails on about one call in seven. */
const summarize = (summary: string, messages: ReadonlyArray<Model.ModelMessage>): string | undefined =>
  (summary.length + messages.length) % 7 === 3
    ? undefined
    : encodeFold(summary, messages as ReadonlyArray<Message.Message>)

const idsOf = (messages: ReadonlyArray<{ readonly id?: string | undefined }>): string =>
  messages.map((m) => m.id ?? "?").join(",")

const modelOf = (strategy: Strategy, s: Sequence): Model.Strategy => {
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

const foldModel = (state: Model.ModelState<Message.Message>, cut: number): Model.Step<Message.Message> => {
  const evicted = state.buffer.slice(0, cut)
  const result = summarize(state.summary, evicted)
  const call = { summary: state.summary, messages: evicted, result }
  return result === undefined
    ? { state, calls: [call], failed: true }
    : { state: { summary: result, buffer: state.buffer.slice(cut) }, calls: [call], failed: false }
}

/** contract 16.2 in the model; `undefined` for the strategies without `compact`. */
const compactModel = (
  strategy: Strategy,
  s: Sequence,
  state: Model.ModelState<Message.Message>,
  targetTokens: number | undefined
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
      return foldModel(state, cut)
    }
    case "summary":
      return state.buffer.length === 0 ? none : foldModel(state, state.buffer.length)
    default:
      return undefined
  }
}

const failure = new Error("summarizer failed")

const check = (strategy: Strategy, s: Sequence, seed: number): void => {
  const calls: Array<string> = []
  const service = Summarizer.fromFunction((summary, messages) => {
    calls.push(`${summary}|${idsOf(messages)}`)
    const result = summarize(summary, messages)
    if (result === undefined) throw failure
    return result
  })
  const layer = Layer.succeed(Summarizer.Summarizer, strategy === "rolling-drop" ? Summarizer.drop : service)
  const build = (state?: unknown): Effect.Effect<Memory.Memory, unknown, Summarizer.Summarizer> => {
    switch (strategy) {
      case "rolling":
      case "rolling-drop":
        return state === undefined
          ? RollingMemory.make({ maxTokens: s.maxTokens })
          : RollingMemory.fromJSON(state, { maxTokens: s.maxTokens })
      case "window":
        return state === undefined
          ? WindowMemory.make({ maxMessages: s.maxMessages })
          : WindowMemory.fromJSON(state, { maxMessages: s.maxMessages })
      case "buffer":
        return state === undefined ? BufferMemory.make() : BufferMemory.fromJSON(state)
      case "summary":
        return state === undefined ? SummaryMemory.make() : SummaryMemory.fromJSON(state)
    }
  }
  const model = modelOf(strategy, s)
  Effect.runSync(
    Effect.gen(function*() {
      let memory = yield* build()
      let state: Model.ModelState<Message.Message> = Model.empty
      for (let i = 0; i < s.commands.length; i++) {
        const c = s.commands[i]
        const label = (what: string) => `${strategy}, seed ${seed}, command ${i} (${c._tag}): ${what}`
        const before = calls.length
        let step: Model.Step<Message.Message> | undefined
        let exit: Exit.Exit<void, unknown> | undefined
        switch (c._tag) {
          case "Add": {
            step = model.add(state, c.message)
            exit = yield* Effect.exit(memory.add(c.message))
            break
          }
          case "Clear": {
            yield* memory.clear
            state = Model.empty
            break
          }
          case "Compact": {
            step = compactModel(strategy, s, state, c.targetTokens)
            const compact = (memory as { readonly compact?: (o: unknown) => Effect.Effect<void, unknown> }).compact
            if (step === undefined) {
              assert.strictEqual(compact, undefined, label("no compact"))
              break
            }
            exit = yield* Effect.exit(compact!({ targetTokens: c.targetTokens }))
            break
          }
          case "RoundTrip": {
            const json = JSON.parse(JSON.stringify(yield* memory.toJSON))
            const buffer = idsOf(yield* memory.buffer)
            memory = yield* build(json)
            assert.strictEqual(idsOf(yield* memory.buffer), buffer, label("restored verbatim"))
            break
          }
        }
        if (step !== undefined && exit !== undefined) {
          if (step.failed) {
            const error = Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause) : undefined
            assert.strictEqual(
              error !== undefined && error._tag === "Some" && (error.value as { _tag?: unknown })._tag,
              "SummarizerError",
              label("SummarizerError")
            )
          } else if (Exit.isFailure(exit)) assert.fail(label(Cause.pretty(exit.cause)))
          const expected = step.calls.map((call) => `${call.summary}|${idsOf(call.messages)}`)
          if (strategy === "rolling-drop") expected.length = 0
          assert.strictEqual(calls.slice(before).join("\n"), expected.join("\n"), label("summarizer calls"))
          state = step.state
        } else assert.strictEqual(calls.length, before, label("no summarizer call"))
        const [summary, buffer, tokens, context] = yield* Effect.all([
          memory.summary,
          memory.buffer,
          memory.bufferTokens,
          memory.context
        ])
        if (summary !== state.summary) assert.strictEqual(summary, state.summary, label("summary"))
        if (idsOf(buffer) !== idsOf(state.buffer)) {
          assert.strictEqual(idsOf(buffer), idsOf(state.buffer), label("buffer"))
        }
        let expectedTokens = 0
        for (const m of state.buffer) expectedTokens += Model.wordCount(Model.tokenText(m))
        if (tokens !== expectedTokens) assert.strictEqual(tokens, expectedTokens, label("bufferTokens"))
        const expectedContext = Model.context(state)
        if (context !== expectedContext) assert.strictEqual(context, expectedContext, label("context"))
      }
    }).pipe(Effect.provide(layer))
  )
}

const seeds: Record<Strategy, number> = { rolling: 0, "rolling-drop": 1, window: 2, buffer: 3, summary: 4 }

describe(`model-based sequences on Effect 4 (${RUNS} per strategy)`, () => {
  for (const strategy of ["rolling", "rolling-drop", "window", "buffer", "summary"] as const) {
    it(`${strategy}: every sequence equals the model at every step`, () => {
      for (let run = 0; run < RUNS; run++) {
        const seed = SEED + seeds[strategy] * 1_000_003 + run
        check(strategy, sequence(random(seed)), seed)
      }
    }, 120_000)
  }
})
