/**
 * Reasoning stays with its call: per format (OpenAI Responses `reasoning`
 * items, Anthropic `thinking` blocks, Gemini `thoughtSignature`s, AI SDK
 * `reasoning` parts), reasoning before parallel calls, before a final text
 * answer and at the end of a transcript is written back in its place, after
 * a memory round trip, after tool-result clearing (`clearToolResults`) and
 * after the eviction of the first turn.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Adapters from "../../src/adapters.js"
import { RollingMemory } from "../../src/promise/index.js"
import type * as Message from "../../src/schema/Message.js"
import { json, throughMemory } from "./support.js"

const PLACEHOLDER = "[tool result cleared]"
// long enough that the results alone put the buffer over its budget
const LONG = Array.from({ length: 60 }, (_, i) => `w${i}`).join(" ")

interface Case {
  readonly name: string
  readonly decode: (x: unknown) => Array<Message.Message>
  readonly encode: (messages: ReadonlyArray<Message.Message>) => unknown
  /** The transcript: two turns, reasoning before parallel calls, before a final answer, at the end. */
  readonly transcript: unknown
  /** The transcript from the second turn on (what eviction of the first turn leaves). */
  readonly secondTurn: unknown
  /** The transcript with every tool result's text replaced by the placeholder. */
  readonly cleared: unknown
}

const responses = (output: (text: string) => string): Array<unknown> => [
  { role: "user", content: "Weather in Rome and Paris?" },
  { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Two cities: two calls." }] },
  { type: "function_call", call_id: "c1", name: "weather", arguments: "{\"city\":\"Rome\"}", id: "fc_1" },
  { type: "function_call", call_id: "c2", name: "weather", arguments: "{\"city\":\"Paris\"}", id: "fc_2" },
  { type: "function_call_output", call_id: "c1", output: output(`Rome ${LONG}`) },
  { type: "function_call_output", call_id: "c2", output: output(`Paris ${LONG}`) },
  { type: "reasoning", id: "rs_2", summary: [], encrypted_content: "gAAA2" },
  { type: "message", role: "assistant", content: [{ type: "output_text", text: "Rome 21, Paris 18." }] },
  { role: "user", content: "And Oslo?" },
  { type: "reasoning", id: "rs_3", summary: [], encrypted_content: "gAAA3" },
  { type: "function_call", call_id: "c3", name: "weather", arguments: "{\"city\":\"Oslo\"}", id: "fc_3" },
  { type: "function_call_output", call_id: "c3", output: output(`Oslo ${LONG}`) },
  { type: "reasoning", id: "rs_4", summary: [{ type: "summary_text", text: "Answer next." }] }
]

const anthropic = (output: (text: string) => string) => ({
  messages: [
    { role: "user", content: "Weather in Rome and Paris?" },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Two cities: two calls.", signature: "sig1" },
        { type: "tool_use", id: "c1", name: "weather", input: { city: "Rome" } },
        { type: "tool_use", id: "c2", name: "weather", input: { city: "Paris" } }
      ]
    },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "c1", content: output(`Rome ${LONG}`) },
        { type: "tool_result", tool_use_id: "c2", content: output(`Paris ${LONG}`) }
      ]
    },
    {
      role: "assistant",
      content: [
        { type: "redacted_thinking", data: "opaque2" },
        { type: "text", text: "Rome 21, Paris 18." }
      ]
    },
    { role: "user", content: "And Oslo?" },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "One call.", signature: "sig3" },
        { type: "tool_use", id: "c3", name: "weather", input: { city: "Oslo" } }
      ]
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "c3", content: output(`Oslo ${LONG}`) }] },
    { role: "assistant", content: [{ type: "thinking", thinking: "Answer next.", signature: "sig4" }] }
  ]
})

const gemini = (output: (text: string) => string) => ({
  contents: [
    { role: "user", parts: [{ text: "Weather in Rome and Paris?" }] },
    {
      role: "model",
      parts: [
        { text: "Two cities: two calls.", thought: true, thoughtSignature: "sig1" },
        { functionCall: { id: "c1", name: "weather", args: { city: "Rome" } }, thoughtSignature: "sig1b" },
        { functionCall: { id: "c2", name: "weather", args: { city: "Paris" } } }
      ]
    },
    {
      role: "user",
      parts: [
        { functionResponse: { id: "c1", name: "weather", response: { output: output(`Rome ${LONG}`) } } },
        { functionResponse: { id: "c2", name: "weather", response: { output: output(`Paris ${LONG}`) } } }
      ]
    },
    { role: "model", parts: [{ text: "Rome 21, Paris 18.", thoughtSignature: "sig2" }] },
    { role: "user", parts: [{ text: "And Oslo?" }] },
    {
      role: "model",
      parts: [{ functionCall: { id: "c3", name: "weather", args: { city: "Oslo" } }, thoughtSignature: "sig3" }]
    },
    {
      role: "user",
      parts: [{ functionResponse: { id: "c3", name: "weather", response: { output: output(`Oslo ${LONG}`) } } }]
    },
    { role: "model", parts: [{ text: "Answer next.", thought: true, thoughtSignature: "sig4" }] }
  ]
})

