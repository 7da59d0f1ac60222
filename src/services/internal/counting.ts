/**
 * Counting in the same step as an append.
 *
 * A counter built from a plain function (the word counter, the model
 * tokenizers, `TokenCounter.fromFunction`) has a `countSync` member, so a
 * memory can count a message without running an effect per message. It
 * returns the raw count (checked here) or the `TokenCountError` a throw
 * became; it never throws.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { invalidCount, isCount } from "../../core/tokens.js"
import { TokenCountError } from "../../Errors.js"
import type { Service } from "../TokenCounter.js"

type CountSync = NonNullable<Service["countSync"]>

export { isCount }

const invalid = (n: unknown): TokenCountError => new TokenCountError({ description: invalidCount(n) })

// A raw count (or the error a throw became) as a checked Exit.
const checked = (n: unknown): Exit.Exit<number, TokenCountError> =>
  n instanceof TokenCountError ? Exit.fail(n) : isCount(n) ? Exit.succeed(n) : Exit.fail(invalid(n))

/**
 * A counter from its members (`TokenCounter.make`): `count` runs `countSync`
 * when only that is given; without `countSync` the service has none.
 *
 * @internal
 */
export const makeService = (
  count: Service["count"] | undefined,
  countSync: CountSync | undefined
): Service => {
  if (countSync === undefined) {
    if (count === undefined) throw new TypeError("TokenCounter.make needs count or countSync")
    return { count }
  }
  return count === undefined ? fromCountSync(countSync) : { count, countSync }
}

/** A counter whose `count` runs `countSync` (checked) when the effect runs. @internal */
export const fromCountSync = (countSync: CountSync): Service & { readonly countSync: CountSync } => ({
  count: (text) => Effect.suspend(() => checked(countSync(text))),
  countSync
})

/**
 * A plain counting function as a `countSync`: a throw becomes
 * `TokenCountError` with the thrown value as `cause` and a description
 * prefixed by `label`.
 *
 * @internal
 */
export const guardCount = (label: string | undefined, count: (text: string) => number): CountSync => (text) => {
  try {
    return count(text)
  } catch (cause) {
    const description = label === undefined ? String(cause) : `${label}: ${String(cause)}`
    return new TokenCountError({ description, cause })
  }
}

/** A counter from a plain function (see {@link guardCount}). @internal */
export const fromFunctionLabelled = (
  label: string | undefined,
  count: (text: string) => number
): Service & { readonly countSync: CountSync } => fromCountSync(guardCount(label, count))

/**
 * The checked synchronous form of a counter built from a plain function: the
 * count, or the `TokenCountError` (a throw or an invalid count); `undefined`
 * for any other counter.
 *
 * @internal
 */
export const countSyncOf = (counter: Service): ((text: string) => number | TokenCountError) | undefined => {
  const countSync = counter.countSync
  if (countSync === undefined) return undefined
  return (text) => {
    const n = countSync(text)
    return n instanceof TokenCountError ? n : isCount(n) ? n : invalid(n)
  }
}

/**
 * Counts `text` and checks the count. A counter built from a plain function
 * counts at once and the result is an `Exit`; any other counter's effect is
 * returned, checked. A counter built by hand that throws while building its
 * effect throws here: call this inside `Effect.suspend` (or a step of one).
 *
 * @internal
 */
export const countNow = (counter: Service, text: string): Effect.Effect<number, TokenCountError> => {
  const countSync = counter.countSync
  if (countSync !== undefined) return checked(countSync(text))
  return Effect.flatMap(counter.count(text), (n) => isCount(n) ? Effect.succeed(n) : Effect.fail(invalid(n)))
}
