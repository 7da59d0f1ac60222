/**
 * A thin layer over tinybench: warm-up, several samples, and for each task
 * the median with its spread (median absolute deviation, min, max), in
 * milliseconds per iteration.
 */
import { Bench } from "tinybench"

export interface Timing {
  readonly task: string
  /** Median time of one iteration, ms. */
  readonly median: number
  /** Median absolute deviation, ms. */
  readonly mad: number
  readonly min: number
  readonly max: number
  readonly samples: number
}

export interface TaskSpec {
  readonly name: string
  readonly fn: () => unknown
  /** Runs before every iteration, outside the timed window. */
  readonly beforeEach?: () => void
}

export interface RunOptions {
  /** Minimum sampling time per task, ms. */
  readonly time: number
  /** Minimum samples per task. */
  readonly iterations: number
  readonly warmupIterations: number
}

export const profiles = {
  /** Whole-data-set passes (0.2 s to 1 s each). */
  replay: { time: 0, iterations: 5, warmupIterations: 1 },
  /** The warm-up round of the paired replay comparison (discarded). */
  roundWarmUp: { time: 0, iterations: 1, warmupIterations: 1 },
  /** One round of the paired replay comparison: one sample per task. */
  round: { time: 0, iterations: 1, warmupIterations: 0 },
  /** Slow peers (seconds per replay): a few samples only. */
  slow: { time: 0, iterations: 3, warmupIterations: 1 },
  /** Short tasks (batches of adds). */
  short: { time: 0, iterations: 25, warmupIterations: 3 }
} satisfies Record<string, RunOptions>

let quick = false

/** Smoke mode (`--quick`): a few samples, for checking the bench itself. */
export const setQuick = (value: boolean): void => {
  quick = value
}

/**
 * The clock. "cpu" (the default): this process's CPU time (`process.cpuUsage`,
 * user + system, all threads, µs resolution), so other processes competing
 * for the cores do not inflate the figures; "wall": `performance.now()`.
 */
export type Clock = "cpu" | "wall"

let clock: Clock = "cpu"

export const setClock = (value: Clock): void => {
  clock = value
}

const cpuNow = (): number => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}

const log = (line: string): void => {
  process.stderr.write(`${line}\n`)
}

/** Runs tasks one after the other, each with warm-up then samples; returns their timings in order. */
export const measure = async (
  group: string,
  tasks: ReadonlyArray<TaskSpec>,
  options: RunOptions
): Promise<Array<Timing>> => {
  const bench = new Bench({
    name: group,
    time: quick ? Math.min(options.time, 200) : options.time,
    iterations: quick ? Math.min(options.iterations, 3) : options.iterations,
    warmupIterations: quick ? 1 : options.warmupIterations,
    warmupTime: 0,
    throws: true,
    ...(clock === "cpu" ? { now: cpuNow } : {})
  })
  for (const task of tasks) {
    bench.add(task.name, task.fn as () => void, task.beforeEach === undefined ? {} : { beforeEach: task.beforeEach })
  }
  log(`  ${group}: ${tasks.map((t) => t.name).join(", ")}`)
  await bench.run()
  return bench.tasks.map((task) => {
    const result = task.result
    if (result.state !== "completed") throw new Error(`${group} / ${task.name}: ${result.state}`)
    const latency = result.latency
    return {
      task: task.name,
      median: latency.p50,
      mad: latency.mad,
      min: latency.min,
      max: latency.max,
      samples: latency.samplesCount
    }
  })
}

/** `median ± mad%`, in the most readable unit. */
export const formatTime = (ms: number): string =>
  ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : ms >= 1 ? `${ms.toFixed(1)} ms` : `${(ms * 1000).toFixed(2)} µs`

export const formatTiming = (t: Timing): string => `${formatTime(t.median)} ± ${((100 * t.mad) / t.median).toFixed(1)}%`

/** A plain-text table with aligned columns. */
export const table = (
  title: string,
  header: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<string>>
): string => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) =>
    "| " + cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(" | ") + " |"
  return [
    `\n${title}\n`,
    line(header),
    "|" + widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : "-".repeat(w + 1) + ":")).join("|") + "|",
    ...rows.map(line),
    ""
  ].join("\n")
}

export { log }
