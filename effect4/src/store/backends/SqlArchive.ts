/**
 * The archive the SQL store keeps beside its conversations
 * (docs/contract.md section 17.2) on the Effect 4 line: the Effect 3 line's
 * `SqlArchive` table and search (`src/store/backends/SqlArchive.ts`), its
 * rows, query and ranking the pure `core/sqlStore.ts`'s. One row per
 * archived message, `(conversation_id, position)` unique, written with `ON
 * CONFLICT DO NOTHING`; a write's fold is the conversation's highest plus
 * one, read in the same transaction (PostgreSQL: under a transaction
 * advisory lock on the conversation). Searched with the database's
 * full-text search: PostgreSQL's generated `tsv` column (GIN-indexed),
 * SQLite's FTS5 table `<table>_fts`.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type { SqlClient, SqlError } from "effect/sql"
import * as Artifacts from "../../../../src/core/artifacts.js"
import * as Recall from "../../../../src/core/recall.js"
import * as SqlRules from "../../../../src/core/sqlStore.js"
import type { ArchiveError, ConfigError } from "../../Errors.js"
import * as Messages from "../../schema/Message.js"
import * as Archive from "../../services/Archive.js"
import { retryTransient, withCreationLock } from "./Sql.js"

interface Row {
  readonly position: number | string
  readonly fold: number | string
  readonly message: string
}

const decodeMessage = (text: string): Messages.Message => {
  const decoded = Messages.decodeUnknown(JSON.parse(text))
  if (Result.isFailure(decoded)) throw decoded.failure
  return decoded.success
}

const failed = (what: string) => (cause: unknown): ArchiveError =>
  Archive.failed(`${what}: ${cause instanceof Error ? cause.message : String(cause)}`, cause)

/** Creates the table and its full-text index, race-free (as the store's table). */
const ensureArchive = (sql: SqlClient.SqlClient, name: string): Effect.Effect<void, SqlError.SqlError> => {
  const table = sql(name)
  const last = name.split(".").pop()!
  return sql.onDialectOrElse({
    pg: () =>
      withCreationLock(
        sql,
        name,
        Effect.forEach(SqlRules.pgArchiveSchema(name), (statement) => sql.unsafe(statement), { discard: true })
      ),
    orElse: () =>
      retryTransient(sql.withTransaction(Effect.gen(function*() {
        yield* sql`CREATE TABLE IF NOT EXISTS ${table} (
          id INTEGER PRIMARY KEY,
          conversation_id TEXT NOT NULL,
          position INTEGER NOT NULL,
          fold INTEGER NOT NULL,
          role TEXT NOT NULL,
          message TEXT NOT NULL,
          terms TEXT NOT NULL,
          artifacts TEXT NOT NULL,
          UNIQUE (conversation_id, position)
        )`
        yield* sql`CREATE VIRTUAL TABLE IF NOT EXISTS ${sql(`${name}_fts`)} USING fts5(terms, content='')`
        yield* sql`CREATE TRIGGER IF NOT EXISTS ${sql(`${name}_fts_insert`)} AFTER INSERT ON ${sql(last)}
          BEGIN INSERT INTO ${sql(`${last}_fts`)} (rowid, terms) VALUES (new.id, new.terms); END`
        yield* sql`CREATE TRIGGER IF NOT EXISTS ${sql(`${name}_fts_delete`)} AFTER DELETE ON ${sql(last)}
          BEGIN INSERT INTO ${sql(`${last}_fts`)} (${sql(`${last}_fts`)}, rowid, terms)
            VALUES ('delete', old.id, old.terms); END`
      })))
  })
}

/**
 * An archive's parts on `sql` (the table `name`), for the SQL store:
 * `ensure` creates the table and its index once (every operation of
 * `service` runs it first), `insert` writes writes' rows inside the
 * caller's transaction (each write the next fold), `remove` deletes a
 * conversation's rows when the table exists.
 *
 * @internal
 */
