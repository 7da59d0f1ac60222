/**
 * BufferMemory on the Effect 4 line: every turn kept, nothing evicted.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import type { ConfigError, StateDecodeError, TokenCountError } from "../Errors.js"
import type * as MemoryState from "../schema/MemoryState.js"
import type { BufferOptions } from "../schema/Options.js"
import * as Context from "./internal/context.js"
import { type BufferMemory, buildBuffer } from "./internal/wiring.js"

export type { BufferMemory }

/** BufferMemory's options. @since 1.0.0 */
export type Options = BufferOptions

/**
 * An empty BufferMemory (the `TokenCounter` read from the context).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { BufferMemory, Message } from "rollmem"
 * Effect.runSync(Effect.gen(function*() {
 *   const memory = yield* BufferMemory.make()
 *   yield* memory.add(Message.user("hi"))
 *   return yield* memory.bufferTokens
 * })) // 1
 * ```
 *
 * @since 1.0.0
 */
export const make = (options?: Options): Effect.Effect<BufferMemory, ConfigError | TokenCountError> =>
  restore(undefined, options)

// the memory of `state` (none: empty), options decoded
const restore = (
  state: MemoryState.MemoryState | undefined,
  options?: Options
): Effect.Effect<BufferMemory, ConfigError | TokenCountError> =>
  Effect.flatMap(
    Context.options("buffer", options),
    (decoded) => Effect.flatMap(Context.counting, (services) => buildBuffer(services, decoded, state))
  )

/** A BufferMemory holding `state`. @since 1.0.0 */
export const fromState = (
  state: MemoryState.MemoryState | undefined,
  options?: Options
): Effect.Effect<BufferMemory, ConfigError | StateDecodeError | TokenCountError> =>
  Effect.andThen(Context.checkState(state), restore(state, options))

/** A BufferMemory holding the state read from JSON. @since 1.0.0 */
export const fromJSON = (
  json: unknown,
  options?: Options
): Effect.Effect<BufferMemory, ConfigError | StateDecodeError | TokenCountError> =>
  Effect.flatMap(Context.stateOf(json), (state) => fromState(state, options))
