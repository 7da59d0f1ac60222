/**
 * Folding in the same step as an append.
 *
 * A summarizer built from a synchronous function (`Summarizer.fromFunction`)
 * has a `summarizeSync` member. A memory calls it in the step that appends
 * the turn, so the fold is atomic: nothing can interleave with it, and it
 * needs neither the prune lock nor a fiber. Summarizers that may suspend
 * (Promises, effects, policies such as timeouts) have none and go through
 * the lock.
 *
 * @internal
 */
import * as Exit from "effect/Exit"
import { SummarizerError } from "../../Errors.js"
import type { Message } from "../../schema/Message.js"
import type { Service } from "../Summarizer.js"

/** The checked synchronous form of a summarizer: never throws. @internal */
export type SummarizeSync = (summary: string, messages: ReadonlyArray<Message>) => Exit.Exit<string, SummarizerError>

const nonString = (): SummarizerError => new SummarizerError({ description: "summarizer returned a non-string" })

/**
 * The summarizer's synchronous form, if it has one, as an `Exit`; a result
 * that is neither a string nor a `SummarizerError` (a hand-written service)
 * fails with `SummarizerError`.
 *
 * @internal
 */
export const summarizeSyncOf = (service: Service): SummarizeSync | undefined => {
  const summarizeSync = service.summarizeSync
  if (summarizeSync === undefined) return undefined
  return (summary, messages) => {
    const result: unknown = summarizeSync(summary, messages)
    return typeof result === "string"
      ? Exit.succeed(result)
      : Exit.fail(result instanceof SummarizerError ? result : nonString())
  }
}
