/**
 * The async facade's `timeout` option on the Effect 4 line, as the Effect 3
 * line's test/promiseTimeout.test.ts: a summarizer call that has not settled
 * within it is abandoned (its AbortSignal fires), the add rejects with a
 * `TimeoutError`, and nothing is committed. The summarizers here never settle,
 * so the rejection can only come from the timeout; the test waits on it, and
 * never sleeps. (Background folds are not on this line yet.)
 */
import { assert, describe, it } from "@effect/vitest"
import { rejection } from "../../test/support/promises.js"
import {
  AsyncRollingMemory,
  AsyncSummaryMemory,
  ConfigError,
  Conversations,
  RollingMemory
} from "../src/promise/index.js"

/** A summarizer that never settles, keeping the signal of each call. */
const hanging = () => {
  const signals: Array<AbortSignal> = []
  const summarize = (_summary: string, _messages: ReadonlyArray<unknown>, signal: AbortSignal) => {
    signals.push(signal)
    return new Promise<string>(() => {})
  }
  return { signals, summarize }
}

const assertTimeout = (error: unknown, millis: number) => {
  assert.instanceOf(error, DOMException)
  assert.strictEqual((error as DOMException).name, "TimeoutError")
  assert.strictEqual((error as DOMException).message, `the summarizer did not settle within ${millis} ms`)
}

describe("the async facade's timeout option on Effect 4", () => {
  it("AsyncRollingMemory: the add rejects with TimeoutError, the signal is aborted, nothing is committed", async () => {
    const { signals, summarize } = hanging()
    const memory = new AsyncRollingMemory({ maxTokens: 3, summarize, timeout: 20 })
    await memory.addUserMessage("a b")
    assertTimeout(await rejection(memory.addAssistantMessage("c d")), 20)
    assert.strictEqual(signals.length, 1)
    assert.isTrue(signals[0].aborted)
    assert.strictEqual(memory.summary, "")
    assert.strictEqual(memory.getContext(), "user: a b\nassistant: c d")
    assert.strictEqual(memory.bufferTokens, 4)
    await memory.dispose()
  })

  it("a summarizer that settles in time commits as usual", async () => {
    const memory = new AsyncRollingMemory({
      maxTokens: 3,
      timeout: 60_000,
      summarize: async (summary, messages) => `${summary}[${messages.map((m) => m.content).join(",")}]`
    })
    await memory.addUserMessage("a b")
    await memory.addAssistantMessage("c d")
    assert.strictEqual(memory.getContext(), "system: [a b]\nassistant: c d")
    await memory.dispose()
  })

  it("AsyncSummaryMemory: the same rule", async () => {
    const { signals, summarize } = hanging()
    const memory = new AsyncSummaryMemory({ summarize, timeout: 15 })
    assertTimeout(await rejection(memory.addUserMessage("hello")), 15)
    assert.isTrue(signals[0].aborted)
    assert.strictEqual(memory.summary, "")
    assert.strictEqual(memory.getContext(), "user: hello")
    await memory.dispose()
  })

  it("compact is bounded the same way: it rejects with TimeoutError and commits nothing", async () => {
    const { signals, summarize } = hanging()
    const memory = new AsyncRollingMemory({ maxTokens: 100, summarize, timeout: 10 })
    await memory.addUserMessage("a b")
    await memory.addUserMessage("c d")
    assertTimeout(await rejection(memory.compact({ targetTokens: 2 })), 10)
    assert.isTrue(signals[0].aborted)
    assert.strictEqual(memory.getContext(), "user: a b\nuser: c d")
    await memory.dispose()
  })

  it("a timeout that is not a positive integer is a ConfigError naming it; the sync classes do not take it", () => {
    const { summarize } = hanging()
    for (const timeout of [0, -5, 1.5, "10", null]) {
      assert.throws(
        () => new AsyncRollingMemory({ summarize, timeout: timeout as number }),
        ConfigError,
        // a string is quoted, as every option's wrong value is
        `timeout: must be a positive integer (milliseconds), got ${
          typeof timeout === "string" ? `"${timeout}"` : String(timeout)
        }`
      )
      assert.throws(() => new AsyncSummaryMemory({ summarize, timeout: timeout as number }), ConfigError, "timeout")
    }
    assert.throws(
      () => new AsyncRollingMemory({ maxTokens: 3, timeout: 10, summarize: "drop" }),
      ConfigError,
      "timeout: needs a summarize function: without one, no call is made to bound"
    )
    assert.throws(
      () => new RollingMemory({ summarize: (s: string) => s, timeout: 10 } as never),
      ConfigError,
      "timeout"
    )
  })
})

