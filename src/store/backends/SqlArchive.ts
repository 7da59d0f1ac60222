/**
 * The archive in SQL (docs/contract.md section 17): an `Archive` on any
 * `@effect/sql` `SqlClient`, searched with the database's own full-text
 * search (SQLite FTS5, PostgreSQL `tsvector` with a GIN index), and its
 * SQLite and PostgreSQL layers, whose drivers are loaded when the layer is
 * built.
 *
 * One row per archived message, `(conversation_id, position)` unique: a
 * write is one transaction inserting its rows with `ON CONFLICT DO
 * NOTHING`, so a retried or redelivered write doubles nothing; the fold
 * number is the conversation's highest plus one, read in the same
 * transaction (PostgreSQL: under a transaction advisory lock on the
 * conversation). A row's `terms` are its text's terms (`core/recall.ts`),
 * its `artifacts` the artifacts it names, one a line (what a search's exact
 * matches are read from); the full-text index reads the terms: SQLite's FTS5 table `<table>_fts` (kept
 * by a trigger), PostgreSQL's generated `tsv` column (`to_tsvector('simple',
 * terms)`, GIN-indexed).
 *
 * Search: the rows of the first tier with `limit` rows (holding all of the
 * query's terms, then at least one fewer, down to any: `core/sqlStore.ts`),
 * ranked by the database (SQLite `bm25`, PostgreSQL the count of terms
 * held, then `ts_rank`), with the rows matching each of the query's
 * artifacts as a phrase; those naming the query's artifacts exactly rank
 * first (as `core/recall.ts` says), then those holding more of the terms,
 * then the database's rank, then the newer.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Archive, Message, WindowMemory } from "rollmem"
 * import { SqlArchive } from "rollmem/store"
 *
 * const program = Effect.gen(function*() {
 *   const archive = yield* Archive.Archive
 *   const memory = yield* WindowMemory.make({ maxMessages: 20, archive, conversationId: "chat-42" })
 *   yield* memory.add(Message.user("hello"))
 * }).pipe(Effect.provide(SqlArchive.layerSqlite({ filename: "archive.db" })))
 * ```
 *
 * @since 0.4.0
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Artifacts from "../../core/artifacts.js"
import * as Recall from "../../core/recall.js"
import * as SqlRules from "../../core/sqlStore.js"
import type { ArchiveError, ConfigError } from "../../Errors.js"
import { withCreationLock } from "../../internal/creationLock.js"
import * as Messages from "../../schema/Message.js"
import * as Archive from "../../services/Archive.js"
import { importModule } from "../internal/peers.js"
import { openFailure } from "./Sql.js"
import { isCreationRace, retryTransient, TRANSIENT_RETRIES } from "./SqlErrors.js"

/**
 * The default table of the SQL archive layers.
 *
 * @example
 * ```ts
 * import { SqlArchive } from "rollmem/store"
 *
 * SqlArchive.DEFAULT_TABLE // "rollmem_archive"
 * ```
 *
 * @since 0.4.0
 * @category constants
 */
export const DEFAULT_TABLE = SqlRules.DEFAULT_ARCHIVE_TABLE

/**
 * Options of {@link make} and its layers.
 *
 * @since 0.4.0
 * @category models
 */
export interface Options {
  /** The archive's table; default {@link DEFAULT_TABLE}. Created if missing, with its full-text index. */
  readonly table?: string | undefined
}

const CANDIDATES = SqlRules.ARCHIVE_CANDIDATES
const BATCH = SqlRules.ARCHIVE_BATCH

interface Row {
  readonly position: number | string
  readonly fold: number | string
  readonly message: string
}

type Candidate = SqlRules.Candidate

const encodeMessage = Schema.encodeSync(Messages.Message)

const decodeMessage = (text: string): Messages.Message => {
  const decoded = Messages.decodeUnknown(JSON.parse(text))
  if (Either.isLeft(decoded)) throw decoded.left
  return decoded.right
}

const failed = (what: string) => (cause: unknown): ArchiveError =>
  Archive.failed(`${what}: ${cause instanceof Error ? cause.message : String(cause)}`, cause)

