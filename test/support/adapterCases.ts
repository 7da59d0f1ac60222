/**
 * Behaviour-defining cases of the provider formats, as plain data: what each
 * line's `from…` reads (the messages, exact fields, and the metadata kept),
 * what its `to…` writes, and what both refuse. Both lines run the same
 * table (test/adapters/sharedCases.test.ts on the Effect 3 line,
 * effect4/test/adapters/sharedCases.test.ts on the Effect 4 line), so a
 * format the Effect 4 line ports is held to the Effect 3 line's values.
 */

/** A message as a case gives it: `Message.make`'s arguments. */
export interface CaseMessage {
  readonly role: string
  readonly content: string
  readonly options?: {
    readonly id?: string
    readonly toolCalls?: ReadonlyArray<{ readonly id: string; readonly name: string; readonly arguments: string }>
    readonly toolCallId?: string
  }
}

/** What a `from…` reads from `input`. */
export interface ReadCase {
  readonly name: string
  readonly input: unknown
  /** The messages' wire form without metadata (`role`, `content`, `id`, `tool_calls`, `tool_call_id`). */
  readonly messages: ReadonlyArray<unknown>
  /** Per message, the kept metadata's `messages` and `tokens` (`undefined`: none kept). */
  readonly kept?: ReadonlyArray<{ readonly messages: number; readonly tokens?: number } | undefined>
  /** What `to…` writes after a memory's JSON round trip (default: `input` as JSON, the identity). */
  readonly back?: unknown
}

/** What a `to…` writes for `messages`. */
export interface WriteCase {
  readonly name: string
  readonly messages: ReadonlyArray<CaseMessage>
  readonly options?: {
    readonly check?: boolean
    readonly provider?: "anthropic" | "strict-template"
    readonly arrange?: boolean
  }
  /** The items written (as JSON). */
  readonly output?: unknown
  /** Or the start of the `AdapterError`'s description. */
  readonly refused?: string
}

/** What a `from…` refuses: the text its `AdapterError`'s description holds (Effect 3 line, Effect 4 line). */
export interface RefusalCase {
  readonly name: string
  readonly input: unknown
  readonly strict?: boolean
  readonly effect3: string
  readonly effect4: string
}

/** One format's cases. */
export interface FormatCases {
  readonly format: string
  readonly reads: ReadonlyArray<ReadCase>
  readonly writes: ReadonlyArray<WriteCase>
  readonly refusals: ReadonlyArray<RefusalCase>
  /** Inputs whose every object may gain a key (`x_future`): read, kept, written back; refused with `strict`. */
  readonly forward: ReadonlyArray<unknown>
}

const IMAGE = "data:image/png;base64,iVBORw0KGgo="

