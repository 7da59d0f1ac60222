/**
 * The readable report: the sections in order, as Markdown tables.
 */
import { formatTime, formatTiming, table, type Timing } from "./harness.js"
import { type BackgroundResults, renderBackground } from "./sections/background.js"
import { type ClusterResults, renderCluster } from "./sections/cluster.js"
import { type FormatsResults, renderFormats } from "./sections/formats.js"
import { type LinesFigures, renderLines } from "./sections/lines.js"
import type { runMemory } from "./sections/memory.js"
import type { runChecks, runPeers } from "./sections/peers.js"
import { SUBSET_EVERY } from "./sections/peers.js"
import { type PoliciesResults, renderPolicies } from "./sections/policies.js"
import { type RecallResults, renderRecall } from "./sections/recall.js"
import type { runReplay } from "./sections/replay.js"
import type { runScaling } from "./sections/scaling.js"
import { renderStores, type StoresResults } from "./sections/stores.js"
import type { runTokenizers } from "./sections/tokenizers.js"
import { renderTracing, type TracingResults } from "./sections/tracing.js"

export interface Machine {
  readonly node: string
  readonly cores: number
  readonly cpu: string
  readonly platform: string
  readonly memoryGiB: number
  readonly loadAverageAtStart: ReadonlyArray<number>
  readonly clock: "cpu" | "wall"
  readonly quick: boolean
}

export interface DataSummary {
  readonly conversations: number
  readonly messages: number
  readonly o200kTokens: number
  readonly meanTokensPerMessage: number
}

/** Everything one run measured (the `--json` document). */
export interface Results {
  readonly machine: Machine
  readonly data: DataSummary
  replay?: Awaited<ReturnType<typeof runReplay>>
  checks?: Awaited<ReturnType<typeof runChecks>>
  peers?: Awaited<ReturnType<typeof runPeers>>
  scaling?: Awaited<ReturnType<typeof runScaling>>
  tokenizers?: Awaited<ReturnType<typeof runTokenizers>>
  memory?: ReturnType<typeof runMemory>
  policies?: PoliciesResults
  stores?: StoresResults
  cluster?: ClusterResults
  formats?: FormatsResults
  background?: BackgroundResults
  tracing?: TracingResults
  recall?: RecallResults
  lines?: LinesFigures
}

