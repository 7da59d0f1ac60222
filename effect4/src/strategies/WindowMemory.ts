/**
 * WindowMemory on the Effect 4 line (docs/contract.md sections 4 and 10):
 * the last `maxMessages` messages, whole units, evicted turns dropped.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import type { ConfigError, StateDecodeError, TokenCountError } from "../Errors.js"
import type * as MemoryState from "../schema/MemoryState.js"
import type { WindowOptions } from "../schema/Options.js"
import * as Context from "./internal/context.js"
import { buildWindow, type WindowMemory } from "./internal/wiring.js"

export type { WindowMemory }

/** WindowMemory's options. @since 1.0.0 */
export type Options = WindowOptions

/**
 * An empty WindowMemory (the `TokenCounter` read from the context).
 *
 * @example
 * ```ts
 * import { WindowMemory } from "rollmem"
 * const memory = WindowMemory.make({ maxMessages: 20 })
 * ```
 *
 * @since 1.0.0
 */
export const make = (options: Options): Effect.Effect<WindowMemory, ConfigError | TokenCountError> =>
  restore(undefined, options)

// the memory of `state` (none: empty), options decoded
const restore = (
  state: MemoryState.MemoryState | undefined,
  options: Options
): Effect.Effect<WindowMemory, ConfigError | TokenCountError> =>
  Effect.flatMap(
    Context.options("window", options),
    (decoded) => Effect.flatMap(Context.counting, (services) => buildWindow(services, decoded, state))
  )

/** A WindowMemory holding `state`. @since 1.0.0 */
export const fromState = (
  state: MemoryState.MemoryState | undefined,
  options: Options
): Effect.Effect<WindowMemory, ConfigError | StateDecodeError | TokenCountError> =>
  Effect.andThen(Context.checkState(state), restore(state, options))

/** A WindowMemory holding the state read from JSON. @since 1.0.0 */
export const fromJSON = (
  json: unknown,
  options: Options
): Effect.Effect<WindowMemory, ConfigError | StateDecodeError | TokenCountError> =>
  Effect.flatMap(Context.stateOf(json), (state) => fromState(state, options))
