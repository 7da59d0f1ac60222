import * as Chat from "@effect/ai/Chat"
import * as Prompt from "@effect/ai/Prompt"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Equal, FastCheck as fc, Ref, Schema } from "effect"
import * as AiPrompt from "../../src/ai/AiPrompt.js"
import { InvalidMessageError } from "../../src/Errors.js"
import * as Message from "../../src/schema/Message.js"
import * as Summarizer from "../../src/services/Summarizer.js"
import * as RollingMemory from "../../src/strategies/RollingMemory.js"
import { DATA_FILES, hasData, loadConversations, scriptedModel } from "./support.js"

const roundTrip = (messages: ReadonlyArray<Message.Message>) => AiPrompt.fromPrompt(AiPrompt.toPrompt(messages))

// Through the JSON form too (what `Chat.exportJson` writes): the "rollmem" options must survive it.
const encodeJson = Schema.encodeSync(Prompt.FromJson)
const decodeJson = Schema.decodeSync(Prompt.FromJson)
const roundTripJson = (messages: ReadonlyArray<Message.Message>) =>
  AiPrompt.fromPrompt(decodeJson(encodeJson(AiPrompt.toPrompt(messages))))

const assertSameMessages = (actual: ReadonlyArray<Message.Message>, expected: ReadonlyArray<Message.Message>) => {
  assert.strictEqual(actual.length, expected.length)
  for (let i = 0; i < expected.length; i++) {
    if (!Equal.equals(actual[i], expected[i])) {
      assert.deepStrictEqual(
        Schema.encodeSync(Message.Message)(actual[i]),
        Schema.encodeSync(Message.Message)(expected[i]),
        `message ${i}`
      )
    }
    assert.isTrue(Equal.equals(actual[i], expected[i]), `message ${i}`)
  }
}

const parseJson = (text: string): { readonly value: unknown } | undefined => {
  try {
    return { value: JSON.parse(text) }
  } catch {
    return undefined
  }
}

const conversations = DATA_FILES.map((file) => [file, loadConversations(file)] as const)

describe("AiPrompt round trip on the real transcripts", () => {
  for (const [file, all] of conversations) {
    it.effect.skipIf(!hasData(file))(
      `${file}: every conversation comes back equal, directly and through Prompt.FromJson`,
      () =>
        Effect.gen(function*() {
          let messages = 0
          for (const conversation of all) {
            assertSameMessages(yield* roundTrip(conversation.messages), conversation.messages)
            assertSameMessages(yield* roundTripJson(conversation.messages), conversation.messages)
            messages += conversation.messages.length
          }
          // SOURCES.md: 1,544 / 5,348 / 1,035 messages.
          assert.strictEqual(
            messages,
            { "conversations-chat.jsonl": 1544, "conversations-agentic.jsonl": 5348 }[
              file as "conversations-chat.jsonl"
            ] ?? 1035
          )
        })
    )
  }

  const allData = DATA_FILES.every(hasData)
  it.skipIf(!allData)(
    `maps every tool call to a tool-call part and every result to a tool-result part named after its call`,
    () => {
      let calls = 0
      let results = 0
      let exactArguments = 0
      let parsedResults = 0
      let exactContent = 0
      for (const [file, all] of conversations) {
        for (const conversation of all) {
          const prompt = AiPrompt.toPrompt(conversation.messages)
          assert.strictEqual(prompt.content.length, conversation.messages.length)
          const names = new Map<string, string>()
          conversation.messages.forEach((message, i) => {
            const converted = prompt.content[i]
            for (const call of message.toolCalls) names.set(call.id, call.name)
            if (message.toolCalls.length > 0) {
              assert.strictEqual(converted.role, "assistant")
              const parts = (converted as Prompt.AssistantMessage).content.filter((p) => p.type === "tool-call")
              assert.deepStrictEqual(parts.map((p) => [p.id, p.name]), message.toolCalls.map((c) => [c.id, c.name]))
              parts.forEach((part, j) => {
                calls++
                assert.deepStrictEqual(part.params, JSON.parse(message.toolCalls[j].arguments))
                if (part.options.rollmem !== undefined) exactArguments++
              })
            } else if (message.toolCallId !== undefined) {
              results++
              assert.strictEqual(converted.role, "tool")
              const [part] = (converted as Prompt.ToolMessage).content
              assert.strictEqual(part.id, message.toolCallId)
              assert.strictEqual(part.name, names.get(message.toolCallId))
              const parsed = parseJson(message.content)
              if (parsed === undefined || typeof parsed.value === "string") {
                assert.strictEqual(part.result, message.content)
              } else {
                parsedResults++
                assert.deepStrictEqual(part.result, parsed.value)
                if (part.options.rollmem !== undefined) exactContent++
              }
            } else {
              assert.strictEqual(converted.role, message.role)
            }
          })
        }
        void file
      }
      // SOURCES.md: 1,182 agentic + 266 ToolTalk calls, every one answered.
      assert.strictEqual(calls, 1448)
      assert.strictEqual(results, 1448)
      // Arguments whose text is not JSON.stringify(JSON.parse(text)) (spaces after ":" and ","):
      // 129 of tau-bench/SWE-agent, all 266 of ToolTalk. Only those carry the exact text.
      assert.strictEqual(exactArguments, 129 + 266)
      // Results that are JSON other than a string: 1,209, sent as values; 1,181 of them are not in
      // JSON.stringify's form (spaces after ":" and ",", floats written "100.0") and carry their exact
      // text (counted independently with a JSON re-serializer that writes numbers as JavaScript does).
      assert.strictEqual(parsedResults, 1209)
      assert.strictEqual(exactContent, 1181)
    }
  )
})

