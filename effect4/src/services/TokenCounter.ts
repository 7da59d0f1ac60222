/**
 * The `TokenCounter` service on the Effect 4 line (docs/contract.md section
 * 3): a `Context.Reference` whose default counts words as the Python package
 * does (`core/tokens.ts`), with an optional synchronous form.
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Tokens from "../../../src/core/tokens.js"
import { TokenCountError } from "../Errors.js"

/**
 * A token counter: `count` as an effect, and optionally `countSync`, the same
 * count at once (a number, or the `TokenCountError` it failed with).
 *
 * @since 1.0.0
 */
export interface Service {
  readonly count: (text: string) => Effect.Effect<number, TokenCountError>
  readonly countSync?: ((text: string) => number | TokenCountError) | undefined
}

const invalid = (n: unknown): TokenCountError => new TokenCountError({ description: Tokens.invalidCount(n) })

const checkedSync = (n: unknown): Effect.Effect<number, TokenCountError> =>
  n instanceof TokenCountError ? Effect.fail(n) : Tokens.isCount(n) ? Effect.succeed(n) : Effect.fail(invalid(n))

/**
 * A counter from a plain function, counted at once (its `countSync`): a throw
 * becomes `TokenCountError` with the thrown value as `cause`.
 *
 * @example
 * ```ts
 * import { TokenCounter } from "rollmem"
 * const characters = TokenCounter.fromFunction((text) => text.length)
 * ```
 *
 * @since 1.0.0
 */
export const fromFunction = (count: (text: string) => number): Service => {
  const countSync = (text: string): number | TokenCountError => {
    try {
      return count(text)
    } catch (cause) {
      return new TokenCountError({ description: String(cause), cause })
    }
  }
  return { count: (text) => Effect.suspend(() => checkedSync(countSync(text))), countSync }
}

/** A counter from an effect (no synchronous form). @since 1.0.0 */
export const fromEffect = (count: (text: string) => Effect.Effect<number, TokenCountError>): Service => ({ count })

/** The default counter: words, with Python's `str.split()` whitespace (`core/tokens.ts`). @since 1.0.0 */
export const wordCounter: Service = fromFunction(Tokens.wordCount)

/**
 * The token counter service; {@link wordCounter} when no layer provides one.
 *
 * @since 1.0.0
 */
export const TokenCounter = Context.Reference<Service>("rollmem/TokenCounter", {
  defaultValue: (): Service => wordCounter
})

/** A layer of a counter from a plain function. @since 1.0.0 */
export const layerFunction = (count: (text: string) => number): Layer.Layer<never> =>
  Layer.succeed(TokenCounter, fromFunction(count))

/**
 * Counts `text` with `counter` and checks the result: a non-negative safe
 * integer, else `TokenCountError`.
 *
 * @since 1.0.0
 */
export const checkedCount = (counter: Service, text: string): Effect.Effect<number, TokenCountError> => {
  const countSync = counter.countSync
  if (countSync !== undefined) return Effect.suspend(() => checkedSync(countSync(text)))
  return Effect.flatMap(
    Effect.suspend(() => counter.count(text)),
    (n) => Tokens.isCount(n) ? Effect.succeed(n) : Effect.fail(invalid(n))
  )
}

/** {@link checkedCount} of a text that may be empty: `""` is 0 tokens without calling the counter. @since 1.0.0 */
export const countText = (counter: Service, text: string): Effect.Effect<number, TokenCountError> =>
  text === "" ? Effect.succeed(0) : checkedCount(counter, text)
