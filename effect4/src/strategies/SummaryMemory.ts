/**
 * SummaryMemory on the Effect 4 line (docs/contract.md section 5): every
 * turn folded into the summary by the `Summarizer` in context, at once.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import type { ConfigError, StateDecodeError, TokenCountError } from "../Errors.js"
import type * as MemoryState from "../schema/MemoryState.js"
import type { SummaryOptions } from "../schema/Options.js"
import type * as Summarizer from "../services/Summarizer.js"
import * as Context from "./internal/context.js"
import { buildSummary, type SummaryMemory } from "./internal/wiring.js"

export type { SummaryMemory }

/** SummaryMemory's options. @since 1.0.0 */
export type Options = SummaryOptions

/**
 * An empty SummaryMemory; `Summarizer.drop` is a `ConfigError`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Summarizer, SummaryMemory } from "rollmem"
 * const memory = SummaryMemory.make().pipe(
 *   Effect.provide(Summarizer.layerFunction((summary, messages) => `${summary} ${messages.length}`))
 * )
 * ```
 *
 * @since 1.0.0
 */
export const make = (
  options?: Options
): Effect.Effect<SummaryMemory, ConfigError | TokenCountError, Summarizer.Summarizer> => restore(undefined, options)

// the memory of `state` (none: empty), options decoded
const restore = (
  state: MemoryState.MemoryState | undefined,
  options?: Options
): Effect.Effect<SummaryMemory, ConfigError | TokenCountError, Summarizer.Summarizer> =>
  Effect.flatMap(
    Context.options("summary", options),
    (decoded) => Effect.flatMap(Context.summarizing, (services) => buildSummary(services, decoded, state))
  )

/** A SummaryMemory holding `state`. @since 1.0.0 */
export const fromState = (
  state: MemoryState.MemoryState | undefined,
  options?: Options
): Effect.Effect<SummaryMemory, ConfigError | StateDecodeError | TokenCountError, Summarizer.Summarizer> =>
  Effect.andThen(Context.checkState(state), restore(state, options))

/** A SummaryMemory holding the state read from JSON. @since 1.0.0 */
export const fromJSON = (
  json: unknown,
  options?: Options
): Effect.Effect<SummaryMemory, ConfigError | StateDecodeError | TokenCountError, Summarizer.Summarizer> =>
  Effect.flatMap(Context.stateOf(json), (state) => fromState(state, options))