const aiSdkParts = [
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

const providerOptions = { openai: { itemId: "x" } }

const aiSdkResponse = [
  { role: "user", content: [{ type: "text", text: "Capital?", providerOptions }], providerOptions },
  {
    role: "assistant",
    providerOptions,
    content: [
      { type: "reasoning", text: "Look it up.", providerOptions },
      { type: "text", text: "Rome.", providerOptions },
      { type: "file", data: "aGk=", mediaType: "text/plain", filename: "a.txt", providerOptions },
      {
        type: "tool-call",
        toolCallId: "call_1",
        toolName: "weather",
        input: { city: "Rome" },
        providerExecuted: false,
        providerOptions
      },
      { type: "tool-approval-request", approvalId: "ap_1", toolCallId: "call_1" }
    ]
  },
  {
    role: "tool",
    providerOptions,
    content: [
      { type: "tool-approval-response", approvalId: "ap_1", approved: true, reason: "ok", providerExecuted: false },
      {
        type: "tool-result",
        toolCallId: "call_1",
        toolName: "weather",
        output: { type: "text", value: "18C", providerOptions },
        providerOptions
      }
    ]
  }
]

const weatherCall = { id: "c1", name: "weather", arguments: "{\"city\":\"Rome\"}" }

/** The AI SDK's `ModelMessage` (`fromAiSdk`, `toAiSdk`, `AiSdk`). */
export const aiSdk: FormatCases = {
  format: "ai-sdk",
  reads: [
    {
      name: "every part kind: text joined, calls, one tool message per result, the rest kept",
      input: aiSdkParts,
      messages: [
        { role: "system", content: "You are terse." },
        { role: "user", content: "Look." },
        {
          role: "assistant",
          content: "Let me check.",
          tool_calls: [
            { id: "t1", name: "lookup", arguments: "{\"q\":\"a\"}" },
            { id: "t2", name: "lookup", arguments: "{\"q\":\"b\"}" }
          ]
        },
        { role: "tool", content: "{\"hit\":1}", tool_call_id: "t1" },
        { role: "tool", content: "timeout", tool_call_id: "t2" },
        { role: "assistant", content: "Found one." }
      ],
      kept: [
        { messages: 1 },
        { messages: 1, tokens: 2000 },
        { messages: 1, tokens: 3 },
        { messages: 2 },
        undefined,
        undefined
      ]
    },
    {
      name: "a result's response messages: provider options, a file, an approval",
      input: aiSdkResponse,
      messages: [
        { role: "user", content: "Capital?" },
        {
          role: "assistant",
          content: "Rome.",
          tool_calls: [{ id: "call_1", name: "weather", arguments: "{\"city\":\"Rome\"}" }]
        },
        { role: "tool", content: "18C", tool_call_id: "call_1" }
      ],
      kept: [{ messages: 1 }, { messages: 1, tokens: 1003 }, { messages: 1 }]
    },
    {
      name: "plain messages keep nothing; a content output's text joined, a denial's reason",
      input: [
        { role: "user", content: "Weather in Rome?" },
        {
          role: "assistant",
          content: [{ type: "tool-call", toolCallId: "c1", toolName: "weather", input: { city: "Rome" } }]
        },
        {
          role: "tool",
          content: [{
            type: "tool-result",
            toolCallId: "c1",
            toolName: "weather",
            output: { type: "text", value: "18C" }
          }]
        },
        { role: "assistant", content: "18C and sunny." },
        {
          role: "assistant",
          content: [
            { type: "tool-call", toolCallId: "c2", toolName: "a", input: {} },
            { type: "tool-call", toolCallId: "c3", toolName: "b", input: "raw" }
          ]
        },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: "c2",
              toolName: "a",
              output: { type: "content", value: [{ type: "text", text: "one" }, { type: "text", text: "two" }] }
            },
            { type: "tool-result", toolCallId: "c3", toolName: "b", output: { type: "execution-denied", reason: "no" } }
          ]
        }
      ],
      messages: [
        { role: "user", content: "Weather in Rome?" },
        {
          role: "assistant",
          content: "",
          tool_calls: [{ id: "c1", name: "weather", arguments: "{\"city\":\"Rome\"}" }]
        },
        { role: "tool", content: "18C", tool_call_id: "c1" },
        { role: "assistant", content: "18C and sunny." },
        {
          role: "assistant",
          content: "",
          tool_calls: [{ id: "c2", name: "a", arguments: "{}" }, { id: "c3", name: "b", arguments: "\"raw\"" }]
        },
        { role: "tool", content: "one\ntwo", tool_call_id: "c2" },
        { role: "tool", content: "no", tool_call_id: "c3" }
      ],
      kept: [undefined, undefined, undefined, undefined, undefined, { messages: 2 }, undefined]
    },
    {
      name: "two tool messages in a row: the second kept (writing would merge them)",
      input: [
        {
          role: "assistant",
          content: [{ type: "tool-call", toolCallId: "c1", toolName: "a", input: {} }, {
            type: "tool-call",
            toolCallId: "c2",
            toolName: "a",
            input: {}
          }]
        },
        {
          role: "tool",
          content: [{ type: "tool-result", toolCallId: "c1", toolName: "a", output: { type: "text", value: "one" } }]
        },
        {
          role: "tool",
          content: [{ type: "tool-result", toolCallId: "c2", toolName: "a", output: { type: "text", value: "two" } }]
        }
      ],
      messages: [
        {
          role: "assistant",
          content: "",
          tool_calls: [{ id: "c1", name: "a", arguments: "{}" }, { id: "c2", name: "a", arguments: "{}" }]
        },
        { role: "tool", content: "one", tool_call_id: "c1" },
        { role: "tool", content: "two", tool_call_id: "c2" }
      ],
      kept: [undefined, undefined, { messages: 1 }]
    }
  ],
  writes: [
    {
      name:
        "calls as parts (input parsed, {} for \"\", the raw string when not JSON), results merged, json or text output",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Weather?" },
        {
          role: "assistant",
          content: "Checking.",
          options: {
            toolCalls: [weatherCall, { id: "c2", name: "clock", arguments: "" }, {
              id: "c3",
              name: "sh",
              arguments: "ls -l"
            }]
          }
        },
        { role: "tool", content: "{\"temp\":18}", options: { toolCallId: "c1" } },
        { role: "tool", content: "\"noon\"", options: { toolCallId: "c2" } },
        { role: "tool", content: "a.txt", options: { toolCallId: "c3" } },
        { role: "assistant", content: "18C." }
      ],
      output: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Weather?" },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Checking." },
            { type: "tool-call", toolCallId: "c1", toolName: "weather", input: { city: "Rome" } },
            { type: "tool-call", toolCallId: "c2", toolName: "clock", input: {} },
            { type: "tool-call", toolCallId: "c3", toolName: "sh", input: "ls -l" }
          ]
        },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: "c1",
              toolName: "weather",
              output: { type: "json", value: { temp: 18 } }
            },
            { type: "tool-result", toolCallId: "c2", toolName: "clock", output: { type: "text", value: "\"noon\"" } },
            { type: "tool-result", toolCallId: "c3", toolName: "sh", output: { type: "text", value: "a.txt" } }
          ]
        },
        { role: "assistant", content: "18C." }
      ]
    },
    {
      name: "a call id used twice: the second written c1_2, its result too",
      messages: [
        { role: "user", content: "Twice?" },
        { role: "assistant", content: "", options: { toolCalls: [weatherCall] } },
        { role: "tool", content: "18C", options: { toolCallId: "c1" } },
        { role: "assistant", content: "", options: { toolCalls: [weatherCall] } },
        { role: "tool", content: "19C", options: { toolCallId: "c1" } }
      ],
      output: [
        { role: "user", content: "Twice?" },
        {
          role: "assistant",
          content: [{ type: "tool-call", toolCallId: "c1", toolName: "weather", input: { city: "Rome" } }]
        },
        {
          role: "tool",
          content: [{
            type: "tool-result",
            toolCallId: "c1",
            toolName: "weather",
            output: { type: "text", value: "18C" }
          }]
        },
        {
          role: "assistant",
          content: [{ type: "tool-call", toolCallId: "c1_2", toolName: "weather", input: { city: "Rome" } }]
        },
        {
          role: "tool",
          content: [{
            type: "tool-result",
            toolCallId: "c1_2",
            toolName: "weather",
            output: { type: "text", value: "19C" }
          }]
        }
      ]
    },
    {
      name: "arrange for a strict template: same-role turns merged",
      messages: [
        { role: "user", content: "one" },
        { role: "user", content: "two" },
        { role: "assistant", content: "ok" }
      ],
      options: { provider: "strict-template", arrange: true },
      output: [{ role: "user", content: "one\n\ntwo" }, { role: "assistant", content: "ok" }]
    },
    {
      name: "a role the AI SDK has no place for",
      messages: [{ role: "critic", content: "meh" }],
      refused: "message 0 (role \"critic\"): the AI SDK has no such role (system, user, assistant, tool)"
    },
    {
      name: "a call without its result",
      messages: [{ role: "user", content: "hi" }, {
        role: "assistant",
        content: "",
        options: { toolCalls: [weatherCall] }
      }],
      refused: "the provider would refuse this context: "
    },
    {
      name: "a call without its result, check: false",
      messages: [{ role: "user", content: "hi" }, {
        role: "assistant",
        content: "",
        options: { toolCalls: [weatherCall] }
      }],
      options: { check: false },
      output: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: [{ type: "tool-call", toolCallId: "c1", toolName: "weather", input: { city: "Rome" } }]
        }
      ]
    }
  ],
  refusals: [
    {
      name: "an unknown role",
      input: [{ role: "critic", content: "x" }],
      effect3: "[0].role",
      effect4: "[0].role: Expected \"system\" | \"user\" | \"assistant\" | \"tool\", actual \"critic\""
    },
    {
      name: "an image part's data that is no data",
      input: [{ role: "user", content: [{ type: "image", image: 5 }] }],
      effect3: "[0].content[0].image: expected a string, bytes or a URL",
      effect4: "[0].content[0].image"
    },
    {
      name: "a UIMessage names fromUIMessages",
      input: [{ id: "m1", role: "user", parts: [{ type: "text", text: "Hi" }] }],
      effect3: "[0] is an AI SDK UIMessage (`id`, `parts`): read it with fromUIMessages. ",
      effect4: "[0] is an AI SDK UIMessage (`id`, `parts`): read it with fromUIMessages. "
    },
    {
      name: "strict: a part type not modelled",
      input: [{ role: "user", content: [{ type: "audio", data: "x" }] }],
      strict: true,
      effect3: "[0].content[0]",
      effect4: "[0].content[0]"
    }
  ],
  forward: [aiSdkParts, aiSdkResponse]
}

