/**
 * Counting a very long text piece by piece, with the same count as the whole
 * text (docs/contract.md section 3): the tokenizer libraries count by
 * encoding, which builds an array of every token (a 50 MB turn gives one of
 * about 10 million numbers, hundreds of megabytes), so a text over
 * {@link PIECE_CHARS} characters is counted in pieces of about that size.
 *
 * A piece is cut before a space that follows a character that is not
 * whitespace. Every pre-tokenizer rollmem counts with (o200k_base,
 * cl100k_base, Claude's) splits a text into pieces by a regular expression
 * whose matches hold a space only at their start (or are whitespace alone),
 * and read nothing behind them: such a position always starts a match, and
 * the matches before it are those of the text that ends there. So the sum
 * over the pieces is the count of the whole text, and a special token's text
 * (`<|endoftext|>`, no space in it) is never cut. A text with no such space
 * after the first {@link PIECE_CHARS} characters is counted whole.
 *
 * @example
 * ```ts
 * const words = (text: string) => text.split(" ").filter((w) => w !== "").length
 * countInPieces(words, "one two three four", 5) // 4, counting "one two", " three", " four"
 * ```
 *
 * @since 0.4.0
 * @internal
 */

/**
 * The longest text counted in one call: 65,536 characters.
 *
 * @since 0.4.0
 * @category constants
 */
export const PIECE_CHARS = 65_536

const whitespace = /\s/

/**
 * `count(text)`, computed as the sum of `count` over pieces of about `size`
 * characters (default {@link PIECE_CHARS}) cut where every pre-tokenizer
 * cuts: `count` must be a tokenizer's count (see the module's description).
 * A text of `size` characters or fewer is counted in one call.
 *
 * @since 0.4.0
 * @category combinators
 */
export const countInPieces = (count: (text: string) => number, text: string, size: number = PIECE_CHARS): number => {
  if (text.length <= size) return count(text)
  let total = 0
  let start = 0
  while (text.length - start > size) {
    let cut = text.indexOf(" ", start + size)
    while (cut > 0 && whitespace.test(text[cut - 1])) cut = text.indexOf(" ", cut + 1)
    if (cut < 0) break
    total += count(text.slice(start, cut))
    start = cut
  }
  return total + count(text.slice(start))
}
