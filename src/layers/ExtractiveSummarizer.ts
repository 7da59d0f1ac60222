/**
 * A deterministic extractive summarizer: a baseline `Summarizer` that needs no
 * model, no network and no API key.
 *
 * It is **not** an LLM and does not paraphrase or reason. For each evicted
 * turn it keeps one line of gist, built from the turn's own words:
 *
 * - the role, then the first sentence of the content (with the next ones while
 *   it is under 6 words, cut at 30 words and at 1,000 characters: a "word" of
 *   megabytes, a line with no space, is cut between two graphemes). Each
 *   grapheme of a script written without spaces (Han, Hiragana, Katakana,
 *   Thai, Lao, Khmer, Myanmar) and each emoji (a ZWJ family, a flag: one
 *   grapheme) counts as one word, so a line of CJK or emoji keeps at most 30
 *   of them, as a spaced line keeps 30 words;
 * - up to 8 key terms from the rest of the content: words with digits (order
 *   numbers, prices, dates), identifiers (`omar_rossi_1241`), all-caps codes
 *   (`SEA`) and capitalized names that do not open a sentence;
 * - each tool call as `→ name(key=value, ...)`, arguments shortened;
 * - each tool result as `tool <name of the call>: ...`, a JSON result shortened
 *   to its top-level fields, any other result to its first sentence.
 *
 * Each line is built in time linear in its turn, reading each text once and
 * only as far as the line needs (the key terms: until 8 are found), and
 * holding no more than one line of the text at a time besides the line.
 * Turns with nothing to keep (an empty tool result) give no line. The new
 * lines are appended to the existing summary (one gist per line); while the
 * summary is over its budget (the smaller of `maxTokens` and the memory's
 * `maxSummaryTokens`, counted with the memory's token counter: both come in
 * the fold's `Summarizer.Request`), the oldest line is dropped; a single line still over budget is cut at a word
 * boundary, or between two characters inside a word longer than 40
 * characters, a word of CJK or emoji or a line of one word (a CJK sentence
 * has no spaces). The
 * summary therefore never exceeds the budget, and never fails the memory's
 * `maxSummaryTokens` check. Every cut falls between two
 * characters as a reader sees them (grapheme boundaries): never half of an
 * emoji's surrogate pair, never a combining accent without its letter.
 *
 * With summary segments on (`request.mode`, docs/contract.md section
 * 10.9) a segment holds the evicted turns' lines alone, fitted the same way,
 * and a consolidation fits the segments' lines (the oldest dropped first):
 * it declares `honoursMode`.
 *
 * Use it to try strategies and budgets, as a fallback when a model call fails,
 * or in tests; use a model-backed summarizer for quality summaries.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { ExtractiveSummarizer, Message, RollingMemory } from "rollmem"
 * import * as Tokenizers from "rollmem/tokenizers"
 *
 * // The summarizer counts its budget with the memory's counter (o200k_base here):
 * const program = Effect.gen(function*() {
 *   const memory = yield* RollingMemory.make({ maxTokens: 2000, maxSummaryTokens: 300 })
 *   yield* memory.add(Message.user("My order 48213 never arrived."))
 *   return yield* memory.messages
 * }).pipe(Effect.provide(Layer.merge(ExtractiveSummarizer.layer(), Tokenizers.layerByName("o200k_base"))))
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Rules from "../core/options.js"
import { graphemes } from "../core/text.js"
import { ConfigError, SummarizerError, TokenCountError } from "../Errors.js"
import { clip, prefix } from "../internal/text.js"
import type { Message } from "../schema/Message.js"
import * as Summarizer from "../services/Summarizer.js"
import * as TokenCounter from "../services/TokenCounter.js"

/**
 * The default budget of the summary: 400 tokens.
 *
 * @example
 * ```ts
 * import { ExtractiveSummarizer } from "rollmem"
 *
 * ExtractiveSummarizer.DEFAULT_MAX_TOKENS // 400: the summary's budget without maxTokens
 * ```
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_MAX_TOKENS = 400

/**
 * Options of the extractive summarizer.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * Most tokens the summary may hold, counted with the memory's token
   * counter: a positive integer, default {@link DEFAULT_MAX_TOKENS}. A
   * memory's smaller `maxSummaryTokens` wins.
   */
  readonly maxTokens?: number | undefined
}

const SENTENCE_WORDS = 30
const KEY_TERMS = 8
const TERM_CHARS = 40
const VALUE_CHARS = 30
const ARGUMENTS_CHARS = 100
const RESULT_CHARS = 120
const ELLIPSIS = "…"

// Cut between graphemes: never half an emoji, never a letter without its accent.
const clipChars = (text: string, max: number): string => clip(text, max, ELLIPSIS)

