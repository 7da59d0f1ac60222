/**
 * Issue 31's bundle goal: the Effect 4 line's `rollmem/promise` bundled
 * (esbuild `--bundle --minify --format=esm --platform=node`, no externals,
 * gzip level 9) is no larger than the Effect 3 line's, from the same entry
 * (the bench's section "lines", `bench/src/sections/lines.ts`, measures the
 * same from each line's build). Both are bundled here from their sources in
 * the same run, each with its own `effect`, and both bundles run.
 *
 * The Effect 4 line imports `effect`'s modules by their own paths
 * (`effect/Schema`, never the `effect` index): esbuild keeps every export of
 * a namespace re-exported by an index (`export * as Schema from
 * "./Schema.js"`), which put all of Effect 4's `Schema` (and the crypto, net
 * and http modules its declarations use) in the facade's bundle.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as zlib from "node:zlib"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")

/** The root's esbuild (the one `test/bundle.test.ts` runs). */
const esbuild = createRequire(path.join(root, "package.json"))("esbuild") as {
  build(options: Record<string, unknown>): Promise<{ readonly outputFiles: ReadonlyArray<{ readonly text: string }> }>
}

/** The bench's entry: a rolling memory that folds twice. */
const entryOf = (facade: string): string =>
  `import { RollingMemory } from ${JSON.stringify(facade)}
const memory = new RollingMemory({
  maxTokens: 20,
  summarize: (summary, turns) => (summary + " +" + turns.length).trim(),
  tokenCounter: (text) => text.split(" ").length
})
for (let i = 0; i < 6; i++) memory.addUserMessage("turn " + i + " has five words")
console.log(JSON.stringify({ summary: memory.summary, buffer: memory.buffer.length }))
`

const run = (file: string, args: ReadonlyArray<string>) =>
  new Promise<{ readonly stdout: string; readonly stderr: string }>((resolve, reject) =>
    execFile(file, [...args], (error, stdout, stderr) => error === null ? resolve({ stdout, stderr }) : reject(error))
  )

/** One line's facade bundled from its source: the bundle's gzipped size, and what it prints when run. */
const bundle = async (dir: string, line: string, facade: string) => {
  const entry = path.join(dir, `${line}-entry.mjs`)
  fs.writeFileSync(entry, entryOf(facade))
  const built = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "node",
    write: false,
    logLevel: "silent"
  })
  const code = built.outputFiles[0].text
  const out = path.join(dir, `${line}.mjs`)
  fs.writeFileSync(out, code)
  const ran = await run(process.execPath, [out])
  return { gzipBytes: zlib.gzipSync(code, { level: 9 }).length, ...ran }
}

describe("rollmem/promise bundled, Effect 4 line against Effect 3 line", () => {
  it("the Effect 4 facade's bundle is no larger than the Effect 3 facade's, and both run", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rollmem-bundle4-"))
    try {
      const effect3 = await bundle(dir, "effect3", path.join(root, "src", "promise", "index.ts"))
      const effect4 = await bundle(dir, "effect4", path.join(root, "effect4", "src", "promise", "index.ts"))
      for (const ran of [effect3, effect4]) {
        assert.strictEqual(ran.stderr, "")
        assert.deepStrictEqual(JSON.parse(ran.stdout), { summary: "+1 +1", buffer: 4 })
      }
      assert.isAtMost(
        effect4.gzipBytes,
        effect3.gzipBytes,
        `Effect 4 facade ${effect4.gzipBytes} bytes gzipped, Effect 3 facade ${effect3.gzipBytes}`
      )
      console.log(`rollmem/promise gzipped: Effect 4 line ${effect4.gzipBytes}, Effect 3 line ${effect3.gzipBytes}`)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
