/**
 * The Promise facade's stored conversations on the Effect 4 line
 * (docs/contract.md section 12.2): the Effect 3 suite's
 * `test/promiseConversations.test.ts` with the same values, on every
 * location (`memory`, `sqlite:PATH`, `postgres://…` on a schema of its own,
 * `redis://…` under conversation ids of its own), and a conversation
 * continued across the lines through one store (`scripts/conversationsRoundTrip.ts`,
 * the Effect 3 `Conversations` in its own process).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { rejection } from "../../test/support/promises.js"
import {
  ConfigError,
  type ConversationMemory,
  Conversations,
  type ConversationsOptions,
  DisposedError,
  honouringMode,
  Message
} from "../src/promise/index.js"
import * as Messages from "../src/schema/Message.js"
import * as ConversationStore from "../src/store/ConversationStore.js"
import { ConversationStoreError } from "../src/store/Service.js"
import { servers } from "./store/layers.js"
import { pgSchema, removeKeys, skipNote, unique } from "./store/servers.js"

/** The ConfigError `f` throws. */
const configError = (f: () => unknown): ConfigError => {
  try {
    f()
  } catch (error) {
    assert.instanceOf(error, ConfigError)
    return error as ConfigError
  }
  return assert.fail("no ConfigError thrown")
}

// Plain JavaScript may pass anything: these casts stand for it.
const untyped = (options: unknown) => new Conversations(options as ConversationsOptions)

const tempDir = (): string => fs.mkdtempSync(path.join(os.tmpdir(), "rollmem-e4-conversations-"))

