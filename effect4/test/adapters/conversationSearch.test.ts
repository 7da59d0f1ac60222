/**
 * `rollmem/adapters` on the Effect 4 line: the `conversation_search` tool
 * (docs/contract.md section 17.1), the Effect 3 line's code from
 * `src/core/searchTools.ts`, answering from an Effect 4 facade memory's
 * `recall` in each provider's format, with the Effect 3 line's values
 * (test/adapters/conversationSearch.test.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import { ConversationSearch } from "../../src/adapters.js"
import { Archive, RollingMemory } from "../../src/promise/index.js"

/** A memory whose first two turns are archived: `src/cli/Measure.ts` at position 0, `done` at 1. */
const archived = () => {
  const memory = new RollingMemory({ maxTokens: 4, summarize: "drop", archive: Archive.memory(), conversationId: "c" })
  memory.addUserMessage("read src/cli/Measure.ts")
  memory.addAssistantMessage("done")
  memory.addUserMessage("next step")
  return memory
}

describe("ConversationSearch on Effect 4", () => {
  it("the tools are the Effect 3 line's definitions", () => {
    assert.strictEqual(ConversationSearch.NAME, "conversation_search")
    assert.deepStrictEqual(ConversationSearch.openAIChatTool.function.name, "conversation_search")
    assert.deepStrictEqual(ConversationSearch.anthropicTool.input_schema, ConversationSearch.parameters)
    assert.deepStrictEqual(
      [ConversationSearch.openAIResponsesTool.type, ConversationSearch.openAIResponsesTool.strict],
      ["function", false]
    )
  })

  it("OpenAI Chat Completions: the tool call in, a tool message out", async () => {
    const answer = await ConversationSearch.answerOpenAIChat(archived(), {
      id: "call_1",
      function: { arguments: JSON.stringify({ query: "src/cli/Measure.ts" }) }
    })
    assert.deepStrictEqual(answer, {
      role: "tool",
      tool_call_id: "call_1",
      content: "[position 0, user]\nread src/cli/Measure.ts"
    })
  })

  it("OpenAI Responses: the function_call in, a function_call_output out", async () => {
    const answer = await ConversationSearch.answerOpenAIResponses(archived(), {
      call_id: "fc_1",
      arguments: "{\"query\":\"done\",\"roles\":[\"assistant\"]}"
    })
    assert.deepStrictEqual(answer, {
      type: "function_call_output",
      call_id: "fc_1",
      output: "[position 1, assistant]\ndone"
    })
  })

  it("Anthropic: the tool_use in, a tool_result out (is_error on bad arguments)", async () => {
    const memory = archived()
    assert.deepStrictEqual(
      await ConversationSearch.answerAnthropic(memory, { id: "tu_1", input: { query: "nothing" } }),
      {
        type: "tool_result",
        tool_use_id: "tu_1",
        content: "No archived turn matches \"nothing\"."
      }
    )
    const bad = await ConversationSearch.answerAnthropic(memory, { id: "tu_2", input: { limit: 3 } })
    assert.deepStrictEqual([bad.tool_use_id, bad.is_error], ["tu_2", true])
    assert.match(bad.content, /^invalid arguments: /)
  })

  it("a failed search is an answer with isError, never a rejection; the AI SDK's tool answers through execute", async () => {
    const failing = { recall: () => Promise.reject(new Error("archive down")) }
    assert.deepStrictEqual(await ConversationSearch.answer(failing, { query: "x" }), {
      text: "search failed: archive down",
      isError: true
    })
    const tool = ConversationSearch.aiSdkTool(archived(), (schema) => ({ jsonSchema: schema }))
    assert.deepStrictEqual(tool.inputSchema, { jsonSchema: ConversationSearch.parameters })
    assert.strictEqual(
      await tool.execute({ query: "src/cli/Measure.ts" }),
      "[position 0, user]\nread src/cli/Measure.ts"
    )
  })
})
