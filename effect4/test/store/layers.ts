/**
 * Every ConversationStore layer of the Effect 4 line under test, each with a
 * way to write a raw stored value where the backend is reachable (to test
 * undecodable values): the Effect 3 suite's `test/store/layers.ts`.
 */
import { Context, Effect, Layer } from "effect"
import { KeyValueStore } from "effect/persistence"
import * as ConversationStore from "../../src/store/ConversationStore.js"

/** Writes a raw record, bypassing the store: `revision` and `state` (JSON text) go in as given. */
export class RawWriter extends Context.Service<RawWriter, {
  readonly write: (id: string, revision: number, state: string) => Effect.Effect<void>
}>()("test/RawWriter") {}

/** A store layer under test; `raw`, when present, is the same layer also providing {@link RawWriter}. */
export interface StoreUnderTest {
  readonly name: string
  readonly layer: Layer.Layer<ConversationStore.ConversationStore>
  readonly raw?: Layer.Layer<ConversationStore.ConversationStore | RawWriter>
}

const PREFIX = "rollmem-conversation:"

const kvRaw = Layer.effect(
  RawWriter,
  Effect.gen(function*() {
    const kv = yield* KeyValueStore.KeyValueStore
    return {
      write: (id: string, revision: number, state: string) =>
        Effect.orDie(kv.set(PREFIX + id, `{"revision":${revision},"state":${state}}`))
    }
  })
)

const keyValueMemory = Layer.merge(ConversationStore.layerKeyValueStore(), kvRaw).pipe(
  Layer.provide(KeyValueStore.layerMemory)
)

/** Every layer, each built fresh (empty) per `Effect.provide`. */
export const stores: ReadonlyArray<StoreUnderTest> = [
  { name: "layerMemory", layer: ConversationStore.layerMemory },
  { name: "layerKeyValueStore (KeyValueStore.layerMemory)", layer: keyValueMemory, raw: keyValueMemory }
]
