/**
 * The archive's layers (docs/contract.md section 17) against one suite: the
 * in-memory archive, SQLite (FTS5) and PostgreSQL (tsvector + GIN), each
 * in a database or schema of its own. Writes idempotent by (conversation,
 * position), fold numbers, ranking with exact artifact matches first,
 * filters and neighbours, and a memory folding into each; on PostgreSQL, a
 * table of the 0.4.0 layout adopted by archives built on it at once.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { ConfigError } from "../../src/Errors.js"
import { Archive, Message, RollingMemory, Summarizer } from "../../src/index.js"
import * as SqlArchive from "../../src/store/backends/SqlArchive.js"
import { reportUnreachable, servers, tempDirectory } from "./layers.js"
import { pgRun, pgSchema } from "./servers.js"

const sqlite = Layer.unwrapScoped(
  Effect.map(tempDirectory, (dir) => Layer.orDie(SqlArchive.layerSqlite({ filename: `${dir}/archive.db` })))
)
const pg = Layer.unwrapScoped(Effect.map(pgSchema(), ({ url }) => Layer.orDie(SqlArchive.layerPg({ url }))))

const targets: ReadonlyArray<
  { readonly name: string; readonly layer: Layer.Layer<Archive.Archive>; readonly skip: boolean }
> = [
  { name: "in memory", layer: Archive.layerMemory, skip: false },
  { name: "SQLite", layer: sqlite, skip: false },
  { name: "PostgreSQL", layer: pg, skip: servers.pg.unreachable !== undefined }
]

reportUnreachable()

const entries = (texts: ReadonlyArray<readonly [number, Message.Message]>): Array<Archive.Entry> =>
  texts.map(([position, message]) => ({ position, message }))

for (const target of targets) {
  describe.skipIf(target.skip)(target.name, () => {
    const run = <A, E>(effect: Effect.Effect<A, E, Archive.Archive>) => Effect.provide(effect, target.layer)

    it.effect("stores by (conversation, position) once; each write that stores something is the next fold", () =>
      run(Effect.gen(function*() {
        const archive = yield* Archive.Archive
        yield* archive.append("c1", entries([[0, Message.user("a")], [1, Message.assistant("b")]]))
        yield* archive.append("c1", entries([[1, Message.assistant("changed")]]))
        yield* archive.append("c1", entries([[1, Message.assistant("changed")], [3, Message.user("d")]]))
        yield* archive.append("c2", entries([[0, Message.user("other")]]))
        const listed = (yield* archive.messages("c1")).map((a) => [a.position, a.fold, a.message.content])
        assert.deepStrictEqual(listed, [[0, 1, "a"], [1, 1, "b"], [3, 2, "d"]])
        assert.deepStrictEqual((yield* archive.messages("c2")).map((a) => a.conversationId), ["c2"])
      })))

    it.effect("messages come back with every field", () =>
      run(Effect.gen(function*() {
        const archive = yield* Archive.Archive
        const call = Message.assistant("", {
          id: "m1",
          toolCalls: [{ id: "t1", name: "read", arguments: "{\"path\":\"a.ts\"}" }],
          metadata: { k: [1, null] }
        })
        yield* archive.append("c", entries([[7, call]]))
        const [stored] = yield* archive.messages("c")
        assert.deepStrictEqual(stored.message, call)
      })))

    it.effect("ranks the messages naming the query's artifact first; limit, before, roles, neighbours", () =>
      run(Effect.gen(function*() {
        const archive = yield* Archive.Archive
        yield* archive.append(
          "c",
          entries([
            [0, Message.user("book the flight to Rome")],
            [1, Message.assistant("I changed src/cli/Measure.ts and src/cli/Replay.ts")],
            [2, Message.user("measure the cli replay time")],
            [3, Message.tool("Measure.ts: 3 tests fail", { toolCallId: "t9" })],
            [4, Message.user("the flight to Rome leaves at noon")]
          ])
        )
        const at = (matches: ReadonlyArray<Archive.Match>) => matches.map((m) => m.position)
        const found = yield* archive.search("c", "src/cli/Measure.ts")
        assert.strictEqual(found[0].position, 1)
        assert.strictEqual(found[0].exact, 1)
        assert.deepStrictEqual(at(found).slice(1).sort(), [2, 3])
        assert.deepStrictEqual(at(yield* archive.search("c", "flight rome", { before: 4 })), [0])
        assert.deepStrictEqual(at(yield* archive.search("c", "measure", { roles: ["tool"] })), [3])
        assert.deepStrictEqual((yield* archive.search("c", "flight measure cli", { limit: 2 })).length, 2)
        const [noon] = yield* archive.search("c", "noon", { neighbours: 2 })
        assert.deepStrictEqual([noon.position, noon.neighbours.map((n) => n.position)], [4, [2, 3]])
        assert.deepStrictEqual(yield* archive.search("c", "nothing here"), [])
        assert.deepStrictEqual(yield* archive.search("other", "flight"), [])
        assert.deepStrictEqual(
          yield* Effect.flip(archive.search("c", "x", { neighbours: -1 })),
          new ConfigError({ option: "neighbours", description: "must be a non-negative integer, got -1" })
        )
      })))

    it.effect("a message holding more of the query's terms ranks first, beyond the candidates read by rank", () =>
      run(Effect.gen(function*() {
        const archive = yield* Archive.Archive
        // 30 messages repeating two of the terms (PostgreSQL's ts_rank puts them above the one holding all
        // three: 0.0647 against 0.0608), then the one holding all three
        yield* archive.append(
          "c",
          entries([
            ...Array.from({ length: 30 }, (_, i) => [i, Message.user("alpha beta ".repeat(20).trim())] as const),
            [30, Message.user("alpha and then beta and gamma")]
          ])
        )
        const at = (matches: ReadonlyArray<Archive.Match>) => matches.map((m) => m.position)
        assert.deepStrictEqual(at(yield* archive.search("c", "alpha beta gamma", { limit: 1 })), [30])
        assert.deepStrictEqual(at(yield* archive.search("c", "alpha beta gamma")), [30, 29, 28, 27, 26])
        assert.deepStrictEqual(at(yield* archive.search("c", "gamma delta")), [30])
      })))

    it.effect("a memory folds into it: every evicted turn once, recall finds it", () =>
      run(Effect.gen(function*() {
        const archive = yield* Archive.Archive
        const memory = yield* RollingMemory.make({ maxTokens: 6, archive, conversationId: "m" }).pipe(
          Effect.provide(Summarizer.layerFunction((summary, turns) => `${summary}${turns.length}`))
        )
        for (let i = 0; i < 6; i++) yield* memory.add(Message.user(`turn ${i} about task-${i}`))
        const stored = (yield* archive.messages("m")).map((a) => [a.position, a.fold])
        assert.deepStrictEqual(stored, [[0, 1], [1, 2], [2, 3], [3, 4], [4, 5]])
        assert.deepStrictEqual((yield* memory.state).positions, [5])
        const [hit] = yield* memory.recall("task-2")
        assert.deepStrictEqual([hit.position, hit.exact, hit.message.content], [2, 1, "turn 2 about task-2"])
      })))
  })
}

/** The archive table and index of 0.4.0, as it deployed them. */
const LAYOUT_0_4 = [
  `CREATE TABLE rollmem_archive (conversation_id TEXT NOT NULL, position BIGINT NOT NULL, fold INTEGER NOT NULL,
    role TEXT NOT NULL, message TEXT NOT NULL, terms TEXT NOT NULL, artifacts TEXT NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', terms)) STORED, PRIMARY KEY (conversation_id, position))`,
  "CREATE INDEX rollmem_archive_tsv ON rollmem_archive USING GIN (tsv)",
  `INSERT INTO rollmem_archive (conversation_id, position, fold, role, message, terms, artifacts) VALUES
    ('old', 0, 1, 'user', '{"role":"user","content":"deploy ticket ABC-123"}', 'deploy ticket abc 123', 'ABC-123'),
    ('old', 1, 1, 'assistant', '{"role":"assistant","content":"the deploy script failed"}',
      'the deploy script failed', ''),
    ('old', 2, 2, 'user', '{"role":"user","content":"retry the script"}', 'retry the script', ''),
    ('other', 0, 1, 'user', '{"role":"user","content":"deploy script"}', 'deploy script', '')`
]

