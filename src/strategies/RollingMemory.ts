/**
 * RollingMemory: a running summary plus a token-bounded buffer of recent
 * turns (docs/contract.md section 5).
 *
 * Each add counts the new turn once, appends it, and, when the buffer is over
 * `maxTokens`, evicts the oldest whole units (a tool call with its results),
 * aligned so the buffer opens on a turn that is not a response. The evicted
 * turns go to the `Summarizer` in one call; only when it succeeds is the new
 * summary stored and the prefix removed. The `Summarizer` is required: with
 * `Summarizer.drop` (`Summarizer.layerDrop`, chosen on purpose) the
 * evicted turns are dropped.
 *
 * Adding never waits behind a summarizer call in flight: the append happens
 * at once, and only the prune takes the lock. Prunes run one at a time, each
 * computing its cutoff once it holds the lock. `clear` during a fold wins. A
 * summarizer built with `Summarizer.fromFunction` (synchronous) folds within
 * the add's own step, where nothing can interleave, so it takes no lock; with
 * a counter built from a plain function too, an add runs as one step.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message, RollingMemory, Summarizer } from "rollmem"
 *
 * const program = Effect.gen(function*() {
 *   const memory = yield* RollingMemory.make({ maxTokens: 2000 })
 *   yield* memory.add(Message.user("Book me a flight to Rome"))
 *   return yield* memory.messages // what to send to the model
 * }).pipe(
 *   Effect.provide(Summarizer.layerFunction((summary, turns) => `${summary} ${turns.length} turns`.trim()))
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import type * as Option from "effect/Option"
import type * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type { AddError, ConfigError, StateDecodeError, TokenCountError } from "../Errors.js"
import * as MemoryState from "../schema/MemoryState.js"
import * as OptionsSchema from "../schema/Options.js"
import type * as Summarizer from "../services/Summarizer.js"
import { buildRolling, DEFAULT_MAX_TOKENS as DEFAULT } from "./internal/builders.js"
import { type Fill, fillEmpty, fillState, fillWith, memoryOf, servicesOf, withServices } from "./internal/core.js"
import type * as Memory from "./Memory.js"

/**
 * The default token budget of the buffer: 2000 tokens.
 *
 * @example
 * ```ts
 * import { RollingMemory } from "rollmem"
 *
 * RollingMemory.DEFAULT_MAX_TOKENS // 2000: the budget of RollingMemory.make() without maxTokens
 * ```
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_MAX_TOKENS: number = DEFAULT

/**
 * Options of a RollingMemory: the type of the schema `Options.RollingOptions`
 * (`schema/Options.ts`, where each option is documented), which every
 * constructor decodes them with. `maxTokens` (default
 * {@link DEFAULT_MAX_TOKENS}), `targetTokens`, `boundary`, `pinSystem`,
 * `clearToolResults`, `summaryRole`, `maxSummaryTokens` (docs/contract.md
 * section 10), `maxSummarizerInputTokens` (folds in chunks, section 5),
 * `ledger` (section 14.2), and `fold`, `hardMaxTokens`, `foldRetry`
 * (background folds, section 5.1, {@link makeScoped} only).
 *
 * @since 0.1.0
 * @category models
 */
export type Options = Schema.Schema.Type<typeof OptionsSchema.RollingOptions>

/**
 * The options of {@link RollingMemory.compact}: `targetTokens` (a positive
 * integer: the buffer's unpinned tokens to fold down to) and `focus` (what
 * the summarizer should keep).
 *
 * @since 0.3.0
 * @category models
 */
export interface CompactOptions {
  readonly targetTokens?: number | undefined
  readonly focus?: string | undefined
}

/**
 * A RollingMemory.
 *
 * @since 0.1.0
 * @category models
 */
