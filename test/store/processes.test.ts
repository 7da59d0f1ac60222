/**
 * Real `node` processes writing one conversation through each store that is
 * safe across processes (SQLite, PostgreSQL at READ COMMITTED and at
 * SERIALIZABLE, Redis), with a summarizer that folds:
 *
 * - 8 writers x 100 turns: every one of the 800 turns ends in the buffer or
 *   in exactly one fold, in each writer's order, one save per turn;
 * - 16 replicas starting at once on an empty database (no file, no table,
 *   no key): every one opens the store and saves its turn;
 * - a writer killed with SIGKILL while it saves: every turn it had
 *   acknowledged is stored, once, and the store takes saves afterwards.
 *
 * The writer (fixtures/writer.ts) is bundled once with esbuild and run with
 * plain `node`: starting a process through tsx costs about 2 seconds of CPU
 * more, and the suite starts 70 of them. Nothing sleeps: the test waits for
 * each process's lines and exit, bounded by the test's timeout.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, type Scope } from "effect"
import { buildSync } from "esbuild"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import { fileURLToPath } from "node:url"
import type * as MemoryState from "../../src/schema/MemoryState.js"
import * as ConversationStore from "../../src/store/ConversationStore.js"
import { assertAccounting, foldsOf } from "./accounting.js"
import { turn } from "./fold.js"
import { reportUnreachable, servers, tempDirectory } from "./layers.js"
import { pgSchema, redisPrefix, redisUrl } from "./servers.js"

const ROOT = fileURLToPath(new URL("../../", import.meta.url))
const SOURCE = fileURLToPath(new URL("./fixtures/writer.ts", import.meta.url))
// Inside the repository, so that the bundle's imports resolve to its node_modules.
const BUNDLE = `${ROOT}node_modules/.cache/rollmem-test/writer-${process.pid}.mjs`

beforeAll(() => {
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
})
afterAll(() => fs.rmSync(BUNDLE, { force: true }))

type Spec =
  | { readonly kind: "sqlite"; readonly filename: string }
  | { readonly kind: "pg"; readonly url: string }
  | { readonly kind: "redis"; readonly url: string; readonly prefix: string }

interface Exited {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

interface Writer {
  readonly name: string
  readonly child: ChildProcess
  readonly ready: Promise<void>
  readonly exited: Promise<Exited>
  /** Resolves once the writer has printed `line`. */
  readonly printed: (line: string) => Promise<void>
}

const start = (spec: Spec, mode: "write" | "replica", name: string, turns: number): Writer => {
  const child = spawn(process.execPath, [BUNDLE, JSON.stringify(spec), mode, name, String(turns)], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  const waiting: Array<{ readonly line: string; readonly resolve: () => void }> = []
  child.stderr!.on("data", (chunk) => (stderr += String(chunk)))
  child.stdout!.on("data", (chunk) => {
    stdout += String(chunk)
    for (const w of waiting) if (stdout.includes(`${w.line}\n`)) w.resolve()
  })
  const exited = new Promise<Exited>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal, stdout, stderr }))
  )
  const printed = (line: string) =>
    new Promise<void>((resolve, reject) => {
      if (stdout.includes(`${line}\n`)) return resolve()
      waiting.push({ line, resolve })
      void exited.then((e) => reject(new Error(`writer ${name} exited before printing ${line}: ${e.stderr}`)))
    })
  return { name, child, ready: printed("ready"), exited, printed }
}

/** Starts writers, killed when the test's scope closes if they are still running. */
const startAll = (spec: Spec, mode: "write" | "replica", names: ReadonlyArray<string>, turns: number) =>
  Effect.acquireRelease(
    Effect.sync(() => names.map((name) => start(spec, mode, name, turns))),
    (all) =>
      Effect.sync(() => {
        for (const w of all) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill("SIGKILL")
      })
  )

/** Waits until every writer is ready, then lets them all go at once. */
const goAll = (all: ReadonlyArray<Writer>) =>
  Effect.promise(async () => {
    await Promise.all(all.map((w) => w.ready))
    for (const w of all) w.child.stdin!.end("go\n")
  })

const exitedAll = (all: ReadonlyArray<Writer>) => Effect.promise(() => Promise.all(all.map((w) => w.exited)))

const layerOf = (spec: Spec): Layer.Layer<ConversationStore.ConversationStore> =>
  Layer.orDie<ConversationStore.ConversationStore, unknown, never>(
    spec.kind === "sqlite"
      ? ConversationStore.layerSqlite({ filename: spec.filename })
      : spec.kind === "pg"
      ? ConversationStore.layerPg({ url: spec.url })
      : ConversationStore.layerRedis({ url: spec.url, prefix: spec.prefix })
  )

const loadShared = (spec: Spec) =>
  Effect.map(
    Effect.provide(Effect.flatMap(ConversationStore.ConversationStore, (s) => s.load("shared")), layerOf(spec)),
    Option.getOrThrowWith(() => new Error("nothing stored"))
  )

const conflictsOf = (exited: Exited): number => {
  const last = exited.stdout.trim().split("\n").pop()!
  return (JSON.parse(last) as { conflicts: number }).conflicts
}

