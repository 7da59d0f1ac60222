/**
 * The PostgreSQL store of the Effect 4 line beyond the conformance suite
 * (docs/contract.md sections 12.1 and 17.2), as the Effect 3 suite's
 * `test/store/sqlStores.test.ts`: the table created race-free by many
 * layers built at once, a table of an earlier layout migrated, archive rows
 * written in the save's transaction (none when the save conflicts), removed
 * with the conversation, searched by the database.
 */
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import * as MemoryState from "../../src/schema/MemoryState.js"
import * as Message from "../../src/schema/Message.js"
import * as ConversationStore from "../../src/store/ConversationStore.js"
import { servers } from "./layers.js"
import { pgRun, pgSchema } from "./servers.js"

const Store = ConversationStore.ConversationStore
const state = MemoryState.make("", [Message.user("a")])

describe.skipIf(servers.pg.unreachable !== undefined)("layerPg (Effect 4)", () => {
  it.effect("12 layers built at once on a fresh schema all start, over one table with the four columns", () =>
    Effect.gen(function*() {
      const { schema, url } = yield* pgSchema()
      const revisions = yield* Effect.all(
        Array.from({ length: 12 }, (_, i) =>
          Effect.provide(
            Effect.gen(function*() {
              const store = yield* Store
              return yield* store.save(`c${i}`, state, 0)
            }),
            Layer.orDie(ConversationStore.layerPg({ url, maxConnections: 2 }))
          )),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(revisions, Array.from({ length: 12 }, () => 1))
      const columns = yield* pgRun(
        url,
        `SELECT column_name, is_nullable, data_type FROM information_schema.columns
         WHERE table_schema = '${schema}' AND table_name = 'rollmem_conversations' ORDER BY ordinal_position`
      )
      assert.deepStrictEqual(columns, [
        { column_name: "id", is_nullable: "NO", data_type: "text" },
        { column_name: "revision", is_nullable: "NO", data_type: "integer" },
        { column_name: "state", is_nullable: "YES", data_type: "text" },
        { column_name: "request_ids", is_nullable: "YES", data_type: "text" }
      ])
    }).pipe(Effect.scoped))

  it.effect("a table of the first layout (state NOT NULL, no request_ids) is migrated; its rows read and delete", () =>
    Effect.gen(function*() {
      const { url } = yield* pgSchema()
      yield* pgRun(
        url,
        `CREATE TABLE rollmem_conversations (id TEXT PRIMARY KEY NOT NULL, revision INTEGER NOT NULL,
        state TEXT NOT NULL)`
      )
      yield* pgRun(
        url,
        `INSERT INTO rollmem_conversations VALUES ('old', 4, '{"version":2,"summary":"s","buffer":[]}')`
      )
      const stored = yield* Effect.provide(
        Effect.gen(function*() {
          const store = yield* Store
          const before = yield* store.load("old")
          yield* store.delete("old")
          const revision = yield* store.save("old", state, 0, { requestIds: ["q"] })
          return { before, revision, after: yield* store.load("old") }
        }),
        Layer.orDie(ConversationStore.layerPg({ url }))
      )
      assert.strictEqual(Option.getOrThrow(stored.before).revision, 4)
      assert.strictEqual(stored.revision, 6)
      assert.deepStrictEqual(Option.getOrThrow(stored.after).requestIds, ["q"])
    }).pipe(Effect.scoped))

  it.effect("archive rows go with the save that wrote, none with one that conflicted; delete removes them", () =>
    Effect.gen(function*() {
      const { url } = yield* pgSchema()
      const result = yield* Effect.provide(
        Effect.gen(function*() {
          const store = yield* Store
          const archive = store.archive!
          yield* store.save("c", state, 0, {
            archive: [[{ position: 0, message: Message.user("order 4411 is late") }], [], [{
              position: 1,
              message: Message.assistant("refund for order 4411")
            }]]
          })
          const conflict = yield* Effect.flip(
            store.save("c", state, 0, { archive: [[{ position: 2, message: Message.user("lost") }]] })
          )
          yield* store.save("c", state, 1, { archive: [[{ position: 2, message: Message.user("kept") }]] })
          const messages = (yield* archive.messages("c")).map((a) => [a.position, a.fold, a.message.content])
          const found = (yield* archive.search("c", "refund 4411")).map((m) => m.position)
          const other = yield* archive.messages("other")
          yield* store.delete("c")
          return { conflict: conflict._tag, messages, found, other, after: yield* archive.messages("c") }
        }),
        Layer.orDie(ConversationStore.layerPg({ url }))
      )
      assert.deepStrictEqual(result, {
        conflict: "ConversationConflictError",
        messages: [[0, 1, "order 4411 is late"], [1, 2, "refund for order 4411"], [2, 3, "kept"]],
        found: [1, 0],
        other: [],
        after: []
      })
    }).pipe(Effect.scoped))

  it.effect("a server that does not answer fails the layer with the SqlError, not a defect", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Layer.build(ConversationStore.layerPg({ url: "postgres://nobody@127.0.0.1:1/none" }))
      )
      assert.strictEqual(error._tag, "SqlError")
    }).pipe(Effect.scoped))

  it.effect("layerSql on a client of a schema.table: the table is created in that schema", () =>
    Effect.gen(function*() {
      const { schema, url } = yield* pgSchema()
      const revision = yield* Effect.provide(
        Effect.gen(function*() {
          const store = yield* Store
          return yield* store.save("c", state, 0)
        }),
        ConversationStore.layerSql({ table: `${schema}.chat` }).pipe(
          Layer.provide(PgClient.layer({ url: Redacted.make(url) })),
          Layer.orDie
        )
      )
      assert.strictEqual(revision, 1)
      assert.deepStrictEqual(
        yield* pgRun(url, `SELECT id, revision FROM ${schema}.chat`),
        [{ id: "c", revision: 1 }]
      )
    }).pipe(Effect.scoped))
})