export const makeOn = (sql: SqlClient.SqlClient, name: string): {
  readonly service: Archive.Service
  readonly ensure: Effect.Effect<void, SqlError.SqlError>
  readonly insert: (
    conversationId: string,
    writes: ReadonlyArray<ReadonlyArray<Archive.Entry>>
  ) => Effect.Effect<void, SqlError.SqlError>
  readonly remove: (conversationId: string) => Effect.Effect<void, SqlError.SqlError>
} => {
  const table = sql(name)
  const last = name.split(".").pop()!
  const fts = sql(`${name}_fts`)
  // FTS5's hidden column (MATCH, rank) is named by the table's own name, unqualified
  const ftsName = sql(`${last}_fts`)
  const pg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  const extractor = Artifacts.extractor()
  let ready = false
  const ensure: Effect.Effect<void, SqlError.SqlError> = Effect.suspend(() =>
    ready ? Effect.void : Effect.tap(ensureArchive(sql, name), () =>
      Effect.sync(() => {
        ready = true
      }))
  )

  const insert = (conversationId: string, writes: ReadonlyArray<ReadonlyArray<Archive.Entry>>) =>
    Effect.gen(function*() {
      if (writes.every((entries) => entries.length === 0)) return
      if (pg) yield* sql`SELECT pg_advisory_xact_lock(hashtext(${SqlRules.archiveLockKey(name, conversationId)}))`
      const [{ next }] = yield* sql<{ readonly next: number | string }>`SELECT COALESCE(MAX(fold), 0) + 1 AS next
          FROM ${table} WHERE conversation_id = ${conversationId}`
      const rows = SqlRules.archiveRows(
        conversationId,
        Number(next),
        writes,
        (message) => JSON.stringify(Messages.toWire(message)),
        extractor
      )
      for (let j = 0; j < rows.length; j += SqlRules.ARCHIVE_BATCH) {
        const batch = rows.slice(j, j + SqlRules.ARCHIVE_BATCH)
        if (batch.length === 0) continue
        yield* sql`INSERT INTO ${table} ${sql.insert(batch as [SqlRules.ArchiveRow, ...Array<SqlRules.ArchiveRow>])}
            ON CONFLICT (conversation_id, position) DO NOTHING`
      }
    })

  const append = (conversationId: string, entries: ReadonlyArray<Archive.Entry>) =>
    entries.length === 0 ? Effect.void : Effect.andThen(
      ensure,
      sql.withTransaction(insert(conversationId, [entries]))
    ).pipe(retryTransient, Effect.mapError(failed("archive write")))

  const exists = pg
    ? Effect.map(
      sql<{ readonly present: boolean }>`SELECT to_regclass(${name}) IS NOT NULL AS present`,
      (rows) => rows[0]?.present === true
    )
    : Effect.map(
      name.includes(".")
        ? sql<{ readonly present: number }>`SELECT count(*) AS present FROM ${
          sql(`${name.split(".")[0]}.sqlite_master`)
        } WHERE type = 'table' AND name = ${last}`
        : sql<{ readonly present: number }>`SELECT count(*) AS present FROM sqlite_master
            WHERE type = 'table' AND name = ${last}`,
      (rows) => Number(rows[0]?.present ?? 0) > 0
    )
  const remove = (conversationId: string) =>
    Effect.flatMap(
      ready ? Effect.succeed(true) : exists,
      (present) =>
        present ? Effect.asVoid(sql`DELETE FROM ${table} WHERE conversation_id = ${conversationId}`) : Effect.void
    )

  const archived = (conversationId: string, row: Row): Archive.Archived => ({
    conversationId,
    position: Number(row.position),
    fold: Number(row.fold),
    message: decodeMessage(row.message)
  })

  const filters = (options: Archive.SearchOptions | undefined) => {
    const parts = []
    if (options?.before !== undefined) parts.push(sql`a.position < ${options.before}`)
    if (options?.roles !== undefined) {
      parts.push(options.roles.length === 0 ? sql`1 = 0` : sql`a.role IN ${sql.in(options.roles)}`)
    }
    return parts.length === 0 ? sql`1 = 1` : sql.and(parts)
  }

  // SQLite: the rows matching `match` (FTS5 syntax) by bm25, best first
  const candidates = (
    conversationId: string,
    match: string,
    options: Archive.SearchOptions | undefined
  ) => {
    const limit = (options?.limit ?? Recall.DEFAULT_LIMIT) + SqlRules.ARCHIVE_CANDIDATES
    return sql<SqlRules.Candidate>`SELECT a.position, a.terms, a.artifacts, -${ftsName}.rank AS rank
          FROM ${fts} JOIN ${table} a ON a.id = ${ftsName}.rowid
          WHERE ${ftsName} MATCH ${match} AND a.conversation_id = ${conversationId} AND ${filters(options)}
          ORDER BY ${ftsName}.rank, a.position DESC LIMIT ${limit}`
  }

  // the candidates of a search: PostgreSQL in one statement (core/sqlStore.ts, the Effect 3 line's); SQLite the first
  // tier with `limit` rows (core/sqlStore.ts), then the artifacts' phrases
  const candidatesOf = (
    conversationId: string,
    plan: SqlRules.SearchPlan,
    options: Archive.SearchOptions | undefined
  ): Effect.Effect<ReadonlyArray<SqlRules.Candidate>, SqlError.SqlError> => {
    if (pg) {
      const statement = SqlRules.pgSearch(name, conversationId, plan, options ?? {})
      return sql.unsafe<SqlRules.Candidate>(statement.text, statement.params)
    }
    const limit = options?.limit ?? Recall.DEFAULT_LIMIT
    return Effect.gen(function*() {
      const rows: Array<SqlRules.Candidate> = []
      for (const [i, tier] of plan.tiers.entries()) {
        const found = yield* candidates(conversationId, tier.match, options)
        if (found.length >= limit || i === plan.tiers.length - 1) {
          rows.push(...found)
          break
        }
      }
      for (const phrase of plan.phrases) rows.push(...yield* candidates(conversationId, phrase, options))
      return rows
    })
  }

  const neighboursOf = (conversationId: string, position: number, around: number) =>
    Effect.map(
      Effect.all([
        sql<Row>`SELECT position, fold, message FROM ${table}
            WHERE conversation_id = ${conversationId} AND position < ${position}
            ORDER BY position DESC LIMIT ${around}`,
        sql<Row>`SELECT position, fold, message FROM ${table}
            WHERE conversation_id = ${conversationId} AND position > ${position}
            ORDER BY position LIMIT ${around}`
      ]),
      ([before, after]) => [...[...before].reverse(), ...after].map((row) => archived(conversationId, row))
    )

  const search = (
    conversationId: string,
    query: string,
    options?: Archive.SearchOptions
  ): Effect.Effect<ReadonlyArray<Archive.Match>, ArchiveError | ConfigError> =>
    Effect.suspend((): Effect.Effect<ReadonlyArray<Archive.Match>, ArchiveError | ConfigError> => {
      const refused = Archive.checkOptions(options)
      if (refused !== undefined) return Effect.fail(refused)
      const plan = SqlRules.searchPlan(query, pg ? "pg" : "sqlite", extractor)
      if (plan.terms.length === 0) return Effect.succeed([])
      const limit = options?.limit ?? Recall.DEFAULT_LIMIT
      return Effect.gen(function*() {
        yield* ensure
        const rows = yield* candidatesOf(conversationId, plan, options)
        const top = SqlRules.rankCandidates(plan, rows, limit)
        if (top.length === 0) return []
        const stored = yield* sql<Row>`SELECT position, fold, message FROM ${table}
            WHERE conversation_id = ${conversationId} AND position IN ${sql.in(top.map((hit) => hit.position))}`
        const byPosition = new Map(stored.map((row) => [Number(row.position), row]))
        const around = options?.neighbours ?? 0
        return yield* Effect.forEach(top, (hit) => {
          const found = archived(conversationId, byPosition.get(hit.position)!)
          const match = { ...found, score: hit.score, exact: hit.exact }
          return around === 0
            ? Effect.succeed({ ...match, neighbours: [] })
            : Effect.map(neighboursOf(conversationId, hit.position, around), (neighbours) => ({
              ...match,
              neighbours
            }))
        })
      }).pipe(Effect.mapError(failed("archive search")))
    })

  const messages = (conversationId: string) =>
    Effect.andThen(
      ensure,
      sql<Row>`SELECT position, fold, message FROM ${table} WHERE conversation_id = ${conversationId}
        ORDER BY position`
    ).pipe(
      Effect.map((rows) => rows.map((row) => archived(conversationId, row))),
      Effect.mapError(failed("archive read"))
    )

  return {
    service: { append, search, messages },
    ensure,
    insert,
    remove
  }
}
