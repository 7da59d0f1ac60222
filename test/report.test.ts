/**
 * `rollmem replay --report`: what the report records (exact timelines, folds,
 * rejected request points, final context), how its data is embedded (no
 * transcript text can end the script element), and its failures. The page
 * itself is checked in a real browser by reportBrowser.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, FastCheck as fc } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { html, scriptJson } from "../src/cli/Report.js"
import type { ReportDocument } from "../src/report/Data.js"
import { failureOf, repoRoot, runCli } from "./support/cli.js"
import { embedded, hostile, hostileId } from "./support/report.js"

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "rollmem-report-"))

describe("report data", () => {
  it.effect("hostile transcript, words, max-tokens 8: exact timeline, folds, rejected request point, final context", () =>
    Effect.gen(function*() {
      const file = path.join(tmp(), "hostile.html")
      const run = yield* runCli([
        "replay",
        hostile,
        "--tokenizer",
        "words",
        "--max-tokens",
        "8",
        "--report",
        file
      ])
      assert.isTrue(Exit.isSuccess(run.exit), run.stderr)
      assert.include(run.stdout, `Report: ${file} (`)
      const page = fs.readFileSync(file, "utf8")
      // Only the two closing tags of the page's own scripts: the transcript's </script> and </SCRIPT > are escaped.
      assert.strictEqual(page.match(/<\/script/gi)?.length, 2)
      assert.notInclude(page, "window.__pwned=1</script>")
      const document = embedded(page)
      assert.strictEqual(document.unit, "words")
      assert.strictEqual(document.maxTokens, 8)
      assert.isTrue(document.validityChecked)
      assert.deepStrictEqual(document.totals.columns, [
        "conversation",
        "messages",
        "prunes",
        "calls",
        "evicted",
        "peak",
        "summary",
        "context",
        "valid",
        "calls/1k",
        "sum-in",
        "sum-out",
        "mean-sent",
        "max-sent",
        "reuse",
        "cost",
        "retained"
      ])
      // Summarizer input 6 + 15 + 24, output 9 + 16 + 25; contexts sent at turns 1, 3 and 5: 3, 15 and 24 words.
      assert.deepStrictEqual(document.totals.row, [
        "total (1 conversation)",
        "6",
        "3",
        "3",
        "5",
        "max 8",
        "25",
        "30",
        "2/3",
        "500.0",
        "45",
        "50",
        "14",
        "max 24",
        "0.0%",
        "287",
        // no artifact is named: nothing to retain
        "-"
      ])
      const [c] = document.conversations
      assert.strictEqual(c.id, hostileId)
      assert.deepStrictEqual(
        { ...c, final: undefined },
        {
          id: hostileId,
          messages: 6,
          prunes: 3,
          summarizerCalls: 3,
          evictedMessages: 5,
          peakContextTokens: 30,
          requestPoints: 3,
          timeline: { buffer: [3, 6, 6, 3, 8, 5], summary: [0, 0, 9, 16, 16, 25], context: [3, 6, 15, 19, 24, 30] },
          folds: [[3, 2], [4, 1], [6, 2]],
          invalid: [[5, [
            "message 1: the first turn is an assistant message, not a user turn",
            "message 2: tool result \"job1\" does not follow its call"
          ]]],
          summaryIndex: 0,
          retention: [[1, 0, 0], [3, 0, 0], [5, 0, 0]],
          final: undefined
        }
      )
      assert.deepStrictEqual(c.final.map((m) => m.role), ["system", "assistant"])
      assert.strictEqual(c.final[1].content, "Job finished \u2028 line </SCRIPT >")
    }))

  it.effect("--target-tokens draws the target line: the document carries it beside the budget", () =>
    Effect.gen(function*() {
      const file = path.join(tmp(), "target.html")
      const run = yield* runCli([
        "replay",
        hostile,
        "--tokenizer",
        "words",
        "--max-tokens",
        "8",
        "--target-tokens",
        "4",
        "--report",
        file
      ])
      assert.isTrue(Exit.isSuccess(run.exit), run.stderr)
      const document = embedded(fs.readFileSync(file, "utf8"))
      assert.strictEqual(document.maxTokens, 8)
      assert.strictEqual(document.targetTokens, 4)
    }))

  it.effect("the final context equals what --show prints, message for message", () =>
    Effect.gen(function*() {
      const file = path.join(tmp(), "support.html")
      const example = path.join(repoRoot, "examples", "support-chat.jsonl")
      const run = yield* runCli([
        "replay",
        example,
        "--max-tokens",
        "300",
        "--format",
        "json",
        "--show",
        "support-chat",
        "--report",
        file
      ])
      assert.isTrue(Exit.isSuccess(run.exit), run.stderr)
      // JSON output stays one document on stdout; the report line goes to stderr.
      const printed = JSON.parse(run.stdout) as {
        show: { messages: unknown }
        conversations: Array<{ prunes: number }>
      }
      assert.include(run.stderr, `Report: ${file} (`)
      const [c] = embedded(fs.readFileSync(file, "utf8")).conversations
      assert.deepStrictEqual(c.final, printed.show.messages)
      assert.strictEqual(c.folds.length, printed.conversations[0].prunes)
      assert.strictEqual(c.timeline.context.length, 47)
    }))

  it.effect("--compare: one point per option set, with the figures the comparison prints", () =>
    Effect.gen(function*() {
      const file = path.join(tmp(), "compare.html")
      const run = yield* runCli([
        "replay",
        hostile,
        "--tokenizer",
        "words",
        "--max-tokens",
        "8",
        "--compare",
        "max-tokens=30",
        "--format",
        "json",
        "--report",
        file
      ])
      assert.isTrue(Exit.isSuccess(run.exit), run.stderr)
      const printed = JSON.parse(run.stdout) as {
        compare: Array<
          { set?: string; totals: { summarizerCallsPer1000Turns: number; meanRequestTokens: number; cost: number } }
        >
      }
      const document = embedded(fs.readFileSync(file, "utf8"))
      assert.deepStrictEqual(document.compare, [
        {
          label: "base (the command line's own options)",
          summarizerCallsPer1000Turns: 500,
          meanContextTokens: 14,
          cost: 287,
          retention: 1
        },
        { label: "max-tokens=30", summarizerCallsPer1000Turns: 0, meanContextTokens: 35 / 3, cost: 35, retention: 1 }
      ])
      assert.deepStrictEqual(
        document.compare?.map((c) => [c.summarizerCallsPer1000Turns, c.meanContextTokens, c.cost]),
        printed.compare.map((c) => [c.totals.summarizerCallsPer1000Turns, c.totals.meanRequestTokens, c.totals.cost])
      )
      // The conversations are those of the base options.
      assert.deepStrictEqual(document.conversations[0].folds, [[3, 2], [4, 1], [6, 2]])
    }))

  it.effect("a report in a missing directory is refused before replaying", () =>
    Effect.gen(function*() {
      const run = yield* runCli(["replay", hostile, "--report", "/no/such/dir/report.html"])
      assert.isTrue(Exit.isFailure(run.exit))
      assert.strictEqual(run.stderr, "rollmem: invalid option --report: no such directory /no/such/dir")
      assert.strictEqual(run.stdout, "")
      assert.strictEqual((failureOf(run) as { _tag: string })._tag, "CliFailure")
    }))
})

describe("report page", () => {
  it.prop(
    "scriptJson: reads back unchanged and holds no <, >, & or line separator",
    [fc.jsonValue()],
    ([value]) => {
      const text = scriptJson(value)
      assert.deepStrictEqual(JSON.parse(text), JSON.parse(JSON.stringify(value)))
      assert.isFalse(/[<>&\u2028\u2029]/.test(text))
    }
  )

  it("a hostile title is escaped in <title>; the page holds the data then the script", () => {
    const document: ReportDocument = {
      title: "rollmem replay: </title><script>alert(1)</script>",
      unit: "tokens",
      maxTokens: undefined,
      targetTokens: undefined,
      validityChecked: false,
      totals: { columns: [], row: [], legend: [] },
      conversations: [],
      compare: undefined
    }
    const page = html(document, "/* page */")
    assert.include(page, "<title>rollmem report: &#60;/title&#62;&#60;script&#62;alert(1)&#60;/script&#62;</title>")
    assert.strictEqual(page.match(/<\/script/gi)?.length, 2)
    assert.deepStrictEqual(embedded(page), JSON.parse(JSON.stringify(document)))
    assert.include(page, "<script>/* page */</script>")
  })
})
