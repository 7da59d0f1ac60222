/**
 * Ranking an archive's messages for a query, pure (no `effect` import): the
 * in-process ranking of every archive that has no full-text search of its own
 * (the in-memory archive, any key-value store), docs/contract.md section 17.
 *
 * - A text's *terms* are its runs of letters and digits, lower-cased
 *   (`src/cli/Measure.ts` is `src`, `cli`, `measure`, `ts`), after NFKC
 *   normalization (`e` + U+0301 is `é`, fullwidth `ＡＢＣ` is `abc`); in
 *   the scripts written without spaces (Han, Hiragana, Katakana, Hangul)
 *   each letter is a term of its own (`漢字を` is `漢`, `字`, `を`).
 * - *BM25* (k1 = 1.2, b = 1) scores a message by the query's distinct
 *   terms: `idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avglen))`
 *   with `idf = ln(1 + (N - df + 0.5) / (df + 0.5))`, over the
 *   conversation's archived messages. (b = 1, full length normalization:
 *   on the long sessions it put the turn a three-word query was taken from
 *   in the top 5 more often than the usual 0.75: 89.5% against 87.6%.)
 * - *Exact artifact matches first*: the query's artifacts (the default
 *   patterns of `artifacts.ts`, section 14.1) are extracted once; a message
 *   that names more of them ranks before one that names fewer, whatever
 *   their scores. A message that names none of the query's terms and none of
 *   its artifacts is no match.
 * - Then the message holding more of the query's distinct terms (`terms`)
 *   ranks first, then the one holding more of the query's words as written
 *   (`cased`: its runs of letters and digits, case kept, found as written in
 *   the message), then the higher score, then the newer message (higher
 *   position). (The words as written: on the long sessions they put the
 *   turn a three-word query was taken from in the top 5 for 90.1%, against
 *   89.5% with the terms alone.)
 *
 * An added message is extracted and indexed once (O(its terms)); a search
 * reads the postings of the query's terms, rarest first, only until `limit`
 * messages hold more of its terms than a message in the postings not read
 * can (a three-word query with one rare word reads that word's postings),
 * and the messages naming its artifacts.
 *
 * @example
 * ```ts
 * import { Recall } from "rollmem"
 *
 * const index = Recall.index()
 * index.add({ position: 0, role: "user", text: "deploy with ./run.sh" })
 * index.add({ position: 1, role: "assistant", text: "the tests in src/cli/Measure.ts fail" })
 * index.search("src/cli/Measure.ts", { limit: 5 }).map((hit) => hit.position) // [1]
 * ```
 *
 * @since 0.4.0
 */
import * as Artifacts from "./artifacts.js"

/**
 * One archived message as the ranking sees it: its position in the
 * conversation, its role and its text (content, then each tool call's
 * `name(arguments)`, as `Retention.textOf` reads a message).
 *
 * @since 0.4.0
 * @category models
 */
export interface Document {
  readonly position: number
  readonly role: string
  readonly text: string
}

/**
 * What a search keeps: at most `limit` matches (a positive integer, default
 * {@link DEFAULT_LIMIT}), only positions below `before` when given, only the
 * roles listed in `roles` when given.
 *
 * @since 0.4.0
 * @category models
 */
export interface Filter {
  readonly limit?: number | undefined
  readonly before?: number | undefined
  readonly roles?: ReadonlyArray<string> | undefined
}

/**
 * A ranked match: the message's position, its BM25 score and how many of the
 * query's artifacts it names (`exact`), which rank first.
 *
 * @since 0.4.0
 * @category models
 */
export interface Hit {
  readonly position: number
  readonly score: number
  readonly exact: number
  /** How many of the query's distinct terms the message holds. */
  readonly terms: number
  /**
   * How many of the query's words as written (its distinct runs of letters
   * and digits, case kept) the message holds as written; 0 where the text
   * is not at hand (the SQL archives' own order).
   */
  readonly cased?: number | undefined
}

/**
 * The number of matches a search returns when no `limit` is given: 5.
 *
 * @example
 * ```ts
 * import { Recall } from "rollmem"
 *
 * Recall.DEFAULT_LIMIT // 5: the matches a search returns without a limit
 * ```
 *
 * @since 0.4.0
 * @category constants
 */
export const DEFAULT_LIMIT = 5

