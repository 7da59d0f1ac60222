/**
 * The HTML report in a real browser: Debian's Chromium, headless, driven by
 * playwright-core. Reports of known replays are opened from disk; each test
 * checks the charts' series and fold markers, that choosing a conversation
 * shows its exact final context, that nothing is logged as an error, and
 * writes a screenshot to test-artifacts/ (gitignored).
 *
 * Skips, saying why, where no Chromium is installed (`apt-get install -y
 * chromium`; `.ci/run` installs it); under CI=true a missing browser fails.
 * The real-data cases read `$ROLLMEM_DATA` or ../shared/data and skip when
 * it is absent.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import type { BrowserContext, Page } from "playwright-core"
import * as TokenizerLayers from "../src/layers/Tokenizers.js"
import type { ConversationReport, ReportDocument, WireMessage } from "../src/report/Data.js"
import * as Message from "../src/schema/Message.js"
import * as Summarizer from "../src/services/Summarizer.js"
import * as RollingMemory from "../src/strategies/RollingMemory.js"
import * as Validity from "../src/Validity.js"
import { artifacts, launch, missingBrowser, requireBrowser } from "./support/browser.js"
import { readJsonl, repoRoot, runCli } from "./support/cli.js"
import { dataPath } from "./support/data.js"
import { embedded, hostile, hostileId } from "./support/report.js"

const agenticFile = dataPath("conversations-agentic.jsonl")
const longFile = dataPath("conversations-long.jsonl")
const noData = (file: string) => fs.existsSync(file) ? undefined : `no ${file} (set ROLLMEM_DATA to the data folder)`

const skipBrowser = missingBrowser !== undefined && !requireBrowser
const why = (reason: string | undefined) => reason === undefined ? "" : ` (skipped: ${reason})`

let browser: BrowserContext | undefined
let close: (() => Promise<void>) | undefined

beforeAll(async () => {
  if (missingBrowser !== undefined) {
    if (requireBrowser) throw new Error(`CI=true and ${missingBrowser}`)
    return
  }
  fs.mkdirSync(artifacts, { recursive: true })
  ;({ browser, close } = await launch())
}, 60_000)

afterAll(async () => {
  await close?.()
})

/** Writes the report of `rollmem replay <args> --report` to the artifacts folder and returns its path. */
const writeReport = (name: string, args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const file = path.join(artifacts, `${name}.html`)
    const run = yield* runCli(["replay", ...args, "--format", "json", "--report", file])
    assert.isTrue(Exit.isSuccess(run.exit), run.stderr)
    return { file, printed: JSON.parse(run.stdout) as Printed }
  })

interface Printed {
  readonly conversations: ReadonlyArray<{ readonly id: string; readonly prunes: number }>
  readonly show?: { readonly id: string; readonly messages: ReadonlyArray<WireMessage> }
}

interface Opened {
  readonly page: Page
  /** Errors logged to the console, and uncaught exceptions. */
  readonly errors: Array<string>
  readonly document: ReportDocument
}

const open = (file: string): Effect.Effect<Opened> =>
  Effect.promise(async () => {
    const page = await browser!.newPage()
    const errors: Array<string> = []
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text())
    })
    page.on("pageerror", (error) => errors.push(error.message))
    page.on("request", (request) => {
      if (!request.url().startsWith("file:")) errors.push(`network request: ${request.url()}`)
    })
    await page.goto(pathToFileURL(file).href)
    await page.waitForSelector("html[data-ready]")
    return { page, errors, document: embedded(fs.readFileSync(file, "utf8")) }
  })

interface DrawnDataset {
  readonly id: string
  readonly label: string
  readonly points: number
  readonly ys: ReadonlyArray<number>
}

/** The datasets of the chart drawn on `#canvasId`, and how many of its pixels are painted. */
const chartOf = (page: Page, canvasId: string) =>
  Effect.promise(() =>
    page.evaluate((id) => {
      const canvas = document.getElementById(id) as HTMLCanvasElement
      interface Drawn {
        readonly data: {
          readonly datasets: ReadonlyArray<{ id: string; label: string; data: ReadonlyArray<{ y: number }> }>
        }
      }
      const Chart = (window as unknown as { Chart: { getChart: (c: HTMLCanvasElement) => Drawn } }).Chart
      const chart = Chart.getChart(canvas)
      const pixels = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height).data
      let painted = 0
      for (let i = 3; i < pixels.length; i += 4) if (pixels[i] !== 0) painted++
      return {
        painted,
        datasets: chart.data.datasets.map((d) => ({
          id: d.id,
          label: d.label,
          points: d.data.length,
          ys: d.data.map((p) => p.y)
        }))
      }
    }, canvasId)
  )

