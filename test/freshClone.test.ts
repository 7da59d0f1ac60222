/**
 * The command-line commands the documentation runs on the repository's own
 * files work as written in a fresh clone: cloned, dependencies in place
 * (`npm ci`: here, the checkout's own `node_modules`), built when a command
 * runs `dist/`, then each command in document order. `npx rollmem` is for a
 * project that installed the package: in the repository itself npx installs
 * the repository into its cache, and a first call made before a build
 * leaves it without the command for good (`sh: 1: rollmem: not found`), so
 * the documentation runs the command line from source there (`node --import
 * tsx src/bin.ts`, `npm run demo`) or built (`node dist/bin.js`).
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { repoRoot } from "./support/cli.js"

/** Runs a program without blocking the test worker; resolves with its exit status and output. */
const run = (file: string, args: ReadonlyArray<string>, cwd?: string) =>
  new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      file,
      args,
      { cwd, maxBuffer: 2 ** 26 },
      (error, stdout, stderr) =>
        resolve({ status: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr })
    )
  })

/** The documents a newcomer reads in the checkout at `root`: the README and the guides. */
const documents = (root: string): Array<string> => {
  const guides = path.join(root, "docs", "guides")
  const found = fs.existsSync(guides)
    ? fs.readdirSync(guides).filter((name) => name.endsWith(".md")).map((name) => path.join("docs", "guides", name))
    : []
  return ["README.md", ...found.sort()]
}

/** Every command of the fenced `sh` blocks of a document: comments dropped, `\` continuations joined, `&&` split. */
const shellCommands = (text: string): Array<string> => {
  const commands: Array<string> = []
  for (const block of text.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)) {
    const joined = block[1].replace(/\\\n\s*/g, " ")
    for (const line of joined.split("\n")) {
      const command = line.replace(/^\$ /, "").replace(/\s+#.*$/, "").trim()
      if (command === "" || command.startsWith("#")) continue
      for (const part of command.split("&&")) commands.push(part.trim())
    }
  }
  return commands
}

const runsTheCommandLine = (command: string): boolean =>
  /^(npx rollmem|node dist\/bin\.js|node --import tsx src\/bin\.ts)\b|^npm run demo$/.test(command)

/**
 * A command on the repository's own files: a replay of `examples/`, or a
 * `show` from a SQLite store (which such a replay writes); not one naming a
 * placeholder (`<file.jsonl>`), a file outside the repository or a server.
 */
const onRepositoryFiles = (command: string): boolean =>
  (/\bexamples\/|^npm run demo$/.test(command) || /\bshow\b.*--store sqlite:/.test(command)) &&
  !/[<>]|\.\.\/|postgres:\/\/|redis:\/\//.test(command)

/** The documented commands that run the command line on the repository's own files, in the checkout at `root`. */
const casesIn = (root: string) =>
  documents(root).flatMap((document) =>
    shellCommands(fs.readFileSync(path.join(root, document), "utf8"))
      .filter((command) => runsTheCommandLine(command) && onRepositoryFiles(command))
      .map((command) => ({ document, command }))
  )

describe("the documented in-repository commands", () => {
  it("do not run npx rollmem, which in the repository depends on npx's cache", () => {
    const cases = casesIn(repoRoot)
    assert.isAbove(cases.length, 0)
    assert.deepStrictEqual(cases.filter((c) => c.command.startsWith("npx ")), [])
  })

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rollmem-clone-"))
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }))

  it("work as written in a fresh clone after npm ci and npm run build", { timeout: 300_000 }, async () => {
    const clone = path.join(tmp, "rollmem")
    assert.strictEqual((await run("git", ["clone", "--quiet", repoRoot, clone])).status, 0)
    fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(clone, "node_modules"))
    // the clone holds the committed documents: its own commands are run
    const cases = casesIn(clone)
    if (cases.some((c) => c.command.includes("dist/"))) {
      const build = await run("npm", ["run", "build"], clone)
      assert.strictEqual(build.status, 0, build.stderr)
    }
    assert.isAbove(cases.length, 0)
    assert.isTrue(cases.some((c) => / show /.test(c.command)), "a stored conversation is read back")
    for (const { command, document } of cases) {
      const result = await run("sh", ["-c", command], clone)
      assert.deepStrictEqual(
        { document, command, status: result.status, stderr: result.stderr },
        { document, command, status: 0, stderr: "" }
      )
      assert.notStrictEqual(result.stdout.trim(), "", `${document}: ${command} printed nothing`)
    }
  })
})
