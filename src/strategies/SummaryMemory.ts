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
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import type * as Schema from "effect/Schema"
import * as Rules from "../core/options.js"
import { type AddError, ConfigError, type StateDecodeError, type TokenCountError } from "../Errors.js"
import * as MemoryState from "../schema/MemoryState.js"
import * as OptionsSchema from "../schema/Options.js"
import * as Summarizer from "../services/Summarizer.js"
import { buildSummary } from "./internal/builders.js"
import { type Fill, fillEmpty, fillState, fillWith, memoryOf, withSummarizer } from "./internal/core.js"
import type * as Memory from "./Memory.js"

/**
 * A SummaryMemory.
 *
 * @since 0.1.0
 * @category models
 */
export interface SummaryMemory extends Memory.Memory {
  readonly strategy: "summary"
  /**
   * Folds the pending turns now (docs/contract.md section 16.2), passing
   * `focus` to the summarizer in its request; `targetTokens` is accepted
   * and has nothing to bound (a SummaryMemory folds every pending turn).
   * Fails with `ConfigError` on a wrong option, with the fold's errors
   * otherwise.
   */
  readonly compact: (
    options?: { readonly targetTokens?: number | undefined; readonly focus?: string | undefined }
  ) => Effect.Effect<void, AddError | ConfigError>
}

/**
 * Options of a SummaryMemory: the type of the schema `Options.SummaryOptions`
 * (`schema/Options.ts`): `summaryRole` (`"system"`, default, or `"user"`,
 * docs/contract.md section 10.6) and `maxSummaryTokens` (the summary budget
 * in tokens, section 10.4: a summary counted over it fails the fold with
 * `SummaryBudgetError`, nothing committed), `maxSummarizerInputTokens`
 * (pending turns over it folded in chunks, section 5) and `ledger`
 * (section 14.2).
 *
 * @since 0.1.0
 * @category models
 */
export type Options = Schema.Schema.Type<typeof OptionsSchema.SummaryOptions>

// An empty memory (`fillEmpty`) cannot fail to count; a restored one (`fillState`) can.
const build = <E>(
  fill: Fill<E>,
  options?: Options
): Effect.Effect<SummaryMemory, ConfigError | E, Summarizer.Summarizer> => {
  const decoded = OptionsSchema.decode(OptionsSchema.SummaryOptions, options)
  if (Either.isLeft(decoded)) return Effect.fail(decoded.left)
  return withSummarizer((services) => Effect.map(buildSummary(services, fill, decoded.right), memoryOf))
}

/**
 * Builds an empty SummaryMemory. Requires a `Summarizer` in context (not
 * `Summarizer.drop`: `ConfigError`, option `summarizer`); reads
 * `TokenCounter` (default: word count) for `bufferTokens` only. Fails with
 * `ConfigError` for options that are not an object, an unknown key (naming
 * it and the known ones) or a wrong `summaryRole` or `maxSummaryTokens`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message, Summarizer, SummaryMemory } from "rollmem"
 *
 * const program = Effect.gen(function*() {
 *   const memory = yield* SummaryMemory.make({ maxSummaryTokens: 200 })
 *   yield* memory.add(Message.user("Book me a flight to Rome")) // folded into the summary on arrival
 *   return yield* memory.summary // "user: Book me a flight to Rome"
 * }).pipe(Effect.provide(Summarizer.layerFunction((summary, turns) => [summary, ...turns.map(String)].join("\n").trim())))
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options?: Options): Effect.Effect<SummaryMemory, ConfigError, Summarizer.Summarizer> =>
  build(fillEmpty, options)

/**
 * Builds a SummaryMemory holding a state; restored turns are pending and are
 * folded by the next add. Fails with `TokenCountError`, or `StateDecodeError`
 * when `state` is not a decoded state (a parsed document: use {@link fromJSON}).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { MemoryState, Message, Summarizer, SummaryMemory } from "rollmem"
 *
 * const state = MemoryState.make("The user flies to Rome.", [Message.user("On May 3")])
 * // the restored turn is pending: the next add folds it with the new one
 * const program = SummaryMemory.fromState(state).pipe(Effect.provide(Summarizer.layerDrop))
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromState = (
  state: MemoryState.MemoryState,
  options?: Options
): Effect.Effect<SummaryMemory, ConfigError | TokenCountError | StateDecodeError, Summarizer.Summarizer> =>
  build(fillState(state), options)

/**
 * Restores a SummaryMemory from a parsed JSON state (any strategy's). Fails
 * with `StateDecodeError` or `TokenCountError`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Summarizer, SummaryMemory } from "rollmem"
 *
 * const program = SummaryMemory.fromJSON({ version: 2, summary: "The user flies to Rome.", buffer: [] }).pipe(
 *   Effect.flatMap((memory) => memory.summary), // "The user flies to Rome."
 *   Effect.provide(Summarizer.layerDrop)
 * )
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromJSON = (
  input: unknown,
  options?: Options
): Effect.Effect<SummaryMemory, StateDecodeError | ConfigError | TokenCountError, Summarizer.Summarizer> =>
  Effect.flatMap(MemoryState.fromJSON(input), (state) => build(fillState(state), options))

/**
 * Builds a SummaryMemory with the services given (not read from a context)
 * and returns it with the synchronous parts of its adds (a
 * `Memory.Stepper`): what runs an add without a fiber, as the Promise facade
 * does. Empty, or holding `state` (counted once). The result is an `Exit`
 * when nothing suspends (a counter built from a plain function). Fails
 * with `ConfigError` as {@link make} (`Summarizer.drop` included),
 * `TokenCountError` restoring.
 *
 * @example
 * ```ts
 * import { Effect, Exit } from "effect"
 * import { Message, Summarizer, SummaryMemory, TokenCounter } from "rollmem"
 *
 * const stepper = Effect.runSync(SummaryMemory.makeStepper(undefined, {
 *   counter: TokenCounter.wordCounter,
 *   summarizer: Summarizer.fromFunction((summary, turns) => `${summary} ${turns.length}`.trim())
 * }))
 * const rest = stepper.step(Message.user("hello"))
 * if (!Exit.isExit(rest)) Effect.runSync(rest)
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const makeStepper = (
  options: Options | undefined,
  services: Memory.Services,
  state?: MemoryState.MemoryState
): Effect.Effect<Memory.Stepper<SummaryMemory>, ConfigError | TokenCountError | StateDecodeError> => {
  const decoded = OptionsSchema.decode(OptionsSchema.SummaryOptions, options)
  if (Either.isLeft(decoded)) return Exit.fail(decoded.left)
  if (Summarizer.isDrop(services.summarizer)) return Exit.fail(new ConfigError(Rules.summaryNeedsSummarizer))
  return buildSummary(services, fillWith(state), decoded.right)
}
