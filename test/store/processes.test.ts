/**
 * Four real `node` processes write the same conversation in one SQLite file,
 * 100 turns each, with a summarizer that folds: every one of the 400 turns
 * ends in the buffer or in exactly one fold, in each writer's order.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import * as ConversationStore from "../../src/store/ConversationStore.js"
import { assertAccounting } from "./accounting.js"
import { tempDirectory } from "./layers.js"

const ROOT = fileURLToPath(new URL("../../", import.meta.url))
const WRITER = fileURLToPath(new URL("./fixtures/writer.ts", import.meta.url))
const WRITERS = ["p0", "p1", "p2", "p3"]
const TURNS = 100

interface Writer {
  readonly child: ChildProcess
  readonly ready: Promise<void>
  readonly exited: Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>
}

const start = (filename: string, name: string): Writer => {
  const child = spawn(process.execPath, ["--import", "tsx", WRITER, filename, name, String(TURNS)], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  child.stderr!.on("data", (chunk) => (stderr += String(chunk)))
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (chunk) => {
      stdout += String(chunk)
      if (stdout.startsWith("ready\n")) resolve()
    })
    child.once("exit", () => reject(new Error(`writer ${name} exited before it was ready: ${stderr}`)))
  })
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once("exit", (code) => resolve({ code, stdout, stderr }))
  )
  return { child, ready, exited }
}

const writers = (filename: string) =>
  Effect.acquireRelease(
    Effect.sync(() => WRITERS.map((name) => start(filename, name))),
    (all) =>
      Effect.sync(() => {
        for (const w of all) if (w.child.exitCode === null) w.child.kill()
      })
  )

describe("SQLite store across processes", () => {
  it.scoped(
    "4 node processes x 100 turns into one conversation: none lost, none twice, each in order",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDirectory
        const filename = `${dir}/conversations.db`
        const store = ConversationStore.layerSqlite({ filename })
        // Create the file and the table before the writers open it.
        yield* Effect.provide(ConversationStore.ConversationStore, store)
        const all = yield* writers(filename)
        yield* Effect.promise(() => Promise.all(all.map((w) => w.ready)))
        for (const w of all) w.child.stdin!.end("go\n")
        const results = yield* Effect.promise(() => Promise.all(all.map((w) => w.exited)))
        for (const [i, r] of results.entries()) assert.strictEqual(r.code, 0, `writer ${WRITERS[i]}: ${r.stderr}`)
        const conflicts = results.map((r) => (JSON.parse(r.stdout.split("\n")[1]) as { conflicts: number }).conflicts)
        const stored = yield* Effect.flatMap(ConversationStore.ConversationStore, (s) => s.load("shared")).pipe(
          Effect.provide(Layer.fresh(store))
        )
        const { revision, state } = Option.getOrThrow(stored)
        assert.strictEqual(revision, WRITERS.length * TURNS, "one save per call")
        assertAccounting(state, WRITERS, TURNS)
        assert.isAbove(conflicts.reduce((a, b) => a + b, 0), 0, `the writers did conflict: ${conflicts.join(", ")}`)
      }),
    120_000
  )
})
