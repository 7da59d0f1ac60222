/**
 * Section "tracing" (`--only=tracing`): what a fold's telemetry costs
 * (docs/contract.md section 11). Every conversation replayed through the
 * Effect API (a `RollingMemory` per conversation, o200k_base, the instant
 * summarizer, as in section 1) at budgets 500, 2,000 and 32,000 tokens and at
 * a budget no conversation reaches (no fold at all), by three contenders in
 * paired rounds against the limit:
 *
 * - *untraced*: the runtime of section 1 (Effect's built-in tracer: a fold
 *   updates the metrics and opens no span);
 * - *traced*: the same runtime plus `@effect/opentelemetry`'s `NodeSdk.layer`
 *   with a `BatchSpanProcessor` over an exporter that counts the spans it is
 *   handed (every fold is a `rollmem.fold` span, ended, queued, exported);
 * - *baseline* (only with `ROLLMEM_BASELINE_DIST=/path/to/other/dist`): the
 *   same replay through another build of rollmem, e.g. the commit before
 *   telemetry, to compare with "today".
 *
 * The figures: each contender's ratio to the limit, traced / untraced, the
 * folds per replay, and the cost of one traced fold ((traced - untraced) /
 * folds).
 *
 * Then a synthetic replay where every add folds (20,000 two-word turns, the
 * word counter, a budget of 3, a synchronous summarizer), per add: the same
 * contenders plus *native spans*: Effect's built-in tracer behind a wrapper,
 * so a fold records its span with it (what recording a span with the
 * built-in tracer would cost; the memory records none with it).
 */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import type { ExportResult } from "@opentelemetry/core"
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base"
import { Context, DefaultServices, Effect, Layer, ManagedRuntime, Metric, MetricLabel, Tracer } from "effect"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { Message, RollingMemory, Summarizer, Telemetry } from "../../../dist/index.js"
import { layerO200kBase } from "../../../dist/tokenizers.js"
import type { Conversation } from "../data.js"
import { formatTime, measure, type RunOptions, type Timing } from "../harness.js"
import { clearCaches, effectReplay, instantSummary, limit, type Runtime } from "../rollmem.js"

type Table = (title: string, header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) => string

/** The budgets; the last one is never reached (no fold). */
export const TRACING_BUDGETS = [500, 2_000, 32_000, 1_000_000_000] as const

export interface Ratio {
  readonly median: number
  readonly min: number
  readonly max: number
}

export interface TracingRow {
  readonly budget: number
  /** Folds (spans exported) per replay of the data set. */
  readonly folds: number
  readonly limit: Timing
  readonly untraced: Timing
  readonly traced: Timing
  readonly baseline: Timing | undefined
  readonly untracedRatio: Ratio
  readonly tracedRatio: Ratio
  /** Per round: traced / untraced. */
  readonly tracedOverUntraced: Ratio
  /** Per round: untraced / baseline (another build), when one was given. */
  readonly untracedOverBaseline: Ratio | undefined
  /** (traced - untraced) / folds, ms, from the medians. */
  readonly perFold: number | undefined
}

/** The synthetic replay where every add folds: µs per add, medians over the rounds. */
export interface EveryAddFolds {
  readonly adds: number
  readonly untraced: number
  readonly nativeSpans: number
  readonly traced: number
  readonly baseline: number | undefined
}

export interface TracingResults {
  readonly rounds: number
  readonly everyAddFolds: EveryAddFolds
  /** Spans the exporter was handed over the whole section (every traced replay's folds). */
  readonly exportedSpans: number
  readonly baselineDist: string | undefined
  readonly rows: ReadonlyArray<TracingRow>
}

const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2
}

const ratioOf = (xs: ReadonlyArray<number>): Ratio => ({
  median: median(xs),
  min: Math.min(...xs),
  max: Math.max(...xs)
})

const combine = (task: string, rounds: ReadonlyArray<Timing>): Timing => {
  const medians = rounds.map((r) => r.median)
  const m = median(medians)
  return {
    task,
    median: m,
    mad: median(medians.map((x) => Math.abs(x - m))),
    min: Math.min(...rounds.map((r) => r.min)),
    max: Math.max(...rounds.map((r) => r.max)),
    samples: rounds.reduce((n, r) => n + r.samples, 0)
  }
}

/** An exporter that only counts: the span's cost up to the export, not the wire's. */
class CountingExporter implements SpanExporter {
  exported = 0
  export(spans: Array<ReadableSpan>, done: (result: ExportResult) => void): void {
    this.exported += spans.length
    done({ code: 0 })
  }
  shutdown(): Promise<void> {
    return Promise.resolve()
  }
  forceFlush(): Promise<void> {
    return Promise.resolve()
  }
}

