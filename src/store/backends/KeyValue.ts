/**
 * The key-value backend: a `ConversationStore` on any `@effect/platform`
 * `KeyValueStore` (files, browser storage, ...), one JSON record per
 * conversation. Also the algorithm of the memory backend (`Memory.ts`),
 * which runs it over a `Map`.
 *
 * @since 0.3.0
 */
import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Log from "../../core/archiveLog.js"
import type * as MemoryState from "../../schema/MemoryState.js"
import * as Archive from "../../services/Archive.js"
import * as ArchiveLog from "../internal/archiveLog.js"
import {
  checkingIds,
  conflict,
  decodeWith,
  DEFAULT_PREFIX,
  encodeRecord,
  live,
  nextRevision,
  type Record,
  RecordJson,
  storeError
} from "../internal/records.js"
import { ConversationStore, type ConversationStoreError, type SaveOptions, type Service } from "../Service.js"

/**
 * Options of {@link layerKeyValueStore}.
 *
 * @since 0.1.0
 * @category models
 */
export interface KeyValueOptions {
  /** Prepended to the conversation id to form the key; default `"rollmem-conversation:"`. */
  readonly prefix?: string | undefined
}

/**
 * Builds a store on a `KeyValueStore`: each conversation is one JSON record
 * (see {@link StoredJson}) under the key `prefix + id`; a deleted
 * conversation leaves `{"revision": n, "state": null}` (its tombstone).
 *
 * The compare-and-set of `save` (read, compare, write) runs under a lock of
 * this store: it is safe for any number of fibers using this one store, and
 * not across processes or across two stores on the same backend (see the
 * module docs).
 *
 * @example
 * ```ts
 * import { KeyValueStore } from "@effect/platform"
 * import { Effect } from "effect"
 * import { ConversationStore } from "rollmem/store"
 *
 * const program = Effect.gen(function*() {
 *   const store = yield* ConversationStore.makeKeyValueStore({ prefix: "chat:" })
 *   return yield* store.load("chat-42") // Option.none()
 * }).pipe(Effect.provide(KeyValueStore.layerMemory))
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeKeyValueStore = (
  options?: KeyValueOptions
): Effect.Effect<Service, never, KeyValueStore.KeyValueStore> =>
  Effect.flatMap(KeyValueStoreTag, (kv) => makeOn(kv, options))

// @effect/platform's own tag, by its key, so that importing this module does
// not load @effect/platform (an optional peer dependency).
const KeyValueStoreTag = Context.GenericTag<KeyValueStore.KeyValueStore>("@effect/platform/KeyValueStore")

/**
 * What a store needs of a `KeyValueStore`.
 *
 * @internal
 */
export type KeyValues = Pick<KeyValueStore.KeyValueStore, "get" | "set" | "remove">

const decodeRecord = decodeWith(RecordJson)

/**
 * The key-value store over `kv`'s `get`, `set` and `remove`.
 *
 * @internal
 */
