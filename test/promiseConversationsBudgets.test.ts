/**
 * The Promise facade's stored conversations record `compact()` and
 * `recordUsage()` as they record an add (docs/contract.md section 12.2):
 * saved, and re-applied to the newer state after a conflict. The conflict is
 * made deterministic: the first callback waits on a promise the test
 * resolves once the second call has saved.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigError, type ConversationMemory, Conversations, DisposedError, UsageError } from "../src/promise/index.js"
import * as Message from "../src/schema/Message.js"
import { rejection } from "./support/promises.js"

/** A promise and its resolver. */
const gate = () => {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { open, opened }
}

describe("Promise facade: stored conversations record compact and recordUsage", () => {
  it("compact() and recordUsage() are saved and, after a conflict, re-applied to the newer state", async () => {
    const focuses: Array<string | undefined> = []
    const conversations = new Conversations({
      store: "memory",
      strategy: "rolling",
      maxTokens: 100,
      summarize: async (summary, messages, _signal, request) => {
        focuses.push(request?.focus)
        return `${summary}[${messages.map((m) => m.content).join(",")}]`
      }
    })
    await conversations.use("c", async (memory) => {
      await memory.addMessages([
        Message.user("u0"),
        Message.assistant("a0"),
        Message.user("u1"),
        Message.assistant("a1")
      ])
    })
    const loaded = gate()
    const saved = gate()
    let runs = 0
    const first = conversations.use("c", async (memory) => {
      runs++
      loaded.open()
      await saved.opened
      memory.getMessages() // 4 tokens
      memory.recordUsage({ inputTokens: 1008, overheadTokens: 1000 }) // sample 8 / 4 = 2
      await memory.addUserMessage("x1")
      await memory.compact({ targetTokens: 2, focus: "the bug" })
      return memory.getContext()
    })
    await loaded.opened
    await conversations.use("c", async (memory) => {
      await memory.addAssistantMessage("b1")
      memory.getMessages() // 5 tokens
      memory.recordUsage({ inputTokens: 5 }) // sample 1
    })
    saved.open()
    assert.strictEqual(await first, "system: [u0,a0,u1,a1]\nuser: x1")
    assert.strictEqual(runs, 1)
    // B's ratio 1, halfway to A's sample 2; A's x1 after B's b1, compacted to 2 tokens there
    assert.deepStrictEqual(await conversations.load("c"), {
      version: 3,
      summary: "[u0,a0,u1,a1,b1]",
      buffer: [{ role: "user", content: "x1" }],
      usageRatio: 1.5
    })
    assert.deepStrictEqual(focuses, ["the bug", "the bug"])
    await conversations.dispose()
  })

  it("compact() rejects with ConfigError for the buffer strategy; a wrong usage throws UsageError; nothing saved", async () => {
    const conversations = new Conversations({ store: "memory", strategy: "buffer" })
    await conversations.use("c", (memory) => memory.addUserMessage("u0"))
    await conversations.use("c", async (memory) => {
      const error = await rejection(memory.compact())
      assert.instanceOf(error, ConfigError)
      assert.strictEqual((error as ConfigError).option, "strategy")
      assert.throws(() => memory.recordUsage({ inputTokens: 1.5 }), UsageError)
    })
    assert.deepStrictEqual(await conversations.load("c"), {
      version: 2,
      summary: "",
      buffer: [{ role: "user", content: "u0" }]
    })
    await conversations.dispose()
  })

  it("after its use() call has ended, a memory refuses compact() and recordUsage() with DisposedError", async () => {
    const conversations = new Conversations({ store: "memory", strategy: "rolling", maxTokens: 100, summarize: "drop" })
    let kept: ConversationMemory | undefined
    await conversations.use("c", async (memory) => {
      kept = memory
      await memory.addUserMessage("saved")
    })
    assert.instanceOf(await rejection(kept!.compact()), DisposedError)
    assert.throws(() => kept!.recordUsage({ inputTokens: 10 }), DisposedError)
    assert.strictEqual(kept!.usageRatio, 1)
    assert.deepStrictEqual(await conversations.load("c"), {
      version: 2,
      summary: "",
      buffer: [{ role: "user", content: "saved" }]
    })
    await conversations.dispose()
  })
})
