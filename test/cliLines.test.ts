import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Input from "../src/cli/Input.js"
import * as Lines from "../src/cli/Lines.js"

const bytes = (s: string) => new TextEncoder().encode(s)

describe("Lines: bytes to lines, one line held at a time", () => {
  it.effect("splits across chunk boundaries, inside a multi-byte character and a \\r\\n", () =>
    Effect.gen(function*() {
      const all = bytes("héllo\r\nwörld\n\nlast")
      const chunks = [all.slice(0, 2), all.slice(2, 6), all.slice(6, 8), all.slice(8, 12), all.slice(12)]
      const lines = yield* Stream.runCollect(Lines.lines(Stream.fromIterable(chunks)))
      assert.deepStrictEqual(Chunk.toArray(lines), [
        { _tag: "Text", line: 1, text: "héllo", bytes: 7 },
        { _tag: "Text", line: 2, text: "wörld", bytes: 6 },
        { _tag: "Text", line: 3, text: "", bytes: 0 },
        { _tag: "Text", line: 4, text: "last", bytes: 4 }
      ])
    }))

  it.effect("a line over the limit is reported with its size and skipped; the lines after it are read", () =>
    Effect.gen(function*() {
      const long = "x".repeat(250)
      const chunks = [bytes(`ok\n${long.slice(0, 100)}`), bytes(long.slice(100)), bytes("\nafter\n")]
      const lines = yield* Stream.runCollect(Lines.lines(Stream.fromIterable(chunks), 100))
      assert.deepStrictEqual(Chunk.toArray(lines), [
        { _tag: "Text", line: 1, text: "ok", bytes: 2 },
        { _tag: "TooLong", line: 2, bytes: 250 },
        { _tag: "Text", line: 3, text: "after", bytes: 5 }
      ])
    }))

  it("the default limit is V8's longest string", () => {
    assert.strictEqual(Lines.MAX_LINE_BYTES, 536_870_888)
  })
})

describe("Input.streamLines: a JSON Lines file read line by line", () => {
  it.effect("a line too long is one problem naming the line and the limit; the next conversation is read", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rollmem-lines-"))
      const file = path.join(dir, "big.jsonl")
      const huge = JSON.stringify({ id: "huge", messages: [{ role: "user", content: "y".repeat(300) }] })
      fs.writeFileSync(file, `${huge}\n{"id":"next","messages":[{"role":"user","content":"hi"}]}\n`)
      const inputs = yield* Input.streamLines(file, 200)
      assert.deepStrictEqual(inputs.conversations.map((c) => c.id), ["next"])
      assert.deepStrictEqual(inputs.problems, [
        `${file}:1: a line of 355 bytes is longer than 200 bytes, the longest line read (V8's longest string); skipped`
      ])
      fs.rmSync(dir, { recursive: true })
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("a blank line is a Blank item: its bytes count for progress, and it is neither a conversation nor a problem", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rollmem-lines-"))
      const file = path.join(dir, "blank.jsonl")
      const line = "{\"id\":\"a\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"
      fs.writeFileSync(file, `${line}\n  \n${line.replace("\"a\"", "\"b\"")}\n`)
      const items = Chunk.toArray(yield* Stream.runCollect(Input.streamLineItems(file)))
      assert.deepStrictEqual(items.map((item) => [item._tag, item.bytes]), [
        ["Conversation", line.length + 1],
        ["Blank", 3],
        ["Conversation", line.length + 1]
      ])
      const inputs = yield* Input.streamLines(file)
      assert.deepStrictEqual(inputs.conversations.map((c) => c.id), ["a", "b"])
      assert.deepStrictEqual(inputs.problems, [])
      fs.rmSync(dir, { recursive: true })
    }).pipe(Effect.provide(NodeContext.layer)))
})