/** Creates the table and its full-text index, race-free (as the store's table, docs/architecture.md). */
const ensureArchive = (sql: SqlClient.SqlClient, name: string): Effect.Effect<void, SqlError> => {
  const table = sql(name)
  const last = name.split(".").pop()!
  return sql.onDialectOrElse({
    pg: () =>
      Effect.retry(
        withCreationLock(
          sql,
          name,
          Effect.forEach(SqlRules.pgArchiveSchema(name), (statement) => sql.unsafe(statement), { discard: true })
        ),
        { times: TRANSIENT_RETRIES, while: isCreationRace }
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
        // a deleted conversation's rows leave the index too (a contentless FTS5 table is told what it held)
        yield* sql`CREATE TRIGGER IF NOT EXISTS ${sql(`${name}_fts_delete`)} AFTER DELETE ON ${sql(last)}
          BEGIN INSERT INTO ${sql(`${last}_fts`)} (${sql(`${last}_fts`)}, rowid, terms)
            VALUES ('delete', old.id, old.terms); END`
      })))
  })
}

/**
 * An archive on the `SqlClient` in context (see the module's description):
 * creates its table and full-text index if missing, and fails with the
 * `SqlError` when it cannot. Written and tested for SQLite (with FTS5) and
 * PostgreSQL (12 or later, for generated columns).
 *
 * @example
 * ```ts
 * import { SqliteClient } from "@effect/sql-sqlite-node"
 * import { Effect } from "effect"
 * import { SqlArchive } from "rollmem/store"
 *
 * const program = Effect.gen(function*() {
 *   const archive = yield* SqlArchive.make()
 *   return yield* archive.search("chat-42", "flight to Rome", { limit: 5 })
 * }).pipe(Effect.provide(SqliteClient.layer({ filename: "app.db" })))
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const make = (options?: Options): Effect.Effect<Archive.Service, SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const { SqlClient } = yield* importModule("@effect/sql/SqlClient")
    const sql = yield* SqlClient
    const archive = makeOn(sql, options?.table ?? DEFAULT_TABLE)
    yield* archive.ensure
    return archive.service
  })

/**
 * An archive's parts on `sql` (the table `name`), for the SQL store that
 * keeps one beside its conversations (docs/contract.md section 17.2):
 * `ensure` creates the table and its index once (every operation of
 * `service` runs it first), `insert` writes writes' rows inside the
 * caller's transaction (each write the next fold), `remove` deletes a
 * conversation's rows when the table exists.
 *
 * @internal
 */
