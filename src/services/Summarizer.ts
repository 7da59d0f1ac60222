/**
 * The `Summarizer` service: folds evicted turns into the running summary.
 *
 * A summarizer receives the current summary (`""` when none), the evicted
 * messages, oldest first, and the memory's {@link Request} (its summary
 * budget `maxSummaryTokens` and its token counter), and returns the new
 * summary. A function may ignore the request; a summary the memory counts
 * over its budget fails the fold with `SummaryBudgetError`. Wrap a
 * summarizer in any policy with Effect's own combinators; a final failure
 * leaves the memory as it was right after the new turn was appended.
 *
 * @example
 * ```ts
 * import { Effect, Schedule } from "effect"
 * import { Summarizer } from "rollmem"
 * import type { Message } from "rollmem"
 *
 * declare const callMyModel: (summary: string, turns: ReadonlyArray<Message.Message>, maxTokens?: number) => Effect.Effect<string, Error>
 * const layer = Summarizer.layerEffect((summary, messages, request) =>
 *   callMyModel(summary, messages, request.maxSummaryTokens).pipe(
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
import type { Compaction } from "../schema/MemoryState.js"
import type { Message } from "../schema/Message.js"
import { refusals, thrownAsIs } from "./internal/summarizing.js"
import * as TokenCounter from "./TokenCounter.js"

/**
 * What a memory asks of a fold beside the summary and the messages
 * (docs/contract.md section 10.4). Built once per memory; fields may be added
 * in later versions, so read the ones you need.
 *
 * @since 0.2.0
 * @category models
 */
export interface Request {
  /**
   * The memory's summary budget in tokens (its `maxSummaryTokens`), counted
   * with {@link Request.counter}; `undefined` when the memory has none. A
   * summary over it fails the fold with `SummaryBudgetError`.
   */
  readonly maxSummaryTokens: number | undefined
  /** The memory's token counter: what the memory counts the summary with. */
  readonly counter: TokenCounter.Service
  /**
   * What to keep, when the fold was asked for by `compact({ focus })`
   * (docs/contract.md section 16.2), e.g. `"the open bug"`; absent
   * otherwise. The shipped model summarizers put it in their prompt; a
   * function may ignore it.
   */
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
  /**
   * The provider compaction the memory holds (docs/contract.md section
   * 15.6), when it holds one: a compacting summarizer ({@link Compacted})
   * sends it back with the turns, so the new compaction covers it. Absent
   * otherwise.
   */
  readonly compaction?: Compaction | undefined
}

/**
 * What a compacting summarizer returns in place of a summary text
 * (docs/contract.md section 15.7): a provider's own compaction item, kept
 * verbatim as the memory's version 3 `compaction`, and the summary text that
 * goes with it (`""` when the compaction holds everything). Build it with
 * {@link compacted}. A plain string stays a summarizer's usual result.
 *
 * @since 0.4.0
 * @category models
 */
export interface Compacted {
  readonly _tag: "Compacted"
  readonly compaction: Compaction
  readonly summary: string
}

/**
 * The model summarizers rollmem ships, as {@link ProviderUsage} and the
 * summarizer-usage metrics name them (docs/contract.md section 16.5).
 *
 * @since 0.4.0
 * @category models
 */
export type ShippedSummarizer =
  | "openai-chat"
  | "anthropic"
  | "ai-sdk"
  | "anthropic-compaction"
  | "openai-responses-compact"
  | "language-model"

/**
 * What one request of a shipped model summarizer cost, as the provider's
 * response reported it (docs/contract.md section 16.5): given to the
 * summarizer's `onUsage` and added to the counters
 * `rollmem_summarizer_input_tokens` / `rollmem_summarizer_output_tokens`.
 * It is the summarizer's own request (instructions, the summary and the
 * evicted turns rendered as text), not the memory's context: it is not a
 * `recordUsage` sample.
 *
 * - `summarizer`: which summarizer made the request;
 * - `model`: the model asked (the option's name, an AI SDK model's
 *   `modelId`), `undefined` when unknown (`@effect/ai`'s `LanguageModel`);
 * - `inputTokens`: the whole prompt, cache reads and writes included;
 * - `outputTokens`: the tokens generated, `undefined` when not reported.
 *
 * @since 0.4.0
 * @category models
 */
