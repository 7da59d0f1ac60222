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

export {
  /** The default table of the SQL archive (kept in core/location.ts, which checks the store names). @since 0.4.0 */
  DEFAULT_ARCHIVE_TABLE
} from "./location.js"

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
 * database's rank (higher is better), its terms (or how many of the query's
 * terms they hold) and artifacts.
 *
 * @since 0.4.0
 */
export interface Candidate {
  readonly position: number | string
  readonly rank: number | string
  /** Its text's terms, joined by spaces; or, instead, `held`. */
  readonly terms?: string | undefined
  /** How many of the query's distinct terms `terms` holds, counted by the database. */
  readonly held?: number | string | undefined
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
    const padded = ` ${row.terms ?? ""} `
    const held = row.held !== undefined ? Number(row.held) : plan.terms.filter((t) => padded.includes(` ${t} `)).length
    hits.push({ position, score: Number(row.rank), exact, terms: held })
  }
  hits.sort(Recall.compare)
  return hits.slice(0, limit)
}

/**
 * A PostgreSQL statement's text, its parameters numbered `$1`, `$2`, ...
 * (each line runs it with its `SqlClient`'s `unsafe`).
 *
 * @since 0.4.0
 */
export interface PgStatement {
  readonly text: string
  readonly params: ReadonlyArray<string | number>
}

// the conversation's own lexeme: `#` and its id's hash (no term holds `#`, so no query term is it); with the row's
// terms in one GIN index, a search reads the postings of its terms within its conversation only
const pgVector = "(a.tsv || array_to_tsvector(ARRAY['#' || hashtext(a.conversation_id)::text]))"
const pgConversation = (param: string) => `quote_literal('#' || hashtext(${param}::text)::text)::tsquery`

const indexName = (name: string, suffix: string): string => `${name.split(".").pop()!}${suffix}`

/**
 * The statements that create the PostgreSQL archive table `name` or adopt
 * one deployed before (docs/contract.md section 17), run in order under the
 * table's creation lock, each a no-op when its work is done: the table
 * (`tsv`, the terms' `tsvector`, a generated column, stored uncompressed
 * for the rows written from then on), its search index (a
 * GIN index of `tsv` and the conversation's own lexeme, so a search reads
 * its conversation's postings only, `fastupdate` off so no search scans a
 * pending list), and the drop of the earlier GIN index of `tsv` alone
 * (0.4.0's), which searches no longer read.
 *
 * @example
 * ```ts
 * import { pgArchiveSchema } from "./sqlStore.js"
 * pgArchiveSchema("app.rollmem_archive")[3] // 'DROP INDEX IF EXISTS "app"."rollmem_archive_tsv"'
 * ```
 *
 * @since 0.4.0
 */
export const pgArchiveSchema = (name: string): ReadonlyArray<string> => {
  const table = quotedName(name)
  const schema = name.includes(".") ? `${quotedName(name.slice(0, name.lastIndexOf(".")))}.` : ""
  return [
    `CREATE TABLE IF NOT EXISTS ${table} (
      conversation_id TEXT NOT NULL,
      position BIGINT NOT NULL,
      fold INTEGER NOT NULL,
      role TEXT NOT NULL,
      message TEXT NOT NULL,
      terms TEXT NOT NULL,
      artifacts TEXT NOT NULL,
      tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', terms)) STORED,
      PRIMARY KEY (conversation_id, position)
    )`,
    // stored uncompressed: a search reads the vector of every row it ranks, and decompressing pglz was most of it
    `DO $rollmem$ BEGIN
      IF (SELECT attstorage FROM pg_attribute
          WHERE attrelid = '${table.replace(/'/g, "''")}'::regclass AND attname = 'tsv') <> 'e' THEN
        ALTER TABLE ${table} ALTER COLUMN tsv SET STORAGE EXTERNAL;
      END IF;
    END $rollmem$`,
    `CREATE INDEX IF NOT EXISTS ${quotedName(indexName(name, "_search"))} ON ${table} USING GIN (${
      pgVector.replace(/a\./g, "")
    }) WITH (fastupdate = off)`,
    `DROP INDEX IF EXISTS ${schema}${quotedName(indexName(name, "_tsv"))}`
  ]
}

/**
 * What a PostgreSQL search keeps (as `core/archive.ts`'s options, checked
 * by the caller).
 *
 * @since 0.4.0
 */
export interface PgFilter {
  readonly limit?: number | undefined
  readonly before?: number | undefined
  readonly roles?: ReadonlyArray<string> | undefined
}