describe.skipIf(servers.pg.unreachable !== undefined)("PostgreSQL, a table deployed before", () => {
  it.scoped("8 archives built at once adopt a 0.4.0 table: its rows searched, the new index, no old one", () =>
    Effect.gen(function*() {
      const { schema, url } = yield* pgSchema()
      for (const statement of LAYOUT_0_4) yield* pgRun(url, statement)
      const layer = Layer.orDie(SqlArchive.layerPg({ url, maxConnections: 1 }))
      const built = yield* Effect.all(
        Array.from({ length: 8 }, () => Layer.build(Layer.fresh(layer))),
        { concurrency: "unbounded" }
      )
      const archive = Context.get(built[0], Archive.Archive)
      const at = (matches: ReadonlyArray<Archive.Match>) => matches.map((m) => [m.position, m.exact])
      assert.deepStrictEqual(at(yield* archive.search("old", "deploy script")), [[1, 0], [2, 0], [0, 0]])
      assert.deepStrictEqual(at(yield* archive.search("old", "ABC-123")), [[0, 1]])
      assert.deepStrictEqual(at(yield* archive.search("old", "script", { before: 2, roles: ["assistant"] })), [[1, 0]])
      yield* archive.append("old", entries([[3, Message.user("deploy again")]]))
      assert.deepStrictEqual(
        (yield* archive.messages("old")).map((a) => [a.position, a.fold]),
        [[0, 1], [1, 1], [2, 2], [3, 3]]
      )
      assert.deepStrictEqual(at(yield* Context.get(built[7], Archive.Archive).search("old", "deploy")), [
        [3, 0],
        [1, 0],
        [0, 0]
      ])
      assert.deepStrictEqual(
        yield* pgRun(url, `SELECT indexname FROM pg_indexes WHERE schemaname = '${schema}' ORDER BY indexname`),
        [{ indexname: "rollmem_archive_pkey" }, { indexname: "rollmem_archive_search" }]
      )
      assert.deepStrictEqual(
        yield* pgRun(
          url,
          `SELECT attstorage FROM pg_attribute WHERE attrelid = '${schema}.rollmem_archive'::regclass AND attname = 'tsv'`
        ),
        [{ attstorage: "e" }]
      )
    }))
})
