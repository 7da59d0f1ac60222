/**
 * One-line descriptions of Schema parse errors, naming each wrong path,
 * bounded whatever the input.
 *
 * Schema's own formatter prints each wrong value in full, so a 10 MB string
 * or a 1,000,000-element array where a string belongs would give a
 * description of megabytes. Here each printed value is cut to
 * {@link MAX_VALUE_LENGTH} characters with an ellipsis and a size hint, and
 * the description to {@link MAX_DESCRIPTION_LENGTH} characters, followed by
 * how many issues were left out. Paths and expected types are kept.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { MemoryState } from "rollmem"
 *
 * const content = Array.from({ length: 1_000_000 }, (_, i) => i)
 * const error = Effect.runSync(Effect.flip(MemoryState.fromJSON({ version: 2, buffer: [{ role: "user", content }] })))
 * error.description
 * // buffer[0].content: Expected string, actual [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29… [array of 1000000 items]
 * ```
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as AST from "effect/SchemaAST"

/**
 * The longest printed value, in characters (UTF-16 code units): a longer one
 * is cut there and followed by `…` and a size hint.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_VALUE_LENGTH = 80

/**
 * The longest line of a description, in characters (one wrong path and what
 * is wrong with it); a longer one is cut there and followed by `…`.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_ISSUE_LENGTH = 500

/**
 * The longest description {@link formatParseError} returns, in characters,
 * including the note of how many issues were left out.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_DESCRIPTION_LENGTH = 2000

/** Cuts `text` to `length` characters, never between the halves of a surrogate pair. */
const cut = (text: string, length: number): string => {
  const code = text.charCodeAt(length - 1)
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? length - 1 : length)
}