export interface RollingMemory extends Memory.Memory {
  readonly strategy: "rolling"
  /** The token budget of the buffer. */
  readonly maxTokens: number
  /** The low-water mark a prune evicts down to (`maxTokens` unless set). */
  readonly targetTokens: number
  /**
   * The whole-request budget, when given instead of `maxTokens`
   * (docs/contract.md section 16.1); `maxTokens` is then the window less the
   * reserve.
   */
  readonly contextWindow: { readonly tokens: number; readonly reserveTokens: number } | undefined
  /**
   * Folds now, whatever the buffer's size (docs/contract.md section 16.2):
   * down to `targetTokens` (the buffer's unpinned tokens, in the memory's
   * counter; default the low-water mark, or half the budget without one),
   * never the newest unit, with the guarantees of every fold (one at a time
   * under the prune lock, a failure or interruption commits nothing). `focus`
   * is passed to the summarizer in its request. Without a summarizer the
   * evicted turns are dropped. Fails with `ConfigError` on a wrong option,
   * and with a background-folding memory; with the fold's errors otherwise.
   *
   * @example
   * ```ts
   * import type { RollingMemory } from "rollmem"
   *
   * declare const memory: RollingMemory.RollingMemory
   * const compacted = memory.compact({ focus: "the open bug in the parser" })
   * ```
   */
  readonly compact: (options?: CompactOptions) => Effect.Effect<void, AddError | ConfigError>
  /** When folds run: `"blocking"` (default) or `"background"` (see {@link Options.fold}). */
  readonly fold: "blocking" | "background"
  /**
   * With background folds: the error of the last fold that failed after its
   * retries, until a fold commits. Always `None` with blocking folds (the
   * add that folded got the error).
   */
  readonly lastFoldFailure: Effect.Effect<Option.Option<AddError>>
}

// An empty memory (`fillEmpty`) cannot fail to count; a restored one (`fillState`) can.
const build = <E>(
  options: Options | undefined,
  fill: Fill<E>,
  scope?: Scope.Scope
): Effect.Effect<RollingMemory, ConfigError | E, Summarizer.Summarizer> => {
  const decoded = OptionsSchema.decode(OptionsSchema.RollingOptions, options)
  return Either.isLeft(decoded)
    ? Effect.fail(decoded.left)
    : withServices((services) => Effect.map(buildRolling(services, decoded.right, fill, scope), memoryOf))
}

