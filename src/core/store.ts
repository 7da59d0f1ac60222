/**
 * A stored conversation's rules (docs/contract.md section 12), pure, no
 * `effect` import: the revision a compare-and-set writes, the record's plain
 * shape, the defaults every backend names and the errors' messages. Each
 * line's `ConversationStore` backends call these; only the effects that read
 * and write a backend exist twice.
 *
 * @since 0.4.0
 */

/**
 * The revision of a conversation that is not stored: what a first save expects.
 *
 * @since 0.4.0
 */
export const NO_REVISION = 0

/**
 * The key prefix of the key-value and Redis stores.
 *
 * @since 0.4.0
 */
export const DEFAULT_PREFIX = "rollmem-conversation:"

/**
 * The table of the SQL stores.
 *
 * @since 0.4.0
 */
export const DEFAULT_TABLE = "rollmem_conversations"

/**
 * What a compare-and-set needs of the stored record: its revision, and
 * whether it is the tombstone of a deleted conversation (which keeps its last
 * revision, so that a revision is never used twice for one id).
 *
 * @since 0.4.0
 */
export interface Held {
  readonly revision: number
  readonly deleted: boolean
}

/**
 * The revision a save expecting `expectedRevision` writes, or `undefined`
 * when the save is a conflict: a first save ({@link NO_REVISION}) needs no
 * stored conversation and continues after a tombstone's revision; any other
 * save needs the stored conversation at `expectedRevision`.
 *
 * @example
 * ```ts
 * import { nextRevision } from "./store.js"
 * nextRevision(undefined, 0) // 1
 * nextRevision({ revision: 3, deleted: true }, 0) // 4
 * nextRevision({ revision: 3, deleted: false }, 2) // undefined: a conflict
 * ```
 *
 * @since 0.4.0
 */
export const nextRevision = (stored: Held | undefined, expectedRevision: number): number | undefined => {
  if (stored === undefined) return expectedRevision === NO_REVISION ? 1 : undefined
  if (expectedRevision === NO_REVISION) return stored.deleted ? stored.revision + 1 : undefined
  return !stored.deleted && stored.revision === expectedRevision ? stored.revision + 1 : undefined
}

/**
 * The revision a delete leaves (its tombstone's), or `undefined` when there
 * is nothing to delete (absent, or already deleted).
 *
 * @since 0.4.0
 */
export const tombstoneRevision = (stored: Held | undefined): number | undefined =>
  stored === undefined || stored.deleted ? undefined : stored.revision + 1

/**
 * Whether a value is a stored revision: a positive integer.
 *
 * @since 0.4.0
 */
export const isRevision = (value: unknown): value is number =>
  typeof value === "number" && Number.isInteger(value) && value > 0

/**
 * Why `id` cannot name a stored conversation, or `undefined` when it can: a
 * conversation id is a non-empty string (docs/contract.md section 12.1).
 * Every store's `load`, `save` and `delete` refuse such an id with its
 * `ConversationStoreError`, whose cause says this, before the backend is
 * asked.
 *
 * @example
 * ```ts
 * import { idProblem } from "./store.js"
 * idProblem("c") // undefined
 * idProblem("") // "a conversation id must be a non-empty string, got \"\""
 * ```
 *
 * @since 0.4.0
 */
export const idProblem = (id: unknown): string | undefined =>
  typeof id === "string" && id.length > 0
    ? undefined
    : `a conversation id must be a non-empty string, got ${
      typeof id === "string" ? JSON.stringify(id) : id === null ? "null" : typeof id
    }`

/**
 * The message of a conflict: `conversation "c" is no longer at revision 1: ...`.
 *
 * @since 0.4.0
 */
export const conflictMessage = (conversationId: string, expectedRevision: number): string =>
  `conversation ${JSON.stringify(conversationId)} is no longer at revision ${expectedRevision}: ` +
  "another writer saved or deleted it"

/**
 * The message of a stored value that does not decode.
 *
 * @since 0.4.0
 */
export const decodeMessage = (conversationId: string, description: string): string =>
  `cannot read stored conversation ${JSON.stringify(conversationId)}: ${description}`

/**
 * The operations of a store's error.
 *
 * @since 0.4.0
 */
export type Operation = "open" | "load" | "save" | "delete"

/**
 * The message of a backend's failure, with its cause's message when it is an `Error`.
 *
 * @since 0.4.0
 */
export const storeErrorMessage = (conversationId: string, operation: Operation, cause: unknown): string => {
  const detail = cause instanceof Error ? `: ${cause.message}` : ""
  if (operation === "open") return `cannot open the conversation store${detail}`
  return `cannot ${operation} conversation ${JSON.stringify(conversationId)}${detail}`
}
