/**
 * Recognizing a provider's refusal of a request as too long for the model's
 * context window (docs/contract.md section 16.3), from whatever the provider's
 * SDK threw: an `Error` with a message, an SDK error with `code`, `status`,
 * `error` and `body` fields, an AI SDK `APICallError` (`responseBody`), an
 * `@effect/ai` error (`description`, `cause`), or a plain JSON body.
 *
 * Pure: no Effect import (both Effect lines compile it).
 *
 * @since 0.3.0
 */

/**
 * A provider's "too long" refusal, with the numbers it gave (`undefined`
 * when it gave none): `requestedTokens` the prompt's size as the provider
 * counted it, `maxTokens` the model's limit.
 *
 * @since 0.3.0
 * @category models
 */
export interface Overflow {
  readonly provider: string
  readonly requestedTokens: number | undefined
  readonly maxTokens: number | undefined
  readonly message: string
}

/**
 * Reads an error: the {@link Overflow} it stands for, or `undefined` when it
 * is not a "too long" refusal of this recognizer's provider.
 *
 * @since 0.3.0
 * @category models
 */
export type Recognizer = (error: unknown) => Overflow | undefined

const MAX_DEPTH = 5
const MAX_TEXT = 4_000

/**
 * Every string and code an error carries, its causes and bodies included,
 * in the order a recognizer reads them: `message`, `description`, `code`,
 * `type`, `status`, `statusCode`, `responseBody`, `body`, then `error`,
 * `cause`, `response`, `data`, `details`, depth first; a string that is a
 * JSON object is read as well. Bounded: 5 levels deep, 4,000 characters a
 * text, each object once.
 *
 * @example
 * ```ts
 * import { Overflow } from "rollmem"
 *
 * Overflow.textsOf({ status: 400, error: { message: "prompt is too long", type: "invalid_request_error" } })
 * // ["400", "prompt is too long", "invalid_request_error"]
 * ```
 *
 * @since 0.3.0
 * @category utils
 */
export const textsOf = (error: unknown): ReadonlyArray<string> => {
  const out: Array<string> = []
  const seen = new Set<unknown>()
  const visit = (value: unknown, depth: number): void => {
    if (depth > MAX_DEPTH || value === null || value === undefined) return
    if (typeof value === "string") {
      out.push(value.length > MAX_TEXT ? value.slice(0, MAX_TEXT) : value)
      const trimmed = value.trimStart()
      if (trimmed.startsWith("{") && value.length <= 100_000) {
        try {
          visit(JSON.parse(value), depth + 1)
        } catch {
          // not JSON: the text itself was kept
        }
      }
      return
    }
    if (typeof value === "number") {
      out.push(String(value))
      return
    }
    if (typeof value !== "object" || seen.has(value)) return
    seen.add(value)
    const record = value as Record<string, unknown>
    for (const key of ["message", "description", "code", "type", "status", "statusCode", "responseBody", "body"]) {
      visit(safeGet(record, key), depth + 1)
    }
    for (const key of ["error", "cause", "response", "data", "details"]) visit(safeGet(record, key), depth + 1)
  }
  visit(error, 0)
  return out
}

const safeGet = (record: Record<string, unknown>, key: string): unknown => {
  try {
    return record[key]
  } catch {
    return undefined
  }
}

const toNumber = (digits: string | undefined): number | undefined => {
  if (digits === undefined) return undefined
  const n = Number(digits.replace(/[,_]/g, ""))
  return Number.isSafeInteger(n) ? n : undefined
}

const firstMatch = (texts: ReadonlyArray<string>, pattern: RegExp): RegExpExecArray | undefined => {
  for (const text of texts) {
    const match = pattern.exec(text)
    if (match !== null) return match
  }
  return undefined
}

/**
 * OpenAI (Chat Completions and Responses): error code
 * `context_length_exceeded`, or "This model's maximum context length is M
 * tokens. However, your messages resulted in N tokens".
 *
 * @example
 * ```ts
 * import { Overflow } from "rollmem"
 *
 * Overflow.openAI({ code: "context_length_exceeded", message: "This model's maximum context length is 128000 tokens." })
 * // { provider: "openai", maxTokens: 128000, ... }
 * ```
 *
 * @since 0.3.0
 * @category recognizers
 */