const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? "" : "s"}`

/** What a cut value was: its kind and size. */
const sizeHint = (u: unknown): string => {
  if (typeof u === "string") return ` [string of ${plural(u.length, "character")}]`
  if (Array.isArray(u)) return ` [array of ${plural(u.length, "item")}]`
  if (u instanceof Map) return ` [Map of ${u.size} ${u.size === 1 ? "entry" : "entries"}]`
  if (u instanceof Set) return ` [Set of ${plural(u.size, "item")}]`
  if (typeof u === "object" && u !== null && !(u instanceof Date)) {
    return ` [object of ${plural(Reflect.ownKeys(u).length, "key")}]`
  }
  return ""
}

const hasOwnToString = (u: object): boolean => {
  const toString = (u as { readonly toString?: unknown }).toString
  return typeof toString === "function" && toString !== Object.prototype.toString &&
    toString !== Array.prototype.toString
}

const safeString = (u: { toString: () => unknown }): string => {
  try {
    return String(u.toString())
  } catch {
    return "[toString threw]"
  }
}

/**
 * Prints `u` as Schema's formatter does (compact, JSON-like), but stops once
 * more than `limit` characters are written, so a value of any size costs
 * about `limit` characters of work. Nesting is bounded by the same budget:
 * each level writes at least one character.
 */
const printBounded = (u: unknown, limit: number): string => {
  let text = ""
  const seen = new WeakSet<object>()
  const full = (): boolean => text.length > limit
  const go = (v: unknown): void => {
    if (full()) return
    if (Array.isArray(v)) {
      if (seen.has(v)) {
        text += "[Circular]"
        return
      }
      seen.add(v)
      text += "["
      for (let i = 0; i < v.length && !full(); i++) {
        if (i > 0) text += ","
        if (i in v) go(v[i])
      }
      text += "]"
      return
    }
    if (v instanceof Date) {
      text += Number.isNaN(v.getTime()) ? "Invalid Date" : v.toISOString()
      return
    }
    if ((typeof v === "object" && v !== null || typeof v === "function") && hasOwnToString(v)) {
      text += cut(safeString(v), limit + 1)
      if (v instanceof Error && Boolean(v.cause)) {
        text += " (cause: "
        go(v.cause)
        text += ")"
      }
      return
    }
    if (typeof v === "string") {
      text += JSON.stringify(v.length > limit ? cut(v, limit + 1) : v)
      return
    }
    if (typeof v === "bigint") {
      text += `${v}n`
      return
    }
    if (typeof v !== "object" || v === null) {
      text += String(v)
      return
    }
    if (seen.has(v)) {
      text += "[Circular]"
      return
    }
    seen.add(v)
    if (v instanceof Map || v instanceof Set) {
      text += `${v.constructor.name}([`
      let first = true
      for (const entry of v) {
        if (full()) break
        if (!first) text += ","
        first = false
        go(entry)
      }
      text += "])"
      return
    }
    const constructor = (v as { readonly constructor?: { readonly name?: unknown } }).constructor
    const name = constructor !== undefined && constructor !== Object && typeof constructor.name === "string" &&
        constructor.name !== ""
      ? constructor.name
      : undefined
    if (name !== undefined) text += `${name}(`
    text += "{"
    let first = true
    for (const key of Reflect.ownKeys(v)) {
      if (full()) break
      if (!first) text += ","
      first = false
      text += typeof key === "string" ? JSON.stringify(key.length > limit ? cut(key, limit + 1) : key) : String(key)
      text += ":"
      go((v as Record<PropertyKey, unknown>)[key])
    }
    text += "}"
    if (name !== undefined) text += ")"
  }
  go(u)
  return text
}

/**
 * A value as a description prints it: as Schema's formatter does (`"text"`,
 * `42`, `[1,2]`, `{"a":1}`) when that takes at most {@link MAX_VALUE_LENGTH}
 * characters; otherwise the first {@link MAX_VALUE_LENGTH} characters, `…`,
 * and the value's kind and size (`[string of 10485760 characters]`,
 * `[array of 1000000 items]`, `[object of 3 keys]`). Only about that many
 * characters of the value are visited, whatever its size.
 *
 * @example
 * ```ts
 * formatValue([1, 2]) // [1,2]
 * formatValue({ a: "b" }) // {"a":"b"}
 * formatValue("x".repeat(1000)) // "xxx…x… [string of 1000 characters] (a quote and 79 x before the …)
 * ```
 *
 * @since 0.1.0
 * @category combinators
 */
export const formatValue = (u: unknown): string => {
  if (typeof u === "string" && u.length <= MAX_VALUE_LENGTH) {
    // the common case, cheap: metadata paths print every key this way
    const quoted = JSON.stringify(u)
    if (quoted.length <= MAX_VALUE_LENGTH) return quoted
  }
  const text = printBounded(u, MAX_VALUE_LENGTH)
  return text.length <= MAX_VALUE_LENGTH ? text : `${cut(text, MAX_VALUE_LENGTH)}…${sizeHint(u)}`
}

/** Prints as a bounded value: Schema's formatter uses a value's own `toString`. */
class Printed {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text
  }
}

const hasAnnotatedMessage = (ast: AST.Annotated): boolean =>
  Option.isSome(AST.getMessageAnnotation(ast)) || Option.isSome(AST.getParseIssueTitleAnnotation(ast))

/**
 * The same issue with the value each type mismatch prints bounded: a `Type`
 * leaf's `actual` becomes a {@link Printed} of {@link formatValue}. Leaves
 * whose schema has a message annotation keep their value, as the annotation
 * decides what it prints; the other nodes keep theirs (Schema's formatter
 * prints only the leaves' values).
 */
const bounded = (issue: ParseResult.ParseIssue): ParseResult.ParseIssue => {
  switch (issue._tag) {
    case "Type":
      return issue.message !== undefined || hasAnnotatedMessage(issue.ast)
        ? issue
        : new ParseResult.Type(issue.ast, new Printed(formatValue(issue.actual)))
    case "Pointer":
      return new ParseResult.Pointer(issue.path, issue.actual, bounded(issue.issue))
    case "Composite":
      return new ParseResult.Composite(
        issue.ast,
        issue.actual,
        Array.isArray(issue.issues)
          ? (issue.issues as ReadonlyArray<ParseResult.ParseIssue>).map(bounded) as [
            ParseResult.ParseIssue,
            ...Array<ParseResult.ParseIssue>
          ]
          : bounded(issue.issues as ParseResult.ParseIssue),
        issue.output
      )
    case "Refinement":
      return new ParseResult.Refinement(issue.ast, issue.actual, issue.kind, bounded(issue.issue))
    case "Transformation":
      return new ParseResult.Transformation(issue.ast, issue.actual, issue.kind, bounded(issue.issue))
    case "Missing":
    case "Unexpected":
    case "Forbidden":
      return issue
  }
}

/**
 * A key as a path names it, unquoted: the key itself, or its first
 * {@link MAX_VALUE_LENGTH} characters followed by `…` when it is longer.
 *
 * @since 0.1.0
 * @category combinators
 */
export const formatKey = (key: string): string => key.length > MAX_VALUE_LENGTH ? `${cut(key, MAX_VALUE_LENGTH)}…` : key

const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((key, i) =>
    typeof key === "number" ? `[${key}]` : i === 0 ? formatKey(String(key)) : `.${formatKey(String(key))}`
  ).join("")

const lineOf = ({ message, path }: ParseResult.ArrayFormatterIssue): string => {
  const line = path.length === 0 ? message : `${formatPath(path)}: ${message}`
  return line.length > MAX_ISSUE_LENGTH ? `${cut(line, MAX_ISSUE_LENGTH)}…` : line
}

// Room kept for the note of how many issues were left out.
const noteRoom = 40

/**
 * Formats a parse error as one line naming each wrong path: the issues
 * joined with `"; "`, each `path: what is wrong`. Values are printed by
 * {@link formatValue}, a line is cut at {@link MAX_ISSUE_LENGTH} characters,
 * and once the next issue would pass {@link MAX_DESCRIPTION_LENGTH} the
 * rest are counted instead (`…; and 1999 more issues`). A nullable field's
 * "Expected null" beside its real issue is left out.
 *
 * @example
 * ```ts
 * // { version: 2, buffer: [{ role: "user", content: 42 }] }
 * // buffer[0].content: Expected string, actual 42
 * ```
 *
 * @since 0.1.0
 * @category combinators
 */
export const formatParseError = (error: ParseResult.ParseError): string => {
  const issues = ParseResult.ArrayFormatter.formatIssueSync(bounded(error.issue))
  // A nullable field reports "Expected null" beside the real issue: keep the real one.
  const relevant = issues.filter((issue) => !/^Expected (null|undefined), actual/.test(issue.message))
  const lines = Array.from(new Set((relevant.length > 0 ? relevant : issues).map(lineOf)))
  let description = ""
  let shown = 0
  for (const line of lines) {
    const next = shown === 0 ? line : `; ${line}`
    const room = MAX_DESCRIPTION_LENGTH - (shown + 1 < lines.length ? noteRoom : 0)
    if (description.length + next.length > room) break
    description += next
    shown++
  }
  const left = lines.length - shown
  return left === 0 ? description : `${description}; and ${left} more ${left === 1 ? "issue" : "issues"}`
}
