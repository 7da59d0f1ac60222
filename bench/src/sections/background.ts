/**
 * Section "background" (`--only=background`): add latency with a summarizer
 * that takes 300 ms (a real timer), blocking folds vs `fold: "background"`
 * (docs/contract.md section 5.1), on the same turns in the same order.
 *
 * The turns are the agentic data's messages, in order, through one
 * RollingMemory (o200k_base, `maxTokens` 2,000, `targetTokens` 1,000,
 * background hard cap 4,000), arriving one every 20 ms (a turn is appended,
 * awaited, then the next is sent after the gap: a chat or agent loop that
 * does not send its next turn before the previous add completed). Each add's
 * latency is the wall time from the call to its completion. The baseline is
 * the adds of the blocking run that needed no fold: what an add costs when
 * the summarizer is not on its path. Goal: background p99 within 2x of it.
 * 400 turns (50 with `--quick`).
 */
import { Effect, Exit, Scope } from "effect"
import type { Message } from "../../../dist/index.js"
import { RollingMemory, Summarizer, TokenCounter } from "../../../dist/index.js"
import { layerO200kBase } from "../../../dist/tokenizers.js"
import type { Conversation } from "../data.js"
import { countO200k } from "../rollmem.js"

const SUMMARIZER_MS = 300
const GAP_MS = 20
const OPTIONS = { maxTokens: 2_000, targetTokens: 1_000 } as const
const HARD_MAX_TOKENS = 4_000
/** A hard cap wide enough for the data's bursts: what the default cap costs in latency. */
const WIDE_HARD_MAX_TOKENS = 10_000

export interface LatencyRow {
  readonly mode: string
  readonly adds: number
  readonly folds: number
  readonly p50: number
  readonly p99: number
  readonly max: number
  readonly peakBufferTokens: number
}

export interface BackgroundResults {
  readonly turns: number
  readonly summarizerMs: number
  readonly gapMs: number
  readonly rows: ReadonlyArray<LatencyRow>
  /** Background p99 over the p99 of blocking adds that needed no fold (goal: at most 2). */
  readonly ratio: number
  /** The same with the hard cap at {@link WIDE_HARD_MAX_TOKENS}. */
  readonly wideRatio: number
  /** Background adds (default hard cap) that took longer than the gap between turns: held back at the hard cap. */
  readonly heldBack: number
  /** Most o200k_base tokens that arrive while one fold runs (the summarizer's time, in consecutive turns). */
  readonly burst: number
}

/** Most tokens in `width` consecutive turns. */
const maxBurst = (counts: ReadonlyArray<number>, width: number): number => {
  let sum = 0
  let most = 0
  for (let i = 0; i < counts.length; i++) {
    sum += counts[i]
    if (i >= width) sum -= counts[i - width]
    most = Math.max(most, sum)
  }
  return most
}

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]

const row = (mode: string, latencies: ReadonlyArray<number>, folds: number, peak: number): LatencyRow => {
  const sorted = [...latencies].sort((a, b) => a - b)
  return {
    mode,
    adds: sorted.length,
    folds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    peakBufferTokens: peak
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

const run = async (turns: ReadonlyArray<Message.Message>, hardMaxTokens: number | undefined) => {
  const background = hardMaxTokens !== undefined
  let folds = 0
  const summarizer = Summarizer.fromEffect((_summary: string, messages: ReadonlyArray<Message.Message>) =>
    Effect.sleep(`${SUMMARIZER_MS} millis`).pipe(
      Effect.as(`summary of ${messages.length} turns`),
      Effect.tap(() =>
        Effect.sync(() => {
          folds++
        })
      )
    )
  )
  const scope = Effect.runSync(Scope.make())
  const counter = await Effect.runPromise(Effect.provide(TokenCounter.TokenCounter, layerO200kBase))
  const build = background
    ? RollingMemory.makeScoped({ ...OPTIONS, fold: "background", hardMaxTokens }).pipe(Scope.extend(scope))
    : RollingMemory.make(OPTIONS)
  const memory = await Effect.runPromise(
    build.pipe(
      Effect.provideService(Summarizer.Summarizer, summarizer),
      Effect.provideService(TokenCounter.TokenCounter, counter)
    )
  )
  const latencies: Array<number> = []
  const quiet: Array<number> = []
  let peak = 0
  for (const turn of turns) {
    const before = folds
    const started = performance.now()
    await Effect.runPromise(memory.add(turn))
    const elapsed = performance.now() - started
    latencies.push(elapsed)
    if (folds === before && !background) quiet.push(elapsed)
    peak = Math.max(peak, Effect.runSync(memory.bufferTokens))
    await sleep(GAP_MS)
  }
  await Effect.runPromise(Scope.close(scope, Exit.void))
  return { latencies, quiet, folds, peak }
}

export const runBackground = async (
  conversations: ReadonlyArray<Conversation>,
  quick: boolean,
  log: (line: string) => void
): Promise<BackgroundResults> => {
  const turns = conversations.filter((c) => c.file === "conversations-agentic.jsonl").flatMap((c) => c.messages)
    .slice(0, quick ? 50 : 400)
  log(`  blocking: ${turns.length} turns, one every ${GAP_MS} ms, summarizer ${SUMMARIZER_MS} ms`)
  const blocking = await run(turns, undefined)
  log("  background")
  const background = await run(turns, HARD_MAX_TOKENS)
  log(`  background, hard cap ${WIDE_HARD_MAX_TOKENS}`)
  const wide = await run(turns, WIDE_HARD_MAX_TOKENS)
  const rows = [
    row("blocking: every add", blocking.latencies, blocking.folds, blocking.peak),
    row("blocking: adds that needed no fold (baseline)", blocking.quiet, 0, blocking.peak),
    row("background: every add", background.latencies, background.folds, background.peak),
    row(`background, hard cap ${WIDE_HARD_MAX_TOKENS}: every add`, wide.latencies, wide.folds, wide.peak)
  ]
  const counts = turns.map((m) => countO200k(m.tokenText))
  const burst = maxBurst(counts, Math.ceil(SUMMARIZER_MS / GAP_MS))
  return {
    turns: turns.length,
    summarizerMs: SUMMARIZER_MS,
    gapMs: GAP_MS,
    rows,
    ratio: rows[2].p99 / rows[1].p99,
    wideRatio: rows[3].p99 / rows[1].p99,
    heldBack: background.latencies.filter((ms) => ms > GAP_MS).length,
    burst
  }
}

type Table = (title: string, header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) => string

export const renderBackground = (r: BackgroundResults, table: Table): string =>
  table(
    `9. Background folding: add latency (wall ms), ${r.turns} agentic turns one every ${r.gapMs} ms, ` +
      `summarizer ${r.summarizerMs} ms, maxTokens 2000 target 1000 (background: hard cap 4000); ` +
      `background p99 / baseline p99 = ${
        r.ratio.toFixed(2)
      }x (goal: at most 2x); with hard cap ${WIDE_HARD_MAX_TOKENS}: ` +
      `${r.wideRatio.toFixed(2)}x. ${r.heldBack} background adds took longer than the ${r.gapMs} ms gap (held back ` +
      `at the hard cap); up to ${r.burst} tokens arrive while one fold runs`,
    ["mode", "adds", "folds", "p50", "p99", "max", "peak buffer tokens"],
    r.rows.map((x) => [
      x.mode,
      String(x.adds),
      String(x.folds),
      x.p50.toFixed(3),
      x.p99.toFixed(3),
      x.max.toFixed(3),
      String(x.peakBufferTokens)
    ])
  )
