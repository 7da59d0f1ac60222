/**
 * The archive a store without a full-text search keeps beside its
 * conversations (docs/contract.md section 17.2): a plain log of archived
 * messages, read whole and ranked in this process (`core/recall.ts`, through
 * the in-memory archive). Shared by the key-value and Redis backends.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Store from "../../core/archive.js"
import type { ArchiveError, ConfigError } from "../../Errors.js"
import * as Messages from "../../schema/Message.js"
import * as Archive from "../../services/Archive.js"

/** A logged row as JSON: `{"position":3,"fold":1,"message":{...wire message...}}`. */
export interface Row {
  readonly position: number
  readonly fold: number
  readonly message: Messages.Message
}

const encodeMessage = Schema.encodeSync(Messages.Message)

/** One row as its JSON text. @internal */
export const encodeRow = (row: Row): string =>
  JSON.stringify({ position: row.position, fold: row.fold, message: encodeMessage(row.message) })

/** Rows read back from JSON (an object, or an array of them); a wrong one is an `ArchiveError`. @internal */
export const decodeRows = (text: string, what: string): Either.Either<Array<Row>, ArchiveError> => {
  try {
    const parsed: unknown = JSON.parse(text)
    const list = Array.isArray(parsed) ? parsed : [parsed]
    const rows: Array<Row> = []
    for (const item of list) {
      const { fold, message, position } = item as { position?: unknown; fold?: unknown; message?: unknown }
      if (!Number.isSafeInteger(position) || !Number.isSafeInteger(fold)) {
        return Either.left(Archive.failed(`${what}: a row without its position and fold`))
      }
      const decoded = Messages.decodeUnknown(message)
      if (Either.isLeft(decoded)) return Either.left(Archive.failed(`${what}: ${decoded.left.message}`, decoded.left))
      rows.push({ position: position as number, fold: fold as number, message: decoded.right })
    }
    return Either.right(rows)
  } catch (cause) {
    return Either.left(Archive.failed(`${what}: ${cause instanceof Error ? cause.message : String(cause)}`, cause))
  }
}

/**
 * Rows in the order they were written, the last of a position kept (a
 * write that a failed save left behind is replaced by the committed one),
 * as archived messages in position order.
 *
 * @internal
 */
export const lastByPosition = (conversationId: string, rows: ReadonlyArray<Row>): Array<Archive.Archived> =>
  Store.lastByPosition(conversationId, rows)

/**
 * An `Archive.Service` over a log: `read` gives a conversation's archived
 * messages, `append` writes one write's entries. A search reads the log and
 * ranks it in this process.
 *
 * @internal
 */
export const make = (
  read: (conversationId: string) => Effect.Effect<ReadonlyArray<Archive.Archived>, ArchiveError>,
  append: (conversationId: string, entries: ReadonlyArray<Archive.Entry>) => Effect.Effect<void, ArchiveError>
): Archive.Service =>
  Archive.Archive.of({
    append: (conversationId, entries) => entries.length === 0 ? Effect.void : append(conversationId, entries),
    messages: read,
    search: (conversationId, query, options) =>
      Effect.suspend((): Effect.Effect<ReadonlyArray<Archive.Match>, ArchiveError | ConfigError> => {
        const refused = Archive.checkOptions(options)
        if (refused !== undefined) return Effect.fail(refused)
        return Effect.flatMap(
          read(conversationId),
          (archived) => Archive.makeMemoryOf(archived).search(conversationId, query, options)
        )
      })
  })
