/**
 * Real `node` processes for the tests that run several of them (the stores'
 * writers, the cluster's runners and writers): a fixture bundled once per
 * test file with esbuild and run with plain `node` (starting through tsx
 * costs about 2 seconds of CPU more per process), its output watched line by
 * line, and every process killed when the test's scope closes. Nothing
 * sleeps: a test waits for the lines a process prints and for its exit,
 * bounded by the test's timeout.
 */
import { afterAll, beforeAll } from "@effect/vitest"
import { Effect } from "effect"
import { buildSync } from "esbuild"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import { fileURLToPath } from "node:url"

const ROOT = fileURLToPath(new URL("../../", import.meta.url))

/**
 * Bundles `source` (a fixture's path) before the file's tests and removes the
 * bundle after them; returns the bundle's path, inside the repository so that
 * its imports resolve to its node_modules.
 */
export const bundleFixture = (source: string, name: string): string => {
  const bundle = `${ROOT}node_modules/.cache/rollmem-test/${name}-${process.pid}.mjs`
  beforeAll(() => {
    buildSync({
      entryPoints: [source],
      bundle: true,
      packages: "external",
      format: "esm",
      platform: "node",
      target: "node20",
      outfile: bundle,
      logLevel: "error"
    })
  })
  afterAll(() => fs.rmSync(bundle, { force: true }))
  return bundle
}

/** How a process ended, with everything it printed. */
export interface Exited {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/** A running process. */
export interface Process {
  readonly name: string
  readonly child: ChildProcess
  readonly exited: Promise<Exited>
  /** What it printed to stdout so far. */
  readonly stdout: () => string
  /** Resolves once it has printed `line` (a whole line); rejects if it exits first. */
  readonly printed: (line: string) => Promise<void>
}

/** Runs `node bundle ...args`, stdin open (a fixture waits for `go` on it). */
export const start = (bundle: string, name: string, args: ReadonlyArray<string>): Process => {
  const child = spawn(process.execPath, [bundle, ...args], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] })
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
      void exited.then((e) => reject(new Error(`${name} exited before printing ${line}: ${e.stderr}${e.stdout}`)))
    })
  return { name, child, exited, stdout: () => stdout, printed }
}

/** Starts processes (`[name, args]` each); those still running when the scope closes are killed and awaited. */
export const startAll = (bundle: string, specs: ReadonlyArray<readonly [string, ReadonlyArray<string>]>) =>
  Effect.acquireRelease(
    Effect.sync(() => specs.map(([name, args]) => start(bundle, name, args))),
    (all) =>
      Effect.promise(async () => {
        for (const p of all) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL")
        await Promise.all(all.map((p) => p.exited))
      })
  )

/** Waits until every process printed `ready`. */
export const ready = (all: ReadonlyArray<Process>) =>
  Effect.promise(() => Promise.all(all.map((p) => p.printed("ready"))))

/** Lets every process go at once (a line `go` on its stdin). */
export const go = (all: ReadonlyArray<Process>) => Effect.sync(() => all.forEach((p) => p.child.stdin!.end("go\n")))

/** Waits until every process exited. */
export const exitedAll = (all: ReadonlyArray<Process>) => Effect.promise(() => Promise.all(all.map((p) => p.exited)))
