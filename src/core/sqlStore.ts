/**
 * The SQL stores' rules (docs/contract.md sections 12.1 and 17.2), pure, no
 * `effect` import, for both lines' SQL backends: which database errors are
 * the losing side of a race, the table names as PostgreSQL's `regclass`
 * reads them, the archive's rows as the table holds them, and a search's
 * query parts and ranking of the database's candidates. The statements
 * themselves run through each line's `SqlClient`.
 *
 * @since 0.4.0
 */
import type { Archivable } from "./archive.js"
import * as Artifacts from "./artifacts.js"
import * as Recall from "./recall.js"

/**
 * The default table of the SQL archive (beside the store's
 * `rollmem_conversations`).
 *
 * @since 0.4.0
 */
export const DEFAULT_ARCHIVE_TABLE = "rollmem_archive"

/**
 * How many times a read, a delete or a table creation that lost a race is
 * tried again before it fails.
 *
 * @since 0.4.0
 */
export const TRANSIENT_RETRIES = 5

/**
 * Whether a driver's error code (a PostgreSQL SQLSTATE, an SQLite result
 * code) is the losing side of a race rather than a failure: PostgreSQL's
 * serialization failure (`40001`, under REPEATABLE READ or SERIALIZABLE)
 * and deadlock (`40P01`), SQLite's busy and locked results.
 *
 * @example
 * ```ts
 * import { isTransientCode } from "./sqlStore.js"
 * isTransientCode("40001") // true
 * isTransientCode("SQLITE_BUSY_SNAPSHOT") // true
 * isTransientCode("23505") // false
 * ```
 *
 * @since 0.4.0
 */