export interface ProviderUsage {
  readonly summarizer: ShippedSummarizer
  readonly model: string | undefined
  readonly inputTokens: number
  readonly outputTokens: number | undefined
}

/**
 * A summarizer's result: the new summary, or a provider compaction
 * ({@link Compacted}).
 *
 * @since 0.4.0
 * @category models
 */
export type Result = string | Compacted

/**
 * A {@link Compacted} result: `compaction` (verbatim) and the summary text
 * kept beside it (default `""`).
 *
 * @example
 * ```ts
 * import { Summarizer } from "rollmem"
 *
 * Summarizer.compacted({ format: "openai-responses", item: { type: "compaction", encrypted_content: "gAAA" }, content: "" })
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const compacted = (compaction: Compaction, summary = ""): Compacted => ({
  _tag: "Compacted",
  compaction,
  summary
})

/**
 * Whether a summarizer's result is a {@link Compacted}.
 *
 * @example
 * ```ts
 * import { Summarizer } from "rollmem"
 *
 * const result = Summarizer.compacted({ format: "openai-responses", item: { type: "compaction", encrypted_content: "gAAA" }, content: "" })
 * Summarizer.isCompacted(result) // true
 * Summarizer.isCompacted("a summary") // false
 * ```
 *
 * @since 0.4.0
 * @category guards
 */
export const isCompacted = (result: unknown): result is Compacted =>
  typeof result === "object" && result !== null && (result as { readonly _tag?: unknown })._tag === "Compacted" &&
  typeof (result as { readonly summary?: unknown }).summary === "string" &&
  typeof (result as { readonly compaction?: unknown }).compaction === "object"

/**
 * Builds a {@link Request}: no budget and the word counter unless given
 * (what a memory passes is built from its own options and counter). For
 * calling a summarizer outside a memory, in tests or a custom pipeline.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message, Summarizer } from "rollmem"
 *
 * const summary = Effect.gen(function*() {
 *   const summarizer = yield* Summarizer.Summarizer
 *   return yield* summarizer.summarize("", [Message.user("Book me a flight to Rome")], Summarizer.request({ maxSummaryTokens: 200 }))
 * }).pipe(Effect.provide(Summarizer.layerFunction((summary, turns) => `${summary} ${turns.length} turns`.trim())))
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const request = (options?: {
  readonly maxSummaryTokens?: number | undefined
  readonly counter?: TokenCounter.Service | undefined
}): Request => ({
  maxSummaryTokens: options?.maxSummaryTokens,
  counter: options?.counter ?? TokenCounter.wordCounter
})

/**
 * A summarizer.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * The new summary, given the current one, the evicted messages (oldest
   * first) and the memory's {@link Request}. Fails with `SummarizerError`.
   */
  readonly summarize: (
    summary: string,
    messages: ReadonlyArray<Message>,
    request: Request
  ) => Effect.Effect<string, SummarizerError>
  /**
   * The same call without an effect, when the summarizer has one (a
   * summarizer built from a synchronous function, {@link fromFunction}): the
   * new summary or the `SummarizerError`; it never throws. A memory whose
   * summarizer has it folds within the add's own step, where nothing can
   * interleave, so the fold takes no lock and starts no fiber. Any wrapper
   * that may suspend ({@link fromEffect}, {@link withPolicy}, a timeout)
   * has none, and its folds go through the memory's one-permit `Semaphore`.
   */
  readonly summarizeSync?:
    | ((summary: string, messages: ReadonlyArray<Message>, request: Request) => string | SummarizerError)
    | undefined
  /**
   * `true` on a summarizer that keeps nothing of the evicted turns (it
   * returns the summary unchanged): {@link drop}, and what {@link withPolicy}
   * makes of it. A memory built with such a summarizer never calls it: a
   * RollingMemory drops evicted turns inline (no call, no lock, reported as
   * dropped), a SummaryMemory refuses it (`ConfigError`). Absent on every
   * other summarizer; a summarizer written by hand that merely returns the
   * summary is called like any other.
   */
  readonly drops?: true | undefined
  /**
   * The call that may return a provider compaction ({@link Result}): set by
   * {@link fromPromise}, whose function may return a {@link Compacted}. A
   * memory folds with it when present (one call for all the evicted turns),
   * and with {@link Service.summarize} otherwise (and for summary segments
   * and folds in chunks, which need a text: a {@link Compacted} fails them
   * with `SummarizerError`).
   */
  readonly compact?:
    | ((summary: string, messages: ReadonlyArray<Message>, request: Request) => Effect.Effect<Result, SummarizerError>)
    | undefined
  /**
   * `true` on a summarizer that honours {@link Request.mode} (returns only
   * the new segment for `"segment"`, one replacing text for
   * `"consolidate"`): the summarizers rollmem ships, {@link drop}, and any
   * marked with {@link honouringMode}; kept by {@link withPolicy}. A memory
   * with summary segments on (`summary: "segments"`, docs/contract.md
   * section 10.9) refuses any other with `ConfigError` (option `summary`):
   * it would write the whole summary into every segment.
   */
  readonly honoursMode?: true | undefined
  /**
   * `true` on a summarizer whose folds return a provider compaction
   * ({@link Compacted}) rather than a text: the compacting summarizers of
   * `rollmem/adapters` (`anthropicCompactionSummarizer`,
   * `openAIResponsesCompactSummarizer`), a function marked with
   * {@link compacting}, and what {@link fromPromise} and
   * {@link withPolicy} make of them. A memory built with one and summary
   * segments or `maxSummarizerInputTokens` fails with `ConfigError`
   * naming why (docs/contract.md section 15.7): both need a text from each
   * call.
   */
  readonly compacts?: true | undefined
}

