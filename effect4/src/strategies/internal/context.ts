/**
 * Reading a memory's services from the context once, when it is built, and
 * decoding its options and state: what every public constructor shares.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Rules from "../../../../src/core/options.js"
import { decodedStateProblem } from "../../../../src/core/state.js"
import { ConfigError, StateDecodeError } from "../../Errors.js"
import * as MemoryState from "../../schema/MemoryState.js"
import * as Message from "../../schema/Message.js"
import * as Options from "../../schema/Options.js"
import * as Summarizer from "../../services/Summarizer.js"
import * as TokenCounter from "../../services/TokenCounter.js"
import type { Services } from "./wiring.js"

/** The counter and the summarizer (`undefined` for `Summarizer.drop`) in context. @internal */
export const services: Effect.Effect<Services, never, Summarizer.Summarizer> = Effect.gen(function*() {
  const counter = yield* TokenCounter.TokenCounter
  const summarizer = yield* Summarizer.Summarizer
  return { counter, summarizer: Summarizer.isDrop(summarizer) ? undefined : summarizer }
})

/** The counter and a summarizer that summarizes; `Summarizer.drop` is a `ConfigError`. @internal */
export const summarizing: Effect.Effect<
  Services & { readonly summarizer: Summarizer.Service },
  ConfigError,
  Summarizer.Summarizer
> = Effect.gen(function*() {
  const counter = yield* TokenCounter.TokenCounter
  const summarizer = yield* Summarizer.Summarizer
  if (Summarizer.isDrop(summarizer)) return yield* new ConfigError(Rules.summaryNeedsSummarizer)
  return { counter, summarizer }
})

/** The counter in context, for the strategies that never summarize. @internal */
export const counting: Effect.Effect<Services> = Effect.map(
  TokenCounter.TokenCounter,
  (counter) => ({ counter, summarizer: undefined })
)

/** A strategy's options decoded, or its `ConfigError`. @internal */
export const options = <S extends Rules.Strategy>(
  strategy: S,
  input: unknown
): Effect.Effect<Options.OptionsOf[S], ConfigError> =>
  Effect.suspend(() => Effect.fromResult(Options.decode(strategy, input)))

/** A state read from JSON (an object or its text). @internal */
export const stateOf = (json: unknown): Effect.Effect<MemoryState.MemoryState, StateDecodeError> =>
  typeof json === "string" ? MemoryState.fromString(json) : MemoryState.fromJSON(json)

const isMessage = (u: unknown): boolean => u instanceof Message.Message

/**
 * A state given to a constructor checked to be a decoded one
 * (`core/state.ts` `decodedStateProblem`): a parsed document or a hand-made
 * object is a `StateDecodeError` saying what to call, never a defect or a
 * counter's error. `undefined` (no state) passes. @internal
 */
export const checkState = (state: MemoryState.MemoryState | undefined): Effect.Effect<void, StateDecodeError> =>
  Effect.suspend(() => {
    if (state === undefined) return Effect.void
    const problem = decodedStateProblem(state, isMessage)
    return problem === undefined ? Effect.void : Effect.fail(new StateDecodeError({ description: problem }))
  })
