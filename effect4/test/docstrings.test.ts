/**
 * Every `@example` of the Effect 4 line's public exports compiles against its sources (`rollmem`,
 * `rollmem/promise`, `rollmem/store` resolve to `effect4/src/`, `effect` to effect 4), each a module
 * of its own in one Program (../../test/support/docstrings.ts, the check the Effect 3 line runs in
 * test/docstrings.test.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { collectExamples, compileExamples, missingExamples, packageAt } from "../../test/support/docstrings.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

/** The value exports that have no `@example` yet: lower it with each example added, never raise it. */
const MAX_MISSING = 86

describe("docstring examples", () => {
  const pkg = packageAt(root)
  const examples = collectExamples(pkg)

  it("finds the examples", () => {
    assert.isAtLeast(examples.length, 20, `only ${examples.length} @example blocks found`)
  })

  it("every @example of a public export compiles against the sources", () => {
    const errors = compileExamples(pkg, examples)
    if (errors.length > 0) {
      assert.fail(
        `${new Set(errors.map((error) => error.example)).size} of ${examples.length} docstring examples do not ` +
          "compile against effect4/src/ (strict, exactOptionalPropertyTypes): make each complete (import what it " +
          "uses; declare what it assumes); fix the example, not the types.\n" +
          errors.map((error) => error.text).join("\n")
      )
    }
  })

  it("the value exports without an example do not grow in number", () => {
    const { checked, missing } = missingExamples(pkg)
    assert.isAtMost(
      missing.length,
      MAX_MISSING,
      `${missing.length} of ${checked} value exports have no @example (at most ${MAX_MISSING}; @internal ones ` +
        `not counted): give the new exports an example:\n${missing.join("\n")}`
    )
  })
})
