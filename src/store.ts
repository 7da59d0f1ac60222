/**
 * rollmem/store: conversations kept in a store (process memory, any
 * `@effect/platform` `KeyValueStore`, SQLite), safe against concurrent
 * writers.
 *
 * `ConversationStore` is the service and its layers; `Conversation.withMemory`
 * loads a conversation's memory, runs your effect on it and saves, re-applying
 * your turns when another writer saved first. The SQLite driver is loaded
 * only when its layer is built.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Conversation from "./store/Conversation.js"
/** @since 0.1.0 */
export * as ConversationStore from "./store/ConversationStore.js"
/** @since 0.4.0 */
export * as SqlArchive from "./store/backends/SqlArchive.js"
/** @since 0.1.0 */
export {
  ConversationConflictError,
  ConversationDecodeError,
  ConversationStoreError
} from "./store/ConversationStore.js"
