/**
 * Fault injection (contract sections 5 and 9): summarizers that fail, hang,
 * return non-strings or throw; adds interrupted at every point of a fold;
 * token counters that return NaN, negative or fractional values or throw;
 * bad options. After each: the exact state contract section 5 prescribes, the
 * typed error, and the accounting invariant.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Layer, Option, Schedule, TestClock } from "effect"
import type { Memory } from "../../src/index.js"
import {
  BufferMemory,
  ConfigError,
  Message,
  RollingMemory,
  Summarizer,
  SummarizerError,
  SummaryMemory,
  TokenCounter,
  TokenCountError,
  WindowMemory
} from "../../src/index.js"
import { assertAccounting, encodeFold, gated, idsOf, range, recording, turn } from "./support/harness.js"
import { build, restore, strategies, type Strategy } from "./support/strategies.js"

/** The failure of an exit (fails the test if the exit is not a typed failure). */
const failureOf = <E>(exit: Exit.Exit<unknown, E>): E => {
  assert.isTrue(Exit.isFailure(exit), "expected the add to fail")
  const failure = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : Option.none()
  assert.isTrue(
    Option.isSome(failure),
    `expected a typed failure, got ${Exit.isFailure(exit) ? Cause.pretty(exit.cause) : ""}`
  )
  return Option.getOrThrow(failure)
}

/** The defect of an exit (fails the test if the exit is not a defect). */
const defectOf = (exit: Exit.Exit<unknown, unknown>): unknown => {
  assert.isTrue(Exit.isFailure(exit) && Cause.isDie(exit.cause), "expected a defect")
  return Exit.isFailure(exit) ? Option.getOrThrow(Cause.dieOption(exit.cause)) : undefined
}

const snapshot = (memory: Memory.Memory) =>
  Effect.all({ summary: memory.summary, buffer: Effect.map(memory.buffer, idsOf), tokens: memory.bufferTokens })

// ---------------------------------------------------------------------------
// Summarizer faults
// ---------------------------------------------------------------------------

interface Switch {
  healed: boolean
}

interface SummarizerFault {
  readonly name: string
  readonly service: (s: Switch) => Summarizer.Service
  /** Checks the add's exit: the typed error (or defect) this fault must give. */
  readonly check: (exit: Exit.Exit<void, unknown>) => void
}

const ok = (summary: string, messages: ReadonlyArray<Message.Message>): string => encodeFold(summary, messages)

const expectSummarizerError = (description: string, cause?: (cause: unknown) => void) =>
(
  exit: Exit.Exit<void, unknown>
): void => {
  const error = failureOf(exit)
  assert.instanceOf(error, SummarizerError)
  assert.strictEqual((error as SummarizerError).description, description)
  cause?.((error as SummarizerError).cause)
}

const expectDefect = (check: (defect: unknown) => void) => (exit: Exit.Exit<void, unknown>): void =>
  check(defectOf(exit))

const modelDown = new Error("model overloaded")
const ownError = new SummarizerError({ description: "quota exceeded" })

