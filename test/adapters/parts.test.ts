/**
 * Hand-made provider messages with every part kind each adapter reads: the
 * messages they become (exact fields), the metadata they keep, and the
 * identity `from… → memory → JSON → memory → to…`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as Adapters from "../../src/adapters.js"
import { AdapterError } from "../../src/adapters/AdapterError.js"
import * as Message from "../../src/schema/Message.js"
import * as Validity from "../../src/Validity.js"
import { either, FORMATS, json, roundTrip, throughMemory } from "./support.js"

const format = (name: string) => FORMATS.find((f) => f.name === name)!

const wire = (messages: ReadonlyArray<Message.Message>) =>
  json(messages.map((m) => {
    const { metadata: _, ...rest } = m.toJSON() as Record<string, unknown>
    return rest
  }))

const marker = (m: Message.Message) => m.metadata[Adapters.METADATA_KEY] as Record<string, unknown> | undefined

const IMAGE = "data:image/png;base64,iVBORw0KGgo="

export const openAiChat = [
  { role: "system", content: "You are terse.", name: "policy" },
  { role: "developer", content: [{ type: "text", text: "Answer in French." }, { type: "text", text: "No emoji." }] },
  {
    role: "user",
    content: [
      { type: "text", text: "What is on this picture?" },
      { type: "image_url", image_url: { url: IMAGE, detail: "low" } },
      { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
      { type: "file", file: { file_id: "file-1", filename: "a.pdf" } }
    ]
  },
  { role: "assistant", content: null, refusal: "I cannot help with that." },
  { role: "assistant", content: [{ type: "text", text: "Une maison." }, { type: "refusal", refusal: "no faces" }] },
  {
    role: "assistant",
    content: null,
    tool_calls: [
      { id: "c1", type: "function", function: { name: "search", arguments: "{\"q\": \"maison\"}" } },
      { id: "c2", type: "custom", custom: { name: "shell", input: "ls -la" } }
    ]
  },
  { role: "tool", content: "[\"house\"]", tool_call_id: "c1" },
  { role: "tool", content: [{ type: "text", text: "a.txt" }], tool_call_id: "c2" },
  { role: "assistant", content: null, function_call: { name: "weather", arguments: "{\"city\":\"Paris\"}" } },
  { role: "function", name: "weather", content: "18C" },
  { role: "assistant", content: "Il fait 18C.", audio: { id: "audio-1" }, annotations: [] }
]

describe("OpenAI chat", () => {
  it.effect("every part kind: fields, kept metadata, identity through a memory", () =>
    Effect.gen(function*() {
      const messages = yield* Adapters.OpenAiChat.decode(openAiChat)
      assert.deepStrictEqual(wire(messages), [
        { role: "system", content: "You are terse." },
        { role: "developer", content: "Answer in French.\nNo emoji." },
        { role: "user", content: "What is on this picture?" },
        { role: "assistant", content: "" },
        { role: "assistant", content: "Une maison." },
        {
          role: "assistant",
          content: "",
          tool_calls: [{ id: "c1", name: "search", arguments: "{\"q\": \"maison\"}" }, {
            id: "c2",
            name: "shell",
            arguments: "ls -la"
          }]
        },
        { role: "tool", content: "[\"house\"]", tool_call_id: "c1" },
        { role: "tool", content: "a.txt", tool_call_id: "c2" },
        {
          role: "assistant",
          content: "",
          tool_calls: [{ id: "function_call:8", name: "weather", arguments: "{\"city\":\"Paris\"}" }]
        },
        { role: "function", content: "18C", tool_call_id: "function_call:8" },
        { role: "assistant", content: "Il fait 18C." }
      ])
      // kept: everything but the plain tool result c1; estimates: 3 media parts, 2 refusals (24 and 8 characters)
      assert.deepStrictEqual(messages.map((m) => marker(m)?.tokens ?? (marker(m) === undefined ? "-" : 0)), [
        0,
        0,
        3000,
        6,
        2,
        0,
        "-",
        0,
        0,
        0,
        0
      ])
      assert.deepStrictEqual(yield* roundTrip(format("openai-chat"), openAiChat), json(openAiChat))
    }))

  it.effect("a message changed since reading is written from its fields", () =>
    Effect.gen(function*() {
      const [user] = yield* Adapters.OpenAiChat.decode([openAiChat[2]])
      const edited = Message.make("user", "Describe it.", { metadata: user.metadata })
      assert.deepStrictEqual(json(Adapters.toOpenAIChat([edited])), [{ role: "user", content: "Describe it." }])
    }))

  it("strict: refuses an unknown part type and an unknown key, naming the path", () => {
    const strict = { strict: true }
    const unknownPart = either(
      Adapters.OpenAiChat.decode([{ role: "user", content: [{ type: "video", url: "x" }] }], strict)
    )
    assert.isTrue(Either.isLeft(unknownPart))
    assert.include(Either.getLeft(unknownPart).pipe((o) => o._tag === "Some" ? o.value.description : ""), "[0]")
    const unknownKey = either(Adapters.OpenAiChat.decode([{ role: "user", content: "hi", mood: "happy" }], strict))
    assert.include(Either.isLeft(unknownKey) ? unknownKey.left.description : "", "mood")
  })

  it("refuses an orphaned tool result and a custom role, naming them", () => {
    const orphan = either(Adapters.OpenAiChat.encode([Message.user("hi"), Message.tool("42", { toolCallId: "c9" })]))
    assert.isTrue(Either.isLeft(orphan))
    if (Either.isLeft(orphan)) {
      assert.instanceOf(orphan.left, AdapterError)
      assert.strictEqual(
        orphan.left.description,
        "the provider would refuse this context: message 1: tool result \"c9\" does not follow its call" +
          " (a memory with boundary: \"turn\" never gives an orphaned tool result: docs/guides/context-policies.md)"
      )
    }
    const custom = either(Adapters.OpenAiChat.encode([Message.make("critic", "meh")]))
    assert.strictEqual(
      Either.isLeft(custom) ? custom.left.description : "",
      "message 0 (role \"critic\"): OpenAI chat has no such role (system, developer, user, assistant, tool)"
    )
  })
})

export const responses = [
  { role: "system", content: "You are terse." },
  {
    type: "message",
    role: "user",
    content: [
      { type: "input_text", text: "Read this." },
      { type: "input_image", detail: "auto", image_url: IMAGE },
      { type: "input_file", file_id: "file-1" }
    ]
  },
  {
    type: "reasoning",
    id: "rs_1",
    summary: [{ type: "summary_text", text: "Need the file." }],
    encrypted_content: "gAAAA"
  },
  { type: "function_call", call_id: "call_1", name: "read", arguments: "{}", id: "fc_1", status: "completed" },
  { type: "function_call_output", call_id: "call_1", output: "contents" },
  { type: "custom_tool_call", call_id: "call_2", name: "shell", input: "ls" },
  { type: "custom_tool_call_output", call_id: "call_2", output: [{ type: "input_text", text: "a.txt" }] },
  {
    type: "message",
    id: "msg_1",
    role: "assistant",
    status: "completed",
    content: [
      {
        type: "output_text",
        text: "Done.",
        annotations: [{ type: "url_citation", start_index: 0, end_index: 4, title: "t", url: "https://x" }]
      },
      { type: "refusal", refusal: "nope" }
    ]
  },
  { type: "reasoning", id: "rs_2", summary: [] }
]

describe("OpenAI Responses", () => {
  it.effect("every part kind: fields, kept metadata, identity through a memory", () =>
    Effect.gen(function*() {
      const messages = yield* Adapters.OpenAiResponses.decode(responses)
      assert.deepStrictEqual(wire(messages), [
        { role: "system", content: "You are terse." },
        { role: "user", content: "Read this." },
        { role: "assistant", content: "", tool_calls: [{ id: "call_1", name: "read", arguments: "{}" }] },
        { role: "tool", content: "contents", tool_call_id: "call_1" },
        { role: "assistant", content: "", tool_calls: [{ id: "call_2", name: "shell", arguments: "ls" }] },
        { role: "tool", content: "a.txt", tool_call_id: "call_2" },
        { role: "assistant", content: "Done." },
        { role: "assistant", content: "" }
      ])
      assert.deepStrictEqual(marker(messages[2])?.items, json(responses.slice(2, 4)))
      assert.strictEqual(marker(messages[2])?.tokens, 4)
      assert.strictEqual(marker(messages[1])?.tokens, 2000)
      assert.deepStrictEqual(yield* roundTrip(format("openai-responses"), responses, { check: false }), json(responses))
    }))
})

export const anthropic = {
  system: [
    { type: "text", text: "You are terse.", cache_control: { type: "ephemeral" } },
    { type: "text", text: "Summary: none." }
  ],
  messages: [
    {
      role: "user",
      content: [
        { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
        { type: "document", source: { type: "url", url: "https://x/a.pdf" }, title: "A" },
        { type: "text", text: "What is this?" }
      ]
    },
    { role: "user", content: "Second user turn, not merged." },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Look it up.", signature: "sig" },
        { type: "redacted_thinking", data: "xyz" },
        { type: "text", text: "Checking." },
        { type: "tool_use", id: "t1", name: "lookup", input: { q: "a" } },
        { type: "tool_use", id: "t2", name: "lookup", input: { q: "b" } }
      ]
    },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "t1", content: "A is a house." },
        {
          type: "tool_result",
          tool_use_id: "t2",
          content: [{ type: "text", text: "B" }, { type: "image", source: { type: "url", url: "https://x/b.png" } }],
          is_error: true
        },
        { type: "text", text: "And now?" }
      ]
    },
    { role: "assistant", content: "A house." }
  ]
}

describe("Anthropic", () => {
  it.effect("every part kind: fields, kept metadata, identity through a memory", () =>
    Effect.gen(function*() {
      const messages = yield* Adapters.Anthropic.decode(anthropic)
      assert.deepStrictEqual(wire(messages), [
        { role: "system", content: "You are terse." },
        { role: "system", content: "Summary: none." },
        { role: "user", content: "What is this?" },
        { role: "user", content: "Second user turn, not merged." },
        {
          role: "assistant",
          content: "Checking.",
          tool_calls: [{ id: "t1", name: "lookup", arguments: "{\"q\":\"a\"}" }, {
            id: "t2",
            name: "lookup",
            arguments: "{\"q\":\"b\"}"
          }]
        },
        { role: "tool", content: "A is a house.", tool_call_id: "t1" },
        { role: "tool", content: "B", tool_call_id: "t2" },
        { role: "user", content: "And now?" },
        { role: "assistant", content: "A house." }
      ])
      assert.strictEqual(marker(messages[2])?.tokens, 2000)
      assert.strictEqual(marker(messages[4])?.tokens, 4)
      assert.strictEqual(marker(messages[5])?.messages, 3)
      assert.strictEqual(marker(messages[5])?.tokens, 1000)
      assert.deepStrictEqual(yield* roundTrip(format("anthropic"), anthropic), json(anthropic))
    }))

  it("merges consecutive turns of one role and splits them back", () => {
    const request = Adapters.toAnthropic([
      Message.system("Be brief."),
      Message.user("Weather in Paris and Rome?"),
      Message.assistant("", {
        toolCalls: [{ id: "a", name: "weather", arguments: "{\"city\":\"Paris\"}" }, {
          id: "b",
          name: "weather",
          arguments: "{\"city\":\"Rome\"}"
        }]
      }),
      Message.tool("18C", { toolCallId: "a" }),
      Message.tool("25C", { toolCallId: "b" }),
      Message.user("Thanks")
    ])
    assert.deepStrictEqual(json(request), {
      system: "Be brief.",
      messages: [
        { role: "user", content: "Weather in Paris and Rome?" },
        {
          role: "assistant",
          content: [
            { type: "tool_use", id: "a", name: "weather", input: { city: "Paris" } },
            { type: "tool_use", id: "b", name: "weather", input: { city: "Rome" } }
          ]
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "a", content: "18C" },
            { type: "tool_result", tool_use_id: "b", content: "25C" },
            { type: "text", text: "Thanks" }
          ]
        }
      ]
    })
    assert.deepStrictEqual(wire(Adapters.fromAnthropic(request)), [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Weather in Paris and Rome?" },
      {
        role: "assistant",
        content: "",
        tool_calls: [{ id: "a", name: "weather", arguments: "{\"city\":\"Paris\"}" }, {
          id: "b",
          name: "weather",
          arguments: "{\"city\":\"Rome\"}"
        }]
      },
      { role: "tool", content: "18C", tool_call_id: "a" },
      { role: "tool", content: "25C", tool_call_id: "b" },
      { role: "user", content: "Thanks" }
    ])
  })

  it("places prompt-cache breakpoints after the pinned system prompt and on the last message", () => {
    const request = Adapters.toAnthropic(
      [Message.system("Policy."), Message.system("Summary."), Message.user("Hi"), Message.assistant("Hello")],
      { cacheControl: { pinned: 1, ttl: "1h" } }
    )
    assert.deepStrictEqual(json(request), {
      system: [
        { type: "text", text: "Policy.", cache_control: { type: "ephemeral", ttl: "1h" } },
        { type: "text", text: "Summary." }
      ],
      messages: [
        { role: "user", content: "Hi" },
        {
          role: "assistant",
          content: [{ type: "text", text: "Hello", cache_control: { type: "ephemeral", ttl: "1h" } }]
        }
      ]
    })
  })

  it("refuses a context opening on an assistant turn and a system message mid-way", () => {
    const first = either(Adapters.Anthropic.encode([Message.system("s"), Message.assistant("hi")]))
    assert.deepStrictEqual(Either.isLeft(first) ? first.left.violations?.map((v) => v._tag) : [], ["FirstTurnNotUser"])
    // a violation of Anthropic's rules (contract 15.2), with its index
    const mid = either(Adapters.Anthropic.encode([Message.user("a"), Message.system("b")]))
    assert.deepStrictEqual(Either.isLeft(mid) ? [mid.left.description, mid.left.violations] : [], [
      "the provider would refuse this context: message 1: a system message after the first turn",
      [new Validity.SystemAfterFirstTurn({ index: 1, role: "system" })]
    ])
    // unchecked, the writer still has no place for it
    const unchecked = either(Adapters.Anthropic.encode([Message.user("a"), Message.system("b")], { check: false }))
    assert.strictEqual(
      Either.isLeft(unchecked) ? unchecked.left.description : "",
      "message 1 (role \"system\"): Anthropic takes system text only in `system`, before the first turn"
    )
  })
})

describe("check applies the target's rules only (contract 15.2)", () => {
  const lateSystem = [Message.user("hi"), Message.system("late rule"), Message.assistant("ok")]
  const twoUsers = [Message.system("prompt"), Message.user("summary"), Message.user("hi"), Message.assistant("ok")]
  const tags = (e: Either.Either<unknown, AdapterError>) =>
    Either.isLeft(e) ? e.left.violations?.map((v) => v._tag) : []

  it("OpenAI's formats, the AI SDK's: a system message mid-way and two user messages in a row are written", () => {
    for (const messages of [lateSystem, twoUsers]) {
      assert.isTrue(Either.isRight(either(Adapters.OpenAiChat.encode(messages))))
      assert.isTrue(Either.isRight(either(Adapters.OpenAiResponses.encode(messages))))
      assert.isTrue(Either.isRight(either(Adapters.AiSdk.encode(messages))))
    }
    // an assistant turn first is OpenAI's to accept too
    assert.isTrue(Either.isRight(either(Adapters.OpenAiChat.encode([Message.assistant("hello"), Message.user("hi")]))))
  })

  it("Anthropic and Gemini: two user messages in a row are written, a system message mid-way refused with its index", () => {
    assert.isTrue(Either.isRight(either(Adapters.Anthropic.encode(twoUsers))))
    assert.isTrue(Either.isRight(either(Adapters.Gemini.encode(twoUsers))))
    assert.deepStrictEqual(tags(either(Adapters.Anthropic.encode(lateSystem))), ["SystemAfterFirstTurn"])
    assert.deepStrictEqual(tags(either(Adapters.Gemini.encode(lateSystem))), ["SystemAfterFirstTurn"])
  })

  it("provider names another target: strict templates refuse both", () => {
    assert.deepStrictEqual(tags(either(Adapters.OpenAiChat.encode(twoUsers, { provider: "strict-template" }))), [
      "ConsecutiveSameRole"
    ])
    assert.deepStrictEqual(tags(either(Adapters.AiSdk.encode(lateSystem, { provider: "anthropic" }))), [
      "SystemAfterFirstTurn"
    ])
    assert.deepStrictEqual(tags(either(Adapters.Anthropic.encode(twoUsers, { provider: "strict-template" }))), [
      "ConsecutiveSameRole"
    ])
  })
})

export const aiSdk = [
  {
    role: "system",
    content: "You are terse.",
    providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } }
  },
  {
    role: "user",
    content: [
      { type: "text", text: "Look." },
      { type: "image", image: IMAGE, mediaType: "image/png" },
      { type: "file", data: "JVBERi0=", mediaType: "application/pdf", filename: "a.pdf" }
    ]
  },
  {
    role: "assistant",
    content: [
      { type: "reasoning", text: "Need a tool." },
      { type: "text", text: "Let me check." },
      { type: "tool-call", toolCallId: "t1", toolName: "lookup", input: { q: "a" } },
      { type: "tool-call", toolCallId: "t2", toolName: "lookup", input: { q: "b" } }
    ]
  },
  {
    role: "tool",
    content: [
      { type: "tool-result", toolCallId: "t1", toolName: "lookup", output: { type: "json", value: { hit: 1 } } },
      { type: "tool-result", toolCallId: "t2", toolName: "lookup", output: { type: "error-text", value: "timeout" } }
    ]
  },
  { role: "assistant", content: "Found one." }
]

describe("AI SDK", () => {
  it.effect("every part kind: fields, kept metadata, identity through a memory", () =>
    Effect.gen(function*() {
      const messages = yield* Adapters.AiSdk.decode(aiSdk)
      assert.deepStrictEqual(wire(messages), [
        { role: "system", content: "You are terse." },
        { role: "user", content: "Look." },
        {
          role: "assistant",
          content: "Let me check.",
          tool_calls: [{ id: "t1", name: "lookup", arguments: "{\"q\":\"a\"}" }, {
            id: "t2",
            name: "lookup",
            arguments: "{\"q\":\"b\"}"
          }]
        },
        { role: "tool", content: "{\"hit\":1}", tool_call_id: "t1" },
        { role: "tool", content: "timeout", tool_call_id: "t2" },
        { role: "assistant", content: "Found one." }
      ])
      assert.strictEqual(marker(messages[1])?.tokens, 2000)
      assert.strictEqual(marker(messages[2])?.tokens, 3)
      assert.strictEqual(marker(messages[3])?.messages, 2)
      assert.deepStrictEqual(yield* roundTrip(format("ai-sdk"), aiSdk), json(aiSdk))
    }))

  it("reads bytes and URLs as strings", () => {
    const [m] = Adapters.fromAiSdk([{
      role: "user",
      content: [{ type: "image", image: new Uint8Array([1, 2, 3]) }, {
        type: "file",
        data: new URL("https://x/a.pdf"),
        mediaType: "application/pdf"
      }]
    }])
    assert.deepStrictEqual(json(Adapters.toAiSdk(throughMemory([m]))), [{
      role: "user",
      content: [{ type: "image", image: "AQID" }, {
        type: "file",
        data: "https://x/a.pdf",
        mediaType: "application/pdf"
      }]
    }])
  })
})

export const gemini = {
  systemInstruction: { parts: [{ text: "You are terse." }] },
  contents: [
    {
      role: "user",
      parts: [{ text: "What is this?" }, { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } }, {
        fileData: { fileUri: "gs://b/a.pdf", mimeType: "application/pdf" }
      }]
    },
    {
      role: "model",
      parts: [
        { text: "Think first.", thought: true, thoughtSignature: "sig" },
        { functionCall: { name: "lookup", args: { q: "a" } } },
        { functionCall: { name: "lookup", args: { q: "b" } } }
      ]
    },
    {
      role: "user",
      parts: [
        { functionResponse: { name: "lookup", response: { output: "A" } } },
        { functionResponse: { name: "lookup", response: { hits: 2 } } }
      ]
    },
    { role: "model", parts: [{ text: "Two things." }] }
  ]
}

describe("Gemini", () => {
  it.effect("every part kind: fields, made-up ids, kept metadata, identity through a memory", () =>
    Effect.gen(function*() {
      const messages = yield* Adapters.Gemini.decode(gemini)
      assert.deepStrictEqual(wire(messages), [
        { role: "system", content: "You are terse." },
        { role: "user", content: "What is this?" },
        {
          role: "assistant",
          content: "",
          tool_calls: [{ id: "gemini:1:1", name: "lookup", arguments: "{\"q\":\"a\"}" }, {
            id: "gemini:1:2",
            name: "lookup",
            arguments: "{\"q\":\"b\"}"
          }]
        },
        { role: "tool", content: "A", tool_call_id: "gemini:1:1" },
        { role: "tool", content: "{\"hits\":2}", tool_call_id: "gemini:1:2" },
        { role: "assistant", content: "Two things." }
      ])
      assert.strictEqual(marker(messages[1])?.tokens, 2000)
      assert.strictEqual(marker(messages[2])?.tokens, 3)
      assert.deepStrictEqual(yield* roundTrip(format("gemini"), gemini), json(gemini))
    }))
})

export const langChain = [
  { type: "system", data: { content: "You are terse." } },
  {
    type: "human",
    data: {
      content: [{ type: "text", text: "Look." }, { type: "image_url", image_url: { url: IMAGE } }],
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
]

describe("LangChain", () => {
  it.effect("every part kind: fields, kept metadata, identity through a memory", () =>
    Effect.gen(function*() {
      const messages = yield* Adapters.LangChain.decode(langChain)
      assert.deepStrictEqual(wire(messages), [
        { role: "system", content: "You are terse." },
        { role: "user", content: "Look." },
        { role: "assistant", content: "", tool_calls: [{ id: "t1", name: "lookup", arguments: "{\"q\":\"a\"}" }] },
        { role: "tool", content: "A", tool_call_id: "t1" },
        { role: "critic", content: "Audit passed." }
      ])
      assert.strictEqual(marker(messages[1])?.tokens, 1000)
      assert.deepStrictEqual(yield* roundTrip(format("langchain"), langChain), json(langChain))
    }))
})

describe("across formats", () => {
  it.effect("a conversation read from one provider is written for another", () =>
    Effect.gen(function*() {
      const messages = yield* Adapters.Anthropic.decode(anthropic)
      assert.deepStrictEqual((json(Adapters.toOpenAIChat(messages)) as Array<unknown>).slice(4, 7), [
        {
          role: "assistant",
          content: "Checking.",
          tool_calls: [
            { id: "t1", type: "function", function: { name: "lookup", arguments: "{\"q\":\"a\"}" } },
            { id: "t2", type: "function", function: { name: "lookup", arguments: "{\"q\":\"b\"}" } }
          ]
        },
        { role: "tool", content: "A is a house.", tool_call_id: "t1" },
        { role: "tool", content: "B", tool_call_id: "t2" }
      ])
    }))
})