export const render = (r: Results): string => {
  const out: Array<string> = []
  out.push(
    `rollmem bench — Node ${r.machine.node}, ${r.machine.cores} cores (${r.machine.cpu}), ${r.machine.platform}; ` +
      `load average at start ${r.machine.loadAverageAtStart.join(" ")}`
  )
  out.push(
    `data: ${r.data.conversations} conversations, ${r.data.messages} messages, ${r.data.o200kTokens} o200k_base tokens ` +
      `(${r.data.meanTokensPerMessage.toFixed(1)} per message)`
  )
  out.push(
    `times: ${
      r.machine.clock === "cpu" ? "process CPU time (user + system)" : "wall clock"
    }, median ± median absolute deviation; ratios: median of per-round ratios [min–max]`
  )
  const x = (v: number, digits = 2) => `${v.toFixed(digits)}x`
  const ratio = (v: { median: number; min: number; max: number }) =>
    `${x(v.median)} [${v.min.toFixed(2)}–${v.max.toFixed(2)}]`
  const perTurn = (t: Timing, turns: number) => formatTime(t.median / turns)
  if (r.replay !== undefined) {
    const rows = r.replay
    out.push(table(
      "1. Replay of every conversation through RollingMemory (o200k_base through ai-tokenizer, instant summarizer) vs the limit " +
        "(count every message once with the same counter, the fastest exact one)",
      [
        "budget",
        "limit / replay",
        "limit with gpt-tokenizer",
        "its ratio",
        "Effect API",
        "Effect / limit",
        "facade",
        "facade / limit",
        "Effect loop counting only / limit"
      ],
      rows.map((row) => [
        String(row.budget),
        formatTiming(row.limit),
        formatTiming(row.limitGptTokenizer),
        ratio(row.limitGptTokenizerRatio),
        formatTiming(row.effect),
        ratio(row.effectRatio),
        formatTiming(row.facade),
        ratio(row.facadeRatio),
        ratio(row.countOnlyRatio)
      ])
    ))
    out.push(
      `per message: limit ${
        perTurn(rows[0].limit, r.data.messages)
      }; target: Effect and facade at most 1.10x the limit at every budget`
    )
  }
  if (r.peers !== undefined) {
    const rows = r.peers
    out.push(table(
      "2. Peers: time per turn, same input, tokenizer (o200k_base) and budget; ratio to rollmem (Effect API)",
      [
        "budget",
        "rollmem",
        "Python baseline",
        "ratio",
        "trimMessages",
        "ratio",
        `rollmem (1/${SUBSET_EVERY})`,
        `SummaryBuffer (1/${SUBSET_EVERY})`,
        "ratio"
      ],
      rows.map((row) => [
        String(row.budget),
        formatTime(row.rollmem.perTurnUs / 1000),
        formatTime(row.python.perTurnUs / 1000),
        x(row.python.ratioToRollmem, 1),
        formatTime(row.trimMessages.perTurnUs / 1000),
        x(row.trimMessages.ratioToRollmem, 1),
        formatTime(row.rollmemSubset.perTurnUs / 1000),
        formatTime(row.summaryBuffer.perTurnUs / 1000),
        x(row.summaryBuffer.ratioToRollmem, 1)
      ])
    ))
    out.push(
      `SummaryBuffer = ConversationSummaryBufferMemory (@langchain/classic), timed on every ${SUBSET_EVERY}th conversation ` +
        `(its prune recounts the whole history per popped message); rollmem timed on the same subset for its ratio.`
    )
  }
  if (r.checks !== undefined) {
    const rows = r.checks
    const checkRows: Array<Array<string>> = []
    for (const row of rows) {
      for (
        const [name, c] of [
          ["rollmem", row.rollmem],
          ["Python baseline", row.python],
          ["trimMessages", row.trimMessages],
          [`SummaryBuffer (1/${SUBSET_EVERY})`, row.summaryBuffer]
        ] as const
      ) {
        checkRows.push([
          String(row.budget),
          name,
          String(c.turns),
          String(c.meanBufferTokens),
          String(c.maxBufferTokens),
          String(c.overBudget),
          String(c.orphanHead),
          String(c.newestMissing),
          String(c.lost),
          String(c.summarizedTwice),
          String(c.summarizerCalls),
          ((1000 * c.summarizerCalls) / c.turns).toFixed(1),
          c.differsFromBaseline === undefined ? "" : String(c.differsFromBaseline)
        ])
      }
    }
    out.push(table(
      "2b. Correctness on the same run, checked after every turn (buffer in rollmem's terms: o200k_base tokens of the token text)",
      [
        "budget",
        "memory",
        "turns",
        "mean buffer",
        "max buffer",
        "over budget (a)",
        "orphan head",
        "newest lost",
        "lost turns",
        "summarized 2+",
        "summarizer calls",
        "calls / 1000 turns",
        "≠ baseline"
      ],
      checkRows
    ))
    out.push(
      "(a) turns after which the buffer exceeds the budget while holding more than one unit. lost turns: left the buffer " +
        "without reaching the summarizer (trimMessages has none: every trimmed turn is dropped by design). " +
        "newest lost: the turn just added is not in the buffer."
    )
  }
  if (r.scaling !== undefined) {
    const s = r.scaling
    out.push(table(
      "3. Scaling: cost per add at a steady state holding about N messages (budget = N x mean message; the same messages are added at every N)",
      [
        "N buffered",
        "observed mean",
        "folds / add",
        "rollmem, o200k_base",
        "rollmem, precounted",
        "precounted, no summarizer",
        "Python baseline, o200k_base"
      ],
      s.rows.map((row) => [
        String(row.buffered),
        String(row.meanBuffered),
        row.foldsPerAdd.toFixed(2),
        formatTiming(row.o200k),
        formatTiming(row.precounted),
        formatTiming(row.drop),
        formatTiming(row.baseline)
      ])
    ))
    out.push(
      `largest / smallest (target at most 1.2): rollmem o200k_base ${x(s.flatness.o200k)}, precounted ${
        x(s.flatness.precounted)
      }, no summarizer ${x(s.flatness.drop)}; Python baseline ${x(s.flatness.baseline, 0)}`
    )
    out.push(
      `20,000 / 10 (the buffer's growth alone; N = 10 folds more often): rollmem o200k_base ${
        x(s.growth.o200k)
      }, precounted ${x(s.growth.precounted)}, no summarizer ${x(s.growth.drop)}; Python baseline ${
        x(s.growth.baseline, 0)
      }`
    )
    out.push(table(
      "3b. Scaling under the context policies (docs/contract.md section 10): precounted, with a summarizer, 10 vs 20,000 buffered (goal: at most 1.2x)",
      ["mode", "folds / add", "10 buffered", "20,000 buffered", "20,000 / 10"],
      s.modes.map((row) => [
        row.mode,
        row.foldsPerAdd.toFixed(3),
        formatTiming(row.small),
        formatTiming(row.large),
        x(row.ratio)
      ])
    ))
  }
  if (r.tokenizers !== undefined) {
    const rows = r.tokenizers
    out.push(table(
      "4. Token counters on the same text (every message's token text once, through the TokenCounter service, " +
        "cold merge caches); agreement with a reference on the same messages",
      [
        "layer",
        "counts",
        "time",
        "tokens",
        "M tokens/s",
        "M chars/s",
        "µs/message",
        "reference",
        "equal messages",
        "total / reference"
      ],
      rows.map((row) => [
        row.layer,
        row.counts,
        formatTiming(row.timing),
        String(row.tokens),
        (row.tokensPerSecond / 1e6).toFixed(2),
        row.mcharsPerSecond.toFixed(2),
        row.usPerMessage.toFixed(2),
        row.reference === row.layer ? "(itself)" : row.reference,
        `${row.equalMessages}/${r.data.messages}`,
        row.totalOverReference.toFixed(4)
      ])
    ))
  }
  if (r.checks !== undefined) {
    const rows = r.checks
    out.push(table(
      "4b. Token counter calls per added message during a replay (target: exactly 1)",
      ["budget", "Effect API", "facade"],
      rows.map((
        row
      ) => [String(row.budget), row.counterCallsPerMessage.toFixed(3), row.facadeCounterCallsPerMessage.toFixed(3)])
    ))
  }
  if (r.memory !== undefined) {
    const m = r.memory
    out.push(table(
      "5. Memory: heap bytes per buffered message",
      ["messages", "JSON bytes/message", "heap bytes/message", "heap / JSON", "rollmem bookkeeping bytes/message"],
      [[
        String(m.messages),
        m.jsonBytesPerMessage.toFixed(0),
        m.heapBytesPerMessage.toFixed(0),
        x(m.heapOverJson),
        m.indexBytesPerMessage.toFixed(0)
      ]]
    ))
  }
  if (r.checks !== undefined) {
    const rows = r.checks
    out.push(table(
      "6. LLM cost: summarizer calls per 1,000 turns on the real data",
      ["budget", "rollmem", `SummaryBuffer (1/${SUBSET_EVERY})`],
      rows.map((row) => [
        String(row.budget),
        ((1000 * row.rollmem.summarizerCalls) / row.rollmem.turns).toFixed(1),
        ((1000 * row.summaryBuffer.summarizerCalls) / row.summaryBuffer.turns).toFixed(1)
      ])
    ))
  }
  if (r.policies !== undefined) out.push(renderPolicies(r.policies, table))
  if (r.stores !== undefined) out.push(renderStores(r.stores, table))
  if (r.cluster !== undefined) out.push(renderCluster(r.cluster, table))
  if (r.formats !== undefined) out.push(renderFormats(r.formats, table))
  if (r.background !== undefined) out.push(renderBackground(r.background, table))
  if (r.tracing !== undefined) out.push(renderTracing(r.tracing, table))
  if (r.recall !== undefined) out.push(renderRecall(r.recall, table))
  if (r.lines !== undefined) out.push(renderLines(r.lines, table))
  return out.join("\n")
}
