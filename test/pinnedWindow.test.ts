/**
 * A pinned message over the context window on the Effect 3 line
 * (docs/contract.md section 16.1): the cases of
 * `test/support/pinnedWindowCases.ts`, which the Effect 4 line runs too.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { ContextWindowError } from "../src/Errors.js"
import { Memory, Message, Summarizer } from "../src/index.js"
import * as Promise from "../src/promise/index.js"
import { runPinnedWindowCases } from "./support/pinnedWindowCases.js"

runPinnedWindowCases({
  name: "Effect 3",
  sync: (options) => new Promise.RollingMemory(options),
  async: (options) => new Promise.AsyncRollingMemory(options),
  fromJSON: (data, options) => Promise.RollingMemory.fromJSON(data, options),
  message: (role, content) => Message.make(role, content) as never
}, { assert, describe, it })

describe("a pinned message over the context window through Memory.make and Conversations (Effect 3)", () => {
  it.effect("Memory.make: refused, nothing changed, no summarizer call", () =>
    Effect.gen(function*() {
      const calls: Array<number> = []
      const layer = Summarizer.layerFunction((summary, turns) => {
        calls.push(turns.length)
        return summary
      })
      const memory = yield* Memory.make({
        strategy: "rolling",
        contextWindow: { tokens: 10, reserveTokens: 2 },
        pinSystem: true
      }).pipe(Effect.provide(layer))
      const error = yield* Effect.flip(memory.add(Message.system("a b c d e f g h i")))
      assert.instanceOf(error, ContextWindowError)
      assert.strictEqual(
        error.message,
        "pinned message (9 tokens) cannot fit: with the pinned messages held (0) it would exceed the context window less the reserve (10 - 2 = 8); not added"
      )
      assert.deepStrictEqual(yield* memory.toJSON, { version: 2, summary: "", buffer: [] })
      yield* memory.add(Message.user("hi"))
      assert.strictEqual((yield* memory.buffer).length, 1)
      assert.deepStrictEqual(calls, [])
    }))

  it("Conversations: refused inside use(); the conversation saved without it", async () => {
    const conversations = new Promise.Conversations({
      store: "memory",
      strategy: "rolling",
      contextWindow: { tokens: 10, reserveTokens: 2 },
      pinSystem: true,
      summarize: "drop"
    })
    const refused = await conversations.use("c", async (memory) => {
      await memory.addUserMessage("hi")
      try {
        await memory.addSystemMessage("a b c d e f g h i")
        return "none"
      } catch (e) {
        return (e as Error).message
      }
    })
    assert.strictEqual(
      refused,
      "pinned message (9 tokens) cannot fit: with the pinned messages held (0) it would exceed the context window less the reserve (10 - 2 = 8); not added"
    )
    const saved = await conversations.load("c")
    assert.deepStrictEqual(saved, { version: 2, summary: "", buffer: [{ role: "user", content: "hi" }] })
  })
})
