/**
 * OpenAI Chat Completions on the Effect 4 line (docs/contract.md section 15):
 * the conversions of `src/core/formats/openAiChat.ts`, read with this line's
 * Schema, give the Effect 3 line's messages and kept metadata
 * (test/adapters/parts.test.ts, forward.test.ts), keep an unknown key or
 * part type verbatim and write it back, refuse it with `{ strict: true }`,
 * and refuse what cannot be placed, naming the path.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as Validity from "../../../src/core/validity.js"
import * as Adapters from "../../src/adapters.js"
import { AdapterError } from "../../src/adapters.js"
import { BufferMemory } from "../../src/promise/index.js"
import * as Message from "../../src/schema/Message.js"

/** As JSON data (what a request body holds). */
const json = (u: unknown): unknown => JSON.parse(JSON.stringify(u))

/** The messages through a memory and its JSON state: add each, save, restore, read back. */
const throughMemory = (messages: ReadonlyArray<Message.Message>): Array<Message.Message> => {
  const memory = new BufferMemory()
  for (const m of messages) memory.addMessage(m.role, m.content, m)
  return BufferMemory.fromJSON(JSON.parse(JSON.stringify(memory))).getMessages()
}

/** `fromOpenAIChat → memory → JSON → memory → toOpenAIChat`. */
const roundTrip = (x: unknown, options?: { readonly check?: boolean }) =>
  json(Adapters.toOpenAIChat(throughMemory(Adapters.fromOpenAIChat(json(x))), options))

/** The description of the `AdapterError` a call throws. */
const refusal = (f: () => unknown): string => {
  try {
    f()
  } catch (error) {
    assert.instanceOf(error, AdapterError)
    assert.strictEqual(error.format, "openai-chat")
    return error.description
  }
  return "(no error)"
}

const marker = (m: Message.Message) => m.metadata[Adapters.METADATA_KEY] as Record<string, unknown> | undefined

/** `x` with `x_future: { since: "2027-01" }` added to every object. */
const withFuture = (x: unknown): unknown => {
  if (Array.isArray(x)) return x.map(withFuture)
  if (typeof x !== "object" || x === null) return x
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(x)) out[k] = withFuture(v)
  out.x_future = { since: "2027-01" }
  return out
}

const IMAGE = "data:image/png;base64,iVBORw0KGgo="

