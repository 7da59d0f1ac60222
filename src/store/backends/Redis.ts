/**
 * The Redis backend: a `ConversationStore` in Redis through `ioredis`, one
 * hash per conversation, each save one Lua script.
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Scripts from "../../core/redisStore.js"
import * as MemoryState from "../../schema/MemoryState.js"
import * as Messages from "../../schema/Message.js"
import * as Archive from "../../services/Archive.js"
import * as ArchiveLog from "../internal/archiveLog.js"
import { importModule } from "../internal/peers.js"
import {
  checkingIds,
  conflict,
  decodeWith,
  DEFAULT_PREFIX,
  encodeRequestIds,
  encodeState,
  live,
  RequestIds,
  storeError
} from "../internal/records.js"
import { ConversationStore, type ConversationStoreError, Revision, type SaveOptions } from "../Service.js"

/**
 * Options of {@link layerRedis}.
 *
 * @since 0.1.0
 * @category models
 */
export interface RedisOptions {
  /** The server, `redis://[user:password@]host:port[/db]` (`rediss://` for TLS); default `redis://127.0.0.1:6379`. */
  readonly url?: string | Redacted.Redacted<string> | undefined
  /** Prepended to the conversation id to form the key; default `"rollmem-conversation:"`. */
  readonly prefix?: string | undefined
}

const RedisRow = Schema.transform(
  Schema.Struct({
    revision: Schema.compose(Schema.NumberFromString, Revision),
    state: Schema.NullOr(Schema.parseJson(MemoryState.MemoryStateSchema)),
    requestIds: Schema.NullOr(Schema.parseJson(RequestIds))
  }),
  Schema.typeSchema(Schema.Struct({
    revision: Revision,
    state: Schema.NullOr(MemoryState.MemoryStateSchema),
    requestIds: Schema.optional(RequestIds)
  })),
  {
    strict: true,
    decode: ({ requestIds, ...rest }) => requestIds === null ? rest : { ...rest, requestIds },
    encode: ({ requestIds, ...rest }) => ({ ...rest, requestIds: requestIds ?? null })
  }
)

const encodeMessage = Schema.encodeSync(Messages.Message)

// The archive's script arguments (core/redisStore.ts)
const archiveArgs = (writes: ReadonlyArray<ReadonlyArray<Archive.Entry>>): Array<string | number> =>
  Scripts.archiveArgs(writes, (message) => JSON.stringify(encodeMessage(message)))

interface RedisCommands {
  readonly rollmemSave: (
    key: string,
    expected: number,
    state: string,
    requestIds: string,
    ...archive: Array<string | number>
  ) => Promise<number>
  readonly rollmemArchive: (key: string, ...args: Array<string | number>) => Promise<number>
  readonly rollmemDelete: (key: string) => Promise<number>
  readonly hmget: (key: string, ...fields: Array<string>) => Promise<Array<string | null>>
  readonly hscan: (
    key: string,
    cursor: string,
    ...args: Array<string | number>
  ) => Promise<[string, Array<string>]>
}