export const openAI: Recognizer = (error) => {
  const texts = textsOf(error)
  const limit = firstMatch(texts, /maximum context length is ([\d,]+) tokens/i)
  const coded = texts.some((text) => text === "context_length_exceeded")
  if (limit === undefined && !coded) return undefined
  const requested = firstMatch(texts, /(?:resulted in|requested) ([\d,]+) tokens/i)
  return {
    provider: "openai",
    requestedTokens: toNumber(requested?.[1]),
    maxTokens: toNumber(limit?.[1]),
    message: (limit ?? requested)?.input ?? texts[0] ?? "context_length_exceeded"
  }
}

/**
 * Anthropic: `invalid_request_error` "prompt is too long: N tokens > M
 * maximum".
 *
 * @example
 * ```ts
 * import { Overflow } from "rollmem"
 *
 * Overflow.anthropic(new Error("prompt is too long: 210000 tokens > 200000 maximum"))
 * // { provider: "anthropic", requestedTokens: 210000, maxTokens: 200000, ... }
 * ```
 *
 * @since 0.3.0
 * @category recognizers
 */
export const anthropic: Recognizer = (error) => {
  const texts = textsOf(error)
  const match = firstMatch(texts, /prompt is too long(?:: ([\d,]+) tokens > ([\d,]+) maximum)?/i)
  if (match === undefined) return undefined
  return {
    provider: "anthropic",
    requestedTokens: toNumber(match[1]),
    maxTokens: toNumber(match[2]),
    message: match.input
  }
}

/**
 * Gemini: `INVALID_ARGUMENT` "The input token count (N) exceeds the maximum
 * number of tokens allowed (M)".
 *
 * @example
 * ```ts
 * import { Overflow } from "rollmem"
 *
 * Overflow.gemini(new Error("The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."))
 * // { provider: "gemini", requestedTokens: 1200000, maxTokens: 1048576, ... }
 * ```
 *
 * @since 0.3.0
 * @category recognizers
 */
export const gemini: Recognizer = (error) => {
  const texts = textsOf(error)
  const match = firstMatch(
    texts,
    /input token count(?: \(| is )?([\d,]+)\)? exceeds the maximum number of tokens allowed(?: \(| is )?([\d,]+)?/i
  )
  if (match === undefined) return undefined
  return {
    provider: "gemini",
    requestedTokens: toNumber(match[1]),
    maxTokens: toNumber(match[2]),
    message: match.input
  }
}

/**
 * The recognizers tried by default, in order: {@link openAI},
 * {@link anthropic}, {@link gemini}. `@effect/ai` and AI SDK errors carry
 * the provider's body, so the same recognizers read them.
 *
 * @example
 * ```ts
 * import { Overflow } from "rollmem"
 *
 * // a recognizer of your own gateway's message, tried after the built-in ones
 * const mine: Overflow.Recognizer = (error) =>
 *   String(error).includes("CONTEXT_TOO_BIG")
 *     ? { provider: "gateway", requestedTokens: undefined, maxTokens: undefined, message: String(error) }
 *     : undefined
 * Overflow.recognize(new Error("CONTEXT_TOO_BIG"), [...Overflow.defaultRecognizers, mine])
 * ```
 *
 * @since 0.3.0
 * @category recognizers
 */
export const defaultRecognizers: ReadonlyArray<Recognizer> = [openAI, anthropic, gemini]

/**
 * The first recognizer's reading of `error`, or `undefined` when none
 * recognizes it.
 *
 * @example
 * ```ts
 * import { Overflow } from "rollmem"
 *
 * const error = new Error("400 prompt is too long: 210000 tokens > 200000 maximum")
 * Overflow.recognize(error)
 * // { provider: "anthropic", requestedTokens: 210000, maxTokens: 200000, message: "400 prompt is too long: ..." }
 * ```
 *
 * @since 0.3.0
 * @category recognizers
 */
export const recognize = (
  error: unknown,
  recognizers: ReadonlyArray<Recognizer> = defaultRecognizers
): Overflow | undefined => {
  for (const recognizer of recognizers) {
    const overflow = recognizer(error)
    if (overflow !== undefined) return overflow
  }
  return undefined
}
