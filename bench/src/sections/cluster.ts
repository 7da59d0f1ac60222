/**
 * Section "cluster" (`--only=cluster`): one hot conversation written by 1 to
 * 8 writer processes through `Conversation.withMemory`, one turn per call
 * (rolling strategy, 200-token budget, word counts), two ways, first with
 * evicted turns dropped (no summarizer), then with a summarizer that takes
 * 200 ms (a timer, as a model call would), where the memory folds:
 *
 * - **entity**: client-only writers (`ConversationCluster.layerClient`)
 *   sending to the conversation entity on one runner process
 *   (`layerRunner`), both on PostgreSQL (cluster tables and the store);
 * - **compare-and-set**: writers on `ConversationStore.layerPg`, re-applying
 *   on conflicts.
 *
 * Turns per second (all writers' turns over the wall time of the timed
 * loops) and the p50/p99 latency of one `withMemory` call. Each run gets a
 * PostgreSQL schema of its own, dropped after.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Redacted } from "effect"
import { buildSync } from "esbuild"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import { fileURLToPath } from "node:url"

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const SOURCE = fileURLToPath(new URL("../cluster/node.ts", import.meta.url))
const BUNDLE = `${ROOT}node_modules/.cache/rollmem-bench/cluster-node-${process.pid}.mjs`
const PG_URL = process.env.ROLLMEM_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const SHARDS = 16
/** Summarizer latencies: 0 drops evicted turns; 200 ms stands for a model call. */
const SUMMARIZER_MS = [0, 200] as const

export interface ClusterRow {
  readonly path: "entity" | "compare-and-set"
  readonly writers: number
  /** The summarizer's time per fold (0: evicted turns dropped). */
  readonly summarizerMs: number
  readonly turns: number
  readonly turnsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
}

export interface ClusterResults {
  readonly turnsPerWriter: number
  readonly rows: ReadonlyArray<ClusterRow>
  readonly skipped: ReadonlyArray<string>
}

const pgAdmin = (statement: string) =>
  Effect.runPromise(
    Effect.provide(
      Effect.flatMap(PgClient.PgClient, (sql) => sql.unsafe(statement)),
      PgClient.layer({ url: Redacted.make(PG_URL), connectTimeout: "3 seconds" })
    )
  )

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer()
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

interface Started {
  readonly child: ChildProcess
  readonly ready: Promise<void>
  readonly exited: Promise<string>
}

const start = (args: ReadonlyArray<string>): Started => {
  const child = spawn(process.execPath, [BUNDLE, ...args], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] })
  let stdout = ""
  let stderr = ""
  child.stderr!.on("data", (c) => (stderr += String(c)))
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (c) => {
      stdout += String(c)
      // The runner logs to stdout too (`Listening on: …`): `ready` is a line of its own.
      if (stdout.split("\n").includes("ready")) resolve()
    })
    child.once("exit", () => reject(new Error(`a process exited before it was ready: ${stderr}${stdout}`)))
  })
  const exited = new Promise<string>((resolve, reject) =>
    child.once(
      "exit",
      (code) =>
        code === 0
          ? resolve(stdout.split("\n").filter((line) => line.startsWith("{")).pop() ?? "")
          : reject(new Error(`a writer failed: ${stderr}${stdout}`))
    )
  )
  return { child, ready, exited }
}

const quantile = (sorted: ReadonlyArray<number>, q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]

const runWriters = async (args: (i: number) => ReadonlyArray<string>, writers: number) => {
  const all = Array.from({ length: writers }, (_, i) => start(args(i)))
  await Promise.all(all.map((w) => w.ready))
  for (const w of all) w.child.stdin!.end("go\n")
  const results = (await Promise.all(all.map((w) => w.exited))).map((line) =>
    JSON.parse(line) as { latencies: Array<number>; wallMs: number }
  )
  const latencies = results.flatMap((r) => r.latencies).sort((a, b) => a - b)
  const wallMs = Math.max(...results.map((r) => r.wallMs))
  return {
    turns: latencies.length,
    turnsPerSecond: latencies.length / (wallMs / 1000),
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99)
  }
}

