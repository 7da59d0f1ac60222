/**
 * RollingMemory: a running summary plus a token-bounded buffer of recent
 * turns (docs/contract.md section 5).
 *
 * Each add counts the new turn once, appends it, and, when the buffer is over
 * `maxTokens`, evicts the oldest whole units (a tool call with its results),
 * aligned so the buffer opens on a turn that is not a response. The evicted
 * turns go to the `Summarizer` in one call; only when it succeeds is the new
 * summary stored and the prefix removed. Without a summarizer in context the
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
import type { ConfigError, StateDecodeError, TokenCountError } from "../Errors.js"
import * as MemoryState from "../schema/MemoryState.js"
import { buildRolling, DEFAULT_MAX_TOKENS as DEFAULT } from "./internal/builders.js"
import { withServices } from "./internal/core.js"
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
}

const build = (
  options: Options | undefined,
  state: MemoryState.MemoryState | undefined
): Effect.Effect<RollingMemory, ConfigError | TokenCountError> =>
  withServices((services) => buildRolling(services, options, state))

/**
 * Builds an empty RollingMemory. Reads `TokenCounter` (default: word count)
 * and, if present, `Summarizer` from the context.
 *
 * Fails with `ConfigError` when `maxTokens` is not a positive integer.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options?: Options): Effect.Effect<RollingMemory, ConfigError> =>
  build(options, undefined) as Effect.Effect<RollingMemory, ConfigError>

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
): Effect.Effect<RollingMemory, ConfigError | TokenCountError> => build(options, state)

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
): Effect.Effect<RollingMemory, StateDecodeError | ConfigError | TokenCountError> =>
  Effect.flatMap(MemoryState.fromJSON(input), (state) => build(options, state))