/** The final context as the page shows it: one entry per message element, in page order. */
const shownContext = (page: Page) =>
  Effect.promise(() =>
    page.evaluate(() =>
      Array.from(document.querySelectorAll("#final-context .message")).map((element) => {
        const e = element as HTMLElement
        return {
          role: e.dataset.role,
          content: e.querySelector("pre.content")!.textContent,
          toolCallId: e.dataset.toolCallId ?? null,
          calls: Array.from(e.querySelectorAll("code.call")).map((c) => c.textContent),
          summary: e.classList.contains("kind-summary"),
          grouped: e.parentElement!.classList.contains("tool-group")
        }
      })
    )
  )

const expectedContext = (messages: ReadonlyArray<WireMessage>, summaryIndex: number) =>
  messages.map((m, i) => ({
    role: m.role,
    content: m.content,
    toolCallId: m.tool_call_id ?? null,
    calls: (m.tool_calls ?? []).map((c) => `${c.name}(${c.arguments})`),
    summary: i === summaryIndex
  }))

const choose = (page: Page, index: number, id: string) =>
  Effect.promise(async () => {
    await page.click(`#conversation-list tbody tr[data-index="${index}"]`)
    await page.waitForFunction((expected) => document.getElementById("selected-id")?.textContent === expected, id)
  })

const screenshot = (page: Page, name: string, fullPage = true) =>
  Effect.promise(() => page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage }))

const expectedSeries = (c: ConversationReport, budget: boolean) => [
  { id: "context", points: c.messages },
  { id: "buffer", points: c.messages },
  { id: "summary", points: c.messages },
  ...(budget ? [{ id: "budget", points: 2 }] : []),
  { id: "folds", points: c.folds.length },
  { id: "invalid", points: c.invalid.length },
  // retention at each request point (a conversation that names no artifact draws none)
  ...(c.retention.length > 0 ? [{ id: "retention", points: c.retention.length }] : [])
]

/** Independently of the report: rejected request points per conversation, replayed with RollingMemory. */
const rejectedRequestPoints = (file: string, maxTokens: number) =>
  Effect.gen(function*() {
    const counts: Array<number> = []
    for (const conversation of readJsonl(file)) {
      const memory = yield* RollingMemory.make({ maxTokens })
      let rejected = 0
      for (let i = 0; i < conversation.messages.length; i++) {
        yield* memory.add(conversation.messages[i])
        if (conversation.messages[i + 1]?.role === Message.ASSISTANT) {
          if (!Validity.isValid(yield* memory.messages)) rejected++
        }
      }
      counts.push(rejected)
    }
    return counts
  }).pipe(Effect.provide(TokenizerLayers.layerO200kBase), Effect.provide(Summarizer.layerDrop))

