/**
 * The `Summarizer` service on the Effect 4 line (docs/contract.md section 5):
 * folds the current summary and the evicted turns into a new summary.
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Core from "../../../src/core/readySummarizers.js"
import { SummarizerError } from "../Errors.js"
import type { Message } from "../schema/Message.js"
import { answersAtOnce, refusals, thrownAsIs } from "./internal/summarizing.js"
import type * as TokenCounter from "./TokenCounter.js"

/**
 * What every fold passes the summarizer beside the summary and the turns:
 * the summary budget (`maxSummaryTokens`, less the ledger's room), the
 * memory's counter, and `compact`'s focus.
 *
 * @since 1.0.0
 */
export interface Request {
  readonly maxSummaryTokens: number | undefined
  readonly counter: TokenCounter.Service
  readonly focus?: string | undefined
  /**
   * What the fold asks for with summary segments on (`summary: "segments"`,
   * docs/contract.md section 10.9); absent otherwise, when the summarizer
   * returns the whole updated summary, as always:
   *
   * - `"segment"`: only the new segment, summarizing the evicted messages;
   *   the earlier segments ({@link Request.segments}, joined with a blank
   *   line as the `summary` argument) are context, never to be repeated;
   * - `"consolidate"`: one text that replaces every segment
   *   ({@link Request.segments}, joined as the `summary` argument; no
   *   messages), within {@link Request.maxSummaryTokens}.
   *
   * Only a summarizer that declares it honours the mode
   * ({@link Service.honoursMode}) is given one: any other is refused in
   * segments mode.
   */
  readonly mode?: "segment" | "consolidate" | undefined
  /**
   * With {@link Request.mode}: the segments the call reads, oldest first
   * (the earlier ones for `"segment"`, every one for `"consolidate"`);
   * absent otherwise.
   */
  readonly segments?: ReadonlyArray<string> | undefined
}

/**
 * The model summarizers rollmem ships, as {@link ProviderUsage} names them
 * (docs/contract.md section 16.5).
 *
 * @since 1.0.0
 */
export type ShippedSummarizer = Core.ShippedSummarizer

/**
 * What one request of a ready summarizer of `rollmem/adapters` cost, as the
 * provider's response reported it (docs/contract.md section 16.5), given to
 * its `onUsage`: `summarizer`, `model` (the option's model name, an AI SDK
 * model's `modelId`), `inputTokens` (the whole prompt, cache reads and
 * writes included), `outputTokens` (`undefined` when not reported). The
 * summarizer's own request, not the memory's context: not a `recordUsage`
 * sample.
 *
 * @since 1.0.0
 */
export type ProviderUsage = Core.ProviderUsage

/**
 * A summarizer: `summarize(summary, messages, request)`, the new summary or
 * a `SummarizerError`. `drops` marks {@link drop}, which a memory never calls.
 *
 * @since 1.0.0
 */
export interface Service {
  readonly summarize: (
    summary: string,
    messages: ReadonlyArray<Message>,
    request: Request
  ) => Effect.Effect<string, SummarizerError>
  readonly drops?: true | undefined
  /**
   * `true` on a summarizer that honours {@link Request.mode} (returns only
   * the new segment for `"segment"`, one replacing text for
   * `"consolidate"`): {@link drop} and any marked with
   * {@link honouringMode}, kept by {@link fromFunction}, {@link fromPromise}
   * and {@link fromEffect}. A memory with summary segments on
   * (`summary: "segments"`, docs/contract.md section 10.9) refuses any
   * other with `ConfigError` (option `summary`): it would write the whole
   * summary into every segment.
   */
  readonly honoursMode?: true | undefined
}

/**
 * Whether `summarizer` declares it honours {@link Request.mode} (see
 * {@link Service.honoursMode}): what a memory with summary segments on
 * needs.
 *
 * @example
 * ```ts
 * import { Summarizer } from "rollmem"
 *
 * Summarizer.honoursMode(Summarizer.fromFunction((summary) => summary)) // false
 * Summarizer.honoursMode(Summarizer.honouringMode(Summarizer.fromFunction((summary) => summary))) // true
 * ```
 *
 * @since 1.0.0
 */
export const honoursMode = (summarizer: Service | ((...args: ReadonlyArray<never>) => unknown)): boolean =>
  (summarizer as { readonly honoursMode?: unknown }).honoursMode === true

/**
 * Declares that a summarizer honours {@link Request.mode}: given a
 * {@link Service}, the same service with `honoursMode: true`; given a
 * function (for {@link fromFunction}, {@link fromPromise},
 * {@link fromEffect}, or the Promise facade's `summarize`), a function that
 * calls it, carrying `honoursMode: true`, which those constructors keep.
 * Mark only a summarizer that returns the new segment alone when
 * `request.mode` is `"segment"` and one replacing text when it is
 * `"consolidate"` (docs/contract.md section 10.9).
 *
 * @example
 * ```ts
 * import { Summarizer } from "rollmem"
 *
 * const segmentAware = Summarizer.honouringMode(
 *   (summary: string, turns: ReadonlyArray<{ readonly content: string }>, request: Summarizer.Request) =>
 *     request.mode === "consolidate" ? summary.slice(0, 2000) : turns.map((t) => t.content).join(" ")
 * )
 * const summarizer = Summarizer.fromFunction(segmentAware) // honoursMode: true
 * ```
 *
 * @since 1.0.0
 */