const aiSdk = (output: (text: string) => string) => [
  { role: "user", content: "Weather in Rome and Paris?" },
  {
    role: "assistant",
    content: [
      { type: "reasoning", text: "Two cities: two calls.", providerOptions: { anthropic: { signature: "sig1" } } },
      { type: "tool-call", toolCallId: "c1", toolName: "weather", input: { city: "Rome" } },
      { type: "tool-call", toolCallId: "c2", toolName: "weather", input: { city: "Paris" } }
    ]
  },
  {
    role: "tool",
    content: [
      {
        type: "tool-result",
        toolCallId: "c1",
        toolName: "weather",
        output: { type: "text", value: output(`Rome ${LONG}`) }
      },
      {
        type: "tool-result",
        toolCallId: "c2",
        toolName: "weather",
        output: { type: "text", value: output(`Paris ${LONG}`) }
      }
    ]
  },
  {
    role: "assistant",
    content: [{ type: "reasoning", text: "Both in." }, { type: "text", text: "Rome 21, Paris 18." }]
  },
  { role: "user", content: "And Oslo?" },
  {
    role: "assistant",
    content: [
      { type: "reasoning", text: "One call." },
      { type: "tool-call", toolCallId: "c3", toolName: "weather", input: { city: "Oslo" } }
    ]
  },
  {
    role: "tool",
    content: [
      {
        type: "tool-result",
        toolCallId: "c3",
        toolName: "weather",
        output: { type: "text", value: output(`Oslo ${LONG}`) }
      }
    ]
  },
  { role: "assistant", content: [{ type: "reasoning", text: "Answer next." }] }
]

const same = (text: string) => text
const cleared = () => PLACEHOLDER

const CASES: ReadonlyArray<Case> = [
  {
    name: "OpenAI Responses reasoning items",
    decode: Adapters.fromOpenAIResponses,
    encode: Adapters.toOpenAIResponses,
    transcript: responses(same),
    secondTurn: responses(same).slice(8),
    cleared: responses(cleared)
  },
  {
    name: "Anthropic thinking blocks",
    decode: Adapters.fromAnthropic,
    encode: Adapters.toAnthropic,
    transcript: anthropic(same),
    secondTurn: { messages: anthropic(same).messages.slice(4) },
    cleared: anthropic(cleared)
  },
  {
    name: "Gemini thoughtSignatures",
    decode: Adapters.fromGemini,
    encode: Adapters.toGemini,
    transcript: gemini(same),
    secondTurn: { contents: gemini(same).contents.slice(4) },
    cleared: gemini(cleared)
  },
  {
    name: "AI SDK reasoning parts",
    decode: Adapters.fromAiSdk,
    encode: Adapters.toAiSdk,
    transcript: aiSdk(same),
    secondTurn: aiSdk(same).slice(4),
    cleared: aiSdk(cleared)
  }
]

const CLEARED = json(PLACEHOLDER)

describe.each(CASES)("reasoning stays with its call: $name", (c) => {
  it("read, through a memory and its JSON, written back in its place", () => {
    assert.deepStrictEqual(json(c.encode(throughMemory(c.decode(json(c.transcript))))), json(c.transcript))
  })

  it("through clearing: every result cleared, the reasoning and the calls written as they came", () => {
    const messages = c.decode(json(c.transcript))
    const memory = new RollingMemory({
      maxTokens: 150,
      targetTokens: 20,
      summarize: "drop",
      clearToolResults: { keep: 0, placeholder: PLACEHOLDER }
    })
    memory.addMessages(messages)
    const held = memory.getMessages()
    assert.strictEqual(held.length, messages.length)
    assert.deepStrictEqual(
      held.flatMap((m) => m.toolCallId === undefined ? [] : [json(m.content)]),
      [CLEARED, CLEARED, CLEARED]
    )
    assert.deepStrictEqual(json(c.encode(held)), json(c.cleared))
  })

  it.effect("through eviction: the first turn evicted whole, the second written as it came", () =>
    Effect.sync(() => {
      const messages = c.decode(json(c.transcript))
      const memory = new RollingMemory({ maxTokens: 100, boundary: "turn", summarize: "drop" })
      memory.addMessages(messages)
      assert.deepStrictEqual(json(c.encode(memory.getMessages())), json(c.secondTurn))
    }))
})
