/**
 * The extractive summarizer's gist lines as first written (0.1.0): every
 * text flattened and split whole. The model the streaming implementation in
 * src/layers/ExtractiveSummarizer.ts must equal, byte for byte, on every
 * input whose opening sentence is within 1,000 characters; since 0.4.0 a
 * grapheme of a script written without spaces, or an emoji, counts as one
 * word toward the 30-word cap (0.1.0's lines on text without them).
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { clip } from "../../src/internal/text.js"
import type { Message } from "../../src/schema/Message.js"

const SENTENCE_WORDS = 30
const KEY_TERMS = 8
const TERM_CHARS = 40
const VALUE_CHARS = 30
const ARGUMENTS_CHARS = 100
const RESULT_CHARS = 120
const ELLIPSIS = "…"

// Cut between graphemes: never half an emoji, never a letter without its accent.
const clipChars = (text: string, max: number): string => clip(text, max, ELLIPSIS)

/** Markdown markers and runs of whitespace removed, one line. */
const flatten = (text: string): string =>
  text
    .replace(/\*\*|__|`/g, "")
    .replace(/^[ \t]*(?:#{1,6}[ \t]+|[-*+][ \t]+|\d+\.[ \t]+)/gm, "")
    .replace(/\s+/g, " ")
    .trim()

/**
 * Splits `text` at its first sentence end (`.`, `!` or `?` followed by a
 * space or the end, or a line break).
 */
const splitFirstSentence = (text: string): readonly [first: string, rest: string] => {
  const end = /[.!?]+(?=\s|$)|\n/.exec(text)
  if (end === null) return [text, ""]
  const cut = end.index + end[0].length
  return [text.slice(0, end[0] === "\n" ? end.index : cut), text.slice(cut)]
}

const MIN_HEAD_WORDS = 6

/**
 * The first sentence of `content` (followed by the next ones while it is
 * shorter than 6 words: "Great!" alone says little), cut to 30 words, and
 * the text after it.
 */
const firstSentence = (content: string): { readonly head: string; readonly rest: string } => {
  let rest = content.replace(/^\s*(?:#{1,6}[ \t]+)?/, "")
  // each counted word with what joins it to the one before: " " between spaced words, "" inside a word
  const words: Array<{ readonly join: string; readonly text: string }> = []
  while (rest.trim() !== "" && words.length < MIN_HEAD_WORDS) {
    const [first, after] = splitFirstSentence(rest)
    for (const word of flatten(first).split(" ")) {
      if (word !== "") words.push(...counted(word, words.length === 0 ? "" : " "))
    }
    rest = after
  }
  const kept = words.slice(0, SENTENCE_WORDS).map(({ join, text }) => `${join}${text}`).join("")
  return { head: words.length > SENTENCE_WORDS ? `${kept}${ELLIPSIS}` : kept, rest }
}

/**
 * A grapheme of a script written without spaces (Han, kana, Thai, Lao,
 * Khmer, Myanmar) or shown as an emoji: one word each (0.4.0; 0.1.0 counted
 * a spaced word whole).
 */
const UNSPACED =
  /(?:[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Thai}\p{scx=Lao}\p{scx=Khmer}\p{scx=Myanmar}\p{Emoji_Presentation}\p{Regional_Indicator}]|\p{Extended_Pictographic}\uFE0F)/u
const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" })

/** The counted words of one spaced word: each grapheme of {@link UNSPACED}, each run of other graphemes. */
const counted = (word: string, join: string): Array<{ readonly join: string; readonly text: string }> => {
  const units: Array<{ join: string; text: string }> = []
  let run: { join: string; text: string } | undefined
  for (const { segment } of segmenter.segment(word)) {
    if (UNSPACED.test(segment)) {
      units.push({ join: units.length === 0 ? join : "", text: segment })
      run = undefined
    } else if (run !== undefined) run.text += segment
    else {
      run = { join: units.length === 0 ? join : "", text: segment }
      units.push(run)
    }
  }
  return units
}

const TRAILING = /^[("'[{<]+|[)"'\]}>,.;:!?]+$/g
const STOP_CAPS = new Set(["I", "OK", "AM", "PM", "ID", "FAQ"])

/**
 * Key terms of a text: words with a digit, identifiers with `_`, all-caps
 * codes, capitalized words that do not open a sentence; first occurrence
 * order, without duplicates or terms already in `seen`.
 */
const keyTerms = (text: string, seen: string): Array<string> => {
  const terms: Array<string> = []
  const found = new Set<string>()
  const push = (term: string): void => {
    if (terms.length < KEY_TERMS && !found.has(term) && !seen.includes(term)) {
      found.add(term)
      terms.push(term)
    }
  }
  // A run of capitalized words that do not open the sentence is one name ("New York").
  let name: Array<string> = []
  const flushName = (): void => {
    if (name.length > 0) push(name.join(" "))
    name = []
  }
  for (const sentence of text.split(/(?<=[.!?:])\s+|\n+/)) {
    const words = flatten(sentence).split(" ")
    for (let i = 0; i < words.length && terms.length < KEY_TERMS; i++) {
      const word = words[i].replace(TRAILING, "")
      if (i > 0 && /^[A-Z][a-z]{2,}$/.test(word)) {
        name.push(word)
        if (word !== words[i]) flushName()
        continue
      }
      flushName()
      if (word.length < 2 || word.length > TERM_CHARS) continue
      if (/\d/.test(word) || /[A-Za-z]_[A-Za-z0-9]/.test(word) || (/^[A-Z]{2,}$/.test(word) && !STOP_CAPS.has(word))) {
        push(word)
      }
    }
    flushName()
  }
  return terms
}

const textGist = (content: string): string => {
  const { head, rest } = firstSentence(content)
  const terms = keyTerms(rest, head)
  return terms.length === 0 ? head : head === "" ? terms.join(", ") : `${head} [${terms.join(", ")}]`
}

const decodeJson = Schema.decodeUnknownOption(Schema.parseJson())

/** The JSON value of a text that holds an object or an array, if it parses. */
const parseJson = (text: string): { readonly value: unknown } | undefined => {
  const trimmed = text.trim()
  if (!(trimmed.startsWith("{") || trimmed.startsWith("["))) return undefined
  return Option.match(decodeJson(trimmed), { onNone: () => undefined, onSome: (value) => ({ value }) })
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** A short form of a JSON value: scalars as they are (strings cut), one level of objects as `{k=v, ...}`. */
const shortValue = (value: unknown, nested: boolean): string => {
  if (value === null) return "null"
  if (Array.isArray(value)) return `[${value.length}]`
  if (isRecord(value)) {
    return nested ? "{…}" : clipChars(`{${entries(value, true).join(", ")}}`, 2 * VALUE_CHARS)
  }
  if (typeof value === "string") return clipChars(flatten(value), VALUE_CHARS)
  return String(value)
}

const entries = (value: Record<string, unknown>, nested: boolean): Array<string> =>
  Object.keys(value).map((key) => `${key}=${shortValue(value[key], nested)}`)

/**
 * `k=v, ...` for an object's entries; `N items` and the first item for an
 * array; a short form of any other JSON value.
 */
const shortJson = (value: unknown, max: number): string => {
  if (isRecord(value)) return clipChars(entries(value, false).join(", "), max)
  if (Array.isArray(value)) {
    const count = `${value.length} item${value.length === 1 ? "" : "s"}`
    if (value.length === 0) return count
    const first = value[0]
    const shown = isRecord(first)
      ? `, first: ${entries(first, false).join(", ")}`
      : Array.isArray(first)
      ? ""
      : `: ${value.map((v) => shortValue(v, true)).join(", ")}`
    return clipChars(`${count}${shown}`, max)
  }
  return clipChars(shortValue(value, true), max)
}

const callGist = (name: string, args: string): string => {
  const parsed = parseJson(args)
  const shown = parsed !== undefined
    ? shortJson(parsed.value, ARGUMENTS_CHARS)
    : clipChars(flatten(args), ARGUMENTS_CHARS)
  return `→ ${name}(${shown})`
}

const resultGist = (content: string): string => {
  const parsed = parseJson(content)
  return parsed !== undefined ? shortJson(parsed.value, RESULT_CHARS) : clipChars(textGist(content), RESULT_CHARS)
}

/** The gist lines of `messages`, oldest first (see the module docs of ExtractiveSummarizer). */
export const gists = (messages: ReadonlyArray<Message>): Array<string> => {
  const callNames = new Map<string, string>()
  for (const message of messages) for (const call of message.toolCalls) callNames.set(call.id, call.name)
  const lines: Array<string> = []
  for (const message of messages) {
    const parts: Array<string> = []
    if (message.toolCallId !== undefined) {
      if (message.content.trim() !== "") parts.push(resultGist(message.content))
    } else if (message.content.trim() !== "") {
      parts.push(textGist(message.content))
    }
    for (const call of message.toolCalls) parts.push(callGist(call.name, call.arguments))
    const body = parts.filter((part) => part !== "").join(" ")
    if (body === "") continue
    const name = message.toolCallId === undefined ? undefined : callNames.get(message.toolCallId)
    lines.push(`${message.role}${name === undefined ? "" : ` ${name}`}: ${body}`)
  }
  return lines
}
