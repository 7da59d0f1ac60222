/**
 * The SQLite store on the Effect 4 line, over Node's own `node:sqlite`: an
 * `SqlClient` of `effect/sql` on one `DatabaseSync` connection (its
 * statements compiled by `effect/sql`'s SQLite compiler, its transactions
 * `effect/sql`'s SQLite acquirers), under the SQL store of `Sql.ts`: the
 * Effect 3 line's `layerSqlite` table, statements and archive (FTS5).
 *
 * Why not `@effect/sql-sqlite-node`: its only Effect 4 releases are
 * 4.0.0 betas, which import `effect/unstable/sql/*`, modules `effect` 4.1
 * no longer has (they moved to `effect/sql`); they cannot load beside
 * `effect@4.1`. `node:sqlite` needs no install and no native build, and
 * `effect/sql` 4.1 has everything else a client needs (see
 * docs/architecture.md, "The Effect 4 line").
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Reactivity } from "effect/reactivity"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import { SqlClient, type SqlConnection, SqlError, Statement } from "effect/sql"
import * as Stream from "effect/Stream"
import type * as NodeSqlite from "node:sqlite"
import { ConversationStore } from "../Service.js"
import { layerSql, openFailure, type SqlOptions } from "./Sql.js"

/**
 * Options of {@link layerSqlite}: {@link SqlOptions} and `filename`, the
 * database file (created if missing; `":memory:"` for a private in-memory
 * database).
 *
 * @since 1.0.0
 */
export interface SqliteOptions extends SqlOptions {
  readonly filename: string
}

/** How long a writer waits for another connection's write lock before SQLite answers busy (the Effect 3 driver's). */
const BUSY_TIMEOUT_MS = 5000

/** SQLite's primary result codes a lost race reads as (`core/sqlStore.ts` reads their names). */
const NAMES: { readonly [code: number]: string } = { 5: "SQLITE_BUSY", 6: "SQLITE_LOCKED" }

/**
 * A `node:sqlite` error as an `SqlError`: its reason classified by
 * `effect/sql`, its cause carrying the result code's name
 * (`SQLITE_BUSY`, `SQLITE_LOCKED`, or `SQLITE_<n>`), as the Effect 3 driver's
 * errors do.
 */
const sqlError = (operation: string, what?: string) => (error: unknown): SqlError.SqlError => {
  const errcode = typeof error === "object" && error !== null
    ? (error as { readonly errcode?: unknown }).errcode
    : undefined
  const detail = error instanceof Error ? error.message : String(error)
  const message = what === undefined ? detail : `${what}: ${detail}`
  const cause = typeof errcode === "number"
    ? Object.assign(new Error(message, { cause: error }), {
      code: (NAMES[errcode & 0xff] ?? `SQLITE_${errcode & 0xff}`) + (errcode > 0xff ? `_${errcode >> 8}` : ""),
      errcode
    })
    : error
  return new SqlError.SqlError({ reason: SqlError.classifySqliteError(cause, { message, operation }) })
}

/** Loads `node:sqlite` (Node 22.13 or later); elsewhere a defect saying so. */
const loadSqlite: Effect.Effect<typeof NodeSqlite> = Effect.orDie(Effect.tryPromise({
  try: () => import(/* webpackIgnore: true */ /* @vite-ignore */ "node:" + "sqlite") as Promise<typeof NodeSqlite>,
  catch: (cause) =>
    new Error("rollmem/store: layerSqlite needs node:sqlite (Node 22.13 or later, or Node 23.4 or later)", { cause })
}))

/**
 * An `SqlClient` on one `node:sqlite` connection to `filename`, in WAL
 * mode with a 5-second busy timeout, closed with the scope.
 *
 * @internal
 */