const summarizerFaults: ReadonlyArray<SummarizerFault> = [
  {
    name: "fails with an Error (fromEffect)",
    service: (s) => Summarizer.fromEffect((sum, ms) => s.healed ? Effect.succeed(ok(sum, ms)) : Effect.fail(modelDown)),
    check: expectSummarizerError("model overloaded", (cause) => assert.strictEqual(cause, modelDown))
  },
  {
    name: "fails with its own SummarizerError (fromEffect)",
    service: (s) => Summarizer.fromEffect((sum, ms) => s.healed ? Effect.succeed(ok(sum, ms)) : Effect.fail(ownError)),
    check: (exit) => assert.strictEqual(failureOf(exit), ownError)
  },
  {
    name: "throws an Error synchronously (fromFunction)",
    service: (s) =>
      Summarizer.fromFunction((sum, ms) => {
        if (!s.healed) throw modelDown
        return ok(sum, ms)
      }),
    check: expectSummarizerError("model overloaded", (cause) => assert.strictEqual(cause, modelDown))
  },
  {
    name: "throws a string synchronously (fromFunction)",
    service: (s) =>
      Summarizer.fromFunction((sum, ms) => {
        if (!s.healed) throw "out of credits"
        return ok(sum, ms)
      }),
    check: expectSummarizerError("out of credits", (cause) => assert.strictEqual(cause, "out of credits"))
  },
  ...([
    [42, "number"],
    [null, "null"],
    [undefined, "undefined"],
    [{ text: "summary" }, "object"],
    [["a"], "object"],
    [true, "boolean"]
  ] as const).map(([value, kind]): SummarizerFault => ({
    name: `returns ${JSON.stringify(value) ?? "undefined"} (fromFunction)`,
    service: (s) => Summarizer.fromFunction((sum, ms) => s.healed ? ok(sum, ms) : value as unknown as string),
    check: expectSummarizerError(
      `summarizer returned ${kind}, not a string`,
      (cause) => assert.instanceOf(cause, TypeError)
    )
  })),
  {
    name: "returns a Promise in the synchronous variant (fromFunction)",
    service: (s) =>
      Summarizer.fromFunction((sum, ms) => s.healed ? ok(sum, ms) : Promise.resolve("late") as unknown as string),
    check: expectSummarizerError(
      "summarizer returned a Promise in a synchronous memory; use an async memory (AsyncRollingMemory) for an async summarizer",
      (cause) => assert.instanceOf(cause, TypeError)
    )
  },
  {
    name: "returns a rejected Promise in the synchronous variant (fromFunction)",
    service: (s) =>
      Summarizer.fromFunction((sum, ms) => s.healed ? ok(sum, ms) : Promise.reject(modelDown) as unknown as string),
    check: expectSummarizerError(
      "summarizer returned a Promise in a synchronous memory; use an async memory (AsyncRollingMemory) for an async summarizer",
      (cause) => assert.instanceOf(cause, TypeError)
    )
  },
  {
    name: "rejects (fromPromise)",
    service: (s) => Summarizer.fromPromise(async (sum, ms) => s.healed ? ok(sum, ms) : Promise.reject(modelDown)),
    check: expectSummarizerError("model overloaded", (cause) => assert.strictEqual(cause, modelDown))
  },
  {
    name: "throws before its promise (fromPromise)",
    service: (s) =>
      Summarizer.fromPromise((sum, ms) => {
        if (!s.healed) throw modelDown
        return Promise.resolve(ok(sum, ms))
      }),
    check: expectSummarizerError("model overloaded", (cause) => assert.strictEqual(cause, modelDown))
  },
  {
    name: "resolves to a number (fromPromise)",
    service: (s) => Summarizer.fromPromise(async (sum, ms) => s.healed ? ok(sum, ms) : 7 as unknown as string),
    check: expectSummarizerError("summarizer returned number, not a string")
  },
  {
    name: "succeeds with a number (fromEffect)",
    service: (s) => Summarizer.fromEffect((sum, ms) => Effect.succeed(s.healed ? ok(sum, ms) : 7 as unknown as string)),
    check: expectSummarizerError("summarizer returned number, not a string")
  },
  {
    name: "succeeds with a number (a service built by hand)",
    service: (s) => ({
      summarize: (sum, ms) => Effect.succeed(s.healed ? ok(sum, ms) : 7 as unknown as string)
    }),
    check: expectSummarizerError("summarizer returned a non-string")
  },
  {
    name: "throws inside summarize (a service built by hand): a defect",
    service: (s) => ({
      summarize: (sum, ms) => {
        if (!s.healed) throw modelDown
        return Effect.succeed(ok(sum, ms))
      }
    }),
    check: expectDefect((defect) => assert.strictEqual(defect, modelDown))
  },
  {
    name: "dies (a service built by hand): a defect",
    service: (s) => ({ summarize: (sum, ms) => s.healed ? Effect.succeed(ok(sum, ms)) : Effect.die(modelDown) }),
    check: expectDefect((defect) => assert.strictEqual(defect, modelDown))
  },
  {
    name: "hangs, cut by a timeout policy (TestClock)",
    service: (s) => {
      const inner = Summarizer.fromEffect((sum: string, ms: ReadonlyArray<Message.Message>) =>
        s.healed ? Effect.succeed(ok(sum, ms)) : Effect.never
      )
      return Summarizer.fromEffect((sum: string, ms: ReadonlyArray<Message.Message>, req: Summarizer.Request) =>
        Effect.timeout(inner.summarize(sum, ms, req), "30 seconds")
      )
    },
    check: (exit) => {
      const error = failureOf(exit)
      assert.instanceOf(error, SummarizerError)
      assert.strictEqual((error as SummarizerError).description, "Operation timed out after '30s'")
      assert.isTrue(Cause.isTimeoutException((error as SummarizerError).cause))
    }
  }
]

