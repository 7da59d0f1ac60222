/**
 * Counting without a tokenizer, pure (no `effect` import): the default
 * counter's word count and the check every count passes (docs/contract.md
 * section 3). Both lines' `TokenCounter` modules use them.
 *
 * @since 0.4.0
 */

// Python's str.split() whitespace: U+0009-U+000D, U+001C-U+0020, U+0085, U+00A0,
// U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
const isSpace = (c: number): boolean =>
  c <= 0x20
    ? (c >= 0x09 && c <= 0x0d) || c >= 0x1c
    : c < 0x85
    ? false
    : c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 ||
      c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000

/**
 * The number of runs of non-whitespace characters in `text`, with Python's
 * `str.split()` whitespace set (which differs from JavaScript's `\s`: it has
 * U+001C-U+001F and U+0085 and lacks U+FEFF).
 *
 * @example
 * ```ts
 * wordCount("  hello   world\n") // 2
 * ```
 *
 * @since 0.4.0
 */
export const wordCount = (text: string): number => {
  let words = 0
  let inWord = false
  for (let i = 0; i < text.length; i++) {
    if (isSpace(text.charCodeAt(i))) inWord = false
    else if (!inWord) {
      inWord = true
      words++
    }
  }
  return words
}

/**
 * Whether a count is valid: a non-negative safe integer (at most
 * `Number.MAX_SAFE_INTEGER`, 2^53 - 1: past it, sums of counts are no longer
 * exact).
 *
 * @since 0.4.0
 */
export const isCount = (count: unknown): count is number =>
  typeof count === "number" && Number.isSafeInteger(count) && count >= 0

/**
 * The description of a count a counter returned that is not valid (see
 * {@link isCount}): its value when it is a number, else its type. What
 * `TokenCountError` says on both lines.
 *
 * @example
 * ```ts
 * invalidCount(-1) // "token counter returned -1, not a non-negative integer"
 * invalidCount(2 ** 53) // "token counter returned 9007199254740992, past the largest safe integer (9007199254740991)"
 * ```
 *
 * @since 0.4.0
 */
export const invalidCount = (count: unknown): string =>
  typeof count === "number" && Number.isInteger(count) && count > Number.MAX_SAFE_INTEGER
    ? `token counter returned ${count}, past the largest safe integer (${Number.MAX_SAFE_INTEGER})`
    : `token counter returned ${typeof count === "number" ? String(count) : typeof count}, not a non-negative integer`