/**
 * Whether `summarizer` declares it compacts (see {@link Service.compacts}).
 *
 * @example
 * ```ts
 * import { Summarizer } from "rollmem"
 *
 * const summarize = Summarizer.compacting(async () => "a summary")
 * Summarizer.compacts(summarize) // true
 * Summarizer.compacts(async () => "a summary") // false
 * ```
 *
 * @since 0.4.0
 * @category guards
 */
export const compacts = (summarizer: Service | ((...args: ReadonlyArray<never>) => unknown)): boolean =>
  (summarizer as { readonly compacts?: unknown }).compacts === true

/**
 * Declares that a Promise summarizer function returns a provider compaction
 * ({@link Compacted}; see {@link Service.compacts}): a function that calls
 * it, carrying `compacts: true`, which {@link fromPromise} keeps, so a
 * memory refuses it with summary segments or folds in chunks when it is
 * built instead of failing its first fold.
 *
 * @example
 * ```ts
 * import { Summarizer } from "rollmem"
 *
 * const mine = Summarizer.compacting(async () =>
 *   Summarizer.compacted({ format: "openai-responses", item: { type: "compaction", encrypted_content: "gAAA" }, content: "" })
 * )
 * Summarizer.compacts(mine) // true
 * ```
 *
 * @since 0.4.0
 * @category combinators
 */
export const compacting = <F extends (...args: ReadonlyArray<never>) => unknown>(
  f: F
): F & { readonly compacts: true } =>
  Object.assign((...args: Array<unknown>) => (f as unknown as (...args: Array<unknown>) => unknown)(...args), {
    compacts: true as const
  }) as unknown as F & { readonly compacts: true }

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
 * @since 0.4.0
 * @category guards
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
 * @since 0.4.0
 * @category combinators
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
 * Whether a memory built with `summarizer` drops evicted turns instead of
 * calling it (see {@link Service.drops}).
 *
 * @example
 * ```ts
 * import { Summarizer } from "rollmem"
 *
 * Summarizer.isDrop(Summarizer.drop) // true
 * Summarizer.isDrop(Summarizer.fromFunction((summary) => summary)) // false
 * ```
 *
 * @since 0.2.0
 * @category guards
 */