const K1 = 1.2
const B = 1
// a letter of a script written without spaces (Han, Hiragana, Katakana, Hangul): a term of its own
const UNSPACED = "(?=[\\p{L}\\p{N}])[\\p{scx=Han}\\p{scx=Hiragana}\\p{scx=Katakana}\\p{scx=Hangul}]"
// a term: one such letter, or a run of the other letters and digits
const TERM = new RegExp(`${UNSPACED}|(?:(?!${UNSPACED})[\\p{L}\\p{N}])+`, "gu")

/**
 * A text as its terms are read from: NFKC-normalized (composed, and the
 * compatibility forms, fullwidth letters, half-width katakana, ligatures,
 * folded to their usual ones), so every backend indexes and queries the same
 * terms.
 *
 * @example
 * ```ts
 * import { Recall } from "rollmem"
 *
 * Recall.normalize("cafe\u0301 ＡＢＣ") // "café ABC"
 * ```
 *
 * @since 0.4.0
 * @category combinators
 */
export const normalize = (text: string): string => text.normalize("NFKC")

/**
 * The words of a text as written: its distinct runs of letters and digits,
 * case kept (`Read USER spotter` is `Read`, `USER`, `spotter`), which
 * `cased` counts.
 *
 * @example
 * ```ts
 * import { Recall } from "rollmem"
 *
 * Recall.words("src/Spotter.ex and spotter") // Set { "src", "Spotter", "ex", "and", "spotter" }
 * ```
 *
 * @since 0.4.0
 * @category combinators
 */
export const words = (text: string): Set<string> => {
  const out = new Set<string>()
  for (const match of normalize(text).matchAll(TERM)) out.add(match[0])
  return out
}

/**
 * The terms of a text ({@link normalize}d): its runs of letters and digits,
 * lower-cased, in order (repeats kept); in Han, Hiragana, Katakana and Hangul
 * each letter is a term of its own.
 *
 * @example
 * ```ts
 * import { Recall } from "rollmem"
 *
 * Recall.terms("See src/cli/Measure.ts") // ["see", "src", "cli", "measure", "ts"]
 * Recall.terms("漢字を read") // ["漢", "字", "を", "read"]
 * ```
 *
 * @since 0.4.0
 * @category combinators
 */
export const terms = (text: string): Array<string> => {
  const out: Array<string> = []
  for (const match of normalize(text).toLowerCase().matchAll(TERM)) out.push(match[0])
  return out
}

interface Entry {
  readonly position: number
  readonly role: string
  readonly length: number
  readonly tf: Map<string, number>
  /** Its words as written ({@link words}). */
  readonly forms: Set<string>
}

/**
 * An incremental ranking index over one conversation's archived messages
 * (see the module's description).
 *
 * @since 0.4.0
 * @category models
 */
export interface Index {
  /** Indexes a message; a position already indexed is ignored (returns `false`). */
  readonly add: (document: Document) => boolean
  /** Whether a position is indexed. */
  readonly has: (position: number) => boolean
  /** The ranked matches of a query, best first. */
  readonly search: (query: string, filter?: Filter) => Array<Hit>
  /** How many messages are indexed. */
  readonly size: () => number
}

