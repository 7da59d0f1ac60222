/**
 * What a model summarizer's policy needs beyond Effect's own combinators:
 * {@link withPolicy}, to run each call through a policy (timeout, retry),
 * {@link isTransient}, to retry only what may succeed on a second try, and
 * {@link withFallback}, to fall back to another summarizer layer.
 *
 * {@link withPolicy} turns any error of the policy (a `TimeoutError` from
 * `Effect.timeout`, the last retried error) into a `SummarizerError`
 * carrying it as `cause`. Layers apply from the inside out: the per-call
 * timeout inside the retry, the fallback outside both. Whatever the policy,
 * a call that finally fails leaves the memory as it was right after the new
 * turn was appended. On the Effect 3 line `withPolicy` is
 * `Summarizer.withPolicy`; this line's `Summarizer` has none, so it is here.
 *
 * @example
 * ```ts
 * import { Effect, Layer, Schedule } from "effect"
 * import type { LanguageModel } from "effect/ai"
 * import { Summarizer } from "rollmem"
 * import { LanguageModelSummarizer, SummarizerPolicy } from "rollmem/ai"
 *
 * declare const myLanguageModelLayer: Layer.Layer<LanguageModel.LanguageModel>
 * const fallback = Summarizer.layerFunction((summary, messages) => `${summary} +${messages.length} turns`.trim())
 * const resilient = SummarizerPolicy.withFallback(fallback).pipe(
 *   Layer.provide(
 *     SummarizerPolicy.withPolicy((call) =>
 *       call.pipe(
 *         Effect.timeout("20 seconds"), // per call
 *         Effect.retry({
 *           schedule: Schedule.exponential("500 millis").pipe(Schedule.jittered),
 *           times: 3,
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
 * @since 1.0.0
 */
import { AiError } from "effect/ai"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { isTransientStatus } from "../../../src/core/summarizing.js"
import { SummarizerError } from "../Errors.js"
import * as Summarizer from "../services/Summarizer.js"

const MAX_DEPTH = 16

/**
 * Whether a failure may go away on a second try: a `TimeoutError`, or an
 * `AiError` whose reason is a `NetworkError` of reason `TransportError`
 * (the transport failed), carries an HTTP response with status 408, 409,
 * 425, 429 or 5xx, or, without one, is a `RateLimitError` or an
 * `InternalProviderError` (what a provider maps 429 and 5xx to). A
 * `SummarizerError` is judged by its `cause`. Anything else (a 400 or 401,
 * an invalid or malformed reply, a summary over budget) is not transient.
 *
 * Effect 4's `AiError` has no `HttpRequestError`/`HttpResponseError` (the
 * Effect 3 line's `@effect/ai` errors): the same failures are read from the
 * error's `reason` and its `http.response.status`. Its own `isRetryable`
 * is not used: it holds a model's invalid output retryable, which this
 * policy does not (the Effect 3 line's rule).
 *
 * Use it as `Effect.retry({ schedule, while: isTransient })`.
 *
 * @example
 * ```ts
 * import { Effect, Schedule } from "effect"
 * import { SummarizerPolicy } from "rollmem/ai"
 *
 * // retry timeouts, transport failures, 408/409/425/429 and 5xx answers; not a 400 or 401
 * const retrying = SummarizerPolicy.withPolicy((call) =>
 *   call.pipe(Effect.retry({ schedule: Schedule.exponential("500 millis"), times: 3, while: SummarizerPolicy.isTransient }))
 * )
 * ```
 *
 * @since 1.0.0
 */
export const isTransient = (error: unknown): boolean => {
  let current = error
  for (let depth = 0; depth < MAX_DEPTH && current instanceof SummarizerError; depth++) current = current.cause
  if (Cause.isTimeoutError(current)) return true
  if (!AiError.isAiError(current)) return false
  const reason = current.reason
  if (reason._tag === "NetworkError") return reason.reason === "TransportError"
  const status = "http" in reason ? reason.http?.response?.status : undefined
  if (status !== undefined) return isTransientStatus(status)
  return reason._tag === "RateLimitError" || reason._tag === "InternalProviderError"
}

/**
 * Wraps the summarizer in context with a policy (retry, timeout):
 * `policy` receives each call's Effect and may fail with anything, which
 * becomes a `SummarizerError` carrying it (a `SummarizerError` the policy
 * fails with is passed on as it is). Over `Summarizer.drop` it provides
 * `drop` itself: there is no call to wrap, and the memory still drops. It
 * keeps the inner summarizer's `honoursMode` (summary segments,
 * docs/contract.md section 10.9).
 *
 * @example
 * ```ts
 * import { Effect, Schedule } from "effect"
 * import { SummarizerPolicy } from "rollmem/ai"
 *
 * const resilient = SummarizerPolicy.withPolicy((call) =>
 *   call.pipe(Effect.retry(Schedule.recurs(2)), Effect.timeout("10 seconds"))
 * )
 * // Layer<Summarizer, never, Summarizer>: Layer.provide(resilient, mySummarizerLayer)
 * ```
 *
 * @since 1.0.0
 */
export const withPolicy = <E, R = never>(
  policy: (call: Effect.Effect<string, SummarizerError>) => Effect.Effect<string, E, R>
): Layer.Layer<Summarizer.Summarizer, never, Summarizer.Summarizer | R> =>
  Layer.effect(
    Summarizer.Summarizer,
    Effect.gen(function*() {
      const inner = yield* Summarizer.Summarizer
      const context = yield* Effect.context<R>()
      if (Summarizer.isDrop(inner)) return inner
      const wrapped = Summarizer.fromEffect((summary, messages, request) =>
        Effect.provideContext(policy(inner.summarize(summary, messages, request)), context)
      )
      // the inner summarizer's honoursMode is kept (docs/contract.md section 10.9)
      return Summarizer.honoursMode(inner) ? Summarizer.honouringMode(wrapped) : wrapped
    })
  )

/**
 * Wraps the summarizer in context so that a call that fails goes to the
 * summarizer of `fallback` instead (`Effect.orElse`), with the same summary,
 * messages and request. When both fail, the fallback's `SummarizerError` is
 * the result. It honours `request.mode` (summary segments, docs/contract.md
 * section 10.9) when both summarizers do. `fallback` is built once, with this layer.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { Summarizer } from "rollmem"
 * import { LanguageModelSummarizer, SummarizerPolicy } from "rollmem/ai"
 *
 * // Layer<Summarizer, ConfigError, LanguageModel>
 * const layer = SummarizerPolicy.withFallback(Summarizer.layerFunction((summary) => summary)).pipe(
 *   Layer.provide(LanguageModelSummarizer.layer())
 * )
 * ```
 *
 * @since 1.0.0
 */
export const withFallback = <E, R>(
  fallback: Layer.Layer<Summarizer.Summarizer, E, R>
): Layer.Layer<Summarizer.Summarizer, E, Summarizer.Summarizer | R> =>
  Layer.effect(
    Summarizer.Summarizer,
    Effect.gen(function*() {
      const primary = yield* Summarizer.Summarizer
      const secondary = Context.get(yield* Layer.build(fallback), Summarizer.Summarizer)
      const service = Summarizer.Summarizer.of({
        summarize: (summary, messages, request) =>
          Effect.catch(
            primary.summarize(summary, messages, request),
            () => secondary.summarize(summary, messages, request)
          )
      })
      // honoursMode when both summarizers have it (docs/contract.md section 10.9)
      return Summarizer.honoursMode(primary) && Summarizer.honoursMode(secondary)
        ? Summarizer.honouringMode(service)
        : service
    })
  )
