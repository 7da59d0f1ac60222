import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Conversations } from "../src/promise/index.js"

describe("Promise facade: stored conversations", () => {
  it("use() loads, runs the callback once, saves; load() and delete() see the stored state", async () => {
    const conversations = new Conversations({
      store: "memory",
      strategy: "rolling",
      maxTokens: 4,
      summarize: async (summary, messages) => `${summary}+${messages.map((m) => m.content).join(",")}`
    })
    const reply = await conversations.use("c1", async (memory) => {
      await memory.addUserMessage("a b")
      await memory.addAssistantMessage("c d")
      return memory.getContext()
    })
    assert.strictEqual(reply, "user: a b\nassistant: c d")
    await conversations.use("c1", async (memory) => {
      assert.deepStrictEqual(memory.buffer.map((m) => m.content), ["a b", "c d"])
      await memory.addUserMessage("e f")
    })
    assert.deepStrictEqual(await conversations.load("c1"), {
      version: 2,
      summary: "+a b,c d",
      buffer: [{ role: "user", content: "e f" }]
    })
    await conversations.delete("c1")
    assert.strictEqual(await conversations.load("c1"), undefined)
    await conversations.dispose()
  })

  it("overlapping use() calls on one conversation keep every turn once, each callback run once", async () => {
    const conversations = new Conversations({ store: "memory", strategy: "buffer" })
    let runs = 0
    await Promise.all(Array.from({ length: 20 }, (_, i) =>
      conversations.use("shared", async (memory) => {
        runs++
        await memory.addUserMessage(`turn ${i}`)
      })))
    const stored = await conversations.load("shared")
    assert.strictEqual(runs, 20)
    assert.deepStrictEqual(
      stored?.buffer?.map((m) => m.content).sort(),
      Array.from({ length: 20 }, (_, i) => `turn ${i}`).sort()
    )
    await conversations.dispose()
  })

  it("the callback's rejection reaches the caller and nothing is saved", async () => {
    const conversations = new Conversations({ store: "memory", strategy: "window", maxMessages: 3 })
    const boom = new Error("model down")
    let caught: unknown
    await conversations.use("c", async (memory) => {
      await memory.addUserMessage("lost")
      throw boom
    }).catch((e) => {
      caught = e
    })
    assert.strictEqual(caught, boom)
    assert.strictEqual(await conversations.load("c"), undefined)
    await conversations.dispose()
  })

  it("an SQLite file keeps conversations across instances", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rollmem-facade-"))
    const filename = path.join(dir, "conversations.db")
    try {
      const first = new Conversations({ store: { sqlite: filename }, strategy: "buffer" })
      await first.use("x", (memory) => memory.addUserMessage("persisted"))
      await first.dispose()
      const second = new Conversations({ store: { sqlite: filename }, strategy: "buffer" })
      assert.deepStrictEqual(await second.load("x"), {
        version: 2,
        summary: "",
        buffer: [{ role: "user", content: "persisted" }]
      })
      await second.dispose()
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
