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
 *   acknowledged is stored, once, and the store takes saves afterwards;
 * - with the archive (SQLite and PostgreSQL): 8 writers x 100 turns, each
 *   writer killed with SIGKILL 3 times at seeded random points inside a save
 *   (before a statement, before the COMMIT, after it) and restarted, going
 *   on after its last stored turn: every turn in the buffer or in exactly
 *   one fold, every folded turn archived exactly once in its fold, none
 *   lost, none doubled (docs/contract.md section 17.2).
 *
 * The writer (fixtures/writer.ts) is bundled once with esbuild and run with
 * plain `node`: starting a process through tsx costs about 2 seconds of CPU
 * more, and the suite starts 70 of them. Nothing sleeps: the test waits for
 * each process's lines and exit, bounded by the test's timeout.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, type Scope } from "effect"
import { fileURLToPath } from "node:url"
import type * as MemoryState from "../../src/schema/MemoryState.js"
import * as ConversationStore from "../../src/store/ConversationStore.js"
import {
  bundleFixture,
  type Exited,
  exitedAll,
  go,
  type Process,
  ready,
  startAll as startProcesses
} from "../support/processes.js"
import { assertAccounting, foldsOf } from "./accounting.js"
import { turn } from "./fold.js"
import { reportUnreachable, servers, tempDirectory } from "./layers.js"
import { pgSchema, redisPrefix, redisUrl } from "./servers.js"

const BUNDLE = bundleFixture(fileURLToPath(new URL("./fixtures/writer.ts", import.meta.url)), "writer")

type Spec =
  | { readonly kind: "sqlite"; readonly filename: string }
  | { readonly kind: "pg"; readonly url: string }
  | { readonly kind: "redis"; readonly url: string; readonly prefix: string }

/** Starts writers, killed when the test's scope closes if they are still running. */
const startAll = (spec: Spec, mode: "write" | "replica", names: ReadonlyArray<string>, turns: number) =>
  startProcesses(BUNDLE, names.map((name) => [name, [JSON.stringify(spec), mode, name, String(turns)]] as const))

/** Starts archiving writers that resume after their last stored turn, each killing itself at `killAt` when given. */
const startArchiving = (spec: Spec, runs: ReadonlyArray<readonly [name: string, killAt: number | undefined]>) =>
  startProcesses(
    BUNDLE,
    runs.map(([name, killAt]) =>
      [name, [
        JSON.stringify(spec),
        "write",
        name,
        String(TURNS),
        JSON.stringify(killAt === undefined ? { archive: true } : { archive: true, killAt })
      ]] as const
    )
  )

/** A seeded pseudo-random sequence in [0, 1) (mulberry32). */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** Waits until every writer is ready, then lets them all go at once. */
const goAll = (all: ReadonlyArray<Process>) => Effect.zipRight(ready(all), go(all))

const archivedOf = (spec: Spec) =>
  Effect.provide(
    Effect.flatMap(ConversationStore.ConversationStore, (s) => Effect.orDie(s.archive!.messages("shared"))),
    layerOf(spec)
  )

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

const assertExitedCleanly = (all: ReadonlyArray<Process>, results: ReadonlyArray<Exited>) => {
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
/** How many times each archiving writer is killed; each kill point is at most {@link KILL_WITHIN} points into its run. */
const KILLS = 3
/** At least one save (3 points or more: a statement, before and after COMMIT) per turn: 3 kills end within 60 turns. */
const KILL_WITHIN = 60

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

      // The isolation level changes nothing a killed writer leaves behind: READ COMMITTED covers it.
      if (target === pgSerializable) return

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

      // Redis keeps no transaction a kill could cut: its script writes the rows and the state at once.
      if (target === redis) return

      it.scoped(
        `${WRITERS.length} archiving processes x ${TURNS} turns, each killed ${KILLS} times mid-save and restarted: ` +
          "every turn once in the buffer or a fold, every folded turn archived once",
        () =>
          Effect.gen(function*() {
            const spec = yield* target.fresh
            const random = seeded(target === sqlite ? 30 : 31)
            const killAt = WRITERS.map(() =>
              Array.from({ length: KILLS }, () => 1 + Math.floor(random() * KILL_WITHIN))
            )
            const first = yield* startArchiving(spec, WRITERS.map((name, w) => [name, killAt[w][0]] as const))
            yield* goAll(first)
            // each writer restarted once its run is killed, the next run with its next kill point (none after the last)
            const runs = yield* Effect.forEach(WRITERS, (name, w) =>
              Effect.gen(function*() {
                const exits = [(yield* exitedAll([first[w]]))[0]]
                while (exits[exits.length - 1].signal === "SIGKILL") {
                  const [next] = yield* startArchiving(spec, [[name, killAt[w][exits.length]]])
                  yield* goAll([next])
                  exits.push((yield* exitedAll([next]))[0])
                }
                return exits
              }), { concurrency: "unbounded" })
            const where = runs.flatMap((exits) =>
              exits.flatMap((e) => e.stdout.split("\n").filter((line) => line.startsWith("kill ")))
            )
            for (const [w, exits] of runs.entries()) {
              const last = exits[exits.length - 1]
              assert.strictEqual(last.code, 0, `writer ${WRITERS[w]}: ${last.stderr}`)
              assert.deepStrictEqual(
                exits.map((e) => e.signal),
                [...Array<string>(KILLS).fill("SIGKILL"), null],
                `writer ${WRITERS[w]} killed at ${killAt[w].join(", ")}`
              )
            }
            const { revision, state } = yield* loadShared(spec)
            assert.strictEqual(revision, WRITERS.length * TURNS, `one save per turn; killed ${where.join("; ")}`)
            assertAccounting(state, WRITERS, TURNS)
            // every folded turn archived once, in the fold it left in, at its position; the buffer's after them
            const folds = foldsOf(state.summary)
            const archived = yield* archivedOf(spec)
            assert.deepStrictEqual(
              archived.map((row) => row.position),
              Array.from({ length: archived.length }, (_, i) => i)
            )
            assert.deepStrictEqual(
              Array.from(
                { length: folds.length },
                (_, i) => archived.filter((row) => row.fold === i + 1).map((row) => row.message.content)
              ),
              folds
            )
            assert.strictEqual(archived.length, folds.flat().length)
            assert.deepStrictEqual(
              state.positions,
              Array.from({ length: state.buffer.length }, (_, i) => archived.length + i)
            )
            assert.strictEqual(state.nextPosition, WRITERS.length * TURNS)
          }),
        600_000
      )
    })
  }
})
