/**
 * AI SDK `UIMessage`s (what `useChat` sends and applications persist): read
 * per step, tool parts in every state, data, reasoning and file parts kept
 * verbatim so the round trip is the identity; written in the shape the AI
 * SDK's own `convertToModelMessages` turns into what `toAiSdk` writes. Typed
 * against the `ai` package's `UIMessage` (a devDependency).
 */
import { assert, describe, it } from "@effect/vitest"
import { convertToModelMessages, type UIMessage, validateUIMessages } from "ai"
import { Effect, Either } from "effect"
import * as Adapters from "../../src/adapters.js"
import * as Message from "../../src/schema/Message.js"
import { either, type Format, json, roundTrip, throughMemory, withFuture } from "./support.js"

const format: Format = { name: "ai-sdk-ui", decode: Adapters.UiMessages.decode, encode: Adapters.UiMessages.encode }

const description = <A>(result: Either.Either<A, Adapters.AdapterError>): string =>
  Either.isLeft(result) ? result.left.description : "(read)"

/** A persisted `useChat` conversation: steps, reasoning, a tool call with its output, a data part, a file. */
const chat: Array<UIMessage> = [
  { id: "s1", role: "system", parts: [{ type: "text", text: "Be brief." }] },
  {
    id: "u1",
    role: "user",
    metadata: { createdAt: 1767225600000 },
    parts: [
      { type: "text", text: "Weather in Rome?" },
      { type: "file", mediaType: "image/png", url: "data:image/png;base64,iVBORw0KGgo=", filename: "sky.png" }
    ]
  },
  {
    id: "a1",
    role: "assistant",
    parts: [
      { type: "step-start" },
      { type: "reasoning", text: "The user wants the weather; call the tool.", state: "done" },
      {
        type: "tool-weather",
        toolCallId: "call_1",
        state: "output-available",
        input: { city: "Rome" },
        output: { celsius: 21 },
        callProviderMetadata: { openai: { itemId: "fc_1" } }
      },
      { type: "data-weather", id: "d1", data: { city: "Rome", status: "done" } },
      { type: "step-start" },
      { type: "text", text: "21 °C and sunny.", state: "done" },
      { type: "source-url", sourceId: "src_1", url: "https://example.com/rome", title: "Rome" }
    ]
  }
]

