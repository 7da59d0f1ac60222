/**
 * LangChain messages on the Effect 4 line (docs/contract.md section 15):
 * the conversions of `src/core/formats/langChain.ts`, read with this line's
 * Schema, give the Effect 3 line's messages and kept metadata (the values of
 * test/adapters/parts.test.ts, langChainInstances.test.ts on that line):
 * stored messages read and written back, made-up ids for calls without one,
 * a custom role as `chat`; instances read by their `toDict()` and written by
 * `toLangChainMessages` / `LangChain.encodeInstances`, which load
 * `@langchain/core` on their first call (resolved here from the repository
 * root's development dependencies: the Effect 4 package declares it as an
 * optional peer only).
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
import { Effect } from "effect"
import * as Adapters from "../../src/adapters.js"
import * as Message from "../../src/schema/Message.js"
import { describeFormat, throughMemory } from "./formatCases.js"

describeFormat("LangChain stored messages on Effect 4", {
  format: "langchain",
  from: Adapters.fromLangChain,
  to: Adapters.toLangChain,
  cases: [
    {
      name: "every kind of stored message, with what LangChain keeps beside the content",
      input: [
        { type: "system", data: { content: "You are terse." } },
        {
          type: "human",
          data: {
            content: [{ type: "text", text: "Look." }, {
              type: "image_url",
              image_url: { url: "data:image/png;base64,iVBORw0KGgo=" }
            }],
            additional_kwargs: {},
            response_metadata: {},
            id: null,
            name: null
          }
        },
        {
          type: "ai",
          data: {
            content: "",
            tool_calls: [{ name: "lookup", args: { q: "a" }, id: "t1", type: "tool_call" }],
            usage_metadata: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
            response_metadata: { model_name: "gpt-4o" }
          }
        },
        { type: "tool", data: { content: "A", tool_call_id: "t1", status: "success" } },
        { type: "chat", data: { content: "Audit passed.", role: "critic" } }
      ],
      strings: [
        "system: You are terse.",
        "user: Look.",
        "assistant:  [tool calls: lookup({\"q\":\"a\"})]",
        "tool: A",
        "critic: Audit passed."
      ],
      wire: [
        { role: "system", content: "You are terse." },
        { role: "user", content: "Look." },
        { role: "assistant", content: "", tool_calls: [{ id: "t1", name: "lookup", arguments: "{\"q\":\"a\"}" }] },
        { role: "tool", content: "A", tool_call_id: "t1" },
        { role: "critic", content: "Audit passed." }
      ],
      // one image block
      tokens: { 0: undefined, 1: 1000, 2: undefined, 4: undefined }
    },
    {
      name: "text blocks joined, calls without ids, LangChain.js's generic, invalid tool calls",
      input: [
        { type: "human", data: { content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] } },
        {
          type: "ai",
          data: {
            content: "calling",
            tool_calls: [{ name: "f", args: {} }, { name: "g", args: { x: [1, null] }, id: null }]
          }
        },
        { type: "tool", data: { content: "1", tool_call_id: "langchain:1:0" } },
        { type: "function", data: { content: "2", name: "g" } },
        { type: "generic", data: { content: "js role", role: "critic" } },
        { type: "generic", data: { content: "no role" } },
        {
          type: "ai",
          data: {
            content: "",
            invalid_tool_calls: [{ name: "h", args: "{bad", id: "x", error: "parse" }],
            example: false,
            artifact: [1, "a"]
          }
        }
      ],
      strings: [
        "user: a\nb",
        "assistant: calling [tool calls: f({}), g({\"x\":[1,null]})]",
        "tool: 1",
        "function: 2",
        "critic: js role",
        "generic: no role",
        "assistant: "
      ],
      wire: [
        { role: "user", content: "a\nb" },
        {
          role: "assistant",
          content: "calling",
          tool_calls: [
            { id: "langchain:1:0", name: "f", arguments: "{}" },
            { id: "langchain:1:1", name: "g", arguments: "{\"x\":[1,null]}" }
          ]
        },
        { role: "tool", content: "1", tool_call_id: "langchain:1:0" },
        { role: "function", content: "2" },
        { role: "critic", content: "js role" },
        { role: "generic", content: "no role" },
        { role: "assistant", content: "" }
      ],
      tokens: { 0: undefined, 1: undefined }
    }
  ],
  writes: [
    {
      name: "every role: a custom one as chat, tool calls with parsed args, call ids as they are",
      messages: [
        Message.system("s"),
        Message.make("developer", "d"),
        Message.user("hi"),
        Message.assistant("", {
          toolCalls: [{ id: "c1", name: "clock", arguments: "" }, { id: "c2", name: "w", arguments: "{\"a\":1}" }]
        }),
        Message.make("tool", "12:00", { toolCallId: "c1" }),
        Message.make("function", "f"),
        Message.make("critic", "ok"),
        Message.assistant("", { toolCalls: [{ id: "c1", name: "clock", arguments: "{}" }] })
      ],
      output: [
        { type: "system", data: { content: "s" } },
        { type: "chat", data: { content: "d", role: "developer" } },
        { type: "human", data: { content: "hi" } },
        {
          type: "ai",
          data: {
            content: "",
            tool_calls: [
              { name: "clock", args: {}, id: "c1", type: "tool_call" },
              { name: "w", args: { a: 1 }, id: "c2", type: "tool_call" }
            ]
          }
        },
        { type: "tool", data: { content: "12:00", tool_call_id: "c1" } },
        { type: "function", data: { content: "f" } },
        { type: "chat", data: { content: "ok", role: "critic" } },
        { type: "ai", data: { content: "", tool_calls: [{ name: "clock", args: {}, id: "c1", type: "tool_call" }] } }
      ]
    }
  ],
  refusals: [
    {
      name: "an unknown type",
      run: () => Adapters.fromLangChain([{ type: "critic", data: { content: "x" } }]),
      description:
        "[0].type: Expected \"human\" | \"ai\" | \"system\" | \"tool\" | \"function\" | \"chat\" | \"generic\", actual \"critic\""
    },
    {
      name: "a message without type",
      run: () => Adapters.fromLangChain([{ data: { content: "x" } }]),
      description: "[0].type: Missing key"
    },
    {
      name: "content of the wrong type",
      run: () => Adapters.fromLangChain([{ type: "human", data: { content: 5 } }]),
      description: "[0].data.content: Expected string | array, actual 5"
    },
    {
      name: "args that are not an object",
      run: () =>
        Adapters.fromLangChain([{ type: "ai", data: { content: "", tool_calls: [{ name: "f", args: "{}" }] } }]),
      description: "[0].data.tool_calls[0].args: Expected object, actual \"{}\""
    },
    {
      name: "one message, not a list",
      run: () => Adapters.fromLangChain({ type: "human", data: { content: "x" } }),
      description: "Expected array, actual {\"type\":\"human\",\"data\":{\"content\":\"x\"}}"
    },
    {
      name: "a key it does not model, with strict",
      run: () => Adapters.fromLangChain([{ type: "human", data: { content: "x", x: 1 } }], { strict: true }),
      description: "[0].data.x: Expected no excess property, actual 1"
    },
    {
      name: "a serialized instance, naming the fix",
      run: () => Adapters.fromLangChain([JSON.parse(JSON.stringify(new HumanMessage("Hi")))]),
      description:
        "[0] is a serialized LangChain message (`lc`, `kwargs`): read it with fromLangChain, after reviving " +
        "it with `load` from `@langchain/core/load` (or pass the message instances). [0].type: Expected \"human\" | " +
        "\"ai\" | \"system\" | \"tool\" | \"function\" | \"chat\" | \"generic\", actual \"constructor\""
    },
    {
      name: "tool call arguments that are no JSON object",
      run: () =>
        Adapters.toLangChain([Message.assistant("", { toolCalls: [{ id: "c1", name: "f", arguments: "[1]" }] })]),
      description: "message 0 (role \"assistant\"): the arguments of tool call \"c1\" are not a JSON object"
    },
    {
      name: "what is not rollmem messages",
      run: () => Adapters.toLangChain([{ role: "user", content: "hi" }] as never),
      description: "[0] is not a rollmem message: make messages with Message.make (or read a provider's with its " +
        "from…, wire-format JSON with MemoryState.fromJSON)"
    }
  ]
})

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

describe("LangChain message instances on Effect 4", () => {
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
    assert.deepStrictEqual(messages.map(String), Adapters.fromLangChain(history.map((m) => m.toDict())).map(String))
  })

  it.effect("instances → memory → JSON → memory → instances: the same classes, equal toDict()", () =>
    Effect.gen(function*() {
      const back = yield* Adapters.LangChain.encodeInstances<BaseMessage>(
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

  it("toLangChainMessages: the Promise form; a failure rejects with the AdapterError itself", async () => {
    const written = await Adapters.toLangChainMessages<BaseMessage>([
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
    assert.instanceOf(written[3], ChatMessage)
    assert.strictEqual((written[3] as ChatMessage).role, "critic")
    const error = await Adapters.toLangChainMessages([
      Message.assistant("", { toolCalls: [{ id: "c1", name: "f", arguments: "[1]" }] })
    ]).then(() => undefined, (e: unknown) => e)
    assert.instanceOf(error, Adapters.AdapterError)
    assert.strictEqual(
      (error as Adapters.AdapterError).message,
      "langchain: message 0 (role \"assistant\"): the arguments of tool call \"c1\" are not a JSON object"
    )
  })
})