/** A line break as a regular expression's `^` sees one (`m` flag). */
const LINE_BREAK = /[\n\r\u2028\u2029]/g
const MARKERS = /\*\*|__|`/g
const LINE_MARKER = /^[ \t]*(?:#{1,6}[ \t]+|[-*+][ \t]+|\d+\.[ \t]+)/
const WORD = /\S+/g

/**
 * The words of `text` with markdown markers removed (`**`, `__`, backticks,
 * a heading or list marker opening a line), in order, found one at a time:
 * the words of the text's flat form (markers removed, runs of whitespace as
 * one space, trimmed). Each line is copied once at most; nothing is held for
 * words not yet asked for.
 */
function* words(text: string): Generator<string, void, undefined> {
  const breaks = new RegExp(LINE_BREAK)
  let start = 0
  while (start <= text.length) {
    const found = breaks.exec(text)
    const end = found === null ? text.length : found.index
    const line = text.slice(start, end).replace(MARKERS, "").replace(LINE_MARKER, "")
    const word = new RegExp(WORD)
    for (let match = word.exec(line); match !== null; match = word.exec(line)) yield match[0]
    if (found === null) return
    start = end + 1
  }
}

/**
 * `parts` joined by `separator`, read only until the text is longer than
 * `limit` + 2 characters: what {@link clipChars} at `limit` keeps of the
 * whole join is the same.
 */
const joinUpTo = (parts: Iterable<string>, separator: string, limit: number): string => {
  let text = ""
  let first = true
  for (const part of parts) {
    text = first ? part.slice(0, limit + 3) : `${text}${separator}${part.slice(0, limit + 3)}`
    first = false
    if (text.length > limit + 2) return text
  }
  return text
}

/** The flat form of `text` (see {@link words}) as far as {@link clipChars} at `limit` needs it. */
const flatUpTo = (text: string, limit: number): string => joinUpTo(words(text), " ", limit)

/**
 * Splits `text` at its first sentence end (`.`, `!` or `?` followed by a
 * space or the end, or a line break). Both parts are slices: nothing is
 * copied.
 */
const splitFirstSentence = (text: string): readonly [first: string, rest: string] => {
  const end = /[.!?]+(?=\s|$)|\n/.exec(text)
  if (end === null) return [text, ""]
  const cut = end.index + end[0].length
  return [text.slice(0, end[0] === "\n" ? end.index : cut), text.slice(cut)]
}

const MIN_HEAD_WORDS = 6

/**
 * The most characters a line's opening sentence keeps (cut between two
 * graphemes): 30 words of ordinary text are far shorter, a "word" of
 * megabytes (a line with no space, a base64 blob) is not.
 */
const HEAD_CHARS = 1000

/**
 * A grapheme of a script written without spaces between words (Han, with
 * the kana, Thai, Lao, Khmer and Myanmar: `Script_Extensions`, so the
 * kana's `ー` and the CJK full stop count too) or an emoji (a pictograph
 * shown as an emoji, a flag): each counts as one word toward the 30-word
 * cap, as a spaced word does. Korean is written with spaces: its words
 * count as any other. `©`, `®` and `™` shown as text are not emoji.
 */
const UNSPACED =
  /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Thai}\p{scx=Lao}\p{scx=Khmer}\p{scx=Myanmar}\p{Emoji_Presentation}\p{Regional_Indicator}]|\p{Extended_Pictographic}\uFE0F/u

/**
 * The first sentence of `content` (followed by the next ones while it is
 * shorter than 6 words: "Great!" alone says little), cut to 30 words and
 * 1,000 characters, and the text after it. A word holding graphemes of
 * {@link UNSPACED} counts each of them as one word, and each run of other
 * characters between them as one (`東京Tower` is 3): a line of CJK or emoji
 * is cut after its 30th such grapheme, as a spaced line after its 30th
 * word. Only the words kept are read; a word is read no further than its
 * first 1,003 characters.
 */
const firstSentence = (content: string): { readonly head: string; readonly rest: string } => {
  let rest = content.replace(/^\s*(?:#{1,6}[ \t]+)?/, "")
  const kept: Array<string> = []
  // words counted so far; whether a word past the 30th says the sentence was cut
  let count = 0
  let cut = false
  while (/\S/.test(rest) && count < MIN_HEAD_WORDS) {
    const [first, after] = splitFirstSentence(rest)
    for (const word of words(first)) {
      if (count >= SENTENCE_WORDS) {
        cut = true
        break
      }
      const short = word.length > HEAD_CHARS ? word.slice(0, HEAD_CHARS + 3) : word
      if (!UNSPACED.test(short)) {
        kept.push(short)
        count++
        continue
      }
      let text = ""
      let inRun = false
      for (const { segment } of graphemes.segment(short)) {
        const alone = UNSPACED.test(segment)
        if (alone || !inRun) {
          if (count >= SENTENCE_WORDS) {
            cut = true
            break
          }
          count++
        }
        inRun = !alone
        text += segment
      }
      kept.push(text)
      if (cut) break
    }
    rest = after
  }
  const head = cut ? `${kept.join(" ")}${ELLIPSIS}` : kept.join(" ")
  return { head: clipChars(head, HEAD_CHARS), rest }
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
  // Sentences and their words are found one at a time, and only until 8 terms are found.
  const ends = new RegExp(SENTENCE_END)
  let start = 0
  while (terms.length < KEY_TERMS && start <= text.length) {
    const end = ends.exec(text)
    const sentence = text.slice(start, end === null ? text.length : end.index)
    let i = 0
    for (const raw of words(sentence)) {
      if (terms.length >= KEY_TERMS) break
      const word = raw.replace(TRAILING, "")
      if (i++ > 0 && /^[A-Z][a-z]{2,}$/.test(word)) {
        name.push(word)
        if (word !== raw) flushName()
        continue
      }
      flushName()
      if (word.length < 2 || word.length > TERM_CHARS) continue
      if (/\d/.test(word) || /[A-Za-z]_[A-Za-z0-9]/.test(word) || (/^[A-Z]{2,}$/.test(word) && !STOP_CAPS.has(word))) {
        push(word)
      }
    }
    flushName()
    if (end === null) break
    start = end.index + end[0].length
  }
  return terms
}

/** Where one sentence of the key-term text ends: after `.`, `!`, `?` or `:` and whitespace, or at line breaks. */
const SENTENCE_END = /(?<=[.!?:])\s+|\n+/g

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
    return nested ? "{…}" : clipChars(`{${joinUpTo(entries(value, true), ", ", 2 * VALUE_CHARS)}}`, 2 * VALUE_CHARS)
  }
  if (typeof value === "string") return clipChars(flatUpTo(value, VALUE_CHARS), VALUE_CHARS)
  return String(value)
}

/** `key=value` for each entry of an object, in order, made one at a time (read them through {@link joinUpTo}). */
function* entries(value: Record<string, unknown>, nested: boolean): Generator<string, void, undefined> {
  for (const key in value) {
    if (Object.hasOwn(value, key)) yield `${key}=${shortValue(value[key], nested)}`
  }
}

/** The short form of each item of an array, made one at a time. */
function* shortValues(values: ReadonlyArray<unknown>): Generator<string, void, undefined> {
  for (const value of values) yield shortValue(value, true)
}

/**
 * `k=v, ...` for an object's entries; `N items` and the first item for an
 * array; a short form of any other JSON value.
 */
const shortJson = (value: unknown, max: number): string => {
  if (isRecord(value)) return clipChars(joinUpTo(entries(value, false), ", ", max), max)
  if (Array.isArray(value)) {
    const count = `${value.length} item${value.length === 1 ? "" : "s"}`
    if (value.length === 0) return count
    const first = value[0]
    const shown = isRecord(first)
      ? `, first: ${joinUpTo(entries(first, false), ", ", max)}`
      : Array.isArray(first)
      ? ""
      : `: ${joinUpTo(shortValues(value), ", ", max)}`
    return clipChars(`${count}${shown}`, max)
  }
  return clipChars(shortValue(value, true), max)
}

const callGist = (name: string, args: string): string => {
  const parsed = parseJson(args)
  const shown = parsed !== undefined
    ? shortJson(parsed.value, ARGUMENTS_CHARS)
    : clipChars(flatUpTo(args, ARGUMENTS_CHARS), ARGUMENTS_CHARS)
  return `→ ${name}(${shown})`
}

const resultGist = (content: string): string => {
  const parsed = parseJson(content)
  return parsed !== undefined ? shortJson(parsed.value, RESULT_CHARS) : clipChars(textGist(content), RESULT_CHARS)
}

/**
 * The gist lines of `messages`, oldest first: one line per message that has
 * something to keep (see the module docs for what a line holds). Pure and
 * deterministic. A tool result is named after the call it answers when that
 * call is among `messages`.
 *
 * @example
 * ```ts
 * import { ExtractiveSummarizer, Message } from "rollmem"
 *
 * ExtractiveSummarizer.gists([
 *   Message.user("The parcel with order 48213 never arrived at my flat. I paid $39.90 to Acme Shipping in New York.")
 * ])
 * // ["user: The parcel with order 48213 never arrived at my flat. [$39.90, Acme Shipping, New York]"]
 * ```
 *
 * @since 0.1.0
 * @category combinators
 */
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

/**
 * The lines of `existing` (a summary, one gist per line) followed by
 * `added`, with the oldest lines dropped while the summary is over
 * `maxTokens`, and a last line still over budget cut at a word boundary or,
 * inside a word longer than 40 characters, a word holding CJK or emoji
 * ({@link UNSPACED}) or a line of one word, between two graphemes.
 */
const fit = (
  counter: TokenCounter.Service,
  maxTokens: number,
  lines: Array<string>
): Effect.Effect<string, TokenCountError> =>
  Effect.gen(function*() {
    let start = 0
    while (start < lines.length) {
      const text = lines.slice(start).join("\n")
      if ((yield* TokenCounter.countText(counter, text)) <= maxTokens) return text
      start++
    }
    if (lines.length === 0) return ""
    // Only reached when the newest line alone is over budget: keep its longest prefix that fits.
    const words = lines[lines.length - 1].split(" ")
    let low = 0
    let high = words.length - 1
    while (low < high) {
      const mid = Math.ceil((low + high) / 2)
      if ((yield* TokenCounter.countText(counter, `${words.slice(0, mid).join(" ")} ${ELLIPSIS}`)) <= maxTokens) {
        low = mid
      } else high = mid - 1
    }
    // The next word may be a whole sentence (CJK has no spaces, a URL, a line with no space at all):
    // then keep its longest prefix that fits, cut between two graphemes.
    const kept = words.slice(0, low).join(" ")
    const next = words[low]
    if (words.length === 1 || next.length > TERM_CHARS || UNSPACED.test(next)) {
      const lead = kept === "" ? "" : `${kept} `
      let keep = 0
      let longest = next.length - 1
      while (keep < longest) {
        const mid = Math.ceil((keep + longest) / 2)
        if ((yield* TokenCounter.countText(counter, `${lead}${prefix(next, mid)}${ELLIPSIS}`)) <= maxTokens) keep = mid
        else longest = mid - 1
      }
      const part = prefix(next, keep)
      if (part !== "") return `${lead}${part}${ELLIPSIS}`
    }
    return low === 0 ? "" : `${kept} ${ELLIPSIS}`
  })

/**
 * Builds the extractive summarizer. Each call counts with the memory's token
 * counter and fits the smaller of `maxTokens` and the memory's
 * `maxSummaryTokens`, both read from the call's `Summarizer.Request`, so the
 * summarizer needs no `TokenCounter` of its own. Fails with `ConfigError`
 * when `maxTokens` is not a positive integer. A token counter failure during
 * a call fails that call with `SummarizerError` carrying it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ExtractiveSummarizer, Message, RollingMemory, Summarizer } from "rollmem"
 *
 * const program = Effect.gen(function*() {
 *   const summarizer = yield* ExtractiveSummarizer.make({ maxTokens: 200 }) // ConfigError for a bad budget
 *   const memory = yield* RollingMemory.make({ maxTokens: 2000 }).pipe(
 *     Effect.provideService(Summarizer.Summarizer, summarizer)
 *   )
 *   yield* memory.add(Message.user("Order 48213 never arrived."))
 * })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options?: Options): Effect.Effect<Summarizer.Service, ConfigError> =>
  Effect.gen(function*() {
    const ownBudget = options?.maxTokens ?? DEFAULT_MAX_TOKENS
    const wrong = Rules.positiveInteger(ownBudget)
    if (wrong !== undefined) return yield* new ConfigError({ option: "maxTokens", description: wrong })
    return Summarizer.Summarizer.of({
      // it honours request.mode (docs/contract.md section 10.9): a segment is the new turns' lines alone
      honoursMode: true,
      summarize: (summary, messages, request) =>
        Effect.suspend(() => {
          const lines = request.mode === "segment" ? [] : summary.split("\n").filter((line) => line.trim() !== "")
          for (const line of gists(messages)) lines.push(line)
          const max = request.maxSummaryTokens
          return fit(request.counter, max === undefined ? ownBudget : Math.min(ownBudget, max), lines)
        }).pipe(
          Effect.mapError((cause) => new SummarizerError({ description: cause.message, cause }))
        )
    })
  })

/**
 * Provides the extractive summarizer (see {@link make}). It needs nothing:
 * it counts with the counter of the memory that calls it, so providing the
 * tokenizer layer beside it (`Layer.merge`) or to it gives the same counts.
 * Fails with `ConfigError`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ExtractiveSummarizer, RollingMemory } from "rollmem"
 *
 * const program = RollingMemory.make().pipe(Effect.provide(ExtractiveSummarizer.layer()))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<Summarizer.Summarizer, ConfigError> =>
  Layer.effect(Summarizer.Summarizer, make(options))