/**
 * A store in Redis (5 or later, or a compatible server), through `ioredis`
 * (an optional peer dependency: `npm i ioredis@5.9.2`). Each conversation is one
 * hash under `prefix + id` with the fields `revision` and `state` (the
 * wire-format JSON), and `requestIds` when the save gave some; a deleted
 * conversation keeps `revision` alone (its tombstone). A save is one Lua script, atomic on the server: it compares
 * the stored revision with the expected one and writes revision and state
 * together, or writes nothing (a {@link ConversationConflictError}). Safe for
 * any number of processes on any number of hosts, and on Redis Cluster (one
 * key per script).
 *
 * Durability is the server's: with `appendonly yes` and `appendfsync
 * always` an acknowledged save survives a server crash; with the default
 * `everysec` up to a second of saves can be lost, without persistence
 * everything is lost on restart, and a failover to a replica can lose saves
 * the primary had acknowledged (replication is asynchronous). A
 * `maxmemory-policy` that evicts keys can drop conversations: use
 * `noeviction`.
 *
 * Building the layer connects and fails with {@link ConversationStoreError}
 * (operation `"open"`) when the server cannot be reached; the connection
 * closes with the layer's scope. A command during an outage waits while
 * ioredis reconnects, then fails with {@link ConversationStoreError}.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { ConversationStore } from "rollmem/store"
 *
 * // one hash per conversation under the key prefix; ConversationStoreError when it cannot connect
 * const StoreLive: Layer.Layer<ConversationStore.ConversationStore, ConversationStore.ConversationStoreError> =
 *   ConversationStore.layerRedis({ url: "redis://localhost:6379", prefix: "chat:" })
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerRedis = (options?: RedisOptions): Layer.Layer<ConversationStore, ConversationStoreError> =>
  Layer.scoped(
    ConversationStore,
    Effect.gen(function*() {
      const { Redis } = yield* importModule("ioredis")
      const url = options?.url === undefined
        ? Scripts.DEFAULT_URL
        : typeof options.url === "string"
        ? options.url
        : Redacted.value(options.url)
      const prefix = options?.prefix ?? DEFAULT_PREFIX
      const client = yield* Effect.acquireRelease(
        Effect.tryPromise({
          try: async () => {
            const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 5 })
            // Without a listener ioredis prints every connection error to stderr; keep the last one for the failure.
            let lastError: unknown
            client.on("error", (error) => (lastError = error))
            try {
              await client.connect()
            } catch (cause) {
              client.disconnect()
              throw lastError ?? cause
            }
            client.defineCommand("rollmemSave", { numberOfKeys: 1, lua: Scripts.SAVE_SCRIPT })
            client.defineCommand("rollmemDelete", { numberOfKeys: 1, lua: Scripts.DELETE_SCRIPT })
            client.defineCommand("rollmemArchive", { numberOfKeys: 1, lua: Scripts.ARCHIVE_SCRIPT })
            return client
          },
          catch: storeError("", "open")
        }),
        (client) =>
          Effect.promise(() => client.quit().catch(() => "")).pipe(
            Effect.timeoutOption("1 second"),
            Effect.ensuring(Effect.sync(() => client.disconnect()))
          )
      )
      const commands = client as unknown as RedisCommands
      const decode = decodeWith(RedisRow)
      const load = (id: string) =>
        Effect.flatMap(
          Effect.tryPromise({
            try: () => commands.hmget(prefix + id, ...Scripts.LOAD_FIELDS),
            catch: storeError(id, "load")
          }),
          ([revision, state, requestIds]) =>
            revision === null && state === null
              ? Effect.succeedNone
              : Effect.map(decode(id, { revision, state, requestIds }), live)
        )
      const save = (id: string, state: MemoryState.MemoryState, expectedRevision: number, options?: SaveOptions) =>
        Effect.flatMap(
          Effect.tryPromise({
            try: () =>
              commands.rollmemSave(
                prefix + id,
                expectedRevision,
                encodeState(state),
                encodeRequestIds(options) ?? "",
                ...archiveArgs(options?.archive ?? [])
              ),
            catch: storeError(id, "save")
          }),
          (revision) => revision === 0 ? Effect.fail(conflict(id, expectedRevision)) : Effect.succeed(revision)
        )
      const remove = (id: string) =>
        Effect.asVoid(
          Effect.tryPromise({ try: () => commands.rollmemDelete(prefix + id), catch: storeError(id, "delete") })
        )
      const archiveFailed = (what: string) => (cause: unknown) =>
        Archive.failed(`${what}: ${cause instanceof Error ? cause.message : String(cause)}`, cause)
      const readArchive = (id: string) =>
        Effect.gen(function*() {
          const rows: Array<ArchiveLog.Row> = []
          let cursor = "0"
          do {
            const [next, page] = yield* Effect.tryPromise({
              try: () => commands.hscan(prefix + id, cursor, "MATCH", Scripts.ARCHIVE_FIELDS, "COUNT", 1000),
              catch: archiveFailed("archive read")
            })
            for (let i = 1; i < page.length; i += 2) rows.push(...yield* ArchiveLog.decodeRows(page[i], "archive read"))
            cursor = next
          } while (cursor !== "0")
          return ArchiveLog.lastByPosition(id, rows)
        })
      const archive = ArchiveLog.make(readArchive, (id, entries) =>
        Effect.asVoid(Effect.tryPromise({
          try: () => commands.rollmemArchive(prefix + id, "", "", "", ...archiveArgs([entries])),
          catch: archiveFailed("archive write")
        })))
      return ConversationStore.of(checkingIds({ load, save, delete: remove, archive }))
    })
  )
