/**
 * The summary-only fold of a context window on the Effect 4 line
 * (docs/contract.md section 16.1): the same calls and summary as the Effect
 * 3 line's (`test/summaryOnlyFold.test.ts`).
 */
import { assert, describe, it } from "@effect/vitest"
import { RollingMemory } from "../src/promise/index.js"

const words = (text: string): number => text.split(/\s+/).filter((w) => w !== "").length

describe("the summary-only fold on Effect 4", () => {
  it("the summary shortened into the room the newest unit leaves, asked once per summary", () => {
    for (const shortens of [true, false]) {
      const calls: Array<readonly [number, number | undefined]> = []
      const memory = new RollingMemory({
        contextWindow: { tokens: 10, reserveTokens: 0 },
        tokenCounter: words,
        summarize: (summary, messages, request) => {
          calls.push([messages.length, request.maxSummaryTokens])
          if (messages.length > 0) return "a b c d"
          return shortens ? summary.split(" ").slice(0, request.maxSummaryTokens).join(" ") : summary
        }
      })
      for (const text of ["u1 x x", "u2 x x", "u3 x x x x x x"]) memory.addUserMessage(text)
      memory.addAssistantMessage("ok")
      if (shortens) {
        assert.deepStrictEqual(calls, [[1, undefined], [1, undefined], [0, 3], [1, undefined]])
      } else {
        // not shortened: the same summary is not asked about again
        assert.deepStrictEqual(calls.filter(([turns]) => turns === 0), [[0, 3]])
        assert.strictEqual(memory.summary, "a b c d")
      }
    }
  })
})
