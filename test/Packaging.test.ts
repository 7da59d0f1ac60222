/**
 * What a library-only install needs: `effect` alone. Every other package is
 * an optional peer dependency loaded only when its feature is used (a
 * tokenizer layer, a store layer, `rollmem/ai`), and the command line's own
 * packages are bundled into `dist/bin.js`. The real install is measured by
 * `scripts/pack-check.sh`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import packageJson from "../package.json" with { type: "json" }

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

// Static runtime imports only: `import type` and `export type` load nothing; `import("x")` loads on use.
// an import, or a re-export (`export { a } from`, `export * as b from`); never a declaration
// (`export interface ...` whose body, without quotes, would run on to a doc comment's import)
const importPattern =
  /^\s*(?:import|export)\s+(?!type\s|interface\s|class\s|const\s|let\s|function\s|async\s|declare\s|enum\s|abstract\s|namespace\s|default\s)(?:[^"';]*?\sfrom\s+)?["']([^"']+)["']/gm

/** Every bare package a module loads when imported, following relative imports. */
const packagesLoadedBy = (entry: string): Array<string> => {
  const packages = new Set<string>()
  const seen = new Set<string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    for (const match of fs.readFileSync(file, "utf8").matchAll(importPattern)) {
      const specifier = match[1]
      if (specifier.startsWith(".")) visit(path.resolve(path.dirname(file), specifier.replace(/\.js$/, ".ts")))
      else {packages.add(
          specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]
        )}
    }
  }
  visit(path.join(root, entry))
  return [...packages].sort()
}

describe("a library-only install", () => {
  it("importing rollmem, rollmem/promise, rollmem/store or rollmem/tokenizers loads effect and nothing else", () => {
    for (const entry of ["src/index.ts", "src/promise/index.ts", "src/store.ts", "src/tokenizers.ts"]) {
      assert.deepStrictEqual(packagesLoadedBy(entry), ["effect"], entry)
    }
  })

  it("has no dependencies; every peer but effect is optional", () => {
    assert.deepStrictEqual(Object.keys((packageJson as { dependencies?: object }).dependencies ?? {}), [])
    const optional = Object.keys(packageJson.peerDependenciesMeta).sort()
    assert.deepStrictEqual(Object.keys(packageJson.peerDependencies).filter((p) => !optional.includes(p)), ["effect"])
    assert.deepStrictEqual(optional, [
      "@effect/ai",
      "@effect/ai-openai",
      "@effect/cluster",
      "@effect/opentelemetry",
      "@effect/platform",
      "@effect/platform-node",
      "@effect/rpc",
      "@effect/sql",
      "@effect/sql-pg",
      "@effect/sql-sqlite-node",
      "@effect/workflow",
      "@langchain/core",
      "ai",
      "ai-tokenizer",
      "gpt-tokenizer",
      "ioredis",
      "js-tiktoken"
    ])
  })

  it("the command line's packages are not peers: they are bundled into dist/bin.js", () => {
    // @effect/platform-node is bundled too; it is an optional peer for rollmem/cluster alone.
    for (const cli of ["@effect/cli", "@effect/printer", "@effect/printer-ansi"]) {
      assert.notProperty(packageJson.peerDependencies, cli)
    }
  })

  it("rollmem/cluster alone loads the cluster's packages, and no core entry loads it", () => {
    assert.deepStrictEqual(packagesLoadedBy("src/cluster.ts"), [
      "@effect/cluster",
      "@effect/platform-node",
      "@effect/rpc",
      "@effect/sql",
      "@effect/sql-pg",
      "effect"
    ])
    for (const entry of ["src/index.ts", "src/promise/index.ts", "src/store.ts", "src/tokenizers.ts"]) {
      assert.notInclude(packagesLoadedBy(entry), "@effect/cluster", entry)
    }
  })
})
