/**
 * The Effect shell of the archive a store without a full-text search keeps
 * beside its conversations (docs/contract.md section 17.2): the plain log of
 * `core/archiveLog.ts`, read whole and ranked in this process. Shared by
 * the key-value, memory and Redis backends.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Log from "../../core/archiveLog.js"
import type { ArchiveError, ConfigError } from "../../Errors.js"
import * as Messages from "../../schema/Message.js"
import * as Archive from "../../services/Archive.js"

/** A logged row: `{"position":3,"fold":1,"message":{...wire message...}}` as JSON. */
export type Row = Log.Row<Messages.Message>

const encodeMessage = Schema.encodeSync(Messages.Message)

/** A message's wire form, as the log stores it. @internal */
export const wire = (message: Messages.Message): unknown => encodeMessage(message)

const decodeMessage = (input: unknown): Log.Decoded<Messages.Message> => {
  const decoded = Messages.decodeUnknown(input)
  return Either.isLeft(decoded)
    ? { problem: decoded.left.message, cause: decoded.left }
    : { message: decoded.right }
}

/** Rows read back from JSON (an object, or an array of them); a wrong one is an `ArchiveError`. @internal */
export const decodeRows = (text: string, what: string): Either.Either<Array<Row>, ArchiveError> => {
  const decoded = Log.decodeRows(text, what, decodeMessage)
  return "problem" in decoded
    ? Either.left(Archive.failed(decoded.problem, decoded.cause))
    : Either.right(decoded.rows)
}

/**
 * Rows in the order they were written, the last of a position kept (a
 * write that a failed save left behind is replaced by the committed one),
 * as archived messages in position order.
 *
 * @internal
 */
export const lastByPosition = (conversationId: string, rows: ReadonlyArray<Row>): Array<Archive.Archived> =>
  Log.archivedOf(conversationId, rows)

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
        return Effect.map(read(conversationId), (archived) => Log.search(conversationId, archived, query, options))
      })
  })