/**
 * Builds an empty RollingMemory. Reads `TokenCounter` (default: word count)
 * and `Summarizer` (required; `Summarizer.layerDrop` drops evicted turns, on
 * purpose) from the context, once: providing them to `add` changes nothing.
 *
 * Fails with `ConfigError` when the options are not an object (`null`
 * included: `option: "options"`), hold an unknown key (a misspelt
 * `maxToken` is refused, not left to its default: the error names it and
 * lists the known keys), or an option is wrong: `maxTokens`,
 * `targetTokens` or `maxSummaryTokens` not a positive integer, `targetTokens`
 * over `maxTokens`, `boundary`, `pinSystem`, `summaryRole` or
 * `clearToolResults` of the wrong type or value.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { RollingMemory } from "rollmem"
 *
 * // strict providers (Gemini, Anthropic): every context opens on a user turn, the system prompt stays first
 * const memory = RollingMemory.make({
 *   maxTokens: 8000,
 *   targetTokens: 4000,
 *   boundary: "turn",
 *   pinSystem: true,
 *   clearToolResults: { keep: 3 }
 * })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options?: Options): Effect.Effect<RollingMemory, ConfigError, Summarizer.Summarizer> =>
  build(options, fillEmpty)

/**
 * Builds a RollingMemory whose folds may run in the background
 * (`fold: "background"`, docs/contract.md section 5.1), owned by the
 * current `Scope`: closing the scope interrupts the fold in flight
 * (committing nothing) and starts no other; the memory stays readable and
 * its adds still append. With `state`, restores it first (each message
 * counted once, not pruned). Takes every option of {@link make}. Fails with
 * `ConfigError` (as `make`, and `fold: "background"` without a `Summarizer`)
 * or `TokenCountError` (restoring).
 *
 * @example
 * ```ts
 * import { Effect, Schedule } from "effect"
 * import { Message, RollingMemory } from "rollmem"
 *
 * const program = Effect.scoped(Effect.gen(function*() {
 *   const memory = yield* RollingMemory.makeScoped({
 *     maxTokens: 8000,
 *     targetTokens: 4000,
 *     fold: "background", // an add never waits on the summarizer below 16,000 tokens
 *     foldRetry: Schedule.exponential("1 second").pipe(Schedule.intersect(Schedule.recurs(3)))
 *   })
 *   yield* memory.add(Message.user("Book me a flight to Rome"))
 * }))
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeScoped = (
  options?: Options,
  state?: MemoryState.MemoryState
): Effect.Effect<
  RollingMemory,
  ConfigError | TokenCountError | StateDecodeError,
  Scope.Scope | Summarizer.Summarizer
> => Effect.flatMap(Effect.scope, (scope) => build(options, fillWith(state), scope))

/**
 * Builds a RollingMemory holding a state. The buffer is restored verbatim
 * and not pruned: the budget applies again on the next add. Each message is
 * counted once.
 *
 * Fails with `ConfigError`, `TokenCountError`, or `StateDecodeError` when
 * `state` is not a decoded state (a parsed document: use {@link fromJSON}).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { MemoryState, Message, RollingMemory, Summarizer } from "rollmem"
 *
 * const state = MemoryState.make("The user flies to Rome.", [Message.user("On May 3")])
 * const program = RollingMemory.fromState(state, { maxTokens: 2000 }).pipe(
 *   Effect.flatMap((memory) => memory.messages), // [system: The user flies to Rome., user: On May 3]
 *   Effect.provide(Summarizer.layerDrop)
 * )
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromState = (
  state: MemoryState.MemoryState,
  options?: Options
): Effect.Effect<RollingMemory, ConfigError | TokenCountError | StateDecodeError, Summarizer.Summarizer> =>
  build(options, fillState(state))

/**
 * Restores a RollingMemory from a parsed JSON state (any strategy's:
 * docs/contract.md section 2). Fails with `StateDecodeError`, `ConfigError` or `TokenCountError`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { RollingMemory, Summarizer } from "rollmem"
 *
 * const saved: unknown = JSON.parse("{\"version\":2,\"summary\":\"\",\"buffer\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
 * const program = RollingMemory.fromJSON(saved, { maxTokens: 2000 }).pipe(
 *   Effect.flatMap((memory) => memory.toJSON), // the same state back
 *   Effect.provide(Summarizer.layerDrop)
 * )
 * // a document that is not a state fails with StateDecodeError naming the field
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromJSON = (
  input: unknown,
  options?: Options
): Effect.Effect<RollingMemory, StateDecodeError | ConfigError | TokenCountError, Summarizer.Summarizer> =>
  Effect.flatMap(MemoryState.fromJSON(input), (state) => build(options, fillState(state)))

/**
 * Builds a RollingMemory with the services given (not read from a context)
 * and returns it with the synchronous parts of its adds (a
 * {@link Memory.Stepper}): what runs an add without a fiber, as the Promise
 * facade does. Empty, or holding `state` (each message counted once, not
 * pruned); `scope` owns background folds (`fold: "background"`, as
 * {@link makeScoped}). The result is an `Exit` when nothing suspends (a
 * counter built from a plain function restoring a state, or no state): read
 * it without running a fiber. Fails as {@link makeScoped} does.
 *
 * @example
 * ```ts
 * import { Effect, Exit } from "effect"
 * import { Message, RollingMemory, Summarizer, TokenCounter } from "rollmem"
 *
 * const stepper = Effect.runSync(RollingMemory.makeStepper({ maxTokens: 100 }, {
 *   counter: TokenCounter.wordCounter,
 *   summarizer: Summarizer.fromFunction((summary, turns) => `${summary} ${turns.length} turns`.trim())
 * }))
 * const rest = stepper.step(Message.user("Book me a flight to Rome"))
 * if (!Exit.isExit(rest)) Effect.runSync(rest) // a plain-function summarizer completes in the step
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const makeStepper = (
  options: Options | undefined,
  services: Memory.Services,
  restore?: { readonly state?: MemoryState.MemoryState | undefined; readonly scope?: Scope.Scope | undefined }
): Effect.Effect<Memory.Stepper<RollingMemory>, ConfigError | TokenCountError | StateDecodeError> => {
  const decoded = OptionsSchema.decode(OptionsSchema.RollingOptions, options)
  if (Either.isLeft(decoded)) return Exit.fail(decoded.left)
  return buildRolling(servicesOf(services), decoded.right, fillWith(restore?.state), restore?.scope)
}
