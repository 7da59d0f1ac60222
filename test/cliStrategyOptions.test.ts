/**
 * `rollmem replay` refuses an option given for a strategy that does not
 * take it (on the command line, and in each `--compare` set), naming the
 * option and the strategy; options left to their defaults are never
 * refused, and options given outside the sets are the base column's (a set
 * that changes the strategy keeps those its strategy takes).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { execFile } from "node:child_process"
import { createRequire } from "node:module"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { CliFailure } from "../src/cli/Command.js"
import * as Compare from "../src/cli/Compare.js"
import { keyOf, strategies } from "../src/cli/Replay.js"
import * as StrategyOptions from "../src/cli/StrategyOptions.js"
import * as ExtractiveSummarizer from "../src/layers/ExtractiveSummarizer.js"
import * as Options from "../src/schema/Options.js"
import * as Memory from "../src/strategies/Memory.js"
import { example, failureOf, repoRoot, type Run, runCli } from "./support/cli.js"

const replay = (args: ReadonlyArray<string>) => runCli(["replay", example, "--tokenizer", "words", ...args])

/** A successful JSON run's document. */
const jsonOf = <A>(args: ReadonlyArray<string>) =>
  Effect.map(replay(["--format", "json", ...args]), (r) => {
    assert.isTrue(Exit.isSuccess(r.exit), r.stderr)
    return JSON.parse(r.stdout) as A
  })

interface Compared {
  readonly compare: ReadonlyArray<{ readonly options: { readonly strategy: string }; readonly totals: unknown }>
}

const assertRefused = (r: Run, line: string) => {
  assert.isTrue(Exit.isFailure(r.exit))
  assert.instanceOf(failureOf(r), CliFailure)
  assert.strictEqual(r.stdout, "")
  assert.strictEqual(r.stderr, line)
}

const ROLLING =
  "--max-tokens, --target-tokens, --boundary, --pin-system, --summary-role, --summary-framing, --summary, --clear-tool-results, " +
  "--clear-until, --clear-at-least, --max-tool-result-tokens, --summarizer, --max-summary-tokens, --max-summarizer-input-tokens, --ledger-tokens, --context-window, --reserve"
const WINDOW = "--max-messages, --target-messages, --boundary, --pin-system, --summary-role, --summary-framing"
const SUMMARY =
  "--summary-role, --summary-framing, --summary, --summarizer, --max-summary-tokens, --max-summarizer-input-tokens, --ledger-tokens"

describe("StrategyOptions", () => {
  it("every option a strategy's memory takes is set by some command-line option", () => {
    const set = new Set(Object.values(StrategyOptions.memoryKeys))
    for (const strategy of strategies) {
      for (const key of Memory.optionKeys[strategy]) assert.isTrue(set.has(key), `${strategy}: ${key}`)
    }
  })

  it("what each strategy takes", () => {
    assert.deepStrictEqual(StrategyOptions.takenBy("buffer"), ["summary-role", "summary-framing"])
    assert.strictEqual(StrategyOptions.takenBy("rolling").map((n) => `--${n}`).join(", "), ROLLING)
    assert.strictEqual(StrategyOptions.takenBy("window").map((n) => `--${n}`).join(", "), WINDOW)
    assert.strictEqual(StrategyOptions.takenBy("summary").map((n) => `--${n}`).join(", "), SUMMARY)
    // options that are not a memory's apply to every strategy
    assert.isTrue(StrategyOptions.takes("buffer", "tokenizer"))
    assert.isTrue(StrategyOptions.takes("window", "strategy"))
    assert.isFalse(StrategyOptions.takes("window", "summary-tokens"))
  })
})

