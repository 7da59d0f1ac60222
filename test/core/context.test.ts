/**
 * `core/context.ts` (docs/contract.md sections 10.10 and 15.6) and the
 * summary-only fold's budget with a provider compaction (`core/fold.ts`
 * `shortenBudget`, section 16.1): the rules both lines' memories call.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Lead from "../../src/core/context.js"
import * as Fold from "../../src/core/fold.js"

describe("core/context.ts", () => {
  it("withLead: after the leading pinned, the compaction then the summary; nothing to add leaves the buffer", () => {
    assert.deepStrictEqual(Lead.withLead(["p", "a", "b"], 1, "c", ["s1", "s2"]), ["p", "c", "s1", "s2", "a", "b"])
    assert.deepStrictEqual(Lead.withLead(["a"], 0, undefined, ["s"]), ["s", "a"])
    assert.deepStrictEqual(Lead.withLead(["a"], 0, "c", []), ["c", "a"])
    const buffer = ["a"]
    assert.strictEqual(Lead.withLead(buffer, 0, undefined, []), buffer)
  })

  it("leadTokens: the compaction's, the summary's, and the framing line's only with a summary", () => {
    assert.strictEqual(Lead.leadTokens({ compactionTokens: 9, summaryTokens: 3, summary: "s", framingTokens: 1 }), 13)
    assert.strictEqual(Lead.leadTokens({ compactionTokens: 9, summaryTokens: 0, summary: "", framingTokens: 1 }), 9)
  })

  it("compactionFields: an OpenAI item as itself, an Anthropic block in its assistant message", () => {
    const item = { type: "compaction", encrypted_content: "gAAA" }
    assert.deepStrictEqual(Lead.compactionFields({ format: "openai-responses", item, content: "" }), {
      role: "assistant",
      content: "",
      metadata: { "rollmem.provider": { format: "openai-responses", items: [item], messages: 1 } }
    })
    const block = { type: "compaction", content: "Rome." }
    assert.deepStrictEqual(Lead.compactionFields({ format: "anthropic", item: block, content: "Rome." }), {
      role: "assistant",
      content: "Rome.",
      metadata: {
        "rollmem.provider": { format: "anthropic", items: [{ role: "assistant", content: [block] }], messages: 1 }
      }
    })
  })

  it("shortenBudget: no summary-only fold while a provider compaction is held", () => {
    const over = {
      summary: "a long summary",
      summaryTokens: 30,
      room: 10,
      ledgerTokens: undefined,
      requestBudget: undefined,
      unshortened: undefined
    }
    assert.strictEqual(Fold.shortenBudget(over), 10)
    assert.strictEqual(Fold.shortenBudget({ ...over, compacted: false }), 10)
    assert.strictEqual(Fold.shortenBudget({ ...over, compacted: true }), undefined)
  })
})
