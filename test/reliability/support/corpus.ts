/**
 * A corpus of malformed (and borderline but valid) memory states and message
 * fields, each with the outcome the library documents: a clean load, or a
 * typed error with its exact description (a prefix for the few whose
 * description quotes a huge value).
 */

/** What reading an input must give. */
export type Expected =
  | { readonly ok: { readonly summary: string; readonly buffer: number } }
  | { readonly error: string; readonly prefix?: true }

/** One malformed (or borderline) state. */
export interface StateCase {
  readonly name: string
  /** The input: a parsed value (for `fromJSON`) or raw text (for `fromString`), built on demand. */
  readonly input: () => { readonly value: unknown } | { readonly text: string }
  readonly expect: Expected
  /**
   * What the Promise facade's `fromJSON` gives, where it differs from the
   * state reader (docs/contract.md section 2: it also takes the state's JSON
   * text, and names a value that is neither): absent, the same as `expect`.
   */
  readonly facade?: Expected
}

const MB10 = 10 * 1024 * 1024

/** `levels` nested objects `{"a": {"a": ... {}}}`, the outermost counting as one level. */
export const nestedObject = (levels: number): Record<string, unknown> => {
  let value: Record<string, unknown> = {}
  for (let i = 1; i < levels; i++) value = { a: value }
  return value
}

/** `levels` nested arrays `[[...[]]]`. */
export const nestedArray = (levels: number): Array<unknown> => {
  let value: Array<unknown> = []
  for (let i = 1; i < levels; i++) value = [value]
  return value
}

const value = (v: unknown) => () => ({ value: v })
const text = (t: string) => () => ({ text: t })
const state = (buffer: Array<unknown>, extra: Record<string, unknown> = {}) => ({ version: 2, ...extra, buffer })
const msg = (fields: Record<string, unknown>) => state([fields])
const ok = (buffer: number, summary = ""): Expected => ({ ok: { summary, buffer } })
const error = (description: string): Expected => ({ error: description })