describe("the command line's memory options come from Options.flags", () => {
  it("each row is a --compare key (and each older name), taken by the strategies whose fields hold it", () => {
    const names = Compare.keys.map((k) => k.name)
    assert.deepStrictEqual(
      names.filter((n) => n !== "strategy" && n !== "summarizer").sort(),
      Options.flags.flatMap((row) => [row.flag, ...(row.aliases ?? [])]).sort()
    )
    for (const row of Options.flags) {
      const key = Compare.keys.find((k) => k.name === row.flag)!
      assert.strictEqual(key.kind, row.kind === "choice" ? "text" : row.kind)
      for (const strategy of strategies) {
        assert.strictEqual(StrategyOptions.takes(strategy, row.flag), Options.takes(strategy, row), row.flag)
      }
    }
    // a set's value lands under the row's key: the one place the replay reads it
    const value = (row: Options.Flag) => row.kind === "integer" ? "7" : row.kind === "flag" ? "true" : row.choices![1]
    for (const row of Options.flags) {
      const applied = Compare.keys.find((k) => k.name === row.flag)!.apply(
        { strategy: "rolling", summarizer: "none" },
        value(row)
      )
      assert.deepStrictEqual(
        applied[keyOf(row)],
        row.kind === "integer" ? 7 : row.kind === "flag" ? true : row.choices![1]
      )
    }
    assert.strictEqual(keyOf(Options.flags.find((row) => row.flag === "max-summary-tokens")!), "maxSummaryTokens")
  })

  it("the summary budget's default is the extractive summarizer's", () => {
    assert.strictEqual(
      Options.flags.find((row) => row.option === "maxSummaryTokens")!.default,
      ExtractiveSummarizer.DEFAULT_MAX_TOKENS
    )
  })

  it.effect("--help lists every row with its help, --reserve without --context-window names what it needs", () =>
    Effect.gen(function*() {
      const help = (yield* runCli(["replay", "--help"])).stdout.replace(/\u001b\[[0-9;]*m/g, "")
      for (const row of Options.flags) {
        assert.include(help, `--${row.flag}`)
        assert.include(help.replace(/\s+/g, " "), row.description)
      }
      assertRefused(
        yield* replay(["--reserve", "100"]),
        "rollmem: invalid option --reserve: needs --context-window (it is the part of the window kept for what the " +
          "memory does not hold)"
      )
      assertRefused(
        yield* replay(["--context-window", "100", "--reserve", "100"]),
        "rollmem: invalid option --reserve: must be less than --context-window (100), got 100"
      )
      assertRefused(
        yield* replay(["--context-window", "100", "--max-tokens", "50"]),
        "rollmem: invalid option --max-tokens: cannot be given with --context-window: the window less the reserve " +
          "is the budget; give one"
      )
      assertRefused(
        yield* replay(["--compare", "boundary=turns"]),
        "rollmem: invalid option --compare: \"boundary=turns\": boundary unknown value \"turns\", expected one of " +
          "aligned, turn"
      )
    }))
})

describe("rollmem replay: an option the strategy does not take", () => {
  it.effect("is refused in one line naming the option and the strategy, nothing replayed", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [
          ["--strategy", "summary", "--boundary", "turn", "--pin-system", "--target-tokens", "100"],
          `rollmem: invalid option --target-tokens: does not apply to the summary strategy (which takes ${SUMMARY})`
        ],
        [
          ["--strategy", "summary", "--boundary", "turn", "--pin-system", "--clear-tool-results", "2"],
          `rollmem: invalid option --boundary: does not apply to the summary strategy (which takes ${SUMMARY})`
        ],
        [
          ["--strategy", "buffer", "--pin-system"],
          "rollmem: invalid option --pin-system: does not apply to the buffer strategy (which takes --summary-role, --summary-framing)"
        ],
        [
          ["--strategy", "window", "--clear-tool-results", "3"],
          `rollmem: invalid option --clear-tool-results: does not apply to the window strategy (which takes ${WINDOW})`
        ],
        [
          ["--strategy", "window", "--max-tokens", "100"],
          `rollmem: invalid option --max-tokens: does not apply to the window strategy (which takes ${WINDOW})`
        ],
        [
          // given with its default value, it is still given
          ["--strategy", "window", "--max-tokens", "2000"],
          `rollmem: invalid option --max-tokens: does not apply to the window strategy (which takes ${WINDOW})`
        ],
        [
          ["--strategy", "window", "--target-tokens", "5"],
          `rollmem: invalid option --target-tokens: does not apply to the window strategy (which takes ${WINDOW})`
        ],
        [
          ["--strategy", "buffer", "--max-tokens", "100", "--target-messages", "3"],
          "rollmem: invalid option --max-tokens: does not apply to the buffer strategy (which takes --summary-role, --summary-framing)"
        ],
        [
          ["--strategy", "rolling", "--max-messages", "5", "--target-messages", "2"],
          `rollmem: invalid option --max-messages: does not apply to the rolling strategy (which takes ${ROLLING})`
        ],
        [
          ["--max-messages", "5"],
          `rollmem: invalid option --max-messages: does not apply to the rolling strategy (which takes ${ROLLING})`
        ],
        [
          ["--strategy", "buffer", "--summarizer", "none"],
          "rollmem: invalid option --summarizer: does not apply to the buffer strategy (which takes --summary-role, --summary-framing)"
        ],
        [
          ["--strategy", "window", "--summary-tokens", "100"],
          `rollmem: invalid option --max-summary-tokens: does not apply to the window strategy (which takes ${WINDOW})`
        ],
        [
          ["--strategy", "buffer", "--clear-until", "budget"],
          "rollmem: invalid option --clear-until: does not apply to the buffer strategy (which takes --summary-role, --summary-framing)"
        ],
        [
          ["--strategy", "summary", "--clear-until", "budget"],
          `rollmem: invalid option --clear-until: does not apply to the summary strategy (which takes ${SUMMARY})`
        ]
      ]
      for (const [args, line] of cases) assertRefused(yield* replay(args), line)
    }))

  it("the executable exits with code 1 and prints the one line, nothing on stdout", async () => {
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href
    const args = ["replay", example, "--tokenizer", "words", "--strategy", "buffer", "--pin-system"]
    const result = await new Promise((resolve) =>
      execFile(
        process.execPath,
        ["--import", tsx, path.join(repoRoot, "src", "bin.ts"), ...args],
        { cwd: repoRoot },
        (error, stdout, stderr) => resolve({ code: error === null ? 0 : error.code, stdout, stderr })
      )
    )
    assert.deepStrictEqual(result, {
      code: 1,
      stdout: "",
      stderr:
        "rollmem: invalid option --pin-system: does not apply to the buffer strategy (which takes --summary-role, --summary-framing)\n"
    })
  })

  it.effect("a value that is not valid is named first, as for every strategy", () =>
    Effect.gen(function*() {
      assertRefused(
        yield* replay(["--strategy", "buffer", "--max-messages", "0"]),
        "rollmem: invalid option --max-messages: must be a positive integer, got 0"
      )
    }))

  it.effect("defaults are not given: every strategy runs with only the options it takes", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [["--strategy", "buffer"], "strategy buffer, tokenizer words"],
        [["--strategy", "buffer", "--summary-role", "user"], "strategy buffer (summary-role user), tokenizer words"],
        [["--strategy", "window"], "strategy window (max-messages 20), tokenizer words"],
        [
          [
            "--strategy",
            "window",
            "--max-messages",
            "8",
            "--target-messages",
            "4",
            "--boundary",
            "turn",
            "--pin-system",
            "--summary-role",
            "user"
          ],
          "strategy window (max-messages 8) (target-messages 4, boundary turn, pin-system, summary-role user), " +
          "tokenizer words"
        ],
        [["--strategy", "summary"], "strategy summary, summarizer extractive (summary-tokens 400), tokenizer words"],
        [
          ["--strategy", "summary", "--summarizer", "extractive", "--summary-tokens", "100"],
          "strategy summary, summarizer extractive (summary-tokens 100), tokenizer words"
        ],
        [
          ["--max-tokens", "500", "--clear-tool-results", "2", "--clear-until", "budget", "--summarizer", "none"],
          "strategy rolling (max-tokens 500) (clear-tool-results 2, clear-until budget), summarizer none, " +
          "tokenizer words"
        ]
      ]
      for (const [args, title] of cases) {
        const r = yield* replay(args)
        assert.isTrue(Exit.isSuccess(r.exit), r.stderr)
        assert.strictEqual(r.stderr, "")
        assert.strictEqual(r.stdout.split("\n")[0], `rollmem replay: 1 conversation, ${title}`)
      }
    }))
})

