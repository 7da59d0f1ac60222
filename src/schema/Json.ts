/**
 * JSON data as message metadata holds it: objects, arrays, strings, numbers,
 * booleans and null, copied without ever touching a prototype.
 *
 * Effect's `Schema.Record` builds its output by assignment, so a `"__proto__"`
 * key would replace the decoded object's prototype. The schemas here copy
 * with `Object.defineProperty`, so such keys stay plain data, and they reject
 * nesting deeper than {@link MAX_DEPTH} levels.
 *
 * @since 0.1.0
 */
import * as Hash from "effect/Hash"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { formatKey, formatParseError, formatValue } from "./ParseIssue.js"

/**
 * A JSON value.
 *
 * @since 0.1.0
 * @category models
 */
export type JsonValue = null | boolean | number | string | ReadonlyArray<JsonValue> | JsonObject

/**
 * A JSON object: string keys, JSON values.
 *
 * @since 0.1.0
 * @category models
 */
export interface JsonObject {
  readonly [key: string]: JsonValue
}

/**
 * The deepest nesting accepted in metadata (docs/contract.md section 1): 100 levels of
 * objects and arrays. Deeper values fail to decode.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_DEPTH = 100

const isPlainObject = (u: unknown): u is Record<string, unknown> => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return false
  const proto = Object.getPrototypeOf(u)
  return proto === Object.prototype || proto === null
}

const define = (target: Record<string, unknown>, key: string, value: unknown): void => {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/**
 * Copies a JSON value, or returns a message naming the path of the first
 * value that is not JSON data or is nested too deep.
 */
const copyJson = (u: unknown, depth: number, path: string): { readonly value: JsonValue } | string => {
  if (u === null || typeof u === "string" || typeof u === "boolean") return { value: u }
  if (typeof u === "number") {
    return Number.isFinite(u) ? { value: u } : `${path || "value"} is not a finite number`
  }
  if (depth >= MAX_DEPTH) return `metadata is nested deeper than ${MAX_DEPTH} levels`
  if (Array.isArray(u)) {
    const out: Array<JsonValue> = new Array(u.length)
    for (let i = 0; i < u.length; i++) {
      const r = copyJson(u[i], depth + 1, `${path}[${i}]`)
      if (typeof r === "string") return r
      out[i] = r.value
    }
    return { value: out }
  }
  if (isPlainObject(u)) {
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(u)) {
      const r = copyJson(u[key], depth + 1, `${path}[${formatValue(key)}]`)
      if (typeof r === "string") return r
      define(out, key, r.value)
    }
    return { value: out as JsonObject }
  }
  return `${path || "value"} is not JSON data (got ${u === undefined ? "undefined" : typeof u})`
}

/**
 * The path of the first array or object in `u` that lies more than `limit`
 * levels deep (`u` itself is level 1), or `undefined` when there is none.
 * The path names at most the first `pathLength` keys (`buffer[0].metadata`).
 *
 * It walks with an explicit stack, so any depth is safe to check: run it
 * before a recursive walk (Schema's error formatter) meets untrusted input,
 * which overflows the call stack on a value nested 100,000 levels deep.
 *
 * @since 0.1.0
 * @category combinators
 */
export const findTooDeep = (u: unknown, limit: number, pathLength: number = 3): string | undefined => {
  if (typeof u !== "object" || u === null) return undefined
  // Depth-first with an explicit stack; children pushed last-first so the
  // first too-deep value found is the first in document order.
  const values: Array<object> = [u]
  const depths: Array<number> = [1]
  const paths: Array<string> = [""]
  while (values.length > 0) {
    const value = values.pop()!
    const depth = depths.pop()!
    const path = paths.pop()!
    if (depth > limit) return path
    const isArray = Array.isArray(value)
    const keys: ReadonlyArray<string> | undefined = isArray ? undefined : Object.keys(value)
    for (let i = (isArray ? value.length : keys!.length) - 1; i >= 0; i--) {
      const child: unknown = isArray ? value[i] : (value as Record<string, unknown>)[keys![i]]
      if (typeof child !== "object" || child === null) continue
      values.push(child)
      depths.push(depth + 1)
      const key = isArray ? "" : formatKey(keys![i])
      paths.push(depth > pathLength ? path : isArray ? `${path}[${i}]` : path === "" ? key : `${path}.${key}`)
    }
  }
  return undefined
}

/**
 * The path of the first object or array in `u` that contains itself (a
 * circular reference, which no JSON text can hold), looking at most `limit`
 * levels deep, or `undefined` when there is none. The path names at most the
 * first `pathLength` keys, as {@link findTooDeep} does. Run it before
 * {@link findTooDeep}, which would call a cycle "too deep".
 *
 * @since 0.1.0
 * @category combinators
 */
