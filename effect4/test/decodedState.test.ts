/**
 * A value typed as a state that is none (a parsed document, a hand-made
 * object) given to a constructor fails with `StateDecodeError` saying what
 * to call, never a defect or a counter's error (docs/contract.md section 2):
 * the Effect 3 line's cases (`test/support/decodedStateCases.ts`).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { runDecodedStateCases } from "../../test/support/decodedStateCases.js"
import { StateDecodeError } from "../src/Errors.js"
import { BufferMemory, Memory, MemoryState, Message, RollingMemory, Summarizer, WindowMemory } from "../src/index.js"

const refusal = (effect: Effect.Effect<unknown, unknown, Summarizer.Summarizer>): string | undefined => {
  const exit = Effect.runSyncExit(Effect.provide(effect, Summarizer.layerDrop))
  if (Exit.isSuccess(exit)) return undefined
  const reason = exit.cause.reasons[0]
  return reason !== undefined && reason._tag === "Fail" && reason.error instanceof StateDecodeError
    ? reason.error.description
    : undefined
}

runDecodedStateCases({
  name: "Effect 4",
  refusals: (input) => {
    const state = input as MemoryState.MemoryState
    return [
      RollingMemory.fromState(state, { maxTokens: 100 }),
      BufferMemory.fromState(state),
      WindowMemory.fromState(state, { maxMessages: 4 }),
      Memory.make({ strategy: "buffer" }, state),
      Effect.scoped(RollingMemory.makeScoped({ maxTokens: 100 }, state))
    ].map((effect) => refusal(effect as Effect.Effect<unknown, unknown, Summarizer.Summarizer>))
  },
  restored: () =>
    Effect.runSync(
      RollingMemory.fromState(MemoryState.make("s", [Message.user("hi")]), { maxTokens: 100 }).pipe(
        Effect.flatMap((m) => m.toJSON),
        Effect.provide(Summarizer.layerDrop)
      )
    )
}, { assert, describe, it })