/** Bytes and URLs in AI SDK image and file parts, read as strings (not JSON data, so not in the table above). */
export const aiSdkBinary = {
  input: () => [{
    role: "user",
    content: [
      { type: "image", image: new Uint8Array([1, 2, 3]) },
      { type: "file", data: new URL("https://x/a.pdf"), mediaType: "application/pdf" }
    ]
  }],
  back: [{
    role: "user",
    content: [{ type: "image", image: "AQID" }, { type: "file", data: "https://x/a.pdf", mediaType: "application/pdf" }]
  }]
}

/** A rollmem message as the driver needs it (either line's `Message`). */
export interface LineMessage {
  readonly toJSON: () => unknown
  readonly metadata: { readonly [key: string]: unknown }
}

/** How one line runs a format's cases: its plain `from…` / `to…` (throwing its `AdapterError`) and its messages. */
export interface Line<M extends LineMessage> {
  readonly name: "effect3" | "effect4"
  readonly from: (input: unknown, options?: { readonly strict?: boolean }) => ReadonlyArray<M>
  readonly to: (messages: ReadonlyArray<M>, options?: WriteCase["options"]) => unknown
  readonly make: (message: CaseMessage) => M
  /** The messages through a memory and its JSON state. */
  readonly throughMemory: (messages: ReadonlyArray<M>) => ReadonlyArray<M>
  /** The `AdapterError`'s format and description, or `undefined` when `error` is none. */
  readonly adapterError: (error: unknown) => { readonly format: string; readonly description: string } | undefined
}

