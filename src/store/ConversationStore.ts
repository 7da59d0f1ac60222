/**
 * The `ConversationStore` service: one memory state per conversation id, kept
 * with a revision so that two writers cannot overwrite each other.
 *
 * A stored value is one record `{ revision, state }`:
 *
 * - `revision`: a positive integer, `1` on the first save, one more on each
 *   save after it;
 * - `state`: the memory state in the wire format of docs/contract.md section 2
 *   (`{"version": 2, "summary": ..., "buffer": [...]}`), so any strategy, and
 *   the Python package, reads it.
 *
 * The key-value layers write the record as one JSON string
 * (`{"revision":3,"state":{"version":2,...}}`) under the key
 * `prefix + id`; the SQL layers write it as one row `(id, revision, state)`
 * of the table `rollmem_conversations`, `state` holding the same JSON text.
 *
 * `save` is a compare-and-set: it writes only if the stored revision is still
 * the one the caller loaded (`0` when the conversation was not stored), and
 * otherwise fails with {@link ConversationConflictError} having written
 * nothing. Use `Conversation.withMemory` rather than calling `save` by hand:
 * it re-applies the call's turns on a conflict.
 *
 * Layers and their guarantees:
 *
 * | layer | where | safe across |
 * |---|---|---|
 * | {@link layerMemory} | process memory | fibers of one process |
 * | {@link layerKeyValueStore} | any `@effect/platform` `KeyValueStore` (files, browser storage) | fibers of one process, one layer instance |
 * | {@link layerSqlite} | an SQLite file (`@effect/sql-sqlite-node`) | processes and threads sharing the file |
 * | {@link layerSql} | an `SqlClient` you provide | as the database's single statements |
 *
 * Failure modes:
 *
 * - **Crash between load and save**: nothing is half-written. Each save is one
 *   write of one record (one SQL statement, one key), so the stored value is
 *   either the old record or the new one; the turns of the interrupted call
 *   are not stored, and its caller got no result.
 * - **Corrupt stored value** (hand-edited, truncated, written by something
 *   else): `load` fails with {@link ConversationDecodeError} naming the
 *   conversation and what is wrong; nothing is overwritten. Repair the value
 *   or `delete` the conversation.
 * - **The key-value layer across processes**: its compare-and-set is a lock
 *   held by the layer instance, so two processes (or two layer instances)
 *   writing the same conversation can overwrite each other's turns: last
 *   writer wins. The file-system store writes a file in place: no atomic
 *   rename, no fsync, so a crash during a write can leave a truncated file,
 *   read back as {@link ConversationDecodeError}. Use {@link layerSqlite}
 *   when several processes write.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message } from "rollmem"
 * import { Conversation, ConversationStore } from "rollmem/store"
 *
 * const reply = Conversation.withMemory("chat-42", { strategy: "rolling", maxTokens: 2000 }, (memory) =>
 *   Effect.gen(function*() {
 *     yield* memory.add(Message.user("Book me a flight to Rome"))
 *     return yield* memory.context
 *   })
 * ).pipe(Effect.provide(ConversationStore.layerSqlite({ filename: "conversations.db" })))
 * ```
 *
 * @since 0.1.0
 */
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as MemoryState from "../schema/MemoryState.js"
import { formatParseError } from "../schema/ParseIssue.js"

/**
 * A stored conversation: its memory state and the revision it was saved at.
 *
 * @since 0.1.0
 * @category models
 */
export interface Stored {
  /** A positive integer: `1` after the first save, one more after each save. */
  readonly revision: number
  /** The memory state (summary and buffer). */
  readonly state: MemoryState.MemoryState
}

/**
 * The revision of a conversation that is not stored. Pass it to `save` to
 * create a conversation.
 *
 * @since 0.1.0
 * @category constants
 */
export const NO_REVISION = 0

