/**
 * The PostgreSQL archive's statements (`core/sqlStore.ts`, docs/contract.md
 * section 17), exact: the schema statements that create the table or adopt
 * one deployed before, and a search's one statement (its tiers gated on the
 * ones before, the artifacts' phrases checked on the rows the index gives).
 */
import { assert, describe, it } from "@effect/vitest"
import { pgArchiveSchema, pgSearch, searchPlan } from "../src/core/sqlStore.js"

const vector = "(a.tsv || array_to_tsvector(ARRAY['#' || hashtext(a.conversation_id)::text]))"
const conversation = "quote_literal('#' || hashtext($1::text)::text)::tsquery"

describe("pgArchiveSchema", () => {
  it("creates the table, stores the vector uncompressed, indexes it with the conversation, drops 0.4.0's index", () => {
    assert.deepStrictEqual(pgArchiveSchema("app.rollmem_archive").map((s) => s.replace(/\s+/g, " ")), [
      "CREATE TABLE IF NOT EXISTS \"app\".\"rollmem_archive\" ( conversation_id TEXT NOT NULL, position BIGINT " +
      "NOT NULL, fold INTEGER NOT NULL, role TEXT NOT NULL, message TEXT NOT NULL, terms TEXT NOT NULL, " +
      "artifacts TEXT NOT NULL, tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', terms)) STORED, " +
      "PRIMARY KEY (conversation_id, position) )",
      "DO $rollmem$ BEGIN IF (SELECT attstorage FROM pg_attribute WHERE attrelid = " +
      "'\"app\".\"rollmem_archive\"'::regclass AND attname = 'tsv') <> 'e' THEN ALTER TABLE " +
      "\"app\".\"rollmem_archive\" ALTER COLUMN tsv SET STORAGE EXTERNAL; END IF; END $rollmem$",
      "CREATE INDEX IF NOT EXISTS \"rollmem_archive_search\" ON \"app\".\"rollmem_archive\" USING GIN " +
      "((tsv || array_to_tsvector(ARRAY['#' || hashtext(conversation_id)::text]))) WITH (fastupdate = off)",
      "DROP INDEX IF EXISTS \"app\".\"rollmem_archive_tsv\""
    ])
    assert.deepStrictEqual(pgArchiveSchema("it's")[1].match(/'[^']*''[^']*'::regclass/)?.[0], "'\"it''s\"'::regclass")
    assert.strictEqual(pgArchiveSchema("t")[3], "DROP INDEX IF EXISTS \"t_tsv\"")
  })
})

describe("pgSearch", () => {
  it("two terms: all of them, then either, read only when the first tier has fewer than `limit` rows", () => {
    const statement = pgSearch("rollmem_archive", "c1", searchPlan("deploy script", "pg"), { limit: 3 })
    assert.deepStrictEqual(statement.params, [
      "c1",
      "deploy | script",
      23,
      "(deploy & script)",
      "deploy | script",
      3,
      "deploy",
      "script"
    ])
    const part = (match: string, held: string, gate: string, order: string) =>
      `SELECT position, artifacts, ts_rank(v, to_tsquery('simple', $2)) AS rank, ${held} AS held ` +
      `FROM (SELECT a.position, a.artifacts, a.tsv || ''::tsvector AS v FROM "rollmem_archive" a ` +
      `WHERE a.conversation_id = $1 AND ${vector} @@ (to_tsquery('simple', ${match}) && ${conversation})${gate} ` +
      `OFFSET 0) s ORDER BY ${order}rank DESC, position DESC LIMIT $3`
    assert.strictEqual(
      statement.text.replace(/\s+/g, " "),
      `WITH t0 AS MATERIALIZED (${part("$4", "2", "", "")}), ` +
        `t1 AS MATERIALIZED (${
          part(
            "$5",
            "(v @@ to_tsquery('simple', $7))::int + (v @@ to_tsquery('simple', $8))::int",
            " AND (SELECT count(*) FROM t0) < $6",
            "held DESC, "
          )
        }) SELECT * FROM t0 UNION ALL SELECT * FROM t1`
    )
  })

  it("an artifact: its phrase checked on the rows holding its terms; before and roles in every part", () => {
    const statement = pgSearch("rollmem_archive", "c1", searchPlan("see ABC-123", "pg"), {
      before: 9,
      roles: ["user", "tool"]
    })
    assert.deepStrictEqual(statement.params, [
      "c1",
      "see | abc | 123",
      25,
      9,
      "user",
      "tool",
      "(abc & 123)",
      "see",
      "abc",
      "123",
      "(abc <-> 123) & (see | abc | 123)",
      "(see & abc & 123)",
      "(see & abc) | (see & 123) | (abc & 123)",
      5,
      "see | abc | 123"
    ])
    const text = statement.text.replace(/\s+/g, " ")
    assert.strictEqual(text.split("a.position < $4 AND a.role IN ($5, $6)").length - 1, 4)
    assert.strictEqual(text.split("(SELECT count(*) FROM t0) < $14").length - 1, 2)
    assert.strictEqual(text.split("(SELECT count(*) FROM t1) < $14").length - 1, 1)
    assert.isTrue(
      text.endsWith("OFFSET 0) s WHERE v @@ to_tsquery('simple', $11) ORDER BY rank DESC, position DESC LIMIT $3)")
    )
    assert.deepStrictEqual(pgSearch("t", "c", searchPlan("x", "pg"), { roles: [] }).text.includes(" AND 1 = 0 "), true)
  })
})
