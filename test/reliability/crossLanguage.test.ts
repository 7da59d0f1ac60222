/**
 * Cross-language state (contract section 2): state files as the Python package
 * writes them with `json.dumps` (version 1 and 2, tool calls, unicode escaped
 * as \uXXXX, `", "` and `": "` separators) load in every strategy and
 * re-serialize to equal parsed values; what this side writes follows the
 * format rules, and written Python-style it is byte for byte what Python
 * wrote.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { BufferMemory, MemoryState, Message } from "../../src/index.js"
import * as Facade from "../../src/promise/index.js"
import { dataLines, hasData } from "../support/data.js"
import { encodeFold, recording } from "./support/harness.js"
import { pythonDumps, pythonNumber, pythonString } from "./support/pythonJson.js"
import { restore, strategies } from "./support/strategies.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const fixtures = path.resolve(here, "..", "fixtures", "python-states")

const files = ["v1-chat.json", "v2-tool-calls.json", "v2-edges.json", "v2-summary-only.json", "v2-empty.json"] as const

const read = (file: string): string => fs.readFileSync(path.join(fixtures, file), "utf8")

/** What this side writes for a Python file: the same, at version 2. */
const asVersion2 = (text: string): string => text.replace(/^\{"version": 1, /, "{\"version\": 2, ")

// ---------------------------------------------------------------------------
// The format rules of contract section 2, checked on what this side writes
// ---------------------------------------------------------------------------

const messageKeys = ["role", "content", "id", "tool_calls", "tool_call_id", "metadata"]

/** Asserts a written state follows contract section 2; returns how many messages it checked. */
const assertFormat = (json: unknown): number => {
  assert.isTrue(typeof json === "object" && json !== null && !Array.isArray(json))
  const state = json as Record<string, unknown>
  assert.deepStrictEqual(Object.keys(state), ["version", "summary", "buffer"])
  assert.strictEqual(state.version, 2)
  assert.strictEqual(typeof state.summary, "string")
  assert.isTrue(Array.isArray(state.buffer))
  for (const [i, m] of (state.buffer as Array<Record<string, unknown>>).entries()) {
    const keys = Object.keys(m)
    // Only the known keys, in the order of the format, role and content always.
    assert.deepStrictEqual(keys, messageKeys.filter((k) => keys.includes(k)), `buffer[${i}] keys`)
    assert.strictEqual(typeof m.role, "string")
    assert.strictEqual(typeof m.content, "string")
    if ("id" in m) assert.strictEqual(typeof m.id, "string")
    if ("tool_call_id" in m) assert.strictEqual(typeof m.tool_call_id, "string")
    if ("tool_calls" in m) {
      const calls = m.tool_calls as Array<Record<string, unknown>>
      assert.isAbove(calls.length, 0, "tool_calls written only when not empty")
      for (const call of calls) {
        assert.deepStrictEqual(Object.keys(call), ["id", "name", "arguments"])
        for (const k of ["id", "name", "arguments"]) assert.strictEqual(typeof call[k], "string")
      }
    }
    if ("metadata" in m) {
      const metadata = m.metadata as Record<string, unknown>
      assert.isTrue(typeof metadata === "object" && metadata !== null && !Array.isArray(metadata))
      assert.isAbove(Object.keys(metadata).length, 0, "metadata written only when not empty")
    }
  }
  return (state.buffer as Array<unknown>).length
}

describe("the Python json.dumps writer, emulated", () => {
  it("escapes as ensure_ascii does", () => {
    assert.strictEqual(pythonString("a\"b\\c\n\r\t\b\f"), "\"a\\\"b\\\\c\\n\\r\\t\\b\\f\"")
    assert.strictEqual(pythonString("\u0001\u001f \u007f\u0080é中"), "\"\\u0001\\u001f \\u007f\\u0080\\u00e9\\u4e2d\"")
    assert.strictEqual(pythonString("🌍"), "\"\\ud83c\\udf0d\"")
    assert.strictEqual(pythonString("/<>&'"), "\"/<>&'\"")
  })

  it("writes numbers as Python's repr does", () => {
    assert.deepStrictEqual(
      [0, -3, 182, 0.5, 1.25, 0.0001, 1e-5, 1.5e16, 1e16, 123456.789, -2.5e-7, 1e100].map(pythonNumber),
      ["0", "-3", "182", "0.5", "1.25", "0.0001", "1e-05", "1.5e+16", "1e+16", "123456.789", "-2.5e-07", "1e+100"]
    )
  })

  it("uses \", \" and \": \" separators", () => {
    assert.strictEqual(
      pythonDumps({ a: [1, { b: null }], c: true, d: {}, e: [] }),
      "{\"a\": [1, {\"b\": null}], \"c\": true, \"d\": {}, \"e\": []}"
    )
  })
})

describe("state files written by Python", () => {
  for (const file of files) {
    it.effect(`${file} loads and re-serializes to equal parsed values`, () =>
      Effect.gen(function*() {
        const text = read(file)
        const parsed = JSON.parse(text)
        const state = yield* MemoryState.fromString(text)
        const written = MemoryState.toJSON(state)
        // Equal parsed values, at version 2.
        assert.deepStrictEqual(JSON.parse(JSON.stringify(written)), { ...parsed, version: 2 })
        // The reverse: what this side writes follows the format rules, and
        // written as Python writes it, it is the file itself.
        assertFormat(JSON.parse(JSON.stringify(written)))
        assert.strictEqual(pythonDumps(written), asVersion2(text))
        // Every strategy and every facade class loads it verbatim and writes it back the same.
        for (const strategy of strategies) {
          const { service } = recording()
          const memory = yield* restore(strategy, parsed, { summarizer: service }, { maxTokens: 5, maxMessages: 2 })
          assert.strictEqual(pythonDumps(yield* memory.toJSON), asVersion2(text), strategy)
        }
        const facades: ReadonlyArray<Facade.BaseMemory> = [
          Facade.RollingMemory.fromJSON(parsed, { maxTokens: 5, summarize: encodeFold }),
          Facade.AsyncRollingMemory.fromJSON(parsed, { maxTokens: 5, summarize: "drop" }),
          Facade.BufferMemory.fromJSON(parsed),
          Facade.WindowMemory.fromJSON(parsed, { maxMessages: 2 }),
          Facade.SummaryMemory.fromJSON(parsed, { summarize: encodeFold }),
          Facade.AsyncSummaryMemory.fromJSON(parsed, { summarize: encodeFold })
        ]
        for (const memory of facades) {
          assert.strictEqual(pythonDumps(JSON.parse(JSON.stringify(memory))), asVersion2(text))
          yield* Effect.promise(() => memory.dispose())
        }
      }))
  }

  it.effect("v1-chat.json: unicode escapes decode to the characters Python held", () =>
    Effect.gen(function*() {
      const state = yield* MemoryState.fromString(read("v1-chat.json"))
      assert.strictEqual(state.summary, "The user, Renée, is planning a trip to Kyoto (京都) in April.")
      assert.deepStrictEqual(state.buffer.map((m) => [m.role, m.content]), [
        ["user", "Can you list three temples?\nPrefer quiet ones 🙏"],
        [
          "assistant",
          "1. Ōhara — Sanzen-in\n2. Ginkaku-ji\n3. Shisen-dō\n\tAll \"quiet\" by Kyoto standards; paths use C:\\ style? No."
        ],
        ["user", "Thanks! ¡Gracias! \u0001\u007f \u2028 done"]
      ])
      // Version 1 messages lack the optional fields: they take their defaults.
      for (const m of state.buffer) {
        assert.strictEqual(m.id, undefined)
        assert.deepStrictEqual(m.toolCalls, [])
        assert.strictEqual(m.toolCallId, undefined)
        assert.deepStrictEqual(m.metadata, {})
      }
    }))

  it.effect("v2-tool-calls.json: parallel calls, results out of order, arguments and metadata verbatim", () =>
    Effect.gen(function*() {
      const state = yield* MemoryState.fromString(read("v2-tool-calls.json"))
      const call = state.buffer[2]
      assert.deepStrictEqual(call.toolCalls.map((c) => [c.id, c.name, c.arguments]), [
        ["call_a1", "get_weather", "{\"city\": \"Z\\u00fcrich\"}"],
        ["call_b2", "get_weather", "{\"city\": \"München\", \"unit\": \"C\"}"],
        ["call_c3", "now", ""]
      ])
      assert.strictEqual(
        call.tokenText,
        "get_weather({\"city\": \"Z\\u00fcrich\"})\nget_weather({\"city\": \"München\", \"unit\": \"C\"})\nnow()"
      )
      assert.deepStrictEqual(state.buffer.slice(3, 6).map((m) => m.toolCallId), ["call_b2", "call_a1", "call_c3"])
      assert.deepStrictEqual(state.buffer[4].metadata, { latency_ms: 182, cached: false, source: null })
      assert.deepStrictEqual(state.buffer[6].metadata, {
        model: "gpt-4o",
        usage: { prompt_tokens: 812, completion_tokens: 17 },
        scores: [0.5, 1.25, -3, 1e-5, 1.5e16],
        tags: ["weather", "été"]
      })
      // Loading never prunes: a RollingMemory with a tiny budget keeps all 7.
      const memory = yield* restore("rolling", JSON.parse(read("v2-tool-calls.json")), {
        summarizer: recording().service
      }, {
        maxTokens: 1
      })
      assert.strictEqual((yield* memory.buffer).length, 7)
    }))

  it.effect("v2-edges.json: empty ids are present, __proto__ stays data, reused ids and orphans load as they are", () =>
    Effect.gen(function*() {
      const state = yield* MemoryState.fromString(read("v2-edges.json"))
      assert.strictEqual(state.buffer[1].id, "")
      assert.strictEqual(state.buffer[1].toolCalls[0].id, "")
      assert.strictEqual(state.buffer[2].toolCallId, "")
      assert.isTrue(state.buffer[2].isResponseLike)
      assert.strictEqual(state.buffer[3].role, "user")
      assert.strictEqual(String(state.buffer[3]), "user:  [tool calls: upload({\"path\": \"/tmp/a b.txt\"})]")
      const metadata = state.buffer[4].metadata as Record<string, unknown>
      assert.deepStrictEqual(Object.keys(metadata), ["__proto__", "constructor", "nested"])
      assert.strictEqual(Object.getPrototypeOf(metadata), Object.prototype)
      assert.strictEqual((metadata as { admin?: unknown }).admin, undefined)
      assert.strictEqual(({} as { admin?: unknown }).admin, undefined)
      assert.deepStrictEqual(state.buffer[5].toolCalls.map((c) => c.id), ["r", "r"])
    }))

  it.effect("Python floats written as 2.0 read as 2; integer-like keys keep their values", () =>
    Effect.gen(function*() {
      const text =
        "{\"version\": 2, \"summary\": \"\", \"buffer\": [{\"role\": \"user\", \"content\": \"x\", \"metadata\": {\"b\": 2.0, \"10\": 1, \"2\": [1.0, 0.1]}}]}"
      const state = yield* MemoryState.fromString(text)
      const written = JSON.parse(JSON.stringify(MemoryState.toJSON(state)))
      assert.deepStrictEqual(written, JSON.parse(text))
      // Not byte for byte: JavaScript writes 2.0 as 2 and orders integer-like keys first.
      assert.strictEqual(
        pythonDumps(written),
        "{\"version\": 2, \"summary\": \"\", \"buffer\": [{\"role\": \"user\", \"content\": \"x\", \"metadata\": {\"2\": [1, 0.1], \"10\": 1, \"b\": 2}}]}"
      )
    }))

  it.effect("a state missing summary or buffer, as older writers may leave it, reads with defaults", () =>
    Effect.gen(function*() {
      const a = yield* MemoryState.fromString(
        "{\"version\": 1, \"buffer\": [{\"role\": \"user\", \"content\": \"hi\"}]}"
      )
      assert.strictEqual(
        pythonDumps(MemoryState.toJSON(a)),
        "{\"version\": 2, \"summary\": \"\", \"buffer\": [{\"role\": \"user\", \"content\": \"hi\"}]}"
      )
      const b = yield* MemoryState.fromString("{\"version\": 2, \"summary\": \"s\"}")
      assert.strictEqual(pythonDumps(MemoryState.toJSON(b)), "{\"version\": 2, \"summary\": \"s\", \"buffer\": []}")
    }))
})

// ---------------------------------------------------------------------------
// The reverse on real conversations: this side writes, Python reads
// ---------------------------------------------------------------------------

const Conversation = Schema.Struct({ messages: Schema.Array(Message.Message) })
const decodeConversation = Schema.decodeUnknownSync(Schema.parseJson(Conversation))

describe("states this side writes from real conversations", () => {
  for (const file of ["conversations-chat.jsonl", "conversations-agentic.jsonl", "conversations-tooltalk.jsonl"]) {
    const present = hasData(file)
    it.effect.skipIf(!present)(
      `${file}: every conversation's state follows the format rules and survives a Python-style round trip`,
      () =>
        Effect.gen(function*() {
          const lines = dataLines(file)
          let messages = 0
          for (const line of lines) {
            const conversation = decodeConversation(line)
            const memory = yield* BufferMemory.make()
            for (const m of conversation.messages) yield* memory.add(m)
            const written = yield* memory.toJSON
            messages += assertFormat(JSON.parse(JSON.stringify(written)))
            // Written as Python writes it (pure ASCII), it reads back to the same state.
            const python = pythonDumps(written)
            assert.isTrue(/^[\x20-\x7e]*$/.test(python))
            const back = yield* MemoryState.fromString(python)
            assert.deepStrictEqual(back.buffer, yield* memory.buffer)
            assert.strictEqual(JSON.stringify(MemoryState.toJSON(back)), JSON.stringify(written))
          }
          assert.strictEqual(
            messages,
            {
              "conversations-chat.jsonl": 1544,
              "conversations-agentic.jsonl": 5348,
              "conversations-tooltalk.jsonl": 1035
            }[file]
          )
        }),
      120_000
    )
  }
})
