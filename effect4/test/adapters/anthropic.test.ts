/**
 * Anthropic Messages on the Effect 4 line (docs/contract.md section 15):
 * the conversions of `src/core/formats/anthropic.ts`, read with this line's
 * Schema, give the Effect 3 line's messages and kept metadata
 * (test/adapters/parts.test.ts, forward.test.ts), keep an unknown key or
 * block type verbatim and write it back, refuse it with `{ strict: true }`,
 * place prompt-cache breakpoints, and refuse what cannot be placed.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
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

/** `fromAnthropic → memory → JSON → memory → toAnthropic`. */
const roundTrip = (x: unknown, options?: { readonly check?: boolean }) =>
  json(Adapters.toAnthropic(throughMemory(Adapters.fromAnthropic(json(x))), options))

/** The description of the `AdapterError` a call throws. */
const refusal = (f: () => unknown): string => {
  try {
    f()
  } catch (error) {
    assert.instanceOf(error, AdapterError)
    assert.strictEqual(error.format, "anthropic")
    return error.description
  }
  return "(no error)"
}

/** `x` with `x_future: { since: "2027-01" }` added to every object but the request. */
const withFuture = (x: unknown, top = false): unknown => {
  if (Array.isArray(x)) return x.map((v) => withFuture(v))
  if (typeof x !== "object" || x === null) return x
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(x)) out[k] = withFuture(v)
  if (!top) out.x_future = { since: "2027-01" }
  return out
}

