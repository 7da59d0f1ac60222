import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Equal, FastCheck as fc, Hash, Schema } from "effect"
import { InvalidMessageError } from "../src/Errors.js"
import * as MemoryState from "../src/schema/MemoryState.js"
import * as Message from "../src/schema/Message.js"
import * as SpecModel from "./support/specModel.js"

const decode = Schema.decodeUnknownSync(Message.Message)
const decodeEither = Schema.decodeUnknownEither(Message.Message)
const encode = Schema.encodeSync(Message.Message)

describe("Message token text (contract 1)", () => {
  it("is exactly the content for a message without tool fields", () => {
    assert.strictEqual(Message.user("hello  world\n").tokenText, "hello  world\n")
    assert.strictEqual(Message.user("").tokenText, "")
    assert.strictEqual(Message.make("critic", "x").tokenText, "x")
  })

  it("joins content, each name(arguments) and the tool call id with a newline", () => {
    const m = Message.make("assistant", "thinking", {
      toolCalls: [{ id: "c1", name: "search", arguments: "{\"q\":1}" }, { id: "c2", name: "now" }],
      toolCallId: "t0"
    })
    assert.strictEqual(m.tokenText, "thinking\nsearch({\"q\":1})\nnow()\nt0")
  })

  it("skips empty content", () => {
    assert.strictEqual(
      Message.assistant("", { toolCalls: [{ id: "c", name: "f", arguments: "{}" }] }).tokenText,
      "f({})"
    )
    assert.strictEqual(Message.tool("", { toolCallId: "c1" }).tokenText, "c1")
    assert.strictEqual(Message.tool("42", { toolCallId: "c1" }).tokenText, "42\nc1")
  })

  it("counts an empty tool call id as present", () => {
    assert.strictEqual(Message.tool("42", { toolCallId: "" }).tokenText, "42\n")
    assert.strictEqual(Message.tool("", { toolCallId: "" }).tokenText, "")
    assert.isTrue(Message.user("x", { toolCallId: "" }).isResponseLike)
  })
})

describe("Message string form (contract 1)", () => {
  it("is role: content", () => {
    assert.strictEqual(String(Message.user("hello")), "user: hello")
    assert.strictEqual(String(Message.user("")), "user: ")
    assert.strictEqual(String(Message.tool("42", { toolCallId: "c1" })), "tool: 42")
  })

  it("gives two spaces with empty content and tool calls", () => {
    const m = Message.assistant("", { toolCalls: [{ id: "c", name: "f", arguments: "{}" }] })
    assert.strictEqual(String(m), "assistant:  [tool calls: f({})]")
  })

  it("lists every call as name(arguments), joined by a comma and a space", () => {
    const m = Message.assistant("ok", {
      toolCalls: [{ id: "a", name: "f", arguments: "1" }, { id: "b", name: "g" }]
    })
    assert.strictEqual(String(m), "assistant: ok [tool calls: f(1), g()]")
  })
})

