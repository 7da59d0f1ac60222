/**
 * The key-value backend on the Effect 4 line: a `ConversationStore` on any
 * `KeyValueStore` of `effect/persistence` (files, browser storage, SQL, ...),
 * one JSON record per conversation, as the Effect 3 line writes it. Also the
 * algorithm of the memory backend (`Memory.ts`), which runs it over a `Map`.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { KeyValueStore } from "effect/persistence"
import * as Semaphore from "effect/Semaphore"
import * as Log from "../../../../src/core/archiveLog.js"
import * as Rules from "../../../../src/core/store.js"
import type { ArchiveError } from "../../Errors.js"
import type * as MemoryState from "../../schema/MemoryState.js"
import * as Archive from "../../services/Archive.js"
import * as ArchiveLog from "../internal/archiveLog.js"
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
 * stores on one backend. Its archive (docs/contract.md section 17.2) is the
 * Effect 3 line's log (`core/archiveLog.ts`): a head under
 * `rollmem-archive:<prefix><id>#0`, each write's rows under `...#1`, ...
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
  const archiveKey = (id: string, write: number) => Log.archiveKey(prefix, id, write)
  const readHead = (id: string): Effect.Effect<Log.Head, ArchiveError> =>
    Effect.flatMap(Effect.mapError(kv.get(archiveKey(id, 0)), ArchiveLog.failedWith("archive read")), (json) => {
      if (json === undefined) return Effect.succeed(Log.EMPTY_HEAD)
      const head = Log.parseHead(json)
      return head === undefined ? Effect.fail(Archive.failed(Log.headProblem(id))) : Effect.succeed(head)
    })
  const readArchive = (id: string) =>
    Effect.gen(function*() {
      const head = yield* readHead(id)
      const rows: Array<ArchiveLog.Row> = []
      for (let write = 1; write <= head.writes; write++) {
        const json = yield* Effect.mapError(kv.get(archiveKey(id, write)), ArchiveLog.failedWith("archive read"))
        if (json === undefined) continue
        rows.push(...yield* Effect.fromResult(ArchiveLog.decodeRows(json, "archive read")))
      }
      return Log.archivedOf(id, rows)
    })
  // Each write its rows (the next fold), then the head: a crash between leaves rows the next write replaces.
  const writeArchive = (id: string, writes: ReadonlyArray<ReadonlyArray<Archive.Entry>>) =>
    Effect.gen(function*() {
      if (writes.every((entries) => entries.length === 0)) return
      const plan = Log.planWrites(yield* readHead(id), writes, ArchiveLog.wire)
      for (const { text, write } of plan.records) {
        yield* Effect.mapError(kv.set(archiveKey(id, write), text), ArchiveLog.failedWith("archive write"))
      }
      yield* Effect.mapError(
        kv.set(archiveKey(id, 0), JSON.stringify(plan.head)),
        ArchiveLog.failedWith("archive write")
      )
    })
  const removeArchive = (id: string) =>
    Effect.gen(function*() {
      const head = yield* Effect.orElseSucceed(readHead(id), () => Log.EMPTY_HEAD)
      for (let write = head.writes; write >= 0; write--) yield* kv.remove(archiveKey(id, write))
    })
  const archive = ArchiveLog.make(
    (id) => lock.withPermits(1)(readArchive(id)),
    (id, entries) => lock.withPermits(1)(writeArchive(id, [entries]))
  )
  const save = (id: string, state: MemoryState.MemoryState, expectedRevision: number, options?: SaveOptions) =>
    lock.withPermits(1)(Effect.gen(function*() {
      const stored = yield* read(id, "save")
      const revision = Rules.nextRevision(held(stored), expectedRevision)
      if (revision === undefined) return yield* conflict(id, expectedRevision)
      if (options?.archive !== undefined) {
        yield* Effect.mapError(writeArchive(id, options.archive), storeError(id, "save"))
      }
      const record: Record = options?.requestIds === undefined
        ? { revision, state }
        : { revision, state, requestIds: options.requestIds }
      yield* Effect.mapError(kv.set(prefix + id, encodeRecord(record)), storeError(id, "save"))
      return revision
    }))
  // A record that does not decode is removed as it is: nothing to keep a revision of.
  const remove = (id: string) =>
    lock.withPermits(1)(Effect.gen(function*() {
      yield* Effect.mapError(removeArchive(id), storeError(id, "delete"))
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
  return checkingIds({ load, save, delete: remove, archive })
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
