/**
 * Section "lines": the Effect 4 line (`effect4/`, built to `effect4/dist`)
 * against the Effect 3 line (`dist/`), in the same run (issue 31's goals:
 * the Effect 4 line's replay within 1.10x of the Effect 3 line's, its facade
 * bundle no larger than the Effect 3 facade's).
 *
 * - **Replay.** At each budget, the whole data set replayed through each
 *   line's Effect API (`RollingMemory.make({ maxTokens })` per conversation,
 *   `add` per message, run with each line's `runSync`) and each line's Promise
 *   facade (`new RollingMemory({ maxTokens, summarize, tokenCounter })`,
 *   `addMessage` with raw fields), with the same o200k_base count function
 *   and a summarizer that answers at once. The messages are decoded by each
 *   line before timing. Paired rounds as in the replay section: after a
 *   warm-up round, every round runs each task once (order rotated), and the
 *   figure is the median over the rounds of the Effect 4 over Effect 3 ratio
 *   of the same round, with its range.
 * - **Bundle.** Each line's `rollmem/promise` (its built JavaScript) bundled
 *   from the same entry with esbuild (`--bundle --minify --format=esm
 *   --platform=node`, no externals), in bytes and gzipped (level 9).
 */
import { Effect as Effect3, Layer as Layer3 } from "effect"
import * as esbuild from "esbuild"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as zlib from "node:zlib"
import * as E3 from "../../../dist/index.js"
import { RollingMemory as Facade3 } from "../../../dist/promise/index.js"
import * as E4 from "../../../effect4/dist/effect4/src/index.js"
import { RollingMemory as Facade4 } from "../../../effect4/dist/effect4/src/promise/index.js"
import type { Conversation } from "../data.js"
import { formatTiming, measure, type RunOptions, type Timing } from "../harness.js"
import { clearCaches, countO200k, instantSummary } from "../rollmem.js"
import { BUDGETS, combine, type Ratio, ratioOf } from "./replay.js"

/** What the Effect 4 line's `effect` is: its own install under `effect4/node_modules`. */
const { Effect: Effect4, Layer: Layer4 } = await import("../../../effect4/node_modules/effect/dist/index.js")

const ROOT = path.resolve(import.meta.dirname, "../../..")

/** The replay figures of one budget. */
export interface LinesReplay {
  readonly budget: number
  readonly effect3: Timing
  readonly effect4: Timing
  readonly facade3: Timing
  readonly facade4: Timing
  /** Effect 4 over Effect 3, the Effect API (goal: <= 1.10). */
  readonly effectRatio: Ratio
  /** Effect 4 over Effect 3, the Promise facade (goal: <= 1.10). */
  readonly facadeRatio: Ratio
}

/** One line's facade bundle. */
export interface LinesBundle {
  readonly line: "effect3" | "effect4"
  readonly bytes: number
  readonly gzipBytes: number
}

export interface LinesFigures {
  readonly replay: ReadonlyArray<LinesReplay>
  readonly bundles: ReadonlyArray<LinesBundle>
  readonly effect3Version: string
  readonly effect4Version: string
}

const versionOf = (dir: string): string =>
  (JSON.parse(fs.readFileSync(path.join(dir, "node_modules", "effect", "package.json"), "utf8")) as {
    readonly version: string
  }).version

/** The same entry for both facades: a rolling memory that folds twice. */
const entryOf = (facade: string): string =>
  `import { RollingMemory } from ${JSON.stringify(facade)}
const memory = new RollingMemory({
  maxTokens: 20,
  summarize: (summary, turns) => (summary + " +" + turns.length).trim(),
  tokenCounter: (text) => text.split(" ").length
})
for (let i = 0; i < 6; i++) memory.addUserMessage("turn " + i + " has five words")
console.log(JSON.stringify({ summary: memory.summary, buffer: memory.buffer.length }))
`

