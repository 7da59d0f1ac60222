/**
 * The artifact ledger's text grammar and merge, pure (no effect import;
 * docs/contract.md section 14.2). The ledger is a section at the end of the
 * summary text, and only there: it is parsed back from the summary, never
 * kept beside it, so it survives `toJSON`/`fromJSON` as plain text.
 *
 * ```text
 * summary  = section | body "\n\n" section        (a body alone when the ledger is empty)
 * section  = "<artifacts>\n" line *("\n" line) "\n</artifacts>"
 * line     = *" " (entry | directory *(" " name)) (a directory ends with "/")
 * ```
 *
 * - One artifact per entry; an entry holds no whitespace.
 * - A line's leading spaces are its depth. A line deeper than the one
 *   before is nested under the nearest line above it that is shallower, and
 *   its words are read within that line's directory (prefixed with it).
 * - A line whose first word ends with `/` followed by names is a group: it
 *   names `directory + name` for each name, and its directory is the one the
 *   lines nested under it are read within. A directory alone on its line,
 *   with a deeper line after it, names nothing itself. Any other line names
 *   each of its words (read within its directory).
 * - Entries with a directory ({@link directoryOf}) form one tree per root
 *   directory (`src/`, `/home/`, a URL's `https://host/`), written at the
 *   place of its newest entry: a directory's own entries first (one group
 *   line), then its subdirectories, one space deeper, each at the place of
 *   its newest entry. A directory with no entry of its own and one
 *   subdirectory is written with it (`/home/me/p/`); one with a single entry
 *   and no subdirectory as that entry (`core/ledger.ts`).
 * - Loose entries (those without a directory, and trees of a single entry,
 *   written as that entry) share a line when they follow one another,
 *   separated by one space: a line break costs a token where a space before
 *   a word mostly costs none. An entry ending with `/` stands alone on its
 *   line (first on a line with other words, it would read as a group's
 *   directory). A section laid out one loose entry per line (the first
 *   layout) reads the same: every line that is no group names its words.
 * - The order of the entries, read line by line and a group's names left to
 *   right, is the ledger's recency, newest first: mentioning a path brings
 *   its tree to the front, the path first within its directory, its
 *   directory first within its parent.
 * - A full ledger drops its last entry first (the least recently mentioned
 *   in the ledger's order).
 *
 * ```text
 * <artifacts>
 * mia_li_3668 /dev/null bf32bed
 * src/ index.ts
 *  cli/ Measure.ts Replay.ts
 *  core/ledger.ts
 * https://aider.chat/docs/ faq.html llms.html
 * https://example.com/
 * ops@example.com
 * </artifacts>
 * ```
 *
 * @since 0.4.0
 */

/** The line that opens a ledger section. @since 0.4.0 */
export const OPEN = "<artifacts>"

/** The line that closes a ledger section (the last line of the summary). @since 0.4.0 */
export const CLOSE = "</artifacts>"

/** What stands between the summary's body and its ledger section. @since 0.4.0 */
export const SEPARATOR = "\n\n"

const OPEN_LINE = OPEN + "\n"
const CLOSE_LINE = "\n" + CLOSE

/**
 * A summary split into its body and its ledger section's lines (the text
 * between the delimiters); `undefined` when the summary holds no ledger.
 *
 * @since 0.4.0
 */
export const splitSection = (summary: string): { readonly body: string; readonly section: string } | undefined => {
  if (!summary.endsWith(CLOSE_LINE)) return undefined
  const start = summary.lastIndexOf(OPEN_LINE, summary.length - CLOSE_LINE.length)
  if (start < 0) return undefined
  let body: string
  if (start === 0) body = ""
  else if (start >= SEPARATOR.length && summary.startsWith(SEPARATOR, start - SEPARATOR.length)) {
    body = summary.slice(0, start - SEPARATOR.length)
  } else return undefined
  const from = start + OPEN_LINE.length
  const to = summary.length - CLOSE_LINE.length
  return { body, section: from >= to ? "" : summary.slice(from, to) }
}

/** The depth of a line (its leading spaces) and its words. */
const lineOf = (line: string): { readonly depth: number; readonly words: ReadonlyArray<string> } => {
  let depth = 0
  while (depth < line.length && line[depth] === " ") depth++
  return { depth, words: line.slice(depth).split(" ").filter((w) => w !== "") }
}

