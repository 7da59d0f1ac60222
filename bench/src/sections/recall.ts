/**
 * 11. The archive and recall (issue 30, docs/contract.md section 17), on
 * `conversations-long.jsonl` replayed at `maxTokens` 8,000 (o200k_base, an
 * instant summarizer) with an in-memory archive:
 *
 * - recall figures (`test/support/recallFigures.ts`, the same definition as
 *   the real-data test): artifacts named only in archived turns, recalled
 *   with the artifact as the query (goal: a turn naming it in the top 5 for
 *   at least 98%); a seeded three-word query of each archived turn (goal:
 *   the turn itself in the top 5 for at least 90%);
 * - the same queries asked of SQLite (FTS5) and PostgreSQL archives holding
 *   the same archived turns (each conversation's, copied at the same
 *   positions): the figures per archive (their ranking differs from the
 *   in-memory one, docs/contract.md section 17);
 * - query latency over 10,000 and 100,000 archived messages in one
 *   conversation (the long file's messages, repeated; the same archive
 *   filled to 10,000, measured, then filled to 100,000), in memory, in
 *   SQLite (FTS5) and in PostgreSQL (`tsvector`, GIN; at `ROLLMEM_PG_URL`,
 *   default `postgres://postgres@127.0.0.1:5432/test`, in a schema of its
 *   own, skipped with a line when the server does not answer): median and
 *   p99 wall time of the figures' queries (goal: median at most 5 ms at
 *   10,000);
 * - what archiving adds to the replay: the same replay without and with the
 *   in-memory archive, paired rounds, the median ratio (goal: at most 1.10).
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, type Layer, ManagedRuntime, Redacted } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Archive as Archives, Message as RollingMessage, Retention } from "../../../dist/index.js"
import { Archive, RollingMemory } from "../../../dist/promise/index.js"
import { SqlArchive } from "../../../dist/store.js"
import {
  askCases,
  type Figure,
  measureRecall,
  type RecallFigures,
  type Replayed,
  share
} from "../../../test/support/recallFigures.js"
import { loadFile } from "../data.js"
import { countO200k } from "../rollmem.js"

type Table = (title: string, header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) => string

const FILE = "conversations-long.jsonl"
const MAX_TOKENS = 8000
const SIZES = [10_000, 100_000]
const QUERIES = 400
const PG_URL = process.env.ROLLMEM_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test"

const pgAdmin = (statement: string) =>
  Effect.runPromise(
    Effect.provide(
      Effect.flatMap(PgClient.PgClient, (sql) => sql.unsafe(statement)),
      PgClient.layer({ url: Redacted.make(PG_URL), connectTimeout: "3 seconds" })
    )
  )

export interface Latency {
  readonly backend: string
  readonly messages: number
  readonly queries: number
  readonly medianMs: number
  readonly p99Ms: number
}

/** The figures' queries asked of a SQL archive holding the same archived turns. */
export interface PerArchive {
  readonly backend: string
  readonly artifacts: Figure
  readonly threeWords: Figure
}

export interface RecallResults {
  readonly figures: Omit<RecallFigures, "queries">
  readonly perArchive: ReadonlyArray<PerArchive>
  readonly artifactShare: number
  readonly threeWordShare: number
  readonly latency: ReadonlyArray<Latency>
  /** The machine's 1-minute load average before and after the latency runs. */
  readonly load: readonly [number, number]
  readonly archiving: { readonly rounds: number; readonly ratio: number; readonly min: number; readonly max: number }
}

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]

const timeQueries = async (
  queries: ReadonlyArray<string>,
  search: (query: string) => Promise<unknown>
): Promise<{ median: number; p99: number }> => {
  for (const q of queries.slice(0, 20)) await search(q) // warm
  const times: Array<number> = []
  for (const q of queries) {
    const start = performance.now()
    await search(q)
    times.push(performance.now() - start)
  }
  times.sort((a, b) => a - b)
  return { median: percentile(times, 0.5), p99: percentile(times, 0.99) }
}

const replay = (conversations: ReadonlyArray<Replayed>, archived: boolean): number => {
  const archive = archived ? Archive.memory() : undefined
  const start = performance.now()
  for (const c of conversations) {
    const memory = new RollingMemory({
      maxTokens: MAX_TOKENS,
      summarize: () => "summary",
      tokenCounter: countO200k,
      ...(archive === undefined ? {} : { archive, conversationId: c.id })
    })
    for (const m of c.facade) memory.addMessage(m.role, m.content, m.options as never)
  }
  return performance.now() - start
}