export const makeOn = (sql: SqlClient.SqlClient, name: string): {
  readonly service: Archive.Service
  readonly ensure: Effect.Effect<void, SqlError>
  readonly insert: (
    conversationId: string,
    writes: ReadonlyArray<ReadonlyArray<Archive.Entry>>
  ) => Effect.Effect<void, SqlError>
  readonly remove: (conversationId: string) => Effect.Effect<void, SqlError>
} => {
  const table = sql(name)
  const last = name.split(".").pop()!
  const fts = sql(`${name}_fts`)
  // FTS5's hidden column (MATCH, rank) is named by the table's own name, unqualified
  const ftsName = sql(`${last}_fts`)
  const pg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  const extractor = Artifacts.extractor()
  let ready = false
  const ensure = Effect.suspend(() =>
    ready ? Effect.void : Effect.tap(ensureArchive(sql, name), () => {
      ready = true
    })
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
        (message) => JSON.stringify(encodeMessage(message)),
        extractor
      )
      for (let j = 0; j < rows.length; j += BATCH) {
        yield* sql`INSERT INTO ${table} ${sql.insert(rows.slice(j, j + BATCH))}
            ON CONFLICT (conversation_id, position) DO NOTHING`
      }
    })

  const append = (conversationId: string, entries: ReadonlyArray<Archive.Entry>) =>
    entries.length === 0 ? Effect.void : Effect.zipRight(
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
    const limit = (options?.limit ?? Recall.DEFAULT_LIMIT) + CANDIDATES
    return sql<Candidate>`SELECT a.position, a.terms, a.artifacts, -${ftsName}.rank AS rank
          FROM ${fts} JOIN ${table} a ON a.id = ${ftsName}.rowid
          WHERE ${ftsName} MATCH ${match} AND a.conversation_id = ${conversationId} AND ${filters(options)}
          ORDER BY ${ftsName}.rank, a.position DESC LIMIT ${limit}`
  }

  // the candidates of a search: PostgreSQL in one statement (core/sqlStore.ts); SQLite the first tier with `limit`
  // rows (core/sqlStore.ts), then the artifacts' phrases
  const candidatesOf = (
    conversationId: string,
    plan: SqlRules.SearchPlan,
    options: Archive.SearchOptions | undefined
  ): Effect.Effect<ReadonlyArray<Candidate>, SqlError> => {
    if (pg) {
      const statement = SqlRules.pgSearch(name, conversationId, plan, options ?? {})
      return sql.unsafe<Candidate>(statement.text, statement.params)
    }
    const limit = options?.limit ?? Recall.DEFAULT_LIMIT
    return Effect.gen(function*() {
      const rows: Array<Candidate> = []
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
    Effect.zipRight(
      ensure,
      sql<Row>`SELECT position, fold, message FROM ${table} WHERE conversation_id = ${conversationId}
        ORDER BY position`
    ).pipe(
      Effect.map((rows) => rows.map((row) => archived(conversationId, row))),
      Effect.mapError(failed("archive read"))
    )

  return {
    service: Archive.Archive.of({ append, search, messages }),
    ensure,
    insert,
    remove
  }
}

/**
 * An archive on the `SqlClient` in context (see {@link make}).
 *
 * @example
 * ```ts
 * import { SqliteClient } from "@effect/sql-sqlite-node"
 * import { Layer } from "effect"
 * import { SqlArchive } from "rollmem/store"
 *
 * const ArchiveLive = SqlArchive.layer({ table: "chat_archive" }).pipe(Layer.provide(SqliteClient.layer({ filename: "app.db" })))
 * ```
 *
 * @since 0.4.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<Archive.Archive, SqlError, SqlClient.SqlClient> =>
  Layer.effect(Archive.Archive, make(options))

/**
 * Options of {@link layerSqlite}: the database file (created if missing).
 *
 * @since 0.4.0
 * @category models
 */
export interface SqliteOptions extends Options {
  readonly filename: string
}

/**
 * An archive in an SQLite database file with FTS5, through
 * `@effect/sql-sqlite-node` (an optional peer: `npm i
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Archive, Message, RollingMemory, Summarizer } from "rollmem"
 * import { SqlArchive } from "rollmem/store"
 *
 * // evicted turns stay searchable in SQLite's full-text index
 * const program = Effect.gen(function*() {
 *   const archive = yield* Archive.Archive
 *   const memory = yield* RollingMemory.make({ maxTokens: 2000, archive, conversationId: "chat-42" })
 *   yield* memory.add(Message.user("Book me a flight to Rome"))
 *   return yield* memory.recall("Rome flight")
 * }).pipe(Effect.provide(SqlArchive.layerSqlite({ filename: "archive.db" })), Effect.provide(Summarizer.layerDrop))
 * ```
 *
 * @effect/sql-sqlite-node@0.53.0`), loaded when the layer is built. The file
 * may be the store's (`ConversationStore.layerSqlite`): the tables differ.
 *
 * @since 0.4.0
 * @category layers
 */
export const layerSqlite = (options: SqliteOptions): Layer.Layer<Archive.Archive, SqlError> =>
  Layer.unwrapEffect(
    Effect.map(
      importModule("@effect/sql-sqlite-node/SqliteClient"),
      (SqliteClient) =>
        Layer.provide(
          layer(options),
          SqliteClient.layer({ filename: options.filename }).pipe(Layer.catchAllCause(openFailure(options.filename)))
        )
    )
  )

/**
 * Options of {@link layerPg}: the connection URL and the pool's size.
 *
 * @since 0.4.0
 * @category models
 */
export interface PgOptions extends Options {
  readonly url: string | Redacted.Redacted<string>
  readonly maxConnections?: number | undefined
}

/**
 * An archive in a PostgreSQL database (12 or later), through
 * `@effect/sql-pg` (an optional peer: `npm i @effect/sql-pg@0.53.0`), loaded
 * when the layer is built; the pool closes with the layer's scope.
 *
 * @example
 * ```ts
 * import { SqlArchive } from "rollmem/store"
 *
 * const ArchiveLive = SqlArchive.layerPg({ url: "postgres://app@localhost:5432/app" })
 * ```
 *
 * @since 0.4.0
 * @category layers
 */
export const layerPg = (options: PgOptions): Layer.Layer<Archive.Archive, SqlError> =>
  Layer.unwrapEffect(
    Effect.map(
      importModule("@effect/sql-pg/PgClient"),
      (PgClient) =>
        Layer.provide(
          layer(options),
          PgClient.layer({
            url: typeof options.url === "string" ? Redacted.make(options.url) : options.url,
            maxConnections: options.maxConnections,
            applicationName: "rollmem"
          }).pipe(Layer.catchAllCause(openFailure("the PostgreSQL database")))
        )
    )
  )
