/**
 * Conversation entities across real `node` processes on 127.0.0.1, with the
 * PostgreSQL server of the store tests (a schema of its own per test,
 * dropped after): runners (`ConversationCluster.layerRunner`, folding with
 * the store tests' summarizer) and client-only writers
 * (`ConversationCluster.layerClient`), all writing the conversation
 * `shared` through `Conversation.withMemory`:
 *
 * - 3 runners x 8 writers x 20 turns: every turn once, in each writer's order;
 * - the owner stopped with SIGTERM while the writers write: its entity is
 *   handed over, nothing lost or doubled;
 * - the owner killed with SIGKILL: its unanswered requests are delivered
 *   again to the next owner, and applied once (no turn twice);
 * - a process started with another `shardsPerGroup` fails fast with
 *   `ConfigError` instead of hanging.
 *
 * Slow (tens of seconds of CPU on 2 cores): run it when the cluster code
 * changes. Without a PostgreSQL server the suite is skipped with one line
 * saying how to point it at one; under `CI=true` that is a failure.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, type Scope } from "effect"
import * as net from "node:net"
import { fileURLToPath } from "node:url"
import * as ConversationStore from "../../src/store/ConversationStore.js"
import { assertAccounting } from "../store/accounting.js"
import { ci, pgSchema, probePg, skipNote } from "../store/servers.js"
import {
  bundleFixture,
  type Exited,
  exitedAll,
  go,
  type Process,
  ready,
  startAll as startProcesses
} from "../support/processes.js"

const BUNDLE = bundleFixture(fileURLToPath(new URL("./fixtures/node.ts", import.meta.url)), "cluster")

const pg = await probePg()

const startAll = (specs: ReadonlyArray<readonly [string, ReadonlyArray<string>]>) => startProcesses(BUNDLE, specs)

const SHARDS = 16
const RUNNERS = ["r0", "r1", "r2"]
const WRITERS = Array.from({ length: 8 }, (_, i) => `w${i}`)
const TURNS = 20
/** A port of 127.0.0.1 free right now (the system's pick). */
const freePort = Effect.async<number>((resume) => {
  const server = net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as net.AddressInfo
    server.close(() => resume(Effect.succeed(port)))
  })
})

const runners = (url: string, shards = SHARDS) =>
  Effect.flatMap(
    Effect.all(RUNNERS.map(() => freePort)),
    (ports) => startAll(RUNNERS.map((name, i) => [name, ["runner", url, String(shards), String(ports[i])]] as const))
  )

const writers = (url: string, names: ReadonlyArray<string>, shards = SHARDS) =>
  startAll(names.map((name) => [name, ["writer", url, String(shards), name, String(TURNS)]] as const))

const assertDone = (all: ReadonlyArray<Process>, results: ReadonlyArray<Exited>) => {
  for (const [i, r] of results.entries()) {
    assert.strictEqual(r.code, 0, `${all[i].name}: ${r.stderr.slice(-2000)}${r.stdout.slice(-2000)}`)
    assert.include(r.stdout, "done\n")
  }
}

const loadShared = (url: string) =>
  Effect.provide(
    Effect.flatMap(ConversationStore.ConversationStore, (s) => s.load("shared")),
    Layer.orDie(ConversationStore.layerPg({ url }))
  ).pipe(Effect.map(Option.getOrThrowWith(() => new Error("nothing stored"))))

/** The runner that owns `shared`: the one whose summarizer folded it last. */
const owner = (all: ReadonlyArray<Process>): Process | undefined => {
  const folding = all.filter((n) => n.stdout().includes("fold shared\n"))
  return folding.length === 1 ? folding[0] : undefined
}

const ownerOnceFolded = (all: ReadonlyArray<Process>) =>
  Effect.promise(() => Promise.race(all.map((n) => n.printed("fold shared").then(() => n))))

const schema: Effect.Effect<string, never, Scope.Scope> = Effect.map(pgSchema(), ({ url }) => url)

