/**
 * Section 1: replay cost against the tokenizer's limit, at each budget. The
 * limit is the fastest exact counter (ai-tokenizer, the default engine, which
 * the replays use too); the limit through gpt-tokenizer (the engine before
 * it) is measured alongside.
 *
 * Load on a shared machine drifts over seconds, so the contenders are
 * measured in paired rounds: after a warm-up round (discarded), each round
 * runs every task (order rotated) for one sample with tinybench, and each
 * round gives a ratio to the limit's sample of the same round; the figure is
 * the median ratio over the rounds, with its range. Before every sample the merge cache of
 * gpt-tokenizer is cleared, so each replay counts text it has not seen (as a
 * live process does).
 */
import type { Conversation } from "../data.js"
import { measure, type RunOptions, type Timing } from "../harness.js"
import {
  clearCaches,
  countO200kGptTokenizer,
  effectCountOnly,
  effectReplay,
  facadeReplay,
  limit,
  type Runtime
} from "../rollmem.js"

export const BUDGETS = [500, 2_000, 8_000, 32_000] as const

// Before every sample: cold tokenizer caches. (No forced GC: its concurrent
// sweeping would run, and be billed as CPU time, during the sample.)
const fresh = clearCaches

export interface Ratio {
  readonly median: number
  readonly min: number
  readonly max: number
}

export interface ReplayFigures {
  readonly budget: number
  /** Timings over all rounds (ms per replay of the whole data set). */
  readonly limit: Timing
  /** The limit counted with gpt-tokenizer instead of ai-tokenizer. */
  readonly limitGptTokenizer: Timing
  readonly effect: Timing
  readonly facade: Timing
  /** Diagnostic: the Effect API's loop calling the TokenCounter service only (the floor of any Effect replay). */
  readonly countOnly: Timing
  readonly effectRatio: Ratio
  readonly facadeRatio: Ratio
  readonly countOnlyRatio: Ratio
  /** The gpt-tokenizer limit over the ai-tokenizer limit. */
  readonly limitGptTokenizerRatio: Ratio
}

export const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2
}

export const ratioOf = (xs: ReadonlyArray<number>): Ratio => ({
  median: median(xs),
  min: Math.min(...xs),
  max: Math.max(...xs)
})

export const combine = (task: string, rounds: ReadonlyArray<Timing>): Timing => {
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

export const runReplay = async (
  conversations: ReadonlyArray<Conversation>,
  runtime: Runtime,
  options: { readonly rounds: number; readonly warmUp: RunOptions; readonly perRound: RunOptions }
): Promise<Array<ReplayFigures>> => {
  const out: Array<ReplayFigures> = []
  for (const budget of BUDGETS) {
    const program = effectReplay(conversations, budget)
    const countOnly = effectCountOnly(conversations)
    const tasks = [
      { name: "limit", fn: () => limit(conversations), beforeEach: fresh },
      { name: "limitGptTokenizer", fn: () => limit(conversations, countO200kGptTokenizer), beforeEach: fresh },
      { name: "effect", fn: () => runtime.runSync(program), beforeEach: fresh },
      { name: "facade", fn: () => facadeReplay(conversations, budget), beforeEach: fresh },
      { name: "countOnly", fn: () => runtime.runSync(countOnly), beforeEach: fresh }
    ]
    const rounds: Record<string, Array<Timing>> = {
      limit: [],
      limitGptTokenizer: [],
      effect: [],
      facade: [],
      countOnly: []
    }
    // One warm-up round for every task, discarded; then the measured rounds.
    await measure(`replay ${budget} warm-up`, tasks, options.warmUp)
    for (let r = 0; r < options.rounds; r++) {
      const rotated = tasks.map((_, i) => tasks[(i + r) % tasks.length])
      const timings = await measure(`replay ${budget} round ${r + 1}/${options.rounds}`, rotated, options.perRound)
      for (const t of timings) rounds[t.task].push(t)
    }
    const ratios = (task: string) => ratioOf(rounds[task].map((t, i) => t.median / rounds.limit[i].median))
    out.push({
      budget,
      limit: combine("limit", rounds.limit),
      limitGptTokenizer: combine("limitGptTokenizer", rounds.limitGptTokenizer),
      effect: combine("effect", rounds.effect),
      facade: combine("facade", rounds.facade),
      countOnly: combine("countOnly", rounds.countOnly),
      effectRatio: ratios("effect"),
      facadeRatio: ratios("facade"),
      countOnlyRatio: ratios("countOnly"),
      limitGptTokenizerRatio: ratios("limitGptTokenizer")
    })
  }
  return out
}
