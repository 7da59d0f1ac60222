import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { CliFailure } from "../src/cli/Command.js"
import * as Compare from "../src/cli/Compare.js"
import type { Options } from "../src/cli/Replay.js"
import { ConfigError } from "../src/Errors.js"
import * as TokenCounter from "../src/services/TokenCounter.js"
import { example, failureOf, runCli } from "./support/cli.js"

const base: Options = {
  strategy: "rolling",
  maxTokens: 2000,
  maxMessages: 20,
  summarizer: "extractive",
  maxSummaryTokens: 400
}

const refused = (text: string) =>
  Effect.map(Effect.flip(Compare.parse(text)), (error) => {
    assert.instanceOf(error, ConfigError)
    return error.message
  })

describe("Compare.parse and apply", () => {
  it.effect("a set changes the options it names, in order, and keeps the others", () =>
    Effect.gen(function*() {
      const set = yield* Compare.parse(" max-tokens=500 , max-summary-tokens=100,strategy=window,max-messages=6")
      assert.strictEqual(set.text, "max-tokens=500,max-summary-tokens=100,strategy=window,max-messages=6")
      assert.deepStrictEqual(Compare.apply(base, set), {
        strategy: "window",
        maxTokens: 500,
        maxMessages: 6,
        summarizer: "extractive",
        maxSummaryTokens: 100
      })
      // summary-tokens is the older name of max-summary-tokens
      assert.deepStrictEqual(Compare.apply(base, yield* Compare.parse("summary-tokens=50")).maxSummaryTokens, 50)
    }))

  it.effect("refuses an unknown key with the closest one, a repeated key, a missing or wrong value, an empty entry", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* refused("max-token=500"),
        "invalid option --compare: \"max-token=500\": unknown option max-token; did you mean max-tokens? " +
          "(known: strategy, max-tokens, max-messages, summarizer, max-summary-tokens, summary-tokens, target-tokens, " +
          "target-messages, boundary, pin-system, summary-role, summary-framing, summary, clear-tool-results, clear-until, clear-at-least, max-tool-result-tokens, max-summarizer-input-tokens, ledger-tokens, context-window, reserve)"
      )
      assert.strictEqual(
        yield* refused("max-tokens=1,max-tokens=2"),
        "invalid option --compare: \"max-tokens=1,max-tokens=2\": max-tokens is given twice"
      )
      assert.strictEqual(
        yield* refused("max-tokens"),
        "invalid option --compare: \"max-tokens\": max-tokens needs a value (max-tokens=...)"
      )
      assert.strictEqual(
        yield* refused("max-tokens=1e3"),
        "invalid option --compare: \"max-tokens=1e3\": max-tokens must be an integer, got \"1e3\""
      )
      assert.strictEqual(
        yield* refused("max-tokens=1,,strategy=window"),
        "invalid option --compare: \"max-tokens=1,,strategy=window\": an entry is empty (two commas, or one at an end)"
      )
      assert.strictEqual(yield* refused(" "), "invalid option --compare: \" \": an option set is empty")
      for (const set of ["summary-tokens=100,max-summary-tokens=200", "max-summary-tokens=100,summary-tokens=200"]) {
        assert.strictEqual(
          yield* refused(set),
          `invalid option --compare: "${set}": summary-tokens is another name of max-summary-tokens: give one`
        )
      }
    }))
})

