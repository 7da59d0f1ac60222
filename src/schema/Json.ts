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
import {
  copyJson,
  findCycle,
  findTooDeep,
  isPlainObject,
  type JsonObject,
  type JsonValue,
  MAX_DEPTH
} from "../core/json.js"
import { formatParseError } from "./ParseIssue.js"

export { findCycle, findTooDeep, jsonEquals, type JsonObject, type JsonValue, MAX_DEPTH } from "../core/json.js"

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
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Json } from "rollmem"
 *
 * Schema.decodeUnknownSync(Json.JsonObjectSchema)({ source: "web", tags: ["a"] }) // a prototype-safe copy
 * ```
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
 * A hash of a JSON value consistent with {@link jsonEquals}.
 *
 * @example
 * ```ts
 * import { Json } from "rollmem"
 *
 * Json.jsonHash({ a: 1, b: [2] }) === Json.jsonHash({ b: [2], a: 1 }) // true: equal values, equal hashes
 * ```
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
