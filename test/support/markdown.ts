/**
 * Reading Markdown for the documentation tests (`test/docs.test.ts`,
 * `test/architecture.test.ts`): fenced code blocks with the line they start at.
 */

/** A fenced code block: its file, the 1-based line of its first code line, its info string and its code. */
export interface Block {
  readonly file: string
  readonly line: number
  readonly info: string
  readonly code: string
}

/**
 * The fenced code blocks of a Markdown text (``` or ~~~ fences, indented ones in lists included; the
 * indentation of the opening fence is removed from the code).
 */
export const fencedBlocks = (file: string, text: string): Array<Block> => {
  const lines = text.split("\n")
  const blocks: Array<Block> = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)(`{3,}|~{3,})\s*(.*)$/.exec(lines[i])
    if (open === null) continue
    const [, indent, fence, info] = open
    const close = new RegExp(`^ *${fence[0]}{${fence.length},}\\s*$`)
    const body: Array<string> = []
    let j = i + 1
    while (j < lines.length && !close.test(lines[j])) {
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j].trimStart())
      j++
    }
    blocks.push({ file, line: i + 2, info: info.trim(), code: body.join("\n") })
    i = j
  }
  return blocks
}

/** The text with every fenced block's lines blanked (line numbers kept), for reading the prose only. */
export const withoutFencedBlocks = (text: string): string => {
  const lines = text.split("\n")
  for (const block of fencedBlocks("", text)) {
    const last = block.line - 1 + (block.code === "" ? 0 : block.code.split("\n").length)
    for (let i = block.line - 2; i <= Math.min(last, lines.length - 1); i++) lines[i] = ""
  }
  return lines.join("\n")
}