describe("fromUIMessages", () => {
  it("reads each assistant step as a message with its calls, then one tool message per result", () => {
    const messages = Adapters.fromUIMessages(chat)
    assert.deepStrictEqual(messages.map(String), [
      "system: Be brief.",
      "user: Weather in Rome?",
      "assistant:  [tool calls: weather({\"city\":\"Rome\"})]",
      "tool: {\"celsius\":21}",
      "assistant: 21 °C and sunny."
    ])
    assert.deepStrictEqual(messages.map((m) => m.id), ["s1", "u1", "a1", undefined, undefined])
    assert.strictEqual(messages[3].toolCallId, "call_1")
    // the parts rollmem has no field for are kept with the whole UIMessage, with their estimate
    const kept = messages[2].metadata[Adapters.METADATA_KEY] as { format: string; messages: number; tokens: number }
    assert.deepStrictEqual([kept.format, kept.messages, kept.tokens], ["ai-sdk-ui", 3, 11])
    assert.deepStrictEqual(messages[1].metadata[Adapters.METADATA_KEY], {
      format: "ai-sdk-ui",
      items: json([chat[1]]),
      messages: 1,
      tokens: Adapters.MEDIA_TOKENS
    } as never)
    assert.deepStrictEqual(messages[0].metadata, {})
  })

  it.effect("from → memory → JSON → memory → to is the identity, and with a future field in every object", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* roundTrip(format, chat), json(chat))
      const future = withFuture(chat)
      assert.deepStrictEqual(yield* roundTrip(format, future), json(future))
    }))

  it("reads a tool part in every state, static and dynamic", () => {
    const states: Array<UIMessage> = [
      { id: "u", role: "user", parts: [{ type: "text", text: "go" }] },
      {
        id: "a",
        role: "assistant",
        parts: [
          { type: "tool-t", toolCallId: "c0", state: "input-streaming", input: { q: "pa" }, rawInput: "{\"q\":\"pa" },
          { type: "tool-t", toolCallId: "c1", state: "input-available", input: { q: 1 } },
          {
            type: "tool-t",
            toolCallId: "c2",
            state: "approval-requested",
            input: { q: 2 },
            approval: { id: "ap2", signature: "sig" }
          },
          {
            type: "tool-t",
            toolCallId: "c3",
            state: "approval-responded",
            input: { q: 3 },
            approval: { id: "ap3", approved: true }
          },
          { type: "tool-t", toolCallId: "c4", state: "output-available", input: { q: 4 }, output: "four" },
          { type: "tool-t", toolCallId: "c5", state: "output-error", input: undefined, errorText: "bad input" },
          {
            type: "tool-t",
            toolCallId: "c6",
            state: "output-denied",
            input: { q: 6 },
            approval: { id: "ap6", approved: false, reason: "not allowed" }
          },
          {
            type: "tool-t",
            toolCallId: "c7",
            state: "output-denied",
            input: { q: 7 },
            approval: { id: "ap7", approved: false }
          },
          {
            type: "dynamic-tool",
            toolName: "mcp_search",
            toolCallId: "c8",
            state: "output-available",
            input: { q: 8 },
            output: [1, 2],
            providerExecuted: true
          }
        ]
      }
    ]
    const messages = Adapters.fromUIMessages(states)
    assert.deepStrictEqual(messages.map(String), [
      "user: go",
      "assistant:  [tool calls: t({\"q\":1}), t({\"q\":2}), t({\"q\":3}), t({\"q\":4}), t(), t({\"q\":6}), " +
      "t({\"q\":7}), mcp_search({\"q\":8})]",
      "tool: four",
      "tool: bad input",
      "tool: not allowed",
      "tool: Tool call execution denied.",
      "tool: [1,2]"
    ])
    assert.deepStrictEqual(messages.slice(2).map((m) => m.toolCallId), ["c4", "c5", "c6", "c7", "c8"])
    // the calls awaiting a result (c1, c2, c3) end the list: pending, a UI's state, written back as they came
    assert.deepStrictEqual(json(Adapters.toUIMessages(throughMemory(messages))), json(states))
    // a turn after them: they are unanswered, and refused by the target's check (written with check: false)
    const later = [...messages, Message.user("and?")]
    assert.deepStrictEqual(
      either(Adapters.UiMessages.encode(later)).pipe(Either.flip, Either.getOrThrow).violations?.map((v) => v._tag),
      ["UnansweredToolCall", "UnansweredToolCall", "UnansweredToolCall"]
    )
    assert.deepStrictEqual(
      Adapters.UiMessages.encode(throughMemory(later), { check: false }).pipe(Effect.map(json), Effect.runSync),
      json([...states, { id: "rollmem-7", role: "user", parts: [{ type: "text", text: "and?" }] }])
    )
  })

  describe("a pending call: a tool part in state input-available (contract 15.3)", () => {
    const weather = { id: "c1", name: "weather", arguments: "{\"city\":\"Rome\"}" }
    const asked = [
      Message.user("Weather in Rome?", { id: "u1" }),
      Message.assistant("Checking.", { toolCalls: [weather] })
    ]

    it("the last turn's call without its result is written, not refused, as the AI SDK types it", () => {
      const written: Array<UIMessage> = Adapters.toUIMessages(asked)
      assert.deepStrictEqual(json(written), [
        { id: "u1", role: "user", parts: [{ type: "text", text: "Weather in Rome?" }] },
        {
          id: "rollmem-1",
          role: "assistant",
          parts: [
            { type: "step-start" },
            { type: "text", text: "Checking." },
            { type: "tool-weather", toolCallId: "c1", state: "input-available", input: { city: "Rome" } }
          ]
        }
      ])
    })

    it.effect("the AI SDK validates it; its convertToModelMessages drops it with ignoreIncompleteToolCalls", () =>
      Effect.gen(function*() {
        const written = Adapters.toUIMessages(asked)
        yield* Effect.promise(() => validateUIMessages({ messages: written }))
        const sent = yield* Effect.promise(() => convertToModelMessages(written, { ignoreIncompleteToolCalls: true }))
        assert.deepStrictEqual(json(sent), [
          { role: "user", content: [{ type: "text", text: "Weather in Rome?" }] },
          { role: "assistant", content: [{ type: "text", text: "Checking." }] }
        ])
      }))

    it("parallel calls partly answered: the answered one output-available, the other input-available", () => {
      const both = [
        asked[0],
        Message.assistant("", { toolCalls: [weather, { id: "c2", name: "time", arguments: "{}" }] }),
        Message.make("tool", "{\"temp\":21}", { toolCallId: "c1" })
      ]
      assert.deepStrictEqual(json(Adapters.toUIMessages(both)[1].parts), [
        { type: "step-start" },
        {
          type: "tool-weather",
          toolCallId: "c1",
          state: "output-available",
          input: { city: "Rome" },
          output: { temp: 21 }
        },
        { type: "tool-time", toolCallId: "c2", state: "input-available", input: {} }
      ])
    })

    it("read back, it is the call awaiting its result; the result, once added, makes it output-available", () => {
      const back = Adapters.fromUIMessages(Adapters.toUIMessages(asked))
      assert.deepStrictEqual(back.map(String), asked.map(String))
      const answered = [...asked, Message.make("tool", "sunny", { toolCallId: "c1" })]
      assert.deepStrictEqual(json(Adapters.toUIMessages(answered)[1].parts[2]), {
        type: "tool-weather",
        toolCallId: "c1",
        state: "output-available",
        input: { city: "Rome" },
        output: "sunny"
      })
    })

    it("the model formats still refuse it: a provider would answer 400", () => {
      const writers: ReadonlyArray<
        (messages: ReadonlyArray<Message.Message>) => Effect.Effect<unknown, Adapters.AdapterError>
      > = [Adapters.AiSdk.encode, Adapters.OpenAiChat.encode, Adapters.OpenAiResponses.encode]
      for (const write of writers) {
        assert.deepStrictEqual(
          either(write(asked)).pipe(Either.flip, Either.getOrThrow).violations?.map((v) => v._tag),
          ["UnansweredToolCall"]
        )
      }
    })
  })

  it("strict refuses an unmodelled key but takes every part type the AI SDK declares", () => {
    assert.strictEqual(Adapters.fromUIMessages(chat, { strict: true }).length, 5)
    assert.strictEqual(
      description(either(Adapters.UiMessages.decode([{ id: "u", role: "user", parts: [], x_future: 1 }], {
        strict: true
      }))),
      "[0].x_future: is unexpected, expected: \"id\" | \"role\" | \"metadata\" | \"parts\""
    )
    assert.strictEqual(
      Adapters.fromUIMessages([{ id: "u", role: "user", parts: [{ type: "x-future", a: 1 }] }]).map(String)[0],
      "user: "
    )
  })

  it("refuses what it cannot place, naming the path", () => {
    assert.strictEqual(
      description(either(Adapters.UiMessages.decode([{ id: "t", role: "tool", parts: [] }]))),
      "[0].role: Expected \"system\", actual \"tool\"; [0].role: Expected \"user\", actual \"tool\"; " +
        "[0].role: Expected \"assistant\", actual \"tool\""
    )
    assert.match(
      description(either(Adapters.UiMessages.decode([{
        id: "a",
        role: "assistant",
        parts: [{ type: "tool-t", toolCallId: 7, state: "input-available", input: {} }]
      }]))),
      /^\[0\]\.parts\[0\]/
    )
    assert.strictEqual(
      description(either(Adapters.AiSdk.decode(json(chat)))).split(":")[0],
      "[0] is an AI SDK UIMessage (`id`, `parts`)"
    )
  })
})

