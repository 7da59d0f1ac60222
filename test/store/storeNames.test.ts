/**
 * The names a store keeps its conversations under, given with a location
 * (docs/contract.md section 12.2), on the Effect 3 line: the shared cases
 * (test/support/storeNameCases.ts) on SQLite, PostgreSQL and Redis, each
 * test under names of its own, and the database's own listing of what was
 * created.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Layer, Option } from "effect"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { ConfigError } from "../../src/Errors.js"
import { Conversations, type ConversationsOptions } from "../../src/promise/index.js"
import * as MemoryState from "../../src/schema/MemoryState.js"
import * as ConversationStore from "../../src/store/ConversationStore.js"
import { keptApart, layerRefusals, runRefusals, type StoreNamesLine, unique } from "../support/storeNameCases.js"
import { reportUnreachable, servers } from "./layers.js"
import { pgRun, pgSchema, pgUrl, removeKeys, skipNote } from "./servers.js"

const Sqlite = createRequire(import.meta.url)("better-sqlite3") as new(filename: string) => {
  prepare(sql: string): { all(): Array<{ readonly name: string }> }
  close(): void
}

const line: StoreNamesLine = {
  name: "effect3",
  conversations: (options) => new Conversations(options as ConversationsOptions),
  configError: (f) => {
    try {
      f()
    } catch (error) {
      assert.instanceOf(error, ConfigError)
      return { option: (error as ConfigError).option, description: (error as ConfigError).description }
    }
    return assert.fail("no ConfigError thrown")
  },
  storeLayer: ConversationStore.layerMemory,
  layerLoad: (store, names, id) =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function*() {
          const location = yield* ConversationStore.parseLocation(store, "store")
          const layer = ConversationStore.layerLocation(location, names as ConversationStore.StoreNames)
          const built = yield* Effect.either(Layer.build(layer))
          if (Either.isLeft(built)) {
            const error = built.left
            if (error instanceof ConfigError) {
              return { _tag: "ConfigError" as const, option: error.option, description: error.description }
            }
            return yield* Effect.die(error)
          }
          const loaded = yield* (yield* Effect.provide(ConversationStore.ConversationStore, built.right)).load(id)
          return {
            _tag: "Loaded" as const,
            stored: Option.match(loaded, {
              onNone: () => undefined,
              onSome: (s) => ({ revision: s.revision, state: MemoryState.toJSON(s.state) })
            })
          }
        })
      ).pipe(Effect.orDie)
    )
}

runRefusals(line, { assert, describe, it })

describe("store names (effect3)", () => {
  it("layerLocation refuses the same names with the same ConfigError, before opening anything", async () => {
    for (const c of await layerRefusals(line)) assert.deepStrictEqual(c.got, c.expected, c.name)
    assert.isFalse(fs.existsSync("never-opened.db"))
  })

  it("SQLite: a table and an archive table of one's own keep a memory apart from the default one", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rollmem-names-"))
    try {
      const u = unique()
      const store = `sqlite:${path.join(dir, "app.db")}`
      await keptApart(line, store, { table: `chat_${u}`, archiveTable: `chat_archive_${u}` }, assert)
      const db = new Sqlite(path.join(dir, "app.db"))
      const tables = db.prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '%fts%' ORDER BY name"
      )
        .all().map((r) => r.name)
      db.close()
      assert.deepStrictEqual(tables, [`chat_${u}`, `chat_archive_${u}`, "rollmem_conversations"])
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it.skipIf(servers.pg.unreachable !== undefined)(
    `PostgreSQL: a table and an archive table of one's own ${
      servers.pg.unreachable === undefined ? "" : skipNote(servers.pg)
    }`,
    () =>
      Effect.runPromise(Effect.scoped(Effect.gen(function*() {
        const { schema, url } = yield* pgSchema()
        const u = unique()
        yield* Effect.promise(() =>
          keptApart(line, url, { table: `chat_${u}`, archiveTable: `chat_archive_${u}` }, assert)
        )
        const rows = yield* pgRun(
          pgUrl,
          `SELECT table_name FROM information_schema.tables WHERE table_schema = '${schema}' ORDER BY 1`
        )
        assert.deepStrictEqual(
          rows.map((r) => (r as { readonly table_name: string }).table_name),
          [`chat_${u}`, `chat_archive_${u}`, "rollmem_conversations"]
        )
      })))
  )

  it.skipIf(servers.redis.unreachable !== undefined)(
    `Redis: a key prefix of one's own ${servers.redis.unreachable === undefined ? "" : skipNote(servers.redis)}`,
    async () => {
      const prefix = `rollmem-names-test:${unique()}:`
      try {
        const id = await keptApart(line, servers.redis.url, { prefix }, assert)
        const { Redis } = await import("ioredis")
        const client = new Redis(servers.redis.url)
        try {
          assert.deepStrictEqual(await client.keys(`${prefix}*`), [`${prefix}${id}`])
          assert.strictEqual(await client.exists(`rollmem-conversation:${id}`), 0)
        } finally {
          client.disconnect()
        }
      } finally {
        await removeKeys(prefix)
      }
    }
  )
})

if (servers.pg.unreachable !== undefined || servers.redis.unreachable !== undefined) {
  describe("servers", () => reportUnreachable())
}
