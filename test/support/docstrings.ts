/**
 * The docstring examples of a package's public exports: found from its entry points, compiled
 * against its sources in one Program (virtual files, no emit), and the value exports that have
 * none. Used by test/docstrings.test.ts and scripts/check-examples.ts.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"

/** A public entry point: its import specifier (`rollmem/promise`) and its source file. */
export interface Entry {
  readonly name: string
  readonly file: string
}

/** One `@example` block of an exported declaration's docstring. */
export interface Example {
  /** The export it documents, as users import it: `rollmem/promise: Conversations` or `rollmem: Message.user`. */
  readonly exportName: string
  /** The source file, relative to the root. */
  readonly file: string
  /** The 1-based line, in `file`, of the example's first line of code. */
  readonly line: number
  readonly code: string
}

/** A package: its root folder and its entry points. */
export interface Package {
  readonly root: string
  readonly entries: ReadonlyArray<Entry>
}

interface PackageJson {
  readonly name: string
  readonly exports: Record<string, unknown>
}

/**
 * The entry points of package.json's `exports`: each `./dist/x.js` (or `./dist/effect4/src/x.js`)
 * is built from `src/x.ts`.
 */
export const packageAt = (root: string): Package => {
  const json = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as PackageJson
  const entries: Array<Entry> = []
  for (const [subpath, target] of Object.entries(json.exports)) {
    if (typeof target !== "object" || target === null) continue
    const record = target as { readonly import?: { readonly default?: string }; readonly default?: string }
    const built = record.import?.default ?? record.default
    if (built === undefined) continue
    const source = built.replace(/^\.\/dist\/(?:effect4\/src\/)?/, "src/").replace(/\.js$/, ".ts")
    entries.push({
      name: subpath === "." ? json.name : `${json.name}/${subpath.slice(2)}`,
      file: path.join(root, source)
    })
  }
  return { root, entries }
}

/** Compiler options for a package's examples: its entry points' names resolve to its sources. */
export const compilerOptions = (pkg: Package): ts.CompilerOptions => ({
  target: ts.ScriptTarget.ES2022,
  lib: ["lib.es2022.d.ts"],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  types: ["node"],
  strict: true,
  exactOptionalPropertyTypes: true,
  skipLibCheck: true,
  esModuleInterop: true,
  resolveJsonModule: true,
  noEmit: true,
  baseUrl: pkg.root,
  paths: Object.fromEntries(pkg.entries.map((entry) => [entry.name, [path.relative(pkg.root, entry.file)]]))
})

const aliased = (checker: ts.TypeChecker, symbol: ts.Symbol): ts.Symbol =>
  symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol

const isNamespace = (symbol: ts.Symbol): boolean =>
  (symbol.flags & ts.SymbolFlags.ValueModule) !== 0 ||
  (symbol.getDeclarations() ?? []).some((d) => ts.isSourceFile(d) || ts.isNamespaceExport(d))

/** A public export: how users name it and its symbol. */
interface PublicExport {
  readonly name: string
  readonly symbol: ts.Symbol
  /** A namespace export (`export * as Message from ...`): its module's docstring documents it. */
  readonly namespace: boolean
}

/**
 * Every public export of the entry points, each declaration once (the first name it is reached
 * by): top-level exports and, for a namespace export (`export * as Message from ...`), each of its
 * members.
 */
const publicExports = (program: ts.Program, pkg: Package): Array<PublicExport> => {
  const checker = program.getTypeChecker()
  const seen = new Set<string>()
  const result: Array<PublicExport> = []
  const add = (name: string, symbol: ts.Symbol, namespace = false) => {
    const decl = (symbol.getDeclarations() ?? [])[0]
    const id = decl === undefined ? name : `${decl.getSourceFile().fileName}:${decl.pos}`
    if (seen.has(id)) return
    seen.add(id)
    result.push({ name, symbol, namespace })
  }
  for (const entry of pkg.entries) {
    const source = program.getSourceFile(entry.file)
    if (source === undefined) throw new Error(`${entry.file}: not in the program`)
    const moduleSymbol = checker.getSymbolAtLocation(source)
    if (moduleSymbol === undefined) continue
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const symbol = aliased(checker, exported)
      if (isNamespace(symbol)) {
        add(`${entry.name}: ${exported.name}`, symbol, true)
        for (const member of checker.getExportsOfModule(symbol)) {
          add(`${entry.name}: ${exported.name}.${member.name}`, aliased(checker, member))
        }
      } else {
        add(`${entry.name}: ${exported.name}`, symbol)
      }
    }
  }
  return result
}

