/**
 * The conversation entity's rules (docs/contract.md section 12.3), pure, no
 * `effect` import, once for both lines' `rollmem/cluster`: how a request's
 * operations are appended to the state, which request ids are kept with it
 * (a redelivered request is skipped), where the requested compactions stand
 * among the turns while the fold waits, what a fold keeps of the requests
 * appended meanwhile, the `shardsPerGroup` rule and the refusal of a
 * mismatch, and which cluster failure is a message id another process drew
 * too. Each line's entity drives these with its own `Entity`, store and
 * summarizer; only the effects exist twice.
 *
 * @since 0.4.0
 */
import { nextRatio } from "./usage.js"

/**
 * How many request ids the entity keeps with the state (the newest ones).
 *
 * @since 0.4.0
 */
export const REQUEST_IDS_KEPT = 256

/**
 * The table recording the cluster's settings that every process must share.
 *
 * @since 0.4.0
 */
export const CONFIG_TABLE = "rollmem_cluster_config"

/**
 * The default `shardsPerGroup` (the cluster's own default, on both lines).
 *
 * @since 0.4.0
 */
export const DEFAULT_SHARDS_PER_GROUP = 300

/**
 * One operation of a request, over any message type (each line's
 * `Conversation.Operation`).
 *
 * @since 0.4.0
 */
export type Operation<M> =
  | { readonly _tag: "add"; readonly messages: ReadonlyArray<M> }
  | { readonly _tag: "clear" }
  | { readonly _tag: "compact"; readonly targetTokens?: number | undefined; readonly focus?: string | undefined }
  | {
    readonly _tag: "usage"
    readonly inputTokens: number
    readonly overheadTokens: number
    readonly contextTokens: number
  }

/**
 * A compaction's options as a request asked for it.
 *
 * @since 0.4.0
 */
export interface CompactOptions {
  readonly targetTokens?: number | undefined
  readonly focus?: string | undefined
}

/**
 * A compaction waiting for the fold: its options, and where it stands as the
 * number of buffered messages appended after it (a fold changes only the
 * buffer's head, so this count stays true).
 *
 * @since 0.4.0
 */
export interface Pending {
  readonly options: CompactOptions
  readonly after: number
}

/**
 * What appending a request gives: the new summary, buffer and usage ratio
 * (`undefined`: none), whether the request cleared the conversation, and
 * the compactions it asked for after its last clear.
 *
 * @since 0.4.0
 */
export interface Appended<M> {
  readonly summary: string
  readonly buffer: ReadonlyArray<M>
  readonly usageRatio: number | undefined
  readonly cleared: boolean
  readonly pending: ReadonlyArray<Pending>
}

/**
 * A request's operations applied as they are: adds appended, clears emptying
 * summary and buffer (and the usage ratio), usages moving the ratio by their
 * sample (docs/contract.md section 16.4), compactions left to the fold.
 *
 * @since 0.4.0
 */
export const append = <M>(
  state: { readonly summary: string; readonly buffer: ReadonlyArray<M>; readonly usageRatio?: number | undefined },
  operations: ReadonlyArray<Operation<M>>
): Appended<M> => {
  let summary = state.summary
  let buffer: Array<M> = state.buffer.slice()
  let usageRatio = state.usageRatio
  let cleared = false
  let compactions: Array<{ readonly options: CompactOptions; readonly at: number }> = []
  for (const operation of operations) {
    switch (operation._tag) {
      case "clear":
        summary = ""
        buffer = []
        usageRatio = undefined
        cleared = true
        compactions = []
        break
      case "add":
        buffer.push(...operation.messages)
        break
      case "compact": {
        const { _tag: _, ...options } = operation
        compactions.push({ options, at: buffer.length })
        break
      }
      case "usage":
        if (operation.inputTokens - operation.overheadTokens > 0 && operation.contextTokens > 0) {
          usageRatio = nextRatio(usageRatio, operation.inputTokens - operation.overheadTokens, operation.contextTokens)
        }
    }
  }
  const pending = compactions.map((c) => ({ options: c.options, after: buffer.length - c.at }))
  return { summary, buffer, usageRatio, cleared, pending }
}

