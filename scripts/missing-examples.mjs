// Lists the public exports of the package's entry points (package.json "exports": each
// ./dist/x.js is built from src/x.ts) whose docstring has no @example: top-level exports and,
// for a namespace export (`export * as Message from ...`), each of its members.
// Usage: node scripts/missing-examples.mjs [--count]
import fs from "node:fs"
import path from "node:path"
import ts from "typescript"

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..")
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"))
const entries = Object.entries(pkg.exports).flatMap(([subpath, target]) =>
  typeof target === "object" && "import" in target
    ? [{
      name: subpath === "." ? pkg.name : `${pkg.name}/${subpath.slice(2)}`,
      file: path.join(root, target.import.default.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts"))
    }]
    : []
)
const program = ts.createProgram(entries.map((e) => e.file), {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  noEmit: true,
  resolveJsonModule: true
})
const checker = program.getTypeChecker()

const hasExample = (symbol) => {
  const declarations = symbol.getDeclarations() ?? []
  return declarations.some((declaration) => {
    const tags = ts.getJSDocTags(declaration)
    if (tags.some((tag) => tag.tagName.text === "example")) return true
    // a variable's docstring sits on its statement
    const statement = ts.isVariableDeclaration(declaration) ? declaration.parent?.parent : undefined
    return statement !== undefined && ts.getJSDocTags(statement).some((tag) => tag.tagName.text === "example")
  })
}

const isNamespace = (symbol) =>
  (symbol.flags & ts.SymbolFlags.ValueModule) !== 0 ||
  (symbol.getDeclarations() ?? []).some((d) => ts.isSourceFile(d) || ts.isNamespaceExport(d))

const seen = new Set()
const missing = []
let checked = 0
for (const entry of entries) {
  const source = program.getSourceFile(entry.file)
  const moduleSymbol = checker.getSymbolAtLocation(source)
  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported
    if (isNamespace(symbol)) {
      for (const member of checker.getExportsOfModule(symbol)) {
        const target = member.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(member) : member
        const key = `${exported.name}.${member.name}`
        const decl = (target.getDeclarations() ?? [])[0]
        const id = decl === undefined ? key : `${decl.getSourceFile().fileName}:${decl.pos}`
        if (seen.has(id)) continue
        seen.add(id)
        // types alone (interfaces, type aliases) need no example
        if ((target.flags & ts.SymbolFlags.Value) === 0) continue
        checked++
        if (!hasExample(target)) {
          missing.push(`${entry.name}: ${key} (${path.relative(root, decl?.getSourceFile().fileName ?? "")})`)
        }
      }
      continue
    }
    const decl = (symbol.getDeclarations() ?? [])[0]
    const id = decl === undefined ? exported.name : `${decl.getSourceFile().fileName}:${decl.pos}`
    if (seen.has(id)) continue
    seen.add(id)
    if ((symbol.flags & ts.SymbolFlags.Value) === 0) continue
    checked++
    if (!hasExample(symbol)) {
      missing.push(`${entry.name}: ${exported.name} (${path.relative(root, decl?.getSourceFile().fileName ?? "")})`)
    }
  }
}
if (process.argv.includes("--count")) console.log(`${missing.length} of ${checked} value exports have no @example`)
else console.log(missing.join("\n"))
