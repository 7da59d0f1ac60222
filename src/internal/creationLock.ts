/**
 * Creating tables when many processes start at once, on PostgreSQL: the
 * store's table (`ConversationStore.makeSql`) and the cluster's recorded
 * settings (`ConversationCluster.checkShardsPerGroup`).
 *
 * @internal
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import { creationLockKey } from "../core/sqlStore.js"

/**
 * Runs `effect` in one transaction holding PostgreSQL's transaction advisory
 * lock on `name` in the current schema, so that processes starting at once
 * create and migrate one after the other (`CREATE TABLE IF NOT EXISTS` alone
 * races on the catalog).
 *
 * The transaction runs at READ COMMITTED whatever the session's default.
 * Under REPEATABLE READ or SERIALIZABLE its snapshot would be taken by its
 * first statement, before the lock is granted: a process that waited would
 * then read the table as it was before the one ahead of it created it (the
 * columns missing: `request_ids` added twice, SQLSTATE 42701), or fail to
 * insert beside the row that one committed (SQLSTATE 40001). At READ
 * COMMITTED each statement after the lock sees what was committed before it.
 *
 * @internal
 */
export const withCreationLock = <A, E, R>(
  sql: SqlClient.SqlClient,
  name: string,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | SqlError, R> =>
  sql.withTransaction(
    Effect.zipRight(
      Effect.zipRight(
        sql`SET TRANSACTION ISOLATION LEVEL READ COMMITTED`,
        sql`SELECT pg_advisory_xact_lock(hashtext(current_schema() || ${creationLockKey(name)}))`
      ),
      effect
    )
  )
