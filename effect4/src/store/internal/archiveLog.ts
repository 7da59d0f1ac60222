/**
 * The Effect 4 shell of the archive a store without a full-text search
 * keeps beside its conversations (docs/contract.md section 17.2): the plain
 * log of `core/archiveLog.ts` (the Effect 3 line's rows and keys), read
 * whole and ranked in this process. Shared by the key-value, memory and
 * Redis backends.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Log from "../../../../src/core/archiveLog.js"
import type { ArchiveError, ConfigError } from "../../Errors.js"
import * as Messages from "../../schema/Message.js"
import * as Archive from "../../services/Archive.js"

/** A logged row: `{"position":3,"fold":1,"message":{...wire message...}}` as JSON. @internal */
export type Row = Log.Row<Messages.Message>

/** A message's wire form, as the log stores it. @internal */
export const wire = (message: Messages.Message): unknown => Messages.toWire(message)

const decodeMessage = (input: unknown): Log.Decoded<Messages.Message> => {
  const decoded = Messages.decodeUnknown(input)
  return Result.isFailure(decoded)
    ? { problem: decoded.failure.message, cause: decoded.failure }
    : { message: decoded.success }
}

/** Rows read back from JSON (an object, or an array of them); a wrong one is an `ArchiveError`. @internal */
export const decodeRows = (text: string, what: string): Result.Result<Array<Row>, ArchiveError> => {
  const decoded = Log.decodeRows(text, what, decodeMessage)
  return "problem" in decoded
    ? Result.fail(Archive.failed(decoded.problem, decoded.cause))
    : Result.succeed(decoded.rows)
}

/** An `ArchiveError` for a backend's failure during `what` (`"archive read"`, `"archive write"`). @internal */
export const failedWith = (what: string) => (cause: unknown): ArchiveError =>
  Archive.failed(`${what}: ${cause instanceof Error ? cause.message : String(cause)}`, cause)

/**
 * An `Archive.Service` over a log: `read` gives a conversation's archived
 * messages, `append` writes one write's entries. A search reads the log and
 * ranks it in this process (`core/archiveLog.ts` `search`).
 *
 * @internal
 */
export const make = (
  read: (conversationId: string) => Effect.Effect<ReadonlyArray<Archive.Archived>, ArchiveError>,
  append: (conversationId: string, entries: ReadonlyArray<Archive.Entry>) => Effect.Effect<void, ArchiveError>
): Archive.Service => ({
  append: (conversationId, entries) => entries.length === 0 ? Effect.void : append(conversationId, entries),
  messages: read,
  search: (conversationId, query, options) =>
    Effect.suspend((): Effect.Effect<ReadonlyArray<Archive.Match>, ArchiveError | ConfigError> => {
      const refused = Archive.checkOptions(options)
      if (refused !== undefined) return Effect.fail(refused)
      return Effect.map(read(conversationId), (archived) => Log.search(conversationId, archived, query, options))
    })
})
