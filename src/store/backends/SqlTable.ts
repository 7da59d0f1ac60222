/**
 * The SQL backend's table: creating it when missing and migrating one of an
 * earlier layout, race-free for any number of processes starting at once
 * (docs/contract.md section 12.1). Hand-written rather than `@effect/sql`'s
 * `Migrator`: see docs/architecture.md, "Creating SQL tables".
 *
 * @internal
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Rules from "../../core/sqlStore.js"
import { withCreationLock } from "../../internal/creationLock.js"
import { isCreationRace, retryTransient, TRANSIENT_RETRIES } from "./SqlErrors.js"

/** The table's name as PostgreSQL's `regclass` reads it: each dotted part quoted. */
export const quotedName = Rules.quotedName

/**
 * Creates the table if missing and migrates one of an earlier layout, in a
 * way that any number of processes may run at once:
 *
 * - PostgreSQL: in one transaction holding an advisory lock on the table's
 *   name (`CREATE TABLE IF NOT EXISTS` alone races on the catalog when many
 *   replicas start at once);
 * - SQLite: `CREATE TABLE IF NOT EXISTS` is atomic; the migration runs in a
 *   transaction, retried when another process wins the write lock.
 *
 * Migration: the first layout had `state NOT NULL` and no tombstones; the
 * column becomes nullable (PostgreSQL: `ALTER COLUMN`; SQLite: the table is
 * rebuilt with the same rows). A table without the nullable `request_ids`
 * column (layouts before 0.3.0) gets it (`ADD COLUMN`; its rows read as
 * saved without request ids). Reading the columns by name leaves room for
 * more columns.
 *
 * @internal
 */
export const ensureTable = (sql: SqlClient.SqlClient, name: string): Effect.Effect<void, SqlError> => {
  const table = sql(name)
  const create = sql`CREATE TABLE IF NOT EXISTS ${table} (
    id TEXT PRIMARY KEY NOT NULL,
    revision INTEGER NOT NULL,
    state TEXT,
    request_ids TEXT
  )`
  return sql.onDialectOrElse({
    // One replica at a time, each seeing the table the one before it created (internal/creationLock.ts).
    // A lost race left anyway is retried; bounded.
    pg: () =>
      Effect.retry(
        withCreationLock(
          sql,
          name,
          Effect.gen(function*() {
            yield* create
            const rows = yield* sql<{ readonly name: string; readonly notnull: boolean }>`SELECT attname AS name,
          attnotnull AS notnull FROM pg_attribute
          WHERE attrelid = ${quotedName(name)}::regclass AND attname IN ('state', 'request_ids') AND NOT attisdropped`
            if (rows.find((r) => r.name === "state")?.notnull === true) {
              yield* sql`ALTER TABLE ${table} ALTER COLUMN state DROP NOT NULL`
            }
            // Only when missing: ALTER TABLE takes the table's strongest lock even when it changes nothing.
            if (!rows.some((r) => r.name === "request_ids")) {
              yield* sql`ALTER TABLE ${table} ADD COLUMN request_ids TEXT`
            }
          })
        ),
        { times: TRANSIENT_RETRIES, while: isCreationRace }
      ),
    sqlite: () =>
      Effect.zipRight(
        create,
        retryTransient(sql.withTransaction(Effect.gen(function*() {
          const columns = yield* sql<{ readonly name: string; readonly notnull: number }>`PRAGMA table_info(${table})`
          if (!columns.some((c) => c.name === "request_ids")) {
            yield* sql`ALTER TABLE ${table} ADD COLUMN request_ids TEXT`
          }
          if (columns.find((c) => c.name === "state")?.notnull !== 1) return
          const rebuilt = sql(`${name}_rollmem_migration`)
          yield* sql`DROP TABLE IF EXISTS ${rebuilt}`
          yield* sql`CREATE TABLE ${rebuilt} (
            id TEXT PRIMARY KEY NOT NULL,
            revision INTEGER NOT NULL,
            state TEXT,
            request_ids TEXT
          )`
          yield* sql`INSERT INTO ${rebuilt} (id, revision, state) SELECT id, revision, state FROM ${table}`
          yield* sql`DROP TABLE ${table}`
          yield* sql`ALTER TABLE ${rebuilt} RENAME TO ${sql(name.split(".").pop()!)}`
        })))
      ),
    orElse: () => create
  })
}