describe("AiPrompt.toPrompt", () => {
  it("builds the parts and options of each shape", () => {
    const prompt = AiPrompt.toPrompt([
      Message.system("be brief"),
      Message.user("Weather in Rome?", { id: "m1", metadata: { lang: "en" } }),
      Message.assistant("Checking.", {
        toolCalls: [
          { id: "c1", name: "weather", arguments: "{\"city\":\"Rome\"}" },
          { id: "c2", name: "clock", arguments: "" },
          { id: "c3", name: "raw", arguments: "not json" },
          { id: "c4", name: "spaced", arguments: "{\"a\": 1}" }
        ]
      }),
      Message.tool("18C", { toolCallId: "c1" }),
      Message.tool("lost", { toolCallId: "zz" }),
      Message.make("critic", "too long"),
      Message.tool("no id"),
      Message.user("answer", { toolCallId: "c2" }),
      Message.make("planner", "", { toolCalls: [{ id: "c5", name: "plan", arguments: "{}" }], toolCallId: "c4" }),
      Message.assistant("")
    ])
    // The encoded form writes a message holding one text part as a plain string.
    assert.deepStrictEqual(
      Schema.encodeSync(Prompt.Prompt)(prompt),
      {
        content: [
          { role: "system", content: "be brief", options: {} },
          {
            role: "user",
            content: "Weather in Rome?",
            options: { rollmem: { id: "m1", metadata: { lang: "en" } } }
          },
          {
            role: "assistant",
            content: [
              { type: "text", text: "Checking.", options: {} },
              {
                type: "tool-call",
                id: "c1",
                name: "weather",
                params: { city: "Rome" },
                providerExecuted: false,
                options: {}
              },
              {
                type: "tool-call",
                id: "c2",
                name: "clock",
                params: {},
                providerExecuted: false,
                options: { rollmem: { arguments: "" } }
              },
              {
                type: "tool-call",
                id: "c3",
                name: "raw",
                params: "not json",
                providerExecuted: false,
                options: { rollmem: { arguments: "not json" } }
              },
              {
                type: "tool-call",
                id: "c4",
                name: "spaced",
                params: { a: 1 },
                providerExecuted: false,
                options: { rollmem: { arguments: "{\"a\": 1}" } }
              }
            ],
            options: {}
          },
          {
            role: "tool",
            content: [{
              type: "tool-result",
              id: "c1",
              name: "weather",
              isFailure: false,
              result: "18C",
              providerExecuted: false,
              options: {}
            }],
            options: {}
          },
          {
            role: "tool",
            content: [{
              type: "tool-result",
              id: "zz",
              name: "",
              isFailure: false,
              result: "lost",
              providerExecuted: false,
              options: {}
            }],
            options: {}
          },
          {
            role: "user",
            content: "too long",
            options: { rollmem: { role: "critic" } }
          },
          {
            role: "user",
            content: "no id",
            options: { rollmem: { role: "tool" } }
          },
          {
            role: "tool",
            content: [{
              type: "tool-result",
              id: "c2",
              name: "clock",
              isFailure: false,
              result: "answer",
              providerExecuted: false,
              options: {}
            }],
            options: { rollmem: { role: "user" } }
          },
          {
            role: "assistant",
            content: [{
              type: "tool-call",
              id: "c5",
              name: "plan",
              params: {},
              providerExecuted: false,
              options: {}
            }],
            options: { rollmem: { role: "planner", toolCallId: "c4" } }
          },
          { role: "assistant", content: [], options: {} }
        ]
      }
    )
  })

  it("parses arguments and results as JSON values, keeping the exact text only when it differs", () => {
    const args = ["null", "true", "\"s\"", "18C", " {\"a\":1}", "[1,2]", "1.50"]
    const prompt = AiPrompt.toPrompt([
      Message.assistant("", { toolCalls: args.map((a, i) => ({ id: `c${i}`, name: "f", arguments: a })) }),
      ...["null", "42", "\"quoted\"", "plain", "{\"a\": 1}", "[]", "true story"].map((content, i) =>
        Message.tool(content, { toolCallId: `c${i}` })
      )
    ])
    const calls = (prompt.content[0] as Prompt.AssistantMessage).content.flatMap((p) =>
      p.type === "tool-call" ? [[p.params, p.options]] : []
    )
    assert.deepStrictEqual(calls, [
      [null, {}],
      [true, {}],
      ["s", {}],
      ["18C", { rollmem: { arguments: "18C" } }],
      [{ a: 1 }, { rollmem: { arguments: " {\"a\":1}" } }],
      [[1, 2], {}],
      [1.5, { rollmem: { arguments: "1.50" } }]
    ])
    const results = prompt.content.slice(1).map((m) => {
      const [part] = (m as Prompt.ToolMessage).content
      return [part.result, part.options]
    })
    assert.deepStrictEqual(results, [
      [null, {}],
      [42, {}],
      ["\"quoted\"", {}],
      ["plain", {}],
      [{ a: 1 }, { rollmem: { content: "{\"a\": 1}" } }],
      [[], {}],
      ["true story", {}]
    ])
  })

  it("names a result after the latest earlier call with its id (ids are reused in real logs)", () => {
    const prompt = AiPrompt.toPrompt([
      Message.assistant("", { toolCalls: [{ id: "x", name: "first", arguments: "{}" }] }),
      Message.tool("1", { toolCallId: "x" }),
      Message.assistant("", { toolCalls: [{ id: "x", name: "second", arguments: "{}" }] }),
      Message.tool("2", { toolCallId: "x" })
    ])
    const names = prompt.content.flatMap((m) => m.role === "tool" ? m.content.map((p) => p.name) : [])
    assert.deepStrictEqual(names, ["first", "second"])
  })

  it("keeps an empty id and an empty tool call id (present values)", () =>
    Effect.runPromise(Effect.gen(function*() {
      const messages = [Message.user("a", { id: "" }), Message.tool("b", { toolCallId: "" })]
      assertSameMessages(yield* roundTrip(messages), messages)
    })))
})