/** The test functions the driver registers with (each line's own vitest). */
export interface Vitest {
  readonly describe: (name: string, body: () => void) => void
  readonly it: (name: string, body: () => void) => void
  readonly assert: {
    deepStrictEqual: (actual: unknown, expected: unknown, message?: string) => void
    strictEqual: (actual: unknown, expected: unknown, message?: string) => void
    include: (haystack: string, needle: string, message?: string) => void
    fail: (message?: string) => never
  }
}

/** As JSON data (what a request body holds). */
export const json = (u: unknown): unknown => JSON.parse(JSON.stringify(u))

/** `x` with `x_future: { since: "2027-01" }` added to every object. */
export const withFuture = (x: unknown): unknown => {
  if (Array.isArray(x)) return x.map(withFuture)
  if (typeof x !== "object" || x === null) return x
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(x)) out[k] = withFuture(v)
  out.x_future = { since: "2027-01" }
  return out
}

const METADATA_KEY = "rollmem.provider"

/** Registers a format's cases on a line. */
export const runCases = <M extends LineMessage>(
  cases: FormatCases,
  line: Line<M>,
  { assert, describe, it }: Vitest
) => {
  const refusal = (f: () => unknown): string => {
    try {
      f()
    } catch (error) {
      const found = line.adapterError(error)
      if (found === undefined) throw error
      assert.strictEqual(found.format, cases.format)
      return found.description
    }
    return assert.fail("no AdapterError")
  }
  const wire = (messages: ReadonlyArray<M>) =>
    json(messages.map((m) => {
      const { metadata: _, ...rest } = m.toJSON() as Record<string, unknown>
      return rest
    }))

  describe(`${cases.format} (${line.name})`, () => {
    for (const c of cases.reads) {
      it(`reads ${c.name}`, () => {
        const messages = line.from(json(c.input))
        assert.deepStrictEqual(wire(messages), c.messages)
        if (c.kept !== undefined) {
          const kept = messages.map((m) => {
            const marker = m.metadata[METADATA_KEY] as
              | { readonly format: string; readonly messages: number; readonly tokens?: number }
              | undefined
            if (marker === undefined) return undefined
            assert.strictEqual(marker.format, cases.format)
            return marker.tokens === undefined ?
              { messages: marker.messages } :
              { messages: marker.messages, tokens: marker.tokens }
          })
          assert.deepStrictEqual(kept, c.kept)
        }
        assert.deepStrictEqual(json(line.to(line.throughMemory(messages))), c.back ?? json(c.input))
      })
    }
    for (const c of cases.writes) {
      it(`writes ${c.name}`, () => {
        const messages = c.messages.map(line.make)
        if (c.refused !== undefined) {
          const description = refusal(() => line.to(messages, c.options))
          assert.strictEqual(description.slice(0, c.refused.length), c.refused)
        } else assert.deepStrictEqual(json(line.to(messages, c.options)), c.output)
      })
    }
    for (const c of cases.refusals) {
      it(`refuses ${c.name}`, () => {
        const description = refusal(() => line.from(json(c.input), c.strict === true ? { strict: true } : undefined))
        assert.include(description, line.name === "effect3" ? c.effect3 : c.effect4)
      })
    }
    it("reads a key added since in every object, keeps it, writes it back; strict refuses it", () => {
      for (const input of cases.forward) {
        const x = withFuture(json(input))
        assert.deepStrictEqual(json(line.to(line.throughMemory(line.from(x)), { check: false })), x)
        assert.include(refusal(() => line.from(x, { strict: true })), "x_future")
      }
    })
  })
}

