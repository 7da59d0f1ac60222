/**
 * The SQL backend: a `ConversationStore` on any `@effect/sql` `SqlClient`
 * (one row per conversation), and its SQLite and PostgreSQL layers, whose
 * drivers are loaded when the layer is built.
 *
 * @since 0.3.0
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Rules from "../../core/store.js"
import * as MemoryState from "../../schema/MemoryState.js"
import { importModule } from "../internal/peers.js"
import {
  checkingIds,
  conflict,
  decodeWith,
  encodeRequestIds,
  encodeState,
  live,
  RequestIds,
  storeError
} from "../internal/records.js"
import { ConversationStore, NO_REVISION, Revision, type SaveOptions, type Service } from "../Service.js"
import * as SqlArchive from "./SqlArchive.js"
import { isTransientSqlError, retryTransient } from "./SqlErrors.js"
import { ensureTable } from "./SqlTable.js"

/**
 * The default SQL table of {@link layerSql}, {@link layerSqlite} and
 * {@link layerPg}.
 *
 * @example
 * ```ts
 * import { ConversationStore } from "rollmem/store"
 *
 * ConversationStore.DEFAULT_TABLE // "rollmem_conversations"
 * ```
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_TABLE = Rules.DEFAULT_TABLE

/**
 * Options of {@link layerSql}.
 *
 * @since 0.1.0
 * @category models
 */
export interface SqlOptions {
  /**
   * The table holding the conversations; default {@link DEFAULT_TABLE}.
   * Created if missing; `schema.table` names a table of another schema
   * (PostgreSQL) or attached database (SQLite).
   */
  readonly table?: string | undefined
  /**
   * The table of the archive kept beside the conversations
   * (docs/contract.md section 17.2, the layout of `SqlArchive`); default
   * `"rollmem_archive"`. Created, with its full-text index, at the first
   * archived save or search.
   */
  readonly archiveTable?: string | undefined
}

// The SQL row; `request_ids` is null (or absent, in a table an older writer created) when none were saved.
const Row = Schema.transform(
  Schema.Struct({
    revision: Revision,
    state: Schema.NullOr(Schema.parseJson(MemoryState.MemoryStateSchema)),
    request_ids: Schema.optionalWith(Schema.NullOr(Schema.parseJson(RequestIds)), { default: () => null })
  }),
  Schema.typeSchema(Schema.Struct({
    revision: Revision,
    state: Schema.NullOr(MemoryState.MemoryStateSchema),
    requestIds: Schema.optional(RequestIds)
  })),
  {
    strict: true,
    decode: ({ request_ids, ...rest }) => request_ids === null ? rest : { ...rest, requestIds: request_ids },
    encode: ({ requestIds, ...rest }) => ({ ...rest, request_ids: requestIds ?? null })
  }
)

const decodeRow = decodeWith(Row)

