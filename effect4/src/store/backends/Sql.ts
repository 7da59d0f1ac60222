/**
 * The SQL backend on the Effect 4 line: a `ConversationStore` on any
 * `SqlClient` of `effect/sql` (one row per conversation), and its
 * PostgreSQL layer through `@effect/sql-pg` 4, loaded when the layer is
 * built. The Effect 3 line's table, statements and guarantees
 * (`src/store/backends/Sql.ts`), so either line reads what the other wrote.
 *
 * @since 1.0.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { SqlClient, SqlError } from "effect/sql"
import * as SqlRules from "../../../../src/core/sqlStore.js"
import * as Rules from "../../../../src/core/store.js"
import { importModule } from "../internal/peers.js"
import {
  checkingIds,
  conflict,
  decodeParsed,
  encodeRequestIds,
  encodeState,
  live,
  type Record,
  storeError
} from "../internal/records.js"
import { ConversationDecodeError, ConversationStore, type SaveOptions, type Service } from "../Service.js"
import * as SqlArchive from "./SqlArchive.js"

/**
 * The default SQL table of {@link layerSql} and {@link layerPg}:
 * `"rollmem_conversations"`.
 *
 * @since 1.0.0
 */
export const DEFAULT_TABLE: string = Rules.DEFAULT_TABLE

/**
 * Options of {@link layerSql}:
 *
 * - `table`: the table holding the conversations (default
 *   {@link DEFAULT_TABLE}), created if missing; `schema.table` names a
 *   table of another schema;
 * - `archiveTable`: the table of the archive kept beside the conversations
 *   (docs/contract.md section 17.2), default `"rollmem_archive"`, created
 *   with its full-text index at the first archived save or search.
 *
 * @since 1.0.0
 */
export interface SqlOptions {
  readonly table?: string | undefined
  readonly archiveTable?: string | undefined
}

/** The driver's error code behind a `SqlError` (a PostgreSQL SQLSTATE, an SQLite result code). @internal */
export const sqlStateOf = (error: SqlError.SqlError): unknown => {
  const cause: unknown = error.reason.cause
  return typeof cause === "object" && cause !== null ? (cause as { readonly code?: unknown }).code : undefined
}

/**
 * Whether a database error is the losing side of a race rather than a
 * failure (PostgreSQL SQLSTATE 40001 or 40P01, SQLite busy or locked): the
 * rule of `core/sqlStore.ts`, on the Effect 4 `SqlError`.
 *
 * @example
 * ```ts
 * import { SqlError } from "effect/sql"
 * import { ConversationStore } from "rollmem/store"
 *
 * const error = new SqlError.SqlError({
 *   reason: new SqlError.SerializationError({ cause: Object.assign(new Error("conflict"), { code: "40001" }) })
 * })
 * ConversationStore.isTransientSqlError(error) // true
 * ```
 *
 * @since 1.0.0
 */
export const isTransientSqlError = (error: SqlError.SqlError): boolean => SqlRules.isTransientCode(sqlStateOf(error))

const isCreationRace = (error: SqlError.SqlError): boolean => SqlRules.isCreationRaceCode(sqlStateOf(error))

/** Retries a read or a delete that lost a race (bounded); a save reports it as a conflict instead. @internal */
export const retryTransient = <A, R>(
  effect: Effect.Effect<A, SqlError.SqlError, R>
): Effect.Effect<A, SqlError.SqlError, R> =>
  Effect.retry(effect, { times: SqlRules.TRANSIENT_RETRIES, while: isTransientSqlError })

/**
 * Runs `effect` in one READ COMMITTED transaction holding PostgreSQL's
 * advisory lock on `name` in the current schema (the Effect 3 line's
 * `internal/creationLock.ts`, the same lock): processes starting at once
 * create and migrate one after the other, each seeing what the one before
 * it committed; retried when it loses a catalog race anyway.
 *
 * @internal
 */
export const withCreationLock = <A, E, R>(
  sql: SqlClient.SqlClient,
  name: string,
  effect: Effect.Effect<A, E | SqlError.SqlError, R>
): Effect.Effect<A, E | SqlError.SqlError, R> =>
  Effect.retry(
    sql.withTransaction(
      sql`SET TRANSACTION ISOLATION LEVEL READ COMMITTED`.pipe(
        Effect.andThen(
          sql`SELECT pg_advisory_xact_lock(hashtext(current_schema() || ${SqlRules.creationLockKey(name)}))`
        ),
        Effect.andThen(effect)
      )
    ),
    {
      times: SqlRules.TRANSIENT_RETRIES,
      while: (error: E | SqlError.SqlError) => SqlError.isSqlError(error) && isCreationRace(error)
    }
  )

