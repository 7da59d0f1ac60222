/**
 * Every ConversationStore layer under test, each with a way to write a raw
 * stored value (to test undecodable values) where the backend is reachable.
 */
import { FileSystem, KeyValueStore } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { assert, it } from "@effect/vitest"
import { Context, Effect, Layer, Redacted } from "effect"
import { Redis } from "ioredis"
import * as ConversationStore from "../../src/store/ConversationStore.js"
import { ci, pgSchema, probePg, probeRedis, redisPrefix, redisUrl, type Server, skipNote } from "./servers.js"

/** Writes a raw record, bypassing the store: `revision` and `state` go in as given (`state` is JSON text). */
export class RawWriter extends Context.Tag("test/RawWriter")<RawWriter, {
  readonly write: (id: string, revision: number, state: string) => Effect.Effect<void>
}>() {}

/** A store layer under test; `raw`, when present, is the same layer also providing {@link RawWriter}. */
export interface StoreUnderTest {
  readonly name: string
  readonly layer: Layer.Layer<ConversationStore.ConversationStore>
  readonly raw?: Layer.Layer<ConversationStore.ConversationStore | RawWriter>
}

const PREFIX = "rollmem-conversation:"

const kvRaw = Layer.effect(
  RawWriter,
  Effect.map(KeyValueStore.KeyValueStore, (kv) =>
    RawWriter.of({
      write: (id, revision, state) => Effect.orDie(kv.set(PREFIX + id, `{"revision":${revision},"state":${state}}`))
    }))
)

const keyValueMemory = Layer.merge(ConversationStore.layerKeyValueStore(), kvRaw).pipe(
  Layer.provide(KeyValueStore.layerMemory)
)

/** A fresh temporary directory, removed when the layer's scope closes. */
export const tempDirectory: Effect.Effect<string, never, import("effect").Scope.Scope> = Effect.orDie(
  Effect.provide(
    Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped({ prefix: "rollmem-store-" })),
    NodeContext.layer
  )
)

const fileSystem = Layer.unwrapScoped(
  Effect.map(tempDirectory, (dir) =>
    Layer.merge(ConversationStore.layerKeyValueStore(), kvRaw).pipe(
      Layer.provide(KeyValueStore.layerFileSystem(dir)),
      Layer.provide(NodeContext.layer),
      Layer.orDie
    ))
)

const sqlRaw = Layer.effect(
  RawWriter,
  Effect.map(SqlClient.SqlClient, (sql) =>
    RawWriter.of({
      write: (id, revision, state) =>
        Effect.orDie(
          sql`INSERT INTO rollmem_conversations (id, revision, state) VALUES (${id}, ${revision}, ${state})
            ON CONFLICT (id) DO UPDATE SET revision = excluded.revision, state = excluded.state`
        )
    }))
)

/** SQLite through `layerSql` on a client the test can also reach. */
const sqlOnSqlite = Layer.unwrapScoped(
  Effect.map(tempDirectory, (dir) =>
    Layer.merge(ConversationStore.layerSql(), sqlRaw).pipe(
      Layer.provide(SqliteClient.layer({ filename: `${dir}/conversations.db` })),
      Layer.orDie
    ))
)

/** SQLite through `layerSqlite`, the layer users take. */
const sqlite = Layer.unwrapScoped(
  Effect.map(
    tempDirectory,
    (dir) => Layer.orDie(ConversationStore.layerSqlite({ filename: `${dir}/conversations.db` }))
  )
)

/** PostgreSQL through `layerSql` on a client the test can also reach, in a schema of its own. */
const sqlOnPg = Layer.unwrapScoped(
  Effect.map(pgSchema(), ({ url }) =>
    Layer.merge(ConversationStore.layerSql(), sqlRaw).pipe(
      Layer.provide(PgClient.layer({ url: Redacted.make(url) })),
      Layer.orDie
    ))
)

/** PostgreSQL through `layerPg`, the layer users take, in a schema of its own. */
const pg = Layer.unwrapScoped(
  Effect.map(pgSchema(), ({ url }) => Layer.orDie(ConversationStore.layerPg({ url })))
)

/** Redis through `layerRedis` under a key prefix of its own, with a raw writer on a second connection. */
const redis = Layer.unwrapScoped(
  Effect.map(redisPrefix, (prefix) =>
    Layer.merge(
      Layer.orDie(ConversationStore.layerRedis({ url: redisUrl, prefix })),
      Layer.scoped(
        RawWriter,
        Effect.map(
          Effect.acquireRelease(Effect.sync(() => new Redis(redisUrl)), (client) =>
            Effect.sync(() => client.disconnect())),
          (client) =>
            RawWriter.of({
              write: (id, revision, state) =>
                Effect.asVoid(Effect.promise(() =>
                  client.hset(prefix + id, "revision", String(revision), "state", state)
                ))
            })
        )
      )
    ))
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
  { name: "layerKeyValueStore (KeyValueStore.layerFileSystem)", layer: fileSystem, raw: fileSystem },
  { name: "layerSql (SqliteClient)", layer: sqlOnSqlite, raw: sqlOnSqlite },
  { name: "layerSqlite", layer: sqlite },
  ...(servers.pg.unreachable === undefined
    ? [{ name: "layerSql (PgClient)", layer: sqlOnPg, raw: sqlOnPg }, { name: "layerPg", layer: pg }]
    : []),
  ...(servers.redis.unreachable === undefined ? [{ name: "layerRedis", layer: redis, raw: redis }] : [])
]
