/**
 * BufferMemory: every turn, kept (docs/contract.md section 6). No summary is made and
 * nothing is evicted; a summary present in a restored state is kept and read
 * back as the leading system message.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { BufferMemory, Message } from "rollmem"
 *
 * const program = Effect.gen(function*() {
 *   const memory = yield* BufferMemory.make()
 *   yield* memory.add(Message.user("hello"))
 *   return yield* memory.buffer
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type { ConfigError, StateDecodeError, TokenCountError } from "../Errors.js"
import { checkOptionKeys } from "../internal/options.js"
import * as MemoryState from "../schema/MemoryState.js"
import { buildBuffer } from "./internal/builders.js"
import { type Fill, fillEmpty, fillState, memoryOf, withServices } from "./internal/core.js"
import * as keys from "./internal/keys.js"
import type { Memory } from "./Memory.js"

/**
 * A BufferMemory.
 *
 * @since 0.1.0
 * @category models
 */
export interface BufferMemory extends Memory {
  readonly strategy: "buffer"
}

/**
 * Options of a BufferMemory.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** The role a restored summary reads back as: `"system"` (default) or `"user"` (docs/contract.md section 10.6). */
  readonly summaryRole?: "system" | "user" | undefined
}

// An empty memory (`fillEmpty`) cannot fail to count; a restored one (`fillState`) can.
const build = <E>(fill: Fill<E>, options?: Options): Effect.Effect<BufferMemory, ConfigError | E> => {
  const invalid = options === undefined ? undefined : checkOptionKeys(options, keys.buffer)
  return invalid !== undefined
    ? Effect.fail(invalid)
    : withServices((services) => Effect.map(buildBuffer(services, fill, options), memoryOf))
}

/**
 * Builds an empty BufferMemory. Reads `TokenCounter` (default: word count)
 * from the context, for `bufferTokens` only. Fails with `ConfigError` for
 * options that are not an object, an unknown key (naming it and the known
 * ones) or a wrong `summaryRole`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options?: Options): Effect.Effect<BufferMemory, ConfigError> => build(fillEmpty, options)

/**
 * Builds a BufferMemory holding a state. Fails with `TokenCountError`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromState = (
  state: MemoryState.MemoryState,
  options?: Options
): Effect.Effect<BufferMemory, ConfigError | TokenCountError> => build(fillState(state), options)

/**
 * Restores a BufferMemory from a parsed JSON state (any strategy's). Fails
 * with `StateDecodeError` or `TokenCountError`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromJSON = (
  input: unknown,
  options?: Options
): Effect.Effect<BufferMemory, StateDecodeError | ConfigError | TokenCountError> =>
  Effect.flatMap(MemoryState.fromJSON(input), (state) => build(fillState(state), options))
