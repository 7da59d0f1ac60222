/**
 * The Summarizer module: summarizers built from a synchronous function, a
 * Promise or an Effect, their layers, and `withPolicy`. What a memory does
 * with a failing summarizer is in test/reliability/faults.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Context, Deferred, Effect, Exit, Fiber, Layer, TestClock } from "effect"
import { SummarizerError } from "../src/Errors.js"
import * as Message from "../src/schema/Message.js"
import * as Summarizer from "../src/services/Summarizer.js"

const turns = [Message.user("book a flight"), Message.assistant("to Rome?")]
const joined = (summary: string, messages: ReadonlyArray<Message.Message>) =>
  `${summary}|${messages.map(String).join("; ")}`

describe("Summarizer.fromFunction", () => {
  it.effect("calls the function with the summary and the messages", () =>
    Effect.gen(function*() {
      const summary = yield* Summarizer.fromFunction(joined).summarize("before", turns, Summarizer.request())
      assert.strictEqual(summary, "before|user: book a flight; assistant: to Rome?")
    }))

  it.effect("a throw fails with SummarizerError carrying the thrown value", () =>
    Effect.gen(function*() {
      const down = new Error("model down")
      const error = yield* Effect.flip(
        Summarizer.fromFunction(() => {
          throw down
        }).summarize("", turns, Summarizer.request())
      )
      assert.instanceOf(error, SummarizerError)
      assert.strictEqual(error.description, "model down")
      assert.strictEqual(error.cause, down)
    }))

  it.effect("a non-string result fails with SummarizerError whose cause is a TypeError", () =>
    Effect.gen(function*() {
      for (
        const [value, shown] of [[7, "number"], [null, "null"], [undefined, "undefined"], [{}, "object"]] as const
      ) {
        const error = yield* Effect.flip(
          Summarizer.fromFunction(() => value as unknown as string).summarize("", turns, Summarizer.request())
        )
        assert.strictEqual(error.description, `summarizer returned ${shown}, not a string`)
        assert.instanceOf(error.cause, TypeError)
        assert.strictEqual((error.cause as TypeError).message, `summarizer must return a string, got ${shown}`)
      }
    }))

  it.effect("a Promise is refused with a TypeError, and its later rejection is handled", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Summarizer.fromFunction(() => Promise.reject(new Error("late")) as unknown as string).summarize(
          "",
          turns,
          Summarizer.request()
        )
      )
      assert.strictEqual(
        error.description,
        "summarizer returned a Promise in a synchronous memory; use an async memory (AsyncRollingMemory) for an async summarizer"
      )
      assert.instanceOf(error.cause, TypeError)
    }))

  it("calls the function only when the effect runs", () => {
    let calls = 0
    const call = Summarizer.fromFunction(() => `${++calls}`).summarize("", turns, Summarizer.request())
    assert.strictEqual(calls, 0)
    assert.deepStrictEqual(Effect.runSyncExit(call), Exit.succeed("1"))
    assert.deepStrictEqual(Effect.runSyncExit(call), Exit.succeed("2"))
  })
})

describe("Summarizer.make", () => {
  it.effect("summarizeSync alone: summarize runs it; the service keeps the synchronous form", () =>
    Effect.gen(function*() {
      const service = Summarizer.make({ summarizeSync: joined })
      assert.strictEqual(service.summarizeSync, joined)
      assert.strictEqual(
        yield* service.summarize("s", turns, Summarizer.request()),
        "s|user: book a flight; assistant: to Rome?"
      )
      const own = new SummarizerError({ description: "no" })
      assert.strictEqual(
        yield* Effect.flip(Summarizer.make({ summarizeSync: () => own }).summarize("", turns, Summarizer.request())),
        own
      )
    }))

  it("summarize alone: no synchronous form", () => {
    const service = Summarizer.make({ summarize: () => Effect.succeed("x") })
    assert.isFalse("summarizeSync" in service)
  })

  it("fromFunction has a summarizeSync; fromPromise, fromEffect and withPolicy have none", () => {
    const sync = Summarizer.fromFunction(joined)
    assert.strictEqual(
      sync.summarizeSync("s", turns, Summarizer.request()),
      "s|user: book a flight; assistant: to Rome?"
    )
    assert.strictEqual(Summarizer.fromPromise(async () => "x").summarizeSync, undefined)
    assert.strictEqual(Summarizer.fromEffect(() => Effect.succeed("x")).summarizeSync, undefined)
    const wrapped = Effect.runSync(
      Effect.provide(
        Summarizer.Summarizer,
        Layer.provide(Summarizer.withPolicy((call) => call), Summarizer.layerFunction(joined))
      )
    )
    assert.strictEqual(wrapped.summarizeSync, undefined)
  })
})

describe("the request (contract 10.4)", () => {
  it.effect("fromFunction, fromPromise (fourth, after the signal) and fromEffect pass it on", () =>
    Effect.gen(function*() {
      const request = Summarizer.request({ maxSummaryTokens: 7 })
      const seen: Array<unknown> = []
      yield* Summarizer.fromFunction((_s, _m, r) => (seen.push(r), "a")).summarize("", turns, request)
      yield* Summarizer.fromPromise((_s, _m, signal, r) => (seen.push(signal instanceof AbortSignal, r), "b"))
        .summarize("", turns, request)
      yield* Summarizer.fromEffect((_s, _m, r) => (seen.push(r), Effect.succeed("c"))).summarize("", turns, request)
      assert.deepStrictEqual(seen, [request, true, request, request])
      assert.strictEqual(request.maxSummaryTokens, 7)
    }))

  it.effect("layerEffect carries the function's requirement into the layer and provides it to every call", () =>
    Effect.gen(function*() {
      class Model extends Context.Tag("test/Model")<Model, { readonly name: string }>() {}
      const layer: Layer.Layer<Summarizer.Summarizer, never, Model> = Summarizer.layerEffect((summary, _m, r) =>
        Effect.map(Model, (model) => `${model.name}:${summary}:${r.maxSummaryTokens}`)
      )
      const summarizer = yield* Effect.provide(
        Summarizer.Summarizer,
        Layer.provide(layer, Layer.succeed(Model, { name: "m" }))
      )
      assert.strictEqual(yield* summarizer.summarize("s", turns, Summarizer.request({ maxSummaryTokens: 3 })), "m:s:3")
    }))
})

describe("a summarizer that throws or rejects with null or undefined (one rule)", () => {
  it.effect("fails with SummarizerError whose cause is the value, from every constructor", () =>
    Effect.gen(function*() {
      for (const value of [null, undefined]) {
        const services = [
          Summarizer.fromFunction(() => {
            throw value
          }),
          Summarizer.fromPromise(() => Promise.reject(value)),
          Summarizer.fromEffect(() => Effect.fail(value))
        ]
        for (const service of services) {
          const error = yield* Effect.flip(service.summarize("", turns, Summarizer.request()))
          assert.instanceOf(error, SummarizerError)
          assert.strictEqual(error.cause, value)
          assert.strictEqual(error.description, String(value))
        }
      }
    }))
})

describe("Summarizer.fromPromise", () => {
  it.effect("awaits the function's Promise", () =>
    Effect.gen(function*() {
      const summary = yield* Summarizer.fromPromise(async (s, ms) => joined(s, ms)).summarize(
        "x",
        turns,
        Summarizer.request()
      )
      assert.strictEqual(summary, "x|user: book a flight; assistant: to Rome?")
    }))

  it.effect("a rejection fails with SummarizerError whose cause is the reason", () =>
    Effect.gen(function*() {
      const reason = new Error("429 Too Many Requests")
      const error = yield* Effect.flip(
        Summarizer.fromPromise(() => Promise.reject(reason)).summarize("", turns, Summarizer.request())
      )
      assert.strictEqual(error.description, "429 Too Many Requests")
      assert.strictEqual(error.cause, reason)
    }))

  it.effect("an interruption fires the AbortSignal", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<AbortSignal>()
      const service = Summarizer.fromPromise((_s, _ms, signal) => {
        Deferred.unsafeDone(started, Exit.succeed(signal))
        return new Promise<string>(() => {})
      })
      const fiber = yield* Effect.fork(service.summarize("", turns, Summarizer.request()))
      const signal = yield* Deferred.await(started)
      assert.isFalse(signal.aborted)
      const exit = yield* Fiber.interrupt(fiber)
      assert.isTrue(Exit.isInterrupted(exit))
      assert.isTrue(signal.aborted)
    }))
})

describe("Summarizer.fromEffect", () => {
  it.effect("any failure becomes SummarizerError with the original as cause", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Summarizer.fromEffect(() => Effect.fail("quota")).summarize("", turns, Summarizer.request())
      )
      assert.instanceOf(error, SummarizerError)
      assert.strictEqual(error.description, "quota")
      assert.strictEqual(error.cause, "quota")
    }))

  it.effect("a SummarizerError passes through unchanged", () =>
    Effect.gen(function*() {
      const own = new SummarizerError({ description: "mine" })
      const error = yield* Effect.flip(
        Summarizer.fromEffect(() => Effect.fail(own)).summarize("", turns, Summarizer.request())
      )
      assert.strictEqual(error, own)
    }))

  it.effect("a timeout (TestClock) fails with the TimeoutException as cause", () =>
    Effect.gen(function*() {
      const service = Summarizer.fromEffect(() => Effect.timeout(Effect.never, "20 seconds"))
      const fiber = yield* Effect.fork(Effect.flip(service.summarize("", turns, Summarizer.request())))
      yield* TestClock.adjust("20 seconds")
      const error = yield* Fiber.join(fiber)
      assert.isTrue(Cause.isTimeoutException(error.cause))
    }))
})

describe("Summarizer layers", () => {
  const read = Effect.flatMap(Summarizer.Summarizer, (s) => s.summarize("s", turns, Summarizer.request()))

  it.effect("layerFunction, layerPromise and layerEffect provide the service", () =>
    Effect.gen(function*() {
      const expected = "s|user: book a flight; assistant: to Rome?"
      assert.strictEqual(yield* Effect.provide(read, Summarizer.layerFunction(joined)), expected)
      assert.strictEqual(yield* Effect.provide(read, Summarizer.layerPromise(async (s, ms) => joined(s, ms))), expected)
      assert.strictEqual(
        yield* Effect.provide(read, Summarizer.layerEffect((s, ms) => Effect.succeed(joined(s, ms)))),
        expected
      )
    }))

  it.effect("withPolicy wraps the provided summarizer: a retry runs it again", () =>
    Effect.gen(function*() {
      let calls = 0
      const flaky = Summarizer.layerEffect((s, ms) =>
        ++calls < 3 ? Effect.fail("flaky") : Effect.succeed(joined(s, ms))
      )
      const layer = Layer.provide(Summarizer.withPolicy((call) => Effect.retry(call, { times: 2 })), flaky)
      assert.strictEqual(yield* Effect.provide(read, layer), "s|user: book a flight; assistant: to Rome?")
      assert.strictEqual(calls, 3)
    }))

  it.effect("withPolicy: what the policy fails with becomes SummarizerError carrying it", () =>
    Effect.gen(function*() {
      const layer = Layer.provide(
        Summarizer.withPolicy(() => Effect.fail("policy refused")),
        Summarizer.layerFunction(joined)
      )
      const error = yield* Effect.flip(Effect.provide(read, layer))
      assert.strictEqual(error.description, "policy refused")
      assert.strictEqual(error.cause, "policy refused")
    }))
})