/**
 * The one statement of a PostgreSQL archive search (see {@link SearchPlan}):
 * the candidates of the plan's tiers, each read only when every tier before
 * it had fewer than `limit` rows (a tier's rows hold the earlier tiers'), by
 * the count of the plan's terms a row holds, then `ts_rank`, then the newer,
 * at most `limit` + {@link ARCHIVE_CANDIDATES} each, then those of each
 * artifact's phrase; {@link rankCandidates} ranks them. Each part reads the
 * search index (its terms within the conversation), never the
 * conversation's other rows.
 *
 * @example
 * ```ts
 * import { pgSearch, searchPlan } from "./sqlStore.js"
 * const statement = pgSearch("rollmem_archive", "c1", searchPlan("deploy script", "pg"), { limit: 3 })
 * statement.params // ["c1", "deploy | script", 23, "(deploy & script)", "deploy | script", 3, "deploy", "script"]
 * ```
 *
 * @since 0.4.0
 */
export const pgSearch = (
  name: string,
  conversationId: string,
  plan: SearchPlan,
  filter: PgFilter
): PgStatement => {
  const params: Array<string | number> = []
  const param = (value: string | number): string => {
    params.push(value)
    return `$${params.length}`
  }
  const table = quotedName(name)
  const conversation = param(conversationId)
  const any = param(plan.any)
  let limit: string | undefined // a parameter only when a tier is gated (an unused one has no type)
  const gate = (tier: string) =>
    `(SELECT count(*) FROM ${tier}) < ${limit ??= param(filter.limit ?? Recall.DEFAULT_LIMIT)}`
  const candidates = param((filter.limit ?? Recall.DEFAULT_LIMIT) + ARCHIVE_CANDIDATES)
  const filters = [
    ...(filter.before === undefined ? [] : [`a.position < ${param(filter.before)}`]),
    ...(filter.roles === undefined ?
      [] :
      filter.roles.length === 0 ?
      ["1 = 0"] :
      [`a.role IN (${filter.roles.map(param).join(", ")})`])
  ]
  let terms: ReadonlyArray<string> | undefined // the terms' parameters, when a part counts them
  // a part: the rows whose vector holds `match` (read from the index: its terms within the conversation), and
  // `phrase` when given (checked on the rows read: the index holds no positions), best first, each with the count of
  // the query's terms its vector holds (`held`: all of them in the first tier); each row's vector is read once (`v`,
  // a copy: each function given the stored column would read it from its TOAST table again)
  const part = (match: string, all: boolean, gates: ReadonlyArray<string>, phrase?: string) => {
    const where = [
      `a.conversation_id = ${conversation}`,
      `${pgVector} @@ (to_tsquery('simple', ${param(match)}) && ${pgConversation(conversation)})`,
      ...filters,
      ...gates.map(gate)
    ]
    const held = all ?
      String(plan.terms.length) :
      (terms ??= plan.terms.map(param)).map((t) => `(v @@ to_tsquery('simple', ${t}))::int`).join(" + ")
    return `SELECT position, artifacts, ts_rank(v, to_tsquery('simple', ${any})) AS rank, ${held} AS held
      FROM (SELECT a.position, a.artifacts, a.tsv || ''::tsvector AS v
        FROM ${table} a WHERE ${where.join(" AND ")} OFFSET 0) s
      ${phrase === undefined ? "" : `WHERE v @@ to_tsquery('simple', ${param(phrase)}) `}ORDER BY ${
      phrase === undefined && !all ? "held DESC, " : ""
    }rank DESC, position DESC LIMIT ${candidates}`
  }
  const phraseTerms = plan.wanted.map((artifact) => Recall.terms(artifact.text)).filter((t) => t.length > 0)
  const phrases = plan.phrases.map((phrase, i) => `(${part(`(${phraseTerms[i].join(" & ")})`, false, [], phrase)})`)
  const tiers = plan.tiers.map((tier, i) => ({
    name: `t${i}`,
    text: part(tier.match, tier.held === plan.terms.length, plan.tiers.slice(0, i).map((_, j) => `t${j}`))
  }))
  const text = `WITH ${tiers.map((tier) => `${tier.name} AS MATERIALIZED (${tier.text})`).join(",\n")}
    ${[...tiers.map((tier) => `SELECT * FROM ${tier.name}`), ...phrases].join("\nUNION ALL ")}`
  return { text, params }
}