describe("wire format (contract 2)", () => {
  it("writes role and content only for a plain message", () => {
    assert.deepStrictEqual(encode(Message.user("hi")), { role: "user", content: "hi" })
  })

  it("never writes tool_calls [] or metadata {}", () => {
    const m = new Message.Message({ role: "user", content: "", toolCalls: [], metadata: {} })
    assert.deepStrictEqual(encode(m), { role: "user", content: "" })
    assert.strictEqual(JSON.stringify(encode(m)), "{\"role\":\"user\",\"content\":\"\"}")
  })

  it("writes an empty id and an empty tool_call_id (present)", () => {
    assert.deepStrictEqual(encode(Message.tool("r", { id: "", toolCallId: "" })), {
      role: "tool",
      content: "r",
      id: "",
      tool_call_id: ""
    })
  })

  it("always writes arguments, with snake_case keys", () => {
    const m = Message.assistant("", {
      id: "m1",
      toolCalls: [{ id: "c1", name: "f" }],
      metadata: { k: [1, null, { z: true }] }
    })
    assert.deepStrictEqual(encode(m), {
      role: "assistant",
      content: "",
      id: "m1",
      tool_calls: [{ id: "c1", name: "f", arguments: "" }],
      metadata: { k: [1, null, { z: true }] }
    })
  })

  it("reads missing optional keys as their defaults", () => {
    const m = decode({ role: "user", content: "x" })
    assert.strictEqual(m.id, undefined)
    assert.strictEqual(m.toolCallId, undefined)
    assert.deepStrictEqual(m.toolCalls, [])
    assert.deepStrictEqual(m.metadata, {})
    assert.isFalse(m.isResponseLike)
  })

  it("reads null fields as absent", () => {
    const m = decode({ role: "user", content: "x", id: null, tool_calls: null, tool_call_id: null, metadata: null })
    assert.isTrue(Equal.equals(m, Message.user("x")))
    assert.isFalse("id" in m && m.id !== undefined)
    assert.isFalse(m.isResponseLike)
    assert.deepStrictEqual(encode(m), { role: "user", content: "x" })
  })

  it("reads a tool call without arguments (or with null) as arguments \"\"", () => {
    const m = decode({
      role: "assistant",
      content: "",
      tool_calls: [{ id: "a", name: "f" }, { id: "b", name: "g", arguments: null }]
    })
    assert.deepStrictEqual(m.toolCalls.map((c) => c.arguments), ["", ""])
    assert.strictEqual(m.tokenText, "f()\ng()")
  })

  it("ignores unknown keys", () => {
    const m = decode({ role: "user", content: "x", name: "bob", extra: { a: 1 } })
    assert.deepStrictEqual(encode(m), { role: "user", content: "x" })
  })

  it("rejects a tool call without an id, and wrong types", () => {
    assert.isTrue(Either.isLeft(decodeEither({ role: "assistant", content: "", tool_calls: [{ name: "f" }] })))
    assert.isTrue(Either.isLeft(decodeEither({ role: "user", content: 1 })))
    assert.isTrue(Either.isLeft(decodeEither({ content: "x" })))
    assert.isTrue(Either.isLeft(decodeEither({ role: "user", content: "x", tool_call_id: 3 })))
    assert.isTrue(Either.isLeft(decodeEither({ role: "user", content: "x", metadata: [1] })))
  })

  it("keeps __proto__ metadata keys as plain data and never touches Object.prototype", () => {
    const input: unknown = JSON.parse(
      "{\"role\":\"user\",\"content\":\"x\",\"metadata\":{\"__proto__\":{\"polluted\":true},\"n\":{\"__proto__\":[1]}}}"
    )
    const m = decode(input)
    const metadata = m.metadata as Record<string, unknown>
    assert.strictEqual(Object.getPrototypeOf(metadata), Object.prototype)
    assert.deepStrictEqual(Object.keys(metadata), ["__proto__", "n"])
    assert.strictEqual((metadata as { polluted?: unknown }).polluted, undefined)
    assert.strictEqual(({} as { polluted?: unknown }).polluted, undefined)
    assert.strictEqual((Object.prototype as { polluted?: unknown }).polluted, undefined)
    const inner = metadata.n as Record<string, unknown>
    assert.strictEqual(Object.getPrototypeOf(inner), Object.prototype)
    assert.deepStrictEqual(Object.getOwnPropertyDescriptor(inner, "__proto__")?.value, [1])
    assert.strictEqual(
      JSON.stringify(encode(m)),
      "{\"role\":\"user\",\"content\":\"x\",\"metadata\":{\"__proto__\":{\"polluted\":true},\"n\":{\"__proto__\":[1]}}}"
    )
  })

  const nested = (levels: number): unknown => {
    let value: unknown = {}
    for (let i = 1; i < levels; i++) value = { a: value }
    return value
  }

  it("accepts metadata 100 levels deep and rejects 101", () => {
    const ok = decode({ role: "user", content: "x", metadata: nested(100) })
    assert.deepStrictEqual(JSON.parse(JSON.stringify(encode(ok))).metadata, nested(100))
    assert.isTrue(Either.isLeft(decodeEither({ role: "user", content: "x", metadata: nested(101) })))
    assert.isTrue(Either.isLeft(decodeEither({ role: "user", content: "x", metadata: nested(5000) })))
  })

  it("rejects metadata that is not JSON data", () => {
    assert.isTrue(Either.isLeft(decodeEither({ role: "user", content: "x", metadata: { f: () => 1 } })))
    assert.isTrue(Either.isLeft(decodeEither({ role: "user", content: "x", metadata: { n: Number.NaN } })))
    assert.isTrue(Either.isLeft(decodeEither({ role: "user", content: "x", metadata: { d: new Date(0) } })))
  })
})