/**
 * A conversation store.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * The stored conversation, or `Option.none()` when it is not stored (absent
   * is not an error). Fails with {@link ConversationDecodeError} when the
   * stored value does not decode, {@link ConversationStoreError} when the
   * backend fails.
   */
  readonly load: (id: string) => Effect.Effect<Option.Option<Stored>, ConversationDecodeError | ConversationStoreError>
  /**
   * Writes `state` if the stored revision is still `expectedRevision`
   * ({@link NO_REVISION} when the caller found no stored conversation), and
   * returns the new revision (`expectedRevision + 1`). Otherwise fails with
   * {@link ConversationConflictError} and writes nothing. A conversation
   * deleted since it was loaded is a conflict too. Fails with
   * {@link ConversationStoreError} when the backend fails, and with
   * {@link ConversationDecodeError} when a store that must read the stored
   * record to compare revisions (the key-value layers) cannot decode it:
   * nothing is overwritten.
   */
  readonly save: (
    id: string,
    state: MemoryState.MemoryState,
    expectedRevision: number
  ) => Effect.Effect<number, ConversationConflictError | ConversationDecodeError | ConversationStoreError>
  /**
   * Removes the conversation; removing one that is not stored succeeds.
   * Fails with {@link ConversationStoreError} when the backend fails.
   */
  readonly delete: (id: string) => Effect.Effect<void, ConversationStoreError>
}

/**
 * The conversation store service. Provide one of the `layer*` layers.
 *
 * @since 0.1.0
 * @category tags
 */
export class ConversationStore extends Context.Tag("rollmem/ConversationStore")<ConversationStore, Service>() {}

/**
 * A save whose expected revision is stale: another writer saved (or deleted)
 * the conversation since it was loaded. Nothing was written.
 *
 * @since 0.1.0
 * @category errors
 */
export class ConversationConflictError extends Schema.TaggedError<ConversationConflictError>(
  "rollmem/ConversationConflictError"
)("ConversationConflictError", {
  conversationId: Schema.String,
  expectedRevision: Schema.Number
}) {
  override get message(): string {
    return `conversation ${
      JSON.stringify(this.conversationId)
    } is no longer at revision ${this.expectedRevision}: another writer saved or deleted it`
  }
}

/**
 * A stored value that does not decode: malformed JSON, a missing or
 * non-positive revision, or a state that is not in the wire format.
 * `description` names the path of what is wrong.
 *
 * @since 0.1.0
 * @category errors
 */
