/**
 * Artifacts and retention, pure (no effect import): what a conversation
 * named that a model must not lose (file paths, URLs, e-mail addresses,
 * identifiers), found by documented patterns, and the share of them a
 * context still names (docs/contract.md section 14).
 *
 * - An *artifact* is a maximal match of one of the {@link Pattern}s, tried in
 *   order: each pattern sees the text with the earlier patterns' matches
 *   blanked out, so a URL's path is not also a path and an e-mail address's
 *   name is not also an identifier. Trailing `.,;:!?` and closing brackets or
 *   quotes are not part of a match. Artifacts are compared by their text.
 * - A text *names* an artifact when extracting it gives that text; a ledger
 *   section (`ledger.ts`) names each of its entries, its groups and
 *   nested lines read within their directories (`src/cli/ Measure.ts` names
 *   `src/cli/Measure.ts`).
 * - *Retention* at a request point: of the distinct artifacts named so far
 *   in the conversation, the share the context (pinned messages, summary,
 *   buffer) still names. A {@link Tracker} measures it incrementally: the
 *   text of each message is extracted once.
 *
 * @example
 * ```ts
 * import { Retention } from "rollmem"
 *
 * Retention.extract("see src/cli/Measure.ts and ops@example.com")
 * // [{ kind: "email", text: "ops@example.com" }, { kind: "path", text: "src/cli/Measure.ts" }]
 * ```
 *
 * @since 0.4.0
 */
import { entriesOf, parse, splitSection } from "./ledger.js"

/**
 * A kind of artifact and how to find it: `regex` is matched globally (the
 * `g` flag is added when missing). `kind` names the artifacts it finds
 * (retention is reported per kind).
 *
 * @since 0.4.0
 * @category models
 */
export interface Pattern {
  readonly kind: string
  readonly regex: RegExp
}

/**
 * One artifact found in a text.
 *
 * @since 0.4.0
 * @category models
 */
export interface Artifact {
  readonly kind: string
  readonly text: string
}

/**
 * The default patterns, in the order they are tried (each sees the text
 * with the earlier ones' matches blanked out):
 *
 * 1. `url`: `http://` or `https://` up to whitespace, a quote or a bracket;
 * 2. `email`: `name@domain.tld`;
 * 3. `uuid`: 8-4-4-4-12 hexadecimal digits;
 * 4. `path`: a file path: absolute with two segments or more (`/etc/hosts`),
 *    from `~`, `.` or `..` (`./run.sh`, `~/notes`), or segments ending in a
 *    name with an extension (`src/cli/Measure.ts`, `/README.md`); a lone
 *    `/word` (`</b>`, `and/or`) is not one;
 * 5. `code`: a code such as `#W1234567` (`#`, letters, digits) or `ABC-123`
 *    (two or more capitals, a dash, digits);
 * 6. `hash`: 7 or more lowercase hexadecimal digits with at least one
 *    letter and one digit (`bf32bed`);
 * 7. `id`: a snake or kebab identifier with a digit (`mia_li_3668`,
 *    `task-42`, `gpt-4o`), starting with a letter.
 *
 * Extend them by passing `[...Retention.defaultPatterns, { kind, regex }]`.
 *
 * @example
 * ```ts
 * import { Retention } from "rollmem"
 *
 * Retention.defaultPatterns.map((pattern) => pattern.kind) // ["url", "email", "uuid", "path", "code", "hash", "id"]
 * ```
 *
 * @since 0.4.0
 * @category constants
 */