/**
 * For a strategy: the turns added before the faulty add, the faulty add's
 * turn, the state right after its append, and the state after a healed add.
 */
interface SummarizingScenario {
  readonly strategy: Strategy
  readonly before: ReadonlyArray<number>
  readonly faulty: number
  readonly afterAppend: { readonly summary: string; readonly buffer: ReadonlyArray<string>; readonly tokens: number }
  readonly healed: number
  readonly afterHeal: { readonly summary: string; readonly buffer: ReadonlyArray<string>; readonly tokens: number }
}

// RollingMemory, 4 tokens, 2 per turn: t3 folds [t1] (which fails); after it,
// t4 folds [t1, t2] at once (8 tokens: evict t1 and t2, t3 opens).
// SummaryMemory: t1 fails and stays pending; t2 folds [t1, t2].
const scenarios: ReadonlyArray<SummarizingScenario> = [
  {
    strategy: "rolling",
    before: [1, 2],
    faulty: 3,
    afterAppend: { summary: "", buffer: ["t1", "t2", "t3"], tokens: 6 },
    healed: 4,
    afterHeal: { summary: "<t1><t2>", buffer: ["t3", "t4"], tokens: 4 }
  },
  {
    strategy: "summary",
    before: [],
    faulty: 1,
    afterAppend: { summary: "", buffer: ["t1"], tokens: 2 },
    healed: 2,
    afterHeal: { summary: "<t1><t2>", buffer: [], tokens: 0 }
  }
]