export const runRecall = async (log: (line: string) => void, quick: boolean): Promise<RecallResults> => {
  const conversations: Array<Replayed> = loadFile(FILE).map((c) => ({ id: c.id, facade: c.facade }))
  const archive = Archive.memory()
  const figures = await measureRecall(conversations, {
    memory: (id, maxTokens) =>
      new RollingMemory({
        maxTokens,
        summarize: () => "summary",
        tokenCounter: countO200k,
        archive,
        conversationId: id
      }),
    archived: (id) => archive.messages(id),
    extract: Retention.extract
  }, MAX_TOKENS)
  log(
    `  recall: artifacts ${figures.artifacts.found}/${figures.artifacts.asked}, ` +
      `three words ${figures.threeWords.found}/${figures.threeWords.asked}`
  )

  // the same queries asked of SQL archives holding the same archived turns (an archive of their own)
  const perArchive: Array<PerArchive> = []
  const askSql = async (backend: string, layer: Layer.Layer<Archives.Archive, unknown>) => {
    const runtime = ManagedRuntime.make(layer)
    try {
      const sqlArchive = await runtime.runPromise(Archives.Archive)
      for (const c of conversations) {
        const rows = await archive.messages(c.id)
        for (let i = 0; i < rows.length; i += 500) {
          const batch = rows.slice(i, i + 500).map((a) => ({ position: a.position, message: a.message }))
          await runtime.runPromise(sqlArchive.append(c.id, batch))
        }
      }
      const asked = await askCases(
        figures.queries.cases,
        (id, q) => runtime.runPromise(sqlArchive.search(id, q, { limit: 5 })),
        Retention.extract
      )
      perArchive.push({ backend, ...asked })
      log(
        `  ${backend}: artifacts ${asked.artifacts.found}/${asked.artifacts.asked}, ` +
          `three words ${asked.threeWords.found}/${asked.threeWords.asked}`
      )
    } finally {
      await runtime.dispose()
    }
  }

  // 10,000 then 100,000 archived messages in one conversation: the long file's messages, repeated
  const all = conversations.flatMap((c) => c.facade)
  const sizes = quick ? [2000] : SIZES
  const entries = Array.from({ length: sizes[sizes.length - 1] }, (_, i) => {
    const m = all[i % all.length]
    return { position: i, message: toMessage(m) }
  })
  const queries = [
    ...figures.queries.artifacts.slice(0, QUERIES / 2),
    ...figures.queries.threeWords.slice(0, QUERIES / 2)
  ]
  const latency: Array<Latency> = []
  const loadBefore = os.loadavg()[0]
  // fills `append` up to each size in turn (batches of 500) and times the queries at each
  const timeSizes = async (
    backend: string,
    append: (batch: typeof entries) => Promise<unknown>,
    search: (query: string) => Promise<unknown>
  ) => {
    let filled = 0
    for (const size of sizes) {
      for (; filled < size; filled += 500) await append(entries.slice(filled, Math.min(size, filled + 500)))
      const times = await timeQueries(queries, search)
      latency.push({ backend, messages: size, queries: queries.length, ...ms(times) })
      log(`  ${backend}, ${size}: median ${times.median.toFixed(3)} ms, p99 ${times.p99.toFixed(3)} ms`)
    }
  }
  const inMemory = Archives.makeMemory()
  await timeSizes(
    "in memory",
    async (batch) => Effect.runSync(inMemory.append("big", batch)),
    (q) => Effect.runPromise(inMemory.search("big", q))
  )

  // a SQL archive: filled in batches of 500, then the same queries
  const timeSql = async (backend: string, layer: Layer.Layer<Archives.Archive, unknown>) => {
    const runtime = ManagedRuntime.make(layer)
    try {
      const sqlArchive = await runtime.runPromise(Archives.Archive)
      await timeSizes(
        backend,
        (batch) => runtime.runPromise(sqlArchive.append("big", batch)),
        (q) => runtime.runPromise(sqlArchive.search("big", q))
      )
    } finally {
      await runtime.dispose()
    }
  }

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rollmem-bench-archive-"))
  try {
    await askSql("SQLite (FTS5)", SqlArchive.layerSqlite({ filename: path.join(dir, "recall.db") }))
    await timeSql("SQLite (FTS5)", SqlArchive.layerSqlite({ filename: path.join(dir, "archive.db") }))
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }

  const schema = `rollmem_bench_recall_${process.pid}`
  const reachable = await pgAdmin(`CREATE SCHEMA ${schema}`).then(() => true, (error: unknown) => {
    log(`  PostgreSQL: skipped (${PG_URL} does not answer: ${String(error)})`)
    return false
  })
  if (reachable) {
    try {
      const url = new URL(PG_URL)
      url.searchParams.set("options", `-c search_path=${schema}`)
      await askSql("PostgreSQL (tsvector, GIN)", SqlArchive.layerPg({ url: url.toString(), table: "recall_archive" }))
      await timeSql("PostgreSQL (tsvector, GIN)", SqlArchive.layerPg({ url: url.toString() }))
    } finally {
      await pgAdmin(`DROP SCHEMA ${schema} CASCADE`)
    }
  }
  const loadAfter = os.loadavg()[0]

  // paired rounds, alternating which goes first
  const rounds = quick ? 1 : 5
  replay(conversations, false)
  const ratios: Array<number> = []
  for (let r = 0; r < rounds; r++) {
    const [without, withArchive] = r % 2 === 0
      ? [replay(conversations, false), replay(conversations, true)]
      : (() => {
        const w = replay(conversations, true)
        return [replay(conversations, false), w]
      })()
    ratios.push(withArchive / without)
  }
  ratios.sort((a, b) => a - b)
  const { queries: _, ...counts } = figures
  return {
    figures: counts,
    perArchive,
    artifactShare: share(figures.artifacts),
    threeWordShare: share(figures.threeWords),
    latency,
    load: [loadBefore, loadAfter],
    archiving: { rounds, ratio: percentile(ratios, 0.5), min: ratios[0], max: ratios[ratios.length - 1] }
  }
}

