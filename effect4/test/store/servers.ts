/**
 * The database servers the Effect 4 store tests run against, as the Effect 3
 * suite's `test/store/servers.ts` names them: PostgreSQL at `ROLLMEM_PG_URL`
 * (default `postgres://postgres@127.0.0.1:5432/test`) and Redis at
 * `ROLLMEM_REDIS_URL` (default `redis://127.0.0.1:6379`). Each layer built
 * here gets its own PostgreSQL schema (the session's `search_path`) or Redis
 * key prefix, removed when the layer's scope closes. A server that does not
 * answer skips its tests with one line saying how to point them at one,
 * except under `CI=true`, where it is a failure.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted, type Scope } from "effect"
import { Redis } from "ioredis"
import * as ConversationStore from "../../src/store/ConversationStore.js"

/** The PostgreSQL server of the tests. */
export const pgUrl = process.env.ROLLMEM_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test"
/** The Redis server of the tests. */
export const redisUrl = process.env.ROLLMEM_REDIS_URL ?? "redis://127.0.0.1:6379"
/** Under CI an unreachable server fails the run. */
export const ci = process.env.CI === "true"

/** A server of the tests: its name, how to point the tests at another, and why it is unreachable (if it is). */
export interface Server {
  readonly name: string
  readonly url: string
  readonly variable: string
  readonly example: string
  readonly unreachable: string | undefined
}

const reason = (error: unknown): string => error instanceof Error ? error.message : String(error)

const admin = (url: string) => PgClient.layer({ url: Redacted.make(url), connectTimeout: "3 seconds" })

/** Runs `statement` on a fresh connection to `url` (the PostgreSQL administration of the tests). */
export const pgRun = (url: string, statement: string): Effect.Effect<ReadonlyArray<unknown>> =>
  Effect.orDie(Effect.provide(Effect.flatMap(PgClient.PgClient, (sql) => sql.unsafe(statement)), admin(url)))

/** Whether PostgreSQL answers, probed once. */
export const probePg = (): Promise<Server> =>
  Effect.runPromise(
    Effect.result(Effect.provide(Effect.flatMap(PgClient.PgClient, (sql) => sql`SELECT 1`), admin(pgUrl)))
  ).then((result) => ({
    name: "PostgreSQL",
    url: pgUrl,
    variable: "ROLLMEM_PG_URL",
    example: "postgres://user@host:5432/database",
    unreachable: result._tag === "Failure" ? reason(result.failure) : undefined
  }))

const redisClient = (url: string) =>
  new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 3000 })

/** Whether Redis answers, probed once. */
export const probeRedis = async (): Promise<Server> => {
  const client = redisClient(redisUrl)
  let unreachable: string | undefined
  try {
    await client.connect()
    await client.ping()
  } catch (error) {
    unreachable = reason(error)
  } finally {
    client.disconnect()
  }
  return { name: "Redis", url: redisUrl, variable: "ROLLMEM_REDIS_URL", example: "redis://host:6379", unreachable }
}

/** The line a skipped suite shows. */
export const skipNote = (server: Server): string =>
  `(skipped: no ${server.name} at ${server.url}: ${server.unreachable}; set ${server.variable}=${server.example} to run them)`

let counter = 0
/** A name part unique to this process and call. */
export const unique = (): string => `${process.pid}_${Date.now().toString(36)}_${counter++}`

/** `url` with session parameters (`-c name=value`) in its `options`. */
export const withSession = (url: string, parameters: Readonly<Record<string, string>>): string => {
  const parsed = new URL(url)
  const existing = parsed.searchParams.get("options")
  const added = Object.entries(parameters).map(([k, v]) => `-c ${k}=${v}`).join(" ")
  parsed.searchParams.set("options", existing === null ? added : `${existing} ${added}`)
  return parsed.toString()
}

/**
 * A new, empty schema on the test server (`rollmem_e4_test_...`), dropped
 * with everything in it when the scope closes; returns a URL whose sessions
 * use it (`search_path`).
 */
export const pgSchema = (
  parameters: Readonly<Record<string, string>> = {}
): Effect.Effect<{ readonly schema: string; readonly url: string }, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.suspend(() => {
      const schema = `rollmem_e4_test_${unique()}`
      return Effect.as(pgRun(pgUrl, `CREATE SCHEMA ${schema}`), {
        schema,
        url: withSession(pgUrl, { search_path: schema, ...parameters })
      })
    }),
    ({ schema }) => pgRun(pgUrl, `DROP SCHEMA ${schema} CASCADE`)
  )

/** A key prefix of its own on the test server; its keys are removed when the scope closes. */
export const redisPrefix: Effect.Effect<string, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => `rollmem-e4-test:${unique()}:`),
  (prefix) => Effect.promise(() => removeKeys(prefix))
)

/** Removes every key starting with `prefix`. */
export const removeKeys = async (prefix: string): Promise<void> => {
  const client = redisClient(redisUrl)
  try {
    await client.connect()
    let cursor = "0"
    do {
      const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000)
      if (keys.length > 0) await client.del(...keys)
      cursor = next
    } while (cursor !== "0")
  } finally {
    client.disconnect()
  }
}

/** `layerPg` on a fresh schema of its own. */
export const pgLayer: Layer.Layer<ConversationStore.ConversationStore> = Layer.unwrap(
  Effect.map(pgSchema(), ({ url }) => Layer.orDie(ConversationStore.layerPg({ url })))
)
