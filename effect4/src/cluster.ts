/**
 * `rollmem/cluster` on Effect 4: conversations as entities of `effect/cluster`
 * (inside `effect` 4), for many hosts writing the same hot conversations
 * without conflicts; the Effect 3 line's entry, with the same entity type,
 * messages, tables and records.
 *
 * - `ConversationEntity`: the entity (one per conversation id) and its RPCs
 *   `Apply`, `Read`, `Delete`; `ConversationEntity.layer` serves it.
 * - `ConversationCluster`: one layer per process, `layerRunner` (owns and
 *   applies) or `layerClient` (sends only), each providing what
 *   `Conversation.withMemory` needs.
 *
 * Optional peers, imported by this entry only: `@effect/platform-node` 4 and
 * `@effect/sql-pg` 4.
 *
 * @since 1.0.0
 */

/** One layer per process: runner, client, writer, the `shardsPerGroup` check. @since 1.0.0 */
export * as ConversationCluster from "./cluster/ConversationCluster.js"
/** The conversation entity and its RPCs. @since 1.0.0 */
export * as ConversationEntity from "./cluster/ConversationEntity.js"