/**
 * Creates the table `(id TEXT PRIMARY KEY, revision INTEGER, state TEXT,
 * request_ids TEXT)` when missing and migrates one of an earlier layout
 * (`state NOT NULL`, no `request_ids`), as the Effect 3 line does:
 * PostgreSQL under {@link withCreationLock}, SQLite with `CREATE TABLE IF
 * NOT EXISTS` and a migration in a transaction.
 */
const ensureTable = (sql: SqlClient.SqlClient, name: string): Effect.Effect<void, SqlError.SqlError> => {
  const table = sql(name)
  const create = sql`CREATE TABLE IF NOT EXISTS ${table} (
    id TEXT PRIMARY KEY NOT NULL,
    revision INTEGER NOT NULL,
    state TEXT,
    request_ids TEXT
  )`
  return sql.onDialectOrElse({
    pg: () =>
      withCreationLock(
        sql,
        name,
        Effect.gen(function*() {
          yield* create
          const rows = yield* sql<{ readonly name: string; readonly notnull: boolean }>`SELECT attname AS name,
            attnotnull AS notnull FROM pg_attribute
            WHERE attrelid = ${SqlRules.quotedName(name)}::regclass AND attname IN ('state', 'request_ids')
              AND NOT attisdropped`
          if (rows.find((r) => r.name === "state")?.notnull === true) {
            yield* sql`ALTER TABLE ${table} ALTER COLUMN state DROP NOT NULL`
          }
          // Only when missing: ALTER TABLE takes the table's strongest lock even when it changes nothing.
          if (!rows.some((r) => r.name === "request_ids")) {
            yield* sql`ALTER TABLE ${table} ADD COLUMN request_ids TEXT`
          }
        })
      ),
    sqlite: () =>
      Effect.andThen(
        create,
        retryTransient(sql.withTransaction(Effect.gen(function*() {
          const columns = yield* sql<{ readonly name: string; readonly notnull: number }>`PRAGMA table_info(${table})`
          if (!columns.some((c) => c.name === "request_ids")) {
            yield* sql`ALTER TABLE ${table} ADD COLUMN request_ids TEXT`
          }
          if (columns.find((c) => c.name === "state")?.notnull !== 1) return
          const rebuilt = sql(`${name}_rollmem_migration`)
          yield* sql`DROP TABLE IF EXISTS ${rebuilt}`
          yield* sql`CREATE TABLE ${rebuilt} (
            id TEXT PRIMARY KEY NOT NULL,
            revision INTEGER NOT NULL,
            state TEXT,
            request_ids TEXT
          )`
          yield* sql`INSERT INTO ${rebuilt} (id, revision, state) SELECT id, revision, state FROM ${table}`
          yield* sql`DROP TABLE ${table}`
          yield* sql`ALTER TABLE ${rebuilt} RENAME TO ${sql(name.split(".").pop()!)}`
        })))
      ),
    orElse: () => Effect.asVoid(create)
  })
}

interface Row {
  readonly revision: unknown
  readonly state: unknown
  readonly request_ids?: unknown
}

/** A row as the record it holds: `state` and `request_ids` JSON text (or NULL), read as the Effect 3 line reads them. */
const decodeRow = (id: string, row: Row): Effect.Effect<Record, ConversationDecodeError> =>
  Effect.suspend(() => {
    const parse = (column: string, text: unknown): unknown => {
      if (text === null || text === undefined) return null
      if (typeof text !== "string") throw new Error(`${column}: expected JSON text, got ${typeof text}`)
      return JSON.parse(text)
    }
    let record: { readonly revision: unknown; readonly state: unknown; readonly requestIds?: unknown }
    try {
      const requestIds = parse("request_ids", row.request_ids)
      record = requestIds === null
        ? { revision: row.revision, state: parse("state", row.state) }
        : { revision: row.revision, state: parse("state", row.state), requestIds }
    } catch (cause) {
      const description = `malformed JSON: ${cause instanceof Error ? cause.message : String(cause)}`
      return Effect.fail(new ConversationDecodeError({ conversationId: id, description, cause }))
    }
    return Effect.fromResult(decodeParsed(id, record))
  })

