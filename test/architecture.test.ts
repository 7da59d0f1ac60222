/**
 * docs/architecture.md stays true to the code, in what a test can check:
 * - every path it cites in backticks (`src/store/Service.ts`, `internal/core.ts`, `Message.ts` in a
 *   row of the `src/schema/` folder, `test/eviction.test.ts`, `src/report/`) is a file or folder of
 *   the repository: from the repository root, from `src/`, from its table row's folder, or as the
 *   end of exactly one path (`core.ts` when only one file is named so);
 * - every name it cites next to a module exists in that module (exported or declared at its top
 *   level; `A.b`: `b` a member of `A`):
 *   - a name in backticks right after a module in backticks: `core.ts` `withServices`;
 *   - the names in backticks that open a table cell, before a colon, in a row whose earlier cells
 *     name modules: | | `Service.ts` | `ConversationStore`, `Stored`: the store service... |.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { withoutFencedBlocks } from "./support/markdown.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const DOC = "docs/architecture.md"

/** Every file and folder of the repository (relative, `/`-separated; folders end with `/`). */
const repositoryPaths = (): Array<string> => {
  const skip = new Set(["node_modules", ".git", "dist", "coverage", "test-artifacts"])
  const found: Array<string> = []
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(root, relative), { withFileTypes: true })) {
      if (skip.has(entry.name) || entry.isSymbolicLink()) continue
      const child = relative === "" ? entry.name : `${relative}/${entry.name}`
      if (entry.isDirectory()) {
        found.push(`${child}/`)
        walk(child)
      } else found.push(child)
    }
  }
  walk("")
  return found
}

const FILE_EXTENSION = /\.(?:ts|tsx|js|mjs|cjs|json|md|sh|jsonl|html|ya?ml)$/

