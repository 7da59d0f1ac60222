/**
 * The Redis store's layout and scripts (docs/contract.md sections 12 and
 * 17.2), pure, no `effect` import, for both lines' Redis backends: each
 * conversation one hash under `prefix + id` with the fields `revision`,
 * `state` (the wire-format JSON) and `requestIds` (when the save gave some),
 * a deleted conversation keeping `revision` alone (its tombstone); its
 * archive in the same hash, one field `archive:<position>` per message
 * (`{"position":p,"fold":f,"message":{...}}`) and `archiveFolds`, the
 * number of folds written. Every save and delete is one Lua script, atomic
 * on the server.
 *
 * @since 0.4.0
 */
import type { Archivable } from "./archive.js"

/**
 * The server a Redis store connects to when given no URL.
 *
 * @since 0.4.0
 */
export const DEFAULT_URL = "redis://127.0.0.1:6379"

// The archive's rows, in the conversation's own hash: ARGV[4] the number of writes, then per row ARGV[i] its
// write (1, 2, ...), ARGV[i+1] its position, ARGV[i+2] its message's JSON; each write is the next fold (the
// hash's archiveFolds plus one); a row is the field archive:<position>.
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

/**
 * Appends archive rows alone. KEYS[1]: the conversation's hash; ARGV[1..3]
 * `""`, then {@link archiveArgs}. Returns 0.
 *
 * @since 0.4.0
 */
export const ARCHIVE_SCRIPT = ARCHIVE_LUA + "return 0"

/**
 * The compare-and-set of a save (the rule of `core/store.ts`'s
 * `nextRevision`). KEYS[1]: the conversation's hash; ARGV[1]: the expected
 * revision; ARGV[2]: the state's JSON; ARGV[3]: the request ids' JSON, or
 * `""` for none; then {@link archiveArgs}, written only when the state is.
 * Returns the new revision, or 0 for a conflict.
 *
 * @since 0.4.0
 */
export const SAVE_SCRIPT = `
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

/**
 * A delete. KEYS[1]: the conversation's hash. Leaves a tombstone (the
 * revision, one more, and no state) and removes the archive's fields.
 * Returns 0.
 *
 * @since 0.4.0
 */
export const DELETE_SCRIPT = `
if redis.call('HEXISTS', KEYS[1], 'state') == 1 then
  redis.call('HINCRBY', KEYS[1], 'revision', 1)
  redis.call('HDEL', KEYS[1], 'state', 'requestIds')
end
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if field == 'archiveFolds' or string.sub(field, 1, 8) == 'archive:' then redis.call('HDEL', KEYS[1], field) end
end
return 0
`

/**
 * The fields a load reads, in order.
 *
 * @since 0.4.0
 */
export const LOAD_FIELDS = ["revision", "state", "requestIds"] as const

/**
 * The `HSCAN` pattern of the archive's fields.
 *
 * @since 0.4.0
 */
export const ARCHIVE_FIELDS = "archive:*"

/**
 * The archive's script arguments (after ARGV[1..3]): the number of
 * non-empty writes, then per row its write (from 1), position and
 * message's wire JSON (`encode`). None when nothing is to be archived.
 *
 * @example
 * ```ts
 * import { archiveArgs } from "./redisStore.js"
 * archiveArgs([[], [{ position: 4, message: { role: "user", content: "hi", toolCalls: [] } }]], () => "{}")
 * // [1, 1, 4, "{}"]
 * ```
 *
 * @since 0.4.0
 */
export const archiveArgs = <M extends Archivable>(
  writes: ReadonlyArray<ReadonlyArray<{ readonly position: number; readonly message: M }>>,
  encode: (message: M) => string
): Array<string | number> => {
  const nonEmpty = writes.filter((entries) => entries.length > 0)
  if (nonEmpty.length === 0) return []
  const args: Array<string | number> = [nonEmpty.length]
  nonEmpty.forEach((entries, i) => {
    for (const { message, position } of entries) args.push(i + 1, position, encode(message))
  })
  return args
}
