/**
 * The memory backend on the Effect 4 line: a `ConversationStore` in process memory.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ConversationStore } from "../Service.js"
import { makeOn } from "./KeyValue.js"

/**
 * A store in process memory (a `Map` of keys to JSON records), empty when
 * the layer is built. For tests and single-process use; states are still
 * written in the wire format, so what works here works on the other layers.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ConversationStore } from "rollmem/store"
 *
 * const program = Effect.gen(function*() {
 *   const store = yield* ConversationStore.ConversationStore
 *   return yield* store.load("c") // Option.none(): never saved
 * }).pipe(Effect.provide(ConversationStore.layerMemory))
 * ```
 *
 * @since 1.0.0
 */
export const layerMemory: Layer.Layer<ConversationStore> = Layer.effect(
  ConversationStore,
  Effect.sync(() => {
    const records = new Map<string, string>()
    return makeOn({
      get: (key) => Effect.sync(() => records.get(key)),
      set: (key, value) => Effect.sync(() => void records.set(key, value)),
      remove: (key) => Effect.sync(() => void records.delete(key))
    }, undefined)
  })
)