/** States through `MemoryState.fromJSON` / `fromString`. */
export const stateCorpus: ReadonlyArray<StateCase> = [
  // --- not a state at all
  {
    name: "null",
    input: value(null),
    expect: error(
      "Expected Struct (Encoded side), actual null"
    ),
    facade: error("expected a state object or its JSON text, got null")
  },
  {
    name: "undefined",
    input: value(undefined),
    expect: error(
      "Expected Struct (Encoded side), actual undefined"
    ),
    facade: error("expected a state object or its JSON text, got undefined")
  },
  {
    name: "a number",
    input: value(42),
    expect: error(
      "Expected Struct (Encoded side), actual 42"
    ),
    facade: error("expected a state object or its JSON text, got number")
  },
  {
    name: "a string",
    input: value("{\"version\": 2}"),
    expect: error(
      "Expected Struct (Encoded side), actual \"{\\\"version\\\": 2}\""
    ),
    facade: ok(0)
  },
  {
    name: "an array",
    input: value([{ version: 2 }]),
    expect: error("Expected Struct (Encoded side), actual [{\"version\":2}]")
  },
  // --- version
  { name: "missing version", input: value({ summary: "", buffer: [] }), expect: error("version: is missing") },
  {
    name: "version 4",
    input: value({ version: 4 }),
    expect: error("version: unsupported version 4, expected 1, 2 or 3")
  },
  {
    name: "version 0",
    input: value({ version: 0 }),
    expect: error("version: unsupported version 0, expected 1, 2 or 3")
  },
  {
    name: "version -1",
    input: value({ version: -1 }),
    expect: error("version: unsupported version -1, expected 1, 2 or 3")
  },
  {
    name: "version 1.5",
    input: value({ version: 1.5 }),
    expect: error("version: unsupported version 1.5, expected 1, 2 or 3")
  },
  {
    name: "version \"2\" (a string)",
    input: value({ version: "2" }),
    expect: error("version: unsupported version \"2\", expected 1, 2 or 3")
  },
  {
    name: "version null",
    input: value({ version: null }),
    expect: error("version: unsupported version null, expected 1, 2 or 3")
  },
  {
    name: "version true",
    input: value({ version: true }),
    expect: error("version: unsupported version true, expected 1, 2 or 3")
  },
  {
    name: "version [2]",
    input: value({ version: [2] }),
    expect: error("version: unsupported version [2], expected 1, 2 or 3")
  },
  { name: "version 2.0 (the same number as 2)", input: value({ version: 2.0 }), expect: ok(0) },
  {
    name: "version 1, messages without optional fields",
    input: value({ version: 1, summary: "s", buffer: [{ role: "user", content: "hi" }] }),
    expect: ok(1, "s")
  },
  // --- summary and buffer
  { name: "only a version", input: value({ version: 2 }), expect: ok(0) },
  { name: "summary 5", input: value({ version: 2, summary: 5 }), expect: error("summary: Expected string, actual 5") },
  { name: "summary null reads as empty", input: value({ version: 2, summary: null }), expect: ok(0) },
  {
    name: "summary an object",
    input: value({ version: 2, summary: { text: "s" } }),
    expect: error("summary: Expected string, actual {\"text\":\"s\"}")
  },
  { name: "buffer null reads as empty", input: value({ version: 2, buffer: null }), expect: ok(0) },
  {
    name: "buffer an object",
    input: value({ version: 2, buffer: { 0: { role: "user", content: "x" } } }),
    expect: error(
      "buffer: Expected ReadonlyArray<(rollmem/Message (Encoded side) <-> rollmem/Message)>, actual {\"0\":{\"role\":\"user\",\"content\":\"x\"}}"
    )
  },
  {
    name: "buffer a string",
    input: value({ version: 2, buffer: "[]" }),
    expect: error("buffer: Expected ReadonlyArray<(rollmem/Message (Encoded side) <-> rollmem/Message)>, actual \"[]\"")
  },
  {
    name: "buffer [null]",
    input: value(state([null])),
    expect: error("buffer[0]: Expected Struct (Encoded side), actual null")
  },
  {
    name: "buffer [42]",
    input: value(state([42])),
    expect: error("buffer[0]: Expected Struct (Encoded side), actual 42")
  },
  {
    name: "buffer with a hole",
    input: value(state(new Array(1))),
    expect: error("buffer[0]: Expected Struct (Encoded side), actual undefined")
  },
  {
    name: "unknown keys inside a message are ignored",
    input: value({ version: 2, buffer: [{ role: "user", content: "x", name: "bob" }] }),
    expect: ok(1)
  },
  {
    name: "unknown top-level keys are refused (contract 2)",
    input: value({
      version: 2,
      buffer: [{ role: "user", content: "x", name: "bob" }],
      strategy: "rolling",
      max_tokens: 10
    }),
    expect: error(
      [
        "strategy: is unexpected, expected: \"version\" | \"summary\" | \"buffer\" | \"segments\" | \"compaction\" | \"conversationId\" | \"nextPosition\" | \"positions\" | \"unarchived\" | \"usageRatio\"",
        "max_tokens: is unexpected, expected: \"version\" | \"summary\" | \"buffer\" | \"segments\" | \"compaction\" | \"conversationId\" | \"nextPosition\" | \"positions\" | \"unarchived\" | \"usageRatio\""
      ].join("; ")
    )
  },
  {
    name: "a version 3 field in a version 2 state",
    input: value({ version: 2, summary: "s", segments: ["s"] }),
    expect: error("segments: is a version 3 field, in a version 2 state")
  },
  // --- message fields
  {
    name: "an empty message",
    input: value(msg({})),
    expect: error("buffer[0].role: is missing; buffer[0].content: is missing")
  },
  { name: "missing content", input: value(msg({ role: "user" })), expect: error("buffer[0].content: is missing") },
  { name: "missing role", input: value(msg({ content: "x" })), expect: error("buffer[0].role: is missing") },
  {
    name: "role a number",
    input: value(msg({ role: 1, content: "x" })),
    expect: error("buffer[0].role: Expected string, actual 1")
  },
  {
    name: "role null",
    input: value(msg({ role: null, content: "x" })),
    expect: error("buffer[0].role: Expected string, actual null")
  },
  {
    name: "role an object",
    input: value(msg({ role: { name: "user" }, content: "x" })),
    expect: error("buffer[0].role: Expected string, actual {\"name\":\"user\"}")
  },
  {
    name: "role an array",
    input: value(msg({ role: ["user"], content: "x" })),
    expect: error("buffer[0].role: Expected string, actual [\"user\"]")
  },
  {
    name: "content a number",
    input: value(msg({ role: "user", content: 42 })),
    expect: error("buffer[0].content: Expected string, actual 42")
  },
  {
    name: "content null",
    input: value(msg({ role: "assistant", content: null })),
    expect: error("buffer[0].content: Expected string, actual null")
  },
  {
    name: "content an array of parts",
    input: value(msg({ role: "user", content: [{ type: "text", text: "hi" }] })),
    expect: error("buffer[0].content: Expected string, actual [{\"type\":\"text\",\"text\":\"hi\"}]")
  },
  {
    name: "content false",
    input: value(msg({ role: "user", content: false })),
    expect: error("buffer[0].content: Expected string, actual false")
  },
  { name: "empty role and content load", input: value(msg({ role: "", content: "" })), expect: ok(1) },
  {
    name: "id a number",
    input: value(msg({ role: "user", content: "x", id: 7 })),
    expect: error("buffer[0].id: Expected string, actual 7")
  },
  { name: "id null reads as absent", input: value(msg({ role: "user", content: "x", id: null })), expect: ok(1) },
  // --- tool calls
  {
    name: "tool_calls an object",
    input: value(msg({ role: "assistant", content: "", tool_calls: { id: "c1", name: "f" } })),
    expect: error(
      "buffer[0].tool_calls: Expected ReadonlyArray<(rollmem/ToolCall (Encoded side) <-> rollmem/ToolCall)>, actual {\"id\":\"c1\",\"name\":\"f\"}"
    )
  },
  {
    name: "tool_calls [null]",
    input: value(msg({ role: "assistant", content: "", tool_calls: [null] })),
    expect: error("buffer[0].tool_calls[0]: Expected Struct (Encoded side), actual null")
  },
  {
    name: "a tool call without an id",
    input: value(msg({ role: "assistant", content: "", tool_calls: [{ name: "f", arguments: "{}" }] })),
    expect: error("buffer[0].tool_calls[0].id: is missing")
  },
  {
    name: "a tool call with a numeric id",
    input: value(msg({ role: "assistant", content: "", tool_calls: [{ id: 1, name: "f" }] })),
    expect: error("buffer[0].tool_calls[0].id: Expected string, actual 1")
  },
  {
    name: "a tool call without a name",
    input: value(msg({ role: "assistant", content: "", tool_calls: [{ id: "c1" }] })),
    expect: error("buffer[0].tool_calls[0].name: is missing")
  },
  {
    name: "tool call arguments an object",
    input: value(msg({ role: "assistant", content: "", tool_calls: [{ id: "c1", name: "f", arguments: { q: 1 } }] })),
    expect: error("buffer[0].tool_calls[0].arguments: Expected string, actual {\"q\":1}")
  },
  {
    name: "tool call arguments missing read as \"\"",
    input: value(msg({ role: "assistant", content: "", tool_calls: [{ id: "c1", name: "f" }] })),
    expect: ok(1)
  },
  {
    name: "tool call arguments null read as \"\"",
    input: value(msg({ role: "assistant", content: "", tool_calls: [{ id: "c1", name: "f", arguments: null }] })),
    expect: ok(1)
  },
  {
    name: "an OpenAI-style nested tool call",
    input: value(
      msg({
        role: "assistant",
        content: "",
        tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }]
      })
    ),
    expect: error("buffer[0].tool_calls[0].name: is missing")
  },
  {
    name: "tool_call_id a number",
    input: value(msg({ role: "tool", content: "r", tool_call_id: 3 })),
    expect: error("buffer[0].tool_call_id: Expected string, actual 3")
  },
  {
    name: "tool_call_id \"\" is present",
    input: value(msg({ role: "tool", content: "r", tool_call_id: "" })),
    expect: ok(1)
  },
  // --- metadata
  {
    name: "metadata an array",
    input: value(msg({ role: "user", content: "x", metadata: [1] })),
    expect: error("buffer[0].metadata: metadata must be a JSON object")
  },
  {
    name: "metadata a string",
    input: value(msg({ role: "user", content: "x", metadata: "m" })),
    expect: error("buffer[0].metadata: metadata must be a JSON object")
  },
  {
    name: "metadata null reads as empty",
    input: value(msg({ role: "user", content: "x", metadata: null })),
    expect: ok(1)
  },
  {
    name: "metadata nested exactly 100 levels",
    input: value(msg({ role: "user", content: "x", metadata: nestedObject(100) })),
    expect: ok(1)
  },
  {
    name: "metadata nested 101 levels",
    input: value(msg({ role: "user", content: "x", metadata: nestedObject(101) })),
    expect: error("buffer[0].metadata: nested deeper than 100 levels")
  },
  {
    name: "metadata arrays nested 101 levels",
    input: value(msg({ role: "user", content: "x", metadata: { a: nestedArray(100) } })),
    expect: error("buffer[0].metadata: nested deeper than 100 levels")
  },
  {
    name: "metadata nested 100,000 levels",
    input: value(msg({ role: "user", content: "x", metadata: nestedObject(100_000) })),
    expect: error("buffer[0].metadata: nested deeper than 100 levels")
  },
  {
    name: "content nested 100,000 levels",
    input: value(msg({ role: "user", content: nestedArray(100_000) })),
    expect: error("buffer[0].content: nested deeper than 100 levels")
  },
  {
    name: "summary nested 100,000 levels",
    input: value({ version: 2, summary: nestedObject(100_000) }),
    expect: error("summary.a.a: nested deeper than 100 levels")
  },
  {
    name: "a state that is 100,000 nested arrays",
    input: value(nestedArray(100_000)),
    expect: error("[0][0][0]: nested deeper than 100 levels")
  },
  {
    name: "metadata holding NaN",
    input: value(msg({ role: "user", content: "x", metadata: { score: NaN } })),
    expect: error("buffer[0].metadata: metadata[\"score\"] is not a finite number")
  },
  {
    name: "metadata holding undefined",
    input: value(msg({ role: "user", content: "x", metadata: { k: undefined } })),
    expect: error("buffer[0].metadata: metadata[\"k\"] is not JSON data (got undefined)")
  },
  {
    name: "metadata holding a function",
    input: value(msg({ role: "user", content: "x", metadata: { f: () => 1 } })),
    expect: error("buffer[0].metadata: metadata[\"f\"] is not JSON data (got function)")
  },
  {
    name: "metadata holding a Date",
    input: value(msg({ role: "user", content: "x", metadata: { at: new Date(0) } })),
    expect: error("buffer[0].metadata: metadata[\"at\"] is not JSON data (got object)")
  },
  {
    name: "metadata a Map",
    input: value(msg({ role: "user", content: "x", metadata: new Map([["k", 1]]) })),
    expect: error("buffer[0].metadata: metadata must be a JSON object")
  },
  {
    name: "metadata holding a bigint",
    input: value(msg({ role: "user", content: "x", metadata: { n: 10n } })),
    expect: error("buffer[0].metadata: metadata[\"n\"] is not JSON data (got bigint)")
  },
  {
    name: "metadata that refers to itself",
    input: () => {
      const cyclic: Record<string, unknown> = {}
      cyclic.self = cyclic
      return { value: msg({ role: "user", content: "x", metadata: cyclic }) }
    },
    expect: error("buffer[0].metadata: contains itself (circular)")
  },
  // --- prototype keys (parsed from text, as JSON.parse makes them own properties)
  {
    name: "metadata with __proto__ and constructor keys",
    input: text(
      "{\"version\": 2, \"buffer\": [{\"role\": \"user\", \"content\": \"x\", \"metadata\": {\"__proto__\": {\"polluted\": true}, \"constructor\": {\"prototype\": {\"polluted\": true}}}}]}"
    ),
    expect: ok(1)
  },
  {
    name: "__proto__ keys nested in metadata arrays",
    input: text(
      "{\"version\": 2, \"buffer\": [{\"role\": \"user\", \"content\": \"x\", \"metadata\": {\"list\": [{\"__proto__\": {\"polluted\": true}}]}}]}"
    ),
    expect: ok(1)
  },
  {
    name: "a state with a __proto__ key (an unknown key: refused, nothing polluted)",
    input: text("{\"version\": 2, \"__proto__\": {\"polluted\": true, \"version\": 9}, \"buffer\": []}"),
    expect: error(
      "__proto__: is unexpected, expected: \"version\" | \"summary\" | \"buffer\" | \"segments\" | \"compaction\" | \"conversationId\" | \"nextPosition\" | \"positions\" | \"unarchived\" | \"usageRatio\""
    )
  },
  {
    name: "a message with a __proto__ key",
    input: text(
      "{\"version\": 2, \"buffer\": [{\"role\": \"user\", \"content\": \"x\", \"__proto__\": {\"role\": 5, \"polluted\": true}}]}"
    ),
    expect: ok(1)
  },
  {
    name: "a message that is only a __proto__ key",
    input: text("{\"version\": 2, \"buffer\": [{\"__proto__\": {\"role\": \"user\", \"content\": \"x\"}}]}"),
    expect: error("buffer[0].role: is missing; buffer[0].content: is missing")
  },
  {
    name: "a tool call with a __proto__ key",
    input: text(
      "{\"version\": 2, \"buffer\": [{\"role\": \"assistant\", \"content\": \"\", \"tool_calls\": [{\"__proto__\": {\"id\": \"c1\"}, \"name\": \"f\"}]}]}"
    ),
    expect: error("buffer[0].tool_calls[0].id: is missing")
  },
  {
    name: "a constructor key in a state (an unknown key: refused, nothing polluted)",
    input: text("{\"version\": 2, \"constructor\": {\"prototype\": {\"polluted\": true}}}"),
    expect: error(
      "constructor: is unexpected, expected: \"version\" | \"summary\" | \"buffer\" | \"segments\" | \"compaction\" | \"conversationId\" | \"nextPosition\" | \"positions\" | \"unarchived\" | \"usageRatio\""
    )
  },
  // --- huge values
  {
    name: "a 10 MB content",
    input: () => ({ value: msg({ role: "user", content: "x".repeat(MB10) }) }),
    expect: ok(1)
  },
  { name: "a 10 MB role", input: () => ({ value: msg({ role: "r".repeat(MB10), content: "x" }) }), expect: ok(1) },
  {
    name: "a 10 MB summary",
    input: () => ({ value: { version: 2, summary: "s".repeat(MB10) } }),
    expect: ok(0, "s".repeat(MB10))
  },
  {
    name: "10 MB tool arguments",
    input: () => ({
      value: msg({ role: "assistant", content: "", tool_calls: [{ id: "c", name: "f", arguments: "a".repeat(MB10) }] })
    }),
    expect: ok(1)
  },
  {
    name: "a 10 MB version string",
    input: () => ({ value: { version: "9".repeat(MB10) } }),
    expect: error(
      `version: unsupported version "${"9".repeat(79)}… [string of 10485760 characters], expected 1, 2 or 3`
    )
  },
  {
    name: "a 10 MB JSON text of one message",
    input: () => ({ text: JSON.stringify(msg({ role: "user", content: "é".repeat(MB10 / 2) })) }),
    expect: ok(1)
  },
  {
    name: "2,000 messages, one bad in the middle",
    input: () => ({
      value: state(
        Array.from({ length: 2_000 }, (_, i) => i === 1_000 ? { role: "user" } : { role: "user", content: `m${i}` })
      )
    }),
    expect: error("buffer[1000].content: is missing")
  },
  // --- text that is not JSON (fromString)
  { name: "empty text", input: text(""), expect: error("malformed JSON: SyntaxError: Unexpected end of JSON input") },
  {
    name: "only whitespace",
    input: text("  \n\t "),
    expect: error("malformed JSON: SyntaxError: Unexpected end of JSON input")
  },
  {
    name: "truncated after {",
    input: text("{"),
    expect: error("malformed JSON: SyntaxError: Expected property name or '}' in JSON at position 1")
  },
  {
    name: "truncated inside a string",
    input: text("{\"version\": 2, \"buffer\": [{\"role\": \"user\", \"content\": \"hel"),
    expect: error("malformed JSON: SyntaxError: Unterminated string in JSON at position 58")
  },
  {
    name: "truncated inside the buffer",
    input: text("{\"version\": 2, \"buffer\": ["),
    expect: error("malformed JSON: SyntaxError: Unexpected end of JSON input")
  },
  {
    name: "trailing garbage",
    input: text("{\"version\": 2} x"),
    expect: error("malformed JSON: SyntaxError: Unexpected non-whitespace character after JSON at position 15")
  },
  {
    name: "a trailing comma",
    input: text("{\"version\": 2,}"),
    expect: error("malformed JSON: SyntaxError: Expected double-quoted property name in JSON at position 14")
  },
  {
    name: "a comment",
    input: text("// saved state\n{\"version\": 2}"),
    expect: { error: "malformed JSON: SyntaxError: Unexpected token '/'", prefix: true }
  },
  {
    name: "single quotes",
    input: text("{'version': 2}"),
    expect: error("malformed JSON: SyntaxError: Expected property name or '}' in JSON at position 1")
  },
  {
    name: "NaN as Python writes it (allow_nan)",
    input: text(
      "{\"version\": 2, \"buffer\": [{\"role\": \"user\", \"content\": \"x\", \"metadata\": {\"score\": NaN}}]}"
    ),
    expect: { error: "malformed JSON: SyntaxError: Unexpected token 'N'", prefix: true }
  },
  {
    name: "Infinity as Python writes it",
    input: text(
      "{\"version\": 2, \"buffer\": [{\"role\": \"user\", \"content\": \"x\", \"metadata\": {\"t\": Infinity}}]}"
    ),
    expect: { error: "malformed JSON: SyntaxError: Unexpected token 'I'", prefix: true }
  },
  {
    name: "a byte order mark",
    input: text("\uFEFF{\"version\": 2}"),
    expect: error(
      "malformed JSON: SyntaxError: Unexpected token '\uFEFF', \"\uFEFF{\"version\": 2}\" is not valid JSON"
    )
  },
  {
    name: "the text null",
    input: text("null"),
    expect: error(
      "Expected Struct (Encoded side), actual null"
    ),
    facade: error("expected a state object or its JSON text, got null")
  },
  { name: "a duplicated version key: the last wins", input: text("{\"version\": 3, \"version\": 2}"), expect: ok(0) },
  {
    name: "a lone surrogate escape in content",
    input: text("{\"version\": 2, \"buffer\": [{\"role\": \"user\", \"content\": \"\\ud800\"}]}"),
    expect: ok(1)
  },
  {
    name: "100,000 nested arrays as text",
    input: () => ({ text: "[".repeat(100_000) + "]".repeat(100_000) }),
    expect: error("[0][0][0]: nested deeper than 100 levels")
  }
]

