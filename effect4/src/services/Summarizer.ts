/**
 * The `Summarizer` service on the Effect 4 line (docs/contract.md section 5):
 * folds the current summary and the evicted turns into a new summary.
 *
 * @since 1.0.0
 */
import { Context, Effect, Layer } from "effect"
import { SummarizerError } from "../Errors.js"
import type { Message } from "../schema/Message.js"
import { refusals, thrownAsIs } from "./internal/summarizing.js"
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
}

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
}

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
const checkString = (result: unknown): Effect.Effect<string, SummarizerError> => {
  if (typeof result === "string") return Effect.succeed(result)
  const error = new SummarizerError({
    description: `summarizer returned ${result === null ? "null" : typeof result}, not a string`,
    cause: new TypeError(`summarizer must return a string, got ${result === null ? "null" : typeof result}`)
  })
  refusals.add(error)
  return Effect.fail(error)
}

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
): Service => ({
  summarize: (summary, messages, request) =>
    Effect.suspend(() => {
      let result: unknown
      try {
        result = f(summary, messages, request)
      } catch (cause) {
        return Effect.fail(toError(cause))
      }
      if (isThenable(result)) {
        result.then(undefined, () => undefined)
        const cause = new TypeError(
          "summarizer returned a Promise in a synchronous memory; use an async memory (AsyncRollingMemory) for an async summarizer"
        )
        return Effect.fail(new SummarizerError({ description: cause.message, cause }))
      }
      return checkString(result)
    })
})

/** A summarizer from a function returning a promise (given an `AbortSignal` for interruption). @since 1.0.0 */
export const fromPromise = (
  f: (
    summary: string,
    messages: ReadonlyArray<Message>,
    signal: AbortSignal,
    request: Request
  ) => string | PromiseLike<string>
): Service => ({
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
): Service => ({
  summarize: (summary, messages, request) =>
    Effect.flatMap(Effect.mapError(Effect.suspend(() => f(summary, messages, request)), toError), checkString)
})

/** A layer of {@link fromFunction}. @since 1.0.0 */
export const layerFunction = (
  f: (summary: string, messages: ReadonlyArray<Message>, request: Request) => string
): Layer.Layer<Summarizer> => Layer.succeed(Summarizer, fromFunction(f))

/** Dropping: evicted turns are dropped, the summarizer never called. @since 1.0.0 */
export const drop: Service = { summarize: (summary) => Effect.succeed(summary), drops: true }

/** A layer of {@link drop}. @since 1.0.0 */
export const layerDrop: Layer.Layer<Summarizer> = Layer.succeed(Summarizer, drop)

/** Whether a summarizer is {@link drop}. @since 1.0.0 */
export const isDrop = (summarizer: Service): boolean => summarizer.drops === true
