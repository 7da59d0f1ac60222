/**
 * WindowMemory: the last `maxMessages` messages (docs/contract.md section 7).
 *
 * After each add the buffer is pruned by message count with the unit and
 * alignment rules of docs/contract.md section 4: the newest unit is always kept, and
 * alignment may evict more. Evicted turns are dropped, never summarized. A
 * restored summary is kept as is and read back as the leading system message.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message, WindowMemory } from "rollmem"
 *
 * const program = Effect.gen(function*() {
 *   const memory = yield* WindowMemory.make({ maxMessages: 20 })
 *   yield* memory.add(Message.user("hello"))
 *   return yield* memory.context // "user: hello"
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type { ConfigError, StateDecodeError, TokenCountError } from "../Errors.js"
import { checkOptionKeys } from "../internal/options.js"
import * as MemoryState from "../schema/MemoryState.js"
import { buildWindow } from "./internal/builders.js"
import { type Fill, fillEmpty, fillState, memoryOf, withServices } from "./internal/core.js"
import * as keys from "./internal/keys.js"
import type { Memory } from "./Memory.js"

/**
 * Options of a WindowMemory.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Most messages kept: a positive integer (required). */
  readonly maxMessages: number
  /**
   * The low-water mark, in messages (docs/contract.md section 10.1): a prune
   * starts when the buffer holds more than `maxMessages` and evicts down to
   * `targetMessages`. A positive integer at most `maxMessages`; default
   * `maxMessages`.
   */
  readonly targetMessages?: number | undefined
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
}

/**
 * A WindowMemory.
 *
 * @since 0.1.0
 * @category models
 */
export interface WindowMemory extends Memory {
  readonly strategy: "window"
  /** The message budget of the buffer. */
  readonly maxMessages: number
  /** The low-water mark a prune evicts down to (`maxMessages` unless set). */
  readonly targetMessages: number
}

// An empty memory (`fillEmpty`) cannot fail to count; a restored one (`fillState`) can.
const build = <E>(options: Options, fill: Fill<E>): Effect.Effect<WindowMemory, ConfigError | E> => {
  const invalid = options === undefined ? undefined : checkOptionKeys(options, keys.window)
  return invalid !== undefined
    ? Effect.fail(invalid)
    : withServices((services) => Effect.map(buildWindow(services, options, fill), memoryOf))
}

/**
 * Builds an empty WindowMemory. Reads `TokenCounter` (default: word count)
 * from the context, for `bufferTokens` only.
 *
 * Fails with `ConfigError` when the options are not an object, hold an
 * unknown key (naming it and the known ones), or an option is wrong: `maxMessages` or
 * `targetMessages` not a positive integer, `targetMessages` over
 * `maxMessages`, `boundary`, `pinSystem` or `summaryRole` of the wrong type
 * or value.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<WindowMemory, ConfigError> => build(options, fillEmpty)

/**
 * Builds a WindowMemory holding a state, restored verbatim (not pruned).
 * Fails with `ConfigError` or `TokenCountError`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromState = (
  state: MemoryState.MemoryState,
  options: Options
): Effect.Effect<WindowMemory, ConfigError | TokenCountError> => build(options, fillState(state))

/**
 * Restores a WindowMemory from a parsed JSON state (any strategy's). Fails
 * with `StateDecodeError`, `ConfigError` or `TokenCountError`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromJSON = (
  input: unknown,
  options: Options
): Effect.Effect<WindowMemory, StateDecodeError | ConfigError | TokenCountError> =>
  Effect.flatMap(MemoryState.fromJSON(input), (state) => build(options, fillState(state)))