/**
 * A store on the `SqlClient` in context, the Effect 3 line's `makeSql`:
 * creates the table `(id TEXT PRIMARY KEY, revision INTEGER, state TEXT,
 * request_ids TEXT)` if it is missing, race-free for any number of
 * processes building the layer at once (PostgreSQL: in a READ COMMITTED
 * transaction holding `pg_advisory_xact_lock` on the table's name), and
 * migrates a table of an earlier layout; fails with the `SqlError` when it
 * cannot. Each operation is one statement, atomic at any isolation level:
 *
 * - `save` creating: `INSERT ... ON CONFLICT (id) DO UPDATE ... WHERE state
 *   IS NULL RETURNING revision` (creates the row, or revives a tombstone at
 *   its next revision);
 * - `save` replacing: `UPDATE ... WHERE id = ? AND revision = ? AND state IS
 *   NOT NULL RETURNING revision`;
 * - `delete`: `UPDATE ... SET revision = revision + 1, state = NULL` (the
 *   row stays as a tombstone), with the conversation's archive rows, in one
 *   transaction.
 *
 * A save with archive writes ({@link SaveOptions.archive}) inserts their
 * rows in the same transaction as the compare-and-set, only when it wrote.
 * A statement that loses a race inside the database (SQLSTATE 40001 or
 * 40P01, SQLite busy) is a `ConversationConflictError` for `save`; `load`
 * and `delete` retry it up to 5 times before `ConversationStoreError`.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { PgClient } from "@effect/sql-pg"
 * import { ConversationStore } from "rollmem/store"
 *
 * const StoreLive = Layer.effect(ConversationStore.ConversationStore, ConversationStore.makeSql()).pipe(
 *   Layer.provide(PgClient.layer({ database: "app" }))
 * )
 * ```
 *
 * @since 1.0.0
 */
export const makeSql = (
  options?: SqlOptions
): Effect.Effect<Service, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const name = options?.table ?? DEFAULT_TABLE
    const table = sql(name)
    yield* ensureTable(sql, name)
    const archive = SqlArchive.makeOn(sql, options?.archiveTable ?? SqlRules.DEFAULT_ARCHIVE_TABLE)
    const load = (id: string) =>
      Effect.flatMap(
        Effect.mapError(
          retryTransient(sql<Row>`SELECT revision, state, request_ids FROM ${table} WHERE id = ${id}`),
          storeError(id, "load")
        ),
        (rows) => rows.length === 0 ? Effect.succeedNone : Effect.map(decodeRow(id, rows[0]), live)
      )
    const save = (
      id: string,
      state: Parameters<Service["save"]>[1],
      expectedRevision: number,
      options?: SaveOptions
    ) => {
      const json = encodeState(state)
      const requestIds = encodeRequestIds(options)
      const statement = expectedRevision === Rules.NO_REVISION
        ? sql<{ readonly revision: number }>`INSERT INTO ${table} (id, revision, state, request_ids)
            VALUES (${id}, 1, ${json}, ${requestIds})
            ON CONFLICT (id) DO UPDATE SET revision = ${table}.revision + 1, state = excluded.state,
              request_ids = excluded.request_ids
            WHERE ${table}.state IS NULL RETURNING revision`
        : sql<{ readonly revision: number }>`UPDATE ${table}
            SET revision = ${expectedRevision + 1}, state = ${json}, request_ids = ${requestIds}
            WHERE id = ${id} AND revision = ${expectedRevision} AND state IS NOT NULL RETURNING revision`
      const writes = options?.archive?.filter((entries) => entries.length > 0) ?? []
      // with archive rows: they and the state in one transaction, the rows only when the compare-and-set wrote
      const saved: Effect.Effect<ReadonlyArray<{ readonly revision: number }>, SqlError.SqlError> =
        writes.length === 0 ?
          statement :
          Effect.andThen(
            archive.ensure,
            sql.withTransaction(
              Effect.tap(statement, (rows) => rows.length === 0 ? Effect.void : archive.insert(id, writes))
            )
          )
      return saved.pipe(
        Effect.catchIf(isTransientSqlError, () => Effect.succeed([])),
        Effect.mapError(storeError(id, "save")),
        Effect.flatMap((rows) =>
          rows.length === 0 ? Effect.fail(conflict(id, expectedRevision)) : Effect.succeed(Number(rows[0].revision))
        )
      )
    }
    // the tombstone and the archive's rows removed together
    const remove = (id: string) =>
      Effect.asVoid(Effect.mapError(
        retryTransient(sql.withTransaction(Effect.andThen(
          sql`UPDATE ${table} SET revision = revision + 1, state = NULL, request_ids = NULL
            WHERE id = ${id} AND state IS NOT NULL`,
          archive.remove(id)
        ))),
        storeError(id, "delete")
      ))
    return checkingIds({ load, save, delete: remove, archive: archive.service })
  })

