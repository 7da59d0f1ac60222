/**
 * The `ConversationStore` service on the Effect 4 line and its layers: one
 * memory state per conversation id, kept with a revision so that two writers
 * cannot overwrite each other (docs/contract.md section 12). A stored value
 * is the Effect 3 line's record, `{"revision":3,"state":{"version":2,...}}`,
 * so a store written by one line is read by the other.
 *
 * | layer | where | safe across |
 * |---|---|---|
 * | {@link layerMemory} | process memory | fibers of one process |
 * | {@link layerKeyValueStore} | any `KeyValueStore` of `effect/persistence` | fibers of one process, one layer instance |
 * | {@link layerSqlite} | an SQLite file (Node's `node:sqlite`) | processes sharing the file |
 * | {@link layerPg} | PostgreSQL (`@effect/sql-pg` 4) | any number of processes and hosts |
 * | {@link layerSql} | an `SqlClient` of `effect/sql` you provide | as the database's single statements |
 * | {@link layerRedis} | Redis (`ioredis`) | any number of processes and hosts |
 *
 * The SQL layers write the Effect 3 line's table and rows (`rollmem_conversations`:
 * `id`, `revision`, `state`, `request_ids`) and keep its archive beside them
 * (`rollmem_archive`), so both lines may share one database; the Redis layer
 * writes its hashes (`prefix + id`: `revision`, `state`, `requestIds`, the
 * archive's `archive:<position>` fields), so both lines may share one server;
 * the memory and key-value layers write its records and archive log
 * (`rollmem-archive:<prefix><id>#<n>`), so a `KeyValueStore` moves between
 * the lines.
 *
 * @since 1.0.0
 */
export { type KeyValueOptions, layerKeyValueStore, makeKeyValueStore } from "./backends/KeyValue.js"
export { layerMemory } from "./backends/Memory.js"
export { layerRedis, type RedisOptions } from "./backends/Redis.js"
export {
  DEFAULT_TABLE,
  isTransientSqlError,
  layerPg,
  layerSql,
  makeSql,
  type PgOptions,
  type SqlOptions
} from "./backends/Sql.js"
export { layerSqlite, type SqliteOptions } from "./backends/Sqlite.js"
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
  type Stored
} from "./Service.js"
