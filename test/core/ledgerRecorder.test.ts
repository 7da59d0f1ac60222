/**
 * What the artifact ledger records (docs/contract.md section 14.2,
 * `src/core/ledgerRecorder.ts`): every artifact but a hash of more than 40
 * hexadecimal digits, in order of mention, each message extracted once.
 */
import { assert, describe, it } from "@effect/vitest"
import { MAX_HASH_DIGITS, recorder, records } from "../../src/core/ledgerRecorder.js"

type Source = { readonly content: string; readonly toolCalls: ReadonlyArray<{ readonly signature: string }> }
const message = (content: string, ...signatures: ReadonlyArray<string>): Source => ({
  content,
  toolCalls: signatures.map((signature) => ({ signature }))
})

describe("the ledger's recorder", () => {
  it("records every artifact but a hash over 40 digits", () => {
    assert.strictEqual(MAX_HASH_DIGITS, 40)
    assert.isTrue(records({ kind: "hash", text: "bf32bed" }))
    assert.isTrue(records({ kind: "hash", text: "a".repeat(39) + "1" }))
    assert.isFalse(records({ kind: "hash", text: "a".repeat(40) + "1" }))
    // only the hash kind: a long identifier or path is recorded
    assert.isTrue(records({ kind: "id", text: "a".repeat(60) + "_1" }))
    assert.isTrue(records({ kind: "path", text: "src/" + "a".repeat(60) + ".ts" }))
  })

  it("gives the recorded artifacts in order of mention, messages oldest first, content then tool calls", () => {
    const ledger = recorder<Source>({ maxTokens: 500 })
    assert.strictEqual(ledger.maxTokens, 500)
    const digest = "0123456789abcdef".repeat(4)
    assert.deepStrictEqual(
      ledger.mentioned([
        message(`lib/a.ex ${digest} bf32bed`),
        message("", "read({\"path\":\"src/b.ts\"})")
      ]),
      ["lib/a.ex", "bf32bed", "src/b.ts"]
    )
  })

  it("extracts each message object once, and reads a user's patterns", () => {
    const ledger = recorder<{ content: string; toolCalls: ReadonlyArray<{ readonly signature: string }> }>({
      maxTokens: 10,
      patterns: [{ kind: "ticket", regex: /T-\d+/g }]
    })
    const first = { content: "T-1 and T-2, not src/a.ts", toolCalls: [] }
    assert.deepStrictEqual(ledger.mentioned([first]), ["T-1", "T-2"])
    // the extraction is kept by the message object: a later change of its text is not read again
    first.content = "T-3"
    assert.deepStrictEqual(ledger.mentioned([first, first]), ["T-1", "T-2", "T-1", "T-2"])
    assert.deepStrictEqual(ledger.mentioned([{ content: "T-3", toolCalls: [] }]), ["T-3"])
  })
})
