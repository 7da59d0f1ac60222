/**
 * The options schemas (src/schema/Options.ts) and their rules (src/core/options.ts):
 * one decode per entry point, the same messages everywhere, and the public
 * synchronous constructors (`makeStepper`) the facade is built on.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Exit } from "effect"
import * as fs from "node:fs"
import * as Rules from "../src/core/options.js"
import { ConfigError } from "../src/Errors.js"
import * as Message from "../src/schema/Message.js"
import * as Options from "../src/schema/Options.js"
import * as Summarizer from "../src/services/Summarizer.js"
import * as TokenCounter from "../src/services/TokenCounter.js"
import * as BufferMemory from "../src/strategies/BufferMemory.js"
import * as Memory from "../src/strategies/Memory.js"
import * as RollingMemory from "../src/strategies/RollingMemory.js"
import * as SummaryMemory from "../src/strategies/SummaryMemory.js"
import * as WindowMemory from "../src/strategies/WindowMemory.js"

const refused = <A>(result: Either.Either<A, ConfigError>): string => {
  assert.isTrue(Either.isLeft(result))
  return Either.isLeft(result) ? result.left.message : ""
}

describe("Options.decode", () => {
  it("names the first wrong option with the rule's description", () => {
    assert.strictEqual(
      refused(Options.decode(Options.RollingOptions, { maxTokens: 100, targetTokens: 101 })),
      "invalid option targetTokens: must be at most maxTokens (100), got 101"
    )
    assert.strictEqual(
      refused(Options.decode(Options.RollingOptions, { hardMaxTokens: 10 })),
      "invalid option hardMaxTokens: needs fold: \"background\""
    )
    assert.strictEqual(
      refused(Options.decode(Options.RollingOptions, { fold: "background", maxTokens: 10, hardMaxTokens: 5 })),
      "invalid option hardMaxTokens: must be at least maxTokens (10), got 5"
    )
    assert.strictEqual(
      refused(Options.decode(Options.WindowOptions, {})),
      "invalid option maxMessages: must be a positive integer, got undefined"
    )
    assert.strictEqual(
      refused(Options.decode(Options.RollingOptions, { clearToolResults: {} })),
      "invalid option clearToolResults.keep: must be a non-negative integer, got undefined"
    )
    assert.strictEqual(
      refused(Options.decode(Options.BufferOptions, [])),
      "invalid option options: must be an object, got array"
    )
    assert.strictEqual(
      refused(Options.decode(Options.SummaryOptions, { summaryRole: "user", maxSummary: 3 })),
      "invalid option maxSummary: unknown option (known: summaryRole, summaryFraming, summary, maxSummaryTokens, maxSummarizerInputTokens, ledger, archive, conversationId)"
    )
  })

  it("counts past Number.MAX_SAFE_INTEGER are refused as out of range, naming the largest: their arithmetic is inexact", () => {
    assert.strictEqual(
      refused(Options.decode(Options.RollingOptions, { maxTokens: 1e300 })),
      "invalid option maxTokens: out of range: the largest accepted value is 9007199254740991, got 1e+300"
    )
    assert.strictEqual(
      refused(Options.decode(Options.RollingOptions, { contextWindow: { tokens: 2 ** 53, reserveTokens: 0 } })),
      "invalid option contextWindow.tokens: out of range: the largest accepted value is 9007199254740991, got " +
        "9007199254740992"
    )
    assert.strictEqual(
      refused(Options.decode(Options.RollingOptions, { clearToolResults: { keep: 2 ** 60 } })),
      "invalid option clearToolResults.keep: out of range: the largest accepted value is 9007199254740991, got " +
        "1152921504606847000"
    )
    assert.isTrue(Either.isRight(Options.decode(Options.RollingOptions, { maxTokens: Number.MAX_SAFE_INTEGER })))
  })

  it("names options as the caller writes them: the command line's flags", () => {
    const flag: Rules.Naming = (option) => `--${Options.flagOf(option)}`
    assert.strictEqual(
      refused(Options.decodeStrategy({ strategy: "rolling", maxTokens: 50, targetTokens: 60 }, undefined, flag)),
      "invalid option --target-tokens: must be at most --max-tokens (50), got 60"
    )
    assert.strictEqual(
      refused(Options.decodeStrategy({ strategy: "rolling", clearToolResults: { keep: -1 } }, undefined, flag)),
      "invalid option --clear-tool-results: must be a non-negative integer, got -1"
    )
  })

  it("a decoded value is the options as given, and is not decoded again", () => {
    const decoded = Options.decode(Options.RollingOptions, { maxTokens: 10, pinSystem: true })
    assert.deepStrictEqual(decoded, Either.right({ maxTokens: 10, pinSystem: true }))
    const value = Either.getOrThrow(decoded)
    assert.strictEqual(Either.getOrThrow(Options.decode(Options.RollingOptions, value)), value)
  })

  it("options naming their strategy: an unknown strategy, an unknown key for it", () => {
    assert.strictEqual(
      refused(Options.decodeStrategy({ strategy: "lru" })),
      "invalid option strategy: must be one of rolling, buffer, window, summary, got \"lru\""
    )
    assert.strictEqual(
      refused(Options.decodeStrategy({ strategy: "buffer", maxTokens: 3 })),
      "invalid option maxTokens: unknown option for the buffer strategy (known: strategy, summaryRole, summaryFraming)"
    )
  })

  it("Memory.optionKeys are the schemas' fields", () => {
    assert.deepStrictEqual(Memory.optionKeys, {
      rolling: [
        "maxTokens",
        "contextWindow",
        "targetTokens",
        "boundary",
        "pinSystem",
        "clearToolResults",
        "maxToolResultTokens",
        "summaryRole",
        "summaryFraming",
        "summary",
        "maxSummaryTokens",
        "maxSummarizerInputTokens",
        "ledger"
      ],
      buffer: ["summaryRole", "summaryFraming"],
      window: ["maxMessages", "targetMessages", "boundary", "pinSystem", "summaryRole", "summaryFraming"],
      summary: ["summaryRole", "summaryFraming", "summary", "maxSummaryTokens", "maxSummarizerInputTokens", "ledger"]
    })
  })

  it("the rules import nothing from Effect", () => {
    const source = fs.readFileSync(new URL("../src/core/options.ts", import.meta.url), "utf8")
    assert.deepStrictEqual(source.match(/^import .*$/gm), null)
  })
})

describe("makeStepper", () => {
  const counter = TokenCounter.wordCounter
  it("plain-function services: the constructor and every add are Exits, no fiber", () => {
    const made = RollingMemory.makeStepper({ maxTokens: 4 }, {
      counter,
      summarizer: Summarizer.fromFunction((s, ms) => `${s}${ms.length}`)
    })
    assert.isTrue(Exit.isExit(made))
    const stepper = Effect.runSync(made)
    assert.strictEqual(stepper.step(Message.user("a b c")), Exit.void)
    assert.strictEqual(stepper.step(Message.assistant("d e")), Exit.void)
    assert.strictEqual(Effect.runSync(stepper.memory.summary), "1")
    assert.deepStrictEqual(Effect.runSync(stepper.memory.buffer).map(String), ["assistant: d e"])
  })

  it("checks options and services as the context constructors do", () => {
    assert.deepStrictEqual(
      RollingMemory.makeStepper({ maxTokens: 0 }, { counter, summarizer: Summarizer.drop }),
      Exit.fail(new ConfigError({ option: "maxTokens", description: "must be a positive integer, got 0" }))
    )
    assert.deepStrictEqual(
      SummaryMemory.makeStepper(undefined, { counter, summarizer: Summarizer.drop }),
      Exit.fail(new ConfigError(Rules.summaryNeedsSummarizer))
    )
    const window = Effect.runSync(WindowMemory.makeStepper({ maxMessages: 1 }, { counter }))
    window.step(Message.user("a"))
    window.step(Message.user("b"))
    assert.deepStrictEqual(Effect.runSync(window.memory.buffer).map(String), ["user: b"])
    const buffer = Effect.runSync(BufferMemory.makeStepper(undefined, { counter }))
    assert.strictEqual(buffer.memory.strategy, "buffer")
  })
})
