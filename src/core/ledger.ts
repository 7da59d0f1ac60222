/**
 * The artifact ledger's text grammar and merge, pure (no effect import;
 * docs/contract.md section 14.2). The ledger is a section at the end of the
 * summary text, and only there: it is parsed back from the summary, never
 * kept beside it, so it survives `toJSON`/`fromJSON` as plain text.
 *
 * ```text
 * summary  = section | body "\n\n" section        (a body alone when the ledger is empty)
 * section  = "<artifacts>\n" line *("\n" line) "\n</artifacts>"
 * line     = entry | directory 1*(" " name)       (a group: directory ends with "/")
 * ```
 *
 * - One artifact per entry; an entry holds no whitespace. A group line names
 *   `directory + name` for each name: the paths of one directory share it.
 * - The order of the entries, read line by line and a group's names left to
 *   right, is the ledger's recency, newest first. Paths of one directory
 *   stand together, at the place of their newest mention: mentioning a path
 *   brings its directory's group to the front, the path first within it.
 * - A full ledger drops its last entry first (the least recently mentioned
 *   in the ledger's order).
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

/**
 * The entries of a section's lines, in the ledger's order (newest first),
 * each group line expanded.
 *
 * @since 0.4.0
 */
export const entriesOf = (section: string): Array<string> => {
  const out: Array<string> = []
  if (section === "") return out
  for (const line of section.split("\n")) {
    const words = line.split(" ").filter((w) => w !== "")
    if (words.length === 0) continue
    if (words.length >= 2 && words[0].endsWith("/")) {
      for (let i = 1; i < words.length; i++) out.push(words[0] + words[i])
    } else {
      for (const word of words) out.push(word)
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
 * The directory an entry is grouped under: up to and with its last `/`,
 * for an entry that is not a URL and does not end with `/`; `undefined`
 * otherwise.
 *
 * @since 0.4.0
 */
export const directoryOf = (entry: string): string | undefined => {
  if (entry.includes("://")) return undefined
  const slash = entry.lastIndexOf("/")
  return slash < 0 || slash === entry.length - 1 ? undefined : entry.slice(0, slash + 1)
}

/**
 * Orders entries (newest first) as a ledger keeps them: each directory's
 * entries brought together at the place of its newest one, newest first
 * within it; every other entry where it stands. Idempotent.
 *
 * @since 0.4.0
 */
export const group = (entries: ReadonlyArray<string>): Array<string> => {
  const groups = new Map<string, Array<string>>()
  for (const entry of entries) {
    const key = directoryOf(entry) ?? "\u0000" + entry
    const members = groups.get(key)
    if (members === undefined) groups.set(key, [entry])
    else members.push(entry)
  }
  const out: Array<string> = []
  for (const members of groups.values()) for (const entry of members) out.push(entry)
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

/**
 * The section of the first `count` entries (already {@link group}ed):
 * `<artifacts>`, one line per entry or directory group, `</artifacts>`;
 * `""` for none.
 *
 * @since 0.4.0
 */
export const render = (entries: ReadonlyArray<string>, count: number = entries.length): string => {
  if (count <= 0) return ""
  const lines: Array<string> = []
  let i = 0
  const n = Math.min(count, entries.length)
  while (i < n) {
    const dir = directoryOf(entries[i])
    let j = i + 1
    if (dir !== undefined) { while (j < n && directoryOf(entries[j]) === dir) j++ }
    if (j - i >= 2) {
      const names: Array<string> = []
      for (let k = i; k < j; k++) names.push(entries[k].slice(dir!.length))
      lines.push(dir + " " + names.join(" "))
    } else lines.push(entries[i])
    i = j
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
