/**
 * Every TypeScript example of the user docs compiles: each fenced ```ts block
 * of README.md, docs/*.md and docs/guides/*.md is compiled, as a module of its
 * own, against the package's sources (`rollmem`, `rollmem/promise`, ... mapped
 * to `src/` from package.json's `exports`), all blocks in one Program. A block
 * that is partial on purpose is fenced ```ts no-check (keep those rare).
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { compileSnippets, packageAt } from "./support/docstrings.js"
import { type Block, fencedBlocks, withoutFencedBlocks } from "./support/markdown.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

/** The Markdown files whose ```ts blocks are compiled, relative to the repository root. */
const docFiles = (): Array<string> => {
  const inFolder = (folder: string) =>
    fs.existsSync(path.join(root, folder))
      ? fs.readdirSync(path.join(root, folder)).filter((name) => name.endsWith(".md")).sort().map((name) =>
        `${folder}/${name}`
      )
      : []
  return ["README.md", ...inFolder("docs"), ...inFolder("docs/guides")]
}

const isTypeScript = (info: string): boolean => /^(?:ts|typescript)(?:\s|$)/.test(info)
const isNoCheck = (info: string): boolean => /(?:^|\s)no-check(?:\s|$)/.test(info)

/** Compiles every block in one Program (`compileSnippets`); returns one line per error, `file:line:column: message`. */
const compileBlocks = (blocks: ReadonlyArray<Block>): Array<string> =>
  compileSnippets(packageAt(root), blocks, ".docs-examples").map(({ code, column, line, message, snippet }) =>
    `${snippet.file}:${snippet.line + line}:${column + 1}: TS${code}: ${message}`
  )

/** GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
const slug = (heading: string): string =>
  heading.trim().toLowerCase().replace(/`/g, "").replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-")

/** The anchors of a Markdown file's headings. */
const anchorsOf = (text: string): Set<string> =>
  new Set([...withoutFencedBlocks(text).matchAll(/^#{1,6}\s+(.+)$/gm)].map((match) => slug(match[1])))

/** Every relative link of a Markdown text (outside code), with its line: `[text](target)`. */
const linksOf = (text: string): Array<{ readonly line: number; readonly target: string }> =>
  withoutFencedBlocks(text).split("\n").flatMap((content, i) =>
    [...content.replace(/`[^`]*`/g, "").matchAll(/\]\(([^)\s]+)\)/g)]
      .map((match) => ({ line: i + 1, target: match[1] }))
      .filter(({ target }) => !/^[a-z]+:/.test(target))
  )

describe("documentation pages", () => {
  it("the README stays a front page: at most 250 lines", () => {
    const lines = fs.readFileSync(path.join(root, "README.md"), "utf8").trimEnd().split("\n").length
    assert.isAtMost(
      lines,
      250,
      `README.md has ${lines} lines: move the details into a page of docs/guides/ and link it from the README's ` +
        "guide table in one line"
    )
  })

  it("every guide is listed in docs/guides/README.md", () => {
    const index = fs.readFileSync(path.join(root, "docs/guides/README.md"), "utf8")
    const listed = new Set(linksOf(index).map(({ target }) => target.split("#")[0]))
    const missing = docFiles().filter((file) => file.startsWith("docs/guides/") && !file.endsWith("/README.md"))
      .filter((file) => !listed.has(path.basename(file)))
    assert.deepStrictEqual(
      missing,
      [],
      `guides not linked from docs/guides/README.md: add a line for each under the heading that fits (and one row ` +
        `in the README's guide table): ${missing.join(", ")}`
    )
  })

  it("every relative link points to a file and heading that exist", () => {
    const problems: Array<string> = []
    for (const file of docFiles()) {
      for (const { line, target } of linksOf(fs.readFileSync(path.join(root, file), "utf8"))) {
        const [relative, anchor] = target.split("#")
        const linked = relative === ""
          ? path.join(root, file)
          : path.resolve(path.dirname(path.join(root, file)), relative)
        if (!fs.existsSync(linked)) {
          problems.push(`${file}:${line}: ${target}: no such file ${path.relative(root, linked)}`)
        } else if (
          anchor !== undefined && linked.endsWith(".md") && !anchorsOf(fs.readFileSync(linked, "utf8")).has(anchor)
        ) {
          problems.push(
            `${file}:${line}: ${target}: ${path.relative(root, linked)} has no heading with the anchor #${anchor}`
          )
        }
      }
    }
    assert.deepStrictEqual(problems, [], `broken links; fix the target or the heading:\n${problems.join("\n")}`)
  })
})

describe("documentation examples", () => {
  const blocks = docFiles().flatMap((file) => fencedBlocks(file, fs.readFileSync(path.join(root, file), "utf8")))
  const checked = blocks.filter((block) => isTypeScript(block.info) && !isNoCheck(block.info))

  it("finds the examples", () => {
    assert.isAtLeast(checked.length, 10, `only ${checked.length} ts blocks found in ${docFiles().join(", ")}`)
  })

  it("every ```ts block compiles against the package's sources", () => {
    const errors = compileBlocks(checked)
    if (errors.length > 0) {
      assert.fail(
        `${errors.length} error(s) in the documentation's examples. Each \`\`\`ts block is compiled as a module of ` +
          "its own against src/ (rollmem, rollmem/promise, ... resolve to the sources, strict, " +
          "exactOptionalPropertyTypes): make the example complete (import what it uses; declare what it assumes, " +
          "e.g. `declare const client: OpenAI`), or, only if it is partial on purpose, fence it ```ts no-check.\n" +
          errors.join("\n")
      )
    }
  })

  it("no-check stays rare", () => {
    const skipped = blocks.filter((block) => isTypeScript(block.info) && isNoCheck(block.info))
    assert.isAtMost(
      skipped.length,
      Math.max(2, Math.floor(checked.length / 10)),
      "too many ```ts no-check blocks (at most one in ten): make them compile instead:\n" +
        skipped.map((block) => `${block.file}:${block.line}`).join("\n")
    )
  })
})
