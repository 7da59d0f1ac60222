import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import {
  ConfigError,
  Conversations,
  type ConversationsOptions,
  DisposedError,
  honouringMode
} from "../src/promise/index.js"
import { ConversationStoreError } from "../src/store/ConversationStore.js"
import { servers } from "./store/layers.js"
import { pgSchema, skipNote } from "./store/servers.js"
import { rejection } from "./support/promises.js"

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

describe("Promise facade: stored conversations", () => {
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
      const error = await call.then(() => assert.fail("accepted"), (error: unknown) => error)
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
    let caught: unknown
    await conversations.use("c", async (memory) => {
      await memory.addUserMessage("lost")
      throw boom
    }).catch((e) => {
      caught = e
    })
    assert.strictEqual(caught, boom)
    assert.strictEqual(await conversations.load("c"), undefined)
    await conversations.dispose()
  })

  it("an SQLite file keeps conversations across instances", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rollmem-facade-"))
    const filename = path.join(dir, "conversations.db")
    try {
      const first = new Conversations({ store: { sqlite: filename }, strategy: "buffer" })
      await first.use("x", (memory) => memory.addUserMessage("persisted"))
      await first.dispose()
      const second = new Conversations({ store: { sqlite: filename }, strategy: "buffer" })
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
      ]
    ]
    for (const [options, option, description] of cases) {
      const error = configError(() => untyped(options))
      assert.deepStrictEqual([error.option, error.description], [option, description], JSON.stringify(options))
    }
  })

  it("a store that cannot be opened rejects each call with a ConfigError naming it; the next call tries again", async () => {
    const missing = path.join(os.tmpdir(), `rollmem-no-such-${process.pid}`, "c.db")
    const conversations = new Conversations({ store: { sqlite: missing }, strategy: "buffer" })
    for (let i = 0; i < 2; i++) {
      const error = await rejection(conversations.use("c", (memory) => memory.addUserMessage("lost")))
      assert.instanceOf(error, ConfigError)
      assert.strictEqual((error as ConfigError).option, "store")
      assert.strictEqual(
        (error as ConfigError).description,
        `cannot open sqlite:${missing}: cannot open ${missing}: Cannot open database because the directory does not exist`
      )
    }
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
    let kept: import("../src/promise/index.js").ConversationMemory | undefined
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

  const roundTrip = async (store: ConversationsOptions["store"]) => {
    const first = new Conversations({
      store,
      strategy: "rolling",
      maxTokens: 4,
      summarize: (s, m) => `${s}${m.length}`
    })
    await first.use("x", async (memory) => {
      await memory.addUserMessage("a b c")
      await memory.addAssistantMessage("d e")
    })
    await first.dispose()
    const second = new Conversations({ store, strategy: "buffer" })
    await second.use("x", (memory) => memory.addUserMessage("f"))
    assert.deepStrictEqual(await second.load("x"), {
      version: 2,
      summary: "1",
      buffer: [{ role: "assistant", content: "d e" }, { role: "user", content: "f" }]
    })
    await second.delete("x")
    assert.strictEqual(await second.load("x"), undefined)
    await second.dispose()
  }

  it.skipIf(servers.pg.unreachable !== undefined)(
    `a postgres:// URL keeps conversations across instances ${
      servers.pg.unreachable === undefined ? "" : skipNote(servers.pg)
    }`,
    () =>
      Effect.runPromise(
        Effect.scoped(
          Effect.flatMap(pgSchema(), ({ url }) => Effect.promise(() => roundTrip(url as `postgres://${string}`)))
        )
      )
  )

  it.skipIf(servers.redis.unreachable !== undefined)(
    `a redis:// URL keeps conversations across instances ${
      servers.redis.unreachable === undefined ? "" : skipNote(servers.redis)
    }`,
    () => roundTrip(servers.redis.url as `redis://${string}`)
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
