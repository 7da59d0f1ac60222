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
 * The service and its errors are in `Service.ts`, each backend in its own
 * module (`backends/Memory.ts`, `backends/KeyValue.ts`, `backends/Sql.ts`,
 * `backends/Redis.ts`), `Location` in `Location.ts`: this module gathers
 * them under one name.
 *
 * @since 0.1.0
 */
export { type KeyValueOptions, layerKeyValueStore, makeKeyValueStore } from "./backends/KeyValue.js"
export { layerMemory } from "./backends/Memory.js"
export { layerRedis, type RedisOptions } from "./backends/Redis.js"
export {
  DEFAULT_TABLE,
  layerPg,
  layerSql,
  layerSqlite,
  makeSql,
  type PgOptions,
  type SqliteOptions,
  type SqlOptions
} from "./backends/Sql.js"
export { isTransientSqlError } from "./backends/SqlErrors.js"
export { describeLocation, layerLocation, type Location, parseLocation, type StoreNames } from "./Location.js"
export {
  ConversationConflictError,
  ConversationDecodeError,
  type ConversationError,
  ConversationStore,
  ConversationStoreError,
  NO_REVISION,
  type SaveOptions,
  type Service,
  type Stored,
  StoredJson
} from "./Service.js"