const ms = (t: { median: number; p99: number }) => ({ medianMs: t.median, p99Ms: t.p99 })

const toMessage = (m: Replayed["facade"][number]) => {
  const options = m.options as { toolCalls?: ReadonlyArray<unknown>; toolCallId?: string } | undefined
  return RollingMessage.make(m.role, m.content, options as never)
}

const metOrMissed = (met: boolean) => met ? "met" : "MISSED"

export const renderRecall = (r: RecallResults, table: Table): string => {
  const pct = (v: number) => `${(100 * v).toFixed(1)}%`
  const out: Array<string> = []
  out.push(table(
    `11. Recall (docs/contract.md section 17): ${FILE} at maxTokens ${MAX_TOKENS} with an archive ` +
      `(${r.figures.conversations} conversations, ${r.figures.archived} archived turns)`,
    ["query", "asked", "found in the top 5", "share", "goal", ""],
    [
      [
        "the artifact (named only in archived turns)",
        String(r.figures.artifacts.asked),
        String(r.figures.artifacts.found),
        pct(r.artifactShare),
        "≥ 98%",
        metOrMissed(r.artifactShare >= 0.98)
      ],
      [
        "three words of the turn (seeded)",
        String(r.figures.threeWords.asked),
        String(r.figures.threeWords.found),
        pct(r.threeWordShare),
        "≥ 90%",
        metOrMissed(r.threeWordShare >= 0.9)
      ]
    ]
  ))
  out.push(table(
    "11a. The same queries asked of each archive holding the same archived turns (top 5)",
    ["archive", "artifacts found", "share", "three words found", "share"],
    [
      [
        "in memory",
        `${r.figures.artifacts.found} of ${r.figures.artifacts.asked}`,
        pct(r.artifactShare),
        `${r.figures.threeWords.found} of ${r.figures.threeWords.asked}`,
        pct(r.threeWordShare)
      ],
      ...r.perArchive.map((a) => [
        a.backend,
        `${a.artifacts.found} of ${a.artifacts.asked}`,
        pct(share(a.artifacts)),
        `${a.threeWords.found} of ${a.threeWords.asked}`,
        pct(share(a.threeWords))
      ])
    ]
  ))
  out.push(table(
    `11b. Query latency, one conversation (wall time per search; load average ${r.load[0].toFixed(1)} before, ` +
      `${r.load[1].toFixed(1)} after)`,
    ["archive", "archived messages", "queries", "median", "p99", "goal (median)", ""],
    r.latency.map((l) => [
      l.backend,
      String(l.messages),
      String(l.queries),
      `${l.medianMs.toFixed(3)} ms`,
      `${l.p99Ms.toFixed(3)} ms`,
      l.messages <= 10_000 ? "≤ 5 ms" : "",
      l.messages <= 10_000 ? metOrMissed(l.medianMs <= 5) : ""
    ])
  ))
  out.push(table(
    `11c. What archiving adds to the replay (in memory; ${r.archiving.rounds} paired rounds, wall time)`,
    ["with / without", "range", "goal", ""],
    [[
      `${r.archiving.ratio.toFixed(3)}x`,
      `${r.archiving.min.toFixed(2)}–${r.archiving.max.toFixed(2)}`,
      "≤ 1.10x",
      metOrMissed(r.archiving.ratio <= 1.1)
    ]]
  ))
  return out.join("\n")
}