/**
 * A store on the `SqlClient` in context (see {@link makeSql}).
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { PgClient } from "@effect/sql-pg"
 * import { ConversationStore } from "rollmem/store"
 *
 * const StoreLive = ConversationStore.layerSql({ table: "chat_memory" }).pipe(
 *   Layer.provide(PgClient.layer({ database: "app" }))
 * )
 * ```
 *
 * @since 1.0.0
 */
export const layerSql = (
  options?: SqlOptions
): Layer.Layer<ConversationStore, SqlError.SqlError, SqlClient.SqlClient> =>
  Layer.effect(ConversationStore, makeSql(options))

/**
 * A driver that cannot open what it was given is an `SqlError` of the layer
 * naming it (a `ConnectionError` reason), not a defect.
 *
 * @internal
 */
export const openFailure = (what: string) => <A>(cause: Cause.Cause<unknown>): Layer.Layer<A, SqlError.SqlError> => {
  const error = Cause.squash(cause)
  const failure = SqlError.isSqlError(error) ? error : new SqlError.SqlError({
    reason: new SqlError.ConnectionError({
      cause: error,
      message: `cannot open ${what}: ${error instanceof Error ? error.message : String(error)}`
    })
  })
  return Layer.effectContext(Effect.fail(failure))
}

/**
 * Options of {@link layerPg}: {@link SqlOptions} and
 *
 * - `url`: the connection URL, `postgres://user:password@host:port/database`
 *   (`?options=-c%20search_path%3Dmy_schema` sets session parameters);
 * - `maxConnections`: most connections of the pool (default: the driver's, 10).
 *
 * @since 1.0.0
 */
export interface PgOptions extends SqlOptions {
  readonly url: string | Redacted.Redacted<string>
  readonly maxConnections?: number | undefined
}

/**
 * A store in a PostgreSQL database (12 or later), through `@effect/sql-pg`
 * 4 (an optional peer dependency: `npm i @effect/sql-pg@4.0.5`), loaded when
 * the layer is built, never when `rollmem/store` is imported (missing, the
 * layer dies naming the install). Safe for any number of processes on any
 * number of hosts: every save is one compare-and-set statement (see
 * {@link makeSql}), and the table is created race-free when many replicas
 * start at once. The table, its rows and the archive's are the Effect 3
 * line's `layerPg`'s: both lines may share one database.
 *
 * Building the layer connects (up to 5 seconds) and fails with the
 * `SqlError` when the server cannot be reached; the pool closes with the
 * layer's scope. A statement that fails later is a `ConversationStoreError`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message } from "rollmem"
 * import { Conversation, ConversationStore } from "rollmem/store"
 *
 * const program = Conversation.withMemory("chat-42", { strategy: "buffer" }, (memory) =>
 *   memory.add(Message.user("Book me a flight to Rome"))
 * ).pipe(Effect.provide(ConversationStore.layerPg({ url: "postgres://app@localhost:5432/app" })))
 * ```
 *
 * @since 1.0.0
 */
export const layerPg = (options: PgOptions): Layer.Layer<ConversationStore, SqlError.SqlError> =>
  Layer.unwrap(Effect.map(
    importModule("@effect/sql-pg/PgClient"),
    (PgClient) =>
      Layer.provide(
        layerSql(options),
        PgClient.layer({
          url: typeof options.url === "string" ? Redacted.make(options.url) : options.url,
          maxConnections: options.maxConnections,
          applicationName: "rollmem"
        }).pipe(Layer.catchCause(openFailure("the PostgreSQL database")))
      )
  ))
