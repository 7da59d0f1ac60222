/**
 * rollmem benchmarks (issue 4). Run from the repository root:
 *
 *   npm run bench               readable tables on stdout
 *   npm run bench -- --json     one JSON document with every figure
 *   npm run bench -- --save=bench.json   the tables on stdout and the JSON document in a file
 *   npm run bench -- --quick    a smoke run of every section, about 3 minutes on 2 cores (every 8th
 *                               conversation, few samples, smaller stores, cluster and input runs;
 *                               figures not meaningful)
 *   npm run bench -- --wall     time with the wall clock instead of this process's CPU time
 *   npm run bench -- --render=bench.json   print the tables of a saved run (measures nothing)
 *   npm run bench -- --only=replay,peers,checks,scaling,tokenizers,memory,policies,stores,formats,background,tracing,cluster,recall,lines
 *
 * Progress goes to stderr. See bench/README.md for what is measured and how.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import { loadAll, QUICK_EVERY, sum } from "./src/data.js"
import { profiles, setClock, setQuick } from "./src/harness.js"
import { countsOf } from "./src/peers.js"
import { render, type Results } from "./src/render.js"
import { countO200k, makeRuntime } from "./src/rollmem.js"
import { runBackground } from "./src/sections/background.js"
import { runCluster } from "./src/sections/cluster.js"
import { runFormats } from "./src/sections/formats.js"
import { runLines } from "./src/sections/lines.js"
import { runMemory } from "./src/sections/memory.js"
import { runChecks, runPeers } from "./src/sections/peers.js"
import { runPolicies } from "./src/sections/policies.js"
import { runRecall } from "./src/sections/recall.js"
import { runReplay } from "./src/sections/replay.js"
import { runScaling } from "./src/sections/scaling.js"
import { runStores } from "./src/sections/stores.js"
import { runTokenizers } from "./src/sections/tokenizers.js"
import { runTracing } from "./src/sections/tracing.js"

const args = process.argv.slice(2)
const renderArg = args.find((a) => a.startsWith("--render="))
if (renderArg !== undefined) {
  const saved = JSON.parse(fs.readFileSync(renderArg.slice("--render=".length), "utf8")) as Results
  process.stdout.write(`${render(saved)}\n`)
  process.exit(0)
}
const json = args.includes("--json")
const quick = args.includes("--quick")
const saveArg = args.find((a) => a.startsWith("--save="))
const onlyArg = args.find((a) => a.startsWith("--only="))
const only = onlyArg === undefined ? undefined : new Set(onlyArg.slice("--only=".length).split(","))
const enabled = (section: string) => only === undefined || only.has(section)
setQuick(quick)
const clock: "cpu" | "wall" = args.includes("--wall") ? "wall" : "cpu"
setClock(clock)

const log = (line: string) => process.stderr.write(`${line}\n`)
const benchStart = performance.now()

const machine = {
  node: process.version,
  cores: os.cpus().length,
  cpu: os.cpus()[0]?.model ?? "unknown",
  platform: `${os.platform()} ${os.arch()}`,
  memoryGiB: Math.round(os.totalmem() / 2 ** 30),
  loadAverageAtStart: os.loadavg().map((x) => Math.round(x * 100) / 100),
  clock,
  quick
}

log(`rollmem bench: node ${machine.node}, ${machine.cores} cores (${machine.cpu})${quick ? ", QUICK (smoke run)" : ""}`)
// A smoke run (--quick) replays every 8th conversation: every section runs, in about 3 minutes on 2 cores.
const conversations = quick ? loadAll().filter((_, i) => i % QUICK_EVERY === 0) : loadAll()
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
log(
  `data: ${data.conversations} conversations, ${messages} messages, ${tokens} o200k tokens` +
    (quick ? ` (quick: every ${QUICK_EVERY}th conversation)` : "")
)

const runtime = await makeRuntime()
// Warm the tokenizer (and the JIT) once before anything is timed.
for (const c of conversations) for (const m of c.messages) countO200k(m.tokenText)

const results: Results = { machine, data }
const sectionSeconds: Record<string, number> = {}
let sectionStart = performance.now()
const timed = (section: string) => {
  const now = performance.now()
  sectionSeconds[section] = Math.round((now - sectionStart) / 100) / 10
  log(`  ${section}: ${sectionSeconds[section]} s (load average ${os.loadavg().map((x) => x.toFixed(2)).join(" ")})`)
  sectionStart = now
}
if (enabled("replay")) {
  sectionStart = performance.now()
  log("1. replay vs the limit")
  results.replay = await runReplay(conversations, runtime, {
    rounds: quick ? 1 : 31,
    warmUp: profiles.roundWarmUp,
    perRound: profiles.round
  })
  timed("replay")
}
if (enabled("checks")) {
  sectionStart = performance.now()
  log("checks (correctness, counter calls, summarizer calls)")
  results.checks = await runChecks(conversations, counts)
  timed("checks")
}
if (enabled("peers")) {
  sectionStart = performance.now()
  log("2. peers")
  results.peers = await runPeers(conversations, runtime)
  timed("peers")
}
if (enabled("scaling")) {
  sectionStart = performance.now()
  log("3. scaling")
  results.scaling = await runScaling(conversations, profiles.short)
  timed("scaling")
}
if (enabled("tokenizers")) {
  sectionStart = performance.now()
  log("4. tokenizers")
  results.tokenizers = await runTokenizers(conversations, profiles.replay)
  timed("tokenizers")
}
if (enabled("memory")) {
  sectionStart = performance.now()
  log("5. memory")
  results.memory = runMemory(conversations)
  timed("memory")
}
if (enabled("policies")) {
  sectionStart = performance.now()
  log("6. context policies")
  results.policies = await runPolicies(log, quick)
  timed("policies")
}
if (enabled("stores")) {
  sectionStart = performance.now()
  log("7. stores")
  results.stores = await runStores(log, quick)
  timed("stores")
}
if (enabled("formats")) {
  sectionStart = performance.now()
  log("8. provider formats and command-line input")
  results.formats = await runFormats(log, quick)
  timed("formats")
}
if (enabled("cluster")) {
  sectionStart = performance.now()
  log("cluster: one hot conversation, entity vs compare-and-set")
  results.cluster = await runCluster(log, quick)
  timed("cluster")
}
if (enabled("background")) {
  sectionStart = performance.now()
  log("9. background folding: add latency")
  results.background = await runBackground(conversations, quick, log)
  timed("background")
}
if (enabled("tracing")) {
  sectionStart = performance.now()
  log("10. telemetry cost")
  results.tracing = await runTracing(conversations, runtime, {
    rounds: quick ? 1 : 11,
    warmUp: profiles.roundWarmUp,
    perRound: profiles.round
  })
  timed("tracing")
}
if (enabled("recall")) {
  sectionStart = performance.now()
  log("11. recall: the archive of evicted turns")
  results.recall = await runRecall(log, quick)
  timed("recall")
}
if (enabled("lines")) {
  sectionStart = performance.now()
  log("12. lines: the Effect 4 line against the Effect 3 line")
  results.lines = await runLines(conversations, {
    rounds: quick ? 1 : 15,
    warmUp: profiles.roundWarmUp,
    perRound: profiles.round
  })
  timed("lines")
}
await runtime.dispose()
log(
  `bench: ${Math.round((performance.now() - benchStart) / 100) / 10} s in all (load average ${
    os.loadavg().map((x) => x.toFixed(2)).join(" ")
  })`
)

if (saveArg !== undefined) fs.writeFileSync(saveArg.slice("--save=".length), `${JSON.stringify(results, null, 2)}\n`)
process.stdout.write(json ? `${JSON.stringify(results, null, 2)}\n` : `${render(results)}\n`)