describe("Message equality", () => {
  it("makes decoded messages with equal fields Equal and Hash-equal", () => {
    const json = {
      role: "assistant",
      content: "c",
      id: "m",
      tool_calls: [{ id: "1", name: "f", arguments: "{}" }],
      tool_call_id: "t",
      metadata: { a: [1, { b: null }], c: "d" }
    }
    const x = decode(json)
    const y = decode(JSON.parse(JSON.stringify(json)))
    assert.notStrictEqual(x, y)
    assert.isTrue(Equal.equals(x, y))
    assert.strictEqual(Hash.hash(x), Hash.hash(y))
  })

  it("ignores metadata key order", () => {
    const x = decode({ role: "user", content: "c", metadata: { a: 1, b: { c: 2, d: 3 } } })
    const y = decode({ role: "user", content: "c", metadata: { b: { d: 3, c: 2 }, a: 1 } })
    assert.isTrue(Equal.equals(x, y))
    assert.strictEqual(Hash.hash(x), Hash.hash(y))
  })

  it("tells apart messages differing in any field", () => {
    const base = { role: "user", content: "c" }
    const variants: Array<Record<string, unknown>> = [
      { ...base, role: "assistant" },
      { ...base, content: "d" },
      { ...base, id: "" },
      { ...base, tool_call_id: "" },
      { ...base, tool_calls: [{ id: "1", name: "f" }] },
      { ...base, tool_calls: [{ id: "1", name: "f", arguments: "x" }] },
      { ...base, metadata: { a: 1 } },
      { ...base, metadata: { a: [1] } }
    ]
    const all = [base, ...variants].map((v) => decode(v))
    for (let i = 0; i < all.length; i++) {
      for (let j = 0; j < all.length; j++) assert.strictEqual(Equal.equals(all[i], all[j]), i === j, `${i} vs ${j}`)
    }
  })
})

/** Random messages of every shape: any role, tool calls, ids, empty and unicode text, metadata. */
const arbitraryMessage: fc.Arbitrary<Message.Message> = fc.record({
  role: fc.oneof(fc.constantFrom("user", "assistant", "system", "tool"), fc.string({ maxLength: 6 })),
  content: fc.oneof(fc.constant(""), fc.string({ unit: "grapheme", maxLength: 12 })),
  id: fc.option(fc.string({ maxLength: 3 }), { nil: undefined }),
  toolCalls: fc.array(
    fc.record({
      id: fc.string({ maxLength: 3 }),
      name: fc.string({ maxLength: 4 }),
      arguments: fc.string({ maxLength: 6 })
    }),
    { maxLength: 3 }
  ),
  toolCallId: fc.option(fc.string({ maxLength: 3 }), { nil: undefined }),
  metadata: fc.option(fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 3 })), { nil: undefined })
}).map((r) =>
  Message.make(r.role, r.content, {
    id: r.id,
    toolCalls: r.toolCalls,
    toolCallId: r.toolCallId,
    metadata: r.metadata as Message.MessageOptions["metadata"]
  })
)

describe("Message properties", () => {
  it.prop("token text and string form equal the model", [arbitraryMessage], ([m]) => {
    assert.strictEqual(m.tokenText, SpecModel.tokenText(m))
    assert.strictEqual(String(m), SpecModel.stringForm(m))
    assert.strictEqual(m.isResponseLike, SpecModel.isResponseLike(m))
  })

  it.prop("encode, JSON, decode is identity", [arbitraryMessage], ([m]) => {
    const back = decode(JSON.parse(JSON.stringify(encode(m))))
    assert.isTrue(Equal.equals(back, m))
    assert.strictEqual(Hash.hash(back), Hash.hash(m))
    // JSON has no negative zero (JSON.stringify(-0) is "0"): compare what goes on the wire.
    assert.strictEqual(JSON.stringify(encode(back)), JSON.stringify(encode(m)))
  })

  it("negative zero in metadata reads back as 0, the only value JSON can carry", () => {
    const m = Message.make("user", "x", { metadata: { a: -0 } })
    const back = decode(JSON.parse(JSON.stringify(encode(m))))
    assert.isTrue(Object.is(back.metadata.a, 0))
    assert.isTrue(Equal.equals(back, m))
  })
})

