/**
 * Every `@example` of the public exports' docstrings compiles: the examples of the exported
 * declarations (and of their members) and of their modules, reached from package.json's `exports`,
 * each compiled as a module of its own against the sources (`rollmem`, `rollmem/promise`, ...
 * resolve to `src/`), all in one Program (test/support/docstrings.ts). And the value exports
 * without an example do not grow in number (`npx tsx scripts/check-examples.ts --missing` lists them).
 */
import { assert, describe, it } from "@effect/vitest"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { collectExamples, compileExamples, missingExamples, packageAt } from "./support/docstrings.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

describe("docstring examples", () => {
  const pkg = packageAt(root)
  const examples = collectExamples(pkg)

  it("finds the examples", () => {
    assert.isAtLeast(examples.length, 100, `only ${examples.length} @example blocks found`)
  })

  it("every @example of a public export compiles against the sources", () => {
    const errors = compileExamples(pkg, examples)
    if (errors.length > 0) {
      assert.fail(
        `${new Set(errors.map((error) => error.example)).size} of ${examples.length} docstring examples do not ` +
          "compile. Each is compiled as a module of its own against src/ (rollmem, rollmem/promise, ... resolve to " +
          "the sources; strict, exactOptionalPropertyTypes): make it complete (import what it uses; declare what it " +
          "assumes, e.g. `declare const client: OpenAI`); fix the example, not the types.\n" +
          errors.map((error) => error.text).join("\n")
      )
    }
  })

  it("every value export has an example", () => {
    const { checked, missing } = missingExamples(pkg)
    assert.deepStrictEqual(
      missing,
      [],
      `${missing.length} of ${checked} value exports have no @example (@internal ones not counted): ` +
        `give each an example:\n${missing.join("\n")}`
    )
  })
})

describe("the docstring examples' check", () => {
  const fixture = packageAt(path.join(root, "test/fixtures/docstrings"))

  it("names the file, line, export and compiler message of an example that does not compile", () => {
    const examples = collectExamples(fixture)
    assert.deepStrictEqual(examples.map((example) => `${example.file}:${example.line}: ${example.exportName}`), [
      "src/index.ts:12: fixture: double",
      "src/index.ts:26: fixture: shout"
    ])
    assert.deepStrictEqual(compileExamples(fixture, examples).map((error) => error.text), [
      "src/index.ts:28: fixture: shout: TS2322: Type 'string' is not assignable to type 'number'."
    ])
  })

  it("counts the value exports without an example", () => {
    assert.deepStrictEqual(missingExamples(fixture), {
      checked: 3,
      internal: 0,
      missing: ["fixture: quiet (src/index.ts)"]
    })
  })
})