/**
 * Whether a request with `requestId` is already held by the state: a
 * redelivery, not applied again.
 *
 * @since 0.4.0
 */
export const isDuplicate = (requestIds: ReadonlyArray<string>, requestId: string): boolean =>
  requestIds.includes(requestId)

/**
 * The request ids saved with the state after `requestId`: the newest
 * {@link REQUEST_IDS_KEPT}, oldest first.
 *
 * @since 0.4.0
 */
export const withRequestId = (requestIds: ReadonlyArray<string>, requestId: string): ReadonlyArray<string> =>
  [...requestIds, requestId].slice(-REQUEST_IDS_KEPT)

/**
 * The compactions waiting after a request was appended: the earlier ones
 * moved back by the messages it appended (all dropped when it cleared), then
 * its own.
 *
 * @since 0.4.0
 */
export const pendingAfter = (
  before: ReadonlyArray<Pending>,
  beforeLength: number,
  appended: Appended<unknown>
): Array<Pending> => {
  const added = appended.buffer.length - (appended.cleared ? 0 : beforeLength)
  return [
    ...(appended.cleared ? [] : before.map((p) => ({ ...p, after: p.after + added }))),
    ...appended.pending
  ]
}

/**
 * Where each compaction runs among a buffer of `length` messages: the index
 * of the first message after it, never before the previous one's.
 *
 * @since 0.4.0
 */
export const compactionPlaces = (length: number, compactions: ReadonlyArray<Pending>): Array<number> => {
  let from = 0
  return compactions.map((compaction) => (from = Math.max(from, length - compaction.after)))
}

/**
 * The buffer a fold saves: the folded buffer, then what was appended after
 * the `snapshotLength` messages the fold started from.
 *
 * @since 0.4.0
 */
export const keptAfterFold = <M>(
  folded: ReadonlyArray<M>,
  now: ReadonlyArray<M>,
  snapshotLength: number
): Array<M> => [...folded, ...now.slice(snapshotLength)]

/**
 * What is wrong with a `shardsPerGroup`, or `undefined`: a positive integer.
 *
 * @since 0.4.0
 */
export const shardsPerGroupProblem = (shards: unknown): string | undefined =>
  typeof shards === "number" && Number.isSafeInteger(shards) && shards > 0
    ? undefined
    : `must be a positive integer, got ${String(shards)}`

/**
 * The refusal of a process whose `shardsPerGroup` differs from the one
 * recorded in {@link CONFIG_TABLE} (`undefined` when they agree): the
 * `ConfigError` description, option `shardsPerGroup`.
 *
 * @since 0.4.0
 */
export const shardsMismatch = (mine: number, recorded: number): string | undefined =>
  recorded === mine ?
    undefined :
    `is ${mine} in this process but ${recorded} in the cluster (recorded in ${CONFIG_TABLE}` +
    ` by the first process): every runner and client must use the same value, or messages to the shards` +
    ` a runner does not know wait forever. To change it, stop every process and run DELETE FROM ${CONFIG_TABLE}`

/**
 * Whether `error` is the cluster's refusal of a request whose message id
 * another process generated too: PostgreSQL's unique violation (`23505`) on
 * the messages table's primary key, anywhere in the `PersistenceError`'s
 * chain of causes. A client-only process draws its Snowflake machine id at
 * random, so two clients share one now and then, and two requests they send
 * in the same millisecond with the same sequence number get the same id: the
 * second is refused before it is stored or delivered.
 *
 * @since 0.4.0
 */
export const isMessageIdCollision = (error: unknown): boolean => {
  if (typeof error !== "object" || error === null || (error as { _tag?: unknown })._tag !== "PersistenceError") {
    return false
  }
  const seen = new Set<unknown>()
  for (let cause: unknown = error; typeof cause === "object" && cause !== null && !seen.has(cause);) {
    seen.add(cause)
    const { code, constraint } = cause as { readonly code?: unknown; readonly constraint?: unknown }
    if (code === "23505") return typeof constraint === "string" && constraint.endsWith("_messages_pkey")
    const next = (cause as { readonly cause?: unknown }).cause
    // Effect 4's SqlError keeps the driver's error under `reason.cause`
    cause = next ?? (cause as { readonly reason?: unknown }).reason
  }
  return false
}