const openAiChat = [
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

/** What the Effect 3 line reads of `openAiChat` (its messages' JSON, metadata kept). */
const EFFECT3_MESSAGES = [
  {
    "role": "system",
    "content": "You are terse.",
    "metadata": {
      "rollmem.provider": {
        "format": "openai-chat",
        "items": [
          {
            "role": "system",
            "content": "You are terse.",
            "name": "policy"
          }
        ],
        "messages": 1
      }
    }
  },
  {
    "role": "developer",
    "content": "Answer in French.\nNo emoji.",
    "metadata": {
      "rollmem.provider": {
        "format": "openai-chat",
        "items": [
          {
            "role": "developer",
            "content": [
              {
                "type": "text",
                "text": "Answer in French."
              },
              {
                "type": "text",
                "text": "No emoji."
              }
            ]
          }
        ],
        "messages": 1
      }
    }
  },
  {
    "role": "user",
    "content": "What is on this picture?",
    "metadata": {
      "rollmem.provider": {
        "format": "openai-chat",
        "items": [
          {
            "role": "user",
            "content": [
              {
                "type": "text",
                "text": "What is on this picture?"
              },
              {
                "type": "image_url",
                "image_url": {
                  "url": "data:image/png;base64,iVBORw0KGgo=",
                  "detail": "low"
                }
              },
              {
                "type": "input_audio",
                "input_audio": {
                  "data": "UklGRg==",
                  "format": "wav"
                }
              },
              {
                "type": "file",
                "file": {
                  "file_id": "file-1",
                  "filename": "a.pdf"
                }
              }
            ]
          }
        ],
        "messages": 1,
        "tokens": 3000
      }
    }
  },
  {
    "role": "assistant",
    "content": "",
    "metadata": {
      "rollmem.provider": {
        "format": "openai-chat",
        "items": [
          {
            "role": "assistant",
            "content": null,
            "refusal": "I cannot help with that."
          }
        ],
        "messages": 1,
        "tokens": 6
      }
    }
  },
  {
    "role": "assistant",
    "content": "Une maison.",
    "metadata": {
      "rollmem.provider": {
        "format": "openai-chat",
        "items": [
          {
            "role": "assistant",
            "content": [
              {
                "type": "text",
                "text": "Une maison."
              },
              {
                "type": "refusal",
                "refusal": "no faces"
              }
            ]
          }
        ],
        "messages": 1,
        "tokens": 2
      }
    }
  },
  {
    "role": "assistant",
    "content": "",
    "tool_calls": [
      {
        "id": "c1",
        "name": "search",
        "arguments": "{\"q\": \"maison\"}"
      },
      {
        "id": "c2",
        "name": "shell",
        "arguments": "ls -la"
      }
    ],
    "metadata": {
      "rollmem.provider": {
        "format": "openai-chat",
        "items": [
          {
            "role": "assistant",
            "content": null,
            "tool_calls": [
              {
                "id": "c1",
                "type": "function",
                "function": {
                  "name": "search",
                  "arguments": "{\"q\": \"maison\"}"
                }
              },
              {
                "id": "c2",
                "type": "custom",
                "custom": {
                  "name": "shell",
                  "input": "ls -la"
                }
              }
            ]
          }
        ],
        "messages": 1
      }
    }
  },
  {
    "role": "tool",
    "content": "[\"house\"]",
    "tool_call_id": "c1"
  },
  {
    "role": "tool",
    "content": "a.txt",
    "tool_call_id": "c2",
    "metadata": {
      "rollmem.provider": {
        "format": "openai-chat",
        "items": [
          {
            "role": "tool",
            "content": [
              {
                "type": "text",
                "text": "a.txt"
              }
            ],
            "tool_call_id": "c2"
          }
        ],
        "messages": 1
      }
    }
  },
  {
    "role": "assistant",
    "content": "",
    "tool_calls": [
      {
        "id": "function_call:8",
        "name": "weather",
        "arguments": "{\"city\":\"Paris\"}"
      }
    ],
    "metadata": {
      "rollmem.provider": {
        "format": "openai-chat",
        "items": [
          {
            "role": "assistant",
            "content": null,
            "function_call": {
              "name": "weather",
              "arguments": "{\"city\":\"Paris\"}"
            }
          }
        ],
        "messages": 1
      }
    }
  },
  {
    "role": "function",
    "content": "18C",
    "tool_call_id": "function_call:8",
    "metadata": {
      "rollmem.provider": {
        "format": "openai-chat",
        "items": [
          {
            "role": "function",
            "content": "18C",
            "name": "weather"
          }
        ],
        "messages": 1
      }
    }
  },
  {
    "role": "assistant",
    "content": "Il fait 18C.",
    "metadata": {
      "rollmem.provider": {
        "format": "openai-chat",
        "items": [
          {
            "role": "assistant",
            "content": "Il fait 18C.",
            "audio": {
              "id": "audio-1"
            },
            "annotations": []
          }
        ],
        "messages": 1
      }
    }
  }
]

describe("OpenAI chat on Effect 4", () => {
  it("every part kind: the Effect 3 line's messages and kept metadata, the identity through a memory", () => {
    const messages = Adapters.fromOpenAIChat(openAiChat)
    assert.deepStrictEqual(json(messages), EFFECT3_MESSAGES)
    assert.strictEqual(JSON.stringify(messages), JSON.stringify(EFFECT3_MESSAGES))
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
    assert.deepStrictEqual(roundTrip(openAiChat), json(openAiChat))
  })

  it.effect("the Effect API: decode and encode, suspended, failing with AdapterError", () =>
    Effect.gen(function*() {
      const messages = yield* Adapters.OpenAiChat.decode([{ role: "user", content: "Weather in Rome?" }])
      assert.deepStrictEqual(json(messages), [{ role: "user", content: "Weather in Rome?" }])
      assert.deepStrictEqual(yield* Adapters.OpenAiChat.encode(messages), [
        { role: "user", content: "Weather in Rome?" }
      ])
      const refused = yield* Effect.exit(Adapters.OpenAiChat.decode([{ role: "critic", content: "x" }]))
      assert.isTrue(Exit.isFailure(refused))
    }))

  it("a message changed since reading is written from its fields", () => {
    const [user] = Adapters.fromOpenAIChat([openAiChat[2]])
    const edited = Message.make("user", "Describe it.", { metadata: user.metadata })
    assert.deepStrictEqual(json(Adapters.toOpenAIChat([edited])), [{ role: "user", content: "Describe it." }])
  })

  it("an unmodelled key and an unknown part type are kept verbatim, as the Effect 3 line keeps them", () => {
    const messages = [
      { role: "user", content: "Hi", x_future: 1 },
      { role: "assistant", content: "Hello.", refusal: null, annotations: [] }
    ]
    assert.deepStrictEqual(Adapters.fromOpenAIChat(messages).map(String), ["user: Hi", "assistant: Hello."])
    assert.strictEqual(
      JSON.stringify(Adapters.fromOpenAIChat([messages[0]])),
      JSON.stringify([{
        role: "user",
        content: "Hi",
        metadata: {
          "rollmem.provider": {
            format: "openai-chat",
            items: [{ x_future: 1, role: "user", content: "Hi" }],
            messages: 1
          }
        }
      }])
    )
    assert.deepStrictEqual(roundTrip(messages), messages)
    const video = [{ role: "user", content: [{ type: "video", url: "x" }] }]
    assert.deepStrictEqual(json(Adapters.fromOpenAIChat(video)), [{
      role: "user",
      content: "",
      metadata: { "rollmem.provider": { format: "openai-chat", items: video, messages: 1, tokens: 1000 } }
    }])
    assert.deepStrictEqual(roundTrip(video), video)
  })

  it("an invented field in every object of every part kind: read, kept, written back; strict refuses it", () => {
    const x = withFuture(json(openAiChat))
    assert.deepStrictEqual(roundTrip(x, { check: false }), x)
    assert.strictEqual(
      refusal(() => Adapters.fromOpenAIChat(x, { strict: true })),
      "[0].x_future: Expected no excess property, actual {\"since\":\"2027-01\"}"
    )
  })

  it("strict: refuses an unknown part type and an unknown key, naming the path", () => {
    assert.strictEqual(
      refusal(() =>
        Adapters.fromOpenAIChat([{ role: "user", content: [{ type: "video", url: "x" }] }], { strict: true })
      ),
      "[0].content[0]: Expected a part of type \"text\" | \"image_url\" | \"input_audio\" | \"file\", actual " +
        "{\"type\":\"video\",\"url\":\"x\"}"
    )
    assert.strictEqual(
      refusal(() => Adapters.fromOpenAIChat([{ role: "user", content: "hi", mood: "happy" }], { strict: true })),
      "[0].mood: Expected no excess property, actual \"happy\""
    )
  })

  it("refuses what it cannot place: an unknown role, a missing one, a malformed known field, naming the path", () => {
    assert.strictEqual(
      refusal(() => Adapters.fromOpenAIChat([{ role: "critic", content: "x" }])),
      "[0].role: Expected \"system\" | \"developer\" | \"user\" | \"assistant\" | \"tool\" | \"function\", actual \"critic\""
    )
    assert.strictEqual(
      refusal(() => Adapters.fromOpenAIChat([{ role: "user", content: "x" }, { content: "x" }])),
      "[1].role: Missing key"
    )
    assert.strictEqual(
      refusal(() => Adapters.fromOpenAIChat([{ role: "user", content: 5 }])),
      "[0].content: Expected string | array, actual 5"
    )
    assert.strictEqual(
      refusal(() => Adapters.fromOpenAIChat([{ role: "user", content: [{ type: "text", text: 5 }] }])),
      "[0].content[0].text: Expected string, actual 5; [0].content[0].type: \"text\" is a known type: its fields are as above"
    )
    assert.strictEqual(
      refusal(() => Adapters.fromOpenAIChat({ role: "user" })),
      "Expected array, actual {\"role\":\"user\"}"
    )
    assert.strictEqual(
      refusal(() => Adapters.fromOpenAIChat([5])),
      "[0]: Expected ChatCompletionMessageParam, actual 5"
    )
  })

  it("another library's shape names the reader that takes it", () => {
    assert.strictEqual(
      refusal(() => Adapters.fromOpenAIChat([{ id: "m1", role: "user", parts: [{ type: "text", text: "Hi" }] }])),
      "[0] is an AI SDK UIMessage (`id`, `parts`): read it with fromUIMessages. [0].content: Missing key"
    )
    assert.strictEqual(
      refusal(() => Adapters.fromOpenAIChat([{ type: "human", data: { content: "Hi" } }])),
      "[0] is a stored LangChain message (`type`, `data`): read it with fromLangChain. [0].role: Missing key"
    )
  })

  it("refuses an orphaned tool result and a custom role, naming them; check: false writes them", () => {
    let orphan: unknown
    try {
      Adapters.toOpenAIChat([Message.user("hi"), Message.tool("42", { toolCallId: "c9" })])
    } catch (error) {
      orphan = error
    }
    assert.instanceOf(orphan, AdapterError)
    assert.strictEqual(
      (orphan as AdapterError).message,
      "openai-chat: the provider would refuse this context: message 1: tool result \"c9\" does not follow its call" +
        " (a memory with boundary: \"turn\" never gives an orphaned tool result: docs/guides/context-policies.md)"
    )
    assert.deepStrictEqual((orphan as AdapterError).violations, [
      new Validity.OrphanedToolResult({ index: 1, toolCallId: "c9" })
    ])
    assert.deepStrictEqual(
      Adapters.toOpenAIChat([Message.user("hi"), Message.tool("42", { toolCallId: "c9" })], { check: false }),
      [{ role: "user", content: "hi" }, { role: "tool", content: "42", tool_call_id: "c9" }]
    )
    assert.strictEqual(
      refusal(() => Adapters.toOpenAIChat([Message.make("critic", "meh")])),
      "message 0 (role \"critic\"): OpenAI chat has no such role (system, developer, user, assistant, tool)"
    )
    assert.strictEqual(
      refusal(() => Adapters.toOpenAIChat([{ role: "user", content: "hi" }] as unknown as Array<Message.Message>)),
      "[0] is not a rollmem message: make messages with Message.make (or read a provider's with its from…, " +
        "wire-format JSON with MemoryState.fromJSON)"
    )
  })

  it("arrange: a strict template's read-back merged, as the Effect 3 line arranges it", () => {
    const readBack = [Message.system("Be brief."), Message.user("Summary: ..."), Message.user("hi")]
    assert.deepStrictEqual(Adapters.toOpenAIChat(readBack, { provider: "strict-template", arrange: true }), [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Summary: ...\n\nhi" }
    ])
  })
})