export const isDrop = (summarizer: Service): boolean => summarizer.drops === true

/**
 * A summarizer with a synchronous form (what {@link fromFunction} builds).
 *
 * @since 0.2.0
 * @category models
 */
export interface Synchronous extends Service {
  readonly summarizeSync: NonNullable<Service["summarizeSync"]>
}

/**
 * What {@link make} builds a summarizer from: `summarizeSync`, `summarize`,
 * or both (they must summarize alike), and `honoursMode` when it honours
 * {@link Request.mode} (see {@link Service.honoursMode}).
 *
 * @since 0.2.0
 * @category models
 */
export type MakeOptions =
  | {
    readonly summarize: Service["summarize"]
    readonly summarizeSync?: Service["summarizeSync"]
    readonly honoursMode?: true | undefined
  }
  | {
    readonly summarize?: Service["summarize"] | undefined
    readonly summarizeSync: NonNullable<Service["summarizeSync"]>
    readonly honoursMode?: true | undefined
  }

const fromSync = (result: string | SummarizerError): Effect.Effect<string, SummarizerError> =>
  typeof result === "string" ? Effect.succeed(result) : Effect.fail(result)

/**
 * Builds a summarizer, filling what is missing (as `KeyValueStore.make`
 * fills its optional members): with `summarizeSync` alone, `summarize` runs
 * it when the effect runs; with `summarize` alone, the summarizer has no
 * synchronous form, and a memory folds with it under its lock.
 *
 * @example
 * ```ts
 * import { Summarizer } from "rollmem"
 *
 * const joined = Summarizer.make({
 *   summarizeSync: (summary, turns) => [summary, ...turns.map((t) => t.content)].join(" ").trim()
 * })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export function make(
  options: {
    readonly summarize?: Service["summarize"] | undefined
    readonly summarizeSync: Synchronous["summarizeSync"]
    readonly honoursMode?: true | undefined
  }
): Synchronous
export function make(options: MakeOptions): Service
export function make(options: MakeOptions): Service {
  const { summarize, summarizeSync } = options
  if (summarizeSync === undefined) {
    if (summarize === undefined) throw new TypeError("Summarizer.make needs summarize or summarizeSync")
    return keepMode(options, { summarize })
  }
  return keepMode(options, {
    summarize: summarize ??
      ((summary, messages, request) => Effect.suspend(() => fromSync(summarizeSync(summary, messages, request)))),
    summarizeSync
  })
}

/**
 * The summarizer service. Required by RollingMemory's and SummaryMemory's
 * constructors (`make`, `makeScoped`, `fromState`, `fromJSON`), which read
 * it once, when the memory is built: providing it to `add` has no effect.
 * To drop evicted turns on purpose, provide {@link layerDrop}.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message, Summarizer } from "rollmem"
 *
 * const program = Effect.gen(function*() {
 *   const summarizer = yield* Summarizer.Summarizer
 *   return yield* summarizer.summarize("", [Message.user("hi")], Summarizer.request())
 * }).pipe(Effect.provide(Summarizer.layerFunction((summary, turns) => `${summary} ${turns.length} turn(s)`.trim())))
 * // "1 turn(s)"
 * ```
 *
 * @since 0.1.0
 * @category tags
 */
export class Summarizer extends Context.Tag("rollmem/Summarizer")<Summarizer, Service>() {}

const isThenable = (u: unknown): u is PromiseLike<unknown> =>
  typeof u === "object" && u !== null && typeof (u as { then?: unknown }).then === "function"

const toError = (cause: unknown): SummarizerError => {
  if (!(cause instanceof SummarizerError)) return new SummarizerError({ description: describe(cause), cause })
  thrownAsIs.add(cause)
  return cause
}

const describe = (cause: unknown): string => cause instanceof Error ? cause.message : String(cause)

