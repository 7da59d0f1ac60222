/**
 * `rollmem/promise` bundles (issue 25, rough edge 5): in a project where
 * only `rollmem` and `effect` are installed (none of the optional peers),
 * `esbuild entry.mjs --bundle --minify --format=esm --platform=node` (and
 * `--platform=browser`), with no externals, succeeds and the bundle runs.
 * The stores load their drivers through a specifier bundlers do not follow
 * (`store/internal/peers.ts`); the drivers are loaded from `node_modules`
 * when a store layer is built.
 *
 * Size: the goal is 80,831 bytes gzipped, measured when it was
 * filed with the peers marked external by hand. It is missed (about 98,000
 * bytes now: the facade has grown since, option schemas, context windows,
 * ledgers; effect's runtime and Schema are most of it). What this check
 * holds is the size this change is about: the bundle with no externals is
 * no larger than the same entry bundled the old way, with the peers marked
 * external by hand, measured in the same run.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as zlib from "node:zlib"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const esbuild = path.join(
  path.dirname(createRequire(import.meta.url).resolve("esbuild/package.json")),
  "bin",
  "esbuild"
)

/** The peers a bundle had to mark external by hand before the stores loaded their drivers out of the bundler's sight. */
const PEERS_EXTERNAL = ["--external:ioredis", "--external:@effect/*"]

const run = (file: string, args: ReadonlyArray<string>, cwd: string) =>
  new Promise<{ readonly code: number; readonly stdout: string; readonly stderr: string }>((resolve) =>
    execFile(
      file,
      [...args],
      { cwd },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
    )
  )

const entry = `import { Conversations, RollingMemory } from "rollmem/promise"

const memory = new RollingMemory({
  maxTokens: 20,
  summarize: (summary, turns) => (summary + " +" + turns.length).trim(),
  tokenCounter: (text) => text.split(" ").length
})
// five words a turn, four turns a budget: the fifth and the sixth each fold the oldest
for (let i = 0; i < 6; i++) memory.addUserMessage("turn " + i + " has five words")
const conversations = new Conversations({ store: "memory", strategy: "buffer" })
const stored = await conversations.use("c1", async (m) => {
  await m.addUserMessage("hello")
  return m.getMessages().length
})
console.log(JSON.stringify({ summary: memory.summary, buffer: memory.buffer.length, stored }))
await conversations.dispose()
`

/**
 * A project with `rollmem` (this checkout's sources, as the package's
 * `./promise` export) and `effect`, and nothing else: no optional peer is
 * reachable from it.
 */
const project = (): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rollmem-bundle-"))
  const pkg = path.join(dir, "node_modules", "rollmem")
  fs.mkdirSync(pkg, { recursive: true })
  fs.cpSync(path.join(root, "src"), path.join(pkg, "src"), { recursive: true })
  fs.writeFileSync(
    path.join(pkg, "package.json"),
    JSON.stringify({ name: "rollmem", type: "module", exports: { "./promise": "./src/promise/index.ts" } })
  )
  fs.symlinkSync(fs.realpathSync(path.join(root, "node_modules", "effect")), path.join(dir, "node_modules", "effect"))
  fs.writeFileSync(path.join(dir, "entry.mjs"), entry)
  return dir
}

describe("bundling rollmem/promise without the optional peers", () => {
  it("esbuild --bundle --minify for node and for the browser succeeds, and the bundles run", async () => {
    const dir = project()
    try {
      for (const platform of ["node", "browser"]) {
        const out = `out-${platform}.mjs`
        const built = await run(
          esbuild,
          ["entry.mjs", "--bundle", "--minify", "--format=esm", `--platform=${platform}`, `--outfile=${out}`],
          dir
        )
        assert.strictEqual(built.code, 0, built.stderr)
        const ran = await run(process.execPath, [out], dir)
        assert.strictEqual(ran.stderr, "")
        assert.deepStrictEqual(JSON.parse(ran.stdout), { summary: "+1 +1", buffer: 4, stored: 1 })
        const gzipped = zlib.gzipSync(fs.readFileSync(path.join(dir, out))).length
        const external = `out-${platform}-external.mjs`
        const baseline = await run(
          esbuild,
          [
            "entry.mjs",
            "--bundle",
            "--minify",
            "--format=esm",
            `--platform=${platform}`,
            ...PEERS_EXTERNAL,
            `--outfile=${external}`
          ],
          dir
        )
        assert.strictEqual(baseline.code, 0, baseline.stderr)
        const gzippedExternal = zlib.gzipSync(fs.readFileSync(path.join(dir, external))).length
        assert.isAtMost(
          gzipped,
          gzippedExternal,
          `${platform}: ${gzipped} bytes gzipped, ${gzippedExternal} with the peers external`
        )
        console.log(
          `rollmem/promise bundled for ${platform}: ${gzipped} bytes gzipped (${gzippedExternal} with the peers external; goal 80,831)`
        )
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
