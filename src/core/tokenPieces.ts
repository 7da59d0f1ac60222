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
 * A run of more than {@link RUN_CHARS} characters without whitespace is the
 * one exception to the exact count: a pre-tokenizer makes one piece of it,
 * and byte-pair encoding of one piece takes time growing faster than its
 * length (100,000 `x` took 22 s, 200,000 took 55 s), so such a run is counted
 * in chunks of {@link RUN_CHARS} characters, each cut at a grapheme boundary
 * (never inside a surrogate pair), with the whitespace character before the
 * run counted with its first chunk. Each cut can change the count by a token
 * or two (measured on random base64 and hex, minified JavaScript and a
 * repeated `x`, o200k_base and cl100k_base: docs/contract.md section 3);
 * text without such a run is counted exactly as before.
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

/**
 * The longest run of characters without whitespace counted in one call: 4,096
 * characters. A longer run (base64, a hash list, minified code, a repeated
 * character) is counted in chunks of this many characters: a tokenizer's
 * pre-tokenizer makes one piece of such a run, and byte-pair encoding of one
 * piece takes time growing faster than its length (100,000 `x` took 22 s).
 *
 * @since 0.4.0
 * @category constants
 */
export const RUN_CHARS = 4_096

const whitespace = /\s/

// `/\s/.test(String.fromCharCode(code))`, without making a string.
const isWhitespace = (code: number): boolean =>
  code <= 32
    ? code === 32 || (code >= 9 && code <= 13)
    : code >= 0xa0 &&
      (code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 ||
        code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff)

// Grapheme boundaries are looked for this many characters before a cut.
const GRAPHEME_WINDOW = 64

const segmenter: Intl.Segmenter | undefined = typeof Intl === "object" && typeof Intl.Segmenter === "function"
  ? new Intl.Segmenter(undefined, { granularity: "grapheme" })
  : undefined

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff

/**
 * Where to end a chunk of a run that starts at `start` and wants to end at
 * `end` (`start < end`, inside the text): the last grapheme boundary at most
 * `end` and after `start`, looked for in the {@link GRAPHEME_WINDOW}
 * characters before `end`; without one there (a longer grapheme, or no
 * `Intl.Segmenter`), `end`, moved back one when it would split a surrogate
 * pair (forward one when the pair starts the chunk). Never splits a
 * surrogate pair.
 */
const chunkEnd = (text: string, start: number, end: number): number => {
  if (segmenter !== undefined) {
    const from = Math.max(start, end - GRAPHEME_WINDOW)
    // the window goes on two characters past `end` (one astral character), which show whether a grapheme does
    let boundary = -1
    for (const { index } of segmenter.segment(text.slice(from, end + 2))) {
      const at = from + index
      if (at > end) break
      if (at > from) boundary = at
    }
    if (boundary > start) return boundary
  }
  if (!isLowSurrogate(text.charCodeAt(end)) || !isHighSurrogate(text.charCodeAt(end - 1))) return end
  // a pair: before it, or after it when it starts the chunk
  return end - 1 > start ? end - 1 : end + 1
}

// `count` over the run of non-whitespace `text[start, end)`, in chunks of at most `run` characters.
const countRun = (count: (text: string) => number, text: string, start: number, end: number, run: number): number => {
  let total = 0
  while (end - start > run) {
    const cut = chunkEnd(text, start, start + run)
    total += count(text.slice(start, cut))
    start = cut
  }
  return total + count(text.slice(start, end))
}

// `count(text)`, in pieces of about `size` characters cut before a space that follows a non-whitespace character.
const countSpaced = (count: (text: string) => number, text: string, size: number): number => {
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

/**
 * `count(text)`, computed as the sum of `count` over pieces of about `size`
 * characters (default {@link PIECE_CHARS}) cut where every pre-tokenizer
 * cuts: `count` must be a tokenizer's count (see the module's description).
 * A text of `size` characters or fewer without a run of more than `run`
 * characters (default {@link RUN_CHARS}) without whitespace is counted in one
 * call; such a run is counted in chunks of `run` characters, the whitespace
 * character before it with the first.
 *
 * @since 0.4.0
 * @category combinators
 */
export const countInPieces = (
  count: (text: string) => number,
  text: string,
  size: number = PIECE_CHARS,
  run: number = RUN_CHARS
): number => {
  if (text.length <= run) return countSpaced(count, text, size)
  let total = 0
  let from = 0 // counted up to here
  let runStart = 0 // the current run of non-whitespace starts here
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && !isWhitespace(text.charCodeAt(i))) continue
    if (i - runStart > run) {
      const start = runStart > from ? runStart - 1 : runStart
      if (start > from) total += countSpaced(count, text.slice(from, start), size)
      total += countRun(count, text, start, i, run)
      from = i
    }
    runStart = i + 1
  }
  if (from === 0) return countSpaced(count, text, size)
  return from < text.length ? total + countSpaced(count, text.slice(from), size) : total
}