/**
 * Builds a store on the `SqlClient` in context. Creates the table
 * `(id TEXT PRIMARY KEY, revision INTEGER, state TEXT, request_ids TEXT)`
 * if it is missing (race-free: see below) and migrates a table of an
 * earlier layout (`state NOT NULL`, no `request_ids`); fails with the
 * `SqlError` when it cannot. `request_ids` holds the save's
 * {@link SaveOptions.requestIds} as a JSON array, or NULL.
 *
 * Each operation is one statement, atomic for every connection and process
 * sharing the database, at any isolation level:
 *
 * - `save` creating a conversation: `INSERT ... ON CONFLICT (id) DO UPDATE
 *   ... WHERE state IS NULL RETURNING revision` (creates the row, or revives
 *   a tombstone at the next revision);
 * - `save` replacing: `UPDATE ... WHERE id = ? AND revision = ? AND state IS
 *   NOT NULL RETURNING revision`;
 * - `delete`: `UPDATE ... SET revision = revision + 1, state = NULL`: the
 *   row stays as a tombstone (its id and last revision, no state), so a
 *   writer holding a revision from before the delete conflicts even after
 *   the conversation is created again.
 *
 * A statement that loses a race inside the database (PostgreSQL SQLSTATE
 * 40001 or 40P01 under REPEATABLE READ or SERIALIZABLE, SQLite busy: see
 * {@link isTransientSqlError}) is a {@link ConversationConflictError} for
 * `save`, so `Conversation.withMemory` re-applies; `load` and `delete` retry
 * it up to 5 times before failing with {@link ConversationStoreError}.
 *
 * Table creation is race-free for any number of replicas starting at once:
 * on PostgreSQL it runs in a READ COMMITTED transaction (whatever the
 * session's default) holding `pg_advisory_xact_lock` on the table's name;
 * other databases get `CREATE TABLE IF NOT EXISTS`.
 * Written and tested for SQLite (3.35 or later, for `RETURNING`) and
 * PostgreSQL (9.5 or later).
 *
 * `@effect/sql` is loaded when the store is built, not when this module is
 * imported.
 *
 * @example
 * ```ts
 * import { SqliteClient } from "@effect/sql-sqlite-node"
 * import { Effect } from "effect"
 * import { ConversationStore } from "rollmem/store"
 *
 * // a store service on an SqlClient you already have (its table created on first use)
 * const program = Effect.gen(function*() {
 *   const store = yield* ConversationStore.makeSql({ table: "chat_memory" })
 *   return yield* store.load("chat-42")
 * }).pipe(Effect.provide(SqliteClient.layer({ filename: "app.db" })))
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeSql = (
  options?: SqlOptions
): Effect.Effect<Service, SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const { SqlClient } = yield* importModule("@effect/sql/SqlClient")
    const sql = yield* SqlClient
    const name = options?.table ?? DEFAULT_TABLE
    const table = sql(name)
    yield* ensureTable(sql, name)
    const archive = SqlArchive.makeOn(sql, options?.archiveTable ?? SqlArchive.DEFAULT_TABLE)
    const load = (id: string) =>
      Effect.flatMap(
        Effect.mapError(
          retryTransient(
            sql<typeof Row.Encoded>`SELECT revision, state, request_ids FROM ${table} WHERE id = ${id}`
          ),
          storeError(id, "load")
        ),
        (rows) => rows.length === 0 ? Effect.succeedNone : Effect.map(decodeRow(id, rows[0]), live)
      )
    const save = (id: string, state: MemoryState.MemoryState, expectedRevision: number, options?: SaveOptions) => {
      const json = encodeState(state)
      const requestIds = encodeRequestIds(options)
      const statement = expectedRevision === NO_REVISION
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
      const saved = writes.length === 0 ? statement : Effect.zipRight(
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
        retryTransient(sql.withTransaction(Effect.zipRight(
          sql`UPDATE ${table} SET revision = revision + 1, state = NULL, request_ids = NULL
            WHERE id = ${id} AND state IS NOT NULL`,
          archive.remove(id)
        ))),
        storeError(id, "delete")
      ))
    return ConversationStore.of(checkingIds({ load, save, delete: remove, archive: archive.service }))
  })

/**
 * A store on the `SqlClient` in context (see {@link makeSql}).
 *
 * @example
 * ```ts
 * import { PgClient } from "@effect/sql-pg"
 * import { Layer, Redacted } from "effect"
 * import { ConversationStore } from "rollmem/store"
 *
 * // the store on the application's own PostgreSQL client
 * const StoreLive = ConversationStore.layerSql({ table: "chat_memory" }).pipe(
 *   Layer.provide(PgClient.layer({ url: Redacted.make("postgres://app@localhost:5432/app") }))
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSql = (options?: SqlOptions): Layer.Layer<ConversationStore, SqlError, SqlClient.SqlClient> =>
  Layer.effect(ConversationStore, makeSql(options))

/**
 * Options of {@link layerSqlite}.
 *
 * @since 0.1.0
 * @category models
 */
export interface SqliteOptions extends SqlOptions {
  /** Path of the database file, created if missing (`":memory:"` for a private in-memory database). */
  readonly filename: string
}

/**
 * A driver that cannot open what it was given (a missing directory, a
 * server that does not answer) is an `SqlError` of the layer naming it, not
 * a defect. Shared with the archive's layers (`SqlArchive.ts`).
 *
 * @internal
 */
export const openFailure = (what: string) => (cause: Cause.Cause<unknown>): Layer.Layer<unknown, SqlError> =>
  Layer.unwrapEffect(Effect.map(
    importModule("@effect/sql/SqlError"),
    ({ SqlError }) => {
      const error = Cause.squash(cause)
      if (error instanceof SqlError) return Layer.fail(error)
      const detail = error instanceof Error ? error.message : String(error)
      return Layer.fail(new SqlError({ cause: error, message: `cannot open ${what}: ${detail}` }))
    }
  ))

