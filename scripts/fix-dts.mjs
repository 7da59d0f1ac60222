// Mends the namespaces of the bundled declarations (dist/**/*.d.ts, *.d.cts).
//
// For `export * as Validity from "./Validity.js"` whose members live in a shared chunk,
// the declaration bundler writes each member as a value, `declare const Validity_Violation:
// typeof Violation;`, and exports that from the namespace: a type member (an interface, a type
// alias) then breaks every consumer that checks libraries (`'Violation' only refers to a type,
// but is being used as a value`), and no member can be named as a type (`Validity.Violation`).
// Exporting the imported name itself from the namespace keeps every meaning it has (value,
// type, or both): `export { Violation as Violation }`.
import * as fs from "node:fs"
import * as path from "node:path"

const root = path.resolve(process.argv[2] ?? "dist")
const files = fs.readdirSync(root, { recursive: true, encoding: "utf8" })
  .filter((f) => f.endsWith(".d.ts") || f.endsWith(".d.cts"))
  .map((f) => path.join(root, f))

const DECLARATION = /^declare const ([A-Za-z0-9_$]+): typeof ([A-Za-z0-9_$]+);\n/gm
let mended = 0
for (const file of files) {
  const text = fs.readFileSync(file, "utf8")
  const targets = new Map()
  for (const [, alias, target] of text.matchAll(DECLARATION)) targets.set(alias, target)
  if (targets.size === 0) continue
  let out = text
  for (const [alias, target] of targets) {
    const name = alias.replace(/\$/g, "\\$")
    // whole names only: `Json_JsonObject` is not a use of it in `Json_JsonObjectSchema`
    const uses = (out.match(new RegExp(`(?<![\\w$])${name}(?![\\w$])`, "g")) ?? []).length
    const exported = new RegExp(`(?<![\\w$])${name} as `, "g")
    const inExports = (out.match(exported) ?? []).length
    // the declaration itself, and its namespace exports: nothing else may use the alias
    if (uses !== 1 + inExports || inExports === 0) continue
    out = out.replace(`declare const ${alias}: typeof ${target};\n`, "").replace(exported, `${target} as `)
    mended++
  }
  if (out !== text) fs.writeFileSync(file, out)
}
console.log(`fix-dts: ${mended} namespace members re-exported by name in ${files.length} declaration files`)
