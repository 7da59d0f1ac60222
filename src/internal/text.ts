/**
 * Cutting text for display and budgets without breaking a character (the
 * summarizers' clipped lines and budget cuts, the command line's columns).
 * Error descriptions cut on code-point boundaries in `schema/ParseIssue.ts`.
 *
 * Lengths are in UTF-16 code units (JavaScript's `string.length`, what
 * bounds a string's size); the cut moves back to the previous grapheme
 * boundary, so it never leaves half of a surrogate pair (an emoji cut in two
 * is a lone `\ud83d` that Python cannot even encode), never separates a
 * combining mark from its base letter, and never splits an emoji sequence
 * (skin tones, flags, ZWJ families). CJK text cuts between any two
 * characters.
 *
 * @internal
 */

import { graphemes, prefix } from "../core/text.js"

export { prefix }

/**
 * The shortest suffix of `text` of at most `length` code units that starts
 * on a grapheme boundary; `text` itself when it fits. Cost: proportional to
 * the text's size.
 *
 * @internal
 */
export const suffix = (text: string, length: number): string => {
  if (text.length <= length) return text
  const from = text.length - length
  for (const { index } of graphemes.segment(text)) {
    if (index >= from) return text.slice(index)
  }
  return ""
}

/**
 * `text` cut to at most `length` code units ending with `ellipsis` (counted
 * in `length`) when it does not fit, on a grapheme boundary, trailing white
 * space dropped before the ellipsis.
 *
 * @internal
 */
export const clip = (text: string, length: number, ellipsis: string = "…"): string =>
  text.length <= length ? text : `${prefix(text, length - ellipsis.length).trimEnd()}${ellipsis}`