/** The docstrings the parser attached to a node (a file's own docstring and the first statement's, before it). */
const jsDocsOf = (node: ts.Node): ReadonlyArray<ts.JSDoc> => (node as { readonly jsDoc?: Array<ts.JSDoc> }).jsDoc ?? []

/** A node's own docstring: the last before it. */
const ownDocsOf = (node: ts.Node): ReadonlyArray<ts.JSDoc> => jsDocsOf(node).slice(-1)

/**
 * A module's docstring: the one that opens the file, which the parser attaches to the first
 * statement (an import's, or the first of two before a declaration).
 */
const moduleDocstring = (source: ts.SourceFile): Array<ts.JSDoc> => {
  const first = source.statements[0]
  if (first === undefined) return []
  const docs = jsDocsOf(first)
  if (docs.length === 0) return []
  return ts.isImportDeclaration(first) || ts.isExportDeclaration(first) || docs.length > 1 ? [docs[0]] : []
}

/** The docstrings of a declaration: its own (a variable's sits on its statement) and its members'. */
const docstringsOf = (declaration: ts.Declaration): Array<ts.JSDoc> => {
  const docs: Array<ts.JSDoc> = []
  if (ts.isVariableDeclaration(declaration) && ts.isVariableStatement(declaration.parent.parent)) {
    docs.push(...ownDocsOf(declaration.parent.parent))
  }
  if (ts.isSourceFile(declaration)) return moduleDocstring(declaration)
  const visit = (node: ts.Node) => {
    docs.push(...ownDocsOf(node))
    ts.forEachChild(node, visit)
  }
  visit(declaration)
  return docs
}

const tagLine = /^@[a-zA-Z]/

/**
 * The examples of one docstring: each `@example` section runs to the next tag; its code is its
 * fenced ```ts blocks (fences in another language are not code), or the whole section when it has
 * no fence.
 */
