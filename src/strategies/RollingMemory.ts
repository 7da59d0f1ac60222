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
import type * as Option from "effect/Option"
import type * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import type { AddError, ConfigError, StateDecodeError, TokenCountError } from "../Errors.js"
import { checkOptionKeys } from "../internal/options.js"
import * as MemoryState from "../schema/MemoryState.js"
import type * as Summarizer from "../services/Summarizer.js"
import { buildRolling, DEFAULT_MAX_TOKENS as DEFAULT } from "./internal/builders.js"
import { type Fill, fillEmpty, fillState, fillWith, memoryOf, withServices } from "./internal/core.js"
import * as keys from "./internal/keys.js"
import type { Memory } from "./Memory.js"

/**
 * The default token budget of the buffer: 2000 tokens.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_MAX_TOKENS: number = DEFAULT

/**
 * Options of a RollingMemory.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Token budget of the buffer: a positive integer, default {@link DEFAULT_MAX_TOKENS}. */
  readonly maxTokens?: number | undefined
  /**
   * The low-water mark, in tokens (docs/contract.md section 10.1): a prune
   * starts when the buffer is over `maxTokens` and evicts down to
   * `targetTokens`, so one summarizer call frees room for several turns. A
   * positive integer at most `maxTokens`; default `maxTokens` (the original's
   * rule). Half the budget is a good start.
   */
  readonly targetTokens?: number | undefined
  /**
   * Where a cut may fall (docs/contract.md section 10.2). `"aligned"`
   * (default): the Python original's rule, best effort (the buffer can still
   * open on an assistant turn or an orphaned tool result). `"turn"`: whenever
   * no prune is pending or in flight, a buffer holding a user turn opens with
   * one (after pinned messages) and every tool result has its call; in a long
   * agent turn the user's request stays and the oldest tool exchanges after it
   * go. An add may then prune within the budget to repair the buffer.
   */
  readonly boundary?: "aligned" | "turn" | undefined
  /**
   * Pins `system` and `developer` messages without tool fields
   * (docs/contract.md section 10.3): never evicted nor summarized, outside the
   * budget, read back first (before the summary). Default `false`.
   */
  readonly pinSystem?: boolean | undefined
  /**
   * The role the summary reads back as (docs/contract.md section 10.6):
   * `"system"` (default) or `"user"`, for providers that accept one system
   * message only or need the first turn to be a user turn.
   */
  readonly summaryRole?: "system" | "user" | undefined
  /**
   * Clears old tool results before folding (docs/contract.md section 10.5):
   * when a prune starts, the content of tool results is replaced by
   * `placeholder` (default `"[tool result cleared]"`), oldest first, sparing
   * the `keep` most recent (a non-negative integer), until the buffer is
   * within the target; no summarizer is called when that suffices. Cleared
   * content is dropped, not summarized. Default off.
   *
   * `until: "budget"` clears the same way, but folds (down to the target,
   * as usual) only when clearing cannot bring the buffer within the budget
   * (`maxTokens`): fewer summarizer calls when a target is set, at the price
   * of a fuller buffer between folds. Default `"target"`.
   */
  readonly clearToolResults?:
    | {
      readonly keep: number
      readonly placeholder?: string | undefined
      readonly until?: "target" | "budget" | undefined
    }
    | undefined
  /**
   * The summary budget, in tokens (docs/contract.md section 10.4): a summary
   * counted over it fails the fold with `SummaryBudgetError`, nothing
   * committed. A positive integer; default none.
   */
  readonly maxSummaryTokens?: number | undefined
  /**
   * When folds run (docs/contract.md section 5.1). `"blocking"` (default):
   * an add that must prune completes after its fold, as the Python original
   * does. `"background"`: an add completes once its turn is counted and
   * appended; the folds run one at a time in a fiber owned by the memory's
   * scope, so only {@link makeScoped} takes it (`make` fails with
   * `ConfigError`), and it needs a `Summarizer`. The buffer may pass
   * `maxTokens` while a fold runs, never `hardMaxTokens`.
   */
  readonly fold?: "blocking" | "background" | undefined
  /**
   * With `fold: "background"`: the hard cap of the buffer, in tokens
   * (pinned messages aside, like `maxTokens`). An add that would leave the
   * buffer over it waits for the fold in flight (back-pressure) and gets that
   * fold's error if it fails after its retries (its turn stays), unless the
   * newest unit alone is over the cap. A positive integer at least
   * `maxTokens`; default twice `maxTokens`.
   */
  readonly hardMaxTokens?: number | undefined
  /**
   * With `fold: "background"`: how a failed fold is retried (each attempt
   * re-plans its cutoff), e.g. `Schedule.exponential("1 second").pipe(Schedule.intersect(Schedule.recurs(3)))`.
   * Default: not retried; the next add over the budget starts a new fold.
   * A fold that still fails is reported: `lastFoldFailure`, the waiting adds'
   * error, and the fold's span and metrics.
   */
  readonly foldRetry?: Schedule.Schedule<unknown, AddError> | undefined
}

/**
 * A RollingMemory.
 *
 * @since 0.1.0
 * @category models
 */
export interface RollingMemory extends Memory {
  readonly strategy: "rolling"
  /** The token budget of the buffer. */
  readonly maxTokens: number
  /** The low-water mark a prune evicts down to (`maxTokens` unless set). */
  readonly targetTokens: number
  /** When folds run: `"blocking"` (default) or `"background"` (see {@link Options.fold}). */
  readonly fold: "blocking" | "background"
  /**
   * With background folds: the error of the last fold that failed after its
   * retries, until a fold commits. Always `None` with blocking folds (the
   * add that folded got the error).
   */
  readonly lastFoldFailure: Effect.Effect<Option.Option<AddError>>
}

const known = [...keys.rolling, ...keys.background]

// An empty memory (`fillEmpty`) cannot fail to count; a restored one (`fillState`) can.
const build = <E>(
  options: Options | undefined,
  fill: Fill<E>,
  scope?: Scope.Scope
): Effect.Effect<RollingMemory, ConfigError | E, Summarizer.Summarizer> => {
  const invalid = options === undefined ? undefined : checkOptionKeys(options, known)
  return invalid !== undefined
    ? Effect.fail(invalid)
    : withServices((services) => Effect.map(buildRolling(services, options, fill, scope), memoryOf))
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
): Effect.Effect<RollingMemory, ConfigError | TokenCountError, Scope.Scope | Summarizer.Summarizer> =>
  Effect.flatMap(Effect.scope, (scope) => build(options, fillWith(state), scope))

/**
 * Builds a RollingMemory holding a state. The buffer is restored verbatim
 * and not pruned: the budget applies again on the next add. Each message is
 * counted once.
 *
 * Fails with `ConfigError` or `TokenCountError`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromState = (
  state: MemoryState.MemoryState,
  options?: Options
): Effect.Effect<RollingMemory, ConfigError | TokenCountError, Summarizer.Summarizer> =>
  build(options, fillState(state))

/**
 * Restores a RollingMemory from a parsed JSON state (any strategy's:
 * docs/contract.md section 2). Fails with `StateDecodeError`, `ConfigError` or `TokenCountError`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromJSON = (
  input: unknown,
  options?: Options
): Effect.Effect<RollingMemory, StateDecodeError | ConfigError | TokenCountError, Summarizer.Summarizer> =>
  Effect.flatMap(MemoryState.fromJSON(input), (state) => build(options, fillState(state)))