const withSchema = async <A>(tag: string, f: (url: string) => Promise<A>): Promise<A> => {
  const schema = `rollmem_bench_${process.pid}_${tag}`
  await pgAdmin(`CREATE SCHEMA ${schema}`)
  const url = new URL(PG_URL)
  url.searchParams.set("options", `-c search_path=${schema}`)
  try {
    return await f(url.toString())
  } finally {
    await pgAdmin(`DROP SCHEMA ${schema} CASCADE`)
  }
}

export const runCluster = async (log: (line: string) => void, quick: boolean): Promise<ClusterResults> => {
  buildSync({
    entryPoints: [SOURCE],
    bundle: true,
    packages: "external",
    format: "esm",
    platform: "node",
    target: "node20",
    outfile: BUNDLE,
    logLevel: "error"
  })
  const turns = quick ? 5 : 20
  const writerCounts = quick ? [1, 4] : [1, 2, 4, 8]
  const rows: Array<ClusterRow> = []
  const skipped: Array<string> = []
  try {
    await pgAdmin("SELECT 1")
  } catch (error) {
    skipped.push(`PostgreSQL at ${PG_URL}: ${error instanceof Error ? error.message : String(error)}`)
    return { turnsPerWriter: turns, rows, skipped }
  }
  try {
    for (const ms of quick ? SUMMARIZER_MS.slice(-1) : SUMMARIZER_MS) {
      for (const writers of writerCounts) {
        await runPair(writers, ms, turns, rows, log)
      }
    }
  } finally {
    fs.rmSync(BUNDLE, { force: true })
  }
  return { turnsPerWriter: turns, rows, skipped }
}

const runPair = async (
  writers: number,
  ms: number,
  turns: number,
  rows: Array<ClusterRow>,
  log: (line: string) => void
): Promise<void> => {
  const entity = await withSchema(`entity${writers}_${ms}`, async (url) => {
    const runner = start(["runner", url, String(SHARDS), String(await freePort()), String(ms)])
    try {
      await runner.ready
      return await runWriters((i) => ["entity", url, String(SHARDS), String(i), String(turns)], writers)
    } finally {
      runner.child.kill("SIGKILL")
      await runner.exited.catch(() => "")
    }
  })
  const cas = await withSchema(
    `cas${writers}_${ms}`,
    (url) => runWriters((i) => ["cas", url, String(i), String(turns), String(ms)], writers)
  )
  for (const [path, r] of [["entity", entity], ["compare-and-set", cas]] as const) {
    rows.push({ path, writers, summarizerMs: ms, ...r })
    log(
      `  ${path} x${writers}, summarizer ${ms} ms: ${r.turnsPerSecond.toFixed(0)} turns/s, p99 ${r.p99Ms.toFixed(0)} ms`
    )
  }
}

export const renderCluster = (
  r: ClusterResults,
  table: (title: string, header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) => string
): string => {
  const out: Array<string> = [
    `\nCluster: one hot conversation, Conversation.withMemory adding one turn per call, ${r.turnsPerWriter} calls ` +
    "per writer process; entity = client-only writers and one runner (rollmem/cluster), compare-and-set = " +
    "ConversationStore.layerPg"
  ]
  out.push(table(
    "turns per second and latency of one call",
    ["path", "summarizer", "writers", "turns", "turns/s", "p50", "p99"],
    r.rows.map((row) => [
      row.path,
      row.summarizerMs === 0 ? "none (drop)" : `${row.summarizerMs} ms`,
      String(row.writers),
      String(row.turns),
      row.turnsPerSecond.toFixed(0),
      `${row.p50Ms.toFixed(1)} ms`,
      `${row.p99Ms.toFixed(1)} ms`
    ])
  ))
  for (const s of r.skipped) out.push(`skipped ${s}`)
  return out.join("\n")
}
