/**
 * Folding in the same step as an append.
 *
 * A summarizer built from a synchronous function (`Summarizer.fromFunction`)
 * also carries its synchronous form under a symbol. A memory calls it in the
 * step that appends the turn, so the fold is atomic: nothing can interleave
 * with it, and it needs neither the prune lock nor a fiber. Summarizers that
 * may suspend (Promises, effects, policies such as timeouts) go through the
 * lock.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import type { SummarizerError } from "../../Errors.js"
import type { Message } from "../../schema/Message.js"
import type { Service } from "../Summarizer.js"

const summarizeSyncKey = Symbol.for("rollmem/Summarizer/summarizeSync")

/** The synchronous form of a summarizer: never throws. @internal */
export type SummarizeSync = (summary: string, messages: ReadonlyArray<Message>) => Exit.Exit<string, SummarizerError>

/** A summarizer whose `summarize` runs `summarizeSync` when the effect runs. @internal */
export const fromSummarizeSync = (summarizeSync: SummarizeSync): Service => {
  const service: Service & { [summarizeSyncKey]?: SummarizeSync } = {
    summarize: (summary, messages) => Effect.suspend(() => summarizeSync(summary, messages))
  }
  // assigned, not in the literal nor defined: either makes the object slow to build
  service[summarizeSyncKey] = summarizeSync
  return service
}

/** The summarizer's synchronous form, if it has one. @internal */
export const summarizeSyncOf = (service: Service): SummarizeSync | undefined =>
  (service as { readonly [summarizeSyncKey]?: SummarizeSync })[summarizeSyncKey]
