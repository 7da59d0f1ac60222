/**
 * `contextWindow.reserveTokens` defaults to 0 in every entry point (the
 * Effect API, `Memory.make`, the Promise facade, `Conversations`), as the
 * command line's `--reserve` does (docs/contract.md section 16.1): a window
 * given without a reserve is the whole budget.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { Memory, Message, RollingMemory, Summarizer } from "../src/index.js"
import * as Facade from "../src/promise/index.js"
import * as Options from "../src/schema/Options.js"

const turns = ["one two three", "four five six", "seven eight nine", "ten eleven twelve"]

describe("contextWindow.reserveTokens defaults to 0", () => {
  it("the options schema takes a window without a reserve; a reserve given is still checked", () => {
    assert.isTrue(Either.isRight(Options.decode(Options.RollingOptions, { contextWindow: { tokens: 10 } })))
    const refused = Options.decode(Options.RollingOptions, { contextWindow: { tokens: 10, reserveTokens: -1 } })
    assert.isTrue(Either.isLeft(refused))
    if (Either.isLeft(refused)) {
      assert.strictEqual(
        refused.left.message,
        "invalid option contextWindow.reserveTokens: must be a non-negative integer, got -1"
      )
    }
  })

  it.effect("the Effect API: RollingMemory.make and Memory.make, as with reserveTokens: 0", () =>
    Effect.gen(function*() {
      const bare = yield* RollingMemory.make({ contextWindow: { tokens: 10 } })
      const zero = yield* RollingMemory.make({ contextWindow: { tokens: 10, reserveTokens: 0 } })
      const chosen = yield* Memory.make({ strategy: "rolling", contextWindow: { tokens: 10 } })
      for (const content of turns) {
        for (const memory of [bare, zero, chosen]) yield* memory.add(Message.user(content))
      }
      assert.deepStrictEqual(bare.contextWindow, { tokens: 10, reserveTokens: 0 })
      assert.strictEqual(bare.maxTokens, 10)
      const contents = (yield* bare.messages).map((m) => m.content)
      assert.deepStrictEqual(contents, ["four five six", "seven eight nine", "ten eleven twelve"])
      assert.deepStrictEqual((yield* zero.messages).map((m) => m.content), contents)
      assert.deepStrictEqual((yield* chosen.messages).map((m) => m.content), contents)
    }).pipe(Effect.provide(Summarizer.layerDrop)))

  it("the Promise facade and Conversations, as with reserveTokens: 0", async () => {
    const bare = new Facade.RollingMemory({ contextWindow: { tokens: 10 }, summarize: "drop" })
    const zero = new Facade.RollingMemory({ contextWindow: { tokens: 10, reserveTokens: 0 }, summarize: "drop" })
    for (const content of turns) {
      bare.addUserMessage(content)
      zero.addUserMessage(content)
    }
    assert.deepStrictEqual(bare.getMessages().map((m) => m.content), [
      "four five six",
      "seven eight nine",
      "ten eleven twelve"
    ])
    assert.deepStrictEqual(zero.getMessages().map((m) => m.content), [
      "four five six",
      "seven eight nine",
      "ten eleven twelve"
    ])
    const conversations = new Facade.Conversations({
      store: "memory",
      strategy: "rolling",
      contextWindow: { tokens: 10 },
      summarize: "drop"
    })
    const stored = await conversations.use("c", async (memory) => {
      for (const content of turns) await memory.addUserMessage(content)
      return memory.getMessages().map((m) => m.content)
    })
    assert.deepStrictEqual(stored, ["four five six", "seven eight nine", "ten eleven twelve"])
    await conversations.dispose()
  })
})