export const isTransientCode = (code: unknown): boolean =>
  typeof code === "string" &&
  (code === "40001" || code === "40P01" || code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"))

/**
 * What table creation retries: a transient code, or the table or its row
 * type reported as existing (SQLSTATE `42P07`, `23505`: the catalog race of
 * `CREATE TABLE IF NOT EXISTS` run at once). A new attempt succeeds.
 *
 * @since 0.4.0
 */
export const isCreationRaceCode = (code: unknown): boolean =>
  isTransientCode(code) || code === "42P07" || code === "23505"

/**
 * A table's name as PostgreSQL's `regclass` reads it: each dotted part
 * quoted (`a.b"c` is `"a"."b""c"`).
 *
 * @since 0.4.0
 */
export const quotedName = (name: string): string =>
  name.split(".").map((part) => `"${part.replace(/"/g, "\"\"")}"`).join(".")

/**
 * The lock key of a table's creation (`pg_advisory_xact_lock(hashtext(
 * current_schema() || key))`): the table's name after a slash, so every
 * process creating it in one schema takes one lock.
 *
 * @since 0.4.0
 */
export const creationLockKey = (name: string): string => `/${name}`

/**
 * The lock key of a conversation's archive writes on PostgreSQL
 * (`pg_advisory_xact_lock(hashtext(key))`): its fold number is read and
 * written under it.
 *
 * @since 0.4.0
 */
export const archiveLockKey = (table: string, conversationId: string): string => `${table}/${conversationId}`

/**
 * Rows per INSERT statement of the archive (SQLite's bound variables are
 * limited).
 *
 * @since 0.4.0
 */
export const ARCHIVE_BATCH = 500

/**
 * How many candidates a search reads from the database beside its `limit`,
 * per query part.
 *
 * @since 0.4.0
 */
export const ARCHIVE_CANDIDATES = 20

/**
 * An archive row as the table holds it: `message` the message's wire JSON,
 * `terms` its text's terms (`core/recall.ts`) joined by spaces (what the
 * full-text index reads), `artifacts` the artifacts it names, one a line
 * (what a search's exact matches are read from). A type, not an interface:
 * a driver's insert helper takes it as a record.
 *
 * @since 0.4.0
 */
export type ArchiveRow = {
  readonly conversation_id: string
  readonly position: number
  readonly fold: number
  readonly role: string
  readonly message: string
  readonly terms: string
  readonly artifacts: string
}

/**
 * A message to archive and its position, as the archive rows need it.
 *
 * @since 0.4.0
 */
export interface ArchiveEntry<M extends Archivable> {
  readonly position: number
  readonly message: M
}

/**
 * The rows of one conversation's archive writes, the first write at fold
 * `firstFold` and each next write the next fold (empty writes skipped):
 * `encode` gives a message's wire JSON text.
 *
 * @example
 * ```ts
 * import { archiveRows } from "./sqlStore.js"
 * const rows = archiveRows("c", 3, [[{ position: 7, message: { role: "user", content: "Ticket ABC-123", toolCalls: [] } }]],
 *   (m) => JSON.stringify(m))
 * rows[0].fold // 3
 * rows[0].terms // "ticket abc 123"
 * rows[0].artifacts // "ABC-123"
 * ```
 *
 * @since 0.4.0
 */
export const archiveRows = <M extends Archivable>(
  conversationId: string,
  firstFold: number,
  writes: ReadonlyArray<ReadonlyArray<ArchiveEntry<M>>>,
  encode: (message: M) => string,
  extractor: Artifacts.Extractor = Artifacts.extractor()
): Array<ArchiveRow> =>
  writes.filter((entries) => entries.length > 0).flatMap((entries, i) =>
    entries.map(({ message, position }) => {
      const text = Artifacts.textOf(message)
      return {
        conversation_id: conversationId,
        position,
        fold: firstFold + i,
        role: message.role,
        message: encode(message),
        terms: Recall.terms(text).join(" "),
        artifacts: extractor.extract(text).map((a) => a.text).join("\n")
      }
    })
  )

/**
 * The database's full-text dialects of the archive: PostgreSQL's
 * `tsquery` and SQLite's FTS5.
 *
 * @since 0.4.0
 */
export type Dialect = "pg" | "sqlite"

/**
 * The most conjunctions of terms a search's tier lists: a tier whose query
 * would list more is passed over (see {@link SearchPlan}).
 *
 * @since 0.4.0
 */
export const ARCHIVE_MAX_CLAUSES = 20

/**
 * One tier of a search: `match`, the rows holding at least `held` of the
 * query's distinct terms (an OR of ANDs in the dialect's syntax; `held` 1:
 * any of them).
 *
 * @since 0.4.0
 */
export interface Tier {
  readonly match: string
  readonly held: number
}

/**
 * A search's query parts: `terms` (the query's distinct terms; none: no
 * search), `any` (matching any of them, in the dialect's syntax), `wanted`
 * (the artifacts the query names), `tiers` (the rows holding all the
 * terms, then at least one fewer, down to any; a tier listing more than
 * {@link ARCHIVE_MAX_CLAUSES} conjunctions passed over) and `phrases` (what
 * each named artifact's candidate query matches: the artifact as a phrase).
 *
 * A search reads the tiers in order and ranks the first with `limit` rows or
 * more (or the last): a row outside it holds fewer terms than `limit` rows
 * in it, so it cannot enter the top `limit` unless it names an artifact of
 * the query, which the phrases read.
 *
 * @since 0.4.0
 */
export interface SearchPlan {
  readonly terms: ReadonlyArray<string>
  readonly any: string
  readonly wanted: ReadonlyArray<Artifacts.Artifact>
  readonly tiers: ReadonlyArray<Tier>
  readonly phrases: ReadonlyArray<string>
}

// "at least k of the terms" (already quoted) as an OR of ANDs, or undefined past ARCHIVE_MAX_CLAUSES conjunctions
const atLeast = (quoted: ReadonlyArray<string>, k: number, pg: boolean): string | undefined => {
  if (k === 1) return quoted.join(pg ? " | " : " OR ")
  const clauses: Array<string> = []
  const pick = (from: number, chosen: ReadonlyArray<string>): boolean => {
    if (chosen.length === k) {
      clauses.push(`(${chosen.join(pg ? " & " : " AND ")})`)
      return clauses.length <= ARCHIVE_MAX_CLAUSES
    }
    for (let i = from; i <= quoted.length - (k - chosen.length); i++) {
      if (!pick(i + 1, [...chosen, quoted[i]])) return false
    }
    return true
  }
  return pick(0, []) ? clauses.join(pg ? " | " : " OR ") : undefined
}

/**
 * The parts of a search for `query` (see {@link SearchPlan}).
 *
 * @example
 * ```ts
 * import { searchPlan } from "./sqlStore.js"
 * const plan = searchPlan("refund for ABC-123", "pg")
 * plan.tiers[0] // { match: "(refund & for & abc & 123)", held: 4 }
 * plan.phrases // ["(abc <-> 123) & (refund | for | abc | 123)"]
 * ```
 *
 * @since 0.4.0
 */
export const searchPlan = (
  query: string,
  dialect: Dialect,
  extractor: Artifacts.Extractor = Artifacts.extractor()
): SearchPlan => {
  const terms = [...new Set(Recall.terms(query))]
  const pg = dialect === "pg"
  const quoted = terms.map((t) => pg ? t : `"${t}"`)
  const any = quoted.join(pg ? " | " : " OR ")
  const wanted = extractor.extract(query)
  const phrases = wanted.map((artifact) => Recall.terms(artifact.text)).filter((t) => t.length > 0)
    .map((t) => pg ? t.join(" <-> ") : `"${t.join(" ")}"`)
  const tiers: Array<Tier> = []
  for (let held = terms.length; held >= 1; held--) {
    const match = atLeast(quoted, held, pg)
    if (match !== undefined) tiers.push({ match, held })
  }
  return { terms, any, wanted, tiers, phrases: phrases.map((phrase) => pg ? `(${phrase}) & (${any})` : phrase) }
}

/**
 * A search's candidate as the database returns it: its position, the
 * database's rank (higher is better), its terms and artifacts.
 *
 * @since 0.4.0
 */
export interface Candidate {
  readonly position: number | string
  readonly rank: number | string
  readonly terms: string
  readonly artifacts: string
}

/**
 * The best `limit` hits of a search's candidates (the tier's, then each
 * phrase's; a position's first candidate kept): those naming the query's
 * artifacts exactly first, then those holding more of its terms, then the
 * database's rank, then the newer (`core/recall.ts`'s order).
 *
 * @since 0.4.0
 */
export const rankCandidates = (
  plan: SearchPlan,
  candidates: ReadonlyArray<Candidate>,
  limit: number
): Array<Recall.Hit> => {
  const seen = new Set<number>()
  const hits: Array<Recall.Hit> = []
  for (const row of candidates) {
    const position = Number(row.position)
    if (seen.has(position)) continue
    seen.add(position)
    const named = new Set(row.artifacts === "" ? [] : row.artifacts.split("\n"))
    const exact = plan.wanted.filter((a) => named.has(a.text)).length
    const padded = ` ${row.terms} `
    const held = plan.terms.filter((t) => padded.includes(` ${t} `)).length
    hits.push({ position, score: Number(row.rank), exact, terms: held })
  }
  hits.sort(Recall.compare)
  return hits.slice(0, limit)
}
