/**
 * The key-value backend on the Effect 4 line: a `ConversationStore` on any
 * `KeyValueStore` of `effect/persistence` (files, browser storage, SQL, ...),
 * one JSON record per conversation, as the Effect 3 line writes it. Also the
 * algorithm of the memory backend (`Memory.ts`), which runs it over a `Map`.
 *
 * @since 1.0.0
 */
import { Effect, Layer, Option, Semaphore } from "effect"
import { KeyValueStore } from "effect/persistence"
import * as Rules from "../../../../src/core/store.js"
import type * as MemoryState from "../../schema/MemoryState.js"
import {
  checkingIds,
  conflict,
  decodeText,
  encodeRecord,
  held,
  live,
  type Record,
  storeError
} from "../internal/records.js"
import {
  type ConversationDecodeError,
  ConversationStore,
  type ConversationStoreError,
  type SaveOptions,
  type Service
} from "../Service.js"

/**
 * Options of {@link layerKeyValueStore}: `prefix`, prepended to the
 * conversation id to form the key (default `"rollmem-conversation:"`).
 *
 * @since 1.0.0
 */
export interface KeyValueOptions {
  readonly prefix?: string | undefined
}

/** What a store needs of a `KeyValueStore`. @internal */
export interface KeyValues {
  readonly get: (key: string) => Effect.Effect<string | undefined, unknown>
  readonly set: (key: string, value: string) => Effect.Effect<void, unknown>
  readonly remove: (key: string) => Effect.Effect<void, unknown>
}

/**
 * The store over `kv`'s `get`, `set` and `remove`: each conversation one
 * JSON record under `prefix + id`; a deleted conversation leaves
 * `{"revision":n,"state":null}` (its tombstone). The compare-and-set (read,
 * compare, write) and the reads run under a lock of this store: safe for
 * any number of fibers on this one store, not across processes or two
 * stores on one backend.
 *
 * @internal
 */
export const makeOn = (kv: KeyValues, options: KeyValueOptions | undefined): Service => {
  const prefix = options?.prefix ?? Rules.DEFAULT_PREFIX
  const lock = Semaphore.makeUnsafe(1)
  const read = (id: string, operation: ConversationStoreError["operation"]) =>
    Effect.flatMap(
      Effect.mapError(kv.get(prefix + id), storeError(id, operation)),
      (text): Effect.Effect<Record | undefined, ConversationDecodeError> =>
        text === undefined ? Effect.succeed(undefined) : decodeText(id, text)
    )
  const load = (id: string) =>
    lock.withPermits(1)(
      Effect.map(read(id, "load"), (record) => record === undefined ? Option.none() : live(record))
    )
  const save = (id: string, state: MemoryState.MemoryState, expectedRevision: number, options?: SaveOptions) =>
    lock.withPermits(1)(Effect.gen(function*() {
      const stored = yield* read(id, "save")
      const revision = Rules.nextRevision(held(stored), expectedRevision)
      if (revision === undefined) return yield* conflict(id, expectedRevision)
      const record: Record = options?.requestIds === undefined
        ? { revision, state }
        : { revision, state, requestIds: options.requestIds }
      yield* Effect.mapError(kv.set(prefix + id, encodeRecord(record)), storeError(id, "save"))
      return revision
    }))
  // A record that does not decode is removed as it is: nothing to keep a revision of.
  const remove = (id: string) =>
    lock.withPermits(1)(Effect.gen(function*() {
      const stored = yield* Effect.result(read(id, "delete"))
      if (stored._tag === "Success" && stored.success !== undefined) {
        const tombstone = Rules.tombstoneRevision(held(stored.success))
        if (tombstone === undefined) return
        return yield* Effect.mapError(
          kv.set(prefix + id, encodeRecord({ revision: tombstone, state: null })),
          storeError(id, "delete")
        )
      }
      if (stored._tag === "Success") return
      yield* Effect.mapError(kv.remove(prefix + id), storeError(id, "delete"))
    }))
  return checkingIds({ load, save, delete: remove })
}

/**
 * A store on a `KeyValueStore` (see {@link layerKeyValueStore}).
 *
 * @since 1.0.0
 */
export const makeKeyValueStore = (
  options?: KeyValueOptions
): Effect.Effect<Service, never, KeyValueStore.KeyValueStore> =>
  Effect.gen(function*() {
    const kv = yield* KeyValueStore.KeyValueStore
    return makeOn(kv, options)
  })

/**
 * A store on the `KeyValueStore` in context (`KeyValueStore.layerFileSystem`
 * with `@effect/platform-node`'s file system, `layerStorage` for browser
 * storage, `layerSql`, ...). Safe within one process only: its
 * compare-and-set is a lock of the layer instance, so two processes writing
 * one conversation can overwrite each other's turns (use a SQL or Redis
 * store then).
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { KeyValueStore } from "effect/persistence"
 * import { ConversationStore } from "rollmem/store"
 *
 * const StoreLive = ConversationStore.layerKeyValueStore().pipe(Layer.provide(KeyValueStore.layerMemory))
 * ```
 *
 * @since 1.0.0
 */
export const layerKeyValueStore = (
  options?: KeyValueOptions
): Layer.Layer<ConversationStore, never, KeyValueStore.KeyValueStore> =>
  Layer.effect(ConversationStore, makeKeyValueStore(options))
