/**
 * Tool results cut at the door (docs/contract.md section 10.8): a tool
 * result counted over `maxToolResultTokens` when it is added keeps the head
 * and the tail of its content with a marker between them saying how many
 * tokens were cut, before any request has sent it (so no cached prefix is
 * lost). Pure: no Effect import; the memory drives the attempts with its own
 * counter ({@link start}, then {@link next} with each attempt's count).
 *
 * The cut is planned in the counter's tokens and made in characters: an
 * attempt that keeps `keep` of the original's `tokens` keeps the share
 * `keep / tokens` of the content's UTF-16 code units, the head's half
 * rounded up, never splitting a surrogate pair, and its marker says
 * `tokens - keep` were cut. The first attempt keeps `max` tokens' worth; an
 * attempt counted over `max` is followed by one keeping `keep - (count - max)`
 * (at least 0), at most {@link MAX_ATTEMPTS} attempts in all, the last one
 * keeping nothing but the marker.
 *
 * @example
 * ```ts
 * import { ToolResults } from "rollmem"
 *
 * // 10 tokens' worth of "abcdefghijklmnopqrst" (20 characters), 4 kept
 * ToolResults.cut("abcdefghijklmnopqrst", 10, 4) // "abcd\n[... 6 tokens cut ...]\nqrst"
 * ```
 *
 * @since 0.4.0
 */

/**
 * The most attempts a cut makes (each one count of the attempt's text): the
 * last keeps only the marker.
 *
 * @example
 * ```ts
 * import { ToolResults } from "rollmem"
 *
 * ToolResults.MAX_ATTEMPTS // 4: the last attempt keeps only the marker
 * ```
 *
 * @since 0.4.0
 * @category constants
 */
export const MAX_ATTEMPTS = 4

/**
 * The marker that stands for the cut part: `[... 1200 tokens cut ...]`
 * (`tokens` in the memory's counter, the original's count less the share
 * kept).
 *
 * @example
 * ```ts
 * import { ToolResults } from "rollmem"
 *
 * ToolResults.marker(1200) // "[... 1200 tokens cut ...]"
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const marker = (tokens: number): string => `[... ${tokens} tokens cut ...]`

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff

/**
 * The content of a result counted `tokens` cut to keep `keep` of them: the
 * head (`ceil(k / 2)` code units, where `k = floor(length * keep / tokens)`),
 * `"\n"`, the {@link marker} of `tokens - keep`, `"\n"`, the tail
 * (`floor(k / 2)` code units); a surrogate pair at either edge is left out
 * whole. `keep` is an integer from 0 to `tokens`; `tokens` is positive.
 *
 * @example
 * ```ts
 * import { ToolResults } from "rollmem"
 *
 * // 10 tokens' worth of "abcdefghijklmnopqrst" (20 characters), 4 kept
 * ToolResults.cut("abcdefghijklmnopqrst", 10, 4) // "abcd\n[... 6 tokens cut ...]\nqrst"
 * ```
 *
 * @since 0.4.0
 * @category combinators
 */
export const cut = (content: string, tokens: number, keep: number): string => {
  const length = content.length
  const kept = Math.min(length, Math.floor(length * keep / tokens))
  let head = Math.ceil(kept / 2)
  let tailStart = length - Math.floor(kept / 2)
  if (head > 0 && isHigh(content.charCodeAt(head - 1))) head--
  if (tailStart < length && isLow(content.charCodeAt(tailStart))) tailStart++
  return `${content.slice(0, head)}\n${marker(tokens - keep)}\n${content.slice(tailStart)}`
}

/**
 * One attempt of a cut: the content to count, how many tokens it keeps,
 * and its number (1 for the first).
 *
 * @since 0.4.0
 * @category models
 */
export interface Attempt {
  readonly content: string
  readonly keep: number
  readonly attempt: number
}

/**
 * The first attempt at cutting `content`, whose message counted `tokens`,
 * to at most `max` tokens: keeping `max` tokens' worth (`tokens > max`).
 *
 * @example
 * ```ts
 * import { ToolResults } from "rollmem"
 *
 * const first = ToolResults.start("abcdefghijklmnopqrst", 10, 4) // keep: 4, attempt: 1
 * first.content // "abcd\n[... 6 tokens cut ...]\nqrst"
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const start = (content: string, tokens: number, max: number): Attempt => ({
  content: cut(content, tokens, max),
  keep: max,
  attempt: 1
})

/**
 * What follows an attempt counted `counted`: `undefined` when it is kept
 * (counted at most `max`, or the last attempt), else the next attempt,
 * keeping `counted - max` tokens fewer (at least 0; the last keeps none).
 *
 * @example
 * ```ts
 * import { ToolResults } from "rollmem"
 *
 * const first = ToolResults.start("abcdefghijklmnopqrst", 10, 4)
 * ToolResults.next("abcdefghijklmnopqrst", 10, 4, first, 6) // counted 6 > 4: the next attempt keeps 2
 * ToolResults.next("abcdefghijklmnopqrst", 10, 4, first, 4) // undefined: the first attempt fits
 * ```
 *
 * @since 0.4.0
 * @category combinators
 */
export const next = (
  content: string,
  tokens: number,
  max: number,
  previous: Attempt,
  counted: number
): Attempt | undefined => {
  if (counted <= max || previous.attempt >= MAX_ATTEMPTS || previous.keep === 0) return undefined
  const attempt = previous.attempt + 1
  const keep = attempt === MAX_ATTEMPTS ? 0 : Math.max(0, previous.keep - (counted - max))
  return { content: cut(content, tokens, keep), keep, attempt }
}
