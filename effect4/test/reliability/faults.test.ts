/**
 * The reliability suites on the Effect 4 line (docs/contract.md sections 5
 * and 9), as the Effect 3 line's `test/reliability/faults.test.ts` and
 * `concurrency.test.ts` run them, with its exact values: summarizers that
 * fail, die, return non-strings or hang (cut by a timeout on the
 * `TestClock`); adds interrupted while waiting for the prune lock, during
 * the summarizer call and at every scheduler step of an add; a storm of
 * concurrent adds while folds are in flight; `clear` racing a fold. No
 * sleeps: `TestClock`, `Deferred`, `Fiber.interrupt`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { Message, RollingMemory, Summarizer, SummarizerError, SummaryMemory } from "../../src/index.js"

type M = Message.Message

/** A turn of two tokens whose id is `t<n>`. */
const turn = (n: number): M => Message.user(`w${n} x`, { id: `t${n}` })
const idsOf = (messages: ReadonlyArray<M>): Array<string> => messages.map((m) => m.id ?? "?")
const foldedIds = (summary: string): Array<string> => Array.from(summary.matchAll(/<([^<>]*)>/g), (m) => m[1])
const encodeFold = (summary: string, messages: ReadonlyArray<M>): string =>
  summary + messages.map((m) => `<${m.id ?? "?"}>`).join("")
const range = (from: number, n: number): Array<number> => Array.from({ length: n }, (_, i) => from + i)

type Strategy = "rolling" | "summary"

interface Memory {
  readonly add: (message: M) => Effect.Effect<void, unknown>
  readonly summary: Effect.Effect<string>
  readonly buffer: Effect.Effect<ReadonlyArray<M>>
  readonly bufferTokens: Effect.Effect<number>
  readonly clear: Effect.Effect<void>
}

/** A memory of 4 tokens (rolling) or a summary memory, with `summarizer`. */
const build = (strategy: Strategy, summarizer: Summarizer.Service): Effect.Effect<Memory, unknown> => {
  const made: Effect.Effect<Memory, unknown, Summarizer.Summarizer> = strategy === "rolling"
    ? RollingMemory.make({ maxTokens: 4 })
    : SummaryMemory.make()
  return Effect.provide(made, Layer.succeed(Summarizer.Summarizer, summarizer))
}

const snapshot = (memory: Memory) =>
  Effect.all({ summary: memory.summary, buffer: Effect.map(memory.buffer, idsOf), tokens: memory.bufferTokens })

/** Every added turn is in the summary or the buffer, once, in order. */
const assertAccounting = (summary: string, buffer: ReadonlyArray<M>, added: ReadonlyArray<string>): void => {
  const ids = idsOf(buffer)
  assert.strictEqual(new Set(ids).size, ids.length, `a turn is duplicated in the buffer: ${ids.join(",")}`)
  assert.deepStrictEqual([...foldedIds(summary), ...ids], [...added])
}

const accounted = (memory: Memory, added: ReadonlyArray<string>) =>
  Effect.map(
    Effect.all([memory.summary, memory.buffer]),
    ([summary, buffer]) => assertAccounting(summary, buffer, added)
  )

/** A summarizer whose calls wait for their gate; `interrupted` counts the calls interrupted. */
const gated = () => {
  const calls: Array<ReadonlyArray<string>> = []
  const starts: Array<Deferred.Deferred<ReadonlyArray<string>>> = []
  const gates: Array<Deferred.Deferred<void>> = []
  let interrupted = 0
  const slot = <A>(list: Array<Deferred.Deferred<A>>, i: number): Deferred.Deferred<A> => {
    while (list.length <= i) list.push(Deferred.makeUnsafe<A>())
    return list[i]
  }
  const service = Summarizer.fromEffect((summary: string, messages: ReadonlyArray<M>) =>
    Effect.suspend(() => {
      const i = calls.length
      const ids = idsOf(messages)
      calls.push(ids)
      // the start signalled inside the interruptible region: an interruption right after it is counted
      return Effect.onInterrupt(
        Effect.andThen(
          Deferred.succeed(slot(starts, i), ids),
          Effect.as(Deferred.await(slot(gates, i)), encodeFold(summary, messages))
        ),
        () => Effect.sync(() => interrupted++)
      )
    })
  )
  return {
    calls,
    service,
    interrupted: () => interrupted,
    started: (i: number) => Deferred.await(slot(starts, i)),
    release: (i: number) => Deferred.succeed(slot(gates, i), undefined)
  }
}

