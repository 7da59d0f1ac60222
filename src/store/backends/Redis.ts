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
import * as MemoryState from "../../schema/MemoryState.js"
import * as Messages from "../../schema/Message.js"
import * as Archive from "../../services/Archive.js"
import * as ArchiveLog from "../internal/archiveLog.js"
import { importModule } from "../internal/peers.js"
import {
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

// The archive's rows (docs/contract.md section 17.2), in the conversation's own hash: ARGV[4] the number of
// writes, then per row ARGV[i] its write (1, 2, ...), ARGV[i+1] its position, ARGV[i+2] its message's JSON;
// each write is the next fold (the hash's archiveFolds plus one); a row is the field archive:<position>.
const ARCHIVE_LUA = `
local writes = tonumber(ARGV[4] or '0') or 0
if writes > 0 then
  local folds = tonumber(redis.call('HGET', KEYS[1], 'archiveFolds')) or 0
  for i = 5, #ARGV, 3 do
    local fold = folds + tonumber(ARGV[i])
    redis.call('HSET', KEYS[1], 'archive:' .. ARGV[i + 1],
      '{"position":' .. ARGV[i + 1] .. ',"fold":' .. fold .. ',"message":' .. ARGV[i + 2] .. '}')
  end
  redis.call('HSET', KEYS[1], 'archiveFolds', folds + writes)
end
`

// KEYS[1]: the conversation's hash; ARGV[1..3] unused ('' ), then the archive's rows as in ARCHIVE_LUA.
const ARCHIVE_SCRIPT = ARCHIVE_LUA + "return 0"

// KEYS[1]: the conversation's hash; ARGV[1]: the expected revision; ARGV[2]: the state's JSON;
// ARGV[3]: the request ids' JSON, or "" for none.
// Returns the new revision, or 0 for a conflict. See nextRevision for the rule.
const SAVE_SCRIPT = `
local stored = redis.call('HMGET', KEYS[1], 'revision', 'state')
local revision = tonumber(stored[1]) or 0
local live = stored[2] ~= false
local expected = tonumber(ARGV[1])
if expected == 0 then
  if live then return 0 end
elseif (not live) or revision ~= expected then
  return 0
end
redis.call('HSET', KEYS[1], 'revision', revision + 1, 'state', ARGV[2])
if ARGV[3] == '' then
  redis.call('HDEL', KEYS[1], 'requestIds')
else
  redis.call('HSET', KEYS[1], 'requestIds', ARGV[3])
end
${ARCHIVE_LUA}
return revision + 1
`

// KEYS[1]: the conversation's hash. Leaves a tombstone: the revision, one more, and no state; removes the archive.
const DELETE_SCRIPT = `
if redis.call('HEXISTS', KEYS[1], 'state') == 1 then
  redis.call('HINCRBY', KEYS[1], 'revision', 1)
  redis.call('HDEL', KEYS[1], 'state', 'requestIds')
end
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if field == 'archiveFolds' or string.sub(field, 1, 8) == 'archive:' then redis.call('HDEL', KEYS[1], field) end
end
return 0
`

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

// The archive's script arguments (ARCHIVE_LUA): the number of non-empty writes, then per row its write, position, message.
const archiveArgs = (writes: ReadonlyArray<ReadonlyArray<Archive.Entry>>): Array<string | number> => {
  const nonEmpty = writes.filter((entries) => entries.length > 0)
  if (nonEmpty.length === 0) return []
  const args: Array<string | number> = [nonEmpty.length]
  nonEmpty.forEach((entries, i) => {
    for (const { message, position } of entries) args.push(i + 1, position, JSON.stringify(encodeMessage(message)))
  })
  return args
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
 * @since 0.1.0
 * @category layers
 */
export const layerRedis = (options?: RedisOptions): Layer.Layer<ConversationStore, ConversationStoreError> =>
  Layer.scoped(
    ConversationStore,
    Effect.gen(function*() {
      const { Redis } = yield* importModule("ioredis")
      const url = options?.url === undefined
        ? "redis://127.0.0.1:6379"
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
            client.defineCommand("rollmemSave", { numberOfKeys: 1, lua: SAVE_SCRIPT })
            client.defineCommand("rollmemDelete", { numberOfKeys: 1, lua: DELETE_SCRIPT })
            client.defineCommand("rollmemArchive", { numberOfKeys: 1, lua: ARCHIVE_SCRIPT })
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
            try: () => commands.hmget(prefix + id, "revision", "state", "requestIds"),
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
              try: () => commands.hscan(prefix + id, cursor, "MATCH", "archive:*", "COUNT", 1000),
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
      return ConversationStore.of({ load, save, delete: remove, archive })
    })
  )
