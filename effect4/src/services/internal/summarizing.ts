/**
 * What the summarizer constructors and the Promise facade share on the
 * Effect 4 line, as `src/services/internal/summarizing.ts` on the Effect 3
 * line.
 *
 * @internal
 */
import type { SummarizerError } from "../../Errors.js"
import type { Message } from "../../schema/Message.js"
import type { Request, Service } from "../Summarizer.js"

/**
 * The `SummarizerError`s a summarizer function threw or rejected with itself,
 * passed on as they are: the Promise facade hands such an error back whole
 * instead of its `cause`, which it hands back for the errors rollmem wraps
 * around what a summarizer threw (docs/contract.md section 9).
 *
 * @internal
 */
export const thrownAsIs = new WeakSet<SummarizerError>()

/**
 * The `SummarizerError`s rollmem raises itself over what a summarizer
 * returned (a result that is not a string): rollmem's refusal, not the
 * summarizer's error, so the Promise facade throws the `SummarizerError`
 * whole rather than its `cause` (docs/contract.md section 9).
 *
 * @internal
 */
export const refusals = new WeakSet<SummarizerError>()

/**
 * A summarizer's call made at once: the new summary, or the
 * `SummarizerError` its service's effect would fail with.
 *
 * @internal
 */
export type SummarizeNow = (
  summary: string,
  messages: ReadonlyArray<Message>,
  request: Request
) => string | SummarizerError

/**
 * The calls at once of the summarizers built from a plain function
 * (`Summarizer.fromFunction`), keyed by their service's `summarize`: a
 * service that replaces `summarize` (a timeout, a hand-written wrapper) has
 * none, so it always runs as its effect.
 *
 * @internal
 */
export const answersAtOnce = new WeakMap<Service["summarize"], SummarizeNow>()

/** The call at once of `service`, if it has one (see {@link answersAtOnce}). @internal */
export const summarizeNowOf = (service: Service): SummarizeNow | undefined => answersAtOnce.get(service.summarize)