/**
 * A new, empty {@link Index}; `extractor` finds the artifacts that rank
 * first (default: `artifacts.ts`' default patterns).
 *
 * @example
 * ```ts
 * import { Recall } from "rollmem"
 *
 * const index = Recall.index()
 * index.add({ position: 0, role: "user", text: "Book me a flight to Rome" })
 * index.add({ position: 1, role: "assistant", text: "Booked AZ 611 to Rome" })
 * index.search("flight Rome").map((hit) => hit.position) // [0, 1]: both terms first
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const index = (extractor: Artifacts.Extractor = defaultExtractor): Index => {
  const entries = new Map<number, Entry>()
  const postings = new Map<string, Array<Entry>>()
  const byArtifact = new Map<string, Array<Entry>>()
  let totalLength = 0
  const add = (document: Document): boolean => {
    if (entries.has(document.position)) return false
    const words = terms(document.text)
    const tf = new Map<string, number>()
    for (const word of words) tf.set(word, (tf.get(word) ?? 0) + 1)
    const entry: Entry = {
      position: document.position,
      role: document.role,
      length: words.length,
      tf,
      forms: writtenWords(document.text)
    }
    entries.set(document.position, entry)
    totalLength += words.length
    for (const word of tf.keys()) {
      const list = postings.get(word)
      if (list === undefined) postings.set(word, [entry])
      else list.push(entry)
    }
    for (const artifact of extractor.extract(document.text)) {
      const list = byArtifact.get(artifact.text)
      if (list === undefined) byArtifact.set(artifact.text, [entry])
      else list.push(entry)
    }
    return true
  }
  const search = (query: string, filter?: Filter): Array<Hit> => {
    const limit = filter?.limit ?? DEFAULT_LIMIT
    const before = filter?.before
    const roles = filter?.roles === undefined ? undefined : new Set(filter.roles)
    const keeps = (entry: Entry): boolean =>
      (before === undefined || entry.position < before) && (roles === undefined || roles.has(entry.role))
    const n = entries.size
    const average = n === 0 ? 0 : totalLength / n
    // the query's terms found in the archive with their idf, in the query's order (a score sums them in it), and
    // rarest first (the order their postings are read in)
    const found = [...new Set(terms(query))].flatMap((word) => {
      const list = postings.get(word)
      return list === undefined
        ? []
        : [{ word, list, idf: Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5)) }]
    })
    const lists = [...found].sort((a, b) => a.list.length - b.list.length)
    const scores = new Map<Entry, { score: number; exact: number; terms: number }>()
    // a match's terms and score, over every term of the query (not only the lists walked)
    const scoreOf = (entry: Entry) => {
      let hit = scores.get(entry)
      if (hit !== undefined) return hit
      hit = { score: 0, exact: 0, terms: 0 }
      for (const { idf, word } of found) {
        const tf = entry.tf.get(word)
        if (tf === undefined) continue
        hit.score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * entry.length / average))
        hit.terms++
      }
      scores.set(entry, hit)
      return hit
    }
    // the lists walked rarest first: once the first w are walked, every message holding more than k - w of the k
    // terms has been seen (it misses fewer than w lists); when `limit` seen ones hold that many, a message not seen
    // holds fewer than each of them and cannot be among the best `limit` (unless it names an artifact, added below)
    const holding = new Array<number>(lists.length + 1).fill(0)
    for (let w = 0; w < lists.length; w++) {
      for (const entry of lists[w].list) {
        if (scores.has(entry) || !keeps(entry)) continue
        holding[scoreOf(entry).terms]++
      }
      let seen = 0
      for (let held = lists.length - w; held <= lists.length; held++) seen += holding[held]
      if (seen >= limit) break
    }
    for (const artifact of extractor.extract(query)) {
      for (const entry of byArtifact.get(artifact.text) ?? noEntries) {
        if (keeps(entry)) scoreOf(entry).exact++
      }
    }
    // the best `limit`, kept sorted as they come: O(matches x limit) at worst, no sort of every match
    const top: Array<Hit> = []
    const written = [...writtenWords(query)]
    for (const [entry, { exact, score, terms }] of scores) {
      // a match behind the last kept one by its artifacts or terms is passed over before its words are counted
      const last = top.length === limit ? top[limit - 1] : undefined
      if (last !== undefined && (exact < last.exact || (exact === last.exact && terms < last.terms))) continue
      let cased = 0
      for (const word of written) if (entry.forms.has(word)) cased++
      const hit: Hit = { position: entry.position, score, exact, terms, cased }
      if (top.length === limit && compare(hit, top[limit - 1]) >= 0) continue
      let i = top.length === limit ? limit - 1 : top.length
      while (i > 0 && compare(hit, top[i - 1]) < 0) {
        top[i] = top[i - 1]
        i--
      }
      top[i] = hit
    }
    return top
  }
  return {
    add,
    has: (position) => entries.has(position),
    search,
    size: () => entries.size
  }
}

const noEntries: ReadonlyArray<Entry> = []

const writtenWords = words

const defaultExtractor = Artifacts.extractor()

/**
 * The ranking order: more of the query's artifacts named first, then more
 * of its distinct terms held, then more of its words held as written, then
 * the higher score, then the newer message.
 *
 * @example
 * ```ts
 * import { Recall } from "rollmem"
 *
 * const index = Recall.index()
 * index.add({ position: 0, role: "user", text: "Rome" })
 * const hits = index.search("Rome")
 * hits.sort(Recall.compare) // the order search returns
 * ```
 *
 * @since 0.4.0
 * @category combinators
 */
export const compare = (a: Hit, b: Hit): number =>
  b.exact - a.exact || b.terms - a.terms || (b.cased ?? 0) - (a.cased ?? 0) || b.score - a.score ||
  b.position - a.position