describe("toUIMessages", () => {
  const messages = [
    Message.system("Be brief."),
    Message.user("Weather in Rome and Paris?", { id: "u1" }),
    Message.assistant("Checking.", {
      toolCalls: [
        { id: "c1", name: "weather", arguments: "{\"city\":\"Rome\"}" },
        { id: "c2", name: "weather", arguments: "" }
      ]
    }),
    Message.tool("{\"celsius\":21}", { toolCallId: "c1" }),
    Message.tool("\"rainy\"", { toolCallId: "c2" }),
    Message.assistant("Rome 21 °C; Paris rainy."),
    Message.user("Thanks")
  ]

  it("writes one UIMessage per system and user message and one per assistant turn, its steps opened by step-start", () => {
    const ui: Array<UIMessage> = Adapters.toUIMessages(messages)
    assert.deepStrictEqual(json(ui), [
      { id: "rollmem-0", role: "system", parts: [{ type: "text", text: "Be brief." }] },
      { id: "u1", role: "user", parts: [{ type: "text", text: "Weather in Rome and Paris?" }] },
      {
        id: "rollmem-2",
        role: "assistant",
        parts: [
          { type: "step-start" },
          { type: "text", text: "Checking." },
          {
            type: "tool-weather",
            toolCallId: "c1",
            state: "output-available",
            input: { city: "Rome" },
            output: { celsius: 21 }
          },
          { type: "tool-weather", toolCallId: "c2", state: "output-available", input: {}, output: "\"rainy\"" },
          { type: "step-start" },
          { type: "text", text: "Rome 21 °C; Paris rainy." }
        ]
      },
      { id: "rollmem-6", role: "user", parts: [{ type: "text", text: "Thanks" }] }
    ])
  })

  it.effect("the AI SDK's convertToModelMessages of it holds what toAiSdk writes", () =>
    Effect.gen(function*() {
      const model = yield* Effect.promise(() => convertToModelMessages(Adapters.toUIMessages(messages)))
      const text = (m: unknown) => {
        const x = m as { role: string; content: unknown }
        return typeof x.content === "string" || x.role === "system" || x.role === "tool"
          ? x
          : { ...x, content: (x.content as Array<{ type: string; text?: string }>)[0].text }
      }
      const direct = json(Adapters.toAiSdk(messages)) as Array<{ role: string; content: unknown }>
      // convertToModelMessages writes a user turn's text as a part; toAiSdk as a string
      assert.deepStrictEqual(
        (json(model) as Array<unknown>).map((m, i) => direct[i].role === "user" ? text(m) : m),
        direct.map((m) => m.role === "assistant" ? { ...m, content: fixSteps(m.content) } : m)
      )
    }))

  it("refuses a tool result without its call in the turn before it, and a role a UIMessage has no place for", () => {
    const orphan = [Message.user("hi"), Message.tool("r", { toolCallId: "c9" })]
    assert.strictEqual(
      description(either(Adapters.UiMessages.encode(orphan, { check: false }))),
      "message 1 (role \"tool\"): a tool result without its call in the assistant turn before it"
    )
    assert.strictEqual(
      description(either(Adapters.UiMessages.encode([Message.make("developer", "x")], { check: false }))),
      "message 0 (role \"developer\"): a UIMessage has no such role (system, user, assistant, tool)"
    )
  })
})

// convertToModelMessages keeps each step's text and calls as parts (toAiSdk writes a text-only turn as a string)
const fixSteps = (content: unknown): unknown =>
  typeof content === "string" ? [{ type: "text", text: content }] : content