export const findCycle = (u: unknown, limit: number, pathLength: number = 3): string | undefined => {
  const ancestors = new Set<object>()
  // Recursion is bounded by `limit` (about 100), so the stack is safe.
  const walk = (value: unknown, depth: number, path: string): string | undefined => {
    if (typeof value !== "object" || value === null || depth > limit) return undefined
    if (ancestors.has(value)) return path
    ancestors.add(value)
    const isArray = Array.isArray(value)
    const keys: ReadonlyArray<string> | undefined = isArray ? undefined : Object.keys(value)
    const length = isArray ? value.length : keys!.length
    for (let i = 0; i < length; i++) {
      const child: unknown = isArray ? value[i] : (value as Record<string, unknown>)[keys![i]]
      const key = isArray ? "" : formatKey(keys![i])
      const found = walk(
        child,
        depth + 1,
        depth > pathLength ? path : isArray ? `${path}[${i}]` : path === "" ? key : `${path}.${key}`
      )
      if (found !== undefined) return found
    }
    ancestors.delete(value)
    return undefined
  }
  return walk(u, 1, "")
}

/**
 * Where a decoder's input holds messages, for {@link describeParseError}.
 *
 * @since 0.2.0
 * @category models
 */
export interface Limits {
  /**
   * The level at which a message sits in the input (`1`: the input is a
   * message; `3`: a state, whose messages are `buffer[i]`). Its metadata's
   * {@link MAX_DEPTH} levels start one level below; a path names at most
   * this many keys.
   */
  readonly messageLevel: number
  /** What to call the input itself when it is the value at fault (`"state"`). */
  readonly name: string
}

/**
 * The description of a failed decode of `input`, the same for every decoder
 * of rollmem (a message, a state, a stored record, a prompt), as the fields
 * of a domain error (`{ description, cause }`): a value that contains itself
 * is named as circular (`buffer[0].metadata: contains itself (circular)`),
 * one nested deeper than any valid input as too deep (`metadata: nested
 * deeper than 100 levels`), both found without recursion whatever the depth
 * and without the parse error as `cause` (printing it would walk the whole
 * value); anything else as {@link formatParseError} describes it, at most
 * 2,000 characters whatever the size of the wrong value, with the parse
 * error as `cause`.
 *
 * The domain errors are built from it: `InvalidMessageError.fromParseError`,
 * `StateDecodeError.fromParseError`, `ConversationDecodeError.fromParseError`.
 *
 * @example
 * ```ts
 * // input { version: 2, buffer: [{ role: "user", content: "x", metadata: <nested 20,000 levels> }] }
 * // { description: "buffer[0].metadata: nested deeper than 100 levels" }
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const describeParseError = (
  error: ParseResult.ParseError,
  input: unknown,
  limits: Limits
): { readonly description: string; readonly cause?: ParseResult.ParseError } => {
  const limit = MAX_DEPTH + limits.messageLevel
  const cycle = findCycle(input, limit, limits.messageLevel)
  if (cycle !== undefined) return { description: `${cycle || limits.name}: contains itself (circular)` }
  const tooDeep = findTooDeep(input, limit, limits.messageLevel)
  if (tooDeep !== undefined) return { description: `${tooDeep || limits.name}: nested deeper than ${MAX_DEPTH} levels` }
  return { description: formatParseError(error), cause: error }
}

const JsonObjectFromSelf = Schema.declare(
  (u: unknown): u is JsonObject => isPlainObject(u),
  { identifier: "JsonObject", description: "a JSON object" }
)

/**
 * A JSON object, decoded by copying (prototype-safe, depth-checked) from any
 * input. Encoding copies as well, so the encoded object never shares
 * structure with the value.
 *
 * @since 0.1.0
 * @category schemas
 */
export const JsonObjectSchema: Schema.Schema<JsonObject, JsonObject> = Schema.transformOrFail(
  Schema.Unknown,
  JsonObjectFromSelf,
  {
    strict: true,
    decode: (u, _, ast) => {
      if (!isPlainObject(u)) {
        return ParseResult.fail(new ParseResult.Type(ast, u, "metadata must be a JSON object"))
      }
      const r = copyJson(u, 0, "metadata")
      return typeof r === "string"
        ? ParseResult.fail(new ParseResult.Type(ast, u, r))
        : ParseResult.succeed(r.value as JsonObject)
    },
    encode: (o) => ParseResult.succeed(o)
  }
) as unknown as Schema.Schema<JsonObject, JsonObject>

/**
 * Deep structural equality of two JSON values (object key order ignored).
 *
 * @since 0.1.0
 * @category combinators
 */
export const jsonEquals = (a: JsonValue, b: JsonValue): boolean => {
  if (a === b) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!jsonEquals(a[i], b[i])) return false
    return true
  }
  if (Array.isArray(b)) return false
  const ao = a as JsonObject
  const bo = b as JsonObject
  const keys = Object.keys(ao)
  if (keys.length !== Object.keys(bo).length) return false
  for (const key of keys) {
    if (!Object.prototype.hasOwnProperty.call(bo, key) || !jsonEquals(ao[key], bo[key])) return false
  }
  return true
}

/**
 * A hash of a JSON value consistent with {@link jsonEquals}.
 *
 * @since 0.1.0
 * @category combinators
 */
export const jsonHash = (v: JsonValue): number => {
  if (v === null || typeof v !== "object") return Hash.hash(v)
  if (Array.isArray(v)) {
    let h = Hash.hash("array")
    for (const x of v) h = Hash.combine(jsonHash(x))(h)
    return Hash.optimize(h)
  }
  let h = Hash.hash("object")
  // order-independent: sum of key/value hashes
  for (const key of Object.keys(v)) h = (h + Hash.combine(jsonHash((v as JsonObject)[key]))(Hash.string(key))) | 0
  return Hash.optimize(h)
}
