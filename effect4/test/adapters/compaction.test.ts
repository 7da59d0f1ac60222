/**
 * A provider's own compaction on the Effect 4 line (contract 15.6): the
 * Effect 3 line's values (test/adapters/compaction.test.ts) from the same
 * core (`core/formats/compaction.ts`): `compactionOf` of a message read by
 * `fromOpenAIResponses` / `fromAnthropic`, and `fromProviderHistory`'s
 * state (its messages' metadata included: the state the Effect 3 line
 * writes, byte for byte).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Adapters from "../../src/adapters.js"

const json = (u: unknown): unknown => JSON.parse(JSON.stringify(u))

const ITEM = { type: "compaction", id: "cmp_1", encrypted_content: "gAAAA-opaque" }

describe("OpenAI Responses compaction item", () => {
  const compacted = [{ role: "user", content: "Plan the trip to Rome." }, ITEM]

  it("compactionOf: the item, verbatim, with no readable content", () => {
    const messages = Adapters.fromOpenAIResponses(compacted, { strict: true })
    assert.deepStrictEqual(messages.map(String), ["user: Plan the trip to Rome.", "assistant: "])
    assert.deepStrictEqual(Adapters.compactionOf(messages[1]), { format: "openai-responses", item: ITEM, content: "" })
    assert.strictEqual(Adapters.compactionOf(messages[0]), undefined)
  })

  it("fromProviderHistory: what precedes the item is folded; the item reads back first and is written first", () => {
    const state = Adapters.fromProviderHistory([
      ...Adapters.fromOpenAIResponses(compacted),
      ...Adapters.fromOpenAIResponses([{ role: "user", content: "Next?" }])
    ])
    assert.deepStrictEqual(json(state), {
      version: 3,
      summary: "",
      buffer: [{ role: "user", content: "Next?" }],
      compaction: { format: "openai-responses", item: ITEM, content: "" }
    })
  })

  it("a history without a compaction item is its buffer, version 2", () => {
    assert.deepStrictEqual(
      json(Adapters.fromProviderHistory(Adapters.fromOpenAIResponses([{ role: "user", content: "hi" }]))),
      {
        version: 2,
        summary: "",
        buffer: [{ role: "user", content: "hi" }]
      }
    )
  })
})

describe("Anthropic compaction block", () => {
  const BLOCK = {
    type: "compaction",
    content: "The user plans a trip to Rome in May.",
    encrypted_content: null,
    signature: "sig-1",
    tool_changes: []
  }
  const request = {
    messages: [
      { role: "user", content: "Plan the trip to Rome." },
      { role: "assistant", content: [BLOCK, { type: "text", text: "Shall I book the train?" }] }
    ]
  }

  it("compactionOf: the block verbatim, its content readable", () => {
    const messages = Adapters.fromAnthropic(request)
    assert.deepStrictEqual(Adapters.compactionOf(messages[1]), {
      format: "anthropic",
      item: BLOCK,
      content: "The user plans a trip to Rome in May."
    })
  })

  it("fromProviderHistory: the block first in messages, the blocks after it a message of their own", () => {
    const state = Adapters.fromProviderHistory([
      ...Adapters.fromAnthropic(request),
      ...Adapters.fromAnthropic({ messages: [{ role: "user", content: "Yes, the morning one." }] })
    ])
    assert.deepStrictEqual(json(state), {
      version: 3,
      summary: "",
      buffer: [
        {
          role: "assistant",
          content: "Shall I book the train?",
          // the block as it came (a text block, not the string content writing would give)
          metadata: {
            "rollmem.provider": {
              format: "anthropic",
              items: [{ role: "assistant", content: [{ type: "text", text: "Shall I book the train?" }] }],
              messages: 1
            }
          }
        },
        { role: "user", content: "Yes, the morning one." }
      ],
      compaction: { format: "anthropic", item: BLOCK, content: "The user plans a trip to Rome in May." }
    })
  })
})