export const makeClient = (
  filename: string
): Effect.Effect<SqlClient.SqlClient, SqlError.SqlError, Scope.Scope> =>
  Effect.gen(function*() {
    const { DatabaseSync } = yield* loadSqlite
    const db = yield* Effect.acquireRelease(
      Effect.try({
        try: () => {
          const db = new DatabaseSync(filename)
          try {
            db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
            if (filename !== ":memory:") db.exec("PRAGMA journal_mode = WAL")
          } catch (error) {
            db.close()
            throw error
          }
          return db
        },
        catch: sqlError("open", `cannot open ${filename}`)
      }),
      (db) => Effect.sync(() => db.close())
    )
    const prepared = new Map<string, NodeSqlite.StatementSync>()
    const prepare = (sql: string): NodeSqlite.StatementSync => {
      let statement = prepared.get(sql)
      if (statement === undefined) {
        statement = db.prepare(sql)
        if (prepared.size >= 200) prepared.delete(prepared.keys().next().value!)
        prepared.set(sql, statement)
      }
      return statement
    }
    const run = (sql: string, params: ReadonlyArray<unknown>, cached: boolean) =>
      Effect.try({
        try: (): ReadonlyArray<Record<string, unknown>> => {
          const statement = cached ? prepare(sql) : db.prepare(sql)
          const values = params as Array<NodeSqlite.SQLInputValue>
          if (statement.columns().length > 0) return statement.all(...values) as Array<Record<string, unknown>>
          statement.run(...values)
          return []
        },
        catch: sqlError("execute")
      })
    const connection: SqlConnection.Connection = {
      execute: (sql, params, transformRows) =>
        transformRows === undefined ? run(sql, params, true) : Effect.map(run(sql, params, true), transformRows),
      executeRaw: (sql, params) => run(sql, params, true),
      executeUnprepared: (sql, params, transformRows) =>
        transformRows === undefined ? run(sql, params, false) : Effect.map(run(sql, params, false), transformRows),
      executeValues: (sql, params) => Effect.map(run(sql, params, true), (rows) => rows.map(Object.values)),
      executeValuesUnprepared: (sql, params) => Effect.map(run(sql, params, false), (rows) => rows.map(Object.values)),
      executeStream: (sql, params, transformRows) =>
        Stream.fromIterableEffect(
          transformRows === undefined ? run(sql, params, true) : Effect.map(run(sql, params, true), transformRows)
        )
    }
    // DatabaseSync.isTransaction is Node 22.16's; before it, a ROLLBACK outside a transaction is told apart by its error
    const acquirers = SqlClient.makeSqliteAcquirers({
      connection: Effect.succeed(connection),
      semaphore: yield* Semaphore.make(1),
      ...(typeof db.isTransaction === "boolean" ? { isTransaction: () => db.isTransaction } : {})
    })
    return yield* SqlClient.make({
      ...acquirers,
      compiler: Statement.makeCompilerSqlite(),
      driver: "sqlite",
      spanAttributes: [["db.system.name", "sqlite"]]
    }).pipe(Effect.provide(Reactivity.layer))
  })

/**
 * A store in an SQLite database file through Node's own `node:sqlite`
 * (Node 22.13 or later; no package to install, no native build; Node 22
 * prints its one-time `ExperimentalWarning` for `node:sqlite` when the layer
 * is built). The Effect 3 line's `layerSqlite`: the same table, rows and
 * archive (FTS5), so both lines may share one file. Safe across processes on
 * one host: every process may open the same file. The database runs in WAL
 * mode, which needs the file on a local disk; a writer waits up to 5 seconds
 * for the write lock, then the save is a `ConversationConflictError`
 * (re-applied by `Conversation.withMemory`). One connection per layer: its
 * statements run one at a time.
 *
 * A file that cannot be opened (its directory missing, no permission)
 * fails the layer with an `SqlError` naming it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message } from "rollmem"
 * import { Conversation, ConversationStore } from "rollmem/store"
 *
 * const program = Conversation.withMemory("chat-42", { strategy: "buffer" }, (memory) =>
 *   memory.add(Message.user("Book me a flight to Rome"))
 * ).pipe(Effect.provide(ConversationStore.layerSqlite({ filename: "conversations.db" })))
 * ```
 *
 * @since 1.0.0
 */
export const layerSqlite = (options: SqliteOptions): Layer.Layer<ConversationStore, SqlError.SqlError> =>
  Layer.provide(
    layerSql(options),
    Layer.effect(SqlClient.SqlClient, makeClient(options.filename)).pipe(
      Layer.catchCause(openFailure(options.filename))
    )
  )
