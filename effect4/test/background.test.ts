/**
 * Background folding on the Effect 4 line (docs/contract.md section 5.1), as
 * the Effect 3 line's test/background.test.ts runs it, with its exact values:
 * an add completes once its turn is appended; folds run one at a time in the
 * memory's scope; the hard cap holds adds back; failures are retried on the
 * given Schedule, reported and never lose a turn; `clear` and closing the
 * scope commit nothing of the fold in flight. Time and concurrency through
 * Deferred gates and the TestClock, never sleeps.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber, Option, Schedule, Scope } from "effect"
import { TestClock } from "effect/testing"
import type { MemoryState } from "../src/index.js"
import { ConfigError, Memory, Message, RollingMemory, Summarizer, SummarizerError } from "../src/index.js"

type M = Message.Message

/** A turn of two tokens whose id is `t<n>`. */
const turn = (n: number): M => Message.user(`w${n} x`, { id: `t${n}` })
const idsOf = (messages: ReadonlyArray<M>): Array<string> => messages.map((m) => m.id ?? "?")
const foldedIds = (summary: string): Array<string> => Array.from(summary.matchAll(/<([^<>]*)>/g), (m) => m[1])
const encodeFold = (summary: string, messages: ReadonlyArray<M>): string =>
  summary + messages.map((m) => `<${m.id ?? "?"}>`).join("")
const range = (from: number, n: number): Array<number> => Array.from({ length: n }, (_, i) => from + i)
const yields = (n: number) => Effect.forEach(range(0, n), () => Effect.yieldNow, { discard: true })

/** Every added turn is in the summary or the buffer, once, in order. */
const assertAccounting = (state: MemoryState.MemoryState, added: ReadonlyArray<string>): void => {
  const buffer = idsOf(state.buffer)
  assert.strictEqual(new Set(buffer).size, buffer.length, `a turn is duplicated in the buffer: ${buffer.join(",")}`)
  assert.deepStrictEqual([...foldedIds(state.summary), ...buffer], [...added])
}

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

type Gated = ReturnType<typeof gated>

const provideSummarizer = (service: Summarizer.Service) => Effect.provideService(Summarizer.Summarizer, service)

/** A background RollingMemory in `scope`: budget 4 words (two turns), hard cap 8. */
const background = (service: Summarizer.Service, scope: Scope.Scope, options: RollingMemory.Options = {}) =>
  RollingMemory.makeScoped({ maxTokens: 4, hardMaxTokens: 8, fold: "background", ...options }).pipe(
    provideSummarizer(service),
    Scope.provide(scope)
  )

const ids = (memory: RollingMemory.RollingMemory) => Effect.map(memory.buffer, idsOf)

const addAll = (memory: RollingMemory.RollingMemory, from: number, n: number) =>
  Effect.forEach(range(from, n), (i) => memory.add(turn(i)), { discard: true })

/** A gated summarizer (`g`) and a {@link background} memory over it, in a scope the test closes. */
const gatedBackground = (options?: RollingMemory.Options) =>
  Effect.gen(function*() {
    const g = gated()
    const scope = yield* Scope.make()
    const memory = yield* background(g.service, scope, options)
    return { g, scope, memory }
  })

/**
 * Fills `memory` to its hard cap (t1..t4, 8 words), waits for the fold of
 * t1 and t2 to start, then forks the adds of t5 and t6, which the cap holds
 * back while that fold waits at its gate.
 */
const holdBack = (memory: RollingMemory.RollingMemory, g: Gated) =>
  Effect.gen(function*() {
    yield* addAll(memory, 1, 4) // 8 words: at the cap, not over
    const planned = yield* g.started(0)
    const fifth = yield* Effect.forkChild(memory.add(turn(5))) // would make 10 words: over the cap
    const sixth = yield* Effect.forkChild(memory.add(turn(6)))
    yield* yields(4) // the adds, then the fold they wait for, run
    return { planned, fifth, sixth }
  })

