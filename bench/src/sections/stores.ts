/**
 * Section "stores" (`--only=stores`): saves per second and conflicts per
 * save through `Conversation.withMemory` (one turn added per call, rolling
 * strategy, 200-token budget, word counts), from 1 to 8 writer processes,
 * on one hot conversation and on 1,000 cold ones (each saved once before
 * the timed run), for SQLite (one file), PostgreSQL and Redis on this
 * machine. CPU: the writers' own (their `process.cpuUsage`) and the
 * server's (PostgreSQL's or Redis's processes, from /proc), in cores
 * (CPU seconds per wall second): on 2 cores the writers compete with the
 * server.
 *
 * Each store starts empty: a new SQLite file, a PostgreSQL schema of its own
 * (dropped after), a Redis key prefix of its own (removed after).
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Layer, Redacted } from "effect"
import { buildSync } from "esbuild"
import { Redis } from "ioredis"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as MemoryState from "../../../src/schema/MemoryState.js"
import * as Message from "../../../src/schema/Message.js"
import * as ConversationStore from "../../../src/store/ConversationStore.js"

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const SOURCE = fileURLToPath(new URL("../stores/writer.ts", import.meta.url))
const BUNDLE = `${ROOT}node_modules/.cache/rollmem-bench/stores-writer-${process.pid}.mjs`
const PG_URL = process.env.ROLLMEM_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const REDIS_URL = process.env.ROLLMEM_REDIS_URL ?? "redis://127.0.0.1:6379"
const COLD = 1_000

type Spec =
  | { readonly kind: "sqlite"; readonly filename: string }
  | { readonly kind: "pg"; readonly url: string }
  | { readonly kind: "redis"; readonly url: string; readonly prefix: string }

export interface StoreRow {
  readonly store: string
  readonly workload: "hot" | "cold"
  readonly writers: number
  readonly turns: number
  readonly savesPerSecond: number
  readonly conflictsPerSave: number
  /** CPU seconds per wall second. */
  readonly writerCores: number
  readonly serverCores: number | undefined
  readonly wallMs: number
}

export interface StoresResults {
  readonly turnsPerWriter: number
  readonly rows: ReadonlyArray<StoreRow>
  readonly skipped: ReadonlyArray<string>
}

/** CPU ticks (1/100 s) used so far by every process whose command is `comm`, and by its ended children. */
const ticksOf = (comm: string): number | undefined => {
  let total = 0
  let found = false
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
      const close = stat.lastIndexOf(")")
      const name = stat.slice(stat.indexOf("(") + 1, close)
      if (name !== comm) continue
      const fields = stat.slice(close + 2).split(" ")
      // utime + stime, and cutime + cstime: a PostgreSQL backend that ends during the run (each
      // writer's connections do) leaves its CPU time in the postmaster's children's time
      total += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])
      found = true
    } catch {
      // the process ended meanwhile
    }
  }
  return found ? total : undefined
}

interface WriterResult {
  readonly turns: number
  readonly saves: number
  readonly conflicts: number
  readonly wallMs: number
  readonly cpuMs: number
}

const runWriters = async (spec: Spec, workload: "hot" | "cold", writers: number, turns: number) => {
  const children = Array.from(
    { length: writers },
    (_, i) =>
      spawn(process.execPath, [BUNDLE, JSON.stringify(spec), workload, String(i), String(turns)], {
        cwd: ROOT,
        stdio: ["pipe", "pipe", "pipe"]
      })
  )
  const outputs = children.map((child) => {
    let stdout = ""
    let stderr = ""
    child.stdout!.on("data", (c) => (stdout += String(c)))
    child.stderr!.on("data", (c) => (stderr += String(c)))
    const ready = new Promise<void>((resolve, reject) => {
      child.stdout!.on("data", () => stdout.startsWith("ready\n") && resolve())
      child.once("exit", () => reject(new Error(`a writer exited before it was ready: ${stderr}`)))
    })
    const exited = new Promise<WriterResult>((resolve, reject) =>
      child.once("exit", (code) =>
        code === 0
          ? resolve(JSON.parse(stdout.split("\n")[1]) as WriterResult)
          : reject(new Error(`a writer failed: ${stderr}`)))
    )
    return { ready, exited }
  })
  await Promise.all(outputs.map((o) => o.ready))
  const server = spec.kind === "pg" ? "postgres" : spec.kind === "redis" ? "redis-server" : undefined
  const before = server === undefined ? undefined : ticksOf(server)
  const start = performance.now()
  for (const child of children) child.stdin!.end("go\n")
  const results = await Promise.all(outputs.map((o) => o.exited))
  const wallMs = performance.now() - start
  const after = server === undefined ? undefined : ticksOf(server)
  return {
    results,
    wallMs,
    serverCpuMs: before === undefined || after === undefined ? undefined : (after - before) * 10
  }
}

const state = MemoryState.make("", [Message.user("seed")])

/** Saves each cold conversation once, so the timed run updates rather than creates. */
const prefill = (layer: Layer.Layer<ConversationStore.ConversationStore, unknown>) =>
  Effect.runPromise(
    Effect.provide(
      Effect.flatMap(ConversationStore.ConversationStore, (store) =>
        Effect.forEach(
          Array.from({ length: COLD }, (_, k) => `cold-${k}`),
          (id) => store.save(id, state, 0),
          { concurrency: 8, discard: true }
        )),
      Layer.orDie(layer)
    )
  )

