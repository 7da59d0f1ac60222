// Compiles every docstring @example of the public exports against the sources and lists the value
// exports that have none (test/docstrings.test.ts checks the same).
// Usage: npx tsx scripts/check-examples.ts [--effect4] [--missing]
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { collectExamples, compileExamples, missingExamples, packageAt } from "../test/support/docstrings.js"

const repository = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const pkg = packageAt(process.argv.includes("--effect4") ? path.join(repository, "effect4") : repository)
const examples = collectExamples(pkg)
const errors = compileExamples(pkg, examples)
const failing = new Set(errors.map((error) => error.example))
const { checked, internal, missing } = missingExamples(pkg)
if (process.argv.includes("--missing")) console.log(missing.join("\n"))
else console.log(errors.map((error) => error.text).join("\n"))
console.log(
  `${examples.length} examples, ${failing.size} failing (${errors.length} errors); ` +
    `${missing.length} of ${checked} value exports have no @example (${internal} @internal ones not counted)`
)
