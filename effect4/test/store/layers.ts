/**
 * Every ConversationStore layer of the Effect 4 line under test, each with a
 * way to write a raw stored value where the backend is reachable (to test
 * undecodable values): the Effect 3 suite's `test/store/layers.ts`.
 */
import { PgClient } from "@effect/sql-pg"
import { assert, it } from "@effect/vitest"
import { Context, Effect, Layer, Redacted } from "effect"
import { KeyValueStore } from "effect/persistence"
import { SqlClient } from "effect/sql"
import { Redis } from "ioredis"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { makeClient } from "../../src/store/backends/Sqlite.js"
import * as ConversationStore from "../../src/store/ConversationStore.js"
import { ci, pgSchema, probePg, probeRedis, redisPrefix, redisUrl, type Server, skipNote } from "./servers.js"

/** Writes a raw record, bypassing the store: `revision` and `state` (JSON text) go in as given. */
export class RawWriter extends Context.Service<RawWriter, {
  readonly write: (id: string, revision: number, state: string) => Effect.Effect<void>
}>()("test/RawWriter") {}

/** A store layer under test; `raw`, when present, is the same layer also providing {@link RawWriter}. */
export interface StoreUnderTest {
  readonly name: string
  readonly layer: Layer.Layer<ConversationStore.ConversationStore>
  readonly raw?: Layer.Layer<ConversationStore.ConversationStore | RawWriter>
}

const PREFIX = "rollmem-conversation:"

const kvRaw = Layer.effect(
  RawWriter,
  Effect.gen(function*() {
    const kv = yield* KeyValueStore.KeyValueStore
    return {
      write: (id: string, revision: number, state: string) =>
        Effect.orDie(kv.set(PREFIX + id, `{"revision":${revision},"state":${state}}`))
    }
  })
)

const keyValueMemory = Layer.merge(ConversationStore.layerKeyValueStore(), kvRaw).pipe(
  Layer.provide(KeyValueStore.layerMemory)
)

const sqlRaw = Layer.effect(
  RawWriter,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return {
      write: (id: string, revision: number, state: string) =>
        Effect.asVoid(Effect.orDie(
          sql`INSERT INTO rollmem_conversations (id, revision, state) VALUES (${id}, ${revision}, ${state})
            ON CONFLICT (id) DO UPDATE SET revision = excluded.revision, state = excluded.state`
        ))
    }
  })
)

/** PostgreSQL through `layerSql` on a client the test can also reach, in a schema of its own. */
const sqlOnPg = Layer.unwrap(
  Effect.map(pgSchema(), ({ url }) =>
    Layer.merge(ConversationStore.layerSql(), sqlRaw).pipe(
      Layer.provide(PgClient.layer({ url: Redacted.make(url) })),
      Layer.orDie
    ))
)

/** PostgreSQL through `layerPg`, the layer users take, in a schema of its own. */
const pg = Layer.unwrap(
  Effect.map(pgSchema(), ({ url }) => Layer.orDie(ConversationStore.layerPg({ url })))
)

/** Redis through `layerRedis` under a key prefix of its own, with a raw writer on a second connection. */
const redis = Layer.unwrap(
  Effect.map(redisPrefix, (prefix) =>
    Layer.merge(
      Layer.orDie(ConversationStore.layerRedis({ url: redisUrl, prefix })),
      Layer.effect(
        RawWriter,
        Effect.map(
          Effect.acquireRelease(Effect.sync(() => new Redis(redisUrl)), (client) =>
            Effect.sync(() => client.disconnect())),
          (client) => ({
            write: (id: string, revision: number, state: string) =>
              Effect.asVoid(Effect.promise(() =>
                client.hset(prefix + id, "revision", String(revision), "state", state)
              ))
          })
        )
      )
    ))
)

/** A fresh temporary directory, removed when the scope closes. */
export const tempDirectory = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "rollmem-e4-store-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/** SQLite through `layerSql` on the `node:sqlite` client, which the test can also reach. */
const sqlOnSqlite = Layer.unwrap(
  Effect.map(tempDirectory, (dir) =>
    Layer.merge(ConversationStore.layerSql(), sqlRaw).pipe(
      Layer.provide(Layer.effect(SqlClient.SqlClient, makeClient(`${dir}/conversations.db`))),
      Layer.orDie
    ))
)

/** SQLite through `layerSqlite`, the layer users take. */
const sqlite = Layer.unwrap(
  Effect.map(
    tempDirectory,
    (dir) => Layer.orDie(ConversationStore.layerSqlite({ filename: `${dir}/conversations.db` }))
  )
)

/** The servers, probed once per test file. */
export const servers: { readonly pg: Server; readonly redis: Server } = await Promise.all([probePg(), probeRedis()])
  .then(([pg, redis]) => ({ pg, redis }))

/**
 * Registers, for each server that does not answer, one skipped test saying
 * how to point the tests at one (a failing test under `CI=true`).
 */
export const reportUnreachable = (): void => {
  for (const server of [servers.pg, servers.redis]) {
    if (server.unreachable === undefined) continue
    if (ci) it(`${server.name} at ${server.url} answers (CI=true)`, () => assert.fail(server.unreachable))
    else it.skip(`${server.name} tests ${skipNote(server)}`, () => {})
  }
}

/** Every layer, each built fresh (empty) per `Effect.provide`; the server layers when their server answers. */
export const stores: ReadonlyArray<StoreUnderTest> = [
  { name: "layerMemory", layer: ConversationStore.layerMemory },
  { name: "layerKeyValueStore (KeyValueStore.layerMemory)", layer: keyValueMemory, raw: keyValueMemory },
  { name: "layerSql (node:sqlite)", layer: sqlOnSqlite, raw: sqlOnSqlite },
  { name: "layerSqlite", layer: sqlite },
  ...(servers.pg.unreachable === undefined
    ? [{ name: "layerSql (PgClient)", layer: sqlOnPg, raw: sqlOnPg }, { name: "layerPg", layer: pg }]
    : []),
  ...(servers.redis.unreachable === undefined ? [{ name: "layerRedis", layer: redis, raw: redis }] : [])
]
