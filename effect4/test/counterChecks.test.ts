/**
 * The token counter's check on the Effect 4 line (docs/contract.md sections
 * 3 and 9): a count that is not a non-negative safe integer fails the add
 * with `TokenCountError` and appends nothing, with the Effect 3 line's
 * descriptions (`core/tokens.ts`).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TokenCountError } from "../src/Errors.js"
import { Message, RollingMemory, Summarizer, TokenCounter } from "../src/index.js"

const PAST_SAFE = "past the largest safe integer (9007199254740991)"

describe("token counts on Effect 4", () => {
  it.effect("an integer past 2^53, from a function or an effect, is TokenCountError; nothing is appended", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [number, string]> = [
        [2 ** 53, `token counter returned 9007199254740992, ${PAST_SAFE}`],
        [1e300, `token counter returned 1e+300, ${PAST_SAFE}`],
        [-1, "token counter returned -1, not a non-negative integer"],
        [1.5, "token counter returned 1.5, not a non-negative integer"]
      ]
      for (const [value, description] of cases) {
        for (
          const counter of [
            TokenCounter.fromFunction(() => value),
            TokenCounter.fromEffect(() => Effect.succeed(value))
          ]
        ) {
          const memory = yield* RollingMemory.make({ maxTokens: 100 }).pipe(
            Effect.provide(Summarizer.layerDrop),
            Effect.provideService(TokenCounter.TokenCounter, counter)
          )
          const error = yield* Effect.flip(memory.add(Message.user("hi")))
          assert.instanceOf(error, TokenCountError)
          assert.strictEqual(error.description, description)
          assert.deepStrictEqual(yield* memory.messages, [])
        }
      }
      // the largest safe integer is a count
      assert.strictEqual(
        yield* TokenCounter.checkedCount(TokenCounter.fromFunction(() => Number.MAX_SAFE_INTEGER), "hi"),
        Number.MAX_SAFE_INTEGER
      )
    }))
})
