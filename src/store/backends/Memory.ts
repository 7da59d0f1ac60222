/**
 * The memory backend: a `ConversationStore` in process memory.
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { ConversationStore } from "../Service.js"
import { makeOn } from "./KeyValue.js"

/**
 * A store in process memory (a `Map` of keys to JSON records, as
 * `KeyValueStore.layerMemory` keeps them), empty when the layer is built.
 * For tests and single-process use; states are still written in the wire
 * format, so what works here works on the other layers. Needs no
 * `@effect/platform`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message, Summarizer } from "rollmem"
 * import { Conversation, ConversationStore } from "rollmem/store"
 *
 * // conversations kept in the process, for tests and demos
 * const program = Conversation.withMemory("chat-42", { strategy: "buffer" }, (memory) =>
 *   memory.add(Message.user("hi"))
 * ).pipe(Effect.provide(ConversationStore.layerMemory), Effect.provide(Summarizer.layerDrop))
 * ```
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
