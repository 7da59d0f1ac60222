/**
 * OpenAI Responses on the Effect 4 line (docs/contract.md section 15): the
 * conversions of `src/core/formats/openAiResponses.ts`, read with this
 * line's Schema, give the Effect 3 line's messages and kept metadata
 * (test/adapters/parts.test.ts, forward.test.ts): reasoning and an item of
 * another type kept with the item after them, parallel calls one message,
 * `{ strict: true }` refusing what is not modelled.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
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

/** `fromOpenAIResponses → memory → JSON → memory → toOpenAIResponses`. */
const roundTrip = (x: unknown, options?: { readonly check?: boolean }) =>
  json(Adapters.toOpenAIResponses(throughMemory(Adapters.fromOpenAIResponses(json(x))), options))

/** The description of the `AdapterError` a call throws. */
const refusal = (f: () => unknown): string => {
  try {
    f()
  } catch (error) {
    assert.instanceOf(error, AdapterError)
    assert.strictEqual(error.format, "openai-responses")
    return error.description
  }
  return "(no error)"
}

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

const responses = [
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

/** What the Effect 3 line reads of `responses` (its messages' JSON, metadata kept). */
const EFFECT3_MESSAGES = [
  {
    "role": "system",
    "content": "You are terse."
  },
  {
    "role": "user",
    "content": "Read this.",
    "metadata": {
      "rollmem.provider": {
        "format": "openai-responses",
        "items": [
          {
            "type": "message",
            "role": "user",
            "content": [
              {
                "type": "input_text",
                "text": "Read this."
              },
              {
                "type": "input_image",
                "detail": "auto",
                "image_url": "data:image/png;base64,iVBORw0KGgo="
              },
              {
                "type": "input_file",
                "file_id": "file-1"
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
    "role": "assistant",
    "content": "",
    "tool_calls": [
      {
        "id": "call_1",
        "name": "read",
        "arguments": "{}"
      }
    ],
    "metadata": {
      "rollmem.provider": {
        "format": "openai-responses",
        "items": [
          {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [
              {
                "type": "summary_text",
                "text": "Need the file."
              }
            ],
            "encrypted_content": "gAAAA"
          },
          {
            "type": "function_call",
            "call_id": "call_1",
            "name": "read",
            "arguments": "{}",
            "id": "fc_1",
            "status": "completed"
          }
        ],
        "messages": 1,
        "tokens": 4
      }
    }
  },
  {
    "role": "tool",
    "content": "contents",
    "tool_call_id": "call_1"
  },
  {
    "role": "assistant",
    "content": "",
    "tool_calls": [
      {
        "id": "call_2",
        "name": "shell",
        "arguments": "ls"
      }
    ],
    "metadata": {
      "rollmem.provider": {
        "format": "openai-responses",
        "items": [
          {
            "type": "custom_tool_call",
            "call_id": "call_2",
            "name": "shell",
            "input": "ls"
          }
        ],
        "messages": 1
      }
    }
  },
  {
    "role": "tool",
    "content": "a.txt",
    "tool_call_id": "call_2",
    "metadata": {
      "rollmem.provider": {
        "format": "openai-responses",
        "items": [
          {
            "type": "custom_tool_call_output",
            "call_id": "call_2",
            "output": [
              {
                "type": "input_text",
                "text": "a.txt"
              }
            ]
          }
        ],
        "messages": 1
      }
    }
  },
  {
    "role": "assistant",
    "content": "Done.",
    "metadata": {
      "rollmem.provider": {
        "format": "openai-responses",
        "items": [
          {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [
              {
                "type": "output_text",
                "text": "Done.",
                "annotations": [
                  {
                    "type": "url_citation",
                    "end_index": 4,
                    "start_index": 0,
                    "title": "t",
                    "url": "https://x"
                  }
                ]
              },
              {
                "type": "refusal",
                "refusal": "nope"
              }
            ]
          }
        ],
        "messages": 1,
        "tokens": 1
      }
    }
  },
  {
    "role": "assistant",
    "content": "",
    "metadata": {
      "rollmem.provider": {
        "format": "openai-responses",
        "items": [
          {
            "type": "reasoning",
            "id": "rs_2",
            "summary": []
          }
        ],
        "messages": 1
      }
    }
  }
]

describe("OpenAI Responses on Effect 4", () => {
  it("every item and part kind: the Effect 3 line's messages and kept metadata, the identity through a memory", () => {
    const messages = Adapters.fromOpenAIResponses(responses)
    assert.strictEqual(JSON.stringify(messages), JSON.stringify(EFFECT3_MESSAGES))
    assert.deepStrictEqual(roundTrip(responses, { check: false }), json(responses))
  })

  it.effect("the Effect API: decode and encode", () =>
    Effect.gen(function*() {
      const messages = yield* Adapters.OpenAiResponses.decode([{ role: "user", content: "Weather in Rome?" }])
      assert.deepStrictEqual(json(messages), [{ role: "user", content: "Weather in Rome?" }])
      assert.deepStrictEqual(yield* Adapters.OpenAiResponses.encode(messages), [
        { role: "user", content: "Weather in Rome?" }
      ])
    }))

  it("an item of another type goes with the item after it, written back; strict refuses it", () => {
    const items = [
      { role: "user", content: "Search it." },
      { type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search", query: "x" } },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Found.", annotations: [] }] }
    ]
    assert.strictEqual(
      JSON.stringify(Adapters.fromOpenAIResponses(items)),
      JSON.stringify([{ role: "user", content: "Search it." }, {
        role: "assistant",
        content: "Found.",
        metadata: { "rollmem.provider": { format: "openai-responses", items: items.slice(1), messages: 1 } }
      }])
    )
    assert.deepStrictEqual(roundTrip(items), items)
    assert.strictEqual(
      refusal(() => Adapters.fromOpenAIResponses(items, { strict: true })),
      "[1].id: Expected no excess property, actual \"ws_1\""
    )
    const x = withFuture(json(responses))
    assert.deepStrictEqual(roundTrip(x, { check: false }), x)
    assert.strictEqual(
      refusal(() => Adapters.fromOpenAIResponses(x, { strict: true })),
      "[0].x_future: Expected no excess property, actual {\"since\":\"2027-01\"}"
    )
  })

  it("parallel calls are one message; a repeated call id is written unique", () => {
    const call = (id: string, name: string) => ({ id, name, arguments: "{}" })
    assert.deepStrictEqual(
      json(Adapters.toOpenAIResponses([
        Message.user("hi"),
        Message.assistant("", { toolCalls: [call("a", "f"), call("b", "g")] }),
        Message.tool("1", { toolCallId: "a" }),
        Message.tool("2", { toolCallId: "b" }),
        Message.user("x"),
        Message.assistant("ok", { toolCalls: [call("a", "f")] }),
        Message.tool("3", { toolCallId: "a" })
      ])),
      [
        { role: "user", content: "hi" },
        { type: "function_call", call_id: "a", name: "f", arguments: "{}" },
        { type: "function_call", call_id: "b", name: "g", arguments: "{}" },
        { type: "function_call_output", call_id: "a", output: "1" },
        { type: "function_call_output", call_id: "b", output: "2" },
        { role: "user", content: "x" },
        { role: "assistant", content: "ok" },
        { type: "function_call", call_id: "a_2", name: "f", arguments: "{}" },
        { type: "function_call_output", call_id: "a_2", output: "3" }
      ]
    )
  })

  it("refuses what it cannot place, naming it", () => {
    assert.strictEqual(
      refusal(() => Adapters.fromOpenAIResponses([{ type: "message", role: "critic", content: "x" }])),
      "[0].role: Expected \"user\" | \"assistant\" | \"system\" | \"developer\", actual \"critic\"; " +
        "[0].role: Expected \"user\" | \"system\" | \"developer\", actual \"critic\"; " +
        "[0].type: \"message\" is a known type: its fields are as above"
    )
    assert.strictEqual(
      refusal(() => Adapters.fromOpenAIResponses([{ role: "critic", content: "x" }])),
      "[0].role: Expected \"user\" | \"assistant\" | \"system\" | \"developer\", actual \"critic\"; " +
        "[0].role: Expected \"user\" | \"system\" | \"developer\", actual \"critic\"; [0].type: Missing key"
    )
    assert.strictEqual(
      refusal(() => Adapters.toOpenAIResponses([Message.make("critic", "meh")])),
      "message 0 (role \"critic\"): OpenAI Responses has no such role (system, developer, user, assistant)"
    )
  })
})
