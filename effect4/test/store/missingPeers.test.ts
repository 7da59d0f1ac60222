/**
 * An Effect 4 store whose optional peer is not installed (its import fails):
 * building the layer dies with an error saying what to install, pinned to the
 * Effect 4 drivers (the package rule and message are `core/peers.ts`'s, the
 * versions this line's).
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer } from "effect"
import { vi } from "vitest"
import * as ConversationStore from "../../src/store/ConversationStore.js"

vi.mock("@effect/sql-pg/PgClient", () => {
  throw new Error("Cannot find package '@effect/sql-pg'")
})
vi.mock("ioredis", () => {
  throw new Error("Cannot find package 'ioredis'")
})

const defectOf = <E>(layer: Layer.Layer<ConversationStore.ConversationStore, E>) =>
  Effect.map(Effect.exit(Effect.scoped(Layer.build(layer))), (exit) => {
    assert.isTrue(Exit.isFailure(exit))
    const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
    return defect instanceof Error ? defect.message : String(defect)
  })

describe("an Effect 4 store without its driver", () => {
  it.effect("PostgreSQL: npm i @effect/sql-pg@4.0.5", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* defectOf(ConversationStore.layerPg({ url: "postgres://postgres@127.0.0.1:5432/test" })),
        "rollmem/store: @effect/sql-pg is not installed (npm i @effect/sql-pg@4.0.5)"
      )
    }))

  it.effect("Redis: npm i ioredis@5.9.2", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* defectOf(ConversationStore.layerRedis({ url: "redis://127.0.0.1:6379" })),
        "rollmem/store: ioredis is not installed (npm i ioredis@5.9.2)"
      )
    }))
})
