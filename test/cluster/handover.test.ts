/**
 * A writer's request that the cluster ends with an interruption its caller
 * did not ask for (an owner stopping mid-request) is sent again; a caller
 * that is itself interrupted is not. A request refused because another
 * client generated the same message id is sent again at once.
 */
import { PersistenceError } from "@effect/cluster/ClusterError"
import { SqlError } from "@effect/sql/SqlError"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Ref, TestClock } from "effect"
import { isMessageIdCollision, resendOnHandover, resendOnIdCollision } from "../../src/cluster/internal/handover.js"

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

/** What `@effect/cluster` fails a send with when PostgreSQL refuses its message id as a duplicate. */
const duplicateId = (constraint: string) =>
  new PersistenceError({
    cause: new SqlError({
      message: "Failed to execute statement",
      cause: Object.assign(new Error(`duplicate key value violates unique constraint "${constraint}"`), {
        code: "23505",
        constraint
      })
    })
  })

describe("resendOnIdCollision", () => {
  it("recognizes a duplicate message id and nothing else", () => {
    assert.isTrue(isMessageIdCollision(duplicateId("cluster_messages_pkey")))
    assert.isTrue(isMessageIdCollision(duplicateId("app_cluster_messages_pkey")))
    assert.isFalse(isMessageIdCollision(duplicateId("cluster_replies_pkey")))
    assert.isFalse(isMessageIdCollision(new PersistenceError({ cause: new Error("connection refused") })))
    assert.isFalse(isMessageIdCollision({ _tag: "ConversationStoreError", cause: { code: "23505" } }))
    assert.isFalse(isMessageIdCollision("PersistenceError"))
  })

  it.effect("a request refused for a duplicate message id is sent again until it is stored", () =>
    Effect.gen(function*() {
      const sent = yield* Ref.make(0)
      const request = Effect.flatMap(
        Ref.updateAndGet(sent, (n) => n + 1),
        (n) => n < 3 ? Effect.fail(duplicateId("cluster_messages_pkey")) : Effect.succeed(`reply ${n}`)
      )
      assert.strictEqual(yield* resendOnIdCollision(request), "reply 3")
      assert.strictEqual(yield* Ref.get(sent), 3)
    }))

  it.effect("at most 5 times more; other failures are not sent again", () =>
    Effect.gen(function*() {
      const sent = yield* Ref.make(0)
      const collision = duplicateId("cluster_messages_pkey")
      const always = yield* Effect.exit(
        resendOnIdCollision(Effect.zipRight(Ref.update(sent, (n) => n + 1), Effect.fail(collision)))
      )
      assert.deepStrictEqual(always, Exit.fail(collision))
      assert.strictEqual(yield* Ref.get(sent), 6)
      const other = new PersistenceError({ cause: new Error("connection refused") })
      const once = yield* Effect.exit(
        resendOnIdCollision(Effect.zipRight(Ref.update(sent, (n) => n + 1), Effect.fail(other)))
      )
      assert.deepStrictEqual(once, Exit.fail(other))
      assert.strictEqual(yield* Ref.get(sent), 7)
    }))
})