const text = fc.string({ maxLength: 12 })
const json = fc.oneof(
  fc.constant(""),
  text,
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v, null, 1))
)
const toolCall = fc.record({ id: text, name: text, arguments: json })
const message = fc.record(
  {
    role: fc.oneof(fc.constantFrom("user", "assistant", "system", "tool"), text),
    content: text,
    id: text,
    toolCalls: fc.array(toolCall, { maxLength: 3 }),
    toolCallId: text,
    metadata: fc.dictionary(text, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })
  },
  { requiredKeys: ["role", "content"] }
).map(({ content, role, ...options }) => Message.make(role, content, options as Message.MessageOptions))

describe("AiPrompt properties", () => {
  it.effect.prop(
    "fromPrompt(toPrompt(m)) equals m, through JSON too",
    [fc.array(message, { maxLength: 8 })],
    ([ms]) =>
      Effect.gen(function*() {
        assertSameMessages(yield* roundTrip(ms), ms)
        assertSameMessages(yield* roundTripJson(ms), ms)
      }),
    { fastCheck: { numRuns: 40 } }
  )
})

describe("AiPrompt.fromPrompt on prompts from elsewhere", () => {
  it.effect("keeps text, tool calls and results; drops files and reasoning; splits multi-result tool messages", () =>
    Effect.gen(function*() {
      const prompt = Prompt.make([
        { role: "system", content: "sys" },
        {
          role: "user",
          content: [
            { type: "text", text: "look at " },
            { type: "file", mediaType: "image/png", data: "aGk=" },
            { type: "text", text: "this" }
          ]
        },
        {
          role: "assistant",
          content: [
            { type: "reasoning", text: "hmm" },
            { type: "text", text: "Two calls." },
            { type: "tool-call", id: "a", name: "lookup", params: { k: [1, 2] } },
            { type: "tool-call", id: "b", name: "noargs", params: undefined }
          ]
        },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              id: "a",
              name: "lookup",
              isFailure: false,
              result: { v: 3 },
              providerExecuted: false
            },
            { type: "tool-result", id: "b", name: "noargs", isFailure: true, result: "boom", providerExecuted: false }
          ]
        },
        {
          role: "assistant",
          content: [
            { type: "tool-call", id: "w", name: "web", params: { q: "x" }, providerExecuted: true },
            { type: "tool-result", id: "w", name: "web", isFailure: false, result: ["r"], providerExecuted: true },
            { type: "text", text: "Found it." }
          ]
        },
        {
          role: "assistant",
          content: [{
            type: "tool-result",
            id: "v",
            name: "web",
            isFailure: false,
            result: undefined,
            providerExecuted: true
          }]
        }
      ])
      const messages = yield* AiPrompt.fromPrompt(prompt)
      assert.deepStrictEqual(messages.map((m) => Schema.encodeSync(Message.Message)(m)), [
        { role: "system", content: "sys" },
        { role: "user", content: "look at this" },
        {
          role: "assistant",
          content: "Two calls.",
          tool_calls: [{ id: "a", name: "lookup", arguments: "{\"k\":[1,2]}" }, {
            id: "b",
            name: "noargs",
            arguments: ""
          }]
        },
        { role: "tool", content: "{\"v\":3}", tool_call_id: "a" },
        { role: "tool", content: "boom", tool_call_id: "b" },
        { role: "assistant", content: "Found it.", tool_calls: [{ id: "w", name: "web", arguments: "{\"q\":\"x\"}" }] },
        { role: "tool", content: "[\"r\"]", tool_call_id: "w" },
        { role: "tool", content: "", tool_call_id: "v" }
      ])
    }))

  it.effect("fails with InvalidMessageError when the rollmem options hold a wrong field", () =>
    Effect.gen(function*() {
      const bad = Prompt.fromMessages([
        Prompt.userMessage({ content: [], options: { rollmem: { metadata: { f: () => 1 } } } })
      ])
      const error = yield* Effect.flip(AiPrompt.fromPrompt(bad))
      assert.instanceOf(error, InvalidMessageError)
      assert.match(error.description, /metadata/)
      const badId = Prompt.fromMessages([Prompt.systemMessage({ content: "", options: { rollmem: { id: 7 } } })])
      const either = AiPrompt.fromPromptMessage(badId.content[0])
      assert.isTrue(Either.isLeft(either))
    }))
})

