/**
 * Gemini `contents` on the Effect 4 line (docs/contract.md section 15): the
 * conversions of `src/core/formats/gemini.ts`, read with this line's Schema,
 * give the Effect 3 line's messages and kept metadata (the values of
 * test/adapters/parts.test.ts, sdk.test.ts, callIds.test.ts, arrange.test.ts
 * on that line): made-up ids for calls without one, a boundary between
 * merged contents kept, a key added since kept and written back, and what
 * cannot be placed refused with a typed `AdapterError`.
 */
import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Adapters from "../../src/adapters.js"
import * as Message from "../../src/schema/Message.js"
import { describeFormat, json } from "./formatCases.js"

const IMAGE = { mimeType: "image/png", data: "iVBORw0KGgo=" }

describeFormat("Gemini on Effect 4", {
  format: "gemini",
  from: Adapters.fromGemini,
  to: Adapters.toGemini,
  request: true,
  cases: [
    {
      name: "every part kind, calls without ids",
      input: {
        systemInstruction: { parts: [{ text: "You are terse." }] },
        contents: [
          {
            role: "user",
            parts: [{ text: "What is this?" }, { inlineData: IMAGE }, {
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
      },
      strings: [
        "system: You are terse.",
        "user: What is this?",
        "assistant:  [tool calls: lookup({\"q\":\"a\"}), lookup({\"q\":\"b\"})]",
        "tool: A",
        "tool: {\"hits\":2}",
        "assistant: Two things."
      ],
      wire: [
        { role: "system", content: "You are terse." },
        { role: "user", content: "What is this?" },
        {
          role: "assistant",
          content: "",
          tool_calls: [
            { id: "gemini:1:1", name: "lookup", arguments: "{\"q\":\"a\"}" },
            { id: "gemini:1:2", name: "lookup", arguments: "{\"q\":\"b\"}" }
          ]
        },
        { role: "tool", content: "A", tool_call_id: "gemini:1:1" },
        { role: "tool", content: "{\"hits\":2}", tool_call_id: "gemini:1:2" },
        { role: "assistant", content: "Two things." }
      ],
      // two media parts; a thought of 12 characters
      tokens: { 0: undefined, 1: 2000, 2: 3, 3: undefined, 5: undefined }
    },
    {
      name: "a candidate's content with every part field, a content without role",
      input: {
        contents: [
          { role: "user", parts: [{ text: "Capital?" }] },
          {
            role: "model",
            parts: [
              { text: "Thinking.", thought: true, thoughtSignature: "sig" },
              { text: "Rome.", partMetadata: { a: 1 } },
              { executableCode: { code: "print(1)", language: "PYTHON" } },
              { codeExecutionResult: { outcome: "OUTCOME_OK", output: "1" } },
              { functionCall: { id: "f1", name: "weather", args: { city: "Rome" } }, thoughtSignature: "sig2" }
            ]
          },
          {
            role: "user",
            parts: [{ functionResponse: { id: "f1", name: "weather", response: { output: "18C" } } }, {
              text: "And Paris?"
            }]
          },
          {
            parts: [{ text: "no role" }, {
              videoMetadata: { startOffset: "1s", endOffset: "2s", fps: 2 },
              fileData: { fileUri: "gs://v.mp4", mimeType: "video/mp4" }
            }]
          },
          { role: "model", parts: [{ text: "a" }, { text: "b" }] }
        ]
      },
      strings: [
        "user: Capital?",
        "assistant: Rome. [tool calls: weather({\"city\":\"Rome\"})]",
        "tool: 18C",
        "user: And Paris?",
        "user: no role",
        "assistant: a\nb"
      ],
      tokens: { 1: 3, 4: 1000, 5: undefined }
    },
    {
      name: "system parts only",
      input: { systemInstruction: { parts: [{ text: "A" }, { text: "B" }] }, contents: [] },
      strings: ["system: A", "system: B"]
    },
    {
      name: "a response answering no call",
      input: { contents: [{ role: "user", parts: [{ functionResponse: { name: "f", response: { a: 1 } } }] }] },
      strings: ["tool: {\"a\":1}"],
      check: false,
      wire: [{ role: "tool", content: "{\"a\":1}", tool_call_id: "gemini:0:0" }]
    }
  ],
  writes: [
    {
      name: "the leading system and developer messages as systemInstruction, one role's turns merged, results parsed",
      messages: [
        Message.system("Be brief."),
        Message.make("developer", "No emoji."),
        Message.user("summary"),
        Message.user("hi"),
        Message.assistant("Checking.", {
          toolCalls: [
            { id: "c1", name: "weather", arguments: "{\"city\":\"Rome\"}" },
            { id: "c2", name: "clock", arguments: "" }
          ]
        }),
        Message.make("tool", "{\"temp\":21}", { toolCallId: "c1" }),
        Message.make("tool", "12:00", { toolCallId: "c2" }),
        Message.make("tool", "{\"output\":\"x\"}", { toolCallId: "c1" }),
        Message.assistant("")
      ],
      options: { check: false },
      output: {
        systemInstruction: { parts: [{ text: "Be brief." }, { text: "No emoji." }] },
        contents: [
          { role: "user", parts: [{ text: "summary" }, { text: "hi" }] },
          {
            role: "model",
            parts: [
              { text: "Checking." },
              { functionCall: { id: "c1", name: "weather", args: { city: "Rome" } } },
              { functionCall: { id: "c2", name: "clock", args: {} } }
            ]
          },
          {
            role: "user",
            parts: [
              { functionResponse: { id: "c1", name: "weather", response: { temp: 21 } } },
              { functionResponse: { id: "c2", name: "clock", response: { output: "12:00" } } },
              { functionResponse: { id: "c1", name: "weather", response: { output: "{\"output\":\"x\"}" } } }
            ]
          },
          { role: "model", parts: [{ text: "" }] }
        ]
      }
    },
    {
      name: "empty text parts dropped where turns merge",
      messages: [
        Message.user(""),
        Message.user("hi"),
        Message.assistant("", { toolCalls: [{ id: "c1", name: "f", arguments: "{}" }] }),
        Message.make("tool", "ok", { toolCallId: "c1" }),
        Message.user("")
      ],
      output: {
        contents: [
          { role: "user", parts: [{ text: "hi" }] },
          { role: "model", parts: [{ functionCall: { id: "c1", name: "f", args: {} } }] },
          { role: "user", parts: [{ functionResponse: { id: "c1", name: "f", response: { output: "ok" } } }] }
        ]
      }
    },
    {
      name: "a late system message moved into systemInstruction with arrange",
      messages: [Message.user("hi"), Message.system("late rule"), Message.assistant("ok")],
      options: { arrange: true },
      output: {
        systemInstruction: { parts: [{ text: "late rule" }] },
        contents: [{ role: "user", parts: [{ text: "hi" }] }, { role: "model", parts: [{ text: "ok" }] }]
      }
    },
    {
      name: "a call id used twice: c1, then c1_2",
      messages: [
        Message.user("a"),
        Message.assistant("", { toolCalls: [{ id: "c1", name: "f", arguments: "{}" }] }),
        Message.make("tool", "1", { toolCallId: "c1" }),
        Message.assistant("", { toolCalls: [{ id: "c1", name: "f", arguments: "{}" }] }),
        Message.make("tool", "2", { toolCallId: "c1" })
      ],
      output: {
        contents: [
          { role: "user", parts: [{ text: "a" }] },
          { role: "model", parts: [{ functionCall: { id: "c1", name: "f", args: {} } }] },
          { role: "user", parts: [{ functionResponse: { id: "c1", name: "f", response: { output: "1" } } }] },
          { role: "model", parts: [{ functionCall: { id: "c1_2", name: "f", args: {} } }] },
          { role: "user", parts: [{ functionResponse: { id: "c1_2", name: "f", response: { output: "2" } } }] }
        ]
      }
    }
  ],
  refusals: [
    {
      name: "an unknown role",
      run: () => Adapters.fromGemini({ contents: [{ role: "tool", parts: [] }] }),
      description: "contents[0].role: Expected \"user\" | \"model\", actual \"tool\""
    },
    {
      name: "a known field of the wrong type",
      run: () => Adapters.fromGemini({ contents: [{ role: "user", parts: [{ text: 5 }] }] }),
      description: "contents[0].parts[0].text: Expected string, actual 5"
    },
    {
      name: "a system part of the wrong type",
      run: () => Adapters.fromGemini({ systemInstruction: { parts: [{ text: 1 }] }, contents: [] }),
      description: "systemInstruction.parts[0].text: Expected string, actual 1"
    },
    {
      name: "a request key other than systemInstruction and contents",
      run: () => Adapters.fromGemini({ contents: [], model: "gemini" }),
      description: "model: Expected no excess property, actual \"gemini\""
    },
    {
      name: "a key of systemInstruction other than parts",
      run: () => Adapters.fromGemini({ systemInstruction: { role: "system", parts: [] }, contents: [] }),
      description: "systemInstruction.role: Expected no excess property, actual \"system\""
    },
    {
      name: "contents as a list (not a request)",
      run: () => Adapters.fromGemini([{ role: "user", parts: [] }]),
      description: "Expected object, actual [{\"role\":\"user\",\"parts\":[]}]"
    },
    {
      name: "a content without parts",
      run: () => Adapters.fromGemini({ contents: [{ role: "user" }] }),
      description: "contents[0].parts: Missing key"
    },
    {
      name: "args that are not an object",
      run: () =>
        Adapters.fromGemini({ contents: [{ role: "model", parts: [{ functionCall: { name: "f", args: [1] } }] }] }),
      description: "contents[0].parts[0].functionCall.args: Expected object, actual [1]"
    },
    {
      name: "a key it does not model, with strict",
      run: () => Adapters.fromGemini({ contents: [{ role: "user", parts: [{ text: "hi", x: 1 }] }] }, { strict: true }),
      description: "contents[0].parts[0].x: Expected no excess property, actual 1"
    },
    {
      name: "a system message after the first turn (the check)",
      run: () => Adapters.toGemini([Message.user("hi"), Message.system("late rule"), Message.assistant("ok")]),
      description: "the provider would refuse this context: message 1: a system message after the first turn"
    },
    {
      name: "a system message after the first turn, unchecked",
      run: () =>
        Adapters.toGemini([Message.user("hi"), Message.system("late rule"), Message.assistant("ok")], { check: false }),
      description:
        "message 1 (role \"system\"): Gemini takes system text only in `systemInstruction`, before the first turn"
    },
    {
      name: "an assistant turn first",
      run: () => Adapters.toGemini([Message.assistant("hello"), Message.user("hi")]),
      description:
        "the provider would refuse this context: message 0: the first turn is an assistant message, not a user turn" +
        " (a memory with boundary: \"turn\" opens on a user turn when it holds one, with summaryRole: \"user\" when" +
        " it holds none: docs/guides/context-policies.md)"
    },
    {
      name: "a role Gemini has no place for",
      run: () => Adapters.toGemini([Message.user("hi"), Message.make("critic", "ok")], { check: false }),
      description: "message 1 (role \"critic\"): Gemini has no such role (user, assistant as model; system first)"
    },
    {
      name: "tool call arguments that are no JSON object",
      run: () =>
        Adapters.toGemini([
          Message.user("hi"),
          Message.assistant("", { toolCalls: [{ id: "c1", name: "f", arguments: "[1]" }] }),
          Message.make("tool", "x", { toolCallId: "c1" })
        ]),
      description: "message 1 (role \"assistant\"): the arguments of tool call \"c1\" are not a JSON object"
    },
    {
      name: "what is not rollmem messages",
      run: () => Adapters.toGemini([{ role: "user", content: "hi" }] as never),
      description: "[0] is not a rollmem message: make messages with Message.make (or read a provider's with its " +
        "from…, wire-format JSON with MemoryState.fromJSON)"
    }
  ]
})

it.effect("Gemini.decode and Gemini.encode: the same conversions as effects, failing with AdapterError", () =>
  Effect.gen(function*() {
    const request = { contents: [{ role: "user", parts: [{ text: "hi" }] }] }
    const messages = yield* Adapters.Gemini.decode(request)
    assert.deepStrictEqual(messages.map(String), ["user: hi"])
    assert.deepStrictEqual(json(yield* Adapters.Gemini.encode(messages)), request)
    const refused = yield* Effect.flip(Adapters.Gemini.decode({ contents: [{ role: "tool", parts: [] }] }))
    assert.instanceOf(refused, Adapters.AdapterError)
    assert.strictEqual(refused.format, "gemini")
    assert.strictEqual(refused.description, "contents[0].role: Expected \"user\" | \"model\", actual \"tool\"")
    const error = yield* Effect.flip(Adapters.Gemini.encode([Message.assistant("hello")]))
    assert.instanceOf(error, Adapters.AdapterError)
    assert.strictEqual(error.format, "gemini")
    assert.deepStrictEqual(error.violations?.map((v) => v._tag), ["FirstTurnNotUser"])
  }))
