/**
 * What the SQL layers add to the conformance suite: the migration of a table
 * of the first layout (`state NOT NULL`, no tombstones), race-free table
 * creation, and lost races inside the database (PostgreSQL serialization
 * failures, SQLite busy) reported as conflicts.
 */
import { SqlError } from "@effect/sql/SqlError"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Option } from "effect"
import { createRequire } from "node:module"
import * as MemoryState from "../../src/schema/MemoryState.js"
import * as Message from "../../src/schema/Message.js"
import * as ConversationStore from "../../src/store/ConversationStore.js"
import { reportUnreachable, servers, tempDirectory } from "./layers.js"
import { pgRun, pgSchema, whileCreationLockHeld } from "./servers.js"

/** The driver under `@effect/sql-sqlite-node`, for what the layers do not do: an old layout, a held lock. */
interface Database {
  readonly exec: (sql: string) => void
  readonly prepare: (sql: string) => { readonly all: () => Array<unknown> }
  readonly close: () => void
}
const Sqlite = createRequire(import.meta.url)("better-sqlite3") as new(
  filename: string,
  options?: { readonly timeout?: number; readonly readonly?: boolean }
) => Database

const Store = ConversationStore.ConversationStore
const stateA = MemoryState.make("", [Message.user("a")])
const stateB = MemoryState.make("", [Message.user("b")])
const OLD_LAYOUT = `CREATE TABLE rollmem_conversations (
  id TEXT PRIMARY KEY NOT NULL, revision INTEGER NOT NULL, state TEXT NOT NULL)`
const OLD_ROW = `INSERT INTO rollmem_conversations (id, revision, state)
  VALUES ('old', 2, '{"version":2,"summary":"s","buffer":[{"role":"user","content":"kept"}]}')`

/** A table of the 0.2 layout: tombstones, no `request_ids`. */
const LAYOUT_0_2 = `CREATE TABLE rollmem_conversations (
  id TEXT PRIMARY KEY NOT NULL, revision INTEGER NOT NULL, state TEXT)`

/**
 * The migrated table keeps the row (read with no request ids), takes request
 * ids, and delete-then-create continues its revisions.
 */
const afterMigration = Effect.gen(function*() {
  const store = yield* Store
  const stored = Option.getOrThrow(yield* store.load("old"))
  assert.strictEqual(stored.revision, 2)
  assert.isUndefined(stored.requestIds)
  assert.deepStrictEqual(MemoryState.toJSON(stored.state), {
    version: 2,
    summary: "s",
    buffer: [{ role: "user", content: "kept" }]
  })
  yield* store.delete("old")
  assert.isTrue(Option.isNone(yield* store.load("old")))
  assert.strictEqual(yield* store.save("old", stateA, 0, { requestIds: ["r1"] }), 4)
  assert.deepStrictEqual(Option.getOrThrow(yield* store.load("old")).requestIds, ["r1"])
  assert.instanceOf(yield* Effect.flip(store.save("old", stateB, 2)), ConversationStore.ConversationConflictError)
})

describe("SQLite", () => {
  it.scoped("a table of the first layout is migrated when two stores open it at once; its rows are kept", () =>
    Effect.gen(function*() {
      const filename = `${yield* tempDirectory}/old.db`
      const db = new Sqlite(filename)
      db.exec(OLD_LAYOUT)
      db.exec(OLD_ROW)
      db.close()
      const layer = ConversationStore.layerSqlite({ filename })
      yield* Effect.all([Layer.build(layer), Layer.build(Layer.fresh(layer))], { concurrency: 2 })
      yield* Effect.provide(afterMigration, Layer.fresh(layer))
      const check = new Sqlite(filename, { readonly: true })
      const columns = check.prepare("PRAGMA table_info(rollmem_conversations)").all() as Array<
        { name: string; notnull: number }
      >
      const tables = check.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all()
      check.close()
      assert.deepStrictEqual(columns.map((c) => [c.name, c.notnull]), [
        ["id", 1],
        ["revision", 1],
        ["state", 0],
        ["request_ids", 0]
      ])
      assert.deepStrictEqual(tables, [{ name: "rollmem_conversations" }])
    }))

  it.scoped("a table of the 0.2 layout gets the request_ids column when two stores open it at once", () =>
    Effect.gen(function*() {
      const filename = `${yield* tempDirectory}/v2.db`
      const db = new Sqlite(filename)
      db.exec(LAYOUT_0_2)
      db.exec(OLD_ROW)
      db.close()
      const layer = ConversationStore.layerSqlite({ filename })
      yield* Effect.all([Layer.build(layer), Layer.build(Layer.fresh(layer))], { concurrency: 2 })
      yield* Effect.provide(afterMigration, Layer.fresh(layer))
    }))

  it.scoped("a write lock held elsewhere past the busy timeout is a lost race (SQLITE_BUSY), not a failure", () =>
    Effect.gen(function*() {
      const filename = `${yield* tempDirectory}/busy.db`
      const holder = new Sqlite(filename)
      holder.exec("CREATE TABLE t (x INTEGER)")
      holder.exec("BEGIN IMMEDIATE")
      const waiter = new Sqlite(filename, { timeout: 0 })
      let busy: unknown
      try {
        waiter.exec("INSERT INTO t VALUES (1)")
      } catch (error) {
        busy = error
      } finally {
        holder.exec("ROLLBACK")
        holder.close()
        waiter.close()
      }
      assert.strictEqual((busy as { code: string }).code, "SQLITE_BUSY")
      assert.isTrue(ConversationStore.isTransientSqlError(new SqlError({ cause: busy })))
      assert.isFalse(ConversationStore.isTransientSqlError(new SqlError({ cause: new Error("disk I/O error") })))
    }))

  it.effect("a file in a directory that does not exist fails the layer with an SqlError naming it", () =>
    Effect.gen(function*() {
      const squashed = yield* Effect.flip(
        Effect.provide(Store, ConversationStore.layerSqlite({ filename: "/no/such/directory/c.db" }))
      )
      assert.instanceOf(squashed, SqlError)
      assert.strictEqual(
        squashed.message,
        "cannot open /no/such/directory/c.db: Cannot open database because the directory does not exist"
      )
    }))
})

