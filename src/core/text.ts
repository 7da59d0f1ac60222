/**
 * Cutting text without breaking a character, once for both lines (pure, no
 * `effect` import): the longest prefix that ends on a grapheme boundary.
 * Lengths are in UTF-16 code units (`string.length`); a cut never leaves
 * half of a surrogate pair, never separates a combining mark from its base
 * letter and never splits an emoji sequence.
 *
 * @since 0.4.0
 */

/** The grapheme segmenter every cut uses. @internal */
export const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" })

/**
 * The longest prefix of `text` of at most `length` code units that ends on a
 * grapheme boundary; `text` itself when it fits. Cost: proportional to
 * `length`, whatever the text's size.
 *
 * @internal
 */
export const prefix = (text: string, length: number): string => {
  if (text.length <= length) return text
  if (length <= 0) return ""
  // Whether `length` is a boundary depends on the code point starting there
  // (a combining mark, a low surrogate) and on what precedes it, never on more.
  let end = 0
  for (const { index } of graphemes.segment(text.slice(0, length + 2))) {
    if (index > length) break
    end = index
  }
  return text.slice(0, end)
}