describe("summarizer faults leave the state as right after the append", () => {
  for (const scenario of scenarios) {
    for (const fault of summarizerFaults) {
      it.effect(`${scenario.strategy}: ${fault.name}`, () =>
        Effect.gen(function*() {
          const s: Switch = { healed: true }
          const memory = yield* build(scenario.strategy, { summarizer: fault.service(s) })
          for (const n of scenario.before) yield* memory.add(turn(n))
          s.healed = false
          const fiber = yield* Effect.fork(memory.add(turn(scenario.faulty)))
          yield* TestClock.adjust("30 seconds")
          fault.check(yield* Fiber.await(fiber))
          assert.deepStrictEqual(yield* snapshot(memory), scenario.afterAppend)
          assertAccounting(yield* memory.state, [...scenario.before, scenario.faulty].map((n) => `t${n}`), "summarize")
          // The next successful call folds every turn the failed one left.
          s.healed = true
          yield* memory.add(turn(scenario.healed))
          assert.deepStrictEqual(yield* snapshot(memory), scenario.afterHeal)
          assertAccounting(
            yield* memory.state,
            [...scenario.before, scenario.faulty, scenario.healed].map((n) => `t${n}`),
            "summarize"
          )
        }))
    }
  }

  it.effect("rolling: a hung call is interrupted by the timeout, not left running", () =>
    Effect.gen(function*() {
      let interrupted = 0
      const inner = Summarizer.fromEffect(() =>
        Effect.onInterrupt(Effect.never, () => Effect.sync(() => interrupted++))
      )
      const service = Summarizer.fromEffect((
        sum: string,
        ms: ReadonlyArray<Message.Message>,
        req: Summarizer.Request
      ) => Effect.timeout(inner.summarize(sum, ms, req), "10 seconds"))
      const memory = yield* build("rolling", { summarizer: service })
      yield* memory.add(turn(1))
      yield* memory.add(turn(2))
      const fiber = yield* Effect.fork(memory.add(turn(3)))
      yield* TestClock.adjust("9999 millis")
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)))
      assert.strictEqual(interrupted, 0)
      yield* TestClock.adjust("1 millis")
      assert.instanceOf(failureOf(yield* Fiber.await(fiber)), SummarizerError)
      assert.strictEqual(interrupted, 1)
      assert.deepStrictEqual(yield* snapshot(memory), { summary: "", buffer: ["t1", "t2", "t3"], tokens: 6 })
    }))

  it.effect("rolling and summary: a hung summarizer under Summarizer.withPolicy(timeout) keeps the appended turn", () =>
    Effect.gen(function*() {
      const hanging = Summarizer.layerEffect((summary: string, messages: ReadonlyArray<Message.Message>) =>
        Effect.never.pipe(Effect.as(encodeFold(summary, messages)))
      )
      const layer = Layer.provide(Summarizer.withPolicy((call) => Effect.timeout(call, "20 seconds")), hanging)
      const rolling = yield* Effect.provide(RollingMemory.make({ maxTokens: 4 }), layer)
      const summary = yield* Effect.provide(SummaryMemory.make(), layer)
      yield* rolling.add(turn(1))
      yield* rolling.add(turn(2))
      const fibers = [yield* Effect.fork(rolling.add(turn(3))), yield* Effect.fork(summary.add(turn(1)))]
      yield* TestClock.adjust("19 seconds")
      for (const fiber of fibers) assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)))
      yield* TestClock.adjust("1 seconds")
      for (const fiber of fibers) {
        const error = failureOf(yield* Fiber.await(fiber))
        assert.instanceOf(error, SummarizerError)
        assert.strictEqual((error as SummarizerError).description, "Operation timed out after '20s'")
      }
      assert.deepStrictEqual(yield* snapshot(rolling), { summary: "", buffer: ["t1", "t2", "t3"], tokens: 6 })
      assert.deepStrictEqual(yield* snapshot(summary), { summary: "", buffer: ["t1"], tokens: 2 })
    }))

  it.effect("rolling: transient failures retried by a policy commit exactly once", () =>
    Effect.gen(function*() {
      let attempts = 0
      const { calls, service: inner } = recording()
      const flaky = Summarizer.fromEffect((sum: string, ms: ReadonlyArray<Message.Message>, req: Summarizer.Request) =>
        ++attempts <= 2 ? Effect.fail(modelDown) : inner.summarize(sum, ms, req)
      )
      const service = Summarizer.fromEffect((
        sum: string,
        ms: ReadonlyArray<Message.Message>,
        req: Summarizer.Request
      ) => Effect.retry(flaky.summarize(sum, ms, req), Schedule.recurs(2)))
      const memory = yield* build("rolling", { summarizer: service })
      for (const n of [1, 2, 3]) yield* memory.add(turn(n))
      assert.strictEqual(attempts, 3)
      assert.deepStrictEqual(calls, [{ summary: "", ids: ["t1"] }])
      assert.deepStrictEqual(yield* snapshot(memory), { summary: "<t1>", buffer: ["t2", "t3"], tokens: 4 })
    }))

  it.effect("summary: failures keep every pending turn; the next success folds them all in one call", () =>
    Effect.gen(function*() {
      const s: Switch = { healed: false }
      const { calls, service: inner } = recording()
      let failures = 0
      const service = Summarizer.fromEffect((
        sum: string,
        ms: ReadonlyArray<Message.Message>,
        req: Summarizer.Request
      ) =>
        s.healed ? inner.summarize(sum, ms, req) : Effect.suspend(() => {
          failures++
          return Effect.fail(modelDown)
        })
      )
      const memory = yield* build("summary", { summarizer: service })
      for (const n of [1, 2, 3]) {
        assert.instanceOf(failureOf(yield* Effect.exit(memory.add(turn(n)))), SummarizerError)
      }
      assert.strictEqual(failures, 3)
      assert.deepStrictEqual(yield* snapshot(memory), { summary: "", buffer: ["t1", "t2", "t3"], tokens: 6 })
      s.healed = true
      yield* memory.add(turn(4))
      assert.deepStrictEqual(calls, [{ summary: "", ids: ["t1", "t2", "t3", "t4"] }])
      assert.deepStrictEqual(yield* snapshot(memory), { summary: "<t1><t2><t3><t4>", buffer: [], tokens: 0 })
    }))
})

