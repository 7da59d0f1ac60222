/**
 * `arrange`: the encoders write a memory's read-back in a form the target
 * accepts (contract 15.5), the memory's own read-back unchanged: with
 * `pinSystem`, a system message added mid-way moves up before the summary
 * for targets without a mid-conversation system role; with `summaryRole:
 * "user"` and a user turn next, strict templates get one user message.
 */
import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import * as Adapters from "../../src/adapters.js"
import { RollingMemory } from "../../src/promise/index.js"
import * as Message from "../../src/schema/Message.js"
import * as Validity from "../../src/Validity.js"
import { either, json } from "./support.js"

const summarize = (summary: string, messages: ReadonlyArray<Message.Message>) =>
  [summary, ...messages.map((m) => m.content)].filter((s) => s !== "").join(" / ")

const tags = (e: Either.Either<unknown, Adapters.AdapterError>) =>
  Either.isLeft(e) ? e.left.violations?.map((v) => v._tag) : []

describe("arrange (contract 15.5)", () => {
  // pinned: "Be brief." first, "late rule" added after the first turn; a fold has committed a summary
  const pinned = () => {
    const memory = new RollingMemory({ maxTokens: 8, pinSystem: true, summarize })
    memory.addMessage("system", "Be brief.")
    memory.addMessage("user", "one two three")
    memory.addMessage("assistant", "four five six")
    memory.addMessage("user", "seven eight")
    memory.addMessage("system", "late rule")
    memory.addMessage("assistant", "nine ten")
    return memory
  }

  it("the memory reads back as the Python package does: the late pinned message after the summary", () => {
    const memory = pinned()
    assert.strictEqual(memory.summary, "one two three / four five six")
    assert.deepStrictEqual(memory.getMessages().map(String), [
      "system: Be brief.",
      "system: one two three / four five six",
      "user: seven eight",
      "system: late rule",
      "assistant: nine ten"
    ])
  })

  it("Anthropic and Gemini: every pinned message before the summary, in the system text", () => {
    const memory = pinned()
    const messages = memory.getMessages()
    const late = [Message.user("hi"), Message.system("late rule"), Message.assistant("ok")]
    assert.deepStrictEqual(tags(either(Adapters.Anthropic.encode(late))), ["SystemAfterFirstTurn"])
    const arrange = { summary: memory.summary }
    assert.deepStrictEqual(json(Adapters.toAnthropic(messages, { arrange, cacheControl: { pinned: 2 } })), {
      system: [
        { type: "text", text: "Be brief." },
        { type: "text", text: "late rule", cache_control: { type: "ephemeral" } },
        { type: "text", text: "one two three / four five six" }
      ],
      messages: [
        { role: "user", content: "seven eight" },
        { role: "assistant", content: [{ type: "text", text: "nine ten", cache_control: { type: "ephemeral" } }] }
      ]
    })
    assert.deepStrictEqual(json(Adapters.toGemini(messages, { arrange })), {
      systemInstruction: {
        parts: [{ text: "Be brief." }, { text: "late rule" }, { text: "one two three / four five six" }]
      },
      contents: [{ role: "user", parts: [{ text: "seven eight" }] }, { role: "model", parts: [{ text: "nine ten" }] }]
    })
    // without the summary, the moved messages follow the leading ones
    assert.deepStrictEqual(Adapters.toGemini(late, { arrange: true }).systemInstruction, {
      parts: [{ text: "late rule" }]
    })
    // OpenAI takes a system message anywhere: nothing moves
    assert.deepStrictEqual(
      Adapters.toOpenAIChat(messages, { arrange }).map((m) => m.role),
      [
        "system",
        "system",
        "user",
        "system",
        "assistant"
      ]
    )
  })

  it("summaryRole user with a user turn next: strict templates get one user message, OpenAI both", () => {
    const memory = new RollingMemory({ maxTokens: 4, summaryRole: "user", summarize })
    memory.addMessage("user", "one two")
    memory.addMessage("assistant", "three four")
    memory.addMessage("user", "five six")
    const messages = memory.getMessages()
    assert.deepStrictEqual(messages.map(String), ["user: one two / three four", "user: five six"])
    const strict = { provider: "strict-template" as const }
    assert.deepStrictEqual(tags(either(Adapters.OpenAiChat.encode(messages, strict))), ["ConsecutiveSameRole"])
    const written = Adapters.toOpenAIChat(messages, { ...strict, arrange: true })
    assert.deepStrictEqual(json(written), [{ role: "user", content: "one two / three four\n\nfive six" }])
    assert.deepStrictEqual(Validity.violations(Adapters.fromOpenAIChat(written), strict), [])
    assert.strictEqual(Adapters.toOpenAIChat(messages, { arrange: true }).length, 2)
  })

  it("strict templates: late system messages moved and merged into one, two assistant messages merged", () => {
    const messages = [
      Message.system("A"),
      Message.user("hi"),
      Message.system("B"),
      Message.assistant("x"),
      Message.assistant("y", { toolCalls: [{ id: "c1", name: "f", arguments: "{}" }] }),
      Message.tool("r", { toolCallId: "c1" }),
      Message.assistant("done")
    ]
    assert.deepStrictEqual(json(Adapters.toAiSdk(messages, { provider: "strict-template", arrange: true })), [
      { role: "system", content: "A\n\nB" },
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "x\n\ny" },
          { type: "tool-call", toolCallId: "c1", toolName: "f", input: {} }
        ]
      },
      {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "c1", toolName: "f", output: { type: "text", value: "r" } }]
      },
      { role: "assistant", content: "done" }
    ])
  })
})
