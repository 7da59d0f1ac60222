/**
 * `rollmem replay` stopped by a signal, as a child process run from the
 * sources, at any time (while its modules load, during its first
 * conversation, later): it exits with 128 plus the signal's number and one
 * line on stderr, and writes neither its report nor its HTML file.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { repoRoot } from "./support/cli.js"

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rollmem-interrupt-"))
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }))

/** About 3 MB of JSON Lines (over the progress bar's 1 MiB), several seconds of replay. */
const bigInput = (): string => {
  const file = path.join(tmp, "big.jsonl")
  const lines: Array<string> = []
  for (let c = 0; c < 1200; c++) {
    const messages = Array.from({ length: 20 }, (_, i) => ({
      role: i % 2 === 0 ? "user" : "assistant",
      content: `Message ${i} of conversation ${c}: the parcel with order ${c * 100 + i} never arrived in New York.`
    }))
    lines.push(JSON.stringify({ id: `c${c}`, messages }))
  }
  fs.writeFileSync(file, `${lines.join("\n")}\n`)
  return file
}

const input = bigInput()

/** One conversation of 40,000 messages (about 2.6 MB): its replay alone takes seconds. */
const oneLongConversation = (): string => {
  const file = path.join(tmp, "one-long.jsonl")
  const messages = Array.from({ length: 40_000 }, (_, i) => ({
    role: i % 2 === 0 ? "user" : "assistant",
    content: `Message ${i}: the parcel with order ${i} never arrived in New York.`
  }))
  fs.writeFileSync(file, `${JSON.stringify({ id: "long", messages })}\n`)
  return file
}

/**
 * Runs `rollmem <args>` with `test/support/signalOnLoad.ts` preloaded: it
 * sends `signal` while the command line's modules are still loading.
 */
const interruptedWhileLoading = (args: ReadonlyArray<string>, signal: NodeJS.Signals) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve, reject) => {
      const require = createRequire(import.meta.url)
      const child = spawn(process.execPath, [
        "--import",
        pathToFileURL(require.resolve("tsx")).href,
        "--import",
        pathToFileURL(path.join(repoRoot, "test", "support", "signalOnLoad.ts")).href,
        path.join(repoRoot, "src", "bin.ts"),
        ...args
      ], { cwd: tmp, env: { ...process.env, NO_COLOR: "1", ROLLMEM_TEST_SIGNAL: signal } })
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString()
      })
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString()
      })
      child.on("error", reject)
      child.on("close", (code, killedBy) => resolve({ code, signal: killedBy, stdout, stderr }))
    }
  )

/**
 * Runs `rollmem <args>` with a stderr it takes for a terminal (so that it
 * draws its progress bar), sends `signal` when the bar's first frame
 * arrives (the replay has started), and resolves with how it ended.
 */
const interrupted = (args: ReadonlyArray<string>, signal: NodeJS.Signals) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve, reject) => {
      const require = createRequire(import.meta.url)
      const child = spawn(process.execPath, [
        "--import",
        pathToFileURL(require.resolve("tsx")).href,
        "--import",
        pathToFileURL(path.join(repoRoot, "test", "support", "stderrTty.ts")).href,
        path.join(repoRoot, "src", "bin.ts"),
        ...args
      ], { cwd: tmp, env: { ...process.env, NO_COLOR: "1" } })
      let stdout = ""
      let stderr = ""
      let sent = false
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString()
      })
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString()
        if (!sent && stderr.includes("\r[")) {
          sent = true
          child.kill(signal)
        }
      })
      child.on("error", reject)
      child.on("close", (code, killedBy) => resolve({ code, signal: killedBy, stdout, stderr }))
    }
  )

/** stderr without the progress bar's frames and its erasing. */
const withoutBar = (stderr: string): string => stderr.replace(/\r\[[#-]*\] [^\r\n]*/g, "").replace(/\r\u001b\[K/g, "")

describe("rollmem replay stopped by a signal", () => {
  it("SIGINT while the modules load: exit code 130 and the line, never a silent kill", async () => {
    const report = path.join(tmp, "early.html")
    const result = await interruptedWhileLoading(
      ["replay", input, "--tokenizer", "words", "--report", report],
      "SIGINT"
    )
    assert.deepStrictEqual(
      { code: result.code, signal: result.signal, stdout: result.stdout, stderr: result.stderr },
      { code: 130, signal: null, stdout: "", stderr: "rollmem: interrupted (SIGINT)\n" }
    )
    assert.isFalse(fs.existsSync(report))
  })

  it("SIGTERM while the modules load: exit code 143 and the line", async () => {
    const result = await interruptedWhileLoading(["replay", input, "--tokenizer", "words"], "SIGTERM")
    assert.deepStrictEqual(
      { code: result.code, signal: result.signal, stdout: result.stdout, stderr: result.stderr },
      { code: 143, signal: null, stdout: "", stderr: "rollmem: interrupted (SIGTERM)\n" }
    )
  })

  it("SIGINT before the first conversation finishes: exit code 130 and the line", async () => {
    const result = await interrupted(["replay", oneLongConversation(), "--tokenizer", "words"], "SIGINT")
    assert.deepStrictEqual(
      { code: result.code, signal: result.signal, stdout: result.stdout, stderr: withoutBar(result.stderr) },
      { code: 130, signal: null, stdout: "", stderr: "rollmem: interrupted (SIGINT)\n" }
    )
  })

  it("SIGINT: exit code 130, one line on stderr, no report on stdout, no HTML report written", async () => {
    const report = path.join(tmp, "report.html")
    const result = await interrupted(["replay", input, "--tokenizer", "words", "--report", report], "SIGINT")
    assert.deepStrictEqual(
      { code: result.code, signal: result.signal, stdout: result.stdout, stderr: withoutBar(result.stderr) },
      { code: 130, signal: null, stdout: "", stderr: "rollmem: interrupted (SIGINT)\n" }
    )
    assert.isFalse(fs.existsSync(report))
  })

  it("SIGTERM: exit code 143, one line on stderr, no report on stdout", async () => {
    const result = await interrupted(["replay", input, "--tokenizer", "words", "--format", "json"], "SIGTERM")
    assert.deepStrictEqual(
      { code: result.code, signal: result.signal, stdout: result.stdout, stderr: withoutBar(result.stderr) },
      { code: 143, signal: null, stdout: "", stderr: "rollmem: interrupted (SIGTERM)\n" }
    )
  })
})