const examplesOfDocstring = (
  source: ts.SourceFile,
  doc: ts.JSDoc
): Array<{ readonly line: number; readonly code: string }> => {
  const firstLine = source.getLineAndCharacterOfPosition(doc.pos).line
  const lines = source.text.slice(doc.pos, doc.end).split("\n").map((raw) =>
    raw.replace(/^\s*\/\*\*\s?/, "").replace(/\s*\*\/\s*$/, "").replace(/^\s*\*(?: |$)/, "")
  )
  const examples: Array<{ line: number; code: string }> = []
  let i = 0
  while (i < lines.length) {
    if (!/^\s*@example\b/.test(lines[i])) {
      i++
      continue
    }
    const start = i + 1
    let end = start
    let inFence = false
    while (end < lines.length && (inFence || !tagLine.test(lines[end].trim()))) {
      if (/^\s*```/.test(lines[end])) inFence = !inFence
      end++
    }
    const section = lines.slice(start, end)
    const fences = section.flatMap((content, k) => /^\s*```/.test(content) ? [k] : [])
    if (fences.length === 0) {
      const code = section.join("\n")
      if (code.trim() !== "") examples.push({ line: firstLine + start + 1, code })
    } else {
      for (let f = 0; f + 1 < fences.length; f += 2) {
        const info = section[fences[f]].trim().slice(3).trim()
        if (info !== "" && !/^(?:ts|typescript)(?:\s|$)/.test(info)) continue
        examples.push({
          line: firstLine + start + fences[f] + 2,
          code: section.slice(fences[f] + 1, fences[f + 1]).join("\n")
        })
      }
    }
    i = end
  }
  return examples
}

/** A Program over the package's entry points (sources only). */
const sourceProgram = (pkg: Package): ts.Program =>
  ts.createProgram(pkg.entries.map((entry) => entry.file), compilerOptions(pkg))

/** Every `@example` of the public exports' docstrings (and of their members'), each once. */
export const collectExamples = (pkg: Package, program: ts.Program = sourceProgram(pkg)): Array<Example> => {
  const seen = new Set<ts.JSDoc>()
  const examples: Array<Example> = []
  const addAll = (name: string, source: ts.SourceFile, docs: ReadonlyArray<ts.JSDoc>) => {
    for (const doc of docs) {
      if (seen.has(doc)) continue
      seen.add(doc)
      for (const example of examplesOfDocstring(source, doc)) {
        examples.push({ exportName: name, file: path.relative(pkg.root, source.fileName), ...example })
      }
    }
  }
  // the entry points and the modules declaring a public export: their own docstrings
  const modules = new Set<ts.SourceFile>(pkg.entries.map((entry) => program.getSourceFile(entry.file)!))
  for (const { name, symbol } of publicExports(program, pkg)) {
    for (const declaration of symbol.getDeclarations() ?? []) {
      const source = declaration.getSourceFile()
      if (source.isDeclarationFile) continue
      modules.add(source)
      addAll(name, source, docstringsOf(declaration))
    }
  }
  for (const source of modules) {
    addAll(`module ${path.relative(pkg.root, source.fileName)}`, source, moduleDocstring(source))
  }
  return examples
}

/**
 * The value exports (functions, constants, classes, not types) whose docstring has no `@example`;
 * an export whose docstring says `@internal` is not counted (`internal` says how many).
 */
export const missingExamples = (
  pkg: Package,
  program: ts.Program = sourceProgram(pkg)
): { readonly checked: number; readonly internal: number; readonly missing: Array<string> } => {
  const docsOf = (declaration: ts.Declaration) => {
    const docs = [...ownDocsOf(declaration)]
    if (ts.isVariableDeclaration(declaration) && ts.isVariableStatement(declaration.parent.parent)) {
      docs.push(...ownDocsOf(declaration.parent.parent))
    }
    return docs
  }
  const hasTag = (declaration: ts.Declaration, name: string) =>
    docsOf(declaration).some((doc) => (doc.tags ?? []).some((tag) => tag.tagName.text === name))
  let checked = 0
  let internal = 0
  const missing: Array<string> = []
  for (const { name, namespace, symbol } of publicExports(program, pkg)) {
    if (namespace || (symbol.flags & ts.SymbolFlags.Value) === 0) continue
    const declarations = symbol.getDeclarations() ?? []
    if (declarations.some((declaration) => hasTag(declaration, "internal"))) {
      internal++
      continue
    }
    checked++
    if (!declarations.some((declaration) => hasTag(declaration, "example"))) {
      const file = declarations[0]?.getSourceFile().fileName ?? ""
      missing.push(`${name} (${path.relative(pkg.root, file)})`)
    }
  }
  return { checked, internal, missing }
}

/** A piece of code to compile as a module of its own: where it stands (file relative to the root, 1-based line). */
export interface Snippet {
  readonly file: string
  readonly line: number
  readonly code: string
}

/** A compiler error in a snippet: its 0-based line and column within the snippet, the TS code and message. */
export interface SnippetError<S extends Snippet> {
  readonly snippet: S
  readonly line: number
  readonly column: number
  readonly code: number
  readonly message: string
}

/**
 * Compiles every snippet as a module of its own (so that two may declare the same names) in one
 * Program, against the package's sources; returns every error. Each snippet is a virtual file in
 * `folder` under the root, so that the package's `node_modules` and `"type": "module"` apply.
 */
export const compileSnippets = <S extends Snippet>(
  pkg: Package,
  snippets: ReadonlyArray<S>,
  folder: string
): Array<SnippetError<S>> => {
  const options = compilerOptions(pkg)
  const nameOf = (snippet: Snippet): string =>
    path.join(pkg.root, folder, `${snippet.file.replace(/[/.]/g, "_")}_L${snippet.line}.mts`)
  const virtual = new Map(snippets.map((snippet) => [nameOf(snippet), `${snippet.code}\nexport {}\n`]))
  const host = ts.createCompilerHost(options, true)
  const { fileExists, getSourceFile, readFile } = host
  host.fileExists = (name) => virtual.has(name) || fileExists.call(host, name)
  host.readFile = (name) => virtual.get(name) ?? readFile.call(host, name)
  host.getSourceFile = (name, languageVersion, onError, shouldCreate) => {
    const text = virtual.get(name)
    return text !== undefined
      ? ts.createSourceFile(name, text, languageVersion, true)
      : getSourceFile.call(host, name, languageVersion, onError, shouldCreate)
  }
  const program = ts.createProgram([...virtual.keys()], options, host)
  const errors: Array<SnippetError<S>> = []
  for (const snippet of snippets) {
    const source = program.getSourceFile(nameOf(snippet))!
    const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]
    for (const diagnostic of diagnostics) {
      const at = diagnostic.start === undefined
        ? { line: 0, character: 0 }
        : source.getLineAndCharacterOfPosition(diagnostic.start)
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n    ")
      errors.push({ snippet, line: at.line, column: at.character, code: diagnostic.code, message })
    }
  }
  return errors
}

/** A compiler error in an example. */
export interface ExampleError {
  readonly example: Example
  /** `file:line: export: TSnnnn: message`, the line in the source file. */
  readonly text: string
}

/** Compiles every example (`compileSnippets`, in `.docstring-examples`); returns every error. */
export const compileExamples = (pkg: Package, examples: ReadonlyArray<Example>): Array<ExampleError> =>
  compileSnippets(pkg, examples, ".docstring-examples").map(({ code, line, message, snippet }) => ({
    example: snippet,
    text: `${snippet.file}:${snippet.line + line}: ${snippet.exportName}: TS${code}: ${message}`
  }))