/** The typed failure of an exit. */
const failureOf = (exit: Exit.Exit<unknown, unknown>): unknown => {
  assert.isTrue(Exit.isFailure(exit), "expected the add to fail")
  const found = Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause) : undefined
  assert.isTrue(found !== undefined && found._tag === "Some", "expected a typed failure")
  return found !== undefined && found._tag === "Some" ? found.value : undefined
}

const defectOf = (exit: Exit.Exit<unknown, unknown>): unknown => {
  assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause), "expected a defect")
  return Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
}

interface Switch {
  healed: boolean
}

interface Fault {
  readonly name: string
  readonly service: (s: Switch) => Summarizer.Service
  readonly check: (exit: Exit.Exit<void, unknown>) => void
}

const ok = encodeFold
const modelDown = new Error("model overloaded")
const ownError = new SummarizerError({ description: "quota exceeded" })

const expectSummarizerError = (description: string, cause?: (cause: unknown) => void) =>
(
  exit: Exit.Exit<void, unknown>
): void => {
  const error = failureOf(exit)
  assert.instanceOf(error, SummarizerError)
  assert.strictEqual((error as SummarizerError).description, description)
  cause?.((error as SummarizerError).cause)
}

const faults: ReadonlyArray<Fault> = [
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
    name: "returns a number (fromFunction)",
    service: (s) => Summarizer.fromFunction((sum, ms) => s.healed ? ok(sum, ms) : 42 as unknown as string),
    check: expectSummarizerError("summarizer returned number, not a string", (c) => assert.instanceOf(c, TypeError))
  },
  {
    name: "rejects (fromPromise)",
    service: (s) => Summarizer.fromPromise(async (sum, ms) => s.healed ? ok(sum, ms) : Promise.reject(modelDown)),
    check: expectSummarizerError("model overloaded", (cause) => assert.strictEqual(cause, modelDown))
  },
  {
    name: "succeeds with a number (a service built by hand)",
    service: (s) => ({ summarize: (sum, ms) => Effect.succeed(s.healed ? ok(sum, ms) : 7 as unknown as string) }),
    check: expectSummarizerError("summarizer returned a non-string")
  },
  {
    name: "dies (a service built by hand): a defect",
    service: (s) => ({ summarize: (sum, ms) => s.healed ? Effect.succeed(ok(sum, ms)) : Effect.die(modelDown) }),
    check: (exit) => assert.strictEqual(defectOf(exit), modelDown)
  },
  {
    name: "hangs, cut by a timeout (TestClock)",
    service: (s) =>
      Summarizer.fromEffect((sum: string, ms: ReadonlyArray<M>) =>
        Effect.timeout(s.healed ? Effect.succeed(ok(sum, ms)) : Effect.never, "30 seconds")
      ),
    check: (exit) => assert.instanceOf(failureOf(exit), SummarizerError)
  }
]

// RollingMemory, 4 tokens, 2 per turn: t3 folds [t1] (which fails); after it, t4 folds [t1, t2] at once.
// SummaryMemory: t1 fails and stays pending; t2 folds [t1, t2].
const scenarios = [
  {
    strategy: "rolling" as const,
    before: [1, 2],
    faulty: 3,
    afterAppend: { summary: "", buffer: ["t1", "t2", "t3"], tokens: 6 },
    healed: 4,
    afterHeal: { summary: "<t1><t2>", buffer: ["t3", "t4"], tokens: 4 }
  },
  {
    strategy: "summary" as const,
    before: [],
    faulty: 1,
    afterAppend: { summary: "", buffer: ["t1"], tokens: 2 },
    healed: 2,
    afterHeal: { summary: "<t1><t2>", buffer: [], tokens: 0 }
  }
]