describe("rollmem replay --compare", () => {
  it.effect("the base column is the plain replay's totals, each set the replay under its options", () =>
    Effect.gen(function*() {
      const plain = yield* runCli(["replay", example, "--format", "json", "--max-tokens", "1000"])
      const small = yield* runCli([
        "replay",
        example,
        "--format",
        "json",
        "--max-tokens",
        "500",
        "--summary-tokens",
        "100"
      ])
      const compared = yield* runCli([
        "replay",
        example,
        "--format",
        "json",
        "--max-tokens",
        "1000",
        "--compare",
        "max-tokens=500,summary-tokens=100"
      ])
      assert.isTrue(Exit.isSuccess(compared.exit), compared.stderr)
      const doc = JSON.parse(compared.stdout) as {
        compare: ReadonlyArray<{ set: string | null; options: Options; totals: unknown; conversations: unknown }>
      }
      assert.deepStrictEqual(doc.compare.map((c) => c.set), [null, "max-tokens=500,summary-tokens=100"])
      // the options given: the base column's (--max-tokens 1000) changed by the set's
      assert.deepStrictEqual(doc.compare[1].options, {
        strategy: "rolling",
        summarizer: "extractive",
        maxTokens: 500,
        maxSummaryTokens: 100
      })
      assert.deepStrictEqual(doc.compare[0].totals, JSON.parse(plain.stdout).totals)
      assert.deepStrictEqual(doc.compare[1].totals, JSON.parse(small.stdout).totals)
      assert.deepStrictEqual(doc.compare[1].conversations, JSON.parse(small.stdout).conversations)
    }))

  it.effect("a bad set is one line naming it, before anything is replayed", () =>
    Effect.gen(function*() {
      const r = yield* runCli(["replay", example, "--compare", "max-tokens=0"])
      assert.isTrue(Exit.isFailure(r.exit))
      assert.strictEqual(r.stdout, "")
      assert.strictEqual(
        r.stderr,
        "rollmem: invalid option --compare: \"max-tokens=0\": max-tokens must be a positive integer, got 0"
      )
    }))

  it.effect("an empty set (--compare \"\", which the parser would drop) is refused as a blank one is", () =>
    Effect.gen(function*() {
      for (
        const args of [
          ["--compare", ""],
          ["--compare", "max-tokens=500", "--compare", ""],
          ["--compare", " "]
        ]
      ) {
        const r = yield* runCli(["replay", example, "--tokenizer", "words", ...args])
        assert.isTrue(Exit.isFailure(r.exit))
        assert.instanceOf(failureOf(r), CliFailure)
        assert.strictEqual(r.stdout, "")
        assert.strictEqual(r.stderr, "rollmem: invalid option --compare: \"\": an option set is empty")
      }
      // after --, "" is a file (none such), and --compare too
      const after = yield* runCli(["replay", example, "--tokenizer", "words", "--", "--compare", ""])
      assert.isTrue(Exit.isFailure(after.exit))
      assert.notInclude(after.stderr, "an option set is empty")
    }))

  it.effect("the table: one row per figure, one column per set, the sets spelt out under it", () =>
    Effect.gen(function*() {
      const r = yield* runCli(["replay", example, "--compare", "max-tokens=500"])
      assert.isTrue(Exit.isSuccess(r.exit), r.stderr)
      const lines = r.stdout.split("\n")
      assert.match(lines[2], /^figure \(tokens\) +base +\[1\]$/)
      // the cost first (the figure a user pays), with its ratio to the base and what drives it
      assert.match(lines[4], /^cost +\d+ +\d+$/)
      assert.match(lines[5], /^  vs the base +1\.00x +\d\.\d\dx$/)
      assert.match(lines[8], /^prefix reuse +\d+\.\d% +\d+\.\d%$/)
      assert.match(lines[9], /^  no-fold ceiling +(\d+\.\d%) +\1$/)
      // the reuse the same contexts reach when nothing is re-sent, and the tokens re-sent uncached
      assert.match(lines[10], /^  reachable \(nothing re-sent\) +\d+\.\d% +\d+\.\d%$/)
      assert.match(lines[11], /^  re-sent uncached +4760 +\d+$/)
      assert.match(lines[12], /^folds that broke the cache +3\/3 \(100\.0%\) +\d+\/\d+ \(\d+\.\d%\)$/)
      assert.isTrue(lines.some((l) => /^valid request points +24\/24 \(100\.0%\) +\d+\/24 \(\d+\.\d%\)$/.test(l)))
      assert.include(lines, "[1] max-tokens=500")
    }))

  it.effect("summary segments: --compare summary=segments, the consolidations counted in their row", () =>
    Effect.gen(function*() {
      const r = yield* runCli([
        "replay",
        example,
        "--tokenizer",
        "words",
        "--max-tokens",
        "60",
        "--compare",
        "summary=segments,max-summary-tokens=20"
      ])
      assert.isTrue(Exit.isSuccess(r.exit), r.stderr)
      const row = r.stdout.split("\n").find((l) => l.startsWith("  of which consolidations"))
      const cells = row?.trim().split(/ +/).slice(-2).map(Number)
      assert.strictEqual(cells?.[0], 0)
      assert.isAbove(cells?.[1] ?? 0, 0)
      assert.include(r.stdout, "[1] summary=segments,max-summary-tokens=20")
    }))
})

