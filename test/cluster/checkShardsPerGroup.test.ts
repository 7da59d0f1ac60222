/**
 * `ConversationCluster.checkShardsPerGroup` when processes start at once: a
 * process that waited on the creation lock while another created the table
 * and recorded the value reads that value, at any session isolation level.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { ConversationCluster } from "../../src/cluster.js"
import { reportUnreachable, servers } from "../store/layers.js"
import { pgSchema, whileCreationLockHeld } from "../store/servers.js"

const RECORDED = [
  `CREATE TABLE ${ConversationCluster.CONFIG_TABLE} (name TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)`,
  `INSERT INTO ${ConversationCluster.CONFIG_TABLE} (name, value) VALUES ('shardsPerGroup', '300')`
]

describe.skipIf(servers.pg.unreachable !== undefined)("ConversationCluster.checkShardsPerGroup", () => {
  // Live clock: the test polls the server for the waiting lock.
  it.scopedLive("under SERIALIZABLE, a process that waited on the lock reads the value recorded meanwhile", () =>
    Effect.gen(function*() {
      // In a snapshot from before the other process committed, the insert would fail (SQLSTATE 40001).
      const { url } = yield* pgSchema({ default_transaction_isolation: "serializable" })
      const check = (shards: number) =>
        Effect.provide(
          Effect.either(ConversationCluster.checkShardsPerGroup(shards)),
          PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })
        )
      const same = yield* whileCreationLockHeld(url, ConversationCluster.CONFIG_TABLE, RECORDED, check(300))
      assert.strictEqual(same._tag, "Right", same._tag === "Left" ? String(same.left) : "")
      const other = yield* check(200)
      assert.strictEqual(other._tag === "Left" ? other.left._tag : other._tag, "ConfigError")
    }))
})

if (servers.pg.unreachable !== undefined) describe("servers", () => reportUnreachable())