const anthropic = {
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

/** What the Effect 3 line reads of `anthropic` (its messages' JSON, metadata kept). */
const EFFECT3_MESSAGES = [
  {
    "role": "system",
    "content": "You are terse.",
    "metadata": {
      "rollmem.provider": {
        "format": "anthropic.system",
        "items": [
          {
            "type": "text",
            "text": "You are terse.",
            "cache_control": {
              "type": "ephemeral"
            }
          }
        ],
        "messages": 1
      }
    }
  },
  {
    "role": "system",
    "content": "Summary: none."
  },
  {
    "role": "user",
    "content": "What is this?",
    "metadata": {
      "rollmem.provider": {
        "format": "anthropic",
        "items": [
          {
            "role": "user",
            "content": [
              {
                "type": "image",
                "source": {
                  "type": "base64",
                  "media_type": "image/png",
                  "data": "iVBORw0KGgo="
                }
              },
              {
                "type": "document",
                "source": {
                  "type": "url",
                  "url": "https://x/a.pdf"
                },
                "title": "A"
              },
              {
                "type": "text",
                "text": "What is this?"
              }
            ]
          }
        ],
        "messages": 1,
        "tokens": 2000
      }
    }
  },
  {
    "role": "user",
    "content": "Second user turn, not merged.",
    "metadata": {
      "rollmem.provider": {
        "format": "anthropic",
        "items": [
          {
            "role": "user",
            "content": "Second user turn, not merged."
          }
        ],
        "messages": 1
      }
    }
  },
  {
    "role": "assistant",
    "content": "Checking.",
    "tool_calls": [
      {
        "id": "t1",
        "name": "lookup",
        "arguments": "{\"q\":\"a\"}"
      },
      {
        "id": "t2",
        "name": "lookup",
        "arguments": "{\"q\":\"b\"}"
      }
    ],
    "metadata": {
      "rollmem.provider": {
        "format": "anthropic",
        "items": [
          {
            "role": "assistant",
            "content": [
              {
                "type": "thinking",
                "thinking": "Look it up.",
                "signature": "sig"
              },
              {
                "type": "redacted_thinking",
                "data": "xyz"
              },
              {
                "type": "text",
                "text": "Checking."
              },
              {
                "type": "tool_use",
                "id": "t1",
                "name": "lookup",
                "input": {
                  "q": "a"
                }
              },
              {
                "type": "tool_use",
                "id": "t2",
                "name": "lookup",
                "input": {
                  "q": "b"
                }
              }
            ]
          }
        ],
        "messages": 1,
        "tokens": 4
      }
    }
  },
  {
    "role": "tool",
    "content": "A is a house.",
    "tool_call_id": "t1",
    "metadata": {
      "rollmem.provider": {
        "format": "anthropic",
        "items": [
          {
            "role": "user",
            "content": [
              {
                "type": "tool_result",
                "tool_use_id": "t1",
                "content": "A is a house."
              },
              {
                "type": "tool_result",
                "tool_use_id": "t2",
                "content": [
                  {
                    "type": "text",
                    "text": "B"
                  },
                  {
                    "type": "image",
                    "source": {
                      "type": "url",
                      "url": "https://x/b.png"
                    }
                  }
                ],
                "is_error": true
              },
              {
                "type": "text",
                "text": "And now?"
              }
            ]
          }
        ],
        "messages": 3,
        "tokens": 1000
      }
    }
  },
  {
    "role": "tool",
    "content": "B",
    "tool_call_id": "t2"
  },
  {
    "role": "user",
    "content": "And now?"
  },
  {
    "role": "assistant",
    "content": "A house."
  }
]

describe("Anthropic on Effect 4", () => {
  it("every block kind: the Effect 3 line's messages and kept metadata, the identity through a memory", () => {
    const messages = Adapters.fromAnthropic(anthropic)
    assert.strictEqual(JSON.stringify(messages), JSON.stringify(EFFECT3_MESSAGES))
    assert.deepStrictEqual(roundTrip(anthropic), json(anthropic))
  })

  it.effect("the Effect API: decode and encode", () =>
    Effect.gen(function*() {
      const messages = yield* Adapters.Anthropic.decode({
        system: "Be brief.",
        messages: [{ role: "user", content: "hi" }]
      })
      assert.deepStrictEqual(messages.map(String), ["system: Be brief.", "user: hi"])
      assert.deepStrictEqual(yield* Adapters.Anthropic.encode(messages), {
        system: "Be brief.",
        messages: [{ role: "user", content: "hi" }]
      })
    }))

  it("one system block stays a block; merged turns split back", () => {
    const single = { system: [{ type: "text", text: "Only." }], messages: [{ role: "user", content: "hi" }] }
    assert.deepStrictEqual(json(Adapters.fromAnthropic(single)), [
      {
        role: "system",
        content: "Only.",
        metadata: {
          "rollmem.provider": { format: "anthropic.system", items: [{ type: "text", text: "Only." }], messages: 1 }
        }
      },
      { role: "user", content: "hi" }
    ])
    assert.deepStrictEqual(roundTrip(single), single)
    const request = Adapters.toAnthropic([
      Message.system("Be brief."),
      Message.user("Weather in Paris and Rome?"),
      Message.assistant("", {
        toolCalls: [
          { id: "a", name: "weather", arguments: "{\"city\":\"Paris\"}" },
          { id: "b", name: "weather", arguments: "{\"city\":\"Rome\"}" }
        ]
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
    assert.deepStrictEqual(Adapters.fromAnthropic(request).map(String), [
      "system: Be brief.",
      "user: Weather in Paris and Rome?",
      "assistant:  [tool calls: weather({\"city\":\"Paris\"}), weather({\"city\":\"Rome\"})]",
      "tool: 18C",
      "tool: 25C",
      "user: Thanks"
    ])
  })

  it("prompt-cache breakpoints and unique call ids, as the Effect 3 line writes them", () => {
    assert.deepStrictEqual(
      json(Adapters.toAnthropic(
        [Message.system("Policy."), Message.system("Summary."), Message.user("Hi"), Message.assistant("Hello")],
        { cacheControl: { pinned: 1, ttl: "1h" } }
      )),
      {
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
      }
    )
    const call = { toolCalls: [{ id: "a", name: "f", arguments: "{}" }] }
    assert.strictEqual(
      JSON.stringify(Adapters.toAnthropic([
        Message.system("P."),
        Message.system("S."),
        Message.user("Hi"),
        Message.assistant("", call),
        Message.tool("1", { toolCallId: "a" }),
        Message.user("again"),
        Message.assistant("", call),
        Message.tool("2", { toolCallId: "a" })
      ], { cacheControl: { pinned: 1, summary: true } })),
      JSON.stringify({
        system: [
          { type: "text", text: "P.", cache_control: { type: "ephemeral" } },
          { type: "text", text: "S.", cache_control: { type: "ephemeral" } }
        ],
        messages: [
          { role: "user", content: "Hi" },
          { role: "assistant", content: [{ type: "tool_use", id: "a", name: "f", input: {} }] },
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: "a", content: "1" }, { type: "text", text: "again" }]
          },
          { role: "assistant", content: [{ type: "tool_use", id: "a_2", name: "f", input: {} }] },
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: "a_2", content: "2", cache_control: { type: "ephemeral" } }]
          }
        ]
      })
    )
    assert.strictEqual(
      refusal(() =>
        Adapters.toAnthropic([Message.system("P."), Message.system("S."), Message.user("Hi")], {
          cacheControl: { pinned: 3 }
        })
      ),
      "cacheControl.pinned: 3 is not a count of the 2 leading system messages"
    )
  })

  it("a field added since and an unknown block type: kept, written back; strict refuses them", () => {
    const request = {
      messages: [
        { role: "user", content: "Where?" },
        { role: "assistant", content: [{ type: "text", text: "Rome.", citations: null }] }
      ]
    }
    assert.deepStrictEqual(Adapters.fromAnthropic(request).map(String), ["user: Where?", "assistant: Rome."])
    assert.deepStrictEqual(roundTrip(request), request)
    assert.strictEqual(
      refusal(() => Adapters.fromAnthropic(request, { strict: true })),
      "messages[1].content[0].citations: Expected no excess property, actual null"
    )
    const x = withFuture(json(anthropic), true)
    assert.deepStrictEqual(roundTrip(x, { check: false }), x)
    assert.strictEqual(
      refusal(() => Adapters.fromAnthropic(x, { strict: true })),
      "system[0].x_future: Expected no excess property, actual {\"since\":\"2027-01\"}"
    )
    const video = { system: "S", messages: [{ role: "user", content: [{ type: "video", url: "x" }] }] }
    assert.deepStrictEqual(roundTrip(video), video)
    assert.strictEqual(
      refusal(() => Adapters.fromAnthropic(video, { strict: true })),
      "messages[0].content[0]: Expected a part of type \"text\" | \"image\" | \"document\" | \"thinking\" | " +
        "\"redacted_thinking\" | \"tool_use\" | \"tool_result\", actual {\"type\":\"video\",\"url\":\"x\"}"
    )
  })

  it("refuses what it cannot place, naming the path", () => {
    assert.strictEqual(
      refusal(() => Adapters.fromAnthropic({ messages: [{ role: "user", content: [{ type: "text", text: 5 }] }] })),
      "messages[0].content[0].text: Expected string, actual 5; " +
        "messages[0].content[0].type: \"text\" is a known type: its fields are as above"
    )
    assert.strictEqual(
      refusal(() => Adapters.fromAnthropic({ messages: [], model: "claude" })),
      "model: Expected no excess property, actual \"claude\""
    )
    assert.strictEqual(
      refusal(() => Adapters.fromAnthropic({ messages: [{ role: "critic", content: "x" }] })),
      "messages[0].role: Expected \"user\" | \"assistant\", actual \"critic\""
    )
    assert.strictEqual(
      refusal(() => Adapters.fromAnthropic({ system: [{ type: "text", text: 5 }], messages: [] })),
      "system[0].text: Expected string, actual 5"
    )
  })

  it("refuses a context opening on an assistant turn, a system message mid-way, arguments that are no object", () => {
    let first: unknown
    try {
      Adapters.toAnthropic([Message.system("s"), Message.assistant("hi")])
    } catch (error) {
      first = error
    }
    assert.deepStrictEqual((first as AdapterError).violations?.map((v) => v._tag), ["FirstTurnNotUser"])
    let mid: unknown
    try {
      Adapters.toAnthropic([Message.user("a"), Message.system("b")])
    } catch (error) {
      mid = error
    }
    assert.deepStrictEqual([(mid as AdapterError).description, (mid as AdapterError).violations], [
      "the provider would refuse this context: message 1: a system message after the first turn",
      [new Validity.SystemAfterFirstTurn({ index: 1, role: "system" })]
    ])
    assert.strictEqual(
      refusal(() => Adapters.toAnthropic([Message.user("a"), Message.system("b")], { check: false })),
      "message 1 (role \"system\"): Anthropic takes system text only in `system`, before the first turn"
    )
    assert.strictEqual(
      refusal(() =>
        Adapters.toAnthropic([
          Message.user("hi"),
          Message.assistant("", { toolCalls: [{ id: "a", name: "f", arguments: "not json" }] }),
          Message.tool("1", { toolCallId: "a" })
        ])
      ),
      "message 1 (role \"assistant\"): the arguments of tool call \"a\" are not a JSON object"
    )
  })
})