type Lib = typeof import("../../../dist/index.js")

type Replay = (conversations: ReadonlyArray<Conversation>, budget: number) => () => unknown

const FOLDING_ADDS = 20_000

/** Every add folds: two-word turns, the word counter, a budget of 3, a synchronous summarizer. */
const everyAddFolds = (lib: Lib): Effect.Effect<void, unknown> => {
  const turns = Array.from(
    { length: FOLDING_ADDS },
    (_, i) => i % 2 === 0 ? lib.Message.user("u x") : lib.Message.assistant("a x")
  )
  return Effect.provideService(
    Effect.flatMap(
      lib.RollingMemory.make({ maxTokens: 3 }),
      (memory) => Effect.forEach(turns, (m) => memory.add(m), { discard: true })
    ),
    lib.Summarizer.Summarizer,
    lib.Summarizer.fromFunction(() => "summary")
  )
}

/** Effect's built-in tracer behind a wrapper: a fold records its span with it. */
const builtIn = Context.get(DefaultServices.liveServices, Tracer.Tracer)
const nativeSpans = Tracer.make({
  span: (...args) => builtIn.span(...args),
  context: (f, fiber) => builtIn.context(f, fiber)
})

const importLib = async (dist: string): Promise<Lib> =>
  await import(pathToFileURL(path.resolve(dist, "index.js")).href) as Lib

/** The replay of another build of rollmem (`dist` folder), through its own `RollingMemory`, with the same services. */
const baselineReplay = (lib: Lib, runtime: Runtime): Replay => {
  return (conversations, budget) => {
    const program = Effect.forEach(
      conversations,
      (c) =>
        Effect.flatMap(
          lib.RollingMemory.make({ maxTokens: budget }),
          (memory) => Effect.forEach(c.messages, (m) => memory.add(m), { discard: true })
        ),
      { discard: true }
    )
    return () => runtime.runSync(program as Effect.Effect<void, unknown, never>)
  }
}

/** Committed folds so far (every fold of these replays commits). */
const committed = Metric.value(Metric.taggedWithLabels(Telemetry.folds, [
  MetricLabel.make("strategy", "rolling"),
  MetricLabel.make("outcome", "committed")
]))

