/**
 * The names a store keeps its conversations under, given with a location
 * (docs/contract.md section 12.2), on the Effect 4 line: the shared cases
 * (../../../test/support/storeNameCases.ts, which
 * test/store/storeNames.test.ts runs on the Effect 3 line) on SQLite,
 * PostgreSQL and Redis, each test under names of its own, and the
 * database's own listing of what was created.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Option, Result } from "effect"
import { Redis } from "ioredis"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import {
  keptApart,
  layerRefusals,
  runRefusals,
  type StoreNamesLine,
  unique
} from "../../../test/support/storeNameCases.js"
import { ConfigError } from "../../src/Errors.js"
import { Conversations, type ConversationsOptions } from "../../src/promise/index.js"
import * as MemoryState from "../../src/schema/MemoryState.js"
import * as ConversationStore from "../../src/store/ConversationStore.js"
import { reportUnreachable, servers } from "./layers.js"
import { pgRun, pgSchema, pgUrl, removeKeys, skipNote } from "./servers.js"

const line: StoreNamesLine = {
  name: "effect4",
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
          const location = ConversationStore.parseLocation(store, "store")
          if (Result.isFailure(location)) return yield* Effect.die(location.failure)
          const layer = ConversationStore.layerLocation(location.success, names as ConversationStore.StoreNames)
          const built = yield* Effect.result(Layer.build(layer))
          if (Result.isFailure(built)) {
            const error = built.failure
            if (error instanceof ConfigError) {
              return { _tag: "ConfigError" as const, option: error.option, description: error.description }
            }
            return yield* Effect.die(error)
          }
          const loaded = yield* Context.get(built.success, ConversationStore.ConversationStore).load(id)
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

describe("store names (effect4)", () => {
  it("layerLocation refuses the same names with the same ConfigError, before opening anything", async () => {
    for (const c of await layerRefusals(line)) assert.deepStrictEqual(c.got, c.expected, c.name)
    assert.isFalse(fs.existsSync("never-opened.db"))
  })

  it("SQLite: a table and an archive table of one's own keep a memory apart from the default one", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rollmem-names-"))
    try {
      const u = unique()
      await keptApart(line, `sqlite:${path.join(dir, "app.db")}`, {
        table: `chat_${u}`,
        archiveTable: `chat_archive_${u}`
      }, assert)
      const db = new DatabaseSync(path.join(dir, "app.db"))
      const tables = db.prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '%fts%' ORDER BY name"
      ).all().map((r) => (r as { readonly name: string }).name)
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
      const prefix = `rollmem-e4-names-test:${unique()}:`
      try {
        const id = await keptApart(line, servers.redis.url, { prefix }, assert)
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