describe("AiPrompt decodes through the message decoder", () => {
  const left = (either: Either.Either<unknown, InvalidMessageError>): InvalidMessageError => {
    assert.isTrue(Either.isLeft(either))
    return (either as Either.Left<InvalidMessageError, unknown>).left
  }

  it("metadata nested 20,000 levels under options.rollmem is named as too deep, not a RangeError", () => {
    let deep: Record<string, unknown> = {}
    for (let i = 0; i < 20_000; i++) deep = { a: deep }
    const prompt = Prompt.fromMessages([Prompt.userMessage({ content: [], options: { rollmem: { metadata: deep } } })])
    const error = left(AiPrompt.fromPromptMessage(prompt.content[0]))
    assert.instanceOf(error, InvalidMessageError)
    assert.strictEqual(error.description, "metadata: nested deeper than 100 levels")
  })

  it("a 5 MB wrong id gives a bounded description", () => {
    const id = { text: "x".repeat(5 * 1024 * 1024) }
    const prompt = Prompt.fromMessages([Prompt.systemMessage({ content: "", options: { rollmem: { id } } })])
    const error = left(AiPrompt.fromPromptMessage(prompt.content[0]))
    assert.strictEqual(
      error.description,
      `id: Expected string, actual {"text":"${"x".repeat(71)}… [object of 1 key]`
    )
    assert.strictEqual(error.description.length, 127)
  })

  it("metadata that contains itself is named as circular, as Message.decodeFields names it", () => {
    const metadata: Record<string, unknown> = { a: 1 }
    metadata.self = metadata
    const prompt = Prompt.fromMessages([Prompt.userMessage({ content: [], options: { rollmem: { metadata } } })])
    const error = left(AiPrompt.fromPromptMessage(prompt.content[0]))
    const direct = Message.decodeFields("user", "", { metadata: metadata as never })
    assert.strictEqual(error.description, "metadata: contains itself (circular)")
    assert.strictEqual(left(direct).description, error.description)
  })
})