describe("summarizer faults leave the state as right after the append", () => {
  for (const scenario of scenarios) {
    for (const fault of faults) {
      it.effect(`${scenario.strategy}: ${fault.name}`, () =>
        Effect.gen(function*() {
          const s: Switch = { healed: true }
          const memory = yield* build(scenario.strategy, fault.service(s))
          for (const n of scenario.before) yield* memory.add(turn(n))
          s.healed = false
          const fiber = yield* Effect.forkChild(memory.add(turn(scenario.faulty)))
          yield* TestClock.adjust("30 seconds")
          fault.check(yield* Fiber.await(fiber))
          assert.deepStrictEqual(yield* snapshot(memory), scenario.afterAppend)
          const added = [...scenario.before, scenario.faulty].map((n) => `t${n}`)
          yield* accounted(memory, added)
          s.healed = true
          yield* memory.add(turn(scenario.healed))
          assert.deepStrictEqual(yield* snapshot(memory), scenario.afterHeal)
          yield* accounted(memory, [...added, `t${scenario.healed}`])
        }))
    }
  }

  it.effect("rolling: a hung call is interrupted by the timeout, not left running", () =>
    Effect.gen(function*() {
      let interrupted = 0
      const service = Summarizer.fromEffect(() =>
        Effect.timeout(Effect.onInterrupt(Effect.never, () => Effect.sync(() => interrupted++)), "10 seconds")
      )
      const memory = yield* build("rolling", service)
      yield* memory.add(turn(1))
      yield* memory.add(turn(2))
      const fiber = yield* Effect.forkChild(memory.add(turn(3)))
      yield* TestClock.adjust("9999 millis")
      assert.isUndefined(fiber.pollUnsafe())
      assert.strictEqual(interrupted, 0)
      yield* TestClock.adjust("1 millis")
      assert.instanceOf(failureOf(yield* Fiber.await(fiber)), SummarizerError)
      assert.strictEqual(interrupted, 1)
      assert.deepStrictEqual(yield* snapshot(memory), { summary: "", buffer: ["t1", "t2", "t3"], tokens: 6 })
    }))
})

describe("an interrupted add loses nothing", () => {
  it.effect("rolling: interrupted while waiting for the prune lock (before its call)", () =>
    Effect.gen(function*() {
      const g = gated()
      const memory = yield* build("rolling", g.service)
      yield* memory.add(turn(1))
      yield* memory.add(turn(2))
      const first = yield* Effect.forkChild(memory.add(turn(3)))
      assert.deepStrictEqual(yield* g.started(0), ["t1"])
      const second = yield* Effect.forkChild(memory.add(turn(4)))
      yield* Effect.yieldNow
      assert.deepStrictEqual(idsOf(yield* memory.buffer), ["t1", "t2", "t3", "t4"])
      const exit = yield* Fiber.interrupt(second).pipe(Effect.andThen(Fiber.await(second)))
      assert.isTrue(Exit.hasInterrupts(exit))
      assert.strictEqual(g.calls.length, 1)
      assert.deepStrictEqual(yield* snapshot(memory), { summary: "", buffer: ["t1", "t2", "t3", "t4"], tokens: 8 })
      yield* g.release(0)
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(first)))
      assert.deepStrictEqual(yield* snapshot(memory), { summary: "<t1>", buffer: ["t2", "t3", "t4"], tokens: 6 })
      yield* g.release(1)
      yield* memory.add(turn(5))
      assert.deepStrictEqual(g.calls[1], ["t2", "t3"])
      assert.deepStrictEqual(yield* snapshot(memory), { summary: "<t1><t2><t3>", buffer: ["t4", "t5"], tokens: 4 })
      yield* accounted(memory, ["t1", "t2", "t3", "t4", "t5"])
    }))

  for (const strategy of ["rolling", "summary"] as const) {
    const before = strategy === "rolling" ? [1, 2] : []
    const faulty = strategy === "rolling" ? 3 : 1
    const afterAppend = strategy === "rolling"
      ? { summary: "", buffer: ["t1", "t2", "t3"], tokens: 6 }
      : { summary: "", buffer: ["t1"], tokens: 2 }
    const committed = strategy === "rolling"
      ? { summary: "<t1>", buffer: ["t2", "t3"], tokens: 4 }
      : { summary: "<t1>", buffer: [], tokens: 0 }
    const added = [...before, faulty].map((n) => `t${n}`)

    it.effect(`${strategy}: interrupted during the summarizer call; a late release commits nothing`, () =>
      Effect.gen(function*() {
        const g = gated()
        const memory = yield* build(strategy, g.service)
        for (const n of before) yield* memory.add(turn(n))
        const fiber = yield* Effect.forkChild(memory.add(turn(faulty)))
        assert.deepStrictEqual(yield* g.started(0), ["t1"])
        yield* Fiber.interrupt(fiber)
        assert.isTrue(Exit.hasInterrupts(yield* Fiber.await(fiber)))
        assert.strictEqual(g.interrupted(), 1)
        assert.deepStrictEqual(yield* snapshot(memory), afterAppend)
        yield* accounted(memory, added)
        yield* g.release(0)
        yield* Effect.yieldNow
        assert.deepStrictEqual(yield* snapshot(memory), afterAppend)
      }))

    it.effect(`${strategy}: interrupted after 0 to 40 scheduler steps (every point of the add)`, () =>
      Effect.gen(function*() {
        const stepping = Summarizer.fromEffect((sum: string, ms: ReadonlyArray<M>) =>
          Effect.andThen(
            Effect.forEach(range(0, 6), () => Effect.yieldNow, { discard: true }),
            Effect.succeed(encodeFold(sum, ms))
          )
        )
        const seen = new Set<string>()
        for (const k of range(0, 41)) {
          const memory = yield* build(strategy, stepping)
          for (const n of before) yield* memory.add(turn(n))
          const fiber = yield* Effect.forkChild(memory.add(turn(faulty)))
          for (let i = 0; i < k; i++) yield* Effect.yieldNow
          yield* Fiber.interrupt(fiber)
          const exit = yield* Fiber.await(fiber)
          const state = yield* snapshot(memory)
          const appended = state.buffer.includes(`t${faulty}`) || state.summary.includes(`<t${faulty}>`)
          if (!appended) {
            assert.isTrue(Exit.hasInterrupts(exit))
            assert.deepStrictEqual(state.buffer, before.map((n) => `t${n}`))
            seen.add("before append")
            continue
          }
          const wasCommitted = state.summary !== ""
          assert.deepStrictEqual(state, wasCommitted ? committed : afterAppend)
          if (Exit.isSuccess(exit)) assert.isTrue(wasCommitted)
          yield* accounted(memory, added)
          seen.add(wasCommitted ? "committed" : "after append")
        }
        assert.deepStrictEqual([...seen].sort(), ["after append", "before append", "committed"])
      }))
  }
})