const bundleOf = async (line: LinesBundle["line"], facade: string): Promise<LinesBundle> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rollmem-lines-"))
  try {
    const entry = path.join(dir, "entry.mjs")
    fs.writeFileSync(entry, entryOf(facade))
    const result = await esbuild.build({
      entryPoints: [entry],
      bundle: true,
      minify: true,
      format: "esm",
      platform: "node",
      write: false,
      logLevel: "silent"
    })
    const code = result.outputFiles[0].contents
    return { line, bytes: code.length, gzipBytes: zlib.gzipSync(code, { level: 9 }).length }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** What the bench uses of a line's facade `RollingMemory`: the constructor and `addMessage`. */
type FacadeClass = new(options: {
  readonly maxTokens: number
  readonly summarize: typeof instantSummary
  readonly tokenCounter: typeof countO200k
}) => { addMessage(role: string, content: string, options?: E4.Message.MessageOptions): void }

/** One replay of every conversation through a line's facade at `budget`, a memory per conversation. */
const facadeReplay = (Facade: FacadeClass, conversations: ReadonlyArray<Conversation>, budget: number) => () => {
  for (const c of conversations) {
    const memory = new Facade({ maxTokens: budget, summarize: instantSummary, tokenCounter: countO200k })
    for (const a of c.facade) memory.addMessage(a.role, a.content, a.options as E4.Message.MessageOptions)
  }
}

export const runLines = async (
  conversations: ReadonlyArray<Conversation>,
  options: { readonly rounds: number; readonly warmUp: RunOptions; readonly perRound: RunOptions }
): Promise<LinesFigures> => {
  // each line's messages, decoded before timing
  const messages3 = conversations.map((c) => c.messages)
  const messages4 = conversations.map((c) =>
    c.facade.map((a) => E4.Message.make(a.role, a.content, a.options as E4.Message.MessageOptions))
  )
  const layer3 = Layer3.merge(E3.Summarizer.layerFunction(instantSummary), E3.TokenCounter.layerFunction(countO200k))
  const layer4 = Layer4.mergeAll(E4.Summarizer.layerFunction(instantSummary), E4.TokenCounter.layerFunction(countO200k))
  const replay: Array<LinesReplay> = []
  for (const budget of BUDGETS) {
    const program3 = Effect3.forEach(
      messages3,
      (ms) =>
        Effect3.flatMap(
          E3.RollingMemory.make({ maxTokens: budget }),
          (memory) => Effect3.forEach(ms, (m) => memory.add(m), { discard: true })
        ),
      { discard: true }
    ).pipe(Effect3.provide(layer3))
    const program4 = Effect4.forEach(
      messages4,
      (ms) =>
        Effect4.flatMap(
          E4.RollingMemory.make({ maxTokens: budget }),
          (memory) => Effect4.forEach(ms, (m) => memory.add(m), { discard: true })
        ),
      { discard: true }
    ).pipe(Effect4.provide(layer4))
    const facade3 = facadeReplay(Facade3, conversations, budget)
    const facade4 = facadeReplay(Facade4, conversations, budget)
    const tasks = [
      { name: "effect3", fn: () => Effect3.runSync(program3), beforeEach: clearCaches },
      { name: "effect4", fn: () => Effect4.runSync(program4), beforeEach: clearCaches },
      { name: "facade3", fn: facade3, beforeEach: clearCaches },
      { name: "facade4", fn: facade4, beforeEach: clearCaches }
    ]
    const rounds: Record<string, Array<Timing>> = { effect3: [], effect4: [], facade3: [], facade4: [] }
    await measure(`lines ${budget} warm-up`, tasks, options.warmUp)
    for (let r = 0; r < options.rounds; r++) {
      const rotated = tasks.map((_, i) => tasks[(i + r) % tasks.length])
      const timings = await measure(`lines ${budget} round ${r + 1}/${options.rounds}`, rotated, options.perRound)
      for (const t of timings) rounds[t.task].push(t)
    }
    const over = (a: string, b: string) => ratioOf(rounds[a].map((t, i) => t.median / rounds[b][i].median))
    replay.push({
      budget,
      effect3: combine("effect3", rounds.effect3),
      effect4: combine("effect4", rounds.effect4),
      facade3: combine("facade3", rounds.facade3),
      facade4: combine("facade4", rounds.facade4),
      effectRatio: over("effect4", "effect3"),
      facadeRatio: over("facade4", "facade3")
    })
  }
  const bundles = [
    await bundleOf("effect3", path.join(ROOT, "dist", "promise", "index.js")),
    await bundleOf("effect4", path.join(ROOT, "effect4", "dist", "effect4", "src", "promise", "index.js"))
  ]
  return {
    replay,
    bundles,
    effect3Version: versionOf(ROOT),
    effect4Version: versionOf(path.join(ROOT, "effect4"))
  }
}

type Table = (title: string, header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) => string

const metOrMissed = (met: boolean) => met ? "met" : "MISSED"

const ratioText = (r: Ratio) => `${r.median.toFixed(3)}x [${r.min.toFixed(2)}–${r.max.toFixed(2)}]`

/** The section's tables: replay per budget, then the facades' bundles. */
export const renderLines = (r: LinesFigures, table: Table): string => {
  const out: Array<string> = []
  out.push(table(
    `12. The Effect 4 line against the Effect 3 line (effect ${r.effect4Version} against ${r.effect3Version}): ` +
      "replay of the data set, Effect 4 / Effect 3 per round (goal ≤ 1.10x)",
    ["budget", "Effect 3 API", "Effect 4 API", "ratio", "", "Effect 3 facade", "Effect 4 facade", "ratio", ""],
    r.replay.map((row) => [
      String(row.budget),
      formatTiming(row.effect3),
      formatTiming(row.effect4),
      ratioText(row.effectRatio),
      metOrMissed(row.effectRatio.median <= 1.1),
      formatTiming(row.facade3),
      formatTiming(row.facade4),
      ratioText(row.facadeRatio),
      metOrMissed(row.facadeRatio.median <= 1.1)
    ])
  ))
  const e3 = r.bundles.find((b) => b.line === "effect3")
  const e4 = r.bundles.find((b) => b.line === "effect4")
  out.push(table(
    "12b. rollmem/promise bundled (esbuild --bundle --minify --format=esm --platform=node, no externals; gzip -9)",
    ["line", "bytes", "gzipped", "goal", ""],
    r.bundles.map((b) => [
      b.line === "effect3" ? "Effect 3" : "Effect 4",
      String(b.bytes),
      String(b.gzipBytes),
      b.line === "effect4" ? "≤ the Effect 3 facade's" : "",
      b.line === "effect4" && e3 !== undefined && e4 !== undefined ? metOrMissed(e4.gzipBytes <= e3.gzipBytes) : ""
    ])
  ))
  return out.join("\n")
}
