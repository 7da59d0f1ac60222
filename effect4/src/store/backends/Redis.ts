/**
 * The Redis backend on the Effect 4 line: a `ConversationStore` in Redis
 * through `ioredis`, the Effect 3 line's layout and scripts
 * (`core/redisStore.ts`): one hash per conversation, each save and delete
 * one Lua script, the archive in the same hash.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Log from "../../../../src/core/archiveLog.js"
import * as Scripts from "../../../../src/core/redisStore.js"
import * as Rules from "../../../../src/core/store.js"
import type { ArchiveError } from "../../Errors.js"
import type * as MemoryState from "../../schema/MemoryState.js"
import * as Messages from "../../schema/Message.js"
import * as Archive from "../../services/Archive.js"
import * as ArchiveLog from "../internal/archiveLog.js"
import { importModule } from "../internal/peers.js"
import {
  checkingIds,
  conflict,
  decodeParsed,
  encodeRequestIds,
  encodeState,
  live,
  storeError
} from "../internal/records.js"
import {
  ConversationDecodeError,
  ConversationStore,
  type ConversationStoreError,
  type SaveOptions,
  type Service
} from "../Service.js"

/**
 * Options of {@link layerRedis}:
 *
 * - `url`: the server, `redis://[user:password@]host:port[/db]` (`rediss://`
 *   for TLS); default `redis://127.0.0.1:6379`;
 * - `prefix`: prepended to the conversation id to form the key; default
 *   `"rollmem-conversation:"`.
 *
 * @since 1.0.0
 */
export interface RedisOptions {
  readonly url?: string | Redacted.Redacted<string> | undefined
  readonly prefix?: string | undefined
}

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
  readonly hscan: (key: string, cursor: string, ...args: Array<string | number>) => Promise<[string, Array<string>]>
}

const encodeMessage = (message: Messages.Message): string => JSON.stringify(Messages.toWire(message))

/** The stored hash's fields as the record they hold (`revision` a decimal string, `state` and `requestIds` JSON). */
const decodeFields = (
  id: string,
  revision: string | null,
  state: string | null,
  requestIds: string | null
) =>
  Effect.suspend(() => {
    let parsed: { readonly revision: unknown; readonly state: unknown; readonly requestIds?: unknown }
    try {
      const ids: unknown = requestIds === null ? undefined : JSON.parse(requestIds)
      const number = revision !== null && revision.trim() !== "" && !Number.isNaN(Number(revision))
        ? Number(revision)
        : revision
      parsed = ids === undefined
        ? { revision: number, state: state === null ? null : JSON.parse(state) }
        : { revision: number, state: state === null ? null : JSON.parse(state), requestIds: ids }
    } catch (cause) {
      const description = `malformed JSON: ${cause instanceof Error ? cause.message : String(cause)}`
      return Effect.fail(new ConversationDecodeError({ conversationId: id, description, cause }))
    }
    return Effect.fromResult(decodeParsed(id, parsed))
  })

/**
 * A store in Redis (5 or later, or a compatible server), through `ioredis`
 * (an optional peer dependency: `npm i ioredis@5.9.2`), loaded when the
 * layer is built. The Effect 3 line's `layerRedis`, key for key: each
 * conversation one hash under `prefix + id` with the fields `revision`,
 * `state` (the wire-format JSON) and `requestIds` when the save gave some;
 * a deleted conversation keeps `revision` alone (its tombstone); its archive
 * in the same hash (`archive:<position>` fields, `archiveFolds`). A save is
 * one Lua script, atomic on the server: it compares the stored revision with
 * the expected one and writes revision, state and the save's archive rows
 * together, or writes nothing (a `ConversationConflictError`). Safe for any
 * number of processes on any number of hosts, and on Redis Cluster (one key
 * per script). Durability is the server's (`appendonly`, `appendfsync`; use
 * `maxmemory-policy noeviction`).
 *
 * Building the layer connects and fails with `ConversationStoreError`
 * (operation `"open"`) when the server cannot be reached; the connection
 * closes with the layer's scope.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message } from "rollmem"
 * import { Conversation, ConversationStore } from "rollmem/store"
 *
 * const program = Conversation.withMemory("chat-42", { strategy: "buffer" }, (memory) =>
 *   memory.add(Message.user("Book me a flight to Rome"))
 * ).pipe(Effect.provide(ConversationStore.layerRedis({ url: "redis://localhost:6379" })))
 * ```
 *
 * @since 1.0.0
 */
export const layerRedis = (options?: RedisOptions): Layer.Layer<ConversationStore, ConversationStoreError> =>
  Layer.effect(
    ConversationStore,
    Effect.gen(function*() {
      const { Redis } = yield* importModule("ioredis")
      const url = options?.url === undefined
        ? Scripts.DEFAULT_URL
        : typeof options.url === "string"
        ? options.url
        : Redacted.value(options.url)
      const prefix = options?.prefix ?? Rules.DEFAULT_PREFIX
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
      const load: Service["load"] = (id) =>
        Effect.flatMap(
          Effect.tryPromise({
            try: () => commands.hmget(prefix + id, ...Scripts.LOAD_FIELDS),
            catch: storeError(id, "load")
          }),
          ([revision, state, requestIds]) =>
            revision === null && state === null
              ? Effect.succeedNone
              : Effect.map(decodeFields(id, revision, state, requestIds), live)
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
                ...Scripts.archiveArgs(options?.archive ?? [], encodeMessage)
              ),
            catch: storeError(id, "save")
          }),
          (revision) => revision === 0 ? Effect.fail(conflict(id, expectedRevision)) : Effect.succeed(revision)
        )
      const remove = (id: string) =>
        Effect.asVoid(
          Effect.tryPromise({ try: () => commands.rollmemDelete(prefix + id), catch: storeError(id, "delete") })
        )
      const messages = (id: string): Effect.Effect<Array<Archive.Archived>, ArchiveError> =>
        Effect.gen(function*() {
          const rows: Array<ArchiveLog.Row> = []
          let cursor = "0"
          do {
            const [next, page] = yield* Effect.tryPromise({
              try: () => commands.hscan(prefix + id, cursor, "MATCH", Scripts.ARCHIVE_FIELDS, "COUNT", 1000),
              catch: ArchiveLog.failedWith("archive read")
            })
            for (let i = 1; i < page.length; i += 2) {
              rows.push(...yield* Effect.fromResult(ArchiveLog.decodeRows(page[i], "archive read")))
            }
            cursor = next
          } while (cursor !== "0")
          return Log.archivedOf(id, rows)
        })
      // the log read whole and ranked here (core/archiveLog.ts over core/recall.ts), as the Effect 3 line does
      const archive = ArchiveLog.make(messages, (id, entries) =>
        Effect.asVoid(Effect.tryPromise({
          try: () => commands.rollmemArchive(prefix + id, "", "", "", ...Scripts.archiveArgs([entries], encodeMessage)),
          catch: ArchiveLog.failedWith("archive write")
        })))
      return checkingIds({ load, save, delete: remove, archive })
    })
  )
