/**
 * A value typed as a state that is none (a parsed document, a hand-made
 * object) given to a constructor fails with `StateDecodeError` saying what
 * to call, never a defect or a counter's error (docs/contract.md section 2):
 * the Effect 3 line's cases (`test/support/decodedStateCases.ts`).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { decodedStateCases } from "../../test/support/decodedStateCases.js"
import { StateDecodeError } from "../src/Errors.js"
import { BufferMemory, Memory, MemoryState, Message, RollingMemory, Summarizer, WindowMemory } from "../src/index.js"

const failureOf = (effect: Effect.Effect<unknown, unknown, Summarizer.Summarizer>): unknown => {
  const exit = Effect.runSyncExit(Effect.provide(effect, Summarizer.layerDrop))
  if (Exit.isSuccess(exit)) return assert.fail("it succeeded")
  const reason = exit.cause.reasons[0]
  return reason !== undefined && reason._tag === "Fail" ? reason.error : assert.fail(`not a failure: ${exit.cause}`)
}

describe("a state that is not decoded is refused with StateDecodeError", () => {
  for (const c of decodedStateCases) {
    it(c.name, () => {
      const state = c.input() as MemoryState.MemoryState
      for (
        const build of [
          () => RollingMemory.fromState(state, { maxTokens: 100 }),
          () => BufferMemory.fromState(state),
          () => WindowMemory.fromState(state, { maxMessages: 4 }),
          () => Memory.make({ strategy: "buffer" }, state),
          () => Effect.scoped(RollingMemory.makeScoped({ maxTokens: 100 }, state))
        ]
      ) {
        const error = failureOf(build() as Effect.Effect<unknown, unknown, Summarizer.Summarizer>)
        assert.instanceOf(error, StateDecodeError)
        assert.strictEqual((error as StateDecodeError).description, c.description)
      }
    })
  }

  it("a decoded state restores as before", () => {
    const memory = Effect.runSync(
      RollingMemory.fromState(MemoryState.make("s", [Message.user("hi")]), { maxTokens: 100 }).pipe(
        Effect.flatMap((m) => m.toJSON),
        Effect.provide(Summarizer.layerDrop)
      )
    )
    assert.deepStrictEqual(memory, { version: 2, summary: "s", buffer: [{ role: "user", content: "hi" }] })
  })
})