describe("AiPrompt with a Chat", () => {
  it.effect.skipIf(!hasData("conversations-tooltalk.jsonl"))(
    "a memory's context seeds a Chat; the Chat's history, exported and re-imported, loads back into a memory",
    () =>
      Effect.gen(function*() {
        const conversation = conversations[2][1].find((c) => c.messages.length >= 20)!
        const model = yield* scriptedModel(["Noted: cancelled."])
        const source = yield* RollingMemory.make({ maxTokens: 100_000 })
        for (const message of conversation.messages) yield* source.add(message)

        const chat = yield* Chat.fromPrompt(AiPrompt.toPrompt(yield* source.messages))
        const reply = yield* chat.generateText({ prompt: "Cancel it, please." }).pipe(Effect.provide(model.layer))
        assert.strictEqual(reply.text, "Noted: cancelled.")
        // The model was sent the whole conversation, then the new turn.
        const [sent] = yield* Ref.get(model.prompts)
        assert.strictEqual(sent.content.length, conversation.messages.length + 1)

        const json = yield* chat.exportJson
        const restored = yield* Chat.fromJson(json).pipe(Effect.provide(model.layer))
        const history = yield* AiPrompt.fromPrompt(yield* Ref.get(restored.history))
        assertSameMessages(history, [
          ...conversation.messages,
          Message.user("Cancel it, please."),
          Message.assistant("Noted: cancelled.")
        ])

        const target = yield* RollingMemory.make({ maxTokens: 100_000 })
        for (const message of history) yield* target.add(message)
        assert.deepStrictEqual((yield* target.buffer).slice(0, -2), yield* source.buffer)
      }).pipe(Effect.provide(Summarizer.layerDrop))
  )
})

describe("AiPrompt.fromPrompt on what is not a Prompt", () => {
  const refusals: ReadonlyArray<readonly [unknown, string]> = [
    [null, "expected a Prompt (an object whose content is an array of messages), got null"],
    [
      [{ role: "user", content: "hi" }],
      "expected a Prompt (an object whose content is an array of messages), got an array"
    ],
    [
      { messages: [] },
      "expected a Prompt (an object whose content is an array of messages), got an object without one"
    ],
    [{ content: [null] }, "prompt message 0: expected a message object, got null"],
    [
      { content: [{ role: "user", content: "hi" }] },
      "prompt message 0: a user message's content must be an array of parts"
    ],
    [{ content: [{ role: "system", content: [] }] }, "prompt message 0: a system message's content must be a string"],
    [
      { content: [{ role: "critic", content: [] }] },
      "prompt message 0: role must be \"system\", \"user\", \"assistant\" or \"tool\", got \"critic\""
    ]
  ]
  it.effect("fails with InvalidMessageError naming the problem, never a defect", () =>
    Effect.gen(function*() {
      for (const [input, description] of refusals) {
        const error = yield* Effect.flip(AiPrompt.fromPrompt(input as never))
        assert.instanceOf(error, InvalidMessageError)
        assert.strictEqual(error.description, description)
      }
    }))
})
