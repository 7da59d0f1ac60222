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
 *
 * @since 1.0.0
 */
export { type KeyValueOptions, layerKeyValueStore, makeKeyValueStore } from "./backends/KeyValue.js"
export { layerMemory } from "./backends/Memory.js"
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
