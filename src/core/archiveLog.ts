/**
 * The archive a store without a full-text search keeps beside its
 * conversations (docs/contract.md section 17.2), pure (no `effect`
 * import): a plain log of rows `{"position":p,"fold":f,"message":{...}}`,
 * read whole and ranked in the process (`archive.ts` over `recall.ts`).
 * Both lines' key-value and memory stores write it under the same keys
 * (`rollmem-archive:<prefix><id>#<n>`), and their Redis stores decode its
 * rows with it, so an archive moves between the lines.
 *
 * @since 0.4.0
 */
import * as Store from "./archive.js"

/**
 * Where the key-value stores keep a conversation's archive: before the
 * store's prefix.
 *
 * @since 0.4.0
 */
export const ARCHIVE_PREFIX = "rollmem-archive:"

/**
 * The key of a conversation's archive log in a key-value store: write `0`
 * is the head, writes `1..n` their rows.
 *
 * @example
 * ```ts
 * import { archiveKey } from "./archiveLog.js"
 * archiveKey("rollmem-conversation:", "c", 2) // "rollmem-archive:rollmem-conversation:c#2"
 * ```
 *
 * @since 0.4.0
 */
export const archiveKey = (prefix: string, conversationId: string, write: number): string =>
  `${ARCHIVE_PREFIX}${prefix}${conversationId}#${write}`

/**
 * A log's head: how many writes it holds and its last fold.
 *
 * @since 0.4.0
 */
export interface Head {
  readonly writes: number
  readonly folds: number
}

/**
 * The head of a log never written.
 *
 * @since 0.4.0
 */
export const EMPTY_HEAD: Head = { writes: 0, folds: 0 }

/**
 * A head read back from its JSON (`{"writes":n,"folds":f}`), or `undefined`
 * when it does not decode.
 *
 * @since 0.4.0
 */
export const parseHead = (json: string): Head | undefined => {
  try {
    const head = JSON.parse(json) as { readonly writes?: unknown; readonly folds?: unknown } | null
    if (head !== null && Number.isSafeInteger(head.writes) && Number.isSafeInteger(head.folds)) {
      return { writes: head.writes as number, folds: head.folds as number }
    }
  } catch {
    // undefined below
  }
  return undefined
}

/**
 * Why a head does not decode, as an `ArchiveError`'s description.
 *
 * @since 0.4.0
 */
export const headProblem = (conversationId: string): string =>
  `archive read: the head of ${JSON.stringify(conversationId)} does not decode`

/**
 * A logged row.
 *
 * @since 0.4.0
 */
export interface Row<A> {
  readonly position: number
  readonly fold: number
  readonly message: A
}

/**
 * One row as its JSON text, the message as `encode` gives its wire form.
 *
 * @since 0.4.0
 */
export const encodeRow = <A>(row: Row<A>, encode: (message: A) => unknown): string =>
  JSON.stringify({ position: row.position, fold: row.fold, message: encode(row.message) })

/**
 * What a line's message decoder gives: the message, or why not (with its cause).
 *
 * @since 0.4.0
 */
export type Decoded<A> = { readonly message: A } | { readonly problem: string; readonly cause: unknown }

/**
 * Rows read back from JSON (one object, or an array of them), each message
 * through `decode`; a wrong one is the problem `"<what>: <why>"` with its
 * cause.
 *
 * @since 0.4.0
 */
export const decodeRows = <A>(
  text: string,
  what: string,
  decode: (input: unknown) => Decoded<A>
): { readonly rows: Array<Row<A>> } | { readonly problem: string; readonly cause: unknown } => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (cause) {
    return { problem: `${what}: ${cause instanceof Error ? cause.message : String(cause)}`, cause }
  }
  const list: ReadonlyArray<unknown> = Array.isArray(parsed) ? parsed : [parsed]
  const rows: Array<Row<A>> = []
  for (const item of list) {
    const { fold, message, position } = (typeof item === "object" && item !== null ? item : {}) as {
      readonly position?: unknown
      readonly fold?: unknown
      readonly message?: unknown
    }
    if (!Number.isSafeInteger(position) || !Number.isSafeInteger(fold)) {
      return { problem: `${what}: a row without its position and fold`, cause: undefined }
    }
    const decoded = decode(message)
    if ("problem" in decoded) return { problem: `${what}: ${decoded.problem}`, cause: decoded.cause }
    rows.push({ position: position as number, fold: fold as number, message: decoded.message })
  }
  return { rows }
}

/**
 * A save's archive writes as key-value records: each non-empty write its
 * rows under the next write number (the next fold), then the new head.
 * Written in that order, a crash between leaves rows the next write of
 * those positions replaces (the last row of a position wins).
 *
 * @example
 * ```ts
 * import { planWrites } from "./archiveLog.js"
 * planWrites({ writes: 1, folds: 1 }, [[], [{ position: 4, message: "m" }]], (m) => m)
 * // { records: [{ write: 2, text: '[{"position":4,"fold":2,"message":"m"}]' }], head: { writes: 2, folds: 2 } }
 * ```
 *
 * @since 0.4.0
 */
export const planWrites = <A>(
  head: Head,
  writes: ReadonlyArray<ReadonlyArray<{ readonly position: number; readonly message: A }>>,
  encode: (message: A) => unknown
): { readonly records: Array<{ readonly write: number; readonly text: string }>; readonly head: Head } => {
  const records: Array<{ readonly write: number; readonly text: string }> = []
  let next = head
  for (const entries of writes) {
    if (entries.length === 0) continue
    const write = next.writes + 1
    const fold = next.folds + 1
    const rows = entries.map(({ message, position }) => encodeRow({ position, fold, message }, encode))
    records.push({ write, text: `[${rows.join(",")}]` })
    next = { writes: write, folds: fold }
  }
  return { records, head: next }
}

/**
 * A log's rows (in the order written) as the conversation's archived
 * messages, in position order, the last row of a position kept.
 *
 * @since 0.4.0
 */
export const archivedOf = <A>(conversationId: string, rows: ReadonlyArray<Row<A>>): Array<Store.Archived<A>> =>
  Store.lastByPosition(conversationId, rows)

/**
 * A search over a log's archived messages, ranked in the process as the
 * in-memory archive ranks (`archive.ts` `makeStore`, `recall.ts`).
 *
 * @since 0.4.0
 */
export const search = <A extends Store.Archivable>(
  conversationId: string,
  archived: ReadonlyArray<Store.Archived<A>>,
  query: string,
  options?: Store.SearchOptions
): ReadonlyArray<Store.Match<A>> => Store.makeStore(archived).search(conversationId, query, options)