// ---------------------------------------------------------------------------
// Interruption at every point of a fold
// ---------------------------------------------------------------------------

describe("an interrupted add loses nothing", () => {
  it.effect("rolling: interrupted while waiting for the prune lock (before its call)", () =>
    Effect.gen(function*() {
      const g = yield* gated()
      const memory = yield* build("rolling", { summarizer: g.service })
      yield* memory.add(turn(1))
      yield* memory.add(turn(2))
      const first = yield* Effect.fork(memory.add(turn(3)))
      assert.deepStrictEqual(yield* g.started(0), ["t1"])
      const second = yield* Effect.fork(memory.add(turn(4)))
      yield* Effect.yieldNow()
      assert.deepStrictEqual(idsOf(yield* memory.buffer), ["t1", "t2", "t3", "t4"])
      const exit = yield* Fiber.interrupt(second)
      assert.isTrue(Exit.isInterrupted(exit))
      assert.strictEqual(g.calls.length, 1)
      assert.deepStrictEqual(yield* snapshot(memory), { summary: "", buffer: ["t1", "t2", "t3", "t4"], tokens: 8 })
      yield* g.release(0)
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(first)))
      assert.deepStrictEqual(yield* snapshot(memory), { summary: "<t1>", buffer: ["t2", "t3", "t4"], tokens: 6 })
      assertAccounting(yield* memory.state, ["t1", "t2", "t3", "t4"], "summarize")
      // The budget applies again on the next add.
      yield* g.release(1)
      yield* memory.add(turn(5))
      assert.deepStrictEqual(g.calls[1], { summary: "<t1>", ids: ["t2", "t3"] })
      assert.deepStrictEqual(yield* snapshot(memory), { summary: "<t1><t2><t3>", buffer: ["t4", "t5"], tokens: 4 })
    }))

  for (const strategy of ["rolling", "summary"] as const) {
    const before = strategy === "rolling" ? [1, 2] : []
    const faulty = strategy === "rolling" ? 3 : 1
    const folded = ["t1"]
    const afterAppend = strategy === "rolling"
      ? { summary: "", buffer: ["t1", "t2", "t3"], tokens: 6 }
      : { summary: "", buffer: ["t1"], tokens: 2 }
    const committed = strategy === "rolling"
      ? { summary: "<t1>", buffer: ["t2", "t3"], tokens: 4 }
      : { summary: "<t1>", buffer: [], tokens: 0 }
    const added = [...before, faulty].map((n) => `t${n}`)

    it.effect(`${strategy}: interrupted during the summarizer call`, () =>
      Effect.gen(function*() {
        const g = yield* gated()
        const memory = yield* build(strategy, { summarizer: g.service })
        for (const n of before) yield* memory.add(turn(n))
        const fiber = yield* Effect.fork(memory.add(turn(faulty)))
        assert.deepStrictEqual(yield* g.started(0), folded)
        assert.isTrue(Exit.isInterrupted(yield* Fiber.interrupt(fiber)))
        assert.strictEqual(g.interrupted(), 1)
        assert.deepStrictEqual(yield* snapshot(memory), afterAppend)
        assertAccounting(yield* memory.state, added, "summarize")
        // A late release of the interrupted call commits nothing.
        yield* g.release(0)
        yield* Effect.yieldNow()
        assert.deepStrictEqual(yield* snapshot(memory), afterAppend)
      }))

    it.effect(`${strategy}: interrupted right after the summarizer returns (0 to 12 yields later)`, () =>
      Effect.gen(function*() {
        const outcomes: Array<string> = []
        for (const k of range(0, 13)) {
          const g = yield* gated()
          const memory = yield* build(strategy, { summarizer: g.service })
          for (const n of before) yield* memory.add(turn(n))
          const fiber = yield* Effect.fork(memory.add(turn(faulty)))
          yield* g.started(0)
          yield* g.release(0)
          for (let i = 0; i < k; i++) yield* Effect.yieldNow()
          const exit = yield* Fiber.interrupt(fiber)
          const state = yield* snapshot(memory)
          const wasCommitted = state.summary !== ""
          assert.deepStrictEqual(state, wasCommitted ? committed : afterAppend)
          // An add that returned normally has committed its fold.
          if (Exit.isSuccess(exit)) assert.isTrue(wasCommitted)
          else assert.isTrue(Exit.isInterrupted(exit))
          assertAccounting(yield* memory.state, added, "summarize")
          outcomes.push(`${Exit.isSuccess(exit) ? "done" : "interrupted"}/${wasCommitted ? "committed" : "kept"}`)
        }
        // The sweep covers both sides of the commit: interrupted at once, the
        // fold is not committed; a few steps later, the add has completed.
        assert.strictEqual(outcomes[0], "interrupted/kept")
        assert.strictEqual(outcomes[outcomes.length - 1], "done/committed")
      }))

    it.effect(`${strategy}: interrupted after 0 to 40 scheduler steps (every point of the add)`, () =>
      Effect.gen(function*() {
        // A summarizer that takes several steps, so interruption can land anywhere in it.
        const { service: inner } = recording()
        const stepping = Summarizer.fromEffect((
          sum: string,
          ms: ReadonlyArray<Message.Message>,
          req: Summarizer.Request
        ) =>
          Effect.zipRight(
            Effect.forEach(range(0, 6), () => Effect.yieldNow(), { discard: true }),
            inner.summarize(sum, ms, req)
          )
        )
        const seen = new Set<string>()
        for (const k of range(0, 41)) {
          const memory = yield* build(strategy, { summarizer: stepping })
          for (const n of before) yield* memory.add(turn(n))
          const fiber = yield* Effect.fork(memory.add(turn(faulty)))
          for (let i = 0; i < k; i++) yield* Effect.yieldNow()
          const exit = yield* Fiber.interrupt(fiber)
          const state = yield* snapshot(memory)
          const appended = state.buffer.includes(`t${faulty}`) || state.summary.includes(`<t${faulty}>`)
          if (!appended) {
            // Interrupted before the append: the add did not happen.
            assert.isTrue(Exit.isInterrupted(exit))
            assert.deepStrictEqual(state.buffer, before.map((n) => `t${n}`))
            assertAccounting(yield* memory.state, before.map((n) => `t${n}`), "summarize")
            seen.add("before append")
            continue
          }
          const wasCommitted = state.summary !== ""
          assert.deepStrictEqual(state, wasCommitted ? committed : afterAppend)
          if (Exit.isSuccess(exit)) assert.isTrue(wasCommitted)
          assertAccounting(yield* memory.state, added, "summarize")
          seen.add(wasCommitted ? "committed" : "after append")
        }
        assert.deepStrictEqual([...seen].sort(), ["after append", "before append", "committed"])
      }))
  }

  it.effect("interrupted while the token counter is still counting: nothing is appended", () =>
    Effect.gen(function*() {
      const slow: TokenCounter.Service = {
        count: (text) => Effect.as(Effect.sleep("1 second"), TokenCounter.wordCount(text))
      }
      for (const strategy of strategies) {
        const { service } = recording()
        const memory = yield* build(strategy, { summarizer: service, counter: slow })
        const fiber = yield* Effect.fork(memory.add(turn(1)))
        yield* TestClock.adjust("500 millis")
        assert.isTrue(Exit.isInterrupted(yield* Fiber.interrupt(fiber)))
        assert.deepStrictEqual(yield* snapshot(memory), { summary: "", buffer: [], tokens: 0 })
      }
    }))
})