/** Whether a code span reads as a repository path (not a package name, an import specifier or a URL). */
const isPath = (span: string, topLevel: ReadonlySet<string>): boolean => {
  if (/[\s"'`*…|<>(){}:,=]/.test(span) || span.startsWith("@") || span.startsWith("-")) return false
  if (FILE_EXTENSION.test(span)) return /(?:^|\/)[^./][^/]*$/.test(span) // `Message.ts`, not `.jsonl`
  return span.includes("/") && (span.endsWith("/") || topLevel.has(span.split("/")[0]))
}

/** A citation's problem, or its repository path. */
type Resolved = { readonly path: string } | { readonly problem: string }

const resolver = (paths: ReadonlyArray<string>) => {
  const all = new Set(paths)
  // generated folders (test-artifacts/) exist only after a run: .gitignore names them
  const gitignored = fs.readFileSync(path.join(root, ".gitignore"), "utf8").split("\n")
    .map((line) => line.trim().replace(/^\//, "").replace(/\/$/, "")).filter((line) =>
      line !== "" && !line.startsWith("#")
    )
  return (span: string, folder: string | undefined): Resolved => {
    const bare = span.replace(/^\.\//, "")
    const tries = [...(folder === undefined ? [] : [`${folder}${bare}`]), bare, `src/${bare}`]
    for (const candidate of tries) {
      if (all.has(candidate) || all.has(`${candidate.replace(/\/$/, "")}/`)) return { path: candidate }
    }
    if (gitignored.some((ignored) => bare === ignored || bare === `${ignored}/`)) return { path: bare }
    if (bare.startsWith("dist/")) {
      // build output: the name of a tsup entry
      const entry = path.basename(bare).replace(/\.[a-z]+$/, "")
      return fs.readFileSync(path.join(root, "tsup.config.ts"), "utf8").includes(entry)
        ? { path: bare }
        : { problem: `\`${span}\` is not built by tsup.config.ts (no entry "${entry}")` }
    }
    const suffix = bare.endsWith("/") ? bare : `${bare}`
    const matches = paths.filter((p) => p.endsWith(`/${suffix}`) || p.endsWith(`/${suffix}/`))
    if (matches.length === 1) return { path: matches[0] }
    if (matches.length > 1) {
      return {
        problem: `\`${span}\` names several files (${matches.join(", ")}): write more of its path ` +
          `(from the repository root or from src/)`
      }
    }
    return {
      problem: `\`${span}\` is not a file or folder of the repository (tried ${tries.join(", ")} and any path ending ` +
        `in /${bare}): correct the path, or remove the claim if the module is gone`
    }
  }
}

/** A name cited next to a module: the line it is on, the name as written, and the module's span. */
interface NameCitation {
  readonly line: number
  readonly name: string
  readonly modules: ReadonlyArray<{ readonly span: string; readonly folder: string | undefined }>
}

const codeSpans = (text: string): Array<string> => [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1])

/** `make({ count })` → `make`; `Summarizer.drop` stays dotted; undefined when the span is not a name. */
const asName = (span: string): string | undefined => {
  const match = /^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?)(?:\(.*\))?$/.exec(span)
  return match === null ? undefined : match[1]
}

/** Every path citation (with its row's folder) and every name citation of the document. */
const citations = (text: string, topLevel: ReadonlySet<string>) => {
  const paths: Array<{ readonly line: number; readonly span: string; readonly folder: string | undefined }> = []
  const names: Array<NameCitation> = []
  let folder: string | undefined
  const lines = withoutFencedBlocks(text).split("\n")
  lines.forEach((content, i) => {
    const line = i + 1
    const isRow = content.trimStart().startsWith("|")
    if (!isRow) folder = undefined
    const cells = isRow ? content.trim().replace(/^\||\|$/g, "").split(/(?<!\\)\|/).map((cell) => cell.trim()) : []
    // a row's folder is its first cell's, kept by the rows below that leave it empty
    if (isRow && cells[0] !== "") folder = /^`[^`]+\/`$/.test(cells[0]) ? cells[0].slice(1, -1) : undefined
    // a path, resolved from its row's folder first
    for (const span of codeSpans(content)) {
      if (isPath(span, topLevel)) paths.push({ line, span, folder: isRow ? folder : undefined })
    }
    // `module.ts` `name`
    for (const match of content.matchAll(/`([^`\s]+\.ts)`\s+`([^`]+)`/g)) {
      const name = asName(match[2])
      if (name !== undefined) {
        names.push({ line, name, modules: [{ span: match[1], folder: isRow ? folder : undefined }] })
      }
    }
    // | ... `module.ts` ... | `name`, `name`: what it owns |
    if (isRow) {
      cells.forEach((cell, c) => {
        const lead = /^((?:`[^`]+`(?:\s*(?:,|\/|and|or)\s*)?)+)\s*:/.exec(cell)
        // only a cell that opens with names (not `--report`: ...) lists a module's names
        if (lead === null || codeSpans(lead[1]).some((span) => asName(span) === undefined)) return
        const modules = cells.slice(0, c).flatMap(codeSpans).filter((span) => span.endsWith(".ts"))
        if (modules.length === 0) return
        for (const span of codeSpans(lead[1])) {
          const name = asName(span)
          names.push({
            line,
            name: name ?? span,
            modules: modules.map((module) => ({ span: module, folder }))
          })
        }
      })
    }
  })
  return { paths, names }
}

