/**
 * The two helpers a model summarizer's policy needs beyond Effect's own
 * combinators: {@link isTransient}, to retry only what may succeed on a
 * second try, and {@link withFallback}, to fall back to another summarizer
 * layer.
 *
 * Everything else is plain Effect, through `Summarizer.withPolicy`, which
 * turns any error of the policy (a `TimeoutException` from
 * `Effect.timeout`, the last retried error) into a `SummarizerError`
 * carrying it as `cause`. Layers apply from the inside out: the per-call
 * timeout inside the retry, the fallback outside both. Whatever the policy,
 * a call that finally fails leaves the memory as it was right after the new
 * turn was appended.
 *
 * @example
 * ```ts
 * import { Effect, Layer, Schedule } from "effect"
 * import { ExtractiveSummarizer, Summarizer } from "rollmem"
 * import { LanguageModelSummarizer, SummarizerPolicy } from "rollmem/ai"
 * import type { LanguageModel } from "@effect/ai"
 *
 * declare const myLanguageModelLayer: Layer.Layer<LanguageModel.LanguageModel>
 * const resilient = SummarizerPolicy.withFallback(ExtractiveSummarizer.layer({ maxTokens: 400 })).pipe(
 *   Layer.provide(
 *     Summarizer.withPolicy((call) =>
 *       call.pipe(
 *         Effect.timeout("20 seconds"), // per call
 *         Effect.retry({
 *           schedule: Schedule.exponential("500 millis").pipe(Schedule.jittered, Schedule.intersect(Schedule.recurs(3))),
 *           while: SummarizerPolicy.isTransient
 *         })
 *       )
 *     )
 *   ),
 *   Layer.provide(LanguageModelSummarizer.layer({ maxSummaryTokens: 400 })),
 *   Layer.provide(myLanguageModelLayer)
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as AiError from "@effect/ai/AiError"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { isTransientStatus } from "../core/summarizing.js"
import { SummarizerError } from "../Errors.js"
import * as Summarizer from "../services/Summarizer.js"

const MAX_DEPTH = 16

/**
 * Whether a failure may go away on a second try: a `TimeoutException`, an
 * `@effect/ai` `HttpRequestError` (the transport failed), or an
 * `HttpResponseError` with status 408, 409, 425, 429 or 5xx. A
 * `SummarizerError` is judged by its `cause`. Anything else (a 400 or 401,
 * a malformed reply, a summary over budget) is not transient.
 *
 * Use it as `Effect.retry({ schedule, while: isTransient })`.
 *
 * @example
 * ```ts
 * import { Effect, Schedule } from "effect"
 * import { Summarizer } from "rollmem"
 * import { SummarizerPolicy } from "rollmem/ai"
 *
 * // retry timeouts, transport failures, 408/409/425/429 and 5xx answers; not a 400 or 401
 * const retrying = Summarizer.withPolicy((call) =>
 *   call.pipe(Effect.retry({ schedule: Schedule.exponential("500 millis"), times: 3, while: SummarizerPolicy.isTransient }))
 * )
 * ```
 *
 * @since 0.1.0
 * @category guards
 */
export const isTransient = (error: unknown): boolean => {
  let current = error
  for (let depth = 0; depth < MAX_DEPTH && current instanceof SummarizerError; depth++) current = current.cause
  if (Cause.isTimeoutException(current)) return true
  if (!AiError.isAiError(current)) return false
  switch (current._tag) {
    case "HttpRequestError":
      return current.reason === "Transport"
    case "HttpResponseError":
      return current.reason === "StatusCode" && isTransientStatus(current.response.status)
    default:
      return false
  }
}

/**
 * Wraps the summarizer in context so that a call that fails goes to the
 * summarizer of `fallback` instead (`Effect.orElse`), with the same summary,
 * messages and request. When both fail, the fallback's `SummarizerError` is the
 * result. `fallback` is built once, with this layer. The result honours
 * `request.mode` (`Summarizer.honoursMode`) when both summarizers do.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { ExtractiveSummarizer } from "rollmem"
 * import { LanguageModelSummarizer, SummarizerPolicy } from "rollmem/ai"
 *
 * // Layer<Summarizer, ConfigError, LanguageModel | TokenCounter>
 * const layer = SummarizerPolicy.withFallback(ExtractiveSummarizer.layer()).pipe(
 *   Layer.provide(LanguageModelSummarizer.layer())
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const withFallback = <E, R>(
  fallback: Layer.Layer<Summarizer.Summarizer, E, R>
): Layer.Layer<Summarizer.Summarizer, E, Summarizer.Summarizer | R> =>
  Layer.scoped(
    Summarizer.Summarizer,
    Effect.gen(function*() {
      const primary = yield* Summarizer.Summarizer
      const secondary = Context.get(yield* Layer.build(fallback), Summarizer.Summarizer)
      const service = Summarizer.Summarizer.of({
        summarize: (summary, messages, request) =>
          Effect.orElse(
            primary.summarize(summary, messages, request),
            () => secondary.summarize(summary, messages, request)
          )
      })
      // honours request.mode when both do (docs/contract.md section 10.9)
      return Summarizer.honoursMode(primary) && Summarizer.honoursMode(secondary)
        ? Summarizer.honouringMode(service)
        : service
    })
  )