const notString = (result: unknown): SummarizerError => {
  const error = new SummarizerError({
    description: `summarizer returned ${result === null ? "null" : typeof result}, not a string`,
    cause: new TypeError(`summarizer must return a string, got ${result === null ? "null" : typeof result}`)
  })
  refusals.add(error)
  return error
}

const checkString = (result: unknown): Exit.Exit<string, SummarizerError> =>
  typeof result === "string"
    ? Exit.succeed(result)
    : Exit.fail(
      isCompacted(result)
        ? new SummarizerError({
          description: "summarizer returned a provider compaction where a summary text is needed " +
            "(summary segments, a fold in chunks, a call through summarize)"
        })
        : notString(result)
    )

const checkResult = (result: unknown): Exit.Exit<Result, SummarizerError> =>
  isCompacted(result) ? Exit.succeed(result) : checkString(result)

/**
 * Builds a summarizer from a synchronous function. A throw, or a result that
 * is not a string, fails with `SummarizerError` carrying the cause. A function
 * that returns a Promise is refused (`SummarizerError` whose cause is a
 * `TypeError`) and the promise gets a rejection handler, so a later rejection
 * is not unhandled: use {@link fromPromise} for asynchronous summarizers.
 *
 * The result has a `summarizeSync` ({@link Synchronous}): a memory calls it
 * within the add that needs the fold, in the same synchronous step (no lock,
 * no fiber), so the function must not block on I/O. Wrapping it
 * ({@link withPolicy}, {@link fromEffect} over its `summarize`) gives a
 * summarizer without `summarizeSync`, whose folds go through the memory's
 * `Semaphore` like any effectful summarizer's.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message, RollingMemory, Summarizer } from "rollmem"
 *
 * const summarizer = Summarizer.fromFunction((summary, turns) => [summary, ...turns.map(String)].join("\n").trim())
 * const program = Effect.gen(function*() {
 *   const memory = yield* RollingMemory.make({ maxTokens: 50 })
 *   yield* memory.add(Message.user("Book me a flight to Rome"))
 * }).pipe(Effect.provideService(Summarizer.Summarizer, summarizer))
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromFunction = (
  f: (summary: string, messages: ReadonlyArray<Message>, request: Request) => string
): Synchronous =>
  keepMode(
    f,
    make({
      summarizeSync: (summary, messages, request) => {
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
        return typeof result === "string" ? result : notString(result)
      }
    })
  )

/**
 * A Promise-returning summarizer: the new summary (a string or a Promise of
 * one) from the current summary, the evicted messages, an `AbortSignal` that
 * fires when the call is interrupted (a timeout, a cancelled request: pass it
 * to your SDK's `{ signal }`), and the memory's {@link Request}. The signal
 * stays the third argument, as before the request existed, so a function
 * written `(summary, messages, signal)` keeps working; the request is the
 * fourth.
 *
 * @since 0.2.0
 * @category models
 */
export type PromiseFunction = (
  summary: string,
  messages: ReadonlyArray<Message>,
  signal: AbortSignal,
  request: Request
) => Result | PromiseLike<Result>

