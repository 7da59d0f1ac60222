/**
 * Bounded printing of any value (what a description of a wrong value shows):
 * pure, no `effect` import, shared by both Effect lines' schemas
 * (`src/schema/ParseIssue.ts` re-exports it).
 *
 * @since 0.4.0
 */
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
export const cutText = (text: string, length: number): string => {
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
      text += cutText(safeString(v), limit + 1)
      if (v instanceof Error && Boolean(v.cause)) {
        text += " (cause: "
        go(v.cause)
        text += ")"
      }
      return
    }
    if (typeof v === "string") {
      text += JSON.stringify(v.length > limit ? cutText(v, limit + 1) : v)
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
      text += typeof key === "string" ? JSON.stringify(key.length > limit ? cutText(key, limit + 1) : key) : String(key)
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
  return text.length <= MAX_VALUE_LENGTH ? text : `${cutText(text, MAX_VALUE_LENGTH)}…${sizeHint(u)}`
}

/**
 * A key as a path names it, unquoted: the key itself, or its first
 * {@link MAX_VALUE_LENGTH} characters followed by `…` when it is longer.
 *
 * @since 0.1.0
 * @category combinators
 */
export const formatKey = (key: string): string =>
  key.length > MAX_VALUE_LENGTH ? `${cutText(key, MAX_VALUE_LENGTH)}…` : key
