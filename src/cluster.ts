/**
 * `rollmem/cluster`: conversations as `@effect/cluster` entities, for many
 * hosts writing the same hot conversations without conflicts.
 *
 * - `ConversationEntity`: the entity (one per conversation id) and its RPCs
 *   `Apply`, `Read`, `Delete`; `ConversationEntity.layer` serves it.
 * - `ConversationCluster`: one layer per process, `layerRunner` (owns and
 *   applies) or `layerClient` (sends only), each providing what
 *   `Conversation.withMemory` needs.
 *
 * Optional peers, loaded only from this entry: `@effect/cluster`,
 * `@effect/rpc`, `@effect/workflow`, `@effect/platform`,
 * `@effect/platform-node`, `@effect/sql`, `@effect/sql-pg`.
 *
 * @since 0.3.0
 */

/** @since 0.3.0 */
export * as ConversationCluster from "./cluster/ConversationCluster.js"
/** @since 0.3.0 */
export * as ConversationEntity from "./cluster/ConversationEntity.js"
