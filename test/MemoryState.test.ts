import { assert, describe, it } from "@effect/vitest"
import { Effect, Equal, FastCheck as fc } from "effect"
import { StateDecodeError } from "../src/Errors.js"
import * as MemoryState from "../src/schema/MemoryState.js"
import * as Message from "../src/schema/Message.js"
import { assertMessages } from "./support/harness.js"

const decodeError = (input: unknown) =>
  Effect.gen(function*() {
    const error = yield* Effect.flip(MemoryState.fromJSON(input))
    assert.instanceOf(error, StateDecodeError)
    assert.strictEqual(error._tag, "StateDecodeError")
    return error
  })

describe("MemoryState (contract 2)", () => {
  it.effect("writes version 2 with summary and buffer", () =>
    Effect.sync(() => {
      const state = MemoryState.make("S", [Message.user("hi"), Message.tool("r", { toolCallId: "c" })])
      assert.deepStrictEqual(MemoryState.toJSON(state), {
        version: 2,
        summary: "S",
        buffer: [{ role: "user", content: "hi" }, { role: "tool", content: "r", tool_call_id: "c" }]
      })
      assert.deepStrictEqual(MemoryState.toJSON(MemoryState.make("", [])), { version: 2, summary: "", buffer: [] })
    }))

  it.effect("reads version 1 (messages without optional fields) and writes it back as version 2", () =>
    Effect.gen(function*() {
      const state = yield* MemoryState.fromJSON({
        version: 1,
        summary: "old",
        buffer: [{ role: "user", content: "a" }, { role: "assistant", content: "b" }]
      })
      assert.strictEqual(state.summary, "old")
      assertMessages(state.buffer, [Message.user("a"), Message.assistant("b")])
      assert.deepStrictEqual(MemoryState.toJSON(state), {
        version: 2,
        summary: "old",
        buffer: [{ role: "user", content: "a" }, { role: "assistant", content: "b" }]
      })
    }))

  it.effect("reads version 2 with every optional field", () =>
    Effect.gen(function*() {
      const json = {
        version: 2,
        summary: "",
        buffer: [
          {
            role: "assistant",
            content: "",
            id: "",
            tool_calls: [{ id: "c1", name: "f", arguments: "{}" }, { id: "c2", name: "g", arguments: "" }],
            metadata: { k: "v" }
          },
          { role: "tool", content: "1", tool_call_id: "c1" },
          { role: "critic", content: "x", tool_call_id: "" }
        ]
      }
      const state = yield* MemoryState.fromJSON(json)
      assert.deepStrictEqual<unknown>(MemoryState.toJSON(state), json)
      assert.strictEqual(state.buffer[0].id, "")
      assert.strictEqual(state.buffer[2].toolCallId, "")
    }))

  it.effect("reads a missing summary as \"\" and a missing buffer as empty (null too)", () =>
    Effect.gen(function*() {
      const a = yield* MemoryState.fromJSON({ version: 2 })
      assert.strictEqual(a.summary, "")
      assert.deepStrictEqual(a.buffer, [])
      const b = yield* MemoryState.fromJSON({ version: 1, summary: null, buffer: null })
      assert.strictEqual(b.summary, "")
      assert.deepStrictEqual(b.buffer, [])
    }))

  it.effect("ignores unknown keys inside messages", () =>
    Effect.gen(function*() {
      const state = yield* MemoryState.fromJSON({
        version: 2,
        summary: "s",
        buffer: [{ role: "user", content: "x", name: "n", tool_calls: [{ id: "1", name: "f", type: "function" }] }]
      })
      assert.deepStrictEqual(MemoryState.toJSON(state), {
        version: 2,
        summary: "s",
        buffer: [{ role: "user", content: "x", tool_calls: [{ id: "1", name: "f", arguments: "" }] }]
      })
    }))

  it.effect("refuses an unknown top-level key, and a version 3 field in a version 1 or 2 state, naming it", () =>
    Effect.gen(function*() {
      const unknown = yield* decodeError({ version: 2, strategy: "rolling", summary: "s", buffer: [] })
      assert.isTrue(unknown.description.startsWith("strategy: is unexpected, expected: \"version\""))
      const early = yield* decodeError({ version: 2, summary: "a", buffer: [], segments: ["a"] })
      assert.strictEqual(early.description, "segments: is a version 3 field, in a version 2 state")
      const v1 = yield* decodeError({ version: 1, buffer: [], usageRatio: 1.5 })
      assert.strictEqual(v1.description, "usageRatio: is a version 3 field, in a version 1 state")
      const v3 = yield* decodeError({ version: 3, buffer: [], extra: 1 })
      assert.isTrue(v3.description.startsWith("extra: is unexpected"))
    }))

  it.effect("version 3: every field read and written back; version 2 written when none is present", () =>
    Effect.gen(function*() {
      const json = {
        version: 3,
        summary: "first\n\nsecond",
        buffer: [{ role: "user", content: "a" }, { role: "assistant", content: "b" }],
        segments: ["first", "second"],
        compaction: {
          format: "anthropic",
          item: { type: "compaction", content: null, encrypted_content: "e" },
          content: ""
        },
        conversationId: "c-1",
        nextPosition: 9,
        positions: [3, 8],
        usageRatio: 1.25
      }
      const state = yield* MemoryState.fromJSON(json)
      assert.strictEqual(state.summary, "first\n\nsecond")
      assert.deepStrictEqual(state.segments, ["first", "second"])
      assert.deepStrictEqual(state.positions, [3, 8])
      assert.deepStrictEqual<unknown>(MemoryState.toJSON(state), json)
      assert.isTrue(MemoryState.usesVersion3(state))
      const plain = yield* MemoryState.fromJSON({ version: 3, summary: "s", buffer: [] })
      assert.isFalse(MemoryState.usesVersion3(plain))
      assert.deepStrictEqual(MemoryState.toJSON(plain), { version: 2, summary: "s", buffer: [] })
      // a version 3 document may leave out the summary its segments make
      const short = yield* MemoryState.fromJSON({ version: 3, segments: ["x", "y"] })
      assert.strictEqual(short.summary, "x\n\ny")
    }))

  it.effect("version 3: inconsistent fields are refused, naming them", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [
          { version: 3, summary: "other", segments: ["a"] },
          "summary: differs from the segments joined with a blank line"
        ],
        [{ version: 3, segments: [] }, "segments"],
        [{ version: 3, segments: [""] }, "segments[0]"],
        [{ version: 3, nextPosition: 2 }, "positions: is missing: positions and nextPosition come together"],
        [{ version: 3, positions: [] }, "nextPosition: is missing: positions and nextPosition come together"],
        [
          { version: 3, buffer: [{ role: "user", content: "a" }], nextPosition: 2, positions: [0, 1] },
          "positions: has 2 entries for a buffer of 1"
        ],
        [
          {
            version: 3,
            buffer: [{ role: "user", content: "a" }, { role: "user", content: "b" }],
            nextPosition: 5,
            positions: [3, 3]
          },
          "positions[1]: is 3: positions increase and stay below nextPosition (5)"
        ],
        [{ version: 3, usageRatio: 0 }, "usageRatio"],
        [{ version: 3, usageRatio: Number.NaN }, "usageRatio"],
        [{ version: 3, usageRatio: 1e-9 }, "usageRatio"],
        [{ version: 3, usageRatio: 2.5 }, "usageRatio"],
        [{ version: 3, conversationId: "" }, "conversationId"],
        [{ version: 3, compaction: { format: "gemini", item: {}, content: "" } }, "compaction.format"]
      ]
      for (const [input, start] of cases) {
        const error = yield* decodeError(input)
        assert.isTrue(error.description.startsWith(start), `${JSON.stringify(input)}: ${error.description}`)
      }
    }))

  it.effect("rejects a missing or unknown version", () =>
    Effect.gen(function*() {
      for (const input of [{}, { version: 0 }, { version: 4 }, { version: "2" }, { version: null }, { version: 2.5 }]) {
        yield* decodeError({ ...input, summary: "", buffer: [] })
      }
      const error = yield* decodeError({ version: 4 })
      assert.strictEqual(error.description, "version: unsupported version 4, expected 1, 2 or 3")
    }))

  it.effect("rejects wrong types and names the path", () =>
    Effect.gen(function*() {
      yield* decodeError(null)
      yield* decodeError([])
      yield* decodeError("{}")
      yield* decodeError({ version: 2, summary: 1 })
      yield* decodeError({ version: 2, buffer: {} })
      const error = yield* decodeError({ version: 2, buffer: [{ role: "user", content: "ok" }, { role: "user" }] })
      assert.include(error.description, "buffer")
      assert.include(error.description, "[1]")
    }))

  it.effect("rejects a tool call without an id", () =>
    Effect.gen(function*() {
      const error = yield* decodeError({
        version: 2,
        buffer: [{ role: "assistant", content: "", tool_calls: [{ name: "f", arguments: "{}" }] }]
      })
      assert.include(error.description, "id")
    }))

  const nested = (levels: number): unknown => {
    let value: unknown = {}
    for (let i = 1; i < levels; i++) value = { a: value }
    return value
  }

  it.effect("accepts metadata 100 levels deep and rejects 101 (and 100,000) levels, typed", () =>
    Effect.gen(function*() {
      const ok = { version: 2, summary: "", buffer: [{ role: "user", content: "x", metadata: nested(100) }] }
      const state = yield* MemoryState.fromJSON(ok)
      assert.deepStrictEqual<unknown>(JSON.parse(JSON.stringify(MemoryState.toJSON(state))), ok)
      for (const levels of [101, 100_000]) {
        const error = yield* decodeError({
          version: 2,
          buffer: [{ role: "user", content: "x", metadata: nested(levels) }]
        })
        assert.include(error.description, "100")
      }
    }))

  it.effect("keeps __proto__ keys as data through a whole state", () =>
    Effect.gen(function*() {
      const text =
        "{\"version\":2,\"summary\":\"\",\"buffer\":[{\"role\":\"user\",\"content\":\"x\",\"metadata\":{\"__proto__\":{\"admin\":true}}}]}"
      const state = yield* MemoryState.fromString(text)
      const metadata = state.buffer[0].metadata
      assert.strictEqual(Object.getPrototypeOf(metadata), Object.prototype)
      assert.strictEqual((metadata as { admin?: unknown }).admin, undefined)
      assert.strictEqual(({} as { admin?: unknown }).admin, undefined)
      assert.strictEqual(JSON.stringify(MemoryState.toJSON(state)), text)
    }))

  it.effect("fromString fails typed on malformed JSON", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(MemoryState.fromString("{\"version\": 2,"))
      assert.instanceOf(error, StateDecodeError)
      assert.include(error.description, "malformed JSON")
    }))

  const arbitraryWireMessage = fc.record({
    role: fc.oneof(fc.constantFrom("user", "assistant", "system", "tool"), fc.string({ maxLength: 5 })),
    content: fc.string({ unit: "grapheme", maxLength: 10 }),
    id: fc.option(fc.string({ maxLength: 3 }), { nil: undefined }),
    tool_calls: fc.option(
      fc.array(
        fc.record({ id: fc.string({ maxLength: 2 }), name: fc.string({ maxLength: 3 }), arguments: fc.string() }),
        {
          minLength: 1,
          maxLength: 3
        }
      ),
      { nil: undefined }
    ),
    tool_call_id: fc.option(fc.string({ maxLength: 2 }), { nil: undefined }),
    metadata: fc.option(
      fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { minKeys: 1 }),
      { nil: undefined }
    )
  }, { requiredKeys: ["role", "content"] })

  it.prop(
    "wire state -> fromJSON -> toJSON -> JSON is identity",
    [fc.string({ maxLength: 8 }), fc.array(arbitraryWireMessage, { maxLength: 6 })],
    ([summary, buffer]) =>
      Effect.runSync(Effect.gen(function*() {
        const json = JSON.parse(JSON.stringify({ version: 2, summary, buffer }))
        const state = yield* MemoryState.fromJSON(json)
        const written = JSON.parse(JSON.stringify(MemoryState.toJSON(state)))
        assert.deepStrictEqual(written, json)
        const again = yield* MemoryState.fromJSON(written)
        assert.strictEqual(again.buffer.length, state.buffer.length)
        for (let i = 0; i < state.buffer.length; i++) assert.isTrue(Equal.equals(again.buffer[i], state.buffer[i]))
      }))
  )
})