const assertExitedCleanly = (all: ReadonlyArray<Writer>, results: ReadonlyArray<Exited>) => {
  for (const [i, r] of results.entries()) assert.strictEqual(r.code, 0, `writer ${all[i].name}: ${r.stderr}`)
}

/** The turns of `writer` in `state`, in stored order (folds first, then the buffer). */
const turnsOf = (state: MemoryState.MemoryState, writer: string): Array<string> =>
  [...foldsOf(state.summary).flat(), ...state.buffer.map((m) => m.content)].filter((t) => t.startsWith(`${writer}:`))

interface Target {
  readonly name: string
  readonly skip: boolean
  /** A fresh, empty store: no file, no table, no key. */
  readonly fresh: Effect.Effect<Spec, never, Scope.Scope>
}

const sqlite: Target = {
  name: "SQLite (one file)",
  skip: false,
  fresh: Effect.map(tempDirectory, (dir) => ({ kind: "sqlite", filename: `${dir}/conversations.db` }))
}
const pg: Target = {
  name: "PostgreSQL (READ COMMITTED)",
  skip: servers.pg.unreachable !== undefined,
  fresh: Effect.map(pgSchema(), ({ url }) => ({ kind: "pg", url }))
}
const pgSerializable: Target = {
  name: "PostgreSQL (SERIALIZABLE, set per session)",
  skip: servers.pg.unreachable !== undefined,
  fresh: Effect.map(pgSchema({ default_transaction_isolation: "serializable" }), ({ url }) => ({ kind: "pg", url }))
}
const redis: Target = {
  name: "Redis",
  skip: servers.redis.unreachable !== undefined,
  fresh: Effect.map(redisPrefix, (prefix) => ({ kind: "redis", url: redisUrl, prefix }))
}

const WRITERS = Array.from({ length: 8 }, (_, i) => `p${i}`)
const TURNS = 100
const REPLICAS = Array.from({ length: 16 }, (_, i) => `r${i}`)

describe("stores across processes", () => {
  reportUnreachable()

  for (const target of [sqlite, pg, pgSerializable, redis]) {
    describe.skipIf(target.skip)(target.name, () => {
      it.scoped(
        `${WRITERS.length} processes x ${TURNS} turns into one conversation: none lost, none twice, each in order`,
        () =>
          Effect.gen(function*() {
            const spec = yield* target.fresh
            const all = yield* startAll(spec, "write", WRITERS, TURNS)
            yield* goAll(all)
            const results = yield* exitedAll(all)
            assertExitedCleanly(all, results)
            const { revision, state } = yield* loadShared(spec)
            assert.strictEqual(revision, WRITERS.length * TURNS, "one save per turn")
            assertAccounting(state, WRITERS, TURNS)
            const conflicts = results.map(conflictsOf)
            assert.isAbove(conflicts.reduce((a, b) => a + b, 0), 0, `the writers did conflict: ${conflicts.join(", ")}`)
          }),
        600_000
      )

      if (target === pgSerializable) return

      it.scoped(
        `${REPLICAS.length} replicas starting at once on an empty database: every one saves its turn`,
        () =>
          Effect.gen(function*() {
            const spec = yield* target.fresh
            const all = yield* startAll(spec, "replica", REPLICAS, 1)
            yield* goAll(all)
            const results = yield* exitedAll(all)
            assertExitedCleanly(all, results)
            const { revision, state } = yield* loadShared(spec)
            assert.strictEqual(revision, REPLICAS.length)
            assertAccounting(state, REPLICAS, 1)
          }),
        300_000
      )

      it.scoped(
        "a writer killed with SIGKILL mid-save loses nothing it acknowledged; the store takes saves after",
        () =>
          Effect.gen(function*() {
            const spec = yield* target.fresh
            const [killed, survivor] = yield* startAll(spec, "write", ["k", "s"], TURNS)
            yield* goAll([killed, survivor])
            yield* Effect.promise(() => killed.printed("ack 20"))
            killed.child.kill("SIGKILL")
            const [k, s] = yield* exitedAll([killed, survivor])
            assert.strictEqual(k.signal, "SIGKILL")
            assert.strictEqual(s.code, 0, s.stderr)
            const acknowledged = k.stdout.split("\n").filter((line) => line.startsWith("ack ")).length
            const { state } = yield* loadShared(spec)
            const stored = turnsOf(state, "k")
            // Every acknowledged turn, in order, once; at most the one in flight besides.
            assert.deepStrictEqual(
              stored.slice(0, acknowledged),
              Array.from({ length: acknowledged }, (_, i) => turn("k", i))
            )
            assert.include(
              [acknowledged, acknowledged + 1],
              stored.length,
              `stored ${stored.length}, acknowledged ${acknowledged}`
            )
            assert.deepStrictEqual(turnsOf(state, "s"), Array.from({ length: TURNS }, (_, i) => turn("s", i)))
            // The store is not left locked: one more writer saves.
            const [after] = yield* startAll(spec, "write", ["a"], 1)
            yield* goAll([after])
            assert.strictEqual((yield* exitedAll([after]))[0].code, 0)
            assert.deepStrictEqual(turnsOf((yield* loadShared(spec)).state, "a"), [turn("a", 0)])
          }),
        300_000
      )
    })
  }
})
