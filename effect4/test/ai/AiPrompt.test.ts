/**
 * `AiPrompt` on the Effect 4 line: the Effect 3 line's tests
 * (`test/ai/AiPrompt.test.ts`) with the same values on `effect/ai`'s
 * `Prompt` (the real transcripts' round trip and counts, the encoded parts
 * and options of each shape, prompts from elsewhere, the decoder's refusals,
 * a `Chat`'s history). The property runs on a seeded generator (this
 * package has no fast-check).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Equal, Ref, Result, Schema } from "effect"
import { Chat, Prompt } from "effect/ai"
import { DATA_FILES, dataLines, hasData } from "../../../test/support/data.js"
import * as AiPrompt from "../../src/ai/AiPrompt.js"
import { InvalidMessageError, Message, RollingMemory, Summarizer } from "../../src/index.js"
import { scriptedModel } from "./support.js"

const roundTrip = (messages: ReadonlyArray<Message.Message>) => AiPrompt.fromPrompt(AiPrompt.toPrompt(messages))

// Through the JSON form too (what `Chat.exportJson` writes): the "rollmem" options must survive it.
const PromptJson = Schema.fromJsonString(Prompt.Prompt)
const encodeJson = Schema.encodeSync(PromptJson)
const decodeJson = Schema.decodeSync(PromptJson)
const roundTripJson = (messages: ReadonlyArray<Message.Message>) =>
  AiPrompt.fromPrompt(decodeJson(encodeJson(AiPrompt.toPrompt(messages))))

const assertSameMessages = (actual: ReadonlyArray<Message.Message>, expected: ReadonlyArray<Message.Message>) => {
  assert.strictEqual(actual.length, expected.length)
  for (let i = 0; i < expected.length; i++) {
    if (!Equal.equals(actual[i], expected[i])) {
      assert.deepStrictEqual(Message.toWire(actual[i]), Message.toWire(expected[i]), `message ${i}`)
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

interface Conversation {
  readonly id: string
  readonly messages: ReadonlyArray<Message.Message>
}

const loadConversations = (file: string): ReadonlyArray<Conversation> =>
  dataLines(file).map((line) => {
    const raw = JSON.parse(line) as { readonly id: string; readonly messages: ReadonlyArray<unknown> }
    return {
      id: raw.id,
      messages: raw.messages.map((m) => {
        const decoded = Message.decodeUnknown(m)
        if (Result.isFailure(decoded)) throw decoded.failure
        return decoded.success
      })
    }
  })

const conversations = DATA_FILES.map((file) => [file, loadConversations(file)] as const)

describe("AiPrompt round trip on the real transcripts", () => {
  for (const [file, all] of conversations) {
    it.effect.skipIf(!hasData(file))(
      `${file}: every conversation comes back equal, directly and through the Prompt's JSON`,
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

  it.skipIf(!DATA_FILES.every(hasData))(
    "maps every tool call to a tool-call part and every result to a tool-result part named after its call",
    () => {
      let calls = 0
      let results = 0
      let exactArguments = 0
      let parsedResults = 0
      let exactContent = 0
      for (const [, all] of conversations) {
        for (const conversation of all) {
          const prompt = AiPrompt.toPrompt(conversation.messages)
          assert.strictEqual(prompt.content.length, conversation.messages.length)
          const names = new Map<string, string>()
          conversation.messages.forEach((message, i) => {
            const converted = prompt.content[i]
            for (const call of message.toolCalls) names.set(call.id, call.name)
            if (message.toolCalls.length > 0) {
              assert.strictEqual(converted.role, "assistant")
              const parts = (converted as Prompt.AssistantMessage).content.flatMap((p) =>
                p.type === "tool-call" ? [p] : []
              )
              assert.deepStrictEqual(parts.map((p) => [p.id, p.name]), message.toolCalls.map((c) => [c.id, c.name]))
              parts.forEach((part, j) => {
                calls++
                assert.deepStrictEqual(part.params, JSON.parse(message.toolCalls[j].arguments))
                if (part.options.rollmem !== undefined) exactArguments++
              })
            } else if (message.toolCallId !== undefined) {
              results++
              assert.strictEqual(converted.role, "tool")
              const [part] = (converted as Prompt.ToolMessage).content as ReadonlyArray<Prompt.ToolResultPart>
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
      }
      // SOURCES.md: 1,182 agentic + 266 ToolTalk calls, every one answered.
      assert.strictEqual(calls, 1448)
      assert.strictEqual(results, 1448)
      assert.strictEqual(exactArguments, 129 + 266)
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
    const toolResult = (id: string, name: string, result: string) => ({
      type: "tool-result",
      id,
      name,
      isFailure: false,
      result,
      providerExecuted: false,
      options: {}
    })
    const toolCall = (id: string, name: string, params: unknown, options: object) => ({
      type: "tool-call",
      id,
      name,
      params,
      providerExecuted: false,
      options
    })
    // The encoded form writes a message holding one text part as a plain string.
    assert.deepStrictEqual(Schema.encodeSync(Prompt.Prompt)(prompt), {
      content: [
        { role: "system", content: "be brief", options: {} },
        { role: "user", content: "Weather in Rome?", options: { rollmem: { id: "m1", metadata: { lang: "en" } } } },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Checking.", options: {} },
            toolCall("c1", "weather", { city: "Rome" }, {}),
            toolCall("c2", "clock", {}, { rollmem: { arguments: "" } }),
            toolCall("c3", "raw", "not json", { rollmem: { arguments: "not json" } }),
            toolCall("c4", "spaced", { a: 1 }, { rollmem: { arguments: "{\"a\": 1}" } })
          ],
          options: {}
        },
        { role: "tool", content: [toolResult("c1", "weather", "18C")], options: {} },
        { role: "tool", content: [toolResult("zz", "", "lost")], options: {} },
        { role: "user", content: "too long", options: { rollmem: { role: "critic" } } },
        { role: "user", content: "no id", options: { rollmem: { role: "tool" } } },
        { role: "tool", content: [toolResult("c2", "clock", "answer")], options: { rollmem: { role: "user" } } },
        {
          role: "assistant",
          content: [toolCall("c5", "plan", {}, {})],
          options: { rollmem: { role: "planner", toolCallId: "c4" } }
        },
        { role: "assistant", content: [], options: {} }
      ]
    } as unknown)
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
      const [part] = (m as Prompt.ToolMessage).content as ReadonlyArray<Prompt.ToolResultPart>
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
    const names = prompt.content.flatMap((m) =>
      m.role === "tool" ? m.content.flatMap((p) => p.type === "tool-result" ? [p.name] : []) : []
    )
    assert.deepStrictEqual(names, ["first", "second"])
  })

  it.effect("keeps an empty id and an empty tool call id (present values)", () =>
    Effect.gen(function*() {
      const messages = [Message.user("a", { id: "" }), Message.tool("b", { toolCallId: "" })]
      assertSameMessages(yield* roundTrip(messages), messages)
    }))
})

// A seeded generator of messages (mulberry32): texts, JSON arguments (compact and spaced), custom roles.
const generator = (seed: number) => {
  let state = seed >>> 0
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const pick = <A>(xs: ReadonlyArray<A>): A => xs[int(xs.length)]
  const chars = ["a", "b", " ", "{", "}", "\"", ":", "1", "-", "é", "😀", "\n", "<|", "t", "n"]
  const text = () => Array.from({ length: int(12) }, () => pick(chars)).join("")
  const jsonValue = (depth: number): unknown =>
    depth === 0 || next() < 0.5
      ? pick<unknown>([null, true, false, 0, -1.5, 1e21, "s", text()])
      : next() < 0.5
      ? Array.from({ length: int(3) }, () => jsonValue(depth - 1))
      : Object.fromEntries(Array.from({ length: int(3) }, () => [text(), jsonValue(depth - 1)]))
  const json = () =>
    pick([
      () => "",
      text,
      () => JSON.stringify(jsonValue(2)),
      () => JSON.stringify(jsonValue(2), null, 1)
    ])()
  const message = (): Message.Message => {
    const options: Record<string, unknown> = {}
    if (next() < 0.5) options.id = text()
    if (next() < 0.5) {
      options.toolCalls = Array.from({ length: int(4) }, () => ({ id: text(), name: text(), arguments: json() }))
    }
    if (next() < 0.5) options.toolCallId = text()
    if (next() < 0.5) {
      options.metadata = Object.fromEntries(Array.from({ length: int(4) }, () => [text(), jsonValue(2)]))
    }
    const role = next() < 0.7 ? pick(["user", "assistant", "system", "tool"]) : text()
    return Message.make(role, next() < 0.5 ? json() : text(), options as Message.MessageOptions)
  }
  return () => Array.from({ length: int(9) }, message)
}

describe("AiPrompt properties", () => {
  it.effect("fromPrompt(toPrompt(m)) equals m, through JSON too (200 seeded lists)", () =>
    Effect.gen(function*() {
      const messages = generator(20261202)
      for (let run = 0; run < 200; run++) {
        const ms = messages()
        assertSameMessages(yield* roundTrip(ms), ms)
        assertSameMessages(yield* roundTripJson(ms), ms)
      }
    }))
})

describe("AiPrompt.fromPrompt on prompts from elsewhere", () => {
  it.effect("keeps text, tool calls and results; drops files, reasoning and approvals; splits tool messages", () =>
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
            { type: "tool-call", id: "a", name: "lookup", params: { k: [1, 2] }, providerExecuted: false },
            { type: "tool-call", id: "b", name: "noargs", params: undefined, providerExecuted: false },
            { type: "tool-approval-request", approvalId: "p1", toolCallId: "b" }
          ]
        },
        {
          role: "tool",
          content: [
            { type: "tool-approval-response", approvalId: "p1", approved: true },
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
      ] as unknown as ReadonlyArray<Prompt.MessageEncoded>)
      const messages = yield* AiPrompt.fromPrompt(prompt)
      assert.deepStrictEqual(messages.map(Message.toWire), [
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
        Prompt.userMessage({ content: [], options: { rollmem: { metadata: [1] } } })
      ])
      const error = yield* Effect.flip(AiPrompt.fromPrompt(bad))
      assert.instanceOf(error, InvalidMessageError)
      assert.match(error.description, /metadata/)
      const badId = Prompt.fromMessages([Prompt.systemMessage({ content: "", options: { rollmem: { id: 7 } } })])
      assert.isTrue(Result.isFailure(AiPrompt.fromPromptMessage(badId.content[0])))
    }))
})

describe("AiPrompt decodes through the message decoder", () => {
  const failure = (result: Result.Result<unknown, InvalidMessageError>): InvalidMessageError => {
    assert.isTrue(Result.isFailure(result))
    return (result as Result.Failure<unknown, InvalidMessageError>).failure
  }
  const userWith = (rollmem: unknown) =>
    Prompt.fromMessages([
      Prompt.userMessage({ content: [], options: { rollmem: rollmem as Prompt.ProviderOptions } })
    ]).content[0]

  it("metadata nested 20,000 levels under options.rollmem is named as too deep, not a RangeError", () => {
    let deep: Record<string, unknown> = {}
    for (let i = 0; i < 20_000; i++) deep = { a: deep }
    const error = failure(AiPrompt.fromPromptMessage(userWith({ metadata: deep })))
    assert.instanceOf(error, InvalidMessageError)
    assert.strictEqual(error.description, "metadata: nested deeper than 100 levels")
  })

  it("a 5 MB wrong id gives a bounded description", () => {
    const id = { text: "x".repeat(5 * 1024 * 1024) }
    const error = failure(AiPrompt.fromPromptMessage(userWith({ id })))
    // This line's Message.make names the wire type (`string | null`), where the Effect 3 line's says `string`.
    assert.strictEqual(
      error.description,
      `id: Expected string | null, actual {"text":"${"x".repeat(71)}… [object of 1 key]`
    )
    assert.strictEqual(error.description.length, 134)
  })

  it("metadata that contains itself is named as circular, as Message.make names it", () => {
    const metadata: Record<string, unknown> = { a: 1 }
    metadata.self = metadata
    const error = failure(AiPrompt.fromPromptMessage(userWith({ metadata })))
    assert.strictEqual(error.description, "metadata: contains itself (circular)")
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
        const restored = yield* Chat.fromJson(json)
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
