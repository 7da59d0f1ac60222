/**
 * Metadata as JSON data, pure (no `effect` import): prototype-safe copies,
 * the 100-level depth limit, cycles, structural equality. Both Effect lines'
 * message schemas check metadata with it; `src/schema/Json.ts` re-exports it.
 *
 * @since 0.4.0
 */
import { formatKey, formatValue } from "./format.js"

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
 * @example
 * ```ts
 * import { Json } from "rollmem"
 *
 * Json.MAX_DEPTH // 100: metadata nested deeper is refused
 * ```
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_DEPTH = 100

/** Whether `u` is a plain object (`Object.prototype` or `null` prototype), not an array. */
export const isPlainObject = (u: unknown): u is Record<string, unknown> => {
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
export const copyJson = (u: unknown, depth: number, path: string): { readonly value: JsonValue } | string => {
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
 * @example
 * ```ts
 * import { Json } from "rollmem"
 *
 * Json.findTooDeep({ a: { b: { c: 1 } } }, 2) // "a.b": the path of the part nested deeper than 2 levels
 * Json.findTooDeep({ a: 1 }, 2) // undefined
 * ```
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
 * @example
 * ```ts
 * import { Json } from "rollmem"
 *
 * const loop: { self?: unknown } = {}
 * loop.self = loop
 * Json.findCycle(loop, Json.MAX_DEPTH) // "self": the path that leads back to an ancestor
 * ```
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
 * Deep structural equality of two JSON values (object key order ignored).
 *
 * @example
 * ```ts
 * import { Json } from "rollmem"
 *
 * Json.jsonEquals({ a: [1, 2], b: null }, { b: null, a: [1, 2] }) // true: key order does not matter
 * ```
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
