/**
 * One-line descriptions of Schema parse errors, naming each wrong path.
 *
 * @since 0.1.0
 */
import * as ParseResult from "effect/ParseResult"

/**
 * Formats a parse error as one line naming each wrong path.
 *
 * @since 0.1.0
 * @category combinators
 */
export const formatParseError = (error: ParseResult.ParseError): string => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
  // A nullable field reports "Expected null" beside the real issue: keep the real one.
  const relevant = issues.filter((issue) => !/^Expected (null|undefined), actual/.test(issue.message))
  return Array.from(
    new Set(
      (relevant.length > 0 ? relevant : issues).map((issue) =>
        issue.path.length === 0 ? issue.message : `${formatPath(issue.path)}: ${issue.message}`
      )
    )
  ).join("; ")
}

const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((key, i) => typeof key === "number" ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`).join("")
