/**
 * Contract 15.1, "Call ids are unique in a request": a context that repeats a
 * tool call id (tau-bench's transcripts reuse ids across turns) is written
 * with the later use renamed, its results with it, for every target that
 * refuses a repeated id; OpenAI Chat Completions takes it as it is.
 */
import { assert, describe, it } from "@effect/vitest"
import { toAiSdk, toAnthropic, toGemini, toOpenAIChat, toOpenAIResponses, toUIMessages } from "../../src/adapters.js"
import * as Message from "../../src/schema/Message.js"

const call = (id: string, name = "search") => ({ id, name, arguments: "{\"q\":1}" })

/** Two turns that reuse call id `c1`, as the tau-bench transcripts do. */
const reused = [
  Message.user("find a flight"),
  Message.assistant("", { toolCalls: [call("c1")] }),
  Message.make("tool", "direct: none", { toolCallId: "c1" }),
  Message.assistant("No direct flight."),
  Message.user("one stop then"),
  Message.assistant("", { toolCalls: [call("c1", "search_onestop")] }),
  Message.make("tool", "one stop: HAT136", { toolCallId: "c1" })
]

describe("a repeated tool call id is written unique (contract 15.1)", () => {
  it("toAnthropic: the later call and its result become c1_2; the first keeps its id", () => {
    const { messages } = toAnthropic(reused)
    assert.deepStrictEqual(messages.slice(1).map((m) => m.content), [
      [{ type: "tool_use", id: "c1", name: "search", input: { q: 1 } }],
      [{ type: "tool_result", tool_use_id: "c1", content: "direct: none" }],
      "No direct flight.",
      "one stop then",
      [{ type: "tool_use", id: "c1_2", name: "search_onestop", input: { q: 1 } }],
      [{ type: "tool_result", tool_use_id: "c1_2", content: "one stop: HAT136" }]
    ])
  })

  it("toOpenAIChat writes the ids as they are (Chat Completions takes a repeated id)", () => {
    assert.deepStrictEqual(
      toOpenAIChat(reused).flatMap((m) =>
        m.role === "tool" ? [m.tool_call_id] : m.role === "assistant" ? (m.tool_calls ?? []).map((c) => c.id) : []
      ),
      ["c1", "c1", "c1", "c1"]
    )
  })

  it("toOpenAIResponses, toGemini, toAiSdk, toUIMessages: c1, then c1_2, calls and results alike", () => {
    const responses = toOpenAIResponses(reused).flatMap((i) => "call_id" in i ? [i.call_id] : [])
    assert.deepStrictEqual(responses, ["c1", "c1", "c1_2", "c1_2"])
    const gemini = toGemini(reused).contents.flatMap((c) =>
      c.parts.flatMap((p) => p.functionCall?.id ?? p.functionResponse?.id ?? [])
    )
    assert.deepStrictEqual(gemini, ["c1", "c1", "c1_2", "c1_2"])
    const aiSdk = toAiSdk(reused).flatMap((m) =>
      typeof m.content === "string" ? [] : m.content.flatMap((p) => "toolCallId" in p ? [p.toolCallId] : [])
    )
    assert.deepStrictEqual(aiSdk, ["c1", "c1", "c1_2", "c1_2"])
    const ui = toUIMessages(reused).flatMap((m) =>
      m.parts.flatMap((p) => "toolCallId" in p && typeof p.toolCallId === "string" ? [p.toolCallId] : [])
    )
    assert.deepStrictEqual(ui, ["c1", "c1_2"])
  })

  it("parallel calls that repeat an id: the results answer them in call order; a taken name is skipped", () => {
    const context = [
      Message.user("two searches"),
      Message.assistant("", { toolCalls: [call("c1_2"), call("c1"), call("c1")] }),
      Message.make("tool", "a", { toolCallId: "c1_2" }),
      Message.make("tool", "b", { toolCallId: "c1" }),
      Message.make("tool", "c", { toolCallId: "c1" })
    ]
    const { messages } = toAnthropic(context)
    assert.deepStrictEqual(messages[1].content, [
      { type: "tool_use", id: "c1_2", name: "search", input: { q: 1 } },
      { type: "tool_use", id: "c1", name: "search", input: { q: 1 } },
      { type: "tool_use", id: "c1_3", name: "search", input: { q: 1 } }
    ])
    assert.deepStrictEqual(
      (messages[2].content as ReadonlyArray<{ readonly tool_use_id: string }>).map((b) => b.tool_use_id),
      ["c1_2", "c1", "c1_3"]
    )
  })

  it("the messages themselves are not changed (the memory's context is only written)", () => {
    toAnthropic(reused)
    assert.deepStrictEqual(reused.flatMap((m) => m.toolCalls.map((c) => c.id)), ["c1", "c1"])
    assert.strictEqual(reused[6].toolCallId, "c1")
  })
})