// ---------------------------------------------------------------------------
// Token counter faults
// ---------------------------------------------------------------------------

interface CounterFault {
  readonly name: string
  readonly counter: (s: Switch) => TokenCounter.Service
  readonly check: (error: unknown) => void
}

const tokenizerCrash = new Error("tokenizer crashed")

const badCount = (
  value: unknown,
  shown: string,
  why = "not a non-negative integer"
): CounterFault => ({
  name: `returns ${shown}`,
  counter: (s) => TokenCounter.fromFunction((text) => s.healed ? TokenCounter.wordCount(text) : value as number),
  check: (error) => {
    assert.instanceOf(error, TokenCountError)
    assert.strictEqual((error as TokenCountError).description, `token counter returned ${shown}, ${why}`)
  }
})

const PAST_SAFE = "past the largest safe integer (9007199254740991)"

const counterFaults: ReadonlyArray<CounterFault> = [
  badCount(NaN, "NaN"),
  badCount(-1, "-1"),
  badCount(-0.5, "-0.5"),
  badCount(1.5, "1.5"),
  badCount(Infinity, "Infinity"),
  badCount(-Infinity, "-Infinity"),
  badCount("3", "string"),
  badCount(undefined, "undefined"),
  badCount(null, "object"),
  badCount(3n, "bigint"),
  badCount(2 ** 53, "9007199254740992", PAST_SAFE),
  badCount(1e300, "1e+300", PAST_SAFE),
  {
    name: "throws (fromFunction)",
    counter: (s) =>
      TokenCounter.fromFunction((text) => {
        if (!s.healed) throw tokenizerCrash
        return TokenCounter.wordCount(text)
      }),
    check: (error) => {
      assert.instanceOf(error, TokenCountError)
      assert.strictEqual((error as TokenCountError).description, "Error: tokenizer crashed")
      assert.strictEqual((error as TokenCountError).cause, tokenizerCrash)
    }
  },
  {
    name: "succeeds with NaN (a service built by hand)",
    counter: (s) => ({ count: (text) => Effect.succeed(s.healed ? TokenCounter.wordCount(text) : NaN) }),
    check: (error) => {
      assert.instanceOf(error, TokenCountError)
      assert.strictEqual(
        (error as TokenCountError).description,
        "token counter returned NaN, not a non-negative integer"
      )
    }
  },
  {
    name: "fails with its own TokenCountError (a service built by hand)",
    counter: (s) => ({
      count: (text) =>
        s.healed
          ? Effect.succeed(TokenCounter.wordCount(text))
          : Effect.fail(new TokenCountError({ description: "vocabulary missing" }))
    }),
    check: (error) => {
      assert.instanceOf(error, TokenCountError)
      assert.strictEqual((error as TokenCountError).description, "vocabulary missing")
    }
  }
]