/** One bad (or borderline) set of message fields for `addMessage(role, content, options)`. */
export interface MessageCase {
  readonly name: string
  readonly role: unknown
  readonly content: unknown
  readonly options?: unknown
  /** `undefined`: added cleanly; otherwise the exact `InvalidMessageError` description. */
  readonly error?: string
}

/** Message fields through the facade's `addMessage`. */
export const messageCorpus: ReadonlyArray<MessageCase> = [
  { name: "role a number", role: 1, content: "x", error: "role: Expected string, actual 1" },
  { name: "role undefined", role: undefined, content: "x", error: "role: Expected string, actual undefined" },
  { name: "role null", role: null, content: "x", error: "role: Expected string, actual null" },
  { name: "content a number", role: "user", content: 42, error: "content: Expected string, actual 42" },
  { name: "content null", role: "assistant", content: null, error: "content: Expected string, actual null" },
  { name: "content undefined", role: "user", content: undefined, error: "content: Expected string, actual undefined" },
  {
    name: "content an object",
    role: "user",
    content: { text: "x" },
    error: "content: Expected string, actual {\"text\":\"x\"}"
  },
  { name: "id a number", role: "user", content: "x", options: { id: 5 }, error: "id: Expected string, actual 5" },
  {
    name: "a tool call without an id",
    role: "assistant",
    content: "",
    options: { toolCalls: [{ name: "f", arguments: "{}" }] },
    error: "tool_calls[0].id: is missing"
  },
  {
    name: "toolCalls a string",
    role: "assistant",
    content: "",
    options: { toolCalls: "f()" },
    error: "tool_calls: Expected ReadonlyArray<(rollmem/ToolCall (Encoded side) <-> rollmem/ToolCall)>, actual \"f()\""
  },
  {
    name: "tool call arguments an object",
    role: "assistant",
    content: "",
    options: { toolCalls: [{ id: "c", name: "f", arguments: { a: 1 } }] },
    error: "tool_calls[0].arguments: Expected string, actual {\"a\":1}"
  },
  {
    name: "toolCallId a number",
    role: "tool",
    content: "r",
    options: { toolCallId: 9 },
    error: "tool_call_id: Expected string, actual 9"
  },
  {
    name: "metadata an array",
    role: "user",
    content: "x",
    options: { metadata: [] },
    error: "metadata: metadata must be a JSON object"
  },
  {
    name: "metadata holding NaN",
    role: "user",
    content: "x",
    options: { metadata: { n: NaN } },
    error: "metadata: metadata[\"n\"] is not a finite number"
  },
  {
    name: "metadata holding a function",
    role: "user",
    content: "x",
    options: { metadata: { f: () => 0 } },
    error: "metadata: metadata[\"f\"] is not JSON data (got function)"
  },
  {
    name: "metadata nested 101 levels",
    role: "user",
    content: "x",
    options: { metadata: nestedObject(101) },
    error: "metadata: nested deeper than 100 levels"
  },
  {
    name: "metadata nested 100,000 levels",
    role: "user",
    content: "x",
    options: { metadata: nestedObject(100_000) },
    error: "metadata: nested deeper than 100 levels"
  },
  { name: "metadata nested exactly 100 levels", role: "user", content: "x", options: { metadata: nestedObject(100) } },
  {
    name: "metadata with __proto__ and constructor keys",
    role: "user",
    content: "x",
    options: {
      metadata: JSON.parse(
        "{\"__proto__\": {\"polluted\": true}, \"constructor\": {\"prototype\": {\"polluted\": true}}}"
      )
    }
  },
  { name: "a 10 MB content", role: "user", content: "x".repeat(MB10) },
  { name: "an empty role and content", role: "", content: "" },
  { name: "a unicode role", role: "助手", content: "你好 🌍" }
]
