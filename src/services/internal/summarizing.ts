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
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Metric from "effect/Metric"
import * as MetricLabel from "effect/MetricLabel"
import * as Core from "../../core/readySummarizers.js"
import * as Budget from "../../core/summarizing.js"
import { SummarizerError, type TokenCountError } from "../../Errors.js"
import type { Message } from "../../schema/Message.js"
import * as Telemetry from "../../Telemetry.js"
import type { ProviderUsage, Request, Service } from "../Summarizer.js"

/** The checked synchronous form of a summarizer: never throws. @internal */
export type SummarizeSync = (
  summary: string,
  messages: ReadonlyArray<Message>,
  request: Request
) => Exit.Exit<string, SummarizerError>

/**
 * The `SummarizerError`s a summarizer function threw or rejected with
 * itself (an `aiSdkSummarizer`'s, a user's), passed on as they are: the
 * Promise facade hands such an error back whole instead of its `cause`,
 * which it hands back for the errors rollmem wraps around what a summarizer
 * threw.
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
  return (summary, messages, request) => {
    const result: unknown = summarizeSync(summary, messages, request)
    return typeof result === "string"
      ? Exit.succeed(result)
      : Exit.fail(result instanceof SummarizerError ? result : nonString())
  }
}

/**
 * `text` when `count` puts it within `maxTokens`; otherwise its longest
 * prefix, cut between two graphemes and ending with `…`, that fits (`""`
 * when none does). The last resort of the summarizers rollmem ships
 * (docs/contract.md section 10.4): O(log n) counts, the loop of
 * `core/summarizing.ts` driven with `count`.
 *
 * @internal
 */
export const fitToBudget = (
  text: string,
  maxTokens: number,
  count: (text: string) => Effect.Effect<number, TokenCountError>
): Effect.Effect<string, TokenCountError> =>
  Effect.gen(function*() {
    const fit = Budget.fitToBudget(text, maxTokens)
    let step = fit.next()
    while (step.done !== true) step = fit.next(yield* count(step.value))
    return step.value
  })

/**
 * The usage a shipped summarizer's response reports (`raw`, the provider's
 * usage object) as a {@link ProviderUsage}, or `undefined` when it reports
 * none that can be read (docs/contract.md section 16.5).
 *
 * @internal
 */
export const providerUsage = Core.providerUsage

/**
 * Reports one request's usage outside a fiber (the Promise summarizers):
 * the counters updated in Effect's global registry, then `onUsage` called
 * (a throw is the summarizer call's rejection). Nothing when `usage` is
 * `undefined`.
 *
 * @internal
 */
export const reportUsage = (
  usage: ProviderUsage | undefined,
  onUsage: ((usage: ProviderUsage) => void) | undefined
): void => {
  if (usage === undefined) return
  const labels = [MetricLabel.make("summarizer", usage.summarizer)]
  Telemetry.summarizerInputTokens.unsafeUpdate(usage.inputTokens, labels)
  if (usage.outputTokens !== undefined) Telemetry.summarizerOutputTokens.unsafeUpdate(usage.outputTokens, labels)
  onUsage?.(usage)
}

/**
 * {@link reportUsage} in a fiber (the `@effect/ai` summarizer): the counters
 * carry the fiber's metric labels too.
 *
 * @internal
 */
export const reportUsageEffect = (
  usage: ProviderUsage | undefined,
  onUsage: ((usage: ProviderUsage) => Effect.Effect<void>) | undefined
): Effect.Effect<void> => {
  if (usage === undefined) return Effect.void
  const tagged = <A extends Metric.Metric.Counter<number>>(metric: A) =>
    Metric.tagged(metric, "summarizer", usage.summarizer)
  return Effect.zipRight(
    Effect.zipRight(
      Metric.incrementBy(tagged(Telemetry.summarizerInputTokens), usage.inputTokens),
      usage.outputTokens === undefined
        ? Effect.void
        : Metric.incrementBy(tagged(Telemetry.summarizerOutputTokens), usage.outputTokens)
    ),
    onUsage === undefined ? Effect.void : onUsage(usage)
  )
}