/** The names a module declares: its exports and its top-level declarations, with a way to look members up. */
const moduleNames = (program: ts.Program, file: string) => {
  const checker = program.getTypeChecker()
  const source = program.getSourceFile(file)
  if (source === undefined) return undefined
  const symbols = new Map<string, ts.Symbol>()
  const moduleSymbol = checker.getSymbolAtLocation(source)
  if (moduleSymbol !== undefined) {
    for (const symbol of checker.getExportsOfModule(moduleSymbol)) symbols.set(symbol.name, symbol)
  }
  const declare = (name: ts.DeclarationName | undefined) => {
    if (name === undefined) return
    if (ts.isIdentifier(name)) {
      const symbol = checker.getSymbolAtLocation(name)
      if (symbol !== undefined && !symbols.has(name.text)) symbols.set(name.text, symbol)
    } else if (ts.isObjectBindingPattern(name) || ts.isArrayBindingPattern(name)) {
      for (const element of name.elements) if (ts.isBindingElement(element)) declare(element.name)
    }
  }
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) declare(declaration.name)
    } else if (
      ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) ||
      ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement) ||
      ts.isEnumDeclaration(statement) || ts.isModuleDeclaration(statement)
    ) declare(statement.name)
  }
  const has = (name: string): boolean => {
    const [head, member] = name.split(".")
    let symbol = symbols.get(head)
    if (symbol === undefined) return false
    if (member === undefined) return true
    if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol)
    if (symbol.exports?.has(ts.escapeLeadingUnderscores(member))) return true
    const types = [checker.getDeclaredTypeOfSymbol(symbol)]
    const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0]
    if (declaration !== undefined) types.push(checker.getTypeOfSymbolAtLocation(symbol, declaration))
    return types.some((type) => type.getProperty(member) !== undefined || checker.getPropertyOfType(type, member))
  }
  return { has, names: [...symbols.keys()].sort() }
}

describe("docs/architecture.md", () => {
  const text = fs.readFileSync(path.join(root, DOC), "utf8")
  const paths = repositoryPaths()
  const topLevel = new Set([
    ...paths.filter((p) => !p.includes("/") || /^[^/]+\/$/.test(p)).map((p) => p.replace(/\/$/, "")),
    ...paths.filter((p) => /^src\/[^/]+\/$/.test(p)).map((p) => p.slice(4, -1))
  ])
  const resolve = resolver(paths)
  const cited = citations(text, topLevel)

  it("cites paths and names", () => {
    assert.isAtLeast(cited.paths.length, 50, `only ${cited.paths.length} paths found in ${DOC}`)
    assert.isAtLeast(cited.names.length, 20, `only ${cited.names.length} module names found in ${DOC}`)
  })

  it("every path it cites exists", () => {
    const problems = cited.paths.flatMap(({ folder, line, span }) => {
      const resolved = resolve(span, folder)
      return "problem" in resolved ? [`${DOC}:${line}: ${resolved.problem}`] : []
    })
    if (problems.length > 0) {
      assert.fail(`${problems.length} path(s) of ${DOC} do not exist; fix the document:\n${problems.join("\n")}`)
    }
  })

  it("every name it cites next to a module exists in that module", () => {
    const files = new Map<string, string>()
    const problems: Array<string> = []
    for (const citation of cited.names) {
      for (const module of citation.modules) {
        const resolved = resolve(module.span, module.folder)
        if ("path" in resolved && resolved.path.endsWith(".ts")) {
          files.set(`${module.folder}|${module.span}`, resolved.path)
        }
      }
    }
    const program = ts.createProgram([...new Set(files.values())].map((file) => path.join(root, file)), {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: ["node"],
      strict: true,
      skipLibCheck: true,
      noEmit: true
    })
    for (const citation of cited.names) {
      const modules = citation.modules.flatMap((module) => {
        const file = files.get(`${module.folder}|${module.span}`)
        return file === undefined ? [] : [file]
      })
      if (modules.length === 0) continue // the module's own path is reported by the test above
      if (asName(citation.name) === undefined) {
        problems.push(
          `${DOC}:${citation.line}: \`${citation.name}\` opens a cell of a module's row before a colon, where only ` +
            `names of ${modules.join(", ")} may stand: write it as a name, or move it after the colon`
        )
        continue
      }
      const found = modules.map((file) => moduleNames(program, path.join(root, file)))
      if (found.some((names) => names?.has(citation.name))) continue
      const all = found.flatMap((names) => names?.names ?? [])
      const known = all.length > 40 ? [...all.slice(0, 40), `... ${all.length - 40} more`] : all
      problems.push(
        `${DOC}:${citation.line}: \`${citation.name}\` is cited as part of ${modules.join(" or ")}, which ` +
          `declares no such name (it has: ${known.join(", ")}): correct the name or the module`
      )
    }
    if (problems.length > 0) {
      assert.fail(
        `${problems.length} name(s) cited by ${DOC} do not exist there; fix the document:\n${problems.join("\n")}`
      )
    }
  })
})
