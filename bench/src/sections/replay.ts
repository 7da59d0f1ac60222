/**
 * Section 1: replay cost against the tokenizer's limit, at each budget.
 *
 * Load on a shared machine drifts over seconds, so the contenders are
 * measured in paired rounds: each round runs every task (order rotated) for
 * a few samples with tinybench, and each round gives a ratio of medians;
 * the figure is the median ratio over rounds, with its range. The merge
 * cache of gpt-tokenizer is cleared before every sample, so each replay
 * counts text it has not seen (as a live process does).
 */
import { clearMergeCache } from "gpt-tokenizer/encoding/o200k_base"
import type { Conversation } from "../data.js"
import { measure, type RunOptions, type Timing } from "../harness.js"
import {
  effectMemories,
  effectReplay,
  facadeAdds,
  facadeMemories,
  facadeReplay,
  limit,
  runPerAdd,
  type Runtime
} from "../rollmem.js"

export const BUDGETS = [500, 2_000, 8_000, 32_000] as const

export interface Ratio {
  readonly median: number
  readonly min: number
  readonly max: number
}

export interface ReplayFigures {
  readonly budget: number
  /** Timings over all rounds (ms per replay of the whole data set). */
  readonly limit: Timing
  readonly effect: Timing
  readonly facade: Timing
  /** The facade's adds alone (memories built outside the timed region). */
  readonly facadeAdds: Timing
  /** Diagnostic: each add of the Effect API run as its own `Effect.runSyncExit` (what any Promise shell pays per add). */
  readonly runPerAdd: Timing
  readonly effectRatio: Ratio
  readonly facadeRatio: Ratio
  readonly facadeAddsRatio: Ratio
  readonly runPerAddRatio: Ratio
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

export const runReplay = async (
  conversations: ReadonlyArray<Conversation>,
  runtime: Runtime,
  options: { readonly rounds: number; readonly perRound: RunOptions }
): Promise<Array<ReplayFigures>> => {
  const out: Array<ReplayFigures> = []
  for (const budget of BUDGETS) {
    const program = effectReplay(conversations, budget)
    let memories = facadeMemories(conversations, budget)
    let effectMemoryList = effectMemories(runtime, conversations, budget)
    const tasks = [
      { name: "limit", fn: () => limit(conversations), beforeEach: clearMergeCache },
      { name: "effect", fn: () => runtime.runSync(program), beforeEach: clearMergeCache },
      { name: "facade", fn: () => facadeReplay(conversations, budget), beforeEach: clearMergeCache },
      {
        name: "facadeAdds",
        fn: () => facadeAdds(conversations, memories),
        beforeEach: () => {
          memories = facadeMemories(conversations, budget)
          clearMergeCache()
        }
      },
      {
        name: "runPerAdd",
        fn: () => runPerAdd(conversations, effectMemoryList),
        beforeEach: () => {
          effectMemoryList = effectMemories(runtime, conversations, budget)
          clearMergeCache()
        }
      }
    ]
    const rounds: Record<string, Array<Timing>> = { limit: [], effect: [], facade: [], facadeAdds: [], runPerAdd: [] }
    for (let r = 0; r < options.rounds; r++) {
      const rotated = tasks.map((_, i) => tasks[(i + r) % tasks.length])
      const timings = await measure(`replay ${budget} round ${r + 1}/${options.rounds}`, rotated, options.perRound)
      for (const t of timings) rounds[t.task].push(t)
    }
    const ratios = (task: string) => ratioOf(rounds[task].map((t, i) => t.median / rounds.limit[i].median))
    out.push({
      budget,
      limit: combine("limit", rounds.limit),
      effect: combine("effect", rounds.effect),
      facade: combine("facade", rounds.facade),
      facadeAdds: combine("facadeAdds", rounds.facadeAdds),
      runPerAdd: combine("runPerAdd", rounds.runPerAdd),
      effectRatio: ratios("effect"),
      facadeRatio: ratios("facade"),
      facadeAddsRatio: ratios("facadeAdds"),
      runPerAddRatio: ratios("runPerAdd")
    })
  }
  return out
}
