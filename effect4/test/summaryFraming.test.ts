/**
 * `summaryFraming` on the Effect 4 line (docs/contract.md section 10.10):
 * the same line, counts and state as the Effect 3 line's.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Rules from "../../src/core/options.js"
import { BufferMemory, ConfigError, RollingMemory } from "../src/promise/index.js"

const words = (text: string): number => text.split(/\s+/).filter((w) => w !== "").length

describe("summaryFraming on Effect 4", () => {
  it("the default line before the summary, counted in contextTokens, never in the state", () => {
    const memory = new RollingMemory({
      maxTokens: 3,
      summarize: (summary, turns) => `${summary}+${turns.length}`,
      tokenCounter: words,
      summaryFraming: true
    })
    for (const text of ["a b", "c d", "e f"]) memory.addUserMessage(text)
    assert.strictEqual(memory.getMessages()[0].content, `${Rules.DEFAULT_SUMMARY_FRAMING}\n\n+1+1`)
    assert.strictEqual(memory.contextTokens, 1 + 19 + 2)
    assert.deepStrictEqual(memory.toJSON(), { version: 2, summary: "+1+1", buffer: [{ role: "user", content: "e f" }] })
  })

  it("a string is the line; a blank one is a ConfigError", () => {
    const memory = BufferMemory.fromJSON(
      { version: 2, summary: "kept", buffer: [{ role: "user", content: "a b" }] },
      { summaryFraming: "Earlier:", tokenCounter: words }
    )
    assert.deepStrictEqual(memory.getMessages().map((m) => m.content), ["Earlier:\n\nkept", "a b"])
    assert.strictEqual(memory.contextTokens, 1 + 1 + 2)
    assert.throws(() => new BufferMemory({ summaryFraming: " " }), ConfigError)
  })
})