/** Each strategy after t1, t2, t3 (2 tokens each; 4 tokens, 2 messages). */
const afterThree: Record<Strategy, { summary: string; buffer: ReadonlyArray<string>; tokens: number }> = {
  rolling: { summary: "<t1>", buffer: ["t2", "t3"], tokens: 4 },
  "rolling-drop": { summary: "", buffer: ["t2", "t3"], tokens: 4 },
  buffer: { summary: "", buffer: ["t1", "t2", "t3"], tokens: 6 },
  window: { summary: "", buffer: ["t2", "t3"], tokens: 4 },
  summary: { summary: "<t1><t2><t3>", buffer: [], tokens: 0 }
}

describe("token counter faults leave the state as before the call", () => {
  for (const strategy of strategies) {
    for (const fault of counterFaults) {
      it.effect(`${strategy}: counter ${fault.name}`, () =>
        Effect.gen(function*() {
          const s: Switch = { healed: true }
          const { service } = recording()
          const memory = yield* build(strategy, { summarizer: service, counter: fault.counter(s) })
          yield* memory.add(turn(1))
          yield* memory.add(turn(2))
          const before = yield* snapshot(memory)
          s.healed = false
          fault.check(failureOf(yield* Effect.exit(memory.add(turn(3)))))
          assert.deepStrictEqual(yield* snapshot(memory), before)
          s.healed = true
          yield* memory.add(turn(3))
          assert.deepStrictEqual(yield* snapshot(memory), afterThree[strategy])
        }))
    }
  }

  it.effect("a counter that throws inside count (a service built by hand) is a defect at run time, not at call time", () =>
    Effect.gen(function*() {
      for (const strategy of strategies) {
        const s: Switch = { healed: true }
        const counter: TokenCounter.Service = {
          count: (text) => {
            if (!s.healed) throw tokenizerCrash
            return Effect.succeed(TokenCounter.wordCount(text))
          }
        }
        const { service } = recording()
        const memory = yield* build(strategy, { summarizer: service, counter })
        yield* memory.add(turn(1))
        const before = yield* snapshot(memory)
        s.healed = false
        // Building the effect must not run the counter.
        const add = memory.add(turn(2))
        assert.strictEqual(defectOf(yield* Effect.exit(add)), tokenizerCrash)
        assert.deepStrictEqual(yield* snapshot(memory), before)
      }
    }))

  it.effect("a restore with a failing counter builds nothing", () =>
    Effect.gen(function*() {
      const state = {
        version: 2,
        summary: "<t0>",
        buffer: [{ role: "user", content: "a b", id: "t1" }, { role: "user", content: "c d", id: "t2" }]
      }
      for (const strategy of strategies) {
        for (const fault of counterFaults) {
          const { service } = recording()
          const exit = yield* Effect.exit(
            restore(strategy, state, { summarizer: service, counter: fault.counter({ healed: false }) })
          )
          fault.check(failureOf(exit))
        }
      }
    }))
})