describe.skipIf(skipBrowser)(`report in headless Chromium${why(missingBrowser)}`, () => {
  it.effect("one hostile conversation: the transcript's HTML and </script> are shown as text, never run", () =>
    Effect.gen(function*() {
      const { file, printed } = yield* writeReport("report-hostile", [
        hostile,
        "--tokenizer",
        "words",
        "--max-tokens",
        "8",
        "--show",
        hostileId
      ])
      const { document, errors, page } = yield* open(file)
      const pwned = yield* Effect.promise(() =>
        page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)
      )
      assert.strictEqual(pwned, undefined)
      assert.strictEqual(yield* Effect.promise(() => page.locator("#selected-id").textContent()), hostileId)
      assert.strictEqual(yield* Effect.promise(() => page.locator("img").count()), 0)
      const [c] = document.conversations
      const chart = yield* chartOf(page, "timeline")
      assert.isAbove(chart.painted, 1000)
      assert.deepStrictEqual(
        chart.datasets.map((d: DrawnDataset) => ({ id: d.id, points: d.points })),
        expectedSeries(c, true)
      )
      assert.deepStrictEqual(chart.datasets.map((d: DrawnDataset) => d.label), [
        "context (summary + buffer)",
        "buffer (recent turns, verbatim)",
        "summary (folded turns)",
        "budget: 8",
        "fold: −N messages evicted (3)",
        "request a strict provider rejects (1 of 3)",
        "artifacts retained (% of those named so far, right axis)"
      ])
      assert.deepStrictEqual(chart.datasets[0].ys, [3, 6, 15, 19, 24, 30])
      assert.strictEqual(c.folds.length, printed.conversations[0].prunes)
      const shown = yield* shownContext(page)
      assert.deepStrictEqual(shown.map(({ grouped: _, ...m }) => m), expectedContext(printed.show!.messages, 0))
      assert.strictEqual(shown[1].content, "Job finished \u2028 line </SCRIPT >")
      yield* screenshot(page, "report-hostile")
      assert.deepStrictEqual(errors, [])
      yield* Effect.promise(() => page.close())
    }))

  it.effect("--compare: the trade-off chart has one point per option set, the table its cost column", () =>
    Effect.gen(function*() {
      const { file } = yield* writeReport("report-compare", [
        hostile,
        "--tokenizer",
        "words",
        "--max-tokens",
        "8",
        "--compare",
        "max-tokens=30"
      ])
      const { errors, page } = yield* open(file)
      const chart = yield* chartOf(page, "compare-chart")
      assert.isAbove(chart.painted, 500)
      assert.deepStrictEqual(chart.datasets.map((d: DrawnDataset) => [d.label, d.points, d.ys]), [
        ["base (the command line's own options)", 1, [500]],
        ["max-tokens=30", 1, [0]]
      ])
      const rows = yield* Effect.promise(() =>
        page.$$eval(
          "#compare-table tbody tr",
          (trs) => trs.map((tr) => Array.from(tr.children).map((cell) => cell.textContent ?? ""))
        )
      )
      assert.deepStrictEqual(rows, [
        ["base (the command line's own options)", "500.0", "14", "287", "100.0%"],
        ["max-tokens=30", "0.0", "12", "35", "100.0%"]
      ])
      yield* screenshot(page, "report-compare")
      assert.deepStrictEqual(errors, [])
      yield* Effect.promise(() => page.close())
    }))

  it.effect("tool calls are grouped with their results; an orphaned result stands alone, marked", () =>
    Effect.gen(function*() {
      // Budget 30 words keeps the tool exchange whole in the final context.
      const { file } = yield* writeReport("report-hostile-30", [hostile, "--tokenizer", "words", "--max-tokens", "30"])
      const { errors, page } = yield* open(file)
      const shown = yield* shownContext(page)
      assert.deepStrictEqual(
        shown.map((m) => [m.role, m.toolCallId, m.calls.length, m.grouped]),
        [
          ["user", null, 0, false],
          ["assistant", null, 1, true],
          ["user", null, 0, false],
          ["assistant", null, 0, false],
          ["tool", "job1", 0, false],
          ["assistant", null, 0, false]
        ]
      )
      const orphanTag = yield* Effect.promise(() => page.locator(".kind-orphan .tag.bad").textContent())
      assert.strictEqual(orphanTag, "its call is not in the context")
      assert.deepStrictEqual(errors, [])
      yield* Effect.promise(() => page.close())
    }))

  it.effect("the example transcript: the totals as the table prints them, the summary set apart, the exact final context", () =>
    Effect.gen(function*() {
      const example = path.join(repoRoot, "examples", "support-chat.jsonl")
      const { file, printed } = yield* writeReport("report-support-chat", [
        example,
        "--max-tokens",
        "300",
        "--show",
        "support-chat"
      ])
      const { document, errors, page } = yield* open(file)
      const [c] = document.conversations
      const chart = yield* chartOf(page, "timeline")
      assert.deepStrictEqual(
        chart.datasets.map((d: DrawnDataset) => ({ id: d.id, points: d.points })),
        expectedSeries(c, true)
      )
      assert.strictEqual(chart.datasets[4].points, printed.conversations[0].prunes)
      const shown = yield* shownContext(page)
      assert.deepStrictEqual(
        shown.map(({ grouped: _, ...m }) => m),
        expectedContext(printed.show!.messages, c.summaryIndex)
      )
      const totals = yield* Effect.promise(() =>
        page.$$eval(
          "#totals-table tbody td, #totals-table tbody th",
          (cells) => cells.map((cell) => cell.textContent ?? "")
        )
      )
      assert.deepStrictEqual(totals, [...document.totals.row])
      yield* screenshot(page, "report-support-chat")
      assert.deepStrictEqual(errors, [])
      yield* Effect.promise(() => page.close())
    }))

  it.effect.skipIf(noData(agenticFile) !== undefined)(
    `202 agentic conversations: under 5 MB, first chart within 2 s of load, sorting, exact final context${
      why(noData(agenticFile))
    }`,
    () =>
      Effect.gen(function*() {
        const swe = readJsonl(agenticFile).find((c) => c.id.startsWith("swe-agent"))!.id
        const { file, printed } = yield* writeReport("report-agentic", [agenticFile, "--show", swe])
        const bytes = fs.statSync(file).size
        assert.isBelow(bytes, 5 * 1024 * 1024)
        const { document, errors, page } = yield* open(file)
        const timing = yield* Effect.promise(() =>
          page.evaluate(() => {
            const navigation = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming
            const mark = performance.getEntriesByName("rollmem:first-chart")[0]
            return { firstChart: mark.startTime, loadEvent: navigation.loadEventStart }
          })
        )
        const firstChartAfterLoad = timing.firstChart - timing.loadEvent
        fs.writeFileSync(
          path.join(artifacts, "report-agentic-timing.json"),
          JSON.stringify({ bytes, ...timing, firstChartAfterLoad }, null, 2)
        )
        assert.isAtMost(firstChartAfterLoad, 2000)
        assert.strictEqual(document.conversations.length, 202)
        // The rejected request points, counted independently of the report.
        const rejected = yield* rejectedRequestPoints(agenticFile, 2000)
        assert.deepStrictEqual(document.conversations.map((c) => c.invalid.length), rejected)
        // The first conversation is shown first: its chart has one fold marker per prune.
        const first = yield* chartOf(page, "timeline")
        assert.deepStrictEqual(
          first.datasets.map((d: DrawnDataset) => ({ id: d.id, points: d.points })),
          expectedSeries(document.conversations[0], true)
        )
        assert.strictEqual(first.datasets[4].points, printed.conversations[0].prunes)
        // Sorting by rejected requests, most first: the list's first row is the conversation with the most.
        yield* Effect.promise(() => page.click("button[data-sort=invalid]"))
        const topRow = yield* Effect.promise(() =>
          page.$eval("#conversation-list tbody tr", (row) => Number((row as HTMLElement).dataset.index))
        )
        assert.strictEqual(document.conversations[topRow].invalid.length, Math.max(...rejected))
        // Choosing the SWE-agent run shows its exact final context and redraws the chart.
        const index = document.conversations.findIndex((c) => c.id === swe)
        yield* choose(page, index, swe)
        const chosen = document.conversations[index]
        const chart = yield* chartOf(page, "timeline")
        assert.deepStrictEqual(
          chart.datasets.map((d: DrawnDataset) => ({ id: d.id, points: d.points })),
          expectedSeries(chosen, true)
        )
        assert.strictEqual(chart.datasets[4].points, printed.conversations[index].prunes)
        const shown = yield* shownContext(page)
        assert.deepStrictEqual(
          shown.map(({ grouped: _, ...m }) => m),
          expectedContext(printed.show!.messages, chosen.summaryIndex)
        )
        yield* screenshot(page, "report-agentic", false)
        assert.deepStrictEqual(errors, [])
        yield* Effect.promise(() => page.close())
      }),
    300_000
  )

  it.effect.skipIf(noData(longFile) !== undefined)(
    `24 long sessions (up to 466 turns): every timeline drawn whole${why(noData(longFile))}`,
    () =>
      Effect.gen(function*() {
        const { file, printed } = yield* writeReport("report-long", [longFile, "--max-tokens", "8000"])
        const { document, errors, page } = yield* open(file)
        assert.strictEqual(document.conversations.length, 24)
        const longest = document.conversations.reduce((a, b) => (b.messages > a.messages ? b : a))
        assert.strictEqual(longest.messages, 466)
        const index = document.conversations.indexOf(longest)
        yield* choose(page, index, longest.id)
        const chart = yield* chartOf(page, "timeline")
        assert.deepStrictEqual(
          chart.datasets.map((d: DrawnDataset) => ({ id: d.id, points: d.points })),
          expectedSeries(longest, true)
        )
        assert.strictEqual(chart.datasets[4].points, printed.conversations[index].prunes)
        assert.isAbove(chart.painted, 1000)
        yield* screenshot(page, "report-long", false)
        assert.deepStrictEqual(errors, [])
        yield* Effect.promise(() => page.close())
      }),
    300_000
  )
})
