/**
 * The `Summarizer` service: folds evicted turns into the running summary.
 *
 * A summarizer receives the current summary (`""` when none) and the evicted
 * messages, oldest first, and returns the new summary. Wrap it in any policy
 * with Effect's own combinators; a final failure leaves the memory as it was
 * right after the new turn was appended.
 *
 * @example
 * ```ts
 * import { Effect, Schedule } from "effect"
 * import { Summarizer } from "rollmem"
 *
 * const layer = Summarizer.layerEffect((summary, messages) =>
 *   callMyModel(summary, messages).pipe(
 *     Effect.retry(Schedule.exponential("200 millis").pipe(Schedule.jittered, Schedule.intersect(Schedule.recurs(3)))),
 *     Effect.timeout("20 seconds")
 *   )
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { SummarizerError } from "../Errors.js"
import type { Message } from "../schema/Message.js"
import { fromSummarizeSync } from "./internal/summarizing.js"

/**
 * A summarizer.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * The new summary, given the current one and the evicted messages (oldest
   * first). Fails with `SummarizerError`.
   */
  readonly summarize: (summary: string, messages: ReadonlyArray<Message>) => Effect.Effect<string, SummarizerError>
}

/**
 * The summarizer service. Optional for RollingMemory (without one, evicted
 * turns are dropped), required for SummaryMemory.
 *
 * @since 0.1.0
 * @category tags
 */
export class Summarizer extends Context.Tag("rollmem/Summarizer")<Summarizer, Service>() {}

const isThenable = (u: unknown): u is PromiseLike<unknown> =>
  typeof u === "object" && u !== null && typeof (u as { then?: unknown }).then === "function"

const toError = (cause: unknown): SummarizerError =>
  cause instanceof SummarizerError ? cause : new SummarizerError({ description: describe(cause), cause })

const describe = (cause: unknown): string => cause instanceof Error ? cause.message : String(cause)

const checkString = (result: unknown): Exit.Exit<string, SummarizerError> =>
  typeof result === "string" ? Exit.succeed(result) : Exit.fail(
    new SummarizerError({
      description: `summarizer returned ${result === null ? "null" : typeof result}, not a string`,
      cause: new TypeError(`summarizer must return a string, got ${result === null ? "null" : typeof result}`)
    })
  )

/**
 * Builds a summarizer from a synchronous function. A throw, or a result that
 * is not a string, fails with `SummarizerError` carrying the cause. A function
 * that returns a Promise is refused (`SummarizerError` whose cause is a
 * `TypeError`) and the promise gets a rejection handler, so a later rejection
 * is not unhandled: use {@link fromPromise} for asynchronous summarizers.
 *
 * A memory calls such a summarizer within the add that needs the fold, in
 * the same synchronous step (no lock, no fiber): the function must not
 * block on I/O. Wrapping it with {@link withPolicy} makes it an ordinary
 * effectful summarizer again.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromFunction = (f: (summary: string, messages: ReadonlyArray<Message>) => string): Service =>
  fromSummarizeSync((summary, messages) => {
    let result: unknown
    try {
      result = f(summary, messages)
    } catch (cause) {
      return Exit.fail(toError(cause))
    }
    if (isThenable(result)) {
      result.then(undefined, () => undefined)
      const cause = new TypeError(
        "summarizer returned a Promise in a synchronous memory; use an async memory (AsyncRollingMemory) for an async summarizer"
      )
      return Exit.fail(new SummarizerError({ description: cause.message, cause }))
    }
    return checkString(result)
  })

/**
 * Builds a summarizer from a function returning a string or a Promise of
 * one. The `AbortSignal` fires when the call is interrupted (a timeout, a
 * cancelled request). A rejection fails with `SummarizerError` whose `cause`
 * is the rejection reason.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromPromise = (
  f: (summary: string, messages: ReadonlyArray<Message>, signal: AbortSignal) => string | PromiseLike<string>
): Service => ({
  summarize: (summary, messages) =>
    Effect.flatMap(
      Effect.tryPromise({
        try: async (signal): Promise<unknown> => await f(summary, messages, signal),
        catch: toError
      }),
      checkString
    )
})

/**
 * Builds a summarizer from a function returning an Effect. Any failure that
 * is not already a `SummarizerError` (a `TimeoutException` from
 * `Effect.timeout`, a model error) becomes one, with the original as `cause`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromEffect = <E>(
  f: (summary: string, messages: ReadonlyArray<Message>) => Effect.Effect<string, E>
): Service => ({
  summarize: (summary, messages) =>
    Effect.flatMap(Effect.mapError(Effect.suspend(() => f(summary, messages)), toError), checkString)
})

/**
 * Provides a summarizer from a synchronous function (see {@link fromFunction}).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFunction = (
  f: (summary: string, messages: ReadonlyArray<Message>) => string
): Layer.Layer<Summarizer> => Layer.succeed(Summarizer, fromFunction(f))

/**
 * Provides a summarizer from a Promise-returning function (see {@link fromPromise}).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerPromise = (
  f: (summary: string, messages: ReadonlyArray<Message>, signal: AbortSignal) => string | PromiseLike<string>
): Layer.Layer<Summarizer> => Layer.succeed(Summarizer, fromPromise(f))

/**
 * Provides a summarizer from an Effect-returning function (see {@link fromEffect}).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerEffect = <E>(
  f: (summary: string, messages: ReadonlyArray<Message>) => Effect.Effect<string, E>
): Layer.Layer<Summarizer> => Layer.succeed(Summarizer, fromEffect(f))

/**
 * Wraps the summarizer in context with a policy (retry, timeout, fallback):
 * `policy` receives each call's Effect and may fail with anything, which
 * becomes a `SummarizerError` carrying it.
 *
 * @example
 * ```ts
 * const resilient = Summarizer.withPolicy((call) =>
 *   call.pipe(Effect.retry(Schedule.recurs(2)), Effect.timeout("10 seconds"))
 * )
 * // Layer<Summarizer, never, Summarizer>: Layer.provide(resilient, mySummarizerLayer)
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const withPolicy = <E>(
  policy: (call: Effect.Effect<string, SummarizerError>) => Effect.Effect<string, E>
): Layer.Layer<Summarizer, never, Summarizer> =>
  Layer.effect(
    Summarizer,
    Effect.map(Summarizer, (inner) => fromEffect((summary, messages) => policy(inner.summarize(summary, messages))))
  )
