/**
 * The context-policy options (docs/contract.md section 10) as a user meets
 * them: checked like every option, read back through the Effect API and the
 * Promise facade, `summaryTokens` / `contextTokens`, the summary budget and
 * `addMessages`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { ConfigError, SummaryBudgetError, TokenCountError } from "../src/Errors.js"
import * as Facade from "../src/promise/index.js"
import * as Message from "../src/schema/Message.js"
import * as Summarizer from "../src/services/Summarizer.js"
import * as TokenCounter from "../src/services/TokenCounter.js"
import * as BufferMemory from "../src/strategies/BufferMemory.js"
import * as RollingMemory from "../src/strategies/RollingMemory.js"
import * as SummaryMemory from "../src/strategies/SummaryMemory.js"
import * as WindowMemory from "../src/strategies/WindowMemory.js"
import { a, call, result, u } from "./support/harness.js"

const configError = (effect: Effect.Effect<unknown, unknown, never>) => {
  const exit = Effect.runSyncExit(effect)
  assert.isTrue(Exit.isFailure(exit))
  const error = Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : undefined
  assert.instanceOf(error, ConfigError)
  return (error as ConfigError).message
}

describe("options are checked (ConfigError)", () => {
  it("RollingMemory", () => {
    const bad = (options: unknown) =>
      configError(RollingMemory.make(options as RollingMemory.Options).pipe(Effect.provide(Summarizer.layerDrop)))
    assert.strictEqual(
      bad({ maxTokens: 100, targetTokens: 101 }),
      "invalid option targetTokens: must be at most maxTokens (100), got 101"
    )
    assert.strictEqual(bad({ targetTokens: 0 }), "invalid option targetTokens: must be a positive integer, got 0")
    assert.strictEqual(
      bad({ boundary: "turns" }),
      "invalid option boundary: must be \"aligned\" or \"turn\", got \"turns\""
    )
    assert.strictEqual(bad({ pinSystem: "yes" }), "invalid option pinSystem: must be a boolean, got \"yes\"")
    assert.strictEqual(
      bad({ summaryRole: "assistant" }),
      "invalid option summaryRole: must be \"system\" or \"user\", got \"assistant\""
    )
    assert.strictEqual(
      bad({ maxSummaryTokens: 1.5 }),
      "invalid option maxSummaryTokens: must be a positive integer, got 1.5"
    )
    assert.strictEqual(
      bad({ clearToolResults: 3 }),
      "invalid option clearToolResults: must be an object { keep, placeholder?, until?, atLeast?, exclude? }, got 3"
    )
    assert.strictEqual(
      bad({ clearToolResults: null }),
      "invalid option clearToolResults: must be an object { keep, placeholder?, until?, atLeast?, exclude? }, got null"
    )
    assert.strictEqual(
      bad({ clearToolResults: { keep: -1 } }),
      "invalid option clearToolResults.keep: must be a non-negative integer, got -1"
    )
    assert.strictEqual(
      bad({ clearToolResults: { keep: 1, placeholder: 2 } }),
      "invalid option clearToolResults.placeholder: must be a string, got 2"
    )
    assert.strictEqual(
      bad({ clearToolResults: { kep: 1 } }),
      "invalid option clearToolResults.kep: unknown option (known: keep, placeholder, until, atLeast, exclude)"
    )
    assert.strictEqual(
      bad({ clearToolResults: { keep: 1, atLeast: 0 } }),
      "invalid option clearToolResults.atLeast: must be a positive integer, got 0"
    )
    assert.strictEqual(
      bad({ clearToolResults: { keep: 1, exclude: "search" } }),
      "invalid option clearToolResults.exclude: must be an array of tool names, got \"search\""
    )
    assert.strictEqual(
      bad({ clearToolResults: { keep: 1, exclude: ["search", ""] } }),
      "invalid option clearToolResults.exclude: must be an array of tool names (non-empty strings), got \"\" at 1"
    )
    assert.strictEqual(
      bad({ clearToolResults: { keep: 1, until: "buget" } }),
      "invalid option clearToolResults.until: must be \"target\" or \"budget\", got \"buget\""
    )
    assert.strictEqual(
      bad({ clearToolResults: { keep: 1, until: true } }),
      "invalid option clearToolResults.until: must be \"target\" or \"budget\", got boolean"
    )
  })

  it("WindowMemory, BufferMemory, SummaryMemory", () => {
    assert.strictEqual(
      configError(WindowMemory.make({ maxMessages: 4, targetMessages: 5 })),
      "invalid option targetMessages: must be at most maxMessages (4), got 5"
    )
    assert.strictEqual(
      configError(WindowMemory.make({ maxMessages: 4, clearToolResults: { keep: 1 } } as WindowMemory.Options)),
      "invalid option clearToolResults: unknown option (known: maxMessages, targetMessages, boundary, pinSystem, summaryRole, summaryFraming, archive, conversationId)"
    )
    assert.strictEqual(
      configError(BufferMemory.make({ summaryRole: "tool" as "user" })),
      "invalid option summaryRole: must be \"system\" or \"user\", got \"tool\""
    )
    assert.strictEqual(
      configError(
        SummaryMemory.make({ maxSummaryTokens: 0 }).pipe(Effect.provide(Summarizer.layerFunction(() => "s")))
      ),
      "invalid option maxSummaryTokens: must be a positive integer, got 0"
    )
  })

  it("the facade refuses a misspelt policy key and checks values", () => {
    assert.throws(
      () => new Facade.RollingMemory({ targetToken: 5, summarize: "drop" } as Facade.RollingOptions),
      ConfigError,
      "unknown option"
    )
    assert.throws(
      () => new Facade.RollingMemory({ maxTokens: 10, targetTokens: 20, summarize: "drop" }),
      ConfigError,
      "at most maxTokens"
    )
    assert.throws(() => new Facade.WindowMemory({ maxMessages: 3, boundary: "x" as "turn" }), ConfigError, "boundary")
  })
})

describe("summaryTokens, contextTokens, summaryRole, pinned messages read back", () => {
  it.effect("counted once per committed fold; context = pinned + summary + buffer", () =>
    Effect.gen(function*() {
      const memory = yield* RollingMemory.make({ maxTokens: 10, pinSystem: true, summaryRole: "user" }).pipe(
        Effect.provide(Summarizer.layerFunction((s, ms) => `${s} folded ${ms.length}`.trim()))
      )
      yield* memory.add(Message.system("be brief"))
      for (const m of [u("u1"), a("a1"), u("u2")]) yield* memory.add(m)
      assert.strictEqual(yield* memory.summary, "folded 2")
      assert.strictEqual(yield* memory.summaryTokens, 2)
      assert.strictEqual(yield* memory.bufferTokens, 5) // what maxTokens bounds: "be brief" is pinned
      assert.strictEqual(yield* memory.pinnedTokens, 2)
      assert.strictEqual(yield* memory.contextTokens, 9)
      assert.deepStrictEqual((yield* memory.messages).map(String), [
        "system: be brief",
        "user: folded 2",
        "user: u2 w w w w"
      ])
      const restored = yield* RollingMemory.fromJSON(yield* memory.toJSON, { maxTokens: 10, pinSystem: true })
      assert.strictEqual(yield* restored.summaryTokens, 2)
      yield* memory.clear
      assert.strictEqual(yield* memory.summaryTokens, 0)
      assert.strictEqual(yield* memory.contextTokens, 0)
    }).pipe(Effect.provide(Summarizer.layerDrop)))

  it("bufferTokens is what the budget bounds, pinned messages aside, in every strategy and the facade (contract 3, 10.3)", () => {
    const pinned = "you are a travel agent w w w" // 8 words, pinned
    const turns = ["u1 w w w", "a1 w w w", "u2 w w w", "a2 w w w", "u3 w w w"]
    const counts = (m: {
      readonly bufferTokens: number
      readonly pinnedTokens: number
      readonly summaryTokens: number
      readonly contextTokens: number
    }) => [m.bufferTokens, m.pinnedTokens, m.summaryTokens, m.contextTokens]
    const rolling = new Facade.RollingMemory({
      maxTokens: 8,
      pinSystem: true,
      summarize: (s, ms) => `${s}+${ms.length}`
    })
    const window = new Facade.WindowMemory({ maxMessages: 2, pinSystem: true })
    const buffer = new Facade.BufferMemory()
    for (const memory of [rolling, window, buffer]) {
      memory.addSystemMessage(pinned)
      for (const [i, text] of turns.entries()) memory.addMessage(i % 2 === 0 ? "user" : "assistant", text)
    }
    // rolling: the budget of 8 bounds the unpinned turns; two folds of two turns each leave u3
    assert.deepStrictEqual(rolling.buffer.map((m) => m.content), [pinned, "u3 w w w"])
    assert.deepStrictEqual(counts(rolling), [4, 8, 1, 13])
    assert.isAtMost(rolling.bufferTokens, rolling.maxTokens)
    assert.deepStrictEqual(window.buffer.map((m) => m.content), [pinned, "u3 w w w"])
    assert.deepStrictEqual(counts(window), [4, 8, 0, 12])
    // without pinSystem nothing is pinned: every message counts against the buffer
    assert.deepStrictEqual(counts(buffer), [28, 0, 0, 28])
  })

  it("the facade exposes them, and the options", () => {
    const memory = new Facade.RollingMemory({
      maxTokens: 10,
      targetTokens: 5,
      boundary: "turn",
      summarize: (s, ms) => `${s}+${ms.length}`
    })
    for (const m of ["u1", "u2", "u3"]) memory.addUserMessage(`${m} w w w w`)
    assert.strictEqual(memory.summary, "+2")
    assert.strictEqual(memory.summaryTokens, 1)
    assert.strictEqual(memory.contextTokens, 6)
    assert.deepStrictEqual(memory.getMessages().map(String), ["system: +2", "user: u3 w w w w"])
  })
})

describe("maxSummaryTokens", () => {
  it.effect("a summary over the budget fails the fold with SummaryBudgetError, committing nothing", () =>
    Effect.gen(function*() {
      const memory = yield* RollingMemory.make({ maxTokens: 10, maxSummaryTokens: 3 }).pipe(
        Effect.provide(Summarizer.layerFunction(() => "one two three four"))
      )
      yield* memory.add(u("u1"))
      yield* memory.add(a("a1"))
      const error = yield* Effect.flip(memory.add(u("u2")))
      assert.instanceOf(error, SummaryBudgetError)
      assert.deepStrictEqual({
        tokens: (error as SummaryBudgetError).tokens,
        max: (error as SummaryBudgetError).maxSummaryTokens
      }, { tokens: 4, max: 3 })
      assert.strictEqual(yield* memory.summary, "")
      assert.deepStrictEqual((yield* memory.buffer).map(String), [
        "user: u1 w w w w",
        "assistant: a1 w w w w",
        "user: u2 w w w w"
      ])
    }))

  it.effect("SummaryMemory too", () =>
    Effect.gen(function*() {
      const memory = yield* SummaryMemory.make({ maxSummaryTokens: 2 }).pipe(
        Effect.provide(Summarizer.layerFunction((s, ms) => `${s} ${ms.map((m) => m.content).join(" ")}`.trim()))
      )
      yield* memory.add(Message.user("hi"))
      assert.strictEqual(yield* memory.summaryTokens, 1)
      const error = yield* Effect.flip(memory.add(Message.user("hello there")))
      assert.instanceOf(error, SummaryBudgetError)
      assert.strictEqual(yield* memory.summary, "hi")
    }))
})

describe("addMessages (docs/contract.md section 10.7)", () => {
  it.effect("appends every message, then prunes once: a call is never split from its results", () =>
    Effect.gen(function*() {
      const calls: Array<ReadonlyArray<string>> = []
      const memory = yield* RollingMemory.make({ maxTokens: 8 }).pipe(
        Effect.provide(Summarizer.layerFunction((_summary, ms) => {
          calls.push(ms.map(String))
          return "s"
        }))
      )
      yield* memory.add(u("u1"))
      yield* memory.addMessages([call("x"), result("x", "a b c"), result("x", "d e f")])
      // one prune after all three: u1 goes; the call stays with both results
      assert.deepStrictEqual(calls, [["user: u1 w w w w"]])
      assert.deepStrictEqual((yield* memory.buffer).map(String), [
        "assistant:  [tool calls: f({})]",
        "tool: a b c",
        "tool: d e f"
      ])
    }))

  it.effect("a failed count appends none of them", () =>
    Effect.gen(function*() {
      const memory = yield* BufferMemory.make().pipe(
        Effect.provide(
          Layer.succeed(TokenCounter.TokenCounter, TokenCounter.fromFunction((t) => (t === "bad" ? -1 : 1)))
        )
      )
      const error = yield* Effect.flip(memory.addMessages([Message.user("ok"), Message.user("bad")]))
      assert.instanceOf(error, TokenCountError)
      assert.deepStrictEqual(yield* memory.buffer, [])
      yield* memory.addMessages([])
      assert.deepStrictEqual(yield* memory.buffer, [])
    }))

  it("through the facade", async () => {
    const memory = new Facade.AsyncRollingMemory({ maxTokens: 100, summarize: async () => "s" })
    await memory.addMessages([Message.user("hi"), call("k"), result("k")])
    assert.deepStrictEqual(memory.getMessages().map(String), [
      "user: hi",
      "assistant:  [tool calls: f({})]",
      "tool: ok"
    ])
    const sync = new Facade.WindowMemory({ maxMessages: 2, boundary: "turn" })
    sync.addMessages([Message.assistant("hello"), Message.user("hi")])
    assert.deepStrictEqual(sync.getMessages().map(String), ["user: hi"])
  })
})