describe("fold: \"background\" on Effect 4", () => {
  it.effect("the hard cap holds when no fold runs: a turn that would pass it waits for a fold that makes room", () =>
    Effect.gen(function*() {
      const { g, memory, scope } = yield* gatedBackground()
      yield* addAll(memory, 1, 2) // 4 words: at the budget, not over it: no fold runs
      const big = Message.make("user", "a b c d e f", { id: "big" }) // 6 words: 10 would pass the cap of 8
      const add = yield* Effect.forkChild(memory.add(big))
      // a fold starts for it, down to 8 - 6 = 2 words (below the target of 4): t1; the turn waits
      assert.deepStrictEqual(yield* g.started(0), ["t1"])
      assert.deepStrictEqual(yield* ids(memory), ["t1", "t2"])
      assert.strictEqual(yield* memory.bufferTokens, 4)
      assert.isUndefined(add.pollUnsafe())
      yield* g.release(0)
      yield* Fiber.join(add)
      assert.strictEqual(yield* memory.summary, "<t1>")
      assert.deepStrictEqual(yield* ids(memory), ["t2", "big"])
      assert.strictEqual(yield* memory.bufferTokens, 8) // never past the cap
      // 8 is over the budget: the next fold (t2) runs as usual
      assert.deepStrictEqual(yield* g.started(1), ["t2"])
      yield* Scope.close(scope, Exit.void)
    }))

  it.effect("an add returns once appended; the fold runs behind it and commits", () =>
    Effect.gen(function*() {
      const { g, memory, scope } = yield* gatedBackground()
      assert.strictEqual(memory.fold, "background")
      yield* addAll(memory, 1, 3) // 6 words: over the budget, under the cap
      // every add completed while the fold waits at its gate
      assert.deepStrictEqual(yield* g.started(0), ["t1"])
      assert.deepStrictEqual(yield* ids(memory), ["t1", "t2", "t3"])
      assert.strictEqual(yield* memory.summary, "")
      yield* g.release(0)
      yield* yields(2)
      assert.strictEqual(yield* memory.summary, "<t1>")
      assert.deepStrictEqual(yield* ids(memory), ["t2", "t3"])
      assert.strictEqual(g.calls.length, 1)
      yield* Scope.close(scope, Exit.void)
    }))

  it.effect("back-pressure: an add that would pass the hard cap is held back until a fold makes room", () =>
    Effect.gen(function*() {
      const { g, memory, scope } = yield* gatedBackground()
      const { fifth, planned, sixth } = yield* holdBack(memory, g)
      assert.deepStrictEqual(planned, ["t1", "t2"], "planned when it started: 8 cut to 4")
      assert.isUndefined(fifth.pollUnsafe(), "the add waits")
      assert.deepStrictEqual(yield* ids(memory), ["t1", "t2", "t3", "t4"], "counted, not appended: the cap holds")
      assert.strictEqual(yield* memory.bufferTokens, 8)
      yield* g.release(0)
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(fifth)))
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(sixth)))
      assert.strictEqual(yield* memory.summary, "<t1><t2>")
      assert.deepStrictEqual(yield* ids(memory), ["t3", "t4", "t5", "t6"], "admitted in arrival order")
      // the loop goes on: 8 words, over the budget: a second fold
      assert.deepStrictEqual(yield* g.started(1), ["t3", "t4"])
      yield* g.release(1)
      yield* yields(2)
      assert.strictEqual(yield* memory.summary, "<t1><t2><t3><t4>")
      assert.deepStrictEqual(yield* ids(memory), ["t5", "t6"])
      yield* Scope.close(scope, Exit.void)
    }))

  it.effect("an add interrupted while held back appends nothing; the others are admitted", () =>
    Effect.gen(function*() {
      const { g, memory, scope } = yield* gatedBackground()
      const { fifth, sixth } = yield* holdBack(memory, g)
      yield* Fiber.interrupt(fifth)
      yield* g.release(0)
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(sixth)))
      assert.deepStrictEqual(yield* ids(memory), ["t3", "t4", "t6"])
      yield* Scope.close(scope, Exit.void)
    }))

  it.effect("a newest unit alone over the hard cap does not wait", () =>
    Effect.gen(function*() {
      const { g, memory, scope } = yield* gatedBackground()
      yield* memory.add(Message.user("a b c d e f g h i j", { id: "big" })) // 10 words, alone
      yield* yields(2)
      assert.strictEqual(g.calls.length, 0, "nothing older to fold")
      assert.deepStrictEqual(yield* ids(memory), ["big"])
      yield* Scope.close(scope, Exit.void)
    }))

  it.effect("folds run one at a time, each planned when it starts", () =>
    Effect.gen(function*() {
      const { g, memory, scope } = yield* gatedBackground({ hardMaxTokens: 100 })
      yield* addAll(memory, 1, 3)
      yield* g.started(0)
      yield* addAll(memory, 4, 5) // 16 words while the first fold is in flight
      assert.strictEqual(g.calls.length, 1, "no second call while one is in flight")
      yield* g.release(0)
      // the second fold's cutoff is computed now, on the buffer as it is (14 words down to 4)
      assert.deepStrictEqual(yield* g.started(1), ["t2", "t3", "t4", "t5", "t6"])
      yield* g.release(1)
      yield* yields(2)
      assertAccounting(yield* memory.state, range(1, 8).map((i) => `t${i}`))
      assert.deepStrictEqual(yield* ids(memory), ["t7", "t8"])
      yield* Scope.close(scope, Exit.void)
    }))

  it.effect("a failing fold is retried on the Schedule; a final failure is reported and reaches the waiting adds", () =>
    Effect.gen(function*() {
      let calls = 0
      const failing = Summarizer.fromEffect((summary: string, messages: ReadonlyArray<M>) =>
        Effect.suspend(() => {
          calls++
          return calls <= 3
            ? Effect.fail(new Error(`overloaded ${calls}`))
            : Effect.succeed(encodeFold(summary, messages))
        })
      )
      const scope = yield* Scope.make()
      const memory = yield* background(failing, scope, {
        foldRetry: Schedule.max([Schedule.spaced("1 second"), Schedule.recurs(1)])
      })
      yield* addAll(memory, 1, 4) // at the cap
      const waiting = yield* Effect.forkChild(memory.add(turn(5))) // over it: waits
      yield* yields(2) // the first call fails
      assert.strictEqual(calls, 1)
      yield* TestClock.adjust("1 second") // the retry runs and fails too
      const exit = yield* Fiber.await(waiting)
      assert.strictEqual(calls, 2, "one call and one retry")
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause) : Option.none()
      assert.isTrue(Option.isSome(error) && error.value instanceof SummarizerError)
      assert.strictEqual(((Option.getOrThrow(error) as SummarizerError).cause as Error).message, "overloaded 2")
      const last = yield* memory.lastFoldFailure
      assert.strictEqual(
        Option.isSome(last) && ((last.value as SummarizerError).cause as Error).message,
        "overloaded 2"
      )
      // nothing lost: the held-back turn is appended when the fold gives up
      assert.deepStrictEqual(yield* ids(memory), ["t1", "t2", "t3", "t4", "t5"])
      assert.strictEqual(yield* memory.summary, "")
      // the buffer is over the cap now: the next add is held back and starts a new fold,
      // whose retry succeeds, admits it and clears the report
      const sixth = yield* Effect.forkChild(memory.add(turn(6)))
      yield* yields(4) // the add, then the fold it starts, run
      assert.strictEqual(calls, 3)
      assert.isUndefined(sixth.pollUnsafe())
      yield* TestClock.adjust("1 second")
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(sixth)))
      yield* yields(4)
      // call 4 folded t1..t3 (10 words down to 4); t6 then made 6: call 5 folded t4
      assert.strictEqual(calls, 5)
      assert.strictEqual(yield* memory.summary, "<t1><t2><t3><t4>")
      assert.deepStrictEqual(yield* ids(memory), ["t5", "t6"])
      assert.isTrue(Option.isNone(yield* memory.lastFoldFailure))
      assertAccounting(yield* memory.state, range(1, 6).map((i) => `t${i}`))
      yield* Scope.close(scope, Exit.void)
    }))

  it.effect("clear during a background fold discards it; the memory stays cleared", () =>
    Effect.gen(function*() {
      const { g, memory, scope } = yield* gatedBackground()
      yield* addAll(memory, 1, 3)
      yield* g.started(0)
      yield* memory.clear
      yield* g.release(0)
      yield* yields(2)
      assert.strictEqual(yield* memory.summary, "")
      assert.deepStrictEqual(yield* ids(memory), [])
      yield* addAll(memory, 10, 1)
      assert.deepStrictEqual(yield* ids(memory), ["t10"])
      yield* Scope.close(scope, Exit.void)
    }))

  it.effect("clear lets the held-back adds in at once, in arrival order; the fold in flight is discarded", () =>
    Effect.gen(function*() {
      const { g, memory, scope } = yield* gatedBackground()
      const { fifth, sixth } = yield* holdBack(memory, g)
      assert.isUndefined(fifth.pollUnsafe(), "held back by the cap")
      yield* memory.clear
      // the fold is still at its gate: the adds complete without it
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(fifth)))
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(sixth)))
      assert.deepStrictEqual(yield* ids(memory), ["t5", "t6"])
      yield* g.release(0)
      yield* yields(2)
      assert.strictEqual(yield* memory.summary, "", "the fold started before the clear commits nothing")
      assert.deepStrictEqual(yield* ids(memory), ["t5", "t6"])
      assert.strictEqual(g.calls.length, 1)
      yield* Scope.close(scope, Exit.void)
    }))

  it.effect("closing the scope interrupts the fold in flight, commits nothing, and wakes a waiting add", () =>
    Effect.gen(function*() {
      const { g, memory, scope } = yield* gatedBackground()
      yield* addAll(memory, 1, 4)
      yield* g.started(0)
      const waiting = yield* Effect.forkChild(memory.add(turn(5)))
      yield* yields(1)
      yield* Scope.close(scope, Exit.void)
      assert.strictEqual(g.interrupted(), 1, "the summarizer call was interrupted")
      // the held-back add is admitted: its turn appended, the add completed
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(waiting)))
      assert.strictEqual(yield* memory.summary, "")
      assert.deepStrictEqual(yield* ids(memory), ["t1", "t2", "t3", "t4", "t5"])
      // after closing: adds append, no fold starts
      yield* memory.add(turn(6))
      assert.strictEqual(g.calls.length, 1)
      assert.strictEqual((yield* ids(memory)).length, 6)
    }))

  it.effect("compact is refused with background folds; blocking memories report no fold failure", () =>
    Effect.gen(function*() {
      const { memory, scope } = yield* gatedBackground()
      const refused = yield* Effect.flip(memory.compact())
      assert.instanceOf(refused, ConfigError)
      assert.strictEqual(refused.message, "invalid option fold: compact needs fold: \"blocking\"")
      const blocking = yield* RollingMemory.make({ maxTokens: 4 }).pipe(provideSummarizer(Summarizer.drop))
      assert.strictEqual(blocking.fold, "blocking")
      assert.isTrue(Option.isNone(yield* blocking.lastFoldFailure))
      yield* Scope.close(scope, Exit.void)
    }))

  it.effect("refused where it cannot work: make (no scope), no summarizer, a cap under the budget", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const fromFunction = Summarizer.fromFunction(() => "")
      const noScope = yield* Effect.flip(
        RollingMemory.make({ fold: "background" }).pipe(provideSummarizer(fromFunction))
      )
      assert.instanceOf(noScope, ConfigError)
      assert.deepStrictEqual([noScope.option, noScope.description], [
        "fold",
        "\"background\" needs a scope that owns the folds: use RollingMemory.makeScoped"
      ])
      const noSummarizer = (yield* Effect.flip(
        RollingMemory.makeScoped({ fold: "background" }).pipe(provideSummarizer(Summarizer.drop), Scope.provide(scope))
      )) as ConfigError
      assert.deepStrictEqual([noSummarizer.option, noSummarizer.description], [
        "fold",
        "\"background\" needs a real Summarizer: with Summarizer.drop, evicted turns are dropped at once"
      ])
      const low =
        (yield* Effect.flip(background(fromFunction, scope, { maxTokens: 10, hardMaxTokens: 5 }))) as ConfigError
      assert.deepStrictEqual([low.option, low.description], [
        "hardMaxTokens",
        "must be at least maxTokens (10), got 5"
      ])
      const misspelt = (yield* Effect.flip(
        // @ts-expect-error: not a fold mode
        RollingMemory.make({ fold: "bg" }).pipe(provideSummarizer(fromFunction))
      )) as ConfigError
      assert.deepStrictEqual([misspelt.option, misspelt.description], [
        "fold",
        "must be \"blocking\" or \"background\", got \"bg\""
      ])
      const blocking = (yield* Effect.flip(
        RollingMemory.make({ hardMaxTokens: 10 }).pipe(provideSummarizer(fromFunction))
      )) as ConfigError
      assert.strictEqual(blocking.option, "hardMaxTokens")
      const notSchedule = (yield* Effect.flip(
        RollingMemory.make({ fold: "blocking", foldRetry: 3 as never }).pipe(provideSummarizer(fromFunction))
      )) as ConfigError
      assert.deepStrictEqual([notSchedule.option, notSchedule.description], ["foldRetry", "must be a Schedule"])
      // options naming their strategy (Memory.make, a stored conversation) take no background folds
      const named = (yield* Effect.flip(
        Memory.make({ strategy: "rolling", fold: "background" } as never).pipe(provideSummarizer(fromFunction))
      )) as ConfigError
      assert.strictEqual(named.option, "fold")
      assert.match(named.description, /^unknown option for the rolling strategy \(known: strategy, maxTokens, /)
      yield* Scope.close(scope, Exit.void)
    }))

  for (const failEvery of [0, 5]) {
    const what = failEvery === 0 ? "no failures: the hard cap holds at every step" : "one call in 5 fails: nothing lost"
    it.effect(`1,000 concurrent adds, random latencies, ${what}`, () =>
      Effect.gen(function*() {
        let inFlight = 0
        let maxInFlight = 0
        let calls = 0
        let seed = 7 + failEvery
        const random = (bound: number) => {
          seed = (seed * 1103515245 + 12345) % 2147483648
          return seed % bound
        }
        const service = Summarizer.fromEffect((summary: string, messages: ReadonlyArray<M>) =>
          Effect.suspend(() => {
            calls++
            maxInFlight = Math.max(maxInFlight, ++inFlight)
            const fail = failEvery > 0 && random(failEvery) === 0
            return Effect.sleep(`${random(30)} millis`).pipe(
              Effect.andThen(fail ? Effect.fail("overloaded") : Effect.succeed(encodeFold(summary, messages))),
              Effect.ensuring(Effect.sync(() => inFlight--))
            )
          })
        )
        const scope = yield* Scope.make()
        const memory = yield* background(service, scope, { maxTokens: 30, hardMaxTokens: 60 })
        const fibers: Array<Fiber.Fiber<void, unknown>> = []
        let peak = 0
        const watch = Effect.map(memory.bufferTokens, (tokens) => {
          peak = Math.max(peak, tokens)
        })
        for (let step = 0; step < 100; step++) {
          for (const i of range(step * 10 + 1, 10)) fibers.push(yield* Effect.forkChild(memory.add(turn(i))))
          yield* Effect.yieldNow
          yield* watch
          yield* TestClock.adjust("5 millis")
          yield* watch
        }
        while (fibers.some((f) => f.pollUnsafe() === undefined)) {
          yield* TestClock.adjust("5 millis")
          yield* watch
        }
        const exits = yield* Fiber.awaitAll(fibers)
        const failed = exits.filter(Exit.isFailure)
        for (const exit of failed) {
          const error = Cause.findErrorOption(exit.cause)
          assert.isTrue(Option.isSome(error) && error.value instanceof SummarizerError)
        }
        assert.strictEqual(maxInFlight, 1, "one fold at a time")
        assert.isAbove(calls, 20)
        if (failEvery === 0) {
          assert.strictEqual(failed.length, 0)
          assert.isAtMost(peak, 60, "never over the hard cap")
          assert.isAbove(peak, 30, "over the budget while folds ran")
        } else {
          assert.isAbove(failed.length, 0)
        }
        // every turn once, in arrival order (held-back adds are admitted oldest first)
        assertAccounting(yield* memory.state, range(1, 1_000).map((i) => `t${i}`))
        yield* Scope.close(scope, Exit.void)
      }), 60_000)
  }
})
