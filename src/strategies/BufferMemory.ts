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
import type { StateDecodeError, TokenCountError } from "../Errors.js"
import * as MemoryState from "../schema/MemoryState.js"
import { buildBuffer } from "./internal/builders.js"
import { withServices } from "./internal/core.js"
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

const build = (state: MemoryState.MemoryState | undefined): Effect.Effect<BufferMemory, TokenCountError> =>
  withServices((services) => buildBuffer(services, state))

/**
 * Builds an empty BufferMemory. Reads `TokenCounter` (default: word count)
 * from the context, for `bufferTokens` only.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (): Effect.Effect<BufferMemory> => build(undefined) as Effect.Effect<BufferMemory>

/**
 * Builds a BufferMemory holding a state. Fails with `TokenCountError`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromState = (state: MemoryState.MemoryState): Effect.Effect<BufferMemory, TokenCountError> => build(state)

/**
 * Restores a BufferMemory from a parsed JSON state (any strategy's). Fails
 * with `StateDecodeError` or `TokenCountError`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromJSON = (input: unknown): Effect.Effect<BufferMemory, StateDecodeError | TokenCountError> =>
  Effect.flatMap(MemoryState.fromJSON(input), build)
