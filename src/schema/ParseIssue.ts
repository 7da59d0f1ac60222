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
import { cutText as cut, formatKey, formatValue, MAX_DESCRIPTION_LENGTH, MAX_ISSUE_LENGTH } from "../core/format.js"

export { formatKey, formatValue, MAX_DESCRIPTION_LENGTH, MAX_ISSUE_LENGTH, MAX_VALUE_LENGTH } from "../core/format.js"

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