// Field values a caller may pass, right and wrong: decodeFields has a hand-checked
// path for the common shapes and must agree with the Schema decoder on all of them.
const anyValue = fc.oneof(
  { arbitrary: fc.string({ maxLength: 4 }), weight: 4 },
  { arbitrary: fc.constant(undefined), weight: 2 },
  fc.constant(null),
  fc.integer(),
  fc.boolean(),
  fc.constant([]),
  fc.constant({})
)
const anyToolCall = fc.oneof(
  fc.record({ id: fc.string({ maxLength: 3 }), name: fc.string({ maxLength: 3 }) }),
  fc.record({ id: fc.string({ maxLength: 3 }), name: fc.string({ maxLength: 3 }), arguments: anyValue }),
  fc.record({ id: anyValue, name: anyValue, arguments: anyValue, extra: anyValue }, { requiredKeys: [] }),
  fc.string({ maxLength: 3 }).map((id) => new Message.ToolCall({ id, name: "f", arguments: "{}" })),
  anyValue
)
const anyOptions = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.string({ maxLength: 2 }),
  {
    weight: 6,
    arbitrary: fc.record({
      id: anyValue,
      toolCallId: anyValue,
      toolCalls: fc.oneof({ arbitrary: fc.array(anyToolCall, { maxLength: 3 }), weight: 3 }, anyValue),
      metadata: fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, fc.constant({ a: 1 }), anyValue),
      other: anyValue
    }, { requiredKeys: [] })
  }
)
const decodeWireEither = Schema.decodeUnknownEither(Message.Message)
// What decodeFields means: its options as the wire object the Schema decodes.
const wireOf = (role: unknown, content: unknown, options: unknown): Record<string, unknown> => {
  const o = typeof options === "object" && options !== null ? options as Record<string, unknown> : {}
  const wire: Record<string, unknown> = { role, content }
  if (o.id !== undefined) wire.id = o.id
  if (o.toolCallId !== undefined) wire.tool_call_id = o.toolCallId
  if (o.toolCalls !== undefined) {
    wire.tool_calls = Array.isArray(o.toolCalls)
      ? o.toolCalls.map((c: unknown) =>
        c instanceof Message.ToolCall ? { id: c.id, name: c.name, arguments: c.arguments } : c
      )
      : o.toolCalls
  }
  if (o.metadata !== undefined) wire.metadata = o.metadata
  return wire
}

describe("decodeFields agrees with the Schema decoder", () => {
  it.prop(
    "same message (fields, key order, prototype) or both fail",
    [anyValue, anyValue, anyOptions],
    ([role, content, options]) => {
      const fast = Message.decodeFields(role, content, options as Message.MessageOptions | undefined)
      // Options are an object (or absent) of the known keys only.
      const refused = options !== undefined && options !== null &&
        (typeof options !== "object" || Object.keys(options).some((key) => !Message.OPTION_KEYS.includes(key as never)))
      const reference: Either.Either<Message.Message, unknown> = refused
        ? Either.left("refused")
        : decodeWireEither(wireOf(role, content, options))
      assert.strictEqual(Either.isRight(fast), Either.isRight(reference))
      if (Either.isRight(fast) && Either.isRight(reference)) {
        assert.strictEqual(Object.getPrototypeOf(fast.right), Message.Message.prototype)
        assert.deepStrictEqual(Object.keys(fast.right), Object.keys(reference.right))
        assert.deepStrictEqual(fast.right, reference.right)
        assert.isTrue(Equal.equals(fast.right, reference.right))
        fast.right.toolCalls.forEach((call, i) => {
          assert.strictEqual(Object.getPrototypeOf(call), Message.ToolCall.prototype)
          assert.deepStrictEqual(Object.keys(call), Object.keys(reference.right.toolCalls[i]))
        })
        assert.deepStrictEqual(fast.right.toJSON(), reference.right.toJSON())
      }
    },
    { fastCheck: { numRuns: 5000 } }
  )

  it("the constructors build the same instances as the Schema constructor", () => {
    const call = { id: "c1", name: "search", arguments: "{}" }
    const cases: ReadonlyArray<[Message.Message, Message.Message]> = [
      [Message.user("hi"), new Message.Message({ role: "user", content: "hi" })],
      [
        Message.assistant("", { id: "m1", toolCalls: [call] }),
        new Message.Message({ role: "assistant", content: "", id: "m1", toolCalls: [new Message.ToolCall(call)] })
      ],
      [
        Message.tool("r", { toolCallId: "c1" }),
        new Message.Message({ role: "tool", content: "r", toolCallId: "c1" })
      ]
    ]
    for (const [built, reference] of cases) {
      assert.strictEqual(Object.getPrototypeOf(built), Message.Message.prototype)
      assert.deepStrictEqual(Object.keys(built), Object.keys(reference))
      assert.deepStrictEqual(built, reference)
      assert.strictEqual(built.tokenText, reference.tokenText)
      assert.strictEqual(String(built), String(reference))
    }
  })
})

