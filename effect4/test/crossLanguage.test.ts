/**
 * Cross-language state on the Effect 4 line (docs/contract.md section 2):
 * the Python package's state files (test/fixtures/python-states) load and,
 * written Python-style, are byte for byte what Python wrote, as on the
 * Effect 3 line (test/reliability/crossLanguage.test.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { pythonDumps } from "../../test/reliability/support/pythonJson.js"
import { MemoryState, Message } from "../src/index.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const fixtures = path.resolve(here, "..", "..", "test", "fixtures", "python-states")
const files = ["v1-chat.json", "v2-tool-calls.json", "v2-edges.json", "v2-summary-only.json", "v2-empty.json"] as const
const read = (file: string): string => fs.readFileSync(path.join(fixtures, file), "utf8")
const asVersion2 = (text: string): string => text.replace(/^\{"version": 1, /, "{\"version\": 2, ")

describe("state files written by Python, on Effect 4", () => {
  for (const file of files) {
    it.effect(`${file} loads and is written back byte for byte`, () =>
      Effect.gen(function*() {
        const text = read(file)
        const state = yield* MemoryState.fromString(text)
        const written = MemoryState.toJSON(state)
        assert.deepStrictEqual(JSON.parse(JSON.stringify(written)), { ...JSON.parse(text), version: 2 })
        assert.strictEqual(pythonDumps(written), asVersion2(text))
      }))
  }

  it.effect("v1-chat.json: unicode escapes decode to the characters Python held", () =>
    Effect.gen(function*() {
      const state = yield* MemoryState.fromString(read("v1-chat.json"))
      assert.strictEqual(state.summary, "The user, Renée, is planning a trip to Kyoto (京都) in April.")
      for (const m of state.buffer) {
        assert.strictEqual(m.id, undefined)
        assert.deepStrictEqual(m.toolCalls, [])
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
    }))

  it.effect("v2-edges.json: empty ids are present, __proto__ stays data", () =>
    Effect.gen(function*() {
      const state = yield* MemoryState.fromString(read("v2-edges.json"))
      assert.strictEqual(state.buffer[1].id, "")
      assert.strictEqual(state.buffer[2].toolCallId, "")
      assert.isTrue(state.buffer[2].isResponseLike)
      assert.strictEqual(String(state.buffer[3]), "user:  [tool calls: upload({\"path\": \"/tmp/a b.txt\"})]")
      const metadata = state.buffer[4].metadata as Record<string, unknown>
      assert.deepStrictEqual(Object.keys(metadata), ["__proto__", "constructor", "nested"])
      assert.strictEqual(Object.getPrototypeOf(metadata), Object.prototype)
    }))

  it.effect("bad states fail with StateDecodeError naming the field", () =>
    Effect.gen(function*() {
      const wrong = yield* Effect.flip(MemoryState.fromJSON({ version: 2, buffer: [{ role: "user", content: 42 }] }))
      assert.strictEqual(wrong._tag, "StateDecodeError")
      assert.match(wrong.description, /^buffer\[0\]\.content: /)
      const version = yield* Effect.flip(MemoryState.fromJSON({ version: 9 }))
      assert.match(version.description, /^version: /)
      const v3 = yield* Effect.flip(MemoryState.fromJSON({ version: 2, summary: "", buffer: [], usageRatio: 1 }))
      assert.strictEqual(v3.description, "usageRatio: is a version 3 field, in a version 2 state")
      const extra = yield* Effect.flip(MemoryState.fromJSON({ version: 2, extra: 1 }))
      assert.strictEqual(
        extra.description,
        "extra: is unexpected, expected: \"version\" | \"summary\" | \"buffer\" | \"segments\" | \"compaction\" | " +
          "\"conversationId\" | \"nextPosition\" | \"positions\" | \"unarchived\" | \"usageRatio\""
      )
    }))

  it("messages are checked where they are made", () => {
    const bad = Message.decodeUnknown({ role: "user", content: "x", metadata: { n: Infinity } })
    assert.isTrue(Result.isFailure(bad))
    assert.throws(() => Message.make("user", "x", { nope: 1 } as never), /unknown option "nope"/)
    assert.strictEqual(Message.make("assistant", "", { toolCalls: [{ id: "c", name: "now" }] }).tokenText, "now()")
  })
})