/** A persisted `useChat` conversation: steps, reasoning, a tool call with its output, a data part, a file. */
const uiChat = [
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

/** A tool part in every state, static and dynamic. */
const uiStates = [
  { id: "u", role: "user", parts: [{ type: "text", text: "go" }] },
  {
    id: "a",
    role: "assistant",
    parts: [
      { type: "tool-t", toolCallId: "c0", state: "input-streaming", input: { q: "pa" }, rawInput: "{\"q\":\"pa" },
      { type: "tool-t", toolCallId: "c1", state: "input-available", input: { q: 1 } },
      { type: "tool-t", toolCallId: "c2", state: "approval-requested", input: { q: 2 }, approval: { id: "ap2" } },
      {
        type: "tool-t",
        toolCallId: "c3",
        state: "approval-responded",
        input: { q: 3 },
        approval: { id: "ap3", approved: true }
      },
      { type: "tool-t", toolCallId: "c4", state: "output-available", input: { q: 4 }, output: "four" },
      { type: "tool-t", toolCallId: "c5", state: "output-error", errorText: "bad input" },
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

const t = (id: string, q: number) => ({ id, name: "t", arguments: `{"q":${q}}` })

const uiTurn: ReadonlyArray<CaseMessage> = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "Weather in Rome and Paris?", options: { id: "u1" } },
  {
    role: "assistant",
    content: "Checking.",
    options: { toolCalls: [weatherCall, { id: "c2", name: "weather", arguments: "" }] }
  },
  { role: "tool", content: "{\"celsius\":21}", options: { toolCallId: "c1" } },
  { role: "tool", content: "\"rainy\"", options: { toolCallId: "c2" } },
  { role: "assistant", content: "Rome 21 °C; Paris rainy." },
  { role: "user", content: "Thanks" }
]

/** The AI SDK's `UIMessage` (`fromUIMessages`, `toUIMessages`, `UiMessages`; contract 15.3). */
export const uiMessages: FormatCases = {
  format: "ai-sdk-ui",
  reads: [
    {
      name: "each assistant step a message with its calls, then one tool message per result; the rest kept",
      input: uiChat,
      messages: [
        { role: "system", content: "Be brief.", id: "s1" },
        { role: "user", content: "Weather in Rome?", id: "u1" },
        {
          role: "assistant",
          content: "",
          id: "a1",
          tool_calls: [{ id: "call_1", name: "weather", arguments: "{\"city\":\"Rome\"}" }]
        },
        { role: "tool", content: "{\"celsius\":21}", tool_call_id: "call_1" },
        { role: "assistant", content: "21 °C and sunny." }
      ],
      kept: [undefined, { messages: 1, tokens: 1000 }, { messages: 3, tokens: 11 }, undefined, undefined]
    },
    {
      name: "a tool part in every state: streaming no call, awaiting a call, output, error and denial a result",
      input: uiStates,
      messages: [
        { role: "user", content: "go", id: "u" },
        {
          role: "assistant",
          content: "",
          id: "a",
          tool_calls: [
            t("c1", 1),
            t("c2", 2),
            t("c3", 3),
            t("c4", 4),
            { id: "c5", name: "t", arguments: "" },
            t("c6", 6),
            t("c7", 7),
            { id: "c8", name: "mcp_search", arguments: "{\"q\":8}" }
          ]
        },
        { role: "tool", content: "four", tool_call_id: "c4" },
        { role: "tool", content: "bad input", tool_call_id: "c5" },
        { role: "tool", content: "not allowed", tool_call_id: "c6" },
        { role: "tool", content: "Tool call execution denied.", tool_call_id: "c7" },
        { role: "tool", content: "[1,2]", tool_call_id: "c8" }
      ],
      kept: [undefined, { messages: 6 }, undefined, undefined, undefined, undefined, undefined]
    },
    {
      name: "a part of a type added since: kept, no text",
      input: [{ id: "u", role: "user", parts: [{ type: "x-future", a: 1 }] }],
      messages: [{ role: "user", content: "", id: "u" }],
      kept: [{ messages: 1 }]
    }
  ],
  writes: [
    {
      name: "one UIMessage per system and user message, one per assistant turn, its steps opened by step-start",
      messages: uiTurn,
      output: [
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
      ]
    },
    {
      name: "the last turn's call awaiting its result: input-available, not refused",
      messages: [
        { role: "user", content: "Weather in Rome?", options: { id: "u1" } },
        { role: "assistant", content: "Checking.", options: { toolCalls: [weatherCall] } }
      ],
      output: [
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
      ]
    },
    {
      name: "parallel calls partly answered: the answered one output-available, the other input-available",
      messages: [
        { role: "user", content: "Weather in Rome?", options: { id: "u1" } },
        {
          role: "assistant",
          content: "",
          options: { toolCalls: [weatherCall, { id: "c2", name: "time", arguments: "{}" }] }
        },
        { role: "tool", content: "{\"temp\":21}", options: { toolCallId: "c1" } }
      ],
      output: [
        { id: "u1", role: "user", parts: [{ type: "text", text: "Weather in Rome?" }] },
        {
          id: "rollmem-1",
          role: "assistant",
          parts: [
            { type: "step-start" },
            {
              type: "tool-weather",
              toolCallId: "c1",
              state: "output-available",
              input: { city: "Rome" },
              output: { temp: 21 }
            },
            { type: "tool-time", toolCallId: "c2", state: "input-available", input: {} }
          ]
        }
      ]
    },
    {
      name: "a call left unanswered before a later turn",
      messages: [
        { role: "user", content: "Weather in Rome?" },
        { role: "assistant", content: "", options: { toolCalls: [weatherCall] } },
        { role: "user", content: "and?" }
      ],
      refused: "the provider would refuse this context: "
    },
    {
      name: "a tool result without its call in the turn before it",
      messages: [{ role: "user", content: "hi" }, { role: "tool", content: "r", options: { toolCallId: "c9" } }],
      options: { check: false },
      refused: "message 1 (role \"tool\"): a tool result without its call in the assistant turn before it"
    },
    {
      name: "a role a UIMessage has no place for",
      messages: [{ role: "developer", content: "x" }],
      options: { check: false },
      refused: "message 0 (role \"developer\"): a UIMessage has no such role (system, user, assistant, tool)"
    }
  ],
  refusals: [
    {
      name: "an unknown role",
      input: [{ id: "t", role: "tool", parts: [] }],
      effect3: "[0].role: Expected \"system\", actual \"tool\"",
      effect4: "[0].role: Expected \"system\" | \"user\" | \"assistant\", actual \"tool\""
    },
    {
      name: "a known part type with a field of the wrong type (a tool part), also when lenient",
      input: [{
        id: "a",
        role: "assistant",
        parts: [{ type: "tool-t", toolCallId: 7, state: "input-available", input: {} }]
      }],
      effect3: "[0].parts[0]",
      effect4: "[0].parts[0]"
    },
    {
      name: "strict: an unmodelled key",
      input: [{ id: "u", role: "user", parts: [], x_future: 1 }],
      strict: true,
      effect3: "[0].x_future: is unexpected",
      effect4: "[0].x_future: Expected no excess property"
    }
  ],
  forward: [uiChat]
}
