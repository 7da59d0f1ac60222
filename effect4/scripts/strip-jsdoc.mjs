// Removes the JSDoc blocks (`/** ... */`) from the compiled JavaScript under a folder (default dist/), after
// `tsc` (the `build` script): the declarations (.d.ts) keep them, where editors and type checkers read them; in
// the JavaScript they were a third of its size, counted by the install-size limit of pack-check.sh. Every other
// comment stays, the bundlers' `/* webpackIgnore: true */ /* @vite-ignore */` among them. Comments are found
// as the trivia before the syntax tree's nodes (TypeScript's parser), never inside a string or a template.
import fs from "node:fs"
import path from "node:path"
import ts from "typescript"

const files = (dir) =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? files(path.join(dir, entry.name))
      : entry.name.endsWith(".js")
      ? [path.join(dir, entry.name)]
      : []
  )

let before = 0
let after = 0
for (const file of files(process.argv[2] ?? "dist")) {
  const text = fs.readFileSync(file, "utf8")
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS)
  const ranges = new Map()
  const visit = (node) => {
    for (const range of ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []) {
      if (text.startsWith("/**", range.pos) && !text.startsWith("/**/", range.pos)) ranges.set(range.pos, range.end)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  let out = ""
  let last = 0
  for (const [pos, end] of [...ranges].sort((a, b) => a[0] - b[0])) {
    if (pos < last) continue
    // a comment alone on its lines goes with its indentation and its line break
    let start = pos
    while (start > last && (text[start - 1] === " " || text[start - 1] === "\t")) start--
    let stop = end
    if (start === 0 || text[start - 1] === "\n") {
      while (stop < text.length && (text[stop] === " " || text[stop] === "\t")) stop++
      if (text[stop] === "\n") stop++
      else stop = end
    } else start = pos
    out += text.slice(last, start)
    last = stop
  }
  out += text.slice(last)
  before += text.length
  after += out.length
  if (out !== text) fs.writeFileSync(file, out)
}
console.log(`strip-jsdoc: ${before} -> ${after} characters of JavaScript`)