describe("storms", () => {
  it.effect("RollingMemory: 1,000 concurrent adds while folds are in flight keep every turn once, in order", () =>
    Effect.gen(function*() {
      let calls = 0
      // each call takes 0 to 20 ms of the TestClock, so adds pile up behind the prune lock
      const slow = Summarizer.fromEffect((sum: string, ms: ReadonlyArray<M>) =>
        Effect.as(Effect.sleep(`${(calls++ * 7) % 21} millis`), encodeFold(sum, ms))
      )
      const memory = yield* build("rolling", slow)
      const fibers = yield* Effect.forEach(range(1, 1000), (n) => Effect.forkChild(memory.add(turn(n))))
      for (let i = 0; i < 200 && fibers.some((f) => f.pollUnsafe() === undefined); i++) {
        yield* TestClock.adjust("20 millis")
      }
      const exits = yield* Effect.forEach(fibers, Fiber.await)
      assert.isTrue(exits.every(Exit.isSuccess))
      yield* accounted(memory, range(1, 1000).map((n) => `t${n}`))
      assert.isAtMost(yield* memory.bufferTokens, 4)
      assert.isAtMost(calls, 1000)
    }))

  it.effect("clear racing a fold in flight: the clear wins, the fold's result is dropped", () =>
    Effect.gen(function*() {
      const g = gated()
      const memory = yield* build("rolling", g.service)
      yield* memory.add(turn(1))
      yield* memory.add(turn(2))
      const fiber = yield* Effect.forkChild(memory.add(turn(3)))
      yield* g.started(0)
      yield* memory.clear
      yield* g.release(0)
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(fiber)))
      assert.deepStrictEqual(yield* snapshot(memory), { summary: "", buffer: [], tokens: 0 })
      yield* memory.add(turn(4))
      assert.deepStrictEqual(yield* snapshot(memory), { summary: "", buffer: ["t4"], tokens: 2 })
    }))
})
