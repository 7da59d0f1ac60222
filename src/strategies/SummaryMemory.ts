/**
 * SummaryMemory: a summary only (docs/contract.md section 8).
 *
 * Each added turn is folded into the summary on arrival: one `Summarizer`
 * call with the current summary and every turn not yet folded. On success the
 * buffer is empty; on failure the turn stays pending, the error reaches the
 * caller, and the next successful call folds every pending turn at once.
 * Turns added while a fold is in flight stay pending and are folded by their
 * own add.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message, Summarizer, SummaryMemory } from "rollmem"
 *
 * const program = Effect.gen(function*() {
 *   const memory = yield* SummaryMemory.make()
 *   yield* memory.add(Message.user("I live in Lyon"))
 *   return yield* memory.summary
 * }).pipe(Effect.provide(Summarizer.layerFunction((s, turns) => [s, ...turns.map((t) => t.content)].join(" ").trim())))
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { ConfigError, type StateDecodeError, type TokenCountError } from "../Errors.js"
import { checkOptionKeys } from "../internal/options.js"
import * as MemoryState from "../schema/MemoryState.js"
import * as Summarizer from "../services/Summarizer.js"
import { buildSummary } from "./internal/builders.js"
import { type Fill, fillEmpty, fillState, memoryOf, withCounter } from "./internal/core.js"
import * as keys from "./internal/keys.js"
import type { Memory } from "./Memory.js"

/**
 * A SummaryMemory.
 *
 * @since 0.1.0
 * @category models
 */
export interface SummaryMemory extends Memory {
  readonly strategy: "summary"
}

/**
 * Options of a SummaryMemory.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** The role the summary reads back as: `"system"` (default) or `"user"` (docs/contract.md section 10.6). */
  readonly summaryRole?: "system" | "user" | undefined
  /**
   * The summary budget, in tokens (docs/contract.md section 10.4): a summary
   * counted over it fails the fold with `SummaryBudgetError`, nothing
   * committed. A positive integer; default none.
   */
  readonly maxSummaryTokens?: number | undefined
}

const dropping = new ConfigError({
  option: "summarizer",
  description: "SummaryMemory needs a summarizer that summarizes: Summarizer.drop would drop every turn"
})

// An empty memory (`fillEmpty`) cannot fail to count; a restored one (`fillState`) can.
const build = <E>(
  fill: Fill<E>,
  options?: Options
): Effect.Effect<SummaryMemory, ConfigError | E, Summarizer.Summarizer> => {
  const invalid = options === undefined ? undefined : checkOptionKeys(options, keys.summary)
  if (invalid !== undefined) return Effect.fail(invalid)
  return Effect.flatMap(Summarizer.Summarizer, (summarizer) =>
    Summarizer.isDrop(summarizer)
      ? Effect.fail(dropping)
      : withCounter((counter) => Effect.map(buildSummary({ counter, summarizer }, fill, options), memoryOf)))
}

/**
 * Builds an empty SummaryMemory. Requires a `Summarizer` in context (not
 * `Summarizer.drop`: `ConfigError`, option `summarizer`); reads
 * `TokenCounter` (default: word count) for `bufferTokens` only. Fails with
 * `ConfigError` for options that are not an object, an unknown key (naming
 * it and the known ones) or a wrong `summaryRole` or `maxSummaryTokens`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options?: Options): Effect.Effect<SummaryMemory, ConfigError, Summarizer.Summarizer> =>
  build(fillEmpty, options)

/**
 * Builds a SummaryMemory holding a state; restored turns are pending and are
 * folded by the next add. Fails with `TokenCountError`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromState = (
  state: MemoryState.MemoryState,
  options?: Options
): Effect.Effect<SummaryMemory, ConfigError | TokenCountError, Summarizer.Summarizer> =>
  build(fillState(state), options)

/**
 * Restores a SummaryMemory from a parsed JSON state (any strategy's). Fails
 * with `StateDecodeError` or `TokenCountError`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromJSON = (
  input: unknown,
  options?: Options
): Effect.Effect<SummaryMemory, StateDecodeError | ConfigError | TokenCountError, Summarizer.Summarizer> =>
  Effect.flatMap(MemoryState.fromJSON(input), (state) => build(fillState(state), options))