/**
 * The entries of a section's lines, in the ledger's order (newest first),
 * each group line expanded and each indented line read within the directory
 * of the line it is nested under (see the module docs).
 *
 * @since 0.4.0
 */
export const entriesOf = (section: string): Array<string> => {
  const out: Array<string> = []
  if (section === "") return out
  const lines = section.split("\n").map(lineOf).filter((l) => l.words.length > 0)
  // the directories of the lines the current one may be nested under, outermost first
  const open: Array<{ readonly depth: number; readonly directory: string }> = []
  for (let i = 0; i < lines.length; i++) {
    const { depth, words } = lines[i]
    while (open.length > 0 && open[open.length - 1].depth >= depth) open.pop()
    const within = open.length === 0 ? "" : open[open.length - 1].directory
    const first = words[0]
    if (words.length >= 2 && first.endsWith("/")) {
      for (let k = 1; k < words.length; k++) out.push(within + first + words[k])
      open.push({ depth, directory: within + first })
    } else if (words.length === 1 && first.endsWith("/") && i + 1 < lines.length && lines[i + 1].depth > depth) {
      open.push({ depth, directory: within + first })
    } else {
      for (const word of words) out.push(within + word)
    }
  }
  return out
}

/**
 * A summary parsed: its body (what the summarizer sees) and its ledger's
 * entries, newest first (empty without a ledger).
 *
 * @since 0.4.0
 */
export interface Parsed {
  readonly body: string
  readonly entries: ReadonlyArray<string>
}

/**
 * Parses a summary (see the module docs for the grammar).
 *
 * @since 0.4.0
 */
export const parse = (summary: string): Parsed => {
  const split = splitSection(summary)
  return split === undefined ? { body: summary, entries: [] } : { body: split.body, entries: entriesOf(split.section) }
}

/**
 * The directory an entry is grouped under: up to and with its last `/`, for
 * an entry that does not end with `/`; for a URL (`scheme://host/...`), its
 * last `/` before any `?` or `#`, after the host's. `undefined` otherwise
 * (`mia_li_3668`, `https://example.com`, `docs/`).
 *
 * @since 0.4.0
 */
export const directoryOf = (entry: string): string | undefined => {
  const scheme = entry.indexOf("://")
  if (scheme < 0) {
    const slash = entry.lastIndexOf("/")
    return slash < 0 || slash === entry.length - 1 ? undefined : entry.slice(0, slash + 1)
  }
  const host = entry.indexOf("/", scheme + 3)
  if (host < 0) return undefined
  let end = entry.length
  const query = entry.indexOf("?", host)
  if (query >= 0) end = query
  const fragment = entry.indexOf("#", host)
  if (fragment >= 0 && fragment < end) end = fragment
  const slash = entry.lastIndexOf("/", end - 1)
  return slash === entry.length - 1 ? undefined : entry.slice(0, slash + 1)
}

/**
 * The outermost directory of an entry's directory, where its tree starts: up
 * to and with the first `/` after the first character (`/home/` for
 * `/home/me/src/`, `src/` for `src/cli/`, `./` for `./`); for a URL, its
 * host's (`https://example.com/`).
 */
const rootOf = (directory: string): string => {
  const scheme = directory.indexOf("://")
  const slash = directory.indexOf("/", scheme < 0 ? 1 : scheme + 3)
  return slash < 0 ? directory : directory.slice(0, slash + 1)
}

/** A directory of a ledger's tree: its own entries, then its subdirectories, each in order of first appearance. */
interface Directory {
  readonly path: string
  readonly names: Array<string>
  readonly children: Map<string, Directory>
}

const directory = (path: string): Directory => ({ path, names: [], children: new Map() })

/** The trees of entries: each entry not grouped as itself, each root directory's paths as one tree, in order of first appearance. */
const treesOf = (entries: ReadonlyArray<string>): Array<string | Directory> => {
  const items: Array<string | Directory> = []
  const roots = new Map<string, Directory>()
  for (const entry of entries) {
    const dir = directoryOf(entry)
    if (dir === undefined) {
      items.push(entry)
      continue
    }
    const root = rootOf(dir)
    let node = roots.get(root)
    if (node === undefined) {
      node = directory(root)
      roots.set(root, node)
      items.push(node)
    }
    let at = root.length
    while (at < dir.length) {
      const slash = dir.indexOf("/", at)
      const path = dir.slice(0, slash + 1)
      let child: Directory | undefined = node.children.get(path)
      if (child === undefined) {
        child = directory(path)
        node.children.set(path, child)
      }
      node = child
      at = slash + 1
    }
    node.names.push(entry)
  }
  return items
}

