import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")

// Runtime imports only: `import type` and `export type` load nothing.
const importPattern = /^\s*(?:import|export)\s+(?!type\s)(?:[^"';]*?\sfrom\s+)?["']([^"']+)["']/gm

/** Every bare package a module loads at run time, following relative imports. */
const packagesLoadedBy = (entry: string): Set<string> => {
  const packages = new Set<string>()
  const seen = new Set<string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    const source = fs.readFileSync(file, "utf8")
    for (const match of source.matchAll(importPattern)) {
      const specifier = match[1]
      if (specifier.startsWith(".")) visit(path.resolve(path.dirname(file), specifier.replace(/\.js$/, ".ts")))
      else packages.add(specifier)
    }
  }
  visit(path.join(root, entry))
  return packages
}

const effectAi = (packages: Set<string>) => [...packages].filter((p) => p.startsWith("@effect/ai")).sort()

describe("rollmem/ai is a separate entry", () => {
  it("the core, facade and tokenizer entries never load @effect/ai", () => {
    for (const entry of ["src/index.ts", "src/promise/index.ts", "src/tokenizers.ts"]) {
      const packages = packagesLoadedBy(entry)
      assert.isTrue(packages.has("effect/Effect") || [...packages].some((p) => p.startsWith("effect")), entry)
      assert.deepStrictEqual(effectAi(packages), [], entry)
    }
  })

  it("SummaryPrompt loads nothing from @effect/ai (its text can feed any SDK)", () => {
    assert.deepStrictEqual(effectAi(packagesLoadedBy("src/ai/SummaryPrompt.ts")), [])
  })

  it("rollmem/ai loads @effect/ai (and no provider package)", () => {
    assert.deepStrictEqual(effectAi(packagesLoadedBy("src/ai.ts")), [
      "@effect/ai/AiError",
      "@effect/ai/LanguageModel",
      "@effect/ai/Prompt",
      "@effect/ai/Tokenizer",
      "@effect/ai/Tool",
      "@effect/ai/Toolkit"
    ])
  })
})
