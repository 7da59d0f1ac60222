/**
 * A failed decode described in one bounded line (`path: what is wrong`, values
 * printed by `core/format.ts`), as the Effect 3 line's descriptions read.
 *
 * @since 1.0.0
 */
import * as SchemaIssue from "effect/SchemaIssue"
import { formatKey, formatValue, MAX_DESCRIPTION_LENGTH, MAX_ISSUE_LENGTH } from "../../../src/core/format.js"
import { findCycle, findTooDeep, MAX_DEPTH } from "../../../src/core/json.js"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

const pathOf = (path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined): string =>
  (path ?? []).map((segment, i) => {
    const key = typeof segment === "object" ? segment.key : segment
    return typeof key === "number" ? `[${key}]` : i === 0 ? formatKey(String(key)) : `.${formatKey(String(key))}`
  }).join("")

/** A path under `prefix` (`state` and `summary` give `state.summary`, `state` and `[0]` `state[0]`). @internal */
export const under = (prefix: string, path: string): string =>
  prefix === "" ? path : path === "" ? prefix : path.startsWith("[") ? prefix + path : `${prefix}.${path}`

/** The value at `path` in `input`, when every step of the path is there. */
const valueAt = (
  input: unknown,
  path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined
): { readonly value: unknown } | undefined => {
  let value = input
  for (const segment of path ?? []) {
    const key = typeof segment === "object" ? segment.key : segment
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) return undefined
    value = (value as Record<PropertyKey, unknown>)[key]
  }
  return { value }
}

/**
 * The issues of a failed decode as one line: each `path: message`, joined
 * with `"; "`, at most {@link MAX_DESCRIPTION_LENGTH} characters. With the
 * `input` that failed, a wrong value is named as the Effect 3 line names it
 * (`content: Expected string, actual 123`, printed by `core/format.ts`).
 *
 * @since 1.0.0
 */
export const describe = (issue: SchemaIssue.Issue, prefix = "", input?: { readonly value: unknown }): string => {
  const lines = Array.from(
    new Set(
      formatter(issue).issues.map(({ message: said, path }) => {
        const at = under(prefix, pathOf(path))
        const found = input !== undefined && said.startsWith("Expected ") && !said.includes(", actual ")
          ? valueAt(input.value, path)
          : undefined
        const message = found === undefined ? said : `${said}, actual ${formatValue(found.value)}`
        const line = at === "" ? message : `${at}: ${message}`
        return line.length > MAX_ISSUE_LENGTH ? `${line.slice(0, MAX_ISSUE_LENGTH)}…` : line
      })
    )
  )
  let description = ""
  let shown = 0
  for (const line of lines) {
    const next = shown === 0 ? line : `; ${line}`
    if (description.length + next.length > MAX_DESCRIPTION_LENGTH - 40) break
    description += next
    shown++
  }
  const left = lines.length - shown
  return left === 0 ? description : `${description}; and ${left} more ${left === 1 ? "issue" : "issues"}`
}

/**
 * The description of input that failed to decode: a cycle or nesting over
 * the depth limit named first (their issues would be unbounded), else
 * {@link describe}. `messageLevel` is how deep a message sits in the input.
 *
 * @since 1.0.0
 */
export const describeInput = (
  issue: SchemaIssue.Issue,
  input: unknown,
  limits: { readonly messageLevel: number; readonly name: string; readonly prefix?: string | undefined }
): string => {
  const limit = MAX_DEPTH + limits.messageLevel
  const prefix = limits.prefix ?? ""
  const cycle = findCycle(input, limit, limits.messageLevel)
  if (cycle !== undefined) return `${under(prefix, cycle) || limits.name}: contains itself (circular)`
  const tooDeep = findTooDeep(input, limit, limits.messageLevel)
  if (tooDeep !== undefined) return `${under(prefix, tooDeep) || limits.name}: nested deeper than ${MAX_DEPTH} levels`
  return describe(issue, prefix, { value: input })
}
