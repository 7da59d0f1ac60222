/**
 * The `conversation_search` tool (docs/contract.md section 17.1): the
 * answer's text within its budget, the model's arguments checked, and the
 * round trip through each provider's format (the model's call in, the
 * archived turns out, read back by that provider's adapter), the AI SDK's
 * tool and the `@effect/ai` toolkit.
 */
import { assert, describe, it } from "@effect/vitest"
import { jsonSchema } from "ai"
import { Effect } from "effect"
import { ConversationSearch, fromAnthropic, fromOpenAIChat, fromOpenAIResponses } from "../../src/adapters.js"
import { ConversationSearch as AiConversationSearch } from "../../src/ai.js"
import * as Core from "../../src/core/conversationSearch.js"
import { Archive, Message as EffectMessage, RollingMemory as EffectRolling, Summarizer } from "../../src/index.js"
import { Archive as Archives, RollingMemory } from "../../src/promise/index.js"
import { wordCount } from "../../src/services/TokenCounter.js"

const found = (position: number, role: string, content: string): Core.Found => ({
  position,
  message: { role, content, toolCalls: [] }
})

describe("render", () => {
  it("each turn with its position and role, best first, separated by a blank line", () => {
    assert.strictEqual(
      Core.render("q", [found(3, "user", "alpha beta"), found(1, "tool", "gamma")], { count: wordCount }),
      "[position 3, user]\nalpha beta\n\n[position 1, tool]\ngamma"
    )
    assert.strictEqual(Core.render("src/a.ts", [], { count: wordCount }), "No archived turn matches \"src/a.ts\".")
  })

  it("cuts the first turn that does not fit, with a marker, and names the rest", () => {
    const long = Array.from({ length: 20 }, (_, i) => `w${i}`).join(" ")
    const text = Core.render("q", [found(0, "user", "a b"), found(5, "tool", long), found(9, "user", "c")], {
      maxTokens: 16,
      count: wordCount
    })
    // 5 words used by the first; 16 - 5 - 3 (header) - 5 (marker) = 3 of the 20 kept: their share of the
    // characters (10 of 69, as a cut at the door plans it), head and tail
    assert.strictEqual(
      text,
      "[position 0, user]\na b\n\n[position 5, tool]\nw0 w1\n[... 17 tokens cut ...]\n8 w19\n\n1 more turn matched: positions 9."
    )
  })
})

describe("parseArguments", () => {
  it("reads an object or its JSON text, and says what is wrong", () => {
    assert.deepStrictEqual(Core.parseArguments("{\"query\":\"x\",\"limit\":3}"), { query: "x", limit: 3 })
    assert.deepStrictEqual(Core.parseArguments({ query: "x", roles: ["tool"] }), { query: "x", roles: ["tool"] })
    assert.strictEqual(Core.parseArguments("{"), "arguments are not JSON")
    assert.strictEqual(Core.parseArguments({ query: "" }), "query must be a non-empty string")
    assert.strictEqual(Core.parseArguments({ query: "x", limit: 21 }), "limit must be an integer from 1 to 20")
    assert.strictEqual(Core.parseArguments({ query: "x", q: 1 }), "unknown argument q")
  })
})

/** A facade memory that folded two turns naming an artifact into its archive. */
const folded = () => {
  const memory = new RollingMemory({ maxTokens: 6, summarize: "drop", archive: Archives.memory(), conversationId: "c" })
  memory.addUserMessage("the build fails in src/cli/Measure.ts")
  memory.addAssistantMessage("fixed the import")
  memory.addUserMessage("thanks a lot")
  return memory
}

const expected = "[position 0, user]\nthe build fails in src/cli/Measure.ts"

describe("round trips", () => {
  it("OpenAI Chat Completions: the tool call in, a tool message out", async () => {
    const memory = folded()
    const call = {
      id: "call_1",
      type: "function" as const,
      function: { name: ConversationSearch.NAME, arguments: "{\"query\":\"src/cli/Measure.ts\",\"limit\":1}" }
    }
    const answer = await ConversationSearch.answerOpenAIChat(memory, call)
    assert.deepStrictEqual(answer, { role: "tool", tool_call_id: "call_1", content: expected })
    const read = fromOpenAIChat([{ role: "assistant", content: null, tool_calls: [call] }, answer], { strict: true })
    assert.deepStrictEqual(read.map((m) => [m.role, m.toolCallId, m.content]), [
      ["assistant", undefined, ""],
      ["tool", "call_1", expected]
    ])
    assert.deepStrictEqual(ConversationSearch.openAIChatTool.function.name, "conversation_search")
  })

  it("OpenAI Responses: the function_call in, a function_call_output out", async () => {
    const memory = folded()
    const call = {
      type: "function_call" as const,
      call_id: "fc_1",
      name: ConversationSearch.NAME,
      arguments: "{\"query\":\"src/cli/Measure.ts\",\"limit\":1}"
    }
    const answer = await ConversationSearch.answerOpenAIResponses(memory, call)
    assert.deepStrictEqual(answer, { type: "function_call_output", call_id: "fc_1", output: expected })
    const read = fromOpenAIResponses([call, answer])
    assert.deepStrictEqual(read.map((m) => [m.role, m.content]), [["assistant", ""], ["tool", expected]])
  })

  it("Anthropic: the tool_use in, a tool_result out (is_error on bad arguments)", async () => {
    const memory = folded()
    const block = { type: "tool_use" as const, id: "toolu_1", name: ConversationSearch.NAME, input: { query: "build" } }
    const answer = await ConversationSearch.answerAnthropic(memory, block)
    assert.deepStrictEqual(answer, {
      type: "tool_result",
      tool_use_id: "toolu_1",
      content: expected
    })
    const read = fromAnthropic({
      messages: [
        { role: "user", content: "what failed?" },
        { role: "assistant", content: [block] },
        { role: "user", content: [answer] }
      ]
    })
    assert.deepStrictEqual(read.map((m) => m.role), ["user", "assistant", "tool"])
    assert.deepStrictEqual(await ConversationSearch.answerAnthropic(memory, { id: "toolu_2", input: {} }), {
      type: "tool_result",
      tool_use_id: "toolu_2",
      content: "invalid arguments: query must be a non-empty string",
      is_error: true
    })
  })

  it("the AI SDK: a tool whose execute answers", async () => {
    const tool = ConversationSearch.aiSdkTool(folded(), jsonSchema)
    assert.strictEqual(await tool.execute({ query: "src/cli/Measure.ts", limit: 1 }), expected)
    assert.deepStrictEqual(tool.inputSchema.jsonSchema, ConversationSearch.parameters)
  })

  it.effect("@effect/ai: the toolkit's handler on a memory's recall", () =>
    Effect.gen(function*() {
      const memory = yield* EffectRolling.make({ maxTokens: 6, archive: Archive.makeMemory(), conversationId: "c" })
      yield* memory.add(EffectMessage.user("the build fails in src/cli/Measure.ts"))
      yield* memory.add(EffectMessage.user("thanks a lot"))
      const result = yield* Effect.flatMap(
        AiConversationSearch.toolkit,
        (toolkit) => toolkit.handle("conversation_search", { query: "src/cli/Measure.ts", limit: 1 })
      ).pipe(Effect.provide(AiConversationSearch.layer(memory)))
      assert.deepStrictEqual([result.isFailure, result.result], [false, expected])
    }).pipe(Effect.provide(Summarizer.layerDrop)))
})