/**
 * Builds a summarizer from a function returning a string or a Promise of
 * one (see {@link PromiseFunction}: the `AbortSignal` third, the request
 * fourth), or a provider compaction ({@link Compacted}, kept by the memory
 * through {@link Service.compact}). A rejection fails with
 * `SummarizerError` whose `cause` is the rejection reason. The result has
 * no `summarizeSync`.
 *
 * @example
 * ```ts
 * import { Summarizer } from "rollmem"
 *
 * declare const callMyModel: (prompt: string, signal: AbortSignal) => Promise<string>
 * // the signal aborts when the memory gives up on the call (an interrupted fold)
 * const summarizer = Summarizer.fromPromise((summary, turns, signal) =>
 *   callMyModel(`${summary}\n${turns.map(String).join("\n")}`, signal)
 * )
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromPromise = (f: PromiseFunction): Service => {
  const call = (summary: string, messages: ReadonlyArray<Message>, request: Request) =>
    Effect.tryPromise({
      try: async (signal): Promise<unknown> => await f(summary, messages, signal, request),
      catch: toError
    })
  return keepMode(f, {
    summarize: (summary, messages, request) => Effect.flatMap(call(summary, messages, request), checkString),
    compact: (summary, messages, request) => Effect.flatMap(call(summary, messages, request), checkResult),
    ...(compacts(f) ? { compacts: true as const } : {})
  })
}

/**
 * Builds a summarizer from a function returning an Effect. Any failure that
 * is not already a `SummarizerError` (a `TimeoutException` from
 * `Effect.timeout`, a model error) becomes one, with the original as `cause`.
 * The result has no `summarizeSync`, even when `f` never suspends: a memory
 * folds with it under its one-permit `Semaphore`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Summarizer } from "rollmem"
 *
 * const summarizer = Summarizer.fromEffect((summary, turns, request) =>
 *   Effect.succeed(`${summary} +${turns.length} turns (budget ${request.maxSummaryTokens ?? "none"})`.trim())
 * )
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromEffect = <E>(
  f: (summary: string, messages: ReadonlyArray<Message>, request: Request) => Effect.Effect<string, E>
): Service =>
  keepMode(f, {
    summarize: (summary, messages, request) =>
      Effect.flatMap(Effect.mapError(Effect.suspend(() => f(summary, messages, request)), toError), checkString)
  })

/**
 * Provides a summarizer from a synchronous function (see {@link fromFunction}).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { RollingMemory, Summarizer } from "rollmem"
 *
 * const SummarizerLive = Summarizer.layerFunction((summary, turns) => `${summary}\n${turns.map(String).join("\n")}`.trim())
 * const program = RollingMemory.make({ maxTokens: 2000 }).pipe(Effect.provide(SummarizerLive))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFunction = (
  f: (summary: string, messages: ReadonlyArray<Message>, request: Request) => string
): Layer.Layer<Summarizer> => Layer.succeed(Summarizer, fromFunction(f))

/**
 * Provides a summarizer from a Promise-returning function (see {@link fromPromise}).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { RollingMemory, Summarizer } from "rollmem"
 *
 * declare const callMyModel: (prompt: string, signal: AbortSignal) => Promise<string>
 * const SummarizerLive = Summarizer.layerPromise((summary, turns, signal) =>
 *   callMyModel(`${summary}\n${turns.map(String).join("\n")}`, signal)
 * )
 * const program = RollingMemory.make({ maxTokens: 2000 }).pipe(Effect.provide(SummarizerLive))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerPromise = (f: PromiseFunction): Layer.Layer<Summarizer> => Layer.succeed(Summarizer, fromPromise(f))

/**
 * Provides a summarizer from an Effect-returning function (see
 * {@link fromEffect}). The function may need services (an LLM client): they
 * become the layer's requirements, read once when the layer is built and
 * provided to every call.
 *
 * @example
 * ```ts
 * import { Context, Effect } from "effect"
 * import { Summarizer } from "rollmem"
 * import type { Message } from "rollmem"
 *
 * class MyClient extends Context.Tag("MyClient")<MyClient, {
 *   readonly summarize: (summary: string, turns: ReadonlyArray<Message.Message>, maxTokens?: number) => Effect.Effect<string>
 * }>() {}
 * // Layer<Summarizer, never, MyClient>
 * const layer = Summarizer.layerEffect((summary, messages, request) =>
 *   Effect.flatMap(MyClient, (client) => client.summarize(summary, messages, request.maxSummaryTokens))
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerEffect = <E, R = never>(
  f: (summary: string, messages: ReadonlyArray<Message>, request: Request) => Effect.Effect<string, E, R>
): Layer.Layer<Summarizer, never, R> =>
  Layer.effect(
    Summarizer,
    Effect.map(
      Effect.context<R>(),
      (context) => fromEffect((summary, messages, request) => Effect.provide(f(summary, messages, request), context))
    )
  )

/**
 * Wraps the summarizer in context with a policy (retry, timeout, fallback):
 * `policy` receives each call's Effect and may fail with anything, which
 * becomes a `SummarizerError` carrying it. The wrapped summarizer is built
 * with {@link fromEffect}, so it has no `summarizeSync`: a synchronous
 * summarizer ({@link fromFunction}) wrapped here folds under the memory's
 * `Semaphore` instead of in the add's own step. It keeps the inner
 * summarizer's {@link Service.honoursMode}, and its {@link Service.compact}
 * (the policy then sees a call whose value may be a {@link Compacted}: a
 * retry, a timeout or a fallback to a summarizer that returns text compose
 * with it; a policy that reads the value as text does not). Over {@link drop} it
 * provides {@link drop} itself: there is no call for the policy to wrap, and
 * the memory still drops (see {@link Service.drops}).
 *
 * @example
 * ```ts
 * import { Effect, Schedule } from "effect"
 * import { Summarizer } from "rollmem"
 *
 * const resilient = Summarizer.withPolicy((call) =>
 *   call.pipe(Effect.retry(Schedule.recurs(2)), Effect.timeout("10 seconds"))
 * )
 * // Layer<Summarizer, never, Summarizer>: Layer.provide(resilient, mySummarizerLayer)
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const withPolicy = <E, R = never>(
  policy: (call: Effect.Effect<string, SummarizerError>) => Effect.Effect<string, E, R>
): Layer.Layer<Summarizer, never, Summarizer | R> =>
  Layer.effect(
    Summarizer,
    Effect.map(
      Effect.zip(Summarizer, Effect.context<R>()),
      ([inner, context]) =>
        isDrop(inner) ?
          inner :
          keepCompact(
            inner,
            keepMode(
              inner,
              fromEffect((summary, messages, request) =>
                Effect.provide(policy(inner.summarize(summary, messages, request)), context)
              )
            ),
            (call) => Effect.provide(policy(call as unknown as Effect.Effect<string, SummarizerError>), context)
          )
    )
  )

/** `service` with the `compact` of `inner` run through `wrap`, when `inner` has one (see {@link withPolicy}). */
const keepCompact = <E>(
  inner: Service,
  service: Service,
  wrap: (call: Effect.Effect<Result, SummarizerError>) => Effect.Effect<unknown, E>
): Service => {
  const compact = inner.compact
  if (compact === undefined) return service
  return {
    ...service,
    ...(inner.compacts === true ? { compacts: true as const } : {}),
    compact: (summary, messages, request) =>
      Effect.flatMap(Effect.mapError(wrap(compact(summary, messages, request)), toError), checkResult)
  }
}