/**
 * {@link layerSql} over the client layer `client` builds from the driver
 * module (loaded when the layer is built); a client that cannot open `what`
 * fails the layer (see `openFailure`).
 */
const layerDriver = <Driver>(
  options: SqlOptions,
  driver: Effect.Effect<Driver>,
  what: string,
  client: (driver: Driver) => Layer.Layer<SqlClient.SqlClient, unknown>
): Layer.Layer<ConversationStore, SqlError> =>
  Layer.unwrapEffect(
    Effect.map(driver, (loaded) =>
      Layer.provide(layerSql(options), client(loaded).pipe(Layer.catchAllCause(openFailure(what)))))
  )

/**
 * A store in an SQLite database file, through `@effect/sql-sqlite-node`
 * (an optional peer dependency: `npm i @effect/sql-sqlite-node@0.53.0`). Safe
 * across processes on one host: every process may open the same file. The
 * database runs in WAL mode, which needs the file on a local disk (not a
 * network share); a writer waits up to 5 seconds for the write lock (the
 * driver's busy timeout), then the save is a {@link ConversationConflictError}
 * (re-applied by `Conversation.withMemory`).
 *
 * The driver is loaded when the layer is built, not when `rollmem/store` is
 * imported; when it is not installed, building the layer dies with an error
 * saying so. A file that cannot be opened (its directory missing, no
 * permission) fails the layer with an `SqlError` naming it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message, Summarizer } from "rollmem"
 * import { Conversation, ConversationStore } from "rollmem/store"
 *
 * const program = Conversation.withMemory("chat-42", { strategy: "buffer" }, (memory) =>
 *   memory.add(Message.user("Book me a flight to Rome"))
 * ).pipe(
 *   Effect.provide(ConversationStore.layerSqlite({ filename: "conversations.db" })), // SqlError if it cannot open
 *   Effect.provide(Summarizer.layerDrop)
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSqlite = (options: SqliteOptions): Layer.Layer<ConversationStore, SqlError> =>
  layerDriver(
    options,
    importModule("@effect/sql-sqlite-node/SqliteClient"),
    options.filename,
    (SqliteClient) => SqliteClient.layer({ filename: options.filename })
  )

/**
 * Options of {@link layerPg}.
 *
 * @since 0.1.0
 * @category models
 */
export interface PgOptions extends SqlOptions {
  /**
   * The connection URL, `postgres://user:password@host:port/database`
   * (`?options=-c%20search_path%3Dmy_schema` sets session parameters).
   */
  readonly url: string | Redacted.Redacted<string>
  /** Most connections of the pool; default 10 (node-postgres's default). */
  readonly maxConnections?: number | undefined
}

/**
 * A store in a PostgreSQL database, through `@effect/sql-pg` (an optional
 * peer dependency: `npm i @effect/sql-pg@0.53.0`). Safe for any number of
 * processes on any number of hosts: every save is one compare-and-set
 * statement (see {@link makeSql}), correct at every isolation level (a
 * serialization failure is a conflict, re-applied by
 * `Conversation.withMemory`), and the table is created race-free when many
 * replicas start at once.
 *
 * Building the layer connects (up to 5 seconds) and fails with the
 * `SqlError` when the server cannot be reached; the pool closes with the
 * layer's scope. A statement that fails later (the server gone) is a
 * {@link ConversationStoreError}; nothing acknowledged is lost by a crash of
 * the client, since each save is committed by its own statement.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { ConversationStore } from "rollmem/store"
 *
 * const StoreLive: Layer.Layer<ConversationStore.ConversationStore, unknown> = ConversationStore.layerPg({
 *   url: "postgres://app@localhost:5432/app",
 *   maxConnections: 10
 * })
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerPg = (options: PgOptions): Layer.Layer<ConversationStore, SqlError> =>
  layerDriver(
    options,
    importModule("@effect/sql-pg/PgClient"),
    "the PostgreSQL database",
    (PgClient) =>
      PgClient.layer({
        url: typeof options.url === "string" ? Redacted.make(options.url) : options.url,
        maxConnections: options.maxConnections,
        applicationName: "rollmem"
      })
  )
