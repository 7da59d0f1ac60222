/**
 * The `TokenCounter` service: how many tokens one message's token text
 * holds (docs/contract.md section 3).
 *
 * It is a `Context.Reference` whose default is the word count, so a memory
 * needs no layer at all; model tokenizers (o200k_base, cl100k_base, by model
 * name) live in `rollmem/tokenizers` so this import stays light.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { RollingMemory, TokenCounter } from "rollmem"
 *
 * // Count characters instead of words:
 * const program = RollingMemory.make({ maxTokens: 4000 }).pipe(
 *   Effect.provide(TokenCounter.layerFunction((text) => text.length))
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Tokens from "../core/tokens.js"
import type { TokenCountError } from "../Errors.js"
import { countNow, guardCount, isCount, makeService } from "./internal/counting.js"

/**
 * A token counter.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * Tokens in one message's token text: must succeed with a non-negative
   * integer. A memory checks the result and fails the add with
   * `TokenCountError` otherwise. Text that looks like a special token
   * (`<|endoftext|>`) is ordinary text.
   */
  readonly count: (text: string) => Effect.Effect<number, TokenCountError>
  /**
   * The same count without an effect, when the counter has one (every counter
   * built from a plain function: the word count, the model tokenizers,
   * {@link fromFunction}). It returns the raw count, which a memory checks as
   * it checks `count`'s, or the `TokenCountError` a failure became; it never
   * throws. A memory whose counter has it counts a message in the same step as
   * the append, with no effect per message.
   */
  readonly countSync?: ((text: string) => number | TokenCountError) | undefined
}

/**
 * What {@link make} builds a counter from: `count`, `countSync`, or both
 * (they must count alike).
 *
 * @since 0.2.0
 * @category models
 */
export type MakeOptions =
  | { readonly count: Service["count"]; readonly countSync?: Service["countSync"] }
  | { readonly count?: Service["count"] | undefined; readonly countSync: NonNullable<Service["countSync"]> }

/**
 * Builds a counter, filling what is missing (as `KeyValueStore.make` fills
 * its optional members): with `countSync` alone, `count` runs it (checked,
 * when the effect runs); with `count` alone, the counter has no synchronous
 * form and a memory runs its effect once per message.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { TokenCounter } from "rollmem"
 *
 * // synchronous: adds count in the append's own step
 * const characters = TokenCounter.make({ countSync: (text) => text.length })
 * // effectful (a remote tokenizer, say): each count runs its effect
 * const remote = TokenCounter.make({ count: (text) => Effect.succeed(text.length) })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export function make(
  options: { readonly count?: Service["count"] | undefined; readonly countSync: NonNullable<Service["countSync"]> }
): Service & { readonly countSync: NonNullable<Service["countSync"]> }
export function make(options: MakeOptions): Service
export function make(options: MakeOptions): Service {
  return makeService(options.count, options.countSync)
}

/**
 * The number of runs of non-whitespace characters in `text`, with Python's
 * `str.split()` whitespace set (`core/tokens.ts`).
 *
 * @example
 * ```ts
 * import { TokenCounter } from "rollmem"
 *
 * TokenCounter.wordCount("  hello   world\n") // 2
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const wordCount: (text: string) => number = Tokens.wordCount

/**
 * Builds a counter from a plain function (through {@link make}, as its
 * `countSync`). A throw becomes `TokenCountError` with the thrown value as
 * `cause`. The function is called when the count runs, once per message a
 * memory adds, in the add's own step.
 *
 * @example
 * ```ts
 * import { TokenCounter } from "rollmem"
 *
 * const characters = TokenCounter.fromFunction((text) => text.length)
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromFunction = (
  count: (text: string) => number
): Service & { readonly countSync: (text: string) => number | TokenCountError } =>
  make({ countSync: guardCount(undefined, count) })

/**
 * The word counter (the default).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { TokenCounter } from "rollmem"
 *
 * Effect.runSync(TokenCounter.checkedCount(TokenCounter.wordCounter, "Book me a flight")) // 4
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const wordCounter: Service = make({ countSync: wordCount })

/**
 * The token counter service. Defaults to {@link wordCounter} when no layer
 * provides one.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { TokenCounter } from "rollmem"
 *
 * const program = Effect.gen(function*() {
 *   const counter = yield* TokenCounter.TokenCounter // the word counter unless a layer provides another
 *   return yield* TokenCounter.checkedCount(counter, "Book me a flight to Rome") // 6
 * })
 * ```
 *
 * @since 0.1.0
 * @category tags
 */
export class TokenCounter extends Context.Reference<TokenCounter>()("rollmem/TokenCounter", {
  defaultValue: (): Service => wordCounter
}) {}

/**
 * Provides the word counter explicitly (it is also the default).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { RollingMemory, Summarizer, TokenCounter } from "rollmem"
 *
 * const program = RollingMemory.make({ maxTokens: 2000 }).pipe(
 *   Effect.provide(TokenCounter.layerWordCount), // what a memory uses when nothing is provided
 *   Effect.provide(Summarizer.layerDrop)
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWordCount: Layer.Layer<TokenCounter> = Layer.succeed(TokenCounter, wordCounter)

/**
 * Provides a counter built from a plain function (see {@link fromFunction}).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { RollingMemory, Summarizer, TokenCounter } from "rollmem"
 *
 * // about 4 characters a token
 * const program = RollingMemory.make({ maxTokens: 2000 }).pipe(
 *   Effect.provide(TokenCounter.layerFunction((text) => Math.ceil(text.length / 4))),
 *   Effect.provide(Summarizer.layerDrop)
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFunction = (count: (text: string) => number): Layer.Layer<TokenCounter> =>
  Layer.succeed(TokenCounter, fromFunction(count))

/**
 * Whether a count is valid: a non-negative safe integer passes; anything else
 * (NaN, a negative or fractional number, an integer past
 * `Number.MAX_SAFE_INTEGER`, a non-number) does not, and a memory fails the
 * add with `TokenCountError`.
 *
 * @example
 * ```ts
 * import { TokenCounter } from "rollmem"
 *
 * TokenCounter.validate(12) // true
 * TokenCounter.validate(-1) // false
 * TokenCounter.validate(Number.NaN) // false
 * ```
 *
 * @since 0.1.0
 * @category combinators
 */
export const validate: (count: unknown) => count is number = isCount

/**
 * Counts `text` with `counter` and checks the result (see {@link validate}).
 * A counter that throws while building its Effect fails at run time too (a
 * defect). Fails with `TokenCountError`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { TokenCounter } from "rollmem"
 *
 * const counter = TokenCounter.fromFunction(() => -1)
 * Effect.runSyncExit(TokenCounter.checkedCount(counter, "hi")) // fails with TokenCountError
 * ```
 *
 * @since 0.1.0
 * @category combinators
 */
export const checkedCount = (counter: Service, text: string): Effect.Effect<number, TokenCountError> =>
  Effect.suspend(() => countNow(counter, text))

/**
 * {@link checkedCount} of a text that may be empty: `""` is 0 tokens without
 * calling the counter (a summary that is empty, a message without content).
 *
 * @example
 * ```ts
 * import { TokenCounter } from "rollmem"
 *
 * TokenCounter.countText(TokenCounter.wordCounter, "") // Effect.succeed(0)
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const countText = (counter: Service, text: string): Effect.Effect<number, TokenCountError> =>
  text === "" ? Effect.succeed(0) : checkedCount(counter, text)