export function honouringMode<S extends Service>(summarizer: S): S & { readonly honoursMode: true }
export function honouringMode<F extends (...args: ReadonlyArray<never>) => unknown>(
  summarizer: F
): F & { readonly honoursMode: true }
export function honouringMode(summarizer: Service | ((...args: Array<unknown>) => unknown)): unknown {
  if (typeof summarizer === "function") {
    const f = summarizer
    return Object.assign((...args: Array<unknown>) => f(...args), { honoursMode: true as const })
  }
  return { ...summarizer, honoursMode: true as const }
}

/** `service` with `honoursMode` when `source` (a function or a service) declares it. */
const keepMode = <S extends Service>(source: unknown, service: S): S =>
  (source as { readonly honoursMode?: unknown } | undefined)?.honoursMode === true
    ? { ...service, honoursMode: true }
    : service

/**
 * The summarizer service a memory that folds reads when it is built.
 *
 * @since 1.0.0
 */
export class Summarizer extends Context.Service<Summarizer, Service>()("rollmem/Summarizer") {}

const describe = (cause: unknown): string => cause instanceof Error ? cause.message : String(cause)

// A SummarizerError the function threw itself is its own error: passed on whole (docs/contract.md section 9).
const toError = (cause: unknown): SummarizerError => {
  if (!(cause instanceof SummarizerError)) return new SummarizerError({ description: describe(cause), cause })
  thrownAsIs.add(cause)
  return cause
}

const isThenable = (u: unknown): u is PromiseLike<unknown> =>
  typeof u === "object" && u !== null && typeof (u as { then?: unknown }).then === "function"

// A result that is not a string is rollmem's refusal: the facade throws this SummarizerError whole.
const refusedResult = (result: unknown): SummarizerError => {
  const error = new SummarizerError({
    description: `summarizer returned ${result === null ? "null" : typeof result}, not a string`,
    cause: new TypeError(`summarizer must return a string, got ${result === null ? "null" : typeof result}`)
  })
  refusals.add(error)
  return error
}

const checkString = (result: unknown): Effect.Effect<string, SummarizerError> =>
  typeof result === "string" ? Effect.succeed(result) : Effect.fail(refusedResult(result))

/**
 * A summarizer from a plain function; a throw becomes `SummarizerError`. A
 * function that returns a Promise is refused (`SummarizerError` whose cause
 * is a `TypeError`) and the promise gets a rejection handler, so a later
 * rejection is not unhandled: use {@link fromPromise} for asynchronous
 * summarizers.
 *
 * @example
 * ```ts
 * import { Summarizer } from "rollmem"
 * const joined = Summarizer.fromFunction((summary, messages) => [summary, ...messages.map(String)].join(" "))
 * ```
 *
 * @since 1.0.0
 */
export const fromFunction = (
  f: (summary: string, messages: ReadonlyArray<Message>, request: Request) => string
): Service => {
  const now = (summary: string, messages: ReadonlyArray<Message>, request: Request): string | SummarizerError => {
    let result: unknown
    try {
      result = f(summary, messages, request)
    } catch (cause) {
      return toError(cause)
    }
    if (isThenable(result)) {
      result.then(undefined, () => undefined)
      const cause = new TypeError(
        "summarizer returned a Promise in a synchronous memory; use an async memory (AsyncRollingMemory) for an async summarizer"
      )
      return new SummarizerError({ description: cause.message, cause })
    }
    return typeof result === "string" ? result : refusedResult(result)
  }
  const summarize: Service["summarize"] = (summary, messages, request) =>
    Effect.suspend(() => {
      const result = now(summary, messages, request)
      return typeof result === "string" ? Effect.succeed(result) : Effect.fail(result)
    })
  // the call at once, keyed by this `summarize`: a service that replaces it (a timeout) has none
  answersAtOnce.set(summarize, now)
  return keepMode(f, { summarize })
}

/** A summarizer from a function returning a promise (given an `AbortSignal` for interruption). @since 1.0.0 */
export const fromPromise = (
  f: (
    summary: string,
    messages: ReadonlyArray<Message>,
    signal: AbortSignal,
    request: Request
  ) => string | PromiseLike<string>
): Service =>
  keepMode(f, {
    summarize: (summary, messages, request) =>
      Effect.flatMap(
        Effect.tryPromise({
          try: async (signal): Promise<unknown> => await f(summary, messages, signal, request),
          catch: toError
        }),
        checkString
      )
  })

/** A summarizer from an effect; its failure becomes `SummarizerError`. @since 1.0.0 */
export const fromEffect = <E>(
  f: (summary: string, messages: ReadonlyArray<Message>, request: Request) => Effect.Effect<string, E>
): Service =>
  keepMode(f, {
    summarize: (summary, messages, request) =>
      Effect.flatMap(Effect.mapError(Effect.suspend(() => f(summary, messages, request)), toError), checkString)
  })

/** A layer of {@link fromFunction}. @since 1.0.0 */
export const layerFunction = (
  f: (summary: string, messages: ReadonlyArray<Message>, request: Request) => string
): Layer.Layer<Summarizer> => Layer.succeed(Summarizer, fromFunction(f))

/** Dropping: evicted turns are dropped, the summarizer never called (it honours `request.mode`: never called). @since 1.0.0 */
export const drop: Service = { summarize: (summary) => Effect.succeed(summary), drops: true, honoursMode: true }

/** A layer of {@link drop}. @since 1.0.0 */
export const layerDrop: Layer.Layer<Summarizer> = Layer.succeed(Summarizer, drop)

/** Whether a summarizer is {@link drop}. @since 1.0.0 */
export const isDrop = (summarizer: Service): boolean => summarizer.drops === true