export class ConversationDecodeError extends Schema.TaggedError<ConversationDecodeError>(
  "rollmem/ConversationDecodeError"
)("ConversationDecodeError", {
  conversationId: Schema.String,
  description: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {
  override get message(): string {
    return `cannot read stored conversation ${JSON.stringify(this.conversationId)}: ${this.description}`
  }
}

/**
 * The storage backend failed (an I/O or SQL error); `cause` holds its error.
 *
 * @since 0.1.0
 * @category errors
 */
export class ConversationStoreError extends Schema.TaggedError<ConversationStoreError>(
  "rollmem/ConversationStoreError"
)("ConversationStoreError", {
  conversationId: Schema.String,
  operation: Schema.Literal("load", "save", "delete"),
  cause: Schema.Defect
}) {
  override get message(): string {
    const detail = this.cause instanceof Error ? `: ${this.cause.message}` : ""
    return `cannot ${this.operation} conversation ${JSON.stringify(this.conversationId)}${detail}`
  }
}

/**
 * Any error of a conversation store.
 *
 * @since 0.1.0
 * @category errors
 */
export type ConversationError = ConversationConflictError | ConversationDecodeError | ConversationStoreError

const Revision = Schema.Int.pipe(Schema.positive())

/**
 * The stored record as one JSON string, `{"revision": n, "state": <wire state>}`
 * (what the key-value layers write).
 *
 * @since 0.1.0
 * @category schemas
 */
export const StoredJson: Schema.Schema<Stored, string> = Schema.parseJson(
  Schema.Struct({ revision: Revision, state: MemoryState.MemoryStateSchema })
)

const Row = Schema.Struct({ revision: Revision, state: Schema.parseJson(MemoryState.MemoryStateSchema) })

const encodeStored = Schema.encodeSync(StoredJson)
const encodeState = Schema.encodeSync(Schema.parseJson(MemoryState.MemoryStateSchema))

const decodeWith = <I>(schema: Schema.Schema<Stored, I>) => {
  const decode = Schema.decodeUnknown(schema)
  return (id: string, input: unknown): Effect.Effect<Stored, ConversationDecodeError> =>
    Effect.mapError(
      decode(input, { errors: "all" }),
      (cause: ParseResult.ParseError) =>
        new ConversationDecodeError({ conversationId: id, description: formatParseError(cause), cause })
    )
}

const decodeStored = decodeWith(StoredJson)
const decodeRow = decodeWith(Row)

const conflict = (id: string, expectedRevision: number) =>
  new ConversationConflictError({ conversationId: id, expectedRevision })

const storeError = (id: string, operation: ConversationStoreError["operation"]) => (cause: unknown) =>
  new ConversationStoreError({ conversationId: id, operation, cause })

/**
 * Options of {@link layerKeyValueStore}.
 *
 * @since 0.1.0
 * @category models
 */
export interface KeyValueOptions {
  /** Prepended to the conversation id to form the key; default `"rollmem-conversation:"`. */
  readonly prefix?: string | undefined
}

/**
 * Builds a store on a `KeyValueStore`: each conversation is one JSON record
 * (see {@link StoredJson}) under the key `prefix + id`.
 *
 * The compare-and-set of `save` (read, compare, write) runs under a lock of
 * this store: it is safe for any number of fibers using this one store, and
 * not across processes or across two stores on the same backend (see the
 * module docs).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeKeyValueStore = (
  options?: KeyValueOptions
): Effect.Effect<Service, never, KeyValueStore.KeyValueStore> =>
  Effect.gen(function*() {
    const kv = yield* KeyValueStore.KeyValueStore
    const prefix = options?.prefix ?? "rollmem-conversation:"
    const lock = yield* Effect.makeSemaphore(1)
    const read = (id: string) =>
      Effect.flatMap(
        Effect.mapError(kv.get(prefix + id), storeError(id, "load")),
        Option.match({
          onNone: () => Effect.succeedNone,
          onSome: (json) => Effect.asSome(decodeStored(id, json))
        })
      )
    // Reads take the lock too: a file-system store truncates a file before
    // writing it, so a read beside a write could see half a record.
    const load = (id: string) => lock.withPermits(1)(read(id))
    const save = (id: string, state: MemoryState.MemoryState, expectedRevision: number) =>
      lock.withPermits(1)(Effect.gen(function*() {
        const stored = yield* Effect.mapError(kv.get(prefix + id), storeError(id, "save"))
        const current = Option.isNone(stored) ? NO_REVISION : (yield* decodeStored(id, stored.value)).revision
        if (current !== expectedRevision) return yield* conflict(id, expectedRevision)
        const revision = expectedRevision + 1
        yield* Effect.mapError(kv.set(prefix + id, encodeStored({ revision, state })), storeError(id, "save"))
        return revision
      }))
    // The file-system store fails to remove a missing file: absent is not an error.
    const remove = (id: string) =>
      lock.withPermits(1)(
        kv.remove(prefix + id).pipe(
          Effect.catchIf((error) => error._tag === "SystemError" && error.reason === "NotFound", () => Effect.void),
          Effect.mapError(storeError(id, "delete"))
        )
      )
    return ConversationStore.of({ load, save, delete: remove })
  })

/**
 * A store on the `KeyValueStore` in context (the file-system store of
 * `@effect/platform-node`, `layerStorage` for browser storage, ...). Safe
 * within one process only; see {@link makeKeyValueStore}.
 *
 * @example
 * ```ts
 * import { KeyValueStore } from "@effect/platform"
 * import { NodeContext } from "@effect/platform-node"
 * import { Layer } from "effect"
 * import { ConversationStore } from "rollmem/store"
 *
 * const StoreLive = ConversationStore.layerKeyValueStore().pipe(
 *   Layer.provide(KeyValueStore.layerFileSystem("./conversations")),
 *   Layer.provide(NodeContext.layer)
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerKeyValueStore = (
  options?: KeyValueOptions
): Layer.Layer<ConversationStore, never, KeyValueStore.KeyValueStore> =>
  Layer.effect(ConversationStore, makeKeyValueStore(options))

/**
 * A store in process memory (on `KeyValueStore.layerMemory`), empty when the
 * layer is built. For tests and single-process use; states are still written
 * in the wire format, so what works here works on the other layers.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory: Layer.Layer<ConversationStore> = Layer.provide(
  layerKeyValueStore(),
  KeyValueStore.layerMemory
)

/**
 * The default SQL table of {@link layerSql} and {@link layerSqlite}.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_TABLE = "rollmem_conversations"

/**
 * Options of {@link layerSql}.
 *
 * @since 0.1.0
 * @category models
 */
export interface SqlOptions {
  /** The table holding the conversations; default {@link DEFAULT_TABLE}. Created if missing. */
  readonly table?: string | undefined
}

const importModule = <A>(load: () => Promise<A>, what: string): Effect.Effect<A> =>
  Effect.orDie(Effect.tryPromise({
    try: load,
    catch: (cause) => new Error(`rollmem/store: ${what} is not installed (npm i ${what})`, { cause })
  }))

/**
 * Builds a store on the `SqlClient` in context. Creates the table
 * `(id TEXT PRIMARY KEY, revision INTEGER, state TEXT)` if it is missing;
 * fails with the `SqlError` when it cannot.
 *
 * Each operation is one statement. `save` is a compare-and-set in one
 * statement (`INSERT ... ON CONFLICT DO NOTHING RETURNING` to create,
 * `UPDATE ... WHERE revision = ? RETURNING` to replace), so it is atomic
 * for every connection and process sharing the database. Written and tested
 * for SQLite (3.35 or later, for `RETURNING`).
 *
 * `@effect/sql` is loaded when the store is built, not when this module is
 * imported.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeSql = (
  options?: SqlOptions
): Effect.Effect<Service, SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const { SqlClient } = yield* importModule(() => import("@effect/sql/SqlClient"), "@effect/sql")
    const sql = yield* SqlClient
    const table = sql(options?.table ?? DEFAULT_TABLE)
    yield* sql`CREATE TABLE IF NOT EXISTS ${table} (
      id TEXT PRIMARY KEY NOT NULL,
      revision INTEGER NOT NULL,
      state TEXT NOT NULL
    )`
    const load = (id: string) =>
      Effect.flatMap(
        Effect.mapError(sql`SELECT revision, state FROM ${table} WHERE id = ${id}`, storeError(id, "load")),
        (rows) => rows.length === 0 ? Effect.succeedNone : Effect.asSome(decodeRow(id, rows[0]))
      )
    const save = (id: string, state: MemoryState.MemoryState, expectedRevision: number) => {
      const json = encodeState(state)
      const revision = expectedRevision + 1
      const statement = expectedRevision === NO_REVISION
        ? sql`INSERT INTO ${table} (id, revision, state) VALUES (${id}, ${revision}, ${json})
            ON CONFLICT (id) DO NOTHING RETURNING revision`
        : sql`UPDATE ${table} SET revision = ${revision}, state = ${json}
            WHERE id = ${id} AND revision = ${expectedRevision} RETURNING revision`
      return Effect.flatMap(
        Effect.mapError(statement, storeError(id, "save")),
        (rows) => rows.length === 0 ? Effect.fail(conflict(id, expectedRevision)) : Effect.succeed(revision)
      )
    }
    const remove = (id: string) =>
      Effect.asVoid(Effect.mapError(sql`DELETE FROM ${table} WHERE id = ${id}`, storeError(id, "delete")))
    return ConversationStore.of({ load, save, delete: remove })
  })

/**
 * A store on the `SqlClient` in context (see {@link makeSql}).
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
 * A store in an SQLite database file, through `@effect/sql-sqlite-node`
 * (an optional peer dependency: `npm i @effect/sql-sqlite-node`). Safe
 * across processes: every process may open the same file. The database runs
 * in WAL mode, which needs the file on a local disk (not a network share); a
 * writer waits up to 5 seconds for the write lock (the driver's busy timeout)
 * before the save fails with {@link ConversationStoreError}.
 *
 * The driver is loaded when the layer is built, not when `rollmem/store` is
 * imported; when it is not installed, building the layer dies with an error
 * saying so. A file that cannot be opened is a defect of the driver.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSqlite = (options: SqliteOptions): Layer.Layer<ConversationStore, SqlError> =>
  Layer.unwrapEffect(
    Effect.map(
      importModule(() => import("@effect/sql-sqlite-node/SqliteClient"), "@effect/sql-sqlite-node"),
      (SqliteClient) =>
        Layer.provide(
          layerSql(options),
          Layer.orDie(SqliteClient.layer({ filename: options.filename }))
        )
    )
  )