describe("Conversations' timeout option (docs/contract.md section 12.2)", () => {
  it("an add inside use() rejects with TimeoutError, the signal is aborted, nothing of the call is saved", async () => {
    const { signals, summarize } = hanging()
    const conversations = new Conversations({
      store: "memory",
      strategy: "rolling",
      maxTokens: 3,
      summarize,
      timeout: 20
    })
    try {
      await conversations.use("c", (memory) => memory.addUserMessage("a b"))
      const error = await rejection(conversations.use("c", async (memory) => {
        await memory.addUserMessage("kept in memory only")
        await memory.addAssistantMessage("c d")
      }))
      assertTimeout(error, 20)
      assert.strictEqual(signals.length, 1)
      assert.isTrue(signals[0].aborted)
      assert.deepStrictEqual(await conversations.load("c"), {
        version: 2,
        summary: "",
        buffer: [{ role: "user", content: "a b" }]
      })
    } finally {
      await conversations.dispose()
    }
  })

  it("a callback that catches the rejection saves its turns unfolded: the failed fold committed nothing", async () => {
    const { summarize } = hanging()
    const conversations = new Conversations({
      store: "memory",
      strategy: "rolling",
      maxTokens: 3,
      summarize,
      timeout: 15
    })
    try {
      await conversations.use("c", (memory) => memory.addUserMessage("a b"))
      const caught = await conversations.use(
        "c",
        (memory) => memory.addAssistantMessage("c d").catch((e: unknown) => e)
      )
      assertTimeout(caught, 15)
      assert.deepStrictEqual(await conversations.load("c"), {
        version: 2,
        summary: "",
        buffer: [{ role: "user", content: "a b" }, { role: "assistant", content: "c d" }]
      })
    } finally {
      await conversations.dispose()
    }
  })

  it("a summarizer that settles in time folds and saves as usual", async () => {
    const conversations = new Conversations({
      store: "memory",
      strategy: "rolling",
      maxTokens: 3,
      timeout: 60_000,
      summarize: async (summary, messages) => `${summary}[${messages.map((m) => m.content).join(",")}]`
    })
    try {
      await conversations.use("c", (memory) => memory.addUserMessage("a b"))
      await conversations.use("c", (memory) => memory.addAssistantMessage("c d"))
      assert.deepStrictEqual(await conversations.load("c"), {
        version: 2,
        summary: "[a b]",
        buffer: [{ role: "assistant", content: "c d" }]
      })
    } finally {
      await conversations.dispose()
    }
  })

  it("a timeout that is not a positive integer, or without a summarize function, is a ConfigError naming it", () => {
    const { summarize } = hanging()
    for (const timeout of [0, -5, 1.5, "10", null]) {
      assert.throws(
        () => new Conversations({ store: "memory", strategy: "rolling", summarize, timeout: timeout as number }),
        ConfigError,
        `timeout: must be a positive integer (milliseconds), got ${
          typeof timeout === "string" ? `"${timeout}"` : String(timeout)
        }`
      )
    }
    for (const summarize of ["drop", undefined] as const) {
      assert.throws(
        () => new Conversations({ store: "memory", strategy: "window", maxMessages: 2, summarize, timeout: 10 }),
        ConfigError,
        "timeout: needs a summarize function: without one, no call is made to bound"
      )
    }
  })
})