describe("rollmem replay --compare: an option the set's strategy does not take", () => {
  it.effect("is refused naming the set", () =>
    Effect.gen(function*() {
      const window = "max-messages, target-messages, boundary, pin-system, summary-role, summary-framing"
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [
          ["--compare", "max-tokens=100,strategy=window"],
          "rollmem: invalid option --compare: \"max-tokens=100,strategy=window\": max-tokens does not apply to the " +
          `window strategy (which takes ${window})`
        ],
        [
          ["--strategy", "window", "--compare", "max-messages=5", "--compare", "max-tokens=100"],
          "rollmem: invalid option --compare: \"max-tokens=100\": max-tokens does not apply to the window strategy " +
          `(which takes ${window})`
        ],
        [
          ["--pin-system", "--compare", "strategy=buffer,pin-system=false"],
          "rollmem: invalid option --compare: \"strategy=buffer,pin-system=false\": pin-system does not apply to " +
          "the buffer strategy (which takes summary-role, summary-framing)"
        ],
        [
          ["--compare", "strategy=summary,summary-tokens=100,clear-until=budget"],
          "rollmem: invalid option --compare: \"strategy=summary,summary-tokens=100,clear-until=budget\": " +
          "clear-until does not apply to the summary strategy (which takes summary-role, summary-framing, summary, summarizer, " +
          "max-summary-tokens, max-summarizer-input-tokens, ledger-tokens)"
        ]
      ]
      for (const [args, line] of cases) assertRefused(yield* replay(args), line)
    }))

  it.effect("sets that change the strategy run when every option given applies to it", () =>
    Effect.gen(function*() {
      const doc = yield* jsonOf<Compared>([
        "--summary-role",
        "user",
        "--compare",
        "strategy=window,max-messages=6,boundary=turn",
        "--compare",
        "strategy=buffer",
        "--compare",
        "strategy=summary,summary-tokens=100"
      ])
      assert.deepStrictEqual(doc.compare.map((c) => c.options.strategy), ["rolling", "window", "buffer", "summary"])
      // which options were given is how they were checked, not an option a column ran with
      assert.isTrue(doc.compare.every((c) => !("given" in c.options)))
    }))

  it.effect("options given outside the sets are the base column's: a rolling budget beside a window", () =>
    Effect.gen(function*() {
      const doc = yield* jsonOf<Compared>([
        "--max-tokens",
        "1000",
        "--pin-system",
        "--compare",
        "strategy=window,max-messages=6",
        "--compare",
        "strategy=buffer"
      ])
      assert.deepStrictEqual(doc.compare.map((c) => c.options.strategy), ["rolling", "window", "buffer"])
      // each column as the same options given alone: the window keeps --pin-system, the buffer neither
      const alone = (args: ReadonlyArray<string>) =>
        Effect.map(jsonOf<{ readonly totals: unknown }>(args), (d) => d.totals)
      assert.deepStrictEqual(doc.compare.map((c) => c.totals), [
        yield* alone(["--max-tokens", "1000", "--pin-system"]),
        yield* alone(["--strategy", "window", "--max-messages", "6", "--pin-system"]),
        yield* alone(["--strategy", "buffer"])
      ])
    }))
})

