/**
 * rollmem/store on Effect 4: conversations kept in a store (process memory,
 * any `KeyValueStore` of `effect/persistence`), safe against concurrent
 * writers. `ConversationStore` is the service and its layers;
 * `Conversation.withMemory` loads a conversation's memory, runs your effect
 * on it and saves, re-applying your turns when another writer saved first.
 *
 * @since 1.0.0
 */

/** Stored conversations: `withMemory` and what it records. @since 1.0.0 */
export * as Conversation from "./store/Conversation.js"
/** The store service and its layers. @since 1.0.0 */
export * as ConversationStore from "./store/ConversationStore.js"
export {
  /** A save whose expected revision is stale. @since 1.0.0 */
  ConversationConflictError,
  /** A stored value that does not decode. @since 1.0.0 */
  ConversationDecodeError,
  /** The storage backend failed. @since 1.0.0 */
  ConversationStoreError
} from "./store/Service.js"