export const defaultPatterns: ReadonlyArray<Pattern> = [
  { kind: "url", regex: /\bhttps?:\/\/[^\s<>"'`()[\]{}\\]+/g },
  { kind: "email", regex: /\b[A-Za-z0-9][A-Za-z0-9._%+-]*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/g },
  { kind: "uuid", regex: /\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b/g },
  {
    kind: "path",
    regex: new RegExp(
      "(?<![\\w.~/-])(?:" + [
        // absolute or from ~, . or ..: two segments or more (/etc/hosts, ~/notes/a)
        "(?:~|\\.{1,2})?(?:/[\\w.@+-]+){2,}",
        // from ~, . or ..: one segment (./run.sh, ~/notes)
        "(?:~|\\.{1,2})/[\\w.@+-]+",
        // relative, ending in a name with an extension (src/cli/Measure.ts)
        "(?:[\\w@+-][\\w.@+-]*/)+[\\w@+-]+\\.[A-Za-z0-9]{1,10}",
        // absolute, one name with an extension (/README.md)
        "/[\\w@+-]+\\.[A-Za-z0-9]{1,10}"
      ].join("|") + ")(?![\\w/])",
      "g"
    )
  },
  { kind: "code", regex: /(?:#[A-Z]+\d+|\b[A-Z]{2,}-\d+)\b/g },
  { kind: "hash", regex: /\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,}\b/g },
  { kind: "id", regex: /\b(?=[A-Za-z0-9_-]*\d)[A-Za-z][A-Za-z0-9]*(?:[_-][A-Za-z0-9]+)+\b/g }
]

const TRAILING = /[.,;:!?)\]}'"`>]+$/

// Runs of text between characters no default pattern can hold or look at differently than the text's edges.
const SEPARATED = /[^\s"'`<>()[\]{}\\]+/g

/** The longest piece (between separators) a path, e-mail address, identifier or hash is looked for in. */
const MAX_PIECE = 2_000

/**
 * Finds artifacts in texts with a fixed list of patterns; built once by
 * {@link extractor}.
 *
 * @since 0.4.0
 * @category models
 */
export interface Extractor {
  /** The patterns, each with its `g` flag. */
  readonly patterns: ReadonlyArray<Pattern>
  /**
   * The distinct artifacts of `text`: pattern by pattern in the patterns'
   * order, each pattern's in order of first appearance; then a ledger
   * section's entries, in its order (see the module docs).
   */
  readonly extract: (text: string) => ReadonlyArray<Artifact>
  /** The kind of one artifact's text: the first pattern matching it whole; `undefined` when none does. */
  readonly kindOf: (text: string) => string | undefined
}

const globalOf = (regex: RegExp): RegExp => regex.global ? regex : new RegExp(regex.source, regex.flags + "g")

/**
 * An {@link Extractor} for `patterns` (default {@link defaultPatterns}).
 *
 * @example
 * ```ts
 * import { Retention } from "rollmem"
 *
 * // ticket ids like JIRA-123 only
 * const extractor = Retention.extractor([{ kind: "ticket", regex: /\b[A-Z]+-\d+\b/ }])
 * extractor.extract("see JIRA-123") // [{ kind: "ticket", text: "JIRA-123" }]
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const extractor = (patterns: ReadonlyArray<Pattern> = defaultPatterns): Extractor => {
  const compiled = patterns.map((p) => ({
    kind: p.kind,
    regex: globalOf(p.regex),
    // a default pattern never matches across a separator: it is run piece by piece (linear time)
    pieces: defaultPatterns.includes(p),
    long: p.kind === "url" || p.kind === "uuid" || p.kind === "code"
  }))
  // Matches `regex` in `text`, records what it finds, returns `text` with the matches blanked.
  const scan = (text: string, kind: string, regex: RegExp, out: Array<Artifact>, seen: Set<string>): string => {
    regex.lastIndex = 0
    let blanked: Array<string> | undefined
    let from = 0
    for (let m = regex.exec(text); m !== null; m = regex.exec(text)) {
      if (m[0] === "") {
        regex.lastIndex++
        continue
      }
      const found = m[0].replace(TRAILING, "")
      if (found === "") continue
      if (!seen.has(found)) {
        seen.add(found)
        out.push({ kind, text: found })
      }
      ;(blanked ??= []).push(text.slice(from, m.index), " ".repeat(m[0].length))
      from = m.index + m[0].length
    }
    if (blanked === undefined) return text
    blanked.push(text.slice(from))
    return blanked.join("")
  }
  const plain = (text: string, out: Array<Artifact>, seen: Set<string>): void => {
    let rest = text
    for (const { kind, long, pieces, regex } of compiled) {
      if (!pieces) {
        rest = scan(rest, kind, regex, out, seen)
        continue
      }
      // Piece by piece between separators no default pattern matches (whitespace, quotes, brackets):
      // the same matches as over the whole text, in the same order, without rescanning it from every
      // word boundary. A piece over MAX_PIECE characters names no path, e-mail address, identifier or
      // hash (their patterns would take quadratic time on it).
      let rebuilt: Array<string> | undefined
      let from = 0
      SEPARATED.lastIndex = 0
      for (let m = SEPARATED.exec(rest); m !== null; m = SEPARATED.exec(rest)) {
        const piece = m[0]
        if (!long && piece.length > MAX_PIECE) continue
        const scanned = scan(piece, kind, regex, out, seen)
        if (scanned === piece) continue
        ;(rebuilt ??= []).push(rest.slice(from, m.index), scanned)
        from = m.index + piece.length
      }
      if (rebuilt !== undefined) {
        rebuilt.push(rest.slice(from))
        rest = rebuilt.join("")
      }
    }
  }
  const extract = (text: string): ReadonlyArray<Artifact> => {
    const out: Array<Artifact> = []
    const seen = new Set<string>()
    const split = splitSection(text)
    plain(split === undefined ? text : split.body, out, seen)
    if (split !== undefined) {
      for (const entry of entriesOf(split.section)) {
        if (seen.has(entry)) continue
        seen.add(entry)
        out.push({ kind: kindOf(entry) ?? "unknown", text: entry })
      }
    }
    return out
  }
  const kindOf = (text: string): string | undefined => {
    for (const { kind, regex } of compiled) {
      regex.lastIndex = 0
      const m = regex.exec(text)
      if (m !== null && m.index === 0 && m[0].replace(TRAILING, "") === text) return kind
    }
    return undefined
  }
  return { patterns: compiled, extract, kindOf }
}

const defaultExtractor = extractor()

/**
 * The distinct artifacts of `text` under the default patterns (see
 * {@link extractor} for others), pattern by pattern, each pattern's in order
 * of first appearance.
 *
 * @example
 * ```ts
 * import { Retention } from "rollmem"
 *
 * Retention.extract("user mia_li_3668 booked #W1234567")
 * // [{ kind: "code", text: "#W1234567" }, { kind: "id", text: "mia_li_3668" }]
 * ```
 *
 * @since 0.4.0
 * @category combinators
 */
export const extract = (text: string): ReadonlyArray<Artifact> => defaultExtractor.extract(text)

/**
 * Named and kept artifacts: the distinct artifacts named so far (`named`)
 * and those of them the context still names (`kept`), in all and per kind.
 *
 * @since 0.4.0
 * @category models
 */
export interface Figure {
  readonly named: number
  readonly kept: number
  readonly byKind: { readonly [kind: string]: { readonly named: number; readonly kept: number } }
}

/**
 * `kept / named`, or 1 when nothing was named (nothing to lose).
 *
 * @example
 * ```ts
 * import { Retention } from "rollmem"
 *
 * Retention.ratio({ named: 8, kept: 6 }) // 0.75
 * Retention.ratio({ named: 0, kept: 0 }) // 1: nothing to lose
 * ```
 *
 * @since 0.4.0
 * @category combinators
 */
export const ratio = (figure: { readonly named: number; readonly kept: number }): number =>
  figure.named === 0 ? 1 : figure.kept / figure.named

/**
 * The figure of some kinds only (`["id", "email"]`): named and kept summed
 * over them.
 *
 * @example
 * ```ts
 * import { Retention } from "rollmem"
 *
 * const figure = { named: 10, kept: 7, byKind: { path: { named: 6, kept: 5 }, email: { named: 4, kept: 2 } } }
 * Retention.ofKinds(figure, ["email"]) // { named: 4, kept: 2 }
 * ```
 *
 * @since 0.4.0
 * @category combinators
 */
export const ofKinds = (
  figure: Figure,
  kinds: ReadonlyArray<string>
): { readonly named: number; readonly kept: number } => {
  let named = 0
  let kept = 0
  for (const kind of kinds) {
    const k = figure.byKind[kind]
    if (k !== undefined) {
      named += k.named
      kept += k.kept
    }
  }
  return { named, kept }
}

/**
 * The figures of several conversations taken together: named and kept
 * summed, in all and per kind.
 *
 * @example
 * ```ts
 * import { Retention } from "rollmem"
 *
 * const a = { named: 2, kept: 1, byKind: { path: { named: 2, kept: 1 } } }
 * const b = { named: 3, kept: 3, byKind: { path: { named: 1, kept: 1 }, email: { named: 2, kept: 2 } } }
 * Retention.sum([a, b]) // { named: 5, kept: 4, byKind: { path: { named: 3, kept: 2 }, email: { named: 2, kept: 2 } } }
 * ```
 *
 * @since 0.4.0
 * @category combinators
 */
export const sum = (figures: ReadonlyArray<Figure>): Figure => {
  let named = 0
  let kept = 0
  const byKind: { [kind: string]: { named: number; kept: number } } = {}
  for (const f of figures) {
    named += f.named
    kept += f.kept
    for (const kind of Object.keys(f.byKind)) {
      const into = (byKind[kind] ??= { named: 0, kept: 0 })
      into.named += f.byKind[kind].named
      into.kept += f.byKind[kind].kept
    }
  }
  return { named, kept, byKind: sortKinds(byKind) }
}

const sortKinds = <A>(byKind: { readonly [kind: string]: A }): { readonly [kind: string]: A } => {
  const out: { [kind: string]: A } = {}
  for (const kind of Object.keys(byKind).sort()) out[kind] = byKind[kind]
  return out
}

/**
 * A text to extract from: a string, or a message (a `Message`, or any object
 * of its shape): its content, then each tool call's `name(arguments)`. A
 * message's tool call ids are not read: they name the call, not the work.
 *
 * @since 0.4.0
 * @category models
 */
export type Source = string | {
  readonly content: string
  readonly toolCalls: ReadonlyArray<{ readonly signature: string }>
}

/**
 * The text of a {@link Source} that artifacts are extracted from.
 *
 * @example
 * ```ts
 * import { Retention } from "rollmem"
 *
 * Retention.textOf("see src/cli/Measure.ts") // "see src/cli/Measure.ts"
 * ```
 *
 * @since 0.4.0
 * @category combinators
 */
export const textOf = (source: Source): string => {
  if (typeof source === "string") return source
  if (source.toolCalls.length === 0) return source.content
  const parts = source.content === "" ? [] : [source.content]
  for (const call of source.toolCalls) parts.push(call.signature)
  return parts.join("\n")
}

/**
 * Measures retention along one conversation: {@link Tracker.observe} each
 * message as it is added, {@link Tracker.measure} a context at a request
 * point. Each message object (and each distinct string) is extracted once,
 * whatever the number of request points that hold it.
 *
 * @since 0.4.0
 * @category models
 */
export interface Tracker {
  /** Records the artifacts `source` names as named in the conversation. */
  readonly observe: (source: Source) => void
  /** The retention of `context`: of the artifacts observed so far, those it names. */
  readonly measure: (context: ReadonlyArray<Source>) => Figure
  /** The artifacts observed so far, in order of first mention. */
  readonly named: () => ReadonlyArray<Artifact>
}

/**
 * A new {@link Tracker}, extracting with `patterns` (default
 * {@link defaultPatterns}).
 *
 * @example
 * ```ts
 * import { Message, Retention } from "rollmem"
 *
 * const tracker = Retention.tracker()
 * const first = Message.user("Open src/app.ts")
 * tracker.observe(first)
 * tracker.observe(Message.user("and lib/util.ts"))
 * Retention.ratio(tracker.measure([first])) // 0.5
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const tracker = (patterns?: ReadonlyArray<Pattern>): Tracker => {
  const { extract: extractText } = patterns === undefined ? defaultExtractor : extractor(patterns)
  const byObject = new WeakMap<object, ReadonlyArray<Artifact>>()
  // the latest strings (a summary read back is a new message at every read, its text the same until a fold)
  const byText = new Map<string, ReadonlyArray<Artifact>>()
  const of = (source: Source): ReadonlyArray<Artifact> => {
    if (typeof source === "string") {
      let found = byText.get(source)
      if (found === undefined) {
        found = extractText(source)
        if (byText.size >= 8) byText.delete(byText.keys().next().value as string)
        byText.set(source, found)
      }
      return found
    }
    let found = byObject.get(source)
    if (found === undefined) {
      found = of(textOf(source))
      byObject.set(source, found)
    }
    return found
  }
  const named = new Map<string, string>()
  const order: Array<Artifact> = []
  const namedByKind = new Map<string, number>()
  const stamp = new Map<string, number>()
  let request = 0
  return {
    observe: (source) => {
      for (const artifact of of(source)) {
        if (named.has(artifact.text)) continue
        named.set(artifact.text, artifact.kind)
        order.push(artifact)
        namedByKind.set(artifact.kind, (namedByKind.get(artifact.kind) ?? 0) + 1)
      }
    },
    measure: (context) => {
      request++
      const keptByKind = new Map<string, number>()
      let kept = 0
      for (const source of context) {
        for (const artifact of of(source)) {
          const kind = named.get(artifact.text)
          if (kind === undefined || stamp.get(artifact.text) === request) continue
          stamp.set(artifact.text, request)
          kept++
          keptByKind.set(kind, (keptByKind.get(kind) ?? 0) + 1)
        }
      }
      const byKind: { [kind: string]: { named: number; kept: number } } = {}
      for (const [kind, n] of namedByKind) byKind[kind] = { named: n, kept: keptByKind.get(kind) ?? 0 }
      return { named: named.size, kept, byKind: sortKinds(byKind) }
    },
    named: () => order
  }
}

/**
 * The entries of the artifact ledger at the end of a summary (docs/contract.md
 * section 14.2), newest first; empty when the summary holds none.
 *
 * @example
 * ```ts
 * import { Retention } from "rollmem"
 *
 * Retention.ledgerOf("Fixed the bug.\n\n<artifacts>\nsrc/ a.ts b.ts\n</artifacts>") // ["src/a.ts", "src/b.ts"]
 * ```
 *
 * @since 0.4.0
 * @category combinators
 */
export const ledgerOf = (summary: string): ReadonlyArray<string> => parse(summary).entries