const flatten = (node: Directory, out: Array<string>): void => {
  for (const name of node.names) out.push(name)
  for (const child of node.children.values()) flatten(child, out)
}

/**
 * Orders entries (newest first) as a ledger keeps them: the paths of one
 * root directory (`src/`, `/home/`) brought together at the place of the
 * newest, as a tree: a directory's own entries first, newest first, then its
 * subdirectories, each at the place of its newest entry; every other entry
 * where it stands. Idempotent, and a prefix of a grouped list is grouped.
 *
 * @since 0.4.0
 */
export const group = (entries: ReadonlyArray<string>): Array<string> => {
  const out: Array<string> = []
  for (const item of treesOf(entries)) {
    if (typeof item === "string") out.push(item)
    else flatten(item, out)
  }
  return out
}

/**
 * Merges artifacts mentioned by a fold's evicted turns into a ledger's
 * entries: `mentioned` in order of mention (the last the newest), each
 * brought to the front, then the older entries; grouped ({@link group}). An
 * artifact with whitespace is left out (an entry holds none); each appears
 * once.
 *
 * @since 0.4.0
 */
export const merge = (entries: ReadonlyArray<string>, mentioned: ReadonlyArray<string>): Array<string> => {
  const recent = new Map<string, true>()
  for (const text of mentioned) {
    if (text === "" || /\s/.test(text)) continue
    recent.delete(text)
    recent.set(text, true)
  }
  const order = [...recent.keys()].reverse()
  for (const entry of entries) if (!recent.has(entry)) order.push(entry)
  return group(order)
}

/** The one entry of a tree holding a single entry; `undefined` when it holds more. */
const soleEntry = (tree: Directory): string | undefined => {
  let node = tree
  while (node.names.length === 0 && node.children.size === 1) node = node.children.values().next().value!
  return node.names.length === 1 && node.children.size === 0 ? node.names[0] : undefined
}

/** A directory's lines: a directory holding no entry of its own and one subdirectory is written with it. */
const renderDirectory = (start: Directory, within: string, depth: number, lines: Array<string>): void => {
  let node = start
  while (node.names.length === 0 && node.children.size === 1) node = node.children.values().next().value!
  const indent = " ".repeat(depth)
  if (node.children.size === 0 && node.names.length === 1) lines.push(indent + node.names[0].slice(within.length))
  else if (node.names.length === 0) lines.push(indent + node.path.slice(within.length))
  else {
    let line = indent + node.path.slice(within.length)
    for (const name of node.names) line += " " + name.slice(node.path.length)
    lines.push(line)
  }
  for (const child of node.children.values()) renderDirectory(child, node.path, depth + 1, lines)
}

/**
 * The section of the first `count` entries (already {@link group}ed):
 * `<artifacts>`, the lines of the entries (see the module docs),
 * `</artifacts>`; `""` for none.
 *
 * @since 0.4.0
 */
export const render = (entries: ReadonlyArray<string>, count: number = entries.length): string => {
  if (count <= 0) return ""
  const lines: Array<string> = []
  // whether the last line holds loose entries the next loose entry joins
  let open = false
  for (const item of treesOf(count >= entries.length ? entries : entries.slice(0, count))) {
    const loose = typeof item === "string" ? item : soleEntry(item)
    if (loose === undefined) {
      if (typeof item !== "string") renderDirectory(item, "", 0, lines)
      open = false
    } else if (loose.endsWith("/")) {
      // first on a line with other words, it would read as a group's directory
      lines.push(loose)
      open = false
    } else if (open) lines[lines.length - 1] += " " + loose
    else {
      lines.push(loose)
      open = true
    }
  }
  return OPEN_LINE + lines.join("\n") + CLOSE_LINE
}

/**
 * A summary from its body and its ledger section (either may be empty).
 *
 * @since 0.4.0
 */
export const join = (body: string, section: string): string =>
  section === "" ? body : body === "" ? section : body + SEPARATOR + section