describe("Promise facade (Effect 4): stored conversations", () => {
  it("use() loads, runs the callback once, saves; load() and delete() see the stored state", async () => {
    const conversations = new Conversations({
      store: "memory",
      strategy: "rolling",
      maxTokens: 4,
      summarize: async (summary, messages) => `${summary}+${messages.map((m) => m.content).join(",")}`
    })
    const reply = await conversations.use("c1", async (memory) => {
      await memory.addUserMessage("a b")
      await memory.addAssistantMessage("c d")
      return memory.getContext()
    })
    assert.strictEqual(reply, "user: a b\nassistant: c d")
    await conversations.use("c1", async (memory) => {
      assert.deepStrictEqual(memory.buffer.map((m) => m.content), ["a b", "c d"])
      await memory.addUserMessage("e f")
    })
    assert.deepStrictEqual(await conversations.load("c1"), {
      version: 2,
      summary: "+a b,c d",
      buffer: [{ role: "user", content: "e f" }]
    })
    await conversations.delete("c1")
    assert.strictEqual(await conversations.load("c1"), undefined)
    await conversations.dispose()
  })

  it("an empty id is refused by use(), load() and delete() with ConversationStoreError; the callback never runs", async () => {
    const conversations = new Conversations({ store: "memory", strategy: "buffer" })
    let ran = false
    const refusals = [
      ["load", conversations.use("", async () => void (ran = true))],
      ["load", conversations.load("")],
      ["delete", conversations.delete("")]
    ] as const
    for (const [operation, call] of refusals) {
      const error = await rejection(call)
      assert.instanceOf(error, ConversationStoreError)
      assert.strictEqual(
        (error as ConversationStoreError).message,
        `cannot ${operation} conversation "": a conversation id must be a non-empty string, got ""`
      )
    }
    assert.isFalse(ran)
    await conversations.dispose()
  })

  it("overlapping use() calls on one conversation keep every turn once, each callback run once", async () => {
    const conversations = new Conversations({ store: "memory", strategy: "buffer" })
    let runs = 0
    await Promise.all(Array.from({ length: 20 }, (_, i) =>
      conversations.use("shared", async (memory) => {
        runs++
        await memory.addUserMessage(`turn ${i}`)
      })))
    const stored = await conversations.load("shared")
    assert.strictEqual(runs, 20)
    assert.deepStrictEqual(
      stored?.buffer?.map((m) => m.content).sort(),
      Array.from({ length: 20 }, (_, i) => `turn ${i}`).sort()
    )
    await conversations.dispose()
  })

  it("the callback's rejection reaches the caller and nothing is saved", async () => {
    const conversations = new Conversations({ store: "memory", strategy: "window", maxMessages: 3 })
    const boom = new Error("model down")
    const caught = await rejection(conversations.use("c", async (memory) => {
      await memory.addUserMessage("lost")
      throw boom
    }))
    assert.strictEqual(caught, boom)
    assert.strictEqual(await conversations.load("c"), undefined)
    await conversations.dispose()
  })

  it("an SQLite file keeps conversations across instances", async () => {
    const dir = tempDir()
    const filename = path.join(dir, "conversations.db")
    try {
      const first = new Conversations({ store: { sqlite: filename }, strategy: "buffer" })
      await first.use("x", (memory) => memory.addUserMessage("persisted"))
      await first.dispose()
      const second = new Conversations({ store: `sqlite:${filename}`, strategy: "buffer" })
      assert.deepStrictEqual(await second.load("x"), {
        version: 2,
        summary: "",
        buffer: [{ role: "user", content: "persisted" }]
      })
      await second.dispose()
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("options are checked like the memory classes': each bad one is a ConfigError naming it, thrown at once", () => {
    const cases: ReadonlyArray<readonly [unknown, string, string]> = [
      [null, "options", "must be an object, got null"],
      [
        { store: "redis", strategy: "buffer" },
        "store",
        "expected \"memory\", sqlite:<path>, postgres://… or redis://…, got \"redis\""
      ],
      [
        { store: "memory", strategy: "lru" },
        "strategy",
        "must be one of rolling, buffer, window, summary, got \"lru\""
      ],
      [{ store: "memory" }, "strategy", "must be one of rolling, buffer, window, summary, got undefined"],
      [
        { store: { sqlite: 42 }, strategy: "buffer" },
        "store.sqlite",
        "must be the path of the database file, got number"
      ],
      [
        { store: { sqlite: "" }, strategy: "buffer" },
        "store.sqlite",
        "must be the path of the database file, got \"\""
      ],
      [
        { store: { postgres: "x" }, strategy: "buffer" },
        "store",
        "an object must be { sqlite: path }, got the keys \"postgres\""
      ],
      [{ strategy: "buffer" }, "store", "expected \"memory\", sqlite:<path>, postgres://… or redis://…, got undefined"],
      [
        { store: "memory", strategy: "rolling", maxToken: 100 },
        "maxToken",
        "unknown option for the rolling strategy (known: strategy, maxTokens, contextWindow, targetTokens, boundary, pinSystem, clearToolResults, maxToolResultTokens, summaryRole, summaryFraming, summary, maxSummaryTokens, maxSummarizerInputTokens, ledger, retry, archive, store, table, archiveTable, prefix, summarize, tokenCounter, timeout)"
      ],
      [
        { store: "memory", strategy: "buffer", maxTokens: 100 },
        "maxTokens",
        "unknown option for the buffer strategy (known: strategy, summaryRole, summaryFraming, retry, archive, store, table, archiveTable, prefix, summarize, tokenCounter, timeout)"
      ],
      [
        { store: "memory", strategy: "window", maxMessages: 3, conversationId: "c" },
        "conversationId",
        "unknown option for the window strategy (known: strategy, maxMessages, targetMessages, boundary, pinSystem, summaryRole, summaryFraming, retry, archive, store, table, archiveTable, prefix, summarize, tokenCounter, timeout)"
      ],
      [{ store: "memory", strategy: "rolling", maxTokens: 0 }, "maxTokens", "must be a positive integer, got 0"],
      [{ store: "memory", strategy: "window", maxMessages: 1.5 }, "maxMessages", "must be a positive integer, got 1.5"],
      [
        { store: "memory", strategy: "rolling", summarize: "x" },
        "summarize",
        "must be a function or \"drop\", got \"x\""
      ],
      [
        { store: "memory", strategy: "rolling", maxTokens: 100 },
        "summarize",
        "is required: pass a function that folds the evicted turns into the summary, or \"drop\" to drop them on purpose (an absent summarize dropped them before 0.4.0)"
      ],
      [
        { store: "memory", strategy: "summary", summarize: "drop" },
        "summarize",
        "must be a function: the summary strategy folds every turn, \"drop\" would drop them all"
      ],
      [{ store: "memory", strategy: "buffer", tokenCounter: null }, "tokenCounter", "must be a function, got null"],
      [{ store: "memory", strategy: "summary" }, "summarize", "a summarizer function is required"],
      [
        { store: "postgres://", strategy: "buffer" },
        "store",
        "\"postgres://\" is not a URL with a host (postgres://host:port/…)"
      ],
      [{ store: "memory", strategy: "buffer", retry: 3 }, "retry", "must be a Schedule"],
      [{ store: "memory", strategy: "buffer", archive: "yes" }, "archive", "must be a boolean, got \"yes\""]
    ]
    for (const [options, option, description] of cases) {
      const error = configError(() => untyped(options))
      assert.deepStrictEqual([error.option, error.description], [option, description], JSON.stringify(options))
    }
  })

  it("a store that cannot be opened rejects each call with a ConfigError naming it; the next call tries again", async () => {
    const missing = path.join(os.tmpdir(), `rollmem-e4-no-such-${process.pid}`, "c.db")
    const conversations = new Conversations({ store: { sqlite: missing }, strategy: "buffer" })
    for (let i = 0; i < 2; i++) {
      const error = await rejection(conversations.use("c", (memory) => memory.addUserMessage("lost")))
      assert.instanceOf(error, ConfigError)
      assert.strictEqual((error as ConfigError).option, "store")
      assert.strictEqual(
        (error as ConfigError).description,
        `cannot open sqlite:${missing}: cannot open ${missing}: unable to open database file`
      )
    }
    await conversations.dispose()
  })

  it("a postgres:// URL's password is hidden when the store cannot be opened", async () => {
    const conversations = new Conversations({ store: "postgres://app:secret@127.0.0.1:1/app", strategy: "buffer" })
    const error = await rejection(conversations.load("c"))
    assert.instanceOf(error, ConfigError)
    assert.match((error as ConfigError).description, /^cannot open postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/app: /)
    assert.notInclude((error as ConfigError).description, "secret")
    await conversations.dispose()
  })

  it("use(), load() and delete() after dispose() reject with DisposedError", async () => {
    const conversations = new Conversations({ store: "memory", strategy: "buffer" })
    await conversations.use("c", (memory) => memory.addUserMessage("kept"))
    await conversations.dispose()
    for (
      const call of [conversations.use("c", async () => "ran"), conversations.load("c"), conversations.delete("c")]
    ) {
      const error = await rejection(call)
      assert.instanceOf(error, DisposedError)
      assert.strictEqual((error as DisposedError).object, "Conversations")
      assert.strictEqual(
        (error as DisposedError).message,
        "these Conversations were disposed: create a new Conversations to use the store again"
      )
    }
  })

  it("the rolling strategy drops evicted turns only when told to (summarize: \"drop\"), as the Effect API's Summarizer.drop", async () => {
    const error = configError(() => untyped({ store: "memory", strategy: "rolling", maxTokens: 2 }))
    assert.strictEqual(error.option, "summarize")
    const conversations = new Conversations({ store: "memory", strategy: "rolling", maxTokens: 2, summarize: "drop" })
    await conversations.use("c", async (memory) => {
      for (const text of ["a b", "c d", "e f"]) await memory.addUserMessage(text)
    })
    assert.deepStrictEqual(await conversations.load("c"), {
      version: 2,
      summary: "",
      buffer: [{ role: "user", content: "e f" }]
    })
    await conversations.dispose()
  })

  it("a memory kept after its use() call has ended refuses adds and clear with DisposedError; nothing changes", async () => {
    const conversations = new Conversations({ store: "memory", strategy: "buffer" })
    let kept: ConversationMemory | undefined
    await conversations.use("c", async (memory) => {
      kept = memory
      await memory.addUserMessage("saved")
    })
    const error = await rejection(kept!.addUserMessage("never saved"))
    assert.instanceOf(error, DisposedError)
    assert.strictEqual((error as DisposedError).object, "ConversationMemory")
    assert.strictEqual(
      (error as DisposedError).message,
      "the memory of conversation \"c\" belongs to a use() call that has ended: " +
        "what is added now would never be saved; add inside the use() callback"
    )
    assert.throws(() => kept!.clear(), DisposedError)
    assert.instanceOf(await rejection(kept!.add(Messages.user("late"))), DisposedError)
    assert.instanceOf(await rejection(kept!.addMessages([Messages.user("late")])), DisposedError)
    assert.instanceOf(await rejection(kept!.compact()), DisposedError)
    assert.throws(() => kept!.recordUsage({ inputTokens: 10 }), DisposedError)
    assert.deepStrictEqual(kept!.buffer.map((m) => m.content), ["saved"])
    assert.deepStrictEqual(await conversations.load("c"), {
      version: 2,
      summary: "",
      buffer: [{ role: "user", content: "saved" }]
    })
    // A callback that rejects ends its memory too.
    await rejection(conversations.use("c", async (memory) => {
      kept = memory
      throw new Error("model down")
    }))
    assert.instanceOf(await rejection(kept!.addUserMessage("late")), DisposedError)
    await conversations.dispose()
  })

  it("compact() and recordUsage() inside use() are saved; compact() on the buffer strategy is a ConfigError", async () => {
    const conversations = new Conversations({
      store: "memory",
      strategy: "rolling",
      maxTokens: 100,
      summarize: (summary, messages) => `${summary}+${messages.map((m) => m.content).join(",")}`,
      tokenCounter: (text) => text.length
    })
    await conversations.use("c", async (memory) => {
      await memory.addUserMessage("abcd")
      await memory.addAssistantMessage("efgh")
      await memory.compact({ targetTokens: 4 })
    })
    assert.deepStrictEqual(await conversations.load("c"), {
      version: 2,
      summary: "+abcd",
      buffer: [{ role: "assistant", content: "efgh" }]
    })
    const buffer = new Conversations({ store: "memory", strategy: "buffer" })
    const error = await rejection(buffer.use("c", (memory) => memory.compact()))
    assert.instanceOf(error, ConfigError)
    assert.strictEqual(
      (error as ConfigError).description,
      "compact needs the rolling or summary strategy, got buffer: it has nothing to fold"
    )
    await Promise.all([conversations.dispose(), buffer.dispose()])
  })

  it("a store layer is taken as the store; recall() on a store without an archive is a ConfigError", async () => {
    // the memory store without its archive: a store of one's own that keeps none
    const noArchive = Layer.effect(
      ConversationStore.ConversationStore,
      Effect.gen(function*() {
        const { archive: _, ...store } = yield* ConversationStore.ConversationStore
        return store
      })
    ).pipe(Layer.provide(ConversationStore.layerMemory))
    const conversations = new Conversations({ store: noArchive, strategy: "buffer" })
    await conversations.use("c", (memory) => memory.addUserMessage("kept"))
    assert.deepStrictEqual(await conversations.load("c"), {
      version: 2,
      summary: "",
      buffer: [{ role: "user", content: "kept" }]
    })
    const error = await rejection(conversations.recall("c", "kept"))
    assert.instanceOf(error, ConfigError)
    assert.deepStrictEqual([(error as ConfigError).option, (error as ConfigError).description], [
      "archive",
      "this store keeps no archive: use a store of rollmem/store"
    ])
    await conversations.dispose()
    const failing = new Conversations({
      store: Layer.effect(ConversationStore.ConversationStore, Effect.fail(new Error("no such store"))),
      strategy: "buffer"
    })
    const refused = await rejection(failing.load("c"))
    assert.instanceOf(refused, ConfigError)
    assert.strictEqual((refused as ConfigError).description, "cannot open the store layer: no such store")
    await failing.dispose()
  })

  // The Effect 3 suite's round trip: a rolling writer, then a buffer writer, on one store.
  const roundTrip = async (store: ConversationsOptions["store"], id: string) => {
    const first = new Conversations({
      store,
      strategy: "rolling",
      maxTokens: 4,
      summarize: (s, m) => `${s}${m.length}`
    })
    await first.use(id, async (memory) => {
      await memory.addUserMessage("a b c")
      await memory.addAssistantMessage("d e")
    })
    await first.dispose()
    const second = new Conversations({ store, strategy: "buffer" })
    await second.use(id, (memory) => memory.addUserMessage("f"))
    assert.deepStrictEqual(await second.load(id), {
      version: 2,
      summary: "1",
      buffer: [{ role: "assistant", content: "d e" }, { role: "user", content: "f" }]
    })
    await second.delete(id)
    assert.strictEqual(await second.load(id), undefined)
    await second.dispose()
  }

  it("a sqlite: location keeps conversations across instances", async () => {
    const dir = tempDir()
    try {
      await roundTrip(`sqlite:${path.join(dir, "conversations.db")}`, "x")
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it.skipIf(servers.pg.unreachable !== undefined)(
    `a postgres:// URL keeps conversations across instances ${
      servers.pg.unreachable === undefined ? "" : skipNote(servers.pg)
    }`,
    () =>
      Effect.runPromise(Effect.scoped(
        Effect.flatMap(pgSchema(), ({ url }) => Effect.promise(() => roundTrip(url as `postgres://${string}`, "x")))
      ))
  )

  it.skipIf(servers.redis.unreachable !== undefined)(
    `a redis:// URL keeps conversations across instances ${
      servers.redis.unreachable === undefined ? "" : skipNote(servers.redis)
    }`,
    async () => {
      // the location's default key prefix, so a conversation id of this test's own
      const id = `e4-conversations-${unique()}`
      try {
        await roundTrip(servers.redis.url as `redis://${string}`, id)
      } finally {
        await removeKeys(`rollmem-conversation:${id}`)
      }
    }
  )
})

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")

/**
 * The PATH without the `node_modules/.bin` folders `npm test` puts first (the Effect 3 half needs the
 * `node` that installed the repository's own dependencies, as `store/crossLine.test.ts` explains).
 */
const systemPath = (process.env.PATH ?? "").split(path.delimiter).filter((entry) =>
  !entry.split(path.sep).includes("node_modules")
).join(path.delimiter)

/** The Effect 3 `Conversations` on `store`: `scripts/conversationsRoundTrip.ts`, its own process. */
const effect3 = (store: string, id: string, ...args: ReadonlyArray<string>): unknown =>
  JSON.parse(
    execFileSync("node", ["--import", "tsx", "scripts/conversationsRoundTrip.ts", store, id, ...args], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, PATH: systemPath }
    })
  )

describe("Promise facade (Effect 4): one store, both lines", () => {
  // This line writes (rolling, 4 tokens), the Effect 3 line continues it with archive: true, this line reads
  // the state and searches the archive the Effect 3 line wrote, continues it, and the Effect 3 line reads that.
  const acrossLines = async (store: string, id: string) => {
    const options = {
      store: store as ConversationsOptions["store"],
      strategy: "rolling",
      maxTokens: 4,
      summarize: (summary: string, turns: ReadonlyArray<Message>) =>
        `${summary}+${turns.map((turn) => turn.content).join(",")}`
    } as const
    const mine = new Conversations(options)
    await mine.use(id, async (memory) => {
      await memory.addUserMessage("a b c")
      await memory.addAssistantMessage("d e")
    })
    assert.deepStrictEqual(effect3(store, id, "read"), {
      version: 2,
      summary: "+a b c",
      buffer: [{ role: "assistant", content: "d e" }]
    })
    const continued = effect3(store, id, "add", "f g h")
    assert.deepStrictEqual(await mine.load(id), continued)
    assert.deepStrictEqual(continued, {
      version: 3,
      summary: "+a b c+d e",
      buffer: [{ role: "user", content: "f g h" }],
      conversationId: id,
      nextPosition: 2,
      positions: [1]
    })
    const matches = await mine.recall(id, "d e")
    assert.deepStrictEqual(matches.map((match) => [match.position, match.message.role, match.message.content]), [
      [0, "assistant", "d e"]
    ])
    await mine.use(id, (memory) => memory.addUserMessage("i"))
    assert.deepStrictEqual(effect3(store, id, "read"), await mine.load(id))
    await mine.delete(id)
    assert.strictEqual(effect3(store, id, "read"), null)
    await mine.dispose()
  }

  it("an SQLite file", async () => {
    const dir = tempDir()
    try {
      await acrossLines(`sqlite:${path.join(dir, "conversations.db")}`, "x")
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it.skipIf(servers.pg.unreachable !== undefined)(
    `PostgreSQL ${servers.pg.unreachable === undefined ? "" : skipNote(servers.pg)}`,
    () =>
      Effect.runPromise(Effect.scoped(
        Effect.flatMap(pgSchema(), ({ url }) => Effect.promise(() => acrossLines(url, "x")))
      ))
  )

  it.skipIf(servers.redis.unreachable !== undefined)(
    `Redis ${servers.redis.unreachable === undefined ? "" : skipNote(servers.redis)}`,
    async () => {
      const id = `e4-conversations-${unique()}`
      try {
        await acrossLines(servers.redis.url, id)
      } finally {
        await removeKeys(`rollmem-conversation:${id}`)
      }
    }
  )
})

describe("Conversations with summary segments", () => {
  const segmentsNeedMode = "\"segments\" needs a summarizer that honours request.mode (returns only the new segment, " +
    "or one consolidation): mark one that does with Summarizer.honouringMode (honouringMode of rollmem/promise); " +
    "this one would write the whole summary into every segment"

  it("refuses a summarizer that does not honour request.mode in the constructor, not at the first call", () => {
    try {
      new Conversations({
        store: "memory",
        strategy: "rolling",
        maxTokens: 5,
        summary: "segments",
        summarize: async () => "s"
      })
      assert.fail("constructed")
    } catch (error) {
      assert.instanceOf(error, ConfigError)
      assert.deepStrictEqual([(error as ConfigError).option, (error as ConfigError).description], [
        "summary",
        segmentsNeedMode
      ])
    }
  })

  it("takes one marked with honouringMode and folds in segments", async () => {
    const conversations = new Conversations({
      store: "memory",
      strategy: "rolling",
      maxTokens: 2,
      summary: "segments",
      summarize: honouringMode(async (_summary: string, turns: ReadonlyArray<{ readonly content: string }>) =>
        turns.map((turn) => turn.content).join(" ")
      )
    })
    await conversations.use("c", async (memory) => {
      for (const text of ["a", "b", "c"]) await memory.addUserMessage(text)
    })
    const state = await conversations.load("c") as { readonly segments?: ReadonlyArray<string> }
    assert.deepStrictEqual(state.segments, ["a"])
    await conversations.dispose()
  })
})
