/**
 * Helpers shared by the tests: short message builders, summarizers that
 * record their calls, and comparisons of the library against the spec model.
 */
import { assert } from "@effect/vitest"
import { Deferred, Effect, Equal, Layer, Queue, Schema } from "effect"
import { SummarizerError } from "../../src/Errors.js"
import * as Message from "../../src/schema/Message.js"
import * as Summarizer from "../../src/services/Summarizer.js"
import type { Memory } from "../../src/strategies/Memory.js"
import type * as SpecModel from "./specModel.js"

/** A message of five words (`"{label} w w w w"`), as in the contract 4 example. */
export const five = (role: string, label: string): Message.Message => Message.make(role, `${label} w w w w`)

/** A user message of five words. */
export const u = (label: string): Message.Message => five(Message.USER, label)

/** An assistant message of five words. */
export const a = (label: string): Message.Message => five(Message.ASSISTANT, label)

/** An assistant message calling the given ids (tool `f`, arguments `{}`), with empty content. */
export const call = (...ids: ReadonlyArray<string>): Message.Message =>
  Message.assistant("", { toolCalls: ids.map((id) => ({ id, name: "f", arguments: "{}" })) })

/** A tool result for `id`. */
export const result = (id: string, content = "ok"): Message.Message => Message.tool(content, { toolCallId: id })

const encodeMessage = Schema.encodeSync(Message.Message)

/** The wire form of messages (readable in a diff). */
export const wire = (messages: ReadonlyArray<Message.Message>): Array<unknown> => messages.map((m) => encodeMessage(m))

/** Asserts two message lists are equal: same wire form, and `Equal.equals` pairwise. */
export const assertMessages = (
  actual: ReadonlyArray<Message.Message>,
  expected: ReadonlyArray<Message.Message>,
  label = "messages"
): void => {
  // The same instances (what was added) need no deeper look.
  if (actual.length === expected.length && actual.every((m, i) => m === expected[i])) return
  assert.deepStrictEqual(wire(actual), wire(expected), label)
  for (let i = 0; i < expected.length; i++) assert.isTrue(Equal.equals(actual[i], expected[i]), `${label}[${i}]`)
}

/** One recorded summarizer call. */
export interface Recorded {
  readonly summary: string
  readonly messages: ReadonlyArray<Message.Message>
  /** What the summarizer returned, `undefined` when it failed. */
  readonly result: string | undefined
}

/**
 * A summarizer from a pure model function (`undefined` = fail), recording
 * every call it receives. The same function drives the spec model.
 */
export const recording = (
  f: (summary: string, messages: ReadonlyArray<Message.Message>) => string | undefined
): { readonly calls: Array<Recorded>; readonly layer: Layer.Layer<Summarizer.Summarizer> } => {
  const calls: Array<Recorded> = []
  const layer = Summarizer.layerFunction((summary, messages) => {
    const out = f(summary, messages)
    calls.push({ summary, messages, result: out })
    if (out === undefined) throw new Error("summarizer failed")
    return out
  })
  return { calls, layer }
}

/** A summarizer whose result is the labels of the turns it folds: `"{summary}+[u1,a1]"`. */
export const labels = (summary: string, messages: ReadonlyArray<{ readonly content: string }>): string =>
  `${summary}+[${messages.map((m) => m.content.split(" ")[0]).join(",")}]`

/** A summarizer call held open until the test completes its gate. */
export interface Gated {
  readonly summary: string
  readonly messages: ReadonlyArray<Message.Message>
  readonly gate: Deferred.Deferred<string, SummarizerError>
  /** Set when the call was interrupted. */
  interrupted: boolean
}

/**
 * A summarizer whose calls each wait on their own `Deferred`: `started`
 * receives each call as it begins; complete `call.gate` to let it return.
 */
export const gated = Effect.gen(function*() {
  const started = yield* Queue.unbounded<Gated>()
  const calls: Array<Gated> = []
  const service: Summarizer.Service = {
    summarize: (summary, messages) =>
      Effect.gen(function*() {
        const gate = yield* Deferred.make<string, SummarizerError>()
        const entry: Gated = { summary, messages, gate, interrupted: false }
        calls.push(entry)
        yield* Queue.offer(started, entry)
        return yield* Effect.onInterrupt(Deferred.await(gate), () =>
          Effect.sync(() => {
            entry.interrupted = true
          }))
      })
  }
  return { started, calls, layer: Layer.succeed(Summarizer.Summarizer, service) }
})

/** Yields until the memory's buffer holds `n` messages (no sleeps). */
export const awaitBufferSize = (memory: Memory, n: number): Effect.Effect<void> =>
  Effect.repeat(Effect.zipRight(Effect.yieldNow(), memory.buffer), { until: (b) => b.length === n }).pipe(Effect.asVoid)

/** Asserts the library memory holds exactly the model state. */
export const assertState = (
  memory: Memory,
  expected: SpecModel.ModelState<Message.Message>,
  label = "state"
): Effect.Effect<void> =>
  Effect.gen(function*() {
    assert.strictEqual(yield* memory.summary, expected.summary, `${label}: summary`)
    assertMessages(yield* memory.buffer, expected.buffer, `${label}: buffer`)
  })

/** A `SummarizerError` for failing a gate. */
export const failure = (description: string): SummarizerError => new SummarizerError({ description })