const pgAdmin = (statement: string) =>
  Effect.runPromise(
    Effect.provide(
      Effect.flatMap(PgClient.PgClient, (sql) => sql.unsafe(statement)),
      PgClient.layer({ url: Redacted.make(PG_URL), connectTimeout: "3 seconds" })
    )
  )

interface Backend {
  readonly name: string
  readonly open: (tag: string) => Promise<{ readonly spec: Spec; readonly close: () => Promise<void> }>
}

const sqlite: Backend = {
  name: "SQLite",
  open: async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rollmem-bench-"))
    return {
      spec: { kind: "sqlite", filename: path.join(dir, "conversations.db") },
      close: async () => fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}

const postgres: Backend = {
  name: "PostgreSQL",
  open: async (tag) => {
    const schema = `rollmem_bench_${process.pid}_${tag}`
    await pgAdmin(`CREATE SCHEMA ${schema}`)
    const url = new URL(PG_URL)
    url.searchParams.set("options", `-c search_path=${schema}`)
    return {
      spec: { kind: "pg", url: url.toString() },
      close: () => pgAdmin(`DROP SCHEMA ${schema} CASCADE`).then(() => {})
    }
  }
}

const redis: Backend = {
  name: "Redis",
  open: async (tag) => {
    const prefix = `rollmem-bench:${process.pid}:${tag}:`
    return {
      spec: { kind: "redis", url: REDIS_URL, prefix },
      close: async () => {
        const client = new Redis(REDIS_URL)
        let cursor = "0"
        do {
          const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000)
          if (keys.length > 0) await client.del(...keys)
          cursor = next
        } while (cursor !== "0")
        client.disconnect()
      }
    }
  }
}

const layerOf = (spec: Spec): Layer.Layer<ConversationStore.ConversationStore, unknown> =>
  spec.kind === "sqlite"
    ? ConversationStore.layerSqlite({ filename: spec.filename })
    : spec.kind === "pg"
    ? ConversationStore.layerPg({ url: spec.url })
    : ConversationStore.layerRedis({ url: spec.url, prefix: spec.prefix })

export const runStores = async (log: (line: string) => void, quick: boolean): Promise<StoresResults> => {
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
  const turns = quick ? 5 : 100
  const writerCounts = quick ? [1, 4] : [1, 2, 4, 8]
  const rows: Array<StoreRow> = []
  const skipped: Array<string> = []
  try {
    for (const backend of [sqlite, postgres, redis]) {
      for (const workload of ["hot", "cold"] as const) {
        for (const writers of writerCounts) {
          let opened
          try {
            opened = await backend.open(`${workload}${writers}`)
          } catch (error) {
            skipped.push(`${backend.name}: ${error instanceof Error ? error.message : String(error)}`)
            break
          }
          try {
            // Create the table (and the cold conversations) before the writers start.
            if (workload === "cold") await prefill(layerOf(opened.spec))
            else await Effect.runPromise(Effect.provide(Effect.void, Layer.orDie(layerOf(opened.spec))))
            const { results, wallMs, serverCpuMs } = await runWriters(opened.spec, workload, writers, turns)
            const total = results.reduce((a, r) => a + r.turns, 0)
            const conflicts = results.reduce((a, r) => a + r.conflicts, 0)
            const row: StoreRow = {
              store: backend.name,
              workload,
              writers,
              turns: total,
              savesPerSecond: total / (wallMs / 1000),
              conflictsPerSave: conflicts / total,
              writerCores: results.reduce((a, r) => a + r.cpuMs, 0) / wallMs,
              serverCores: serverCpuMs === undefined ? undefined : serverCpuMs / wallMs,
              wallMs
            }
            rows.push(row)
            log(
              `  ${backend.name} ${workload} x${writers}: ${row.savesPerSecond.toFixed(0)} saves/s, ` +
                `${row.conflictsPerSave.toFixed(2)} conflicts/save`
            )
          } finally {
            await opened.close()
          }
        }
        if (skipped.some((s) => s.startsWith(`${backend.name}:`))) break
      }
    }
  } finally {
    fs.rmSync(BUNDLE, { force: true })
  }
  return { turnsPerWriter: turns, rows, skipped }
}

export const renderStores = (
  r: StoresResults,
  table: (title: string, header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) => string
): string => {
  const out: Array<string> = [
    `\n7. Stores: Conversation.withMemory, one turn per call, ${r.turnsPerWriter} calls per writer process; ` +
    "hot = one conversation, cold = 1,000 conversations saved once before; CPU in cores (CPU s per wall s)"
  ]
  out.push(table(
    "saves per second and conflicts per save",
    ["store", "workload", "writers", "saves/s", "conflicts/save", "writer CPU", "server CPU", "wall"],
    r.rows.map((row) => [
      row.store,
      row.workload,
      String(row.writers),
      row.savesPerSecond.toFixed(0),
      row.conflictsPerSave.toFixed(2),
      row.writerCores.toFixed(2),
      row.serverCores === undefined ? "-" : row.serverCores.toFixed(2),
      `${(row.wallMs / 1000).toFixed(1)} s`
    ])
  ))
  for (const s of r.skipped) out.push(`skipped ${s}`)
  return out.join("\n")
}
