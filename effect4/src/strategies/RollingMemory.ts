/**
 * RollingMemory on the Effect 4 line (docs/contract.md sections 4, 5, 10 and
 * 16): a running summary plus a token-bounded buffer of recent turns. When
 * an add takes the buffer over `maxTokens`, the oldest turns down to the
 * target are folded into the summary by the `Summarizer` in context (under a
 * one-permit `Semaphore`), or dropped with `Summarizer.drop`.
 *
 * @since 1.0.0
 */
import { Effect } from "effect"
import type { ConfigError, StateDecodeError, TokenCountError } from "../Errors.js"
import type * as MemoryState from "../schema/MemoryState.js"
import type { RollingOptions } from "../schema/Options.js"
import type * as Summarizer from "../services/Summarizer.js"
import * as Context from "./internal/context.js"
import { buildRolling, type RollingMemory } from "./internal/wiring.js"

export type { RollingMemory }

/** RollingMemory's options (the same as the Effect 3 line's blocking ones). @since 1.0.0 */
export type Options = RollingOptions

/**
 * An empty RollingMemory; the `TokenCounter` (default: words) and the
 * `Summarizer` are read from the context once, here.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message, RollingMemory, Summarizer } from "rollmem"
 *
 * const program = Effect.gen(function*() {
 *   const memory = yield* RollingMemory.make({ maxTokens: 1000 })
 *   yield* memory.add(Message.user("hello"))
 *   return yield* memory.context
 * }).pipe(Effect.provide(Summarizer.layerDrop))
 * ```
 *
 * @since 1.0.0
 */
export const make = (
  options?: Options
): Effect.Effect<RollingMemory, ConfigError | TokenCountError, Summarizer.Summarizer> => fromState(undefined, options)

/** A RollingMemory holding `state` (counted once, never pruned). @since 1.0.0 */
export const fromState = (
  state: MemoryState.MemoryState | undefined,
  options?: Options
): Effect.Effect<RollingMemory, ConfigError | TokenCountError, Summarizer.Summarizer> =>
  Effect.flatMap(
    Context.options("rolling", options),
    (decoded) => Effect.flatMap(Context.services, (services) => buildRolling(services, decoded, state))
  )

/** A RollingMemory holding the state read from JSON (parsed or text). @since 1.0.0 */
export const fromJSON = (
  json: unknown,
  options?: Options
): Effect.Effect<RollingMemory, ConfigError | StateDecodeError | TokenCountError, Summarizer.Summarizer> =>
  Effect.flatMap(Context.stateOf(json), (state) => fromState(state, options))