describe("rollmem replay: options that would change nothing, and options named as they were given", () => {
  it.effect("a summary budget with --summarizer none is refused, on the command line and in a set", () =>
    Effect.gen(function*() {
      const none = "bounds the summarizer's summary: with --summarizer none there is no summary to bound"
      assertRefused(
        yield* replay(["--summarizer", "none", "--max-summary-tokens", "50"]),
        `rollmem: invalid option --max-summary-tokens: ${none}`
      )
      // under its older name too (reported as the option it is another name of)
      assertRefused(
        yield* replay(["--summarizer", "none", "--summary-tokens", "50"]),
        `rollmem: invalid option --max-summary-tokens: ${none}`
      )
      assertRefused(
        yield* replay(["--compare", "summarizer=none,max-summary-tokens=50"]),
        "rollmem: invalid option --compare: \"summarizer=none,max-summary-tokens=50\": max-summary-tokens bounds " +
          "the summarizer's summary: with summarizer none there is no summary to bound"
      )
      assertRefused(
        yield* replay(["--summarizer", "none", "--compare", "max-summary-tokens=50"]),
        "rollmem: invalid option --compare: \"max-summary-tokens=50\": max-summary-tokens bounds " +
          "the summarizer's summary: with summarizer none there is no summary to bound"
      )
      // a budget given for the base column, beside a set without a summarizer: each column as given
      const columns = yield* jsonOf<
        { readonly compare: ReadonlyArray<{ readonly options: { readonly summarizer: string } }> }
      >(["--max-summary-tokens", "50", "--compare", "summarizer=none"])
      assert.deepStrictEqual(columns.compare.map((c) => c.options.summarizer), ["extractive", "none"])
    }))

  it.effect("a ledger with --summarizer none is refused: there is no summary to hold it", () =>
    Effect.gen(function*() {
      assertRefused(
        yield* replay(["--summarizer", "none", "--ledger-tokens", "50"]),
        "rollmem: invalid option --ledger-tokens: keeps a ledger at the end of the summary: with --summarizer none " +
          "there is no summary"
      )
      assertRefused(
        yield* replay(["--compare", "summarizer=none,ledger-tokens=50"]),
        "rollmem: invalid option --compare: \"summarizer=none,ledger-tokens=50\": ledger-tokens keeps a ledger at " +
          "the end of the summary: with summarizer none there is no summary"
      )
    }))

  it.effect("a memory's refusal names the options as the command line, or the set, writes them", () =>
    Effect.gen(function*() {
      assertRefused(
        yield* replay(["--max-tokens", "50", "--target-tokens", "60"]),
        "rollmem: invalid option --target-tokens: must be at most --max-tokens (50), got 60"
      )
      assertRefused(
        yield* replay(["--max-tokens", "50", "--compare", "target-tokens=60"]),
        "rollmem: invalid option --compare: \"target-tokens=60\": target-tokens must be at most max-tokens (50), got 60"
      )
      assertRefused(
        yield* replay(["--compare", "clear-until=budget"]),
        "rollmem: invalid option --compare: \"clear-until=budget\": clear-until needs clear-tool-results " +
          "(it says when tool-result clearing spares the fold)"
      )
    }))
})
