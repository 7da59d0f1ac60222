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
 * `prefix + id`; the SQL layers write it as one row `(id, revision, state,
 * request_ids)` of the table `rollmem_conversations`, `state` holding the
 * same JSON text. A save may store request ids beside the state
 * ({@link SaveOptions}), in the same compare-and-set: what lets a writer
 * apply a redelivered request once.
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
import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { ConfigError } from "../Errors.js"
import { withCreationLock } from "../internal/creationLock.js"
import { describeParseError } from "../schema/Json.js"
import * as MemoryState from "../schema/MemoryState.js"

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
  /**
   * The ids of the requests applied to this state, oldest first, as the
   * last save wrote them (its {@link SaveOptions.requestIds}); absent when
   * that save gave none. A writer that applies each request once (the
   * conversation entity of `rollmem/cluster`) writes them in the same
   * compare-and-set as the state and skips a request whose id is listed.
   */
  readonly requestIds?: ReadonlyArray<string> | undefined
}

/**
 * Options of a save, beside the state.
 *
 * @since 0.3.0
 * @category models
 */
export interface SaveOptions {
  /**
   * Request ids to store with the state, in the same compare-and-set (one
   * record, one statement, one script): a later load returns them as
   * {@link Stored.requestIds}. Default: none (a save without them removes
   * those of the previous save). The state's wire format is unchanged: the
   * ids sit beside it (a `requestIds` key of the key-value record, a
   * `request_ids` column of the SQL row, a `requestIds` field of the Redis
   * hash).
   */
  readonly requestIds?: ReadonlyArray<string> | undefined
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
   * nothing is overwritten. `options.requestIds` are written with the
   * state, in the same compare-and-set ({@link SaveOptions}).
   */
  readonly save: (
    id: string,
    state: MemoryState.MemoryState,
    expectedRevision: number,
    options?: SaveOptions
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
  /**
   * The error for a stored record of conversation `conversationId` that did
   * not decode: `input` is what was decoded (the stored JSON text or row),
   * `error` the Schema's. The description names the wrong paths, bounded as
   * `Json.describeParseError` bounds every decoder's (a huge wrong value cut
   * to 80 characters, at most 2,000 characters in all).
   *
   * @since 0.2.0
   */
  static fromParseError({ conversationId, error, input }: {
    readonly conversationId: string
    readonly error: ParseResult.ParseError
    readonly input: unknown
  }): ConversationDecodeError {
    return new ConversationDecodeError({
      conversationId,
      // A record holds its state's messages at state.buffer[i].
      ...describeParseError(error, input, { messageLevel: 4, name: "record" })
    })
  }

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
  operation: Schema.Literal("open", "load", "save", "delete"),
  cause: Schema.Defect
}) {
  override get message(): string {
    const detail = this.cause instanceof Error ? `: ${this.cause.message}` : ""
    if (this.operation === "open") return `cannot open the conversation store${detail}`
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
 * (what the key-value layers write for a stored conversation).
 *
 * @since 0.1.0
 * @category schemas
 */
export const StoredJson: Schema.Schema<Stored, string> = Schema.parseJson(
  Schema.Struct({
    revision: Revision,
    state: MemoryState.MemoryStateSchema,
    requestIds: Schema.optional(Schema.Array(Schema.String))
  })
)

/**
 * A record as the layers keep it: a stored conversation, or the tombstone of
 * a deleted one (`state` null), which keeps its last revision so that a
 * revision is never used twice for one id.
 */
interface Record {
  readonly revision: number
  readonly state: MemoryState.MemoryState | null
  readonly requestIds?: ReadonlyArray<string> | undefined
}

const RequestIds = Schema.Array(Schema.String)

const RecordJson: Schema.Schema<Record, string> = Schema.parseJson(
  Schema.Struct({
    revision: Revision,
    state: Schema.NullOr(MemoryState.MemoryStateSchema),
    requestIds: Schema.optional(RequestIds)
  })
)

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

const encodeRecord = Schema.encodeSync(RecordJson)
const encodeState = Schema.encodeSync(Schema.parseJson(MemoryState.MemoryStateSchema))
const encodeRequestIds = (options: SaveOptions | undefined): string | null =>
  options?.requestIds === undefined ? null : JSON.stringify(options.requestIds)

const decodeWith = <I>(schema: Schema.Schema<Record, I>) => {
  const decode = Schema.decodeUnknown(schema)
  return (id: string, input: unknown): Effect.Effect<Record, ConversationDecodeError> =>
    Effect.mapError(
      decode(input, { errors: "all" }),
      (error) => ConversationDecodeError.fromParseError({ conversationId: id, error, input })
    )
}

const decodeRecord = decodeWith(RecordJson)
const decodeRow = decodeWith(Row)

/** A stored conversation, or none for a tombstone. */
const live = (record: Record): Option.Option<Stored> =>
  record.state === null
    ? Option.none()
    : Option.some(
      record.requestIds === undefined
        ? { revision: record.revision, state: record.state }
        : { revision: record.revision, state: record.state, requestIds: record.requestIds }
    )

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

const DEFAULT_PREFIX = "rollmem-conversation:"

/**
 * Builds a store on a `KeyValueStore`: each conversation is one JSON record
 * (see {@link StoredJson}) under the key `prefix + id`; a deleted
 * conversation leaves `{"revision": n, "state": null}` (its tombstone).
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
  Effect.flatMap(KeyValueStoreTag, (kv) => makeOn(kv, options))

// @effect/platform's own tag, by its key, so that importing this module does
// not load @effect/platform (an optional peer dependency).
const KeyValueStoreTag = Context.GenericTag<KeyValueStore.KeyValueStore>("@effect/platform/KeyValueStore")

/** What a store needs of a `KeyValueStore`. */
type KeyValues = Pick<KeyValueStore.KeyValueStore, "get" | "set" | "remove">

const makeOn = (kv: KeyValues, options: KeyValueOptions | undefined): Effect.Effect<Service> =>
  Effect.gen(function*() {
    const prefix = options?.prefix ?? DEFAULT_PREFIX
    const lock = yield* Effect.makeSemaphore(1)
    const read = (id: string, operation: ConversationStoreError["operation"]) =>
      Effect.flatMap(
        Effect.mapError(kv.get(prefix + id), storeError(id, operation)),
        Option.match({
          onNone: () => Effect.succeedNone,
          onSome: (json) => Effect.asSome(decodeRecord(id, json))
        })
      )
    // Reads take the lock too: a file-system store truncates a file before
    // writing it, so a read beside a write could see half a record.
    const load = (id: string) => lock.withPermits(1)(Effect.map(read(id, "load"), Option.flatMap(live)))
    const save = (
      id: string,
      state: MemoryState.MemoryState,
      expectedRevision: number,
      options?: SaveOptions
    ) =>
      lock.withPermits(1)(Effect.gen(function*() {
        const stored = yield* read(id, "save")
        const revision = nextRevision(stored, expectedRevision)
        if (revision === undefined) return yield* conflict(id, expectedRevision)
        const record: Record = options?.requestIds === undefined
          ? { revision, state }
          : { revision, state, requestIds: options.requestIds }
        yield* Effect.mapError(kv.set(prefix + id, encodeRecord(record)), storeError(id, "save"))
        return revision
      }))
    // A record that does not decode is removed as it is: nothing to keep a revision of.
    const remove = (id: string) =>
      lock.withPermits(1)(Effect.gen(function*() {
        const stored = yield* Effect.option(read(id, "delete"))
        if (Option.isSome(stored) && Option.isSome(stored.value)) {
          const record = stored.value.value
          if (record.state === null) return
          const tombstone = encodeRecord({ revision: record.revision + 1, state: null })
          return yield* Effect.mapError(kv.set(prefix + id, tombstone), storeError(id, "delete"))
        }
        // The file-system store fails to remove a missing file: absent is not an error.
        yield* kv.remove(prefix + id).pipe(
          Effect.catchIf((error) => error._tag === "SystemError" && error.reason === "NotFound", () => Effect.void),
          Effect.mapError(storeError(id, "delete"))
        )
      }))
    return ConversationStore.of({ load, save, delete: remove })
  })

/**
 * The revision a save expecting `expectedRevision` writes, or `undefined`
 * when the save is a conflict: a first save ({@link NO_REVISION}) needs no
 * stored conversation and continues after a tombstone's revision; any other
 * save needs the stored conversation at `expectedRevision`.
 */
const nextRevision = (stored: Option.Option<Record>, expectedRevision: number): number | undefined => {
  if (Option.isNone(stored)) return expectedRevision === NO_REVISION ? 1 : undefined
  const { revision, state } = stored.value
  if (expectedRevision === NO_REVISION) return state === null ? revision + 1 : undefined
  return state !== null && revision === expectedRevision ? revision + 1 : undefined
}

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
 * A store in process memory (a `Map` of keys to JSON records, as
 * `KeyValueStore.layerMemory` keeps them), empty when the layer is built.
 * For tests and single-process use; states are still written in the wire
 * format, so what works here works on the other layers. Needs no
 * `@effect/platform`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory: Layer.Layer<ConversationStore> = Layer.effect(
  ConversationStore,
  Effect.suspend(() => {
    const records = new Map<string, string>()
    return makeOn({
      get: (key) => Effect.sync(() => Option.fromNullable(records.get(key))),
      set: (key, value) => Effect.sync(() => void records.set(key, String(value))),
      remove: (key) => Effect.sync(() => void records.delete(key))
    }, undefined)
  })
)

/**
 * The default SQL table of {@link layerSql}, {@link layerSqlite} and
 * {@link layerPg}.
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
  /**
   * The table holding the conversations; default {@link DEFAULT_TABLE}.
   * Created if missing; `schema.table` names a table of another schema
   * (PostgreSQL) or attached database (SQLite).
   */
  readonly table?: string | undefined
}

/**
 * The versions of the optional peers a store loads, as the hint of a
 * missing one pins them (a bare `npm i @effect/sql-pg` would pull the
 * Effect 4 line, which needs another `effect`).
 */
const PEERS = {
  "@effect/sql": "@effect/sql@0.52.1",
  "@effect/sql-sqlite-node": "@effect/sql-sqlite-node@0.53.0",
  "@effect/sql-pg": "@effect/sql-pg@0.53.0",
  "ioredis": "ioredis@5.9.2"
} as const

const importModule = <A>(load: () => Promise<A>, what: keyof typeof PEERS): Effect.Effect<A> =>
  Effect.orDie(Effect.tryPromise({
    try: load,
    catch: (cause) => new Error(`rollmem/store: ${what} is not installed (npm i ${PEERS[what]})`, { cause })
  }))

/** The driver's error code (a PostgreSQL SQLSTATE, an SQLite result code) behind a `SqlError`. */
const sqlStateOf = (error: SqlError): unknown =>
  typeof error.cause === "object" && error.cause !== null
    ? (error.cause as { readonly code?: unknown }).code
    : undefined

/**
 * Whether a database error is the losing side of a race rather than a
 * failure: PostgreSQL's serialization failure (SQLSTATE 40001, under
 * REPEATABLE READ or SERIALIZABLE) and deadlock (40P01), SQLite's busy and
 * locked results (the write lock still held by another connection when the
 * busy timeout ran out, or a snapshot gone stale).
 *
 * @since 0.1.0
 * @category guards
 */
export const isTransientSqlError = (error: SqlError): boolean => {
  const code = sqlStateOf(error)
  return typeof code === "string" &&
    (code === "40001" || code === "40P01" || code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"))
}

const TRANSIENT_RETRIES = 5

/**
 * What table creation retries: a transient error, or the table or its row type reported as existing
 * (SQLSTATE 42P07, 23505: the catalog race of `CREATE TABLE IF NOT EXISTS` run at once). A new
 * attempt, with a new snapshot, succeeds.
 */
const isCreationRace = (error: SqlError): boolean => {
  if (isTransientSqlError(error)) return true
  const code = sqlStateOf(error)
  return code === "42P07" || code === "23505"
}

/** Retries a read or a delete that lost a race (bounded); a save reports it as a conflict instead. */
const retryTransient = <A, R>(effect: Effect.Effect<A, SqlError, R>): Effect.Effect<A, SqlError, R> =>
  Effect.retry(effect, { times: TRANSIENT_RETRIES, while: isTransientSqlError })

/** The table's name as PostgreSQL's `regclass` reads it: each dotted part quoted. */
const quotedName = (name: string): string => name.split(".").map((part) => `"${part.replace(/"/g, "\"\"")}"`).join(".")

/**
 * Creates the table if missing and migrates one of an earlier layout, in a
 * way that any number of processes may run at once:
 *
 * - PostgreSQL: in one transaction holding an advisory lock on the table's
 *   name (`CREATE TABLE IF NOT EXISTS` alone races on the catalog when many
 *   replicas start at once);
 * - SQLite: `CREATE TABLE IF NOT EXISTS` is atomic; the migration runs in a
 *   transaction, retried when another process wins the write lock.
 *
 * Migration: the first layout had `state NOT NULL` and no tombstones; the
 * column becomes nullable (PostgreSQL: `ALTER COLUMN`; SQLite: the table is
 * rebuilt with the same rows). A table without the nullable `request_ids`
 * column (layouts before 0.3.0) gets it (`ADD COLUMN`; its rows read as
 * saved without request ids). Reading the columns by name leaves room for
 * more columns.
 */
const ensureTable = (sql: SqlClient.SqlClient, name: string): Effect.Effect<void, SqlError> => {
  const table = sql(name)
  const create = sql`CREATE TABLE IF NOT EXISTS ${table} (
    id TEXT PRIMARY KEY NOT NULL,
    revision INTEGER NOT NULL,
    state TEXT,
    request_ids TEXT
  )`
  return sql.onDialectOrElse({
    // One replica at a time, each seeing the table the one before it created (internal/creationLock.ts).
    // A lost race left anyway is retried; bounded.
    pg: () =>
      Effect.retry(
        withCreationLock(
          sql,
          name,
          Effect.gen(function*() {
            yield* create
            const rows = yield* sql<{ readonly name: string; readonly notnull: boolean }>`SELECT attname AS name,
          attnotnull AS notnull FROM pg_attribute
          WHERE attrelid = ${quotedName(name)}::regclass AND attname IN ('state', 'request_ids') AND NOT attisdropped`
            if (rows.find((r) => r.name === "state")?.notnull === true) {
              yield* sql`ALTER TABLE ${table} ALTER COLUMN state DROP NOT NULL`
            }
            // Only when missing: ALTER TABLE takes the table's strongest lock even when it changes nothing.
            if (!rows.some((r) => r.name === "request_ids")) {
              yield* sql`ALTER TABLE ${table} ADD COLUMN request_ids TEXT`
            }
          })
        ),
        { times: TRANSIENT_RETRIES, while: isCreationRace }
      ),
    sqlite: () =>
      Effect.zipRight(
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
    orElse: () => create
  })
}

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
 * @since 0.1.0
 * @category constructors
 */
export const makeSql = (
  options?: SqlOptions
): Effect.Effect<Service, SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const { SqlClient } = yield* importModule(() => import("@effect/sql/SqlClient"), "@effect/sql")
    const sql = yield* SqlClient
    const name = options?.table ?? DEFAULT_TABLE
    const table = sql(name)
    yield* ensureTable(sql, name)
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
      return statement.pipe(
        Effect.catchIf(isTransientSqlError, () => Effect.succeed([])),
        Effect.mapError(storeError(id, "save")),
        Effect.flatMap((rows) =>
          rows.length === 0 ? Effect.fail(conflict(id, expectedRevision)) : Effect.succeed(Number(rows[0].revision))
        )
      )
    }
    const remove = (id: string) =>
      Effect.asVoid(Effect.mapError(
        retryTransient(
          sql`UPDATE ${table} SET revision = revision + 1, state = NULL, request_ids = NULL
            WHERE id = ${id} AND state IS NOT NULL`
        ),
        storeError(id, "delete")
      ))
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
 * A driver that cannot open what it was given (a missing directory, a
 * server that does not answer) is an `SqlError` of the layer naming it, not
 * a defect.
 */
const openFailure = (what: string) => (cause: Cause.Cause<unknown>): Layer.Layer<unknown, SqlError> =>
  Layer.unwrapEffect(Effect.map(
    importModule(() => import("@effect/sql/SqlError"), "@effect/sql"),
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
 * @since 0.1.0
 * @category layers
 */
export const layerSqlite = (options: SqliteOptions): Layer.Layer<ConversationStore, SqlError> =>
  layerDriver(
    options,
    importModule(() => import("@effect/sql-sqlite-node/SqliteClient"), "@effect/sql-sqlite-node"),
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
 * @since 0.1.0
 * @category layers
 */
export const layerPg = (options: PgOptions): Layer.Layer<ConversationStore, SqlError> =>
  layerDriver(
    options,
    importModule(() => import("@effect/sql-pg/PgClient"), "@effect/sql-pg"),
    "the PostgreSQL database",
    (PgClient) =>
      PgClient.layer({
        url: typeof options.url === "string" ? Redacted.make(options.url) : options.url,
        maxConnections: options.maxConnections,
        applicationName: "rollmem"
      })
  )

/**
 * Options of {@link layerRedis}.
 *
 * @since 0.1.0
 * @category models
 */
export interface RedisOptions {
  /** The server, `redis://[user:password@]host:port[/db]` (`rediss://` for TLS); default `redis://127.0.0.1:6379`. */
  readonly url?: string | Redacted.Redacted<string> | undefined
  /** Prepended to the conversation id to form the key; default `"rollmem-conversation:"`. */
  readonly prefix?: string | undefined
}

// KEYS[1]: the conversation's hash; ARGV[1]: the expected revision; ARGV[2]: the state's JSON;
// ARGV[3]: the request ids' JSON, or "" for none.
// Returns the new revision, or 0 for a conflict. See nextRevision for the rule.
const SAVE_SCRIPT = `
local stored = redis.call('HMGET', KEYS[1], 'revision', 'state')
local revision = tonumber(stored[1]) or 0
local live = stored[2] ~= false
local expected = tonumber(ARGV[1])
if expected == 0 then
  if live then return 0 end
elseif (not live) or revision ~= expected then
  return 0
end
redis.call('HSET', KEYS[1], 'revision', revision + 1, 'state', ARGV[2])
if ARGV[3] == '' then
  redis.call('HDEL', KEYS[1], 'requestIds')
else
  redis.call('HSET', KEYS[1], 'requestIds', ARGV[3])
end
return revision + 1
`

// KEYS[1]: the conversation's hash. Leaves a tombstone: the revision, one more, and no state.
const DELETE_SCRIPT = `
if redis.call('HEXISTS', KEYS[1], 'state') == 1 then
  redis.call('HINCRBY', KEYS[1], 'revision', 1)
  redis.call('HDEL', KEYS[1], 'state', 'requestIds')
end
return 0
`

const RedisRow = Schema.transform(
  Schema.Struct({
    revision: Schema.compose(Schema.NumberFromString, Revision),
    state: Schema.NullOr(Schema.parseJson(MemoryState.MemoryStateSchema)),
    requestIds: Schema.NullOr(Schema.parseJson(RequestIds))
  }),
  Schema.typeSchema(Schema.Struct({
    revision: Revision,
    state: Schema.NullOr(MemoryState.MemoryStateSchema),
    requestIds: Schema.optional(RequestIds)
  })),
  {
    strict: true,
    decode: ({ requestIds, ...rest }) => requestIds === null ? rest : { ...rest, requestIds },
    encode: ({ requestIds, ...rest }) => ({ ...rest, requestIds: requestIds ?? null })
  }
)

interface RedisCommands {
  readonly rollmemSave: (key: string, expected: number, state: string, requestIds: string) => Promise<number>
  readonly rollmemDelete: (key: string) => Promise<number>
  readonly hmget: (key: string, ...fields: Array<string>) => Promise<Array<string | null>>
}

/**
 * A store in Redis (5 or later, or a compatible server), through `ioredis`
 * (an optional peer dependency: `npm i ioredis@5.9.2`). Each conversation is one
 * hash under `prefix + id` with the fields `revision` and `state` (the
 * wire-format JSON), and `requestIds` when the save gave some; a deleted
 * conversation keeps `revision` alone (its tombstone). A save is one Lua script, atomic on the server: it compares
 * the stored revision with the expected one and writes revision and state
 * together, or writes nothing (a {@link ConversationConflictError}). Safe for
 * any number of processes on any number of hosts, and on Redis Cluster (one
 * key per script).
 *
 * Durability is the server's: with `appendonly yes` and `appendfsync
 * always` an acknowledged save survives a server crash; with the default
 * `everysec` up to a second of saves can be lost, without persistence
 * everything is lost on restart, and a failover to a replica can lose saves
 * the primary had acknowledged (replication is asynchronous). A
 * `maxmemory-policy` that evicts keys can drop conversations: use
 * `noeviction`.
 *
 * Building the layer connects and fails with {@link ConversationStoreError}
 * (operation `"open"`) when the server cannot be reached; the connection
 * closes with the layer's scope. A command during an outage waits while
 * ioredis reconnects, then fails with {@link ConversationStoreError}.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerRedis = (options?: RedisOptions): Layer.Layer<ConversationStore, ConversationStoreError> =>
  Layer.scoped(
    ConversationStore,
    Effect.gen(function*() {
      const { Redis } = yield* importModule(() => import("ioredis"), "ioredis")
      const url = options?.url === undefined
        ? "redis://127.0.0.1:6379"
        : typeof options.url === "string"
        ? options.url
        : Redacted.value(options.url)
      const prefix = options?.prefix ?? DEFAULT_PREFIX
      const client = yield* Effect.acquireRelease(
        Effect.tryPromise({
          try: async () => {
            const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 5 })
            // Without a listener ioredis prints every connection error to stderr; keep the last one for the failure.
            let lastError: unknown
            client.on("error", (error) => (lastError = error))
            try {
              await client.connect()
            } catch (cause) {
              client.disconnect()
              throw lastError ?? cause
            }
            client.defineCommand("rollmemSave", { numberOfKeys: 1, lua: SAVE_SCRIPT })
            client.defineCommand("rollmemDelete", { numberOfKeys: 1, lua: DELETE_SCRIPT })
            return client
          },
          catch: storeError("", "open")
        }),
        (client) =>
          Effect.promise(() => client.quit().catch(() => "")).pipe(
            Effect.timeoutOption("1 second"),
            Effect.ensuring(Effect.sync(() => client.disconnect()))
          )
      )
      const commands = client as unknown as RedisCommands
      const decode = decodeWith(RedisRow)
      const load = (id: string) =>
        Effect.flatMap(
          Effect.tryPromise({
            try: () => commands.hmget(prefix + id, "revision", "state", "requestIds"),
            catch: storeError(id, "load")
          }),
          ([revision, state, requestIds]) =>
            revision === null && state === null
              ? Effect.succeedNone
              : Effect.map(decode(id, { revision, state, requestIds }), live)
        )
      const save = (id: string, state: MemoryState.MemoryState, expectedRevision: number, options?: SaveOptions) =>
        Effect.flatMap(
          Effect.tryPromise({
            try: () =>
              commands.rollmemSave(prefix + id, expectedRevision, encodeState(state), encodeRequestIds(options) ?? ""),
            catch: storeError(id, "save")
          }),
          (revision) => revision === 0 ? Effect.fail(conflict(id, expectedRevision)) : Effect.succeed(revision)
        )
      const remove = (id: string) =>
        Effect.asVoid(
          Effect.tryPromise({ try: () => commands.rollmemDelete(prefix + id), catch: storeError(id, "delete") })
        )
      return ConversationStore.of({ load, save, delete: remove })
    })
  )

/**
 * Where conversations are stored, as one string names it (the Promise
 * facade's `store` option, the command line's `--store`):
 *
 * - `"memory"`: {@link layerMemory};
 * - `"sqlite:PATH"`: {@link layerSqlite} on the file `PATH`;
 * - `"postgres://…"` or `"postgresql://…"`: {@link layerPg} on that URL;
 * - `"redis://…"` or `"rediss://…"`: {@link layerRedis} on that URL.
 *
 * @since 0.2.0
 * @category models
 */
export type Location =
  | { readonly _tag: "Memory" }
  | { readonly _tag: "Sqlite"; readonly filename: string }
  | { readonly _tag: "Postgres"; readonly url: string }
  | { readonly _tag: "Redis"; readonly url: string }

const URL_SCHEMES: ReadonlyArray<readonly [string, "Postgres" | "Redis"]> = [
  ["postgres://", "Postgres"],
  ["postgresql://", "Postgres"],
  ["redis://", "Redis"],
  ["rediss://", "Redis"]
]

/**
 * Reads a {@link Location} from its string. Fails with `ConfigError`
 * (option `option`) for anything else: a bare word (`"redis"`), an empty
 * path, a URL that does not parse; and for `"memory"` when `allowMemory` is
 * false (a command whose process ends would lose it).
 *
 * @since 0.2.0
 * @category constructors
 */
export const parseLocation = (
  text: string,
  option: string,
  allowMemory = true
): Either.Either<Location, ConfigError> => {
  const refuse = (why: string) => Either.left(new ConfigError({ option, description: why }))
  const EXPECTED = `expected ${allowMemory ? "\"memory\", " : ""}sqlite:<path>, postgres://… or redis://…`
  if (text === "memory" && allowMemory) return Either.right({ _tag: "Memory" })
  if (text.startsWith("sqlite:")) {
    const filename = text.slice("sqlite:".length)
    return filename === ""
      ? refuse(`${EXPECTED}, got "sqlite:" with no path`)
      : Either.right({ _tag: "Sqlite", filename })
  }
  const scheme = URL_SCHEMES.find(([prefix]) => text.startsWith(prefix))
  if (scheme === undefined) return refuse(`${EXPECTED}, got ${JSON.stringify(text.slice(0, 200))}`)
  if (!URL.canParse(text) || new URL(text).host === "") {
    return refuse(`${JSON.stringify(redact(text))} is not a URL with a host (${scheme[0]}host:port/…)`)
  }
  return Either.right({ _tag: scheme[1], url: text })
}

/** A URL with its password replaced by `***`, for messages. */
const redact = (text: string): string => {
  if (!URL.canParse(text)) return text.replace(/:[^:@/]*@/, ":***@")
  const url = new URL(text)
  if (url.password !== "") url.password = "***"
  return url.toString()
}

/**
 * A location as messages name it: `sqlite:PATH`, or the URL with its
 * password replaced by `***`.
 *
 * @since 0.2.0
 * @category combinators
 */
export const describeLocation = (location: Location): string => {
  switch (location._tag) {
    case "Memory":
      return "memory"
    case "Sqlite":
      return `sqlite:${location.filename}`
    case "Postgres":
    case "Redis":
      return redact(location.url)
  }
}

/**
 * The store layer of a {@link Location}, with the layer's own defaults
 * (table `rollmem_conversations`, key prefix `rollmem-conversation:`).
 * Fails as that layer does: `SqlError` (SQLite, PostgreSQL),
 * {@link ConversationStoreError} (Redis).
 *
 * @since 0.2.0
 * @category layers
 */
export const layerLocation = (
  location: Location
): Layer.Layer<ConversationStore, SqlError | ConversationStoreError> => {
  switch (location._tag) {
    case "Memory":
      return layerMemory
    case "Sqlite":
      return layerSqlite({ filename: location.filename })
    case "Postgres":
      return layerPg({ url: location.url })
    case "Redis":
      return layerRedis({ url: location.url })
  }
}
