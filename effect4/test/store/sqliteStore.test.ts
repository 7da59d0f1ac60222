/**
 * The SQLite store of the Effect 4 line (over `node:sqlite`) beyond the
 * conformance suite: a table of the first layout migrated as the Effect 3
 * line migrates it, archive rows with the save that wrote them and searched
 * through FTS5, a file that cannot be opened, and a save while another
 * connection holds the write lock (a conflict once the busy timeout ends).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { DatabaseSync } from "node:sqlite"
import * as MemoryState from "../../src/schema/MemoryState.js"
import * as Message from "../../src/schema/Message.js"
import * as ConversationStore from "../../src/store/ConversationStore.js"
import { tempDirectory } from "./layers.js"

const Store = ConversationStore.ConversationStore
const state = MemoryState.make("", [Message.user("a")])

describe("layerSqlite (Effect 4, node:sqlite)", () => {
  it.effect("a table of the first layout (state NOT NULL, no request_ids) is migrated; its rows read and delete", () =>
    Effect.gen(function*() {
      const dir = yield* tempDirectory
      const db = new DatabaseSync(`${dir}/c.db`)
      db.exec(`CREATE TABLE rollmem_conversations (id TEXT PRIMARY KEY NOT NULL, revision INTEGER NOT NULL,
        state TEXT NOT NULL)`)
      db.exec(`INSERT INTO rollmem_conversations VALUES ('old', 4, '{"version":2,"summary":"s","buffer":[]}')`)
      db.close()
      const stored = yield* Effect.provide(
        Effect.gen(function*() {
          const store = yield* Store
          const before = yield* store.load("old")
          yield* store.delete("old")
          const revision = yield* store.save("old", state, 0, { requestIds: ["q"] })
          return { before, revision, after: yield* store.load("old") }
        }),
        Layer.orDie(ConversationStore.layerSqlite({ filename: `${dir}/c.db` }))
      )
      assert.strictEqual(Option.getOrThrow(stored.before).revision, 4)
      assert.strictEqual(stored.revision, 6)
      assert.deepStrictEqual(Option.getOrThrow(stored.after).requestIds, ["q"])
    }).pipe(Effect.scoped))

  it.effect("archive rows go with the save that wrote, none with one that conflicted; FTS5 finds them", () =>
    Effect.gen(function*() {
      const dir = yield* tempDirectory
      const result = yield* Effect.provide(
        Effect.gen(function*() {
          const store = yield* Store
          const archive = store.archive!
          yield* store.save("c", state, 0, {
            archive: [[{ position: 0, message: Message.user("order 4411 is late") }], [{
              position: 1,
              message: Message.assistant("refund for order 4411")
            }]]
          })
          const conflict = yield* Effect.flip(
            store.save("c", state, 0, { archive: [[{ position: 2, message: Message.user("lost") }]] })
          )
          const messages = (yield* archive.messages("c")).map((a) => [a.position, a.fold, a.message.content])
          const found = (yield* archive.search("c", "refund 4411")).map((m) => m.position)
          yield* store.delete("c")
          return { conflict: conflict._tag, messages, found, after: yield* archive.messages("c") }
        }),
        Layer.orDie(ConversationStore.layerSqlite({ filename: `${dir}/c.db` }))
      )
      assert.deepStrictEqual(result, {
        conflict: "ConversationConflictError",
        messages: [[0, 1, "order 4411 is late"], [1, 2, "refund for order 4411"]],
        found: [1, 0],
        after: []
      })
    }).pipe(Effect.scoped))

  it.effect("a file that cannot be opened fails the layer with an SqlError naming it", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Layer.build(ConversationStore.layerSqlite({ filename: "/nonexistent-rollmem-dir/c.db" }))
      )
      assert.strictEqual(error._tag, "SqlError")
      assert.include(error.message, "/nonexistent-rollmem-dir/c.db")
    }).pipe(Effect.scoped))

  it.live("a save while another connection holds the write lock is a conflict after the busy timeout", () =>
    Effect.gen(function*() {
      const dir = yield* tempDirectory
      const error = yield* Effect.provide(
        Effect.gen(function*() {
          const store = yield* Store
          yield* store.save("c", state, 0)
          const other = new DatabaseSync(`${dir}/c.db`)
          other.exec("BEGIN IMMEDIATE")
          const failed = yield* Effect.flip(store.save("c", state, 1))
          other.exec("ROLLBACK")
          other.close()
          return failed
        }),
        Layer.orDie(ConversationStore.layerSqlite({ filename: `${dir}/c.db` }))
      )
      assert.strictEqual(error._tag, "ConversationConflictError")
    }).pipe(Effect.scoped))
})
