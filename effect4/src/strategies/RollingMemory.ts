/**
 * RollingMemory on the Effect 4 line (docs/contract.md sections 4, 5, 10 and
 * 16): a running summary plus a token-bounded buffer of recent turns. When
 * an add takes the buffer over `maxTokens`, the oldest turns down to the
 * target are folded into the summary by the `Summarizer` in context (under a
 * one-permit `Semaphore`), or dropped with `Summarizer.drop`.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { ConfigError, StateDecodeError, TokenCountError } from "../Errors.js"
import type * as MemoryState from "../schema/MemoryState.js"
import type { RollingOptions } from "../schema/Options.js"
import type * as Summarizer from "../services/Summarizer.js"
import * as Context from "./internal/context.js"
import { buildRolling, type RollingMemory } from "./internal/wiring.js"

export type { RollingMemory }

/** RollingMemory's options (the same as the Effect 3 line's). @since 1.0.0 */
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
): Effect.Effect<RollingMemory, ConfigError | TokenCountError, Summarizer.Summarizer> => restore(undefined, options)

// the memory of `state` (none: empty), options decoded
const restore = (
  state: MemoryState.MemoryState | undefined,
  options?: Options
): Effect.Effect<RollingMemory, ConfigError | TokenCountError, Summarizer.Summarizer> =>
  Effect.flatMap(
    Context.options("rolling", options),
    (decoded) => Effect.flatMap(Context.services, (services) => buildRolling(services, decoded, state))
  )

/** A RollingMemory holding `state` (counted once, never pruned). @since 1.0.0 */
export const fromState = (
  state: MemoryState.MemoryState | undefined,
  options?: Options
): Effect.Effect<RollingMemory, ConfigError | StateDecodeError | TokenCountError, Summarizer.Summarizer> =>
  Effect.andThen(Context.checkState(state), restore(state, options))

/**
 * A RollingMemory whose folds may run in the background (`fold:
 * "background"`, docs/contract.md section 5.1), owned by the current
 * `Scope`: closing it interrupts the fold in flight (committing nothing),
 * lets the held-back adds in and starts no other fold; the memory stays
 * readable and its adds still append. With `state`, restores it first (each
 * message counted once, not pruned). Takes every option of {@link make};
 * fails with `ConfigError` (as `make`, and `fold: "background"` with
 * `Summarizer.drop`) or `TokenCountError` (restoring).
 *
 * @example
 * ```ts
 * import { Effect, Schedule } from "effect"
 * import { Message, RollingMemory, Summarizer } from "rollmem"
 *
 * const program = Effect.scoped(Effect.gen(function*() {
 *   const memory = yield* RollingMemory.makeScoped({
 *     maxTokens: 8000,
 *     targetTokens: 4000,
 *     fold: "background", // an add never waits on the summarizer below 16,000 tokens
 *     foldRetry: Schedule.max([Schedule.exponential("1 second"), Schedule.recurs(3)])
 *   })
 *   yield* memory.add(Message.user("Book me a flight to Rome"))
 * })).pipe(Effect.provide(Summarizer.layerFunction((summary, turns) => `${summary} +${turns.length}`.trim())))
 * ```
 *
 * @since 1.0.0
 */
export const makeScoped = (
  options?: Options,
  state?: MemoryState.MemoryState
): Effect.Effect<
  RollingMemory,
  ConfigError | StateDecodeError | TokenCountError,
  Scope.Scope | Summarizer.Summarizer
> =>
  Effect.flatMap(
    Effect.andThen(Context.checkState(state), Context.options("rolling", options)),
    (decoded) =>
      Effect.flatMap(
        Effect.scope,
        (scope) => Effect.flatMap(Context.services, (services) => buildRolling(services, decoded, state, scope))
      )
  )

/** A RollingMemory holding the state read from JSON (parsed or text). @since 1.0.0 */
export const fromJSON = (
  json: unknown,
  options?: Options
): Effect.Effect<RollingMemory, ConfigError | StateDecodeError | TokenCountError, Summarizer.Summarizer> =>
  Effect.flatMap(Context.stateOf(json), (state) => fromState(state, options))