describe.skipIf(servers.pg.unreachable !== undefined)("PostgreSQL", () => {
  it.scoped("a table of the first layout is migrated (state becomes nullable); its rows are kept", () =>
    Effect.gen(function*() {
      const { schema, url } = yield* pgSchema()
      yield* pgRun(url, OLD_LAYOUT)
      yield* pgRun(url, OLD_ROW)
      yield* Effect.provide(afterMigration, ConversationStore.layerPg({ url }))
      const rows = yield* pgRun(
        url,
        `SELECT column_name, is_nullable FROM information_schema.columns
         WHERE table_schema = '${schema}' AND table_name = 'rollmem_conversations' ORDER BY ordinal_position`
      )
      assert.deepStrictEqual(rows, [
        { column_name: "id", is_nullable: "NO" },
        { column_name: "revision", is_nullable: "NO" },
        { column_name: "state", is_nullable: "YES" },
        { column_name: "request_ids", is_nullable: "YES" }
      ])
    }))

  it.scoped("a table of the 0.2 layout gets the request_ids column; its rows are kept", () =>
    Effect.gen(function*() {
      const { url } = yield* pgSchema()
      yield* pgRun(url, LAYOUT_0_2)
      yield* pgRun(url, OLD_ROW)
      yield* Effect.all([
        Effect.provide(Store, ConversationStore.layerPg({ url })),
        Effect.provide(Store, ConversationStore.layerPg({ url }))
      ], { concurrency: 2 })
      yield* Effect.provide(afterMigration, ConversationStore.layerPg({ url }))
    }))

  it.scoped("16 stores built at once on an empty schema: every one builds, one table", () =>
    Effect.gen(function*() {
      const { schema, url } = yield* pgSchema()
      const layer = ConversationStore.layerPg({ url, maxConnections: 1 })
      const stores = yield* Effect.all(
        Array.from({ length: 16 }, () => Layer.build(Layer.fresh(layer))),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(stores.length, 16)
      const tables = yield* pgRun(
        url,
        `SELECT table_name FROM information_schema.tables WHERE table_schema = '${schema}'`
      )
      assert.deepStrictEqual(tables, [{ table_name: "rollmem_conversations" }])
    }))

  // Live clock: the test polls the server for the waiting lock.
  it.scopedLive(
    "under SERIALIZABLE, a store waiting on the creation lock while another replica creates the table builds",
    () =>
      Effect.gen(function*() {
        // The replica that waits took its transaction's snapshot before the table existed; a check of the
        // columns read in that snapshot would find none and add `request_ids` a second time (SQLSTATE 42701).
        const { url } = yield* pgSchema({ default_transaction_isolation: "serializable" })
        const built = yield* whileCreationLockHeld(
          url,
          "rollmem_conversations",
          [`CREATE TABLE rollmem_conversations (
            id TEXT PRIMARY KEY NOT NULL, revision INTEGER NOT NULL, state TEXT, request_ids TEXT)`],
          Layer.build(ConversationStore.layerPg({ url, maxConnections: 1 }))
        )
        const store = Context.get(built, Store)
        assert.strictEqual(yield* store.save("after", stateA, 0), 1)
      })
  )

  it.scoped("under SERIALIZABLE, 32 saves racing from one revision: one wins, 31 conflicts (SQLSTATE 40001)", () =>
    Effect.gen(function*() {
      const { url } = yield* pgSchema({ default_transaction_isolation: "serializable" })
      const setup = Context.get(yield* Layer.build(ConversationStore.layerPg({ url, maxConnections: 16 })), Store)
      yield* setup.save("hot", stateA, 0)
      const results = yield* Effect.all(
        Array.from(
          { length: 32 },
          (_, i) => Effect.either(setup.save("hot", MemoryState.make("", [Message.user(`w${i}`)]), 1))
        ),
        { concurrency: "unbounded" }
      )
      const won = results.filter((r) => r._tag === "Right")
      const lost = results.filter((r) => r._tag === "Left").map((r) => r.left._tag)
      assert.strictEqual(won.length, 1)
      assert.deepStrictEqual(lost, Array.from({ length: 31 }, () => "ConversationConflictError"))
      const [level] = yield* pgRun(url, "SHOW default_transaction_isolation")
      assert.deepStrictEqual(level, { default_transaction_isolation: "serializable" })
      const [global] = yield* pgRun(`${url.split("?")[0]}`, "SHOW default_transaction_isolation")
      assert.deepStrictEqual(global, { default_transaction_isolation: "read committed" }, "set per session only")
    }))
})

if (servers.pg.unreachable !== undefined) describe("servers", () => reportUnreachable())