export const makeOn = (kv: KeyValues, options: KeyValueOptions | undefined): Effect.Effect<Service> =>
  Effect.gen(function*() {
    const prefix = options?.prefix ?? DEFAULT_PREFIX
    const lock = yield* Effect.makeSemaphore(1)
    // The archive (docs/contract.md section 17.2, core/archiveLog.ts): per conversation a head
    // `{"writes":n,"folds":f}` under `rollmem-archive:<prefix><id>#0` and each write's rows under `...#1`, `...#2`, ...
    const archiveKey = (id: string, write: number) => Log.archiveKey(prefix, id, write)
    const archiveFailed = (what: string) => (cause: unknown) =>
      Archive.failed(`${what}: ${cause instanceof Error ? cause.message : String(cause)}`, cause)
    const readHead = (id: string) =>
      Effect.flatMap(
        Effect.mapError(kv.get(archiveKey(id, 0)), archiveFailed("archive read")),
        Option.match({
          onNone: () => Effect.succeed(Log.EMPTY_HEAD),
          onSome: (json) => {
            const head = Log.parseHead(json)
            return head === undefined ? Effect.fail(Archive.failed(Log.headProblem(id))) : Effect.succeed(head)
          }
        })
      )
    const readArchive = (id: string) =>
      Effect.gen(function*() {
        const head = yield* readHead(id)
        const rows: Array<ArchiveLog.Row> = []
        for (let write = 1; write <= head.writes; write++) {
          const json = yield* Effect.mapError(kv.get(archiveKey(id, write)), archiveFailed("archive read"))
          if (Option.isNone(json)) continue
          rows.push(...yield* ArchiveLog.decodeRows(json.value, "archive read"))
        }
        return ArchiveLog.lastByPosition(id, rows)
      })
    // Each write its rows (the next fold), then the head: a crash between leaves rows the next write replaces.
    const writeArchive = (id: string, writes: ReadonlyArray<ReadonlyArray<Archive.Entry>>) =>
      Effect.gen(function*() {
        if (writes.every((entries) => entries.length === 0)) return
        const plan = Log.planWrites(yield* readHead(id), writes, ArchiveLog.wire)
        for (const { text, write } of plan.records) {
          yield* Effect.mapError(kv.set(archiveKey(id, write), text), archiveFailed("archive write"))
        }
        yield* Effect.mapError(kv.set(archiveKey(id, 0), JSON.stringify(plan.head)), archiveFailed("archive write"))
      })
    const removeArchive = (id: string) =>
      Effect.gen(function*() {
        const head = yield* Effect.orElseSucceed(readHead(id), () => Log.EMPTY_HEAD)
        for (let write = head.writes; write >= 0; write--) {
          yield* kv.remove(archiveKey(id, write)).pipe(
            Effect.catchIf((error) => error._tag === "SystemError" && error.reason === "NotFound", () => Effect.void)
          )
        }
      })
    const archive = ArchiveLog.make(
      (id) => lock.withPermits(1)(readArchive(id)),
      (id, entries) => lock.withPermits(1)(writeArchive(id, [entries]))
    )
    const read = (id: string, operation: ConversationStoreError["operation"]) =>
      Effect.flatMap(
        Effect.mapError(kv.get(prefix + id), storeError(id, operation)),
        Option.match({
          onNone: () => Effect.succeedNone,
          onSome: (json) => Effect.asSome(decodeRecord(id, json))
        })
      )
    // Reads take the lock too: a file-system store truncates a file before
    // writing it, so a read beside a write could see half a record.
    const load = (id: string) => lock.withPermits(1)(Effect.map(read(id, "load"), Option.flatMap(live)))
    const save = (
      id: string,
      state: MemoryState.MemoryState,
      expectedRevision: number,
      options?: SaveOptions
    ) =>
      lock.withPermits(1)(Effect.gen(function*() {
        const stored = yield* read(id, "save")
        const revision = nextRevision(stored, expectedRevision)
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
        const stored = yield* Effect.option(read(id, "delete"))
        if (Option.isSome(stored) && Option.isSome(stored.value)) {
          const record = stored.value.value
          if (record.state === null) return
          const tombstone = encodeRecord({ revision: record.revision + 1, state: null })
          return yield* Effect.mapError(kv.set(prefix + id, tombstone), storeError(id, "delete"))
        }
        // The file-system store fails to remove a missing file: absent is not an error.
        yield* kv.remove(prefix + id).pipe(
          Effect.catchIf((error) => error._tag === "SystemError" && error.reason === "NotFound", () => Effect.void),
          Effect.mapError(storeError(id, "delete"))
        )
      }))
    return ConversationStore.of(checkingIds({ load, save, delete: remove, archive }))
  })

/**
 * A store on the `KeyValueStore` in context (the file-system store of
 * `@effect/platform-node`, `layerStorage` for browser storage, ...). Safe
 * within one process only; see {@link makeKeyValueStore}.
 *
 * @example
 * ```ts
 * import { KeyValueStore } from "@effect/platform"
 * import { NodeContext } from "@effect/platform-node"
 * import { Layer } from "effect"
 * import { ConversationStore } from "rollmem/store"
 *
 * const StoreLive = ConversationStore.layerKeyValueStore().pipe(
 *   Layer.provide(KeyValueStore.layerFileSystem("./conversations")),
 *   Layer.provide(NodeContext.layer)
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerKeyValueStore = (
  options?: KeyValueOptions
): Layer.Layer<ConversationStore, never, KeyValueStore.KeyValueStore> =>
  Layer.effect(ConversationStore, makeKeyValueStore(options))
