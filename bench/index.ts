/**
 * rollmem benchmarks (issue 4). Run from the repository root:
 *
 *   npm run bench               readable tables on stdout
 *   npm run bench -- --json     one JSON document with every figure
 *   npm run bench -- --save=bench.json   the tables on stdout and the JSON document in a file
 *   npm run bench -- --quick    a smoke run (few samples; figures not meaningful)
 *   npm run bench -- --only=replay,peers,checks,scaling,tokenizers,memory
 *
 * Progress goes to stderr. See bench/README.md for what is measured and how.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import { loadAll, sum } from "./src/data.js"
import { formatTime, formatTiming, profiles, setQuick, table, type Timing } from "./src/harness.js"
import { countsOf } from "./src/peers.js"
import { countO200k, makeRuntime } from "./src/rollmem.js"
import { runMemory } from "./src/sections/memory.js"
import { runChecks, runPeers, SUBSET_EVERY } from "./src/sections/peers.js"
import { runReplay } from "./src/sections/replay.js"
import { runScaling } from "./src/sections/scaling.js"
import { runTokenizers } from "./src/sections/tokenizers.js"

const args = process.argv.slice(2)
const json = args.includes("--json")
const quick = args.includes("--quick")
const saveArg = args.find((a) => a.startsWith("--save="))
const onlyArg = args.find((a) => a.startsWith("--only="))
const only = onlyArg === undefined ? undefined : new Set(onlyArg.slice("--only=".length).split(","))
const enabled = (section: string) => only === undefined || only.has(section)
setQuick(quick)

const log = (line: string) => process.stderr.write(`${line}\n`)

const machine = {
  node: process.version,
  cores: os.cpus().length,
  cpu: os.cpus()[0]?.model ?? "unknown",
  platform: `${os.platform()} ${os.arch()}`,
  memoryGiB: Math.round(os.totalmem() / 2 ** 30),
  loadAverageAtStart: os.loadavg().map((x) => Math.round(x * 100) / 100),
  quick
}

log(`rollmem bench: node ${machine.node}, ${machine.cores} cores (${machine.cpu})${quick ? ", QUICK (smoke run)" : ""}`)
const conversations = loadAll()
const counts = countsOf(conversations)
const messages = sum(conversations.map((c) => c.messages.length))
const tokens = sum([...counts.values()])
const data = {
  conversations: conversations.length,
  messages,
  o200kTokens: tokens,
  meanTokensPerMessage: tokens / messages,
  files: Object.fromEntries(
    [...new Set(conversations.map((c) => c.file))].map((f) => {
      const cs = conversations.filter((c) => c.file === f)
      return [f, { conversations: cs.length, messages: sum(cs.map((c) => c.messages.length)) }]
    })
  )
}
log(`data: ${data.conversations} conversations, ${messages} messages, ${tokens} o200k tokens`)

const runtime = await makeRuntime()
// Warm the tokenizer (and the JIT) once before anything is timed.
for (const c of conversations) for (const m of c.messages) countO200k(m.tokenText)

const results: Record<string, unknown> = { machine, data }
if (enabled("replay")) {
  log("1. replay vs the limit")
  results.replay = await runReplay(conversations, runtime, {
    rounds: quick ? 1 : 5,
    perRound: profiles.round
  })
}
if (enabled("checks")) {
  log("checks (correctness, counter calls, summarizer calls)")
  results.checks = await runChecks(conversations, counts)
}
if (enabled("peers")) {
  log("2. peers")
  results.peers = await runPeers(conversations, runtime)
}
if (enabled("scaling")) {
  log("3. scaling")
  results.scaling = await runScaling(conversations, runtime, profiles.short)
}
if (enabled("tokenizers")) {
  log("4. tokenizers")
  results.tokenizers = await runTokenizers(conversations, profiles.replay)
}
if (enabled("memory")) {
  log("5. memory")
  results.memory = runMemory(conversations)
}
await runtime.dispose()

if (saveArg !== undefined) fs.writeFileSync(saveArg.slice("--save=".length), `${JSON.stringify(results, null, 2)}\n`)
if (json) {
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`)
} else {
  process.stdout.write(`${render(results)}\n`)
}

// ---------------------------------------------------------------------------

function render(r: Record<string, unknown>): string {
  const out: Array<string> = []
  out.push(
    `rollmem bench — Node ${machine.node}, ${machine.cores} cores (${machine.cpu}), ${machine.platform}; ` +
      `load average at start ${machine.loadAverageAtStart.join(" ")}`
  )
  out.push(
    `data: ${data.conversations} conversations, ${data.messages} messages, ${data.o200kTokens} o200k_base tokens ` +
      `(${data.meanTokensPerMessage.toFixed(1)} per message)`
  )
  out.push("times: median ± median absolute deviation; ratios: median of per-round ratios [min–max]")
  const x = (v: number, digits = 2) => `${v.toFixed(digits)}x`
  const ratio = (v: { median: number; min: number; max: number }) =>
    `${x(v.median)} [${v.min.toFixed(2)}–${v.max.toFixed(2)}]`
  const perTurn = (t: Timing, turns: number) => formatTime(t.median / turns)
  if (r.replay !== undefined) {
    const rows = r.replay as Awaited<ReturnType<typeof runReplay>>
    out.push(table(
      "1. Replay of every conversation through RollingMemory (o200k_base, instant summarizer) vs the limit (count every message once)",
      [
        "budget",
        "limit / replay",
        "Effect API",
        "Effect / limit",
        "facade",
        "facade / limit",
        "facade adds only / limit"
      ],
      rows.map((row) => [
        String(row.budget),
        formatTiming(row.limit),
        formatTiming(row.effect),
        ratio(row.effectRatio),
        formatTiming(row.facade),
        ratio(row.facadeRatio),
        ratio(row.facadeAddsRatio),
        ratio(row.runPerAddRatio)
      ])
    ))
    out.push(
      `per message: limit ${
        perTurn(rows[0].limit, messages)
      }; target: Effect and facade at most 1.10x the limit at every budget`
    )
  }
  if (r.peers !== undefined) {
    const rows = r.peers as Awaited<ReturnType<typeof runPeers>>
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
    const rows = r.checks as Awaited<ReturnType<typeof runChecks>>
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
      "Correctness on the same run, checked after every turn (buffer in rollmem's terms: o200k_base tokens of the token text)",
      [
        "budget",
        "memory",
        "turns",
        "mean buffer",
        "max buffer",
        "over budget*",
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
      "* turns after which the buffer exceeds the budget while holding more than one unit. lost turns: left the buffer " +
        "without reaching the summarizer (trimMessages has none: every trimmed turn is dropped by design). " +
        "newest lost: the turn just added is not in the buffer."
    )
    out.push(table(
      "4b. Token counter calls per added message during a replay (target: exactly 1)",
      ["budget", "Effect API", "facade"],
      rows.map((
        row
      ) => [String(row.budget), row.counterCallsPerMessage.toFixed(3), row.facadeCounterCallsPerMessage.toFixed(3)])
    ))
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
  if (r.scaling !== undefined) {
    const s = r.scaling as Awaited<ReturnType<typeof runScaling>>
    out.push(table(
      "3. Scaling: cost per add at a steady state holding N messages (each add evicts about one, folded by the instant summarizer)",
      ["N buffered", "observed mean", "rollmem, o200k_base", "rollmem, precounted", "Python baseline, o200k_base"],
      s.rows.map((row) => [
        String(row.buffered),
        String(row.meanBuffered),
        formatTiming(row.o200k),
        formatTiming(row.precounted),
        formatTiming(row.baseline)
      ])
    ))
    out.push(
      `largest / smallest (target at most 1.2): rollmem o200k_base ${x(s.flatness.o200k)}, precounted ${
        x(s.flatness.precounted)
      }; Python baseline ${x(s.flatness.baseline, 0)}`
    )
  }
  if (r.tokenizers !== undefined) {
    const rows = r.tokenizers as Awaited<ReturnType<typeof runTokenizers>>
    out.push(table(
      "4. Token counters on the same text (every message's token text once, through the TokenCounter service, cold merge cache)",
      ["layer", "time", "tokens", "tokens/s", "M chars/s", "µs/message"],
      rows.map((row) => [
        row.layer,
        formatTiming(row.timing),
        String(row.tokens),
        `${(row.tokensPerSecond / 1e6).toFixed(2)} M`,
        row.mcharsPerSecond.toFixed(2),
        row.usPerMessage.toFixed(2)
      ])
    ))
  }
  if (r.memory !== undefined) {
    const m = r.memory as ReturnType<typeof runMemory>
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
  return out.join("\n")
}