// ---------------------------------------------------------------------------
// Bad options
// ---------------------------------------------------------------------------

describe("bad options give ConfigError and build nothing", () => {
  const positive = (shown: string) => `must be a positive integer, got ${shown}`
  const bad: ReadonlyArray<readonly [unknown, string, string]> = [
    [0, "0", positive("0")],
    [-1, "-1", positive("-1")],
    [1.5, "1.5", positive("1.5")],
    [NaN, "NaN", positive("NaN")],
    [Infinity, "Infinity", "out of range: the largest accepted value is 9007199254740991, got Infinity"],
    ["10", "\"10\"", positive("\"10\"")],
    [true, "boolean", positive("boolean")],
    [{}, "object", positive("object")]
  ]
  for (const [value, shown, description] of bad) {
    it.effect(`maxTokens ${shown}`, () =>
      Effect.gen(function*() {
        const error = failureOf(yield* Effect.exit(RollingMemory.make({ maxTokens: value as number })))
        assert.deepStrictEqual(
          error,
          new ConfigError({ option: "maxTokens", description })
        )
        const restored = yield* Effect.exit(RollingMemory.fromJSON({ version: 2 }, { maxTokens: value as number }))
        assert.instanceOf(failureOf(restored), ConfigError)
      }).pipe(Effect.provide(Summarizer.layerDrop)))

    it.effect(`maxMessages ${shown}`, () =>
      Effect.gen(function*() {
        const error = failureOf(yield* Effect.exit(WindowMemory.make({ maxMessages: value as number })))
        assert.deepStrictEqual(
          error,
          new ConfigError({ option: "maxMessages", description })
        )
        const restored = yield* Effect.exit(WindowMemory.fromJSON({ version: 2 }, { maxMessages: value as number }))
        assert.instanceOf(failureOf(restored), ConfigError)
      }))
  }

  it.effect("a missing maxMessages", () =>
    Effect.gen(function*() {
      const error = failureOf(yield* Effect.exit(WindowMemory.make({} as WindowMemory.Options)))
      assert.deepStrictEqual(
        error,
        new ConfigError({ option: "maxMessages", description: "must be a positive integer, got undefined" })
      )
    }))

  it.effect("maxTokens omitted takes the default of 2000", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* RollingMemory.make()).maxTokens, 2000)
      assert.strictEqual((yield* RollingMemory.make({})).maxTokens, 2000)
      assert.strictEqual((yield* BufferMemory.make()).strategy, "buffer")
    }).pipe(Effect.provide(Summarizer.layerDrop)))
})
