/**
 * The SQL backend's reading of database errors: which are the losing side
 * of a race (retried, or a conflict) rather than a failure.
 *
 * @since 0.3.0
 */
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Rules from "../../core/sqlStore.js"

/** The driver's error code (a PostgreSQL SQLSTATE, an SQLite result code) behind a `SqlError`. */
export const sqlStateOf = (error: SqlError): unknown =>
  typeof error.cause === "object" && error.cause !== null
    ? (error.cause as { readonly code?: unknown }).code
    : undefined

/**
 * Whether a database error is the losing side of a race rather than a
 * failure: PostgreSQL's serialization failure (SQLSTATE 40001, under
 * REPEATABLE READ or SERIALIZABLE) and deadlock (40P01), SQLite's busy and
 * locked results (the write lock still held by another connection when the
 * busy timeout ran out, or a snapshot gone stale).
 *
 * @example
 * ```ts
 * import { SqlClient } from "@effect/sql"
 * import { Effect } from "effect"
 * import { ConversationStore } from "rollmem/store"
 *
 * // retry a query that lost a race (serialization failure, deadlock, SQLite busy)
 * const count = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT count(*) AS n FROM rollmem_conversations`).pipe(
 *   Effect.retry({ times: 3, while: ConversationStore.isTransientSqlError })
 * )
 * ```
 *
 * @since 0.1.0
 * @category guards
 */
export const isTransientSqlError = (error: SqlError): boolean => Rules.isTransientCode(sqlStateOf(error))

export const TRANSIENT_RETRIES = Rules.TRANSIENT_RETRIES

/**
 * What table creation retries: a transient error, or the table or its row type reported as existing
 * (SQLSTATE 42P07, 23505: the catalog race of `CREATE TABLE IF NOT EXISTS` run at once). A new
 * attempt, with a new snapshot, succeeds.
 */
export const isCreationRace = (error: SqlError): boolean => Rules.isCreationRaceCode(sqlStateOf(error))

/** Retries a read or a delete that lost a race (bounded); a save reports it as a conflict instead. */
export const retryTransient = <A, R>(effect: Effect.Effect<A, SqlError, R>): Effect.Effect<A, SqlError, R> =>
  Effect.retry(effect, { times: TRANSIENT_RETRIES, while: isTransientSqlError })