export const runTracing = async (
  conversations: ReadonlyArray<Conversation>,
  runtime: Runtime,
  options: { readonly rounds: number; readonly warmUp: RunOptions; readonly perRound: RunOptions }
): Promise<TracingResults> => {
  const exporter = new CountingExporter()
  const traced = ManagedRuntime.make(Layer.mergeAll(
    layerO200kBase,
    Summarizer.layerFunction(instantSummary),
    NodeSdk.layer(() => ({
      resource: { serviceName: "rollmem-bench" },
      spanProcessor: new BatchSpanProcessor(exporter, { maxQueueSize: 1 << 20, maxExportBatchSize: 4096 })
    }))
  ))
  await traced.runtime()
  const baselineDist = process.env.ROLLMEM_BASELINE_DIST
  const baselineLib = baselineDist === undefined || baselineDist === "" ? undefined : await importLib(baselineDist)
  const baseline = baselineLib === undefined ? undefined : baselineReplay(baselineLib, runtime)
  const rows: Array<TracingRow> = []
  for (const budget of TRACING_BUDGETS) {
    const program = effectReplay(conversations, budget)
    // the folds of one replay
    const before = runtime.runSync(committed).count
    runtime.runSync(program)
    const folds = runtime.runSync(committed).count - before
    const tasks = [
      { name: "limit", fn: () => limit(conversations), beforeEach: clearCaches },
      { name: "untraced", fn: () => runtime.runSync(program), beforeEach: clearCaches },
      { name: "traced", fn: () => traced.runSync(program), beforeEach: clearCaches },
      ...(baseline === undefined
        ? []
        : [{ name: "baseline", fn: baseline(conversations, budget), beforeEach: clearCaches }])
    ]
    const rounds: Record<string, Array<Timing>> = { limit: [], untraced: [], traced: [], baseline: [] }
    const label = budget >= 1_000_000_000 ? "no fold" : String(budget)
    await measure(`tracing ${label} warm-up`, tasks, options.warmUp)
    for (let r = 0; r < options.rounds; r++) {
      const rotated = tasks.map((_, i) => tasks[(i + r) % tasks.length])
      for (const t of await measure(`tracing ${label} round ${r + 1}/${options.rounds}`, rotated, options.perRound)) {
        rounds[t.task].push(t)
      }
    }
    const per = (a: string, b: string) => ratioOf(rounds[a].map((t, i) => t.median / rounds[b][i].median))
    const untracedT = combine("untraced", rounds.untraced)
    const tracedT = combine("traced", rounds.traced)
    rows.push({
      budget,
      folds,
      limit: combine("limit", rounds.limit),
      untraced: untracedT,
      traced: tracedT,
      baseline: baseline === undefined ? undefined : combine("baseline", rounds.baseline),
      untracedRatio: per("untraced", "limit"),
      tracedRatio: per("traced", "limit"),
      tracedOverUntraced: per("traced", "untraced"),
      untracedOverBaseline: baseline === undefined ? undefined : per("untraced", "baseline"),
      perFold: folds === 0 ? undefined : (tracedT.median - untracedT.median) / folds
    })
  }
  // every add folds
  const current = { Message, RollingMemory, Summarizer } as unknown as Lib
  const folding = everyAddFolds(current)
  const foldingTasks = [
    { name: "untraced", fn: () => runtime.runSync(folding) },
    { name: "nativeSpans", fn: () => runtime.runSync(Effect.withTracer(folding, nativeSpans)) },
    { name: "traced", fn: () => traced.runSync(folding) },
    ...(baselineLib === undefined ? [] : [{ name: "baseline", fn: () => runtime.runSync(everyAddFolds(baselineLib)) }])
  ]
  const perAdd: Record<string, Array<number>> = { untraced: [], nativeSpans: [], traced: [], baseline: [] }
  await measure("tracing every add folds warm-up", foldingTasks, options.warmUp)
  for (let r = 0; r < options.rounds; r++) {
    const rotated = foldingTasks.map((_, i) => foldingTasks[(i + r) % foldingTasks.length])
    for (const t of await measure(`tracing every add folds ${r + 1}/${options.rounds}`, rotated, options.perRound)) {
      perAdd[t.task].push((t.median * 1000) / FOLDING_ADDS)
    }
  }
  // shutting the SDK down flushes the spans still queued
  await traced.dispose()
  return {
    rounds: options.rounds,
    everyAddFolds: {
      adds: FOLDING_ADDS,
      untraced: median(perAdd.untraced),
      nativeSpans: median(perAdd.nativeSpans),
      traced: median(perAdd.traced),
      baseline: baselineLib === undefined ? undefined : median(perAdd.baseline)
    },
    exportedSpans: exporter.exported,
    baselineDist,
    rows
  }
}

export const renderTracing = (r: TracingResults, table: Table): string => {
  const x = (v: { median: number; min: number; max: number }) =>
    `${v.median.toFixed(3)}x [${v.min.toFixed(2)}–${v.max.toFixed(2)}]`
  const rows = r.rows.map((row) => [
    row.budget >= 1_000_000_000 ? "no fold" : String(row.budget),
    String(row.folds),
    x(row.untracedRatio),
    x(row.tracedRatio),
    x(row.tracedOverUntraced),
    row.untracedOverBaseline === undefined ? "—" : x(row.untracedOverBaseline),
    row.perFold === undefined ? "—" : formatTime(row.perFold)
  ])
  const f = r.everyAddFolds
  const us = (v: number) => `${v.toFixed(2)} µs`
  return table(
    `10. Telemetry cost (docs/contract.md section 11): the Effect API replay without and with an exporting tracer ` +
      `(NodeSdk, BatchSpanProcessor), ${r.rounds} paired rounds` +
      (r.baselineDist === undefined ? "" : `; baseline: ${r.baselineDist}`) + `; ${r.exportedSpans} spans exported`,
    [
      "budget",
      "folds / replay",
      "untraced / limit",
      "traced / limit",
      "traced / untraced",
      "untraced / baseline",
      "traced fold, extra"
    ],
    rows
  ) + table(
    `10b. Every add folds (${f.adds} two-word turns, word counter, budget 3, synchronous summarizer): µs per add, ` +
      `median of ${r.rounds} rounds`,
    ["contender", "per add", "vs untraced"],
    [
      ...(f.baseline === undefined
        ? []
        : [["baseline (another build)", us(f.baseline), `${us(f.baseline - f.untraced)}`]]),
      ["untraced (metrics only)", us(f.untraced), "—"],
      ["native spans (built-in tracer, forced)", us(f.nativeSpans), `+${us(f.nativeSpans - f.untraced)}`],
      ["traced (NodeSdk, batch)", us(f.traced), `+${us(f.traced - f.untraced)}`]
    ]
  )
}