/**
 * The summarizer that drops: a RollingMemory built with it drops the
 * evicted turns at once, as the Python package does without a summarizer.
 * The memory recognises it when it is built and never calls it: dropping
 * costs no summarizer call, takes no lock, and is reported as dropping (no
 * `rollmem.fold` span nor fold metrics). Called directly, it returns the
 * summary unchanged. SummaryMemory refuses it (`ConfigError`, option
 * `summarizer`): it would drop every turn.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { RollingMemory, Summarizer } from "rollmem"
 *
 * const memory = RollingMemory.make({ maxTokens: 2000 }).pipe(Effect.provideService(Summarizer.Summarizer, Summarizer.drop))
 * ```
 *
 * @since 0.3.0
 * @category constructors
 */
export const drop: Synchronous & { readonly drops: true; readonly honoursMode: true } = {
  ...make({ summarizeSync: (summary) => summary }),
  drops: true,
  honoursMode: true
}

/**
 * Provides {@link drop}: evicted turns are dropped, on purpose.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { RollingMemory, Summarizer } from "rollmem"
 *
 * const memory = RollingMemory.make({ maxTokens: 2000 }).pipe(Effect.provide(Summarizer.layerDrop))
 * ```
 *
 * @since 0.3.0
 * @category layers
 */
export const layerDrop: Layer.Layer<Summarizer> = Layer.succeed(Summarizer, drop)