describe("circular values", () => {
  it("metadata that contains itself is named as circular, not as too deep", () => {
    const o: Record<string, unknown> = { a: 1 }
    o.self = o
    const message = Message.decodeFields("user", "x", { metadata: o as Message.MessageOptions["metadata"] })
    assert.isTrue(Either.isLeft(message))
    if (Either.isLeft(message)) assert.strictEqual(message.left.description, "metadata: contains itself (circular)")
  })

  it.effect("a state whose buffer contains itself is named as circular", () =>
    Effect.gen(function*() {
      const state: Record<string, unknown> = { version: 2, summary: "" }
      const buffer: Array<unknown> = [{ role: "user", content: "a" }]
      buffer.push(buffer)
      state.buffer = buffer
      const error = yield* Effect.flip(MemoryState.fromJSON(state))
      assert.strictEqual(error.description, "buffer[1]: contains itself (circular)")
    }))
})

describe("the constructors' errors are typed", () => {
  const thrown = (f: () => unknown): unknown => {
    try {
      f()
    } catch (error) {
      return error
    }
    return undefined
  }

  it("a wrong field throws InvalidMessageError, never a ParseError", () => {
    const error = thrown(() => Message.user(null as unknown as string))
    assert.instanceOf(error, InvalidMessageError)
    assert.strictEqual((error as InvalidMessageError).description, "content: Expected string, actual null")
    const call = thrown(() => Message.assistant("", { toolCalls: [{ id: 7 as unknown as string, name: "f" }] }))
    assert.instanceOf(call, InvalidMessageError)
    assert.strictEqual(
      (call as InvalidMessageError).description,
      "tool_calls[0].id: Expected string, actual 7"
    )
  })

  it("an unknown option is refused, naming the known ones", () => {
    const error = thrown(() => Message.tool("r", { toolCallID: "c1" } as Message.MessageOptions))
    assert.instanceOf(error, InvalidMessageError)
    assert.strictEqual(
      (error as InvalidMessageError).message,
      "invalid message: unknown option \"toolCallID\"; the options are id, toolCalls, toolCallId, metadata"
    )
    const either = Message.decodeFields("tool", "r", { tool_call_id: "c1" } as Message.MessageOptions)
    assert.deepStrictEqual(
      Either.mapLeft(either, (e) => e.description),
      Either.left("unknown option \"tool_call_id\"; the options are id, toolCalls, toolCallId, metadata")
    )
  })

  it("options that are not an object are refused", () => {
    const either = Message.decodeFields("user", "x", "c1" as unknown as Message.MessageOptions)
    assert.deepStrictEqual(
      Either.mapLeft(either, (e) => e.description),
      Either.left("options must be an object, got \"c1\"")
    )
    assert.isTrue(Either.isRight(Message.decodeFields("user", "x", null as unknown as Message.MessageOptions)))
  })

  it("a message is its own options: role and content keys equal to the message's are allowed", () => {
    const m = Message.tool("r", { toolCallId: "c1", metadata: { k: 1 } })
    const again = Message.decodeFields(m.role, m.content, m)
    assert.isTrue(Either.isRight(again) && Equal.equals(again.right, m))
    const other = Message.decodeFields("user", m.content, m)
    assert.deepStrictEqual(
      Either.mapLeft(other, (e) => e.description),
      Either.left("unknown option \"role\"; the options are id, toolCalls, toolCallId, metadata")
    )
  })

  it.effect("in an Effect, decodeFields gives the error typed", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Message.decodeFields("user", 42, {}))
      assert.instanceOf(error, InvalidMessageError)
      assert.strictEqual(error.description, "content: Expected string, actual 42")
    }))
})
