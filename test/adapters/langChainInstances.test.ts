/**
 * LangChain message instances (contract 15.8): read by `fromLangChain` (by
 * their `toDict()`), written by `toLangChainMessages` /
 * `LangChain.encodeInstances` (`@langchain/core`, an optional peer loaded on
 * the first call), typed against `@langchain/core`'s own classes (a pinned
 * devDependency), round trip on the real data.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  AIMessage,
  type BaseMessage,
  ChatMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage
} from "@langchain/core/messages"
import { Effect, Schema } from "effect"
import * as Adapters from "../../src/adapters.js"
import * as Message from "../../src/schema/Message.js"
import { DATA_FILES, dataLines, hasData } from "../support/data.js"
import { either, throughMemory } from "./support.js"

const dicts = (messages: ReadonlyArray<BaseMessage>) => JSON.parse(JSON.stringify(messages.map((m) => m.toDict())))

/** A LangChain conversation as an application holds it: tool calls, provider metadata, names, a custom role. */
const history: Array<BaseMessage> = [
  new SystemMessage("Be brief."),
  new HumanMessage({ content: "Weather in Rome?", id: "h1" }),
  new AIMessage({
    content: "",
    id: "run-1",
    tool_calls: [{ id: "call_1", name: "weather", args: { city: "Rome" }, type: "tool_call" }],
    response_metadata: { model_name: "gpt-4o-mini", finish_reason: "tool_calls" }
  }),
  new ToolMessage({ content: "{\"temp\":21}", tool_call_id: "call_1", name: "weather" }),
  new AIMessage("21 degrees and sunny."),
  new ChatMessage({ content: "Looks right.", role: "critic" })
]

describe("LangChain message instances (contract 15.8)", () => {
  it("fromLangChain reads instances as it reads their stored form", () => {
    const messages = Adapters.fromLangChain(history)
    assert.deepStrictEqual(messages.map(String), [
      "system: Be brief.",
      "user: Weather in Rome?",
      "assistant:  [tool calls: weather({\"city\":\"Rome\"})]",
      "tool: {\"temp\":21}",
      "assistant: 21 degrees and sunny.",
      "critic: Looks right."
    ])
    assert.strictEqual(messages[3].toolCallId, "call_1")
    assert.deepStrictEqual(
      messages.map(String),
      Adapters.fromLangChain(history.map((m) => m.toDict())).map(String)
    )
  })

  it.effect("instances → memory → JSON → memory → instances: the same classes, equal toDict()", () =>
    Effect.gen(function*() {
      const back: Array<BaseMessage> = yield* Adapters.LangChain.encodeInstances<BaseMessage>(
        throughMemory(Adapters.fromLangChain(history))
      )
      assert.deepStrictEqual(back.map((m) => m.constructor.name), [
        "SystemMessage",
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
        "AIMessage",
        "ChatMessage"
      ])
      assert.deepStrictEqual(dicts(back), dicts(history))
    }))

  it("toLangChainMessages: the Promise form; rollmem messages become LangChain's own classes", async () => {
    const written: Array<BaseMessage> = await Adapters.toLangChainMessages<BaseMessage>([
      Message.user("hi"),
      Message.assistant("", { toolCalls: [{ id: "c1", name: "clock", arguments: "{}" }] }),
      Message.make("tool", "12:00", { toolCallId: "c1" }),
      Message.make("critic", "ok")
    ])
    assert.instanceOf(written[0], HumanMessage)
    assert.instanceOf(written[1], AIMessage)
    assert.deepStrictEqual((written[1] as AIMessage).tool_calls, [
      { id: "c1", name: "clock", args: {}, type: "tool_call" }
    ])
    assert.instanceOf(written[2], ToolMessage)
    assert.strictEqual((written[2] as ToolMessage).tool_call_id, "c1")
    assert.instanceOf(written[3], ChatMessage)
    assert.strictEqual((written[3] as ChatMessage).role, "critic")
  })

  it("tool call arguments that are not a JSON object reject with AdapterError", async () => {
    const error = await Adapters.toLangChainMessages([
      Message.assistant("", { toolCalls: [{ id: "c1", name: "f", arguments: "[1]" }] })
    ]).then(() => undefined, (e: unknown) => e)
    assert.instanceOf(error, Adapters.AdapterError)
    assert.strictEqual(
      (error as Adapters.AdapterError).message,
      "langchain: message 0 (role \"assistant\"): the arguments of tool call \"c1\" are not a JSON object"
    )
  })

  it("a serialized instance (JSON.stringify of one: `lc`, `kwargs`) is refused, naming the fix", () => {
    const serialized = JSON.parse(JSON.stringify(new HumanMessage("Hi")))
    const result = either(Adapters.LangChain.decode([serialized]))
    assert.isTrue(result._tag === "Left")
    assert.include(
      result._tag === "Left" ? result.left.description : "",
      "[0] is a serialized LangChain message (`lc`, `kwargs`): read it with fromLangChain, after reviving it with " +
        "`load` from `@langchain/core/load` (or pass the message instances)."
    )
  })
})

const Conversation = Schema.Struct({ id: Schema.String, messages: Schema.Array(Message.Message) })
const decodeLine = Schema.decodeUnknownSync(Schema.parseJson(Conversation))

for (const file of [...DATA_FILES, "conversations-long.jsonl"]) {
  const present = hasData(file)
  describe(`${file}: every conversation as LangChain instances round-trips${present ? "" : " (skipped: not found)"}`, () => {
    it.effect.skipIf(!present)(
      "to instances → from → memory → JSON → memory → to instances: equal toDict()",
      () =>
        Effect.gen(function*() {
          let n = 0
          for (const line of dataLines(file)) {
            const conversation = decodeLine(line)
            const instances = yield* Adapters.LangChain.encodeInstances<BaseMessage>(conversation.messages)
            const read = Adapters.fromLangChain(instances)
            // as the stored form reads (tool arguments re-serialized: LangChain holds them as objects)
            assert.deepStrictEqual(
              read.map(String),
              Adapters.fromLangChain(Adapters.toLangChain(conversation.messages)).map(String),
              conversation.id
            )
            const again = yield* Adapters.LangChain.encodeInstances<BaseMessage>(throughMemory(read))
            assert.deepStrictEqual(dicts(again), dicts(instances), conversation.id)
            n++
          }
          assert.strictEqual(
            n,
            {
              "conversations-chat.jsonl": 211,
              "conversations-agentic.jsonl": 202,
              "conversations-tooltalk.jsonl": 78,
              "conversations-long.jsonl": 24
            }[file]
          )
        }),
      60_000
    )
  })
}
