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
import type { StateDecodeError, TokenCountError } from "../Errors.js"
import * as MemoryState from "../schema/MemoryState.js"
import * as Summarizer from "../services/Summarizer.js"
import { buildSummary } from "./internal/builders.js"
import { withServices } from "./internal/core.js"
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

const build = (
  state: MemoryState.MemoryState | undefined
): Effect.Effect<SummaryMemory, TokenCountError, Summarizer.Summarizer> =>
  Effect.flatMap(
    Summarizer.Summarizer,
    (summarizer) => withServices((services) => buildSummary({ counter: services.counter, summarizer }, state))
  )

/**
 * Builds an empty SummaryMemory. Requires a `Summarizer` in context; reads
 * `TokenCounter` (default: word count) for `bufferTokens` only.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (): Effect.Effect<SummaryMemory, never, Summarizer.Summarizer> =>
  build(undefined) as Effect.Effect<SummaryMemory, never, Summarizer.Summarizer>

/**
 * Builds a SummaryMemory holding a state; restored turns are pending and are
 * folded by the next add. Fails with `TokenCountError`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromState = (
  state: MemoryState.MemoryState
): Effect.Effect<SummaryMemory, TokenCountError, Summarizer.Summarizer> => build(state)

/**
 * Restores a SummaryMemory from a parsed JSON state (any strategy's). Fails
 * with `StateDecodeError` or `TokenCountError`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromJSON = (
  input: unknown
): Effect.Effect<SummaryMemory, StateDecodeError | TokenCountError, Summarizer.Summarizer> =>
  Effect.flatMap(MemoryState.fromJSON(input), build)
