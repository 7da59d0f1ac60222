/**
 * The Redis store of the Effect 4 line beyond the conformance suite
 * (docs/contract.md sections 12.1 and 17.2): the hash it writes, field for
 * field as the Effect 3 line's `layerRedis` writes it, the archive's fields
 * written by the save's script (none by a conflicting save) and removed by
 * the delete's, and a server that does not answer.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Redis } from "ioredis"
import * as MemoryState from "../../src/schema/MemoryState.js"
import * as Message from "../../src/schema/Message.js"
import * as ConversationStore from "../../src/store/ConversationStore.js"
import { servers } from "./layers.js"
import { redisPrefix, redisUrl } from "./servers.js"

const Store = ConversationStore.ConversationStore
const state = MemoryState.make("s", [Message.user("a")])
const STATE = `{"version":2,"summary":"s","buffer":[{"role":"user","content":"a"}]}`

const hash = (key: string) =>
  Effect.acquireUseRelease(
    Effect.sync(() => new Redis(redisUrl)),
    (client) => Effect.promise(() => client.hgetall(key)),
    (client) => Effect.sync(() => client.disconnect())
  )

describe.skipIf(servers.redis.unreachable !== undefined)("layerRedis (Effect 4)", () => {
  it.effect("the hash of a save, a conflicting save and a delete: the Effect 3 line's fields", () =>
    Effect.gen(function*() {
      const prefix = yield* redisPrefix
      const result = yield* Effect.provide(
        Effect.gen(function*() {
          const store = yield* Store
          yield* store.save("c", state, 0, {
            requestIds: ["r1"],
            archive: [[{ position: 0, message: Message.user("order 4411") }], [{
              position: 1,
              message: Message.assistant("refund for 4411")
            }]]
          })
          const saved = yield* hash(`${prefix}c`)
          const conflict = yield* Effect.flip(
            store.save("c", state, 0, { archive: [[{ position: 2, message: Message.user("lost") }]] })
          )
          const afterConflict = yield* hash(`${prefix}c`)
          const found = (yield* store.archive!.search("c", "refund 4411")).map((m) => m.position)
          yield* store.delete("c")
          return { saved, conflict: conflict._tag, afterConflict, found, deleted: yield* hash(`${prefix}c`) }
        }),
        Layer.orDie(ConversationStore.layerRedis({ url: redisUrl, prefix }))
      )
      const saved = {
        revision: "1",
        state: STATE,
        requestIds: `["r1"]`,
        "archive:0": `{"position":0,"fold":1,"message":{"role":"user","content":"order 4411"}}`,
        "archive:1": `{"position":1,"fold":2,"message":{"role":"assistant","content":"refund for 4411"}}`,
        archiveFolds: "2"
      }
      assert.deepStrictEqual(result, {
        saved,
        conflict: "ConversationConflictError",
        afterConflict: saved,
        found: [1, 0],
        deleted: { revision: "2" }
      })
    }).pipe(Effect.scoped))

  it.effect("a server that does not answer fails the layer with ConversationStoreError (open)", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Layer.build(ConversationStore.layerRedis({ url: "redis://127.0.0.1:1" })))
      assert.strictEqual(error._tag, "ConversationStoreError")
      assert.strictEqual(error.operation, "open")
    }).pipe(Effect.scoped))
})
