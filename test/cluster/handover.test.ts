/**
 * A writer's request that the cluster ends with an interruption its caller
 * did not ask for (an owner stopping mid-request) is sent again; a caller
 * that is itself interrupted is not.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Ref, TestClock } from "effect"
import { resendOnHandover } from "../../src/cluster/internal/handover.js"

/** An effect that ends interrupted without its caller being interrupted (as a remote owner's reply). */
const interruptedElsewhere = Effect.flatMap(
  Effect.fork(Effect.never),
  (fiber) => Effect.zipRight(Fiber.interrupt(fiber), Fiber.join(fiber))
)

describe("resendOnHandover", () => {
  it.effect("a request interrupted elsewhere is sent again until it is answered", () =>
    Effect.gen(function*() {
      const sent = yield* Ref.make(0)
      const request = Effect.flatMap(
        Ref.updateAndGet(sent, (n) => n + 1),
        (n) => n < 3 ? interruptedElsewhere : Effect.succeed(`reply ${n}`)
      )
      const fiber = yield* Effect.fork(resendOnHandover(request))
      yield* TestClock.adjust("100 millis")
      yield* TestClock.adjust("200 millis")
      assert.strictEqual(yield* Fiber.join(fiber), "reply 3")
      assert.strictEqual(yield* Ref.get(sent), 3)
    }))

  it.effect("failures and defects are not sent again", () =>
    Effect.gen(function*() {
      const sent = yield* Ref.make(0)
      const failed = yield* Effect.exit(
        resendOnHandover(Effect.zipRight(Ref.update(sent, (n) => n + 1), Effect.fail("refused" as const)))
      )
      assert.deepStrictEqual(failed, Exit.fail("refused" as const))
      assert.strictEqual(yield* Ref.get(sent), 1)
    }))

  it.effect("a caller interrupted while it waits is not sent again", () =>
    Effect.gen(function*() {
      const sent = yield* Ref.make(0)
      const entered = yield* Deferred.make<void>()
      const fiber = yield* Effect.fork(
        resendOnHandover(Effect.zipRight(
          Effect.zipRight(Ref.update(sent, (n) => n + 1), Deferred.succeed(entered, undefined)),
          Effect.never
        ))
      )
      yield* Deferred.await(entered)
      yield* Fiber.interrupt(fiber)
      yield* TestClock.adjust("1 minute")
      assert.strictEqual(yield* Ref.get(sent), 1)
    }))

  it.effect("after two minutes of interruptions the caller is interrupted", () =>
    Effect.gen(function*() {
      const sent = yield* Ref.make(0)
      const fiber = yield* Effect.fork(
        resendOnHandover(Effect.zipRight(Ref.update(sent, (n) => n + 1), interruptedElsewhere))
      )
      yield* TestClock.adjust("3 minutes")
      const exit = yield* Fiber.await(fiber)
      assert.isTrue(Exit.isInterrupted(exit))
      // Sent at 0, 0.1, 0.3, 0.7, 1.5 and 3.1 s (6), then every 2 s while under 2 minutes have
      // passed: at 5.1, 7.1, ..., 119.1 s (59 more).
      assert.strictEqual(yield* Ref.get(sent), 65)
    }))
})