describe("rollmem replay context-policy flags", () => {
  it.effect("each flag equals its --compare key and reaches the memory (the title names it)", () =>
    Effect.gen(function*() {
      const flags = yield* runCli([
        "replay",
        example,
        "--format",
        "json",
        "--max-tokens",
        "1000",
        "--target-tokens",
        "500",
        "--boundary",
        "turn",
        "--pin-system",
        "--summary-role",
        "user",
        "--clear-tool-results",
        "2",
        "--max-summary-tokens",
        "150"
      ])
      assert.isTrue(Exit.isSuccess(flags.exit), flags.stderr)
      const set = "target-tokens=500,boundary=turn,pin-system,summary-role=user,clear-tool-results=2,summary-tokens=150"
      const compared = yield* runCli(["replay", example, "--format", "json", "--max-tokens", "1000", "--compare", set])
      const doc = JSON.parse(compared.stdout) as { compare: ReadonlyArray<{ totals: { summarizerCalls: number } }> }
      assert.deepStrictEqual(doc.compare[1].totals, JSON.parse(flags.stdout).totals)
      // the target moves the low-water mark: fewer folds than without it
      assert.isBelow(doc.compare[1].totals.summarizerCalls, doc.compare[0].totals.summarizerCalls)
      const table = yield* runCli(["replay", example, "--boundary", "turn", "--pin-system", "--target-tokens", "900"])
      assert.strictEqual(
        table.stdout.split("\n")[0],
        "rollmem replay: 1 conversation, strategy rolling (max-tokens 2000) (target-tokens 900, boundary turn, " +
          "pin-system), summarizer extractive (summary-tokens 400), tokenizer o200k_base"
      )
    }))

  it.effect("a target above the budget, or a negative clearing, is one line naming the flag", () =>
    Effect.gen(function*() {
      const above = yield* runCli(["replay", example, "--max-tokens", "100", "--target-tokens", "200"])
      assert.isTrue(Exit.isFailure(above.exit))
      assert.match(above.stderr, /^rollmem: invalid option --target-tokens: .*200/)
      const negative = yield* runCli(["replay", example, "--clear-tool-results", "-1"])
      assert.strictEqual(
        negative.stderr,
        "rollmem: invalid option --clear-tool-results: must be a non-negative integer, got -1"
      )
    }))
})

describe("Compare.columnsOf: the two budgets replace each other", () => {
  it.effect("a set giving context-window drops the base's max-tokens, and the other way round", () =>
    Effect.gen(function*() {
      const withMax = { ...base, maxTokens: 800, given: ["max-tokens"] }
      const [, window] = yield* Compare.columnsOf(withMax, ["context-window=2000,reserve=500"])
      assert.isFalse("maxTokens" in window.options)
      assert.deepStrictEqual([window.options.contextWindow, window.options.reserve], [2000, 500])
      assert.strictEqual(window.config.maxTokens, 1500)
      const { maxTokens: _, ...noMax } = base
      const withWindow = { ...noMax, contextWindow: 3000, reserve: 500, given: ["context-window", "reserve"] }
      const [first, max] = yield* Compare.columnsOf(withWindow, ["max-tokens=1000"])
      assert.strictEqual(first.config.maxTokens, 2500)
      assert.isFalse("contextWindow" in max.options || "reserve" in max.options)
      assert.strictEqual(max.config.maxTokens, 1000)
      // a set giving both is still refused
      const both = yield* Effect.flip(Compare.columnsOf(withMax, ["context-window=2000,max-tokens=100"]))
      assert.include(both.message, "max-tokens cannot be given with context-window")
    }).pipe(Effect.provide(TokenCounter.layerWordCount)))
})