describe.skipIf(pg.unreachable !== undefined && !ci)("conversation entities across processes", () => {
  if (pg.unreachable !== undefined) {
    it(`${pg.name} at ${pg.url} answers (CI=true)`, () => assert.fail(pg.unreachable))
    return
  }

  it.scoped(
    `${RUNNERS.length} runners x ${WRITERS.length} writers x ${TURNS} turns: every turn once, in order`,
    () =>
      Effect.gen(function*() {
        const url = yield* schema
        const rs = yield* runners(url)
        yield* ready(rs)
        const ws = yield* writers(url, WRITERS)
        yield* ready(ws)
        yield* go(ws)
        const results = yield* exitedAll(ws)
        assertDone(ws, results)
        assertAccounting((yield* loadShared(url)).state, WRITERS, TURNS)
        assert.isDefined(owner(rs), "one runner folded the conversation")
      }),
    300_000
  )

  for (const signal of ["SIGTERM", "SIGKILL"] as const) {
    it.scoped(
      `the owner stopped with ${signal} while ${WRITERS.length} writers write: nothing lost, nothing twice`,
      () =>
        Effect.gen(function*() {
          const url = yield* schema
          const rs = yield* runners(url)
          yield* ready(rs)
          const ws = yield* writers(url, WRITERS)
          yield* ready(ws)
          yield* go(ws)
          const stopped = yield* ownerOnceFolded(rs)
          const acks = ws.map((w) => w.stdout().split("\n").filter((l) => l.startsWith("ack ")).length)
          const killedAt = Date.now()
          stopped.child.kill(signal)
          // How long the conversation is unavailable: until any writer's next turn is acknowledged.
          yield* Effect.promise(() => Promise.race(ws.map((w, i) => w.printed(`ack ${acks[i]}`))))
          process.stderr.write(
            `owner stopped with ${signal}: next turn acknowledged after ${Date.now() - killedAt} ms\n`
          )
          const exit = yield* Effect.promise(() => stopped.exited)
          if (signal === "SIGKILL") assert.strictEqual(exit.signal, "SIGKILL")
          const results = yield* exitedAll(ws)
          assertDone(ws, results)
          assertAccounting((yield* loadShared(url)).state, WRITERS, TURNS)
          const others = rs.filter((r) => r !== stopped)
          assert.isTrue(others.some((r) => r.stdout().includes("fold shared\n")), "another runner took it over")
        }),
      300_000
    )
  }

  it.scoped(
    "a client or a runner with another shardsPerGroup fails fast with ConfigError",
    () =>
      Effect.gen(function*() {
        const url = yield* schema
        const [runner] = yield* startAll([["r0", ["runner", url, String(SHARDS), String(yield* freePort)]]])
        yield* ready([runner])
        const started = Date.now()
        const [client, other] = yield* startAll([
          ["w-32", ["writer", url, String(SHARDS * 2), "w", "1"]],
          ["r-32", ["runner", url, String(SHARDS * 2), String(yield* freePort)]]
        ])
        const [c, r] = yield* exitedAll([client, other])
        for (const e of [c, r]) {
          assert.strictEqual(e.code, 1)
          assert.include(
            e.stdout + e.stderr,
            `ConfigError: invalid option shardsPerGroup: is ${SHARDS * 2} in this process but ${SHARDS} in the cluster`
          )
          assert.notInclude(e.stdout, "ready")
        }
        assert.isBelow(Date.now() - started, 30_000)
        // The cluster itself is unaffected: a client with the right value writes.
        const [good] = yield* writers(url, ["w"])
        yield* ready([good])
        yield* go([good])
        assertDone([good], yield* exitedAll([good]))
      }),
    60_000
  )
})

if (pg.unreachable !== undefined && !ci) {
  describe("conversation entities across processes", () => {
    it.skip(`the cluster tests ${skipNote(pg)}`, () => {})
  })
}
