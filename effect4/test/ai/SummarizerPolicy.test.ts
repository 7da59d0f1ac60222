/**
 * `SummarizerPolicy` on the Effect 4 line: the Effect 3 line's tests
 * (`test/ai/SummarizerPolicy.test.ts`) on `effect/ai`'s `AiError`, whose
 * reasons replace `@effect/ai`'s `HttpRequestError`/`HttpResponseError`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Fiber, Layer, Ref, Schedule } from "effect"
import { AiError, type LanguageModel } from "effect/ai"
import { TestClock } from "effect/testing"
import * as LanguageModelSummarizer from "../../src/ai/LanguageModelSummarizer.js"
import * as SummarizerPolicy from "../../src/ai/SummarizerPolicy.js"
import { Message, RollingMemory, Summarizer, SummarizerError, SummaryBudgetError } from "../../src/index.js"
import { scriptedModel, statusError } from "./support.js"

const aiError = (reason: AiError.AiErrorReason) => AiError.make({ module: "T", method: "m", reason })

const network = (reason: "TransportError" | "EncodeError" | "InvalidUrlError") =>
  aiError(new AiError.NetworkError({ reason, method: "POST", url: "http://127.0.0.1/" }))

describe("SummarizerPolicy.isTransient", () => {
  it("is true for timeouts, transport errors and 408/409/425/429/5xx, also inside a SummarizerError", () => {
    const transient = [
      new Cause.TimeoutError(),
      network("TransportError"),
      statusError(408),
      statusError(409),
      statusError(425),
      statusError(429),
      statusError(500),
      statusError(503),
      aiError(new AiError.RateLimitError({})),
      aiError(new AiError.InternalProviderError({ description: "down" }))
    ]
    for (const error of transient) {
      assert.isTrue(SummarizerPolicy.isTransient(error))
      assert.isTrue(SummarizerPolicy.isTransient(new SummarizerError({ cause: error })))
      assert.isTrue(
        SummarizerPolicy.isTransient(new SummarizerError({ cause: new SummarizerError({ cause: error }) }))
      )
    }
  })

  it("is false for client errors, malformed replies, a summary over budget and anything else", () => {
    const permanent = [
      statusError(400),
      statusError(401),
      statusError(404),
      network("InvalidUrlError"),
      aiError(new AiError.InvalidOutputError({ description: "bad" })),
      aiError(new AiError.UnknownError({ description: "?" })),
      new SummaryBudgetError({ tokens: 9, maxSummaryTokens: 5 }),
      new Error("x"),
      "timeout",
      undefined
    ]
    for (const error of permanent) {
      assert.isFalse(SummarizerPolicy.isTransient(error))
      assert.isFalse(SummarizerPolicy.isTransient(new SummarizerError({ cause: error })))
    }
    assert.isFalse(SummarizerPolicy.isTransient(new SummarizerError({})))
  })
})

// The composition users want: per-call timeout, retry of transient failures with
// exponential backoff and jitter (100 ms, 200 ms, 400 ms, each times 0.8-1.2), then a fallback.
const policy = SummarizerPolicy.withPolicy((call) =>
  call.pipe(
    Effect.timeout("1 second"),
    Effect.retry({
      schedule: Schedule.exponential("100 millis").pipe(Schedule.jittered),
      times: 3,
      while: SummarizerPolicy.isTransient
    })
  )
)

const fallback = Summarizer.layerFunction((summary, messages) =>
  [summary, ...messages.map((m) => `${m.role}: ${m.content}`)].filter((s) => s !== "").join(" / ")
)

const resilient = (model: Layer.Layer<LanguageModel.LanguageModel>) =>
  SummarizerPolicy.withFallback(fallback).pipe(
    Layer.provide(policy),
    Layer.provide(LanguageModelSummarizer.layer({ maxSummaryTokens: 20 })),
    Layer.provide(model)
  )

// Budget 6 words, turns of 3 words: the third add evicts the first two turns (the assistant turn
// would open the buffer), in one summarizer call.
const turns = [Message.user("one two three"), Message.assistant("four five six"), Message.user("seven eight nine")]

const addAll = (memory: RollingMemory.RollingMemory) =>
  Effect.forEach(turns, (turn) => memory.add(turn), { discard: true })

describe("policies on a LanguageModelSummarizer", () => {
  it.effect("retries transient failures with jittered exponential backoff, then folds", () =>
    Effect.gen(function*() {
      const model = yield* scriptedModel([Effect.fail(statusError(500)), Effect.fail(statusError(429)), "Summary."])
      const memory = yield* RollingMemory.make({ maxTokens: 6 }).pipe(Effect.provide(resilient(model.layer)))
      const fiber = yield* Effect.forkChild(addAll(memory))
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(fiber)
      assert.strictEqual(yield* memory.summary, "Summary.")
      assert.deepStrictEqual((yield* memory.buffer).map(String), ["user: seven eight nine"])
      const times = yield* Ref.get(model.times)
      assert.strictEqual(times.length, 3)
      const gaps = [times[1] - times[0], times[2] - times[1]]
      assert.isTrue(gaps[0] >= 80 && gaps[0] <= 120, `first delay ${gaps[0]}`)
      assert.isTrue(gaps[1] >= 160 && gaps[1] <= 240, `second delay ${gaps[1]}`)
      assert.notDeepEqual(gaps, [100, 200], "jittered")
    }))

  it.effect("does not retry a permanent failure: falls back at once", () =>
    Effect.gen(function*() {
      const model = yield* scriptedModel([Effect.fail(statusError(401)), "never asked"])
      const memory = yield* RollingMemory.make({ maxTokens: 6 }).pipe(Effect.provide(resilient(model.layer)))
      yield* addAll(memory)
      assert.strictEqual((yield* Ref.get(model.times)).length, 1)
      assert.strictEqual(yield* memory.summary, "user: one two three / assistant: four five six")
    }))

  it.effect("times out each call, interrupting it, and falls back when every retry times out", () =>
    Effect.gen(function*() {
      const model = yield* scriptedModel([Effect.never])
      const memory = yield* RollingMemory.make({ maxTokens: 6 }).pipe(Effect.provide(resilient(model.layer)))
      const fiber = yield* Effect.forkChild(addAll(memory))
      yield* TestClock.adjust("10 seconds")
      yield* Fiber.join(fiber)
      // 1 call + 3 retries, each cut by the timeout.
      assert.strictEqual((yield* Ref.get(model.times)).length, 4)
      assert.strictEqual(yield* Ref.get(model.interrupted), 4)
      assert.strictEqual(yield* memory.summary, "user: one two three / assistant: four five six")
      assert.deepStrictEqual((yield* memory.buffer).map(String), ["user: seven eight nine"])
    }))

  it.effect("a final failure leaves the memory exactly as before (plus the appended turn)", () =>
    Effect.gen(function*() {
      const model = yield* scriptedModel([Effect.never])
      const failingFallback = Layer.succeed(
        Summarizer.Summarizer,
        Summarizer.fromEffect(() => Effect.fail("fallback down too"))
      )
      const layer = SummarizerPolicy.withFallback(failingFallback).pipe(
        Layer.provide(policy),
        Layer.provide(LanguageModelSummarizer.layer()),
        Layer.provide(model.layer)
      )
      const memory = yield* RollingMemory.fromState(
        { summary: "earlier", buffer: turns.slice(0, 2) },
        { maxTokens: 6 }
      ).pipe(Effect.provide(layer))
      const before = yield* memory.toJSON
      const fiber = yield* Effect.forkChild(memory.add(turns[2]))
      yield* TestClock.adjust("10 seconds")
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.instanceOf(error, SummarizerError)
      assert.strictEqual((error as SummarizerError).cause, "fallback down too")
      assert.deepStrictEqual(yield* memory.toJSON, {
        ...before,
        buffer: [...(before.buffer ?? []), { role: "user", content: "seven eight nine" }]
      })
      assert.strictEqual(yield* memory.bufferTokens, 9)
    }))

  it.effect("without a fallback, the error is a SummarizerError carrying the TimeoutError", () =>
    Effect.gen(function*() {
      const model = yield* scriptedModel([Effect.never])
      const layer = policy.pipe(Layer.provide(LanguageModelSummarizer.layer()), Layer.provide(model.layer))
      const memory = yield* RollingMemory.fromState({ summary: "", buffer: turns.slice(0, 2) }, { maxTokens: 6 }).pipe(
        Effect.provide(layer)
      )
      const fiber = yield* Effect.forkChild(memory.add(turns[2]))
      yield* TestClock.adjust("10 seconds")
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.instanceOf(error, SummarizerError)
      assert.isTrue(Cause.isTimeoutError((error as SummarizerError).cause))
      assert.strictEqual(yield* memory.summary, "")
      assert.strictEqual((yield* memory.buffer).length, 3)
    }))

  it.effect("over the dropping summarizer, withPolicy provides drop itself", () =>
    Effect.gen(function*() {
      const summarizer = yield* Effect.provide(
        Effect.service(Summarizer.Summarizer),
        policy.pipe(Layer.provide(Summarizer.layerDrop))
      )
      assert.strictEqual(summarizer, Summarizer.drop)
    }))

  it.effect("withPolicy keeps the inner summarizer's honoursMode; withFallback has it when both do", () =>
    Effect.gen(function*() {
      const plain = Summarizer.layerFunction((summary) => summary)
      const marked = Layer.succeed(
        Summarizer.Summarizer,
        Summarizer.fromFunction(Summarizer.honouringMode((s: string) => s))
      )
      const get = (layer: Layer.Layer<Summarizer.Summarizer>) =>
        Effect.provide(Effect.map(Effect.service(Summarizer.Summarizer), Summarizer.honoursMode), layer)
      const policy = SummarizerPolicy.withPolicy((call) => Effect.retry(call, { times: 1 }))
      assert.deepStrictEqual(
        [
          yield* get(Layer.provide(policy, marked)),
          yield* get(Layer.provide(policy, plain)),
          yield* get(Layer.provide(SummarizerPolicy.withFallback(marked), marked)),
          yield* get(Layer.provide(SummarizerPolicy.withFallback(plain), marked)),
          yield* get(Layer.provide(SummarizerPolicy.withFallback(marked), plain))
        ],
        [true, false, true, false, false]
      )
    }))
})
