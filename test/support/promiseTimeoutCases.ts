/**
 * The async facade's `timeout` option, on both lines (docs/contract.md
 * sections 9 and 12.2): a summarizer call that has not settled within it is
 * abandoned (its AbortSignal fires), the add, `compact` or held-back add
 * rejects with a `TimeoutError`, and nothing is committed. The summarizers
 * here never settle, so the rejection can only come from the timeout; the
 * tests wait on it, and never sleep. Each line's test/promiseTimeout.test.ts
 * gives only its classes ({@link runPromiseTimeoutCases}).
 */
import { rejection } from "./promises.js"

/* eslint-disable @typescript-eslint/no-explicit-any -- each line's classes, typed by that line */
/** A line's facade classes, as `rollmem/promise` exports them. */
export interface Line {
  readonly name: string
  readonly AsyncRollingMemory: new(options: any) => any
  readonly AsyncSummaryMemory: new(options: any) => any
  readonly RollingMemory: new(options: any) => any
  readonly Conversations: new(options: any) => any
  readonly ConfigError: new(...args: ReadonlyArray<any>) => Error
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/** What the cases call on a memory `Conversations.use` lends. */
interface FacadeMemory {
  readonly addUserMessage: (content: string) => Promise<void>
  readonly addAssistantMessage: (content: string) => Promise<void>
  readonly compact: (options?: { readonly targetTokens?: number }) => Promise<void>
}

/** What {@link runPromiseTimeoutCases} needs of a line's test tooling. */
export interface Vitest {
  readonly describe: (name: string, body: () => void) => void
  readonly it: (name: string, body: () => void | Promise<void>) => void
  readonly assert: {
    instanceOf: (value: unknown, constructor: typeof DOMException) => void
    strictEqual: (actual: unknown, expected: unknown, message?: string) => void
    deepStrictEqual: (actual: unknown, expected: unknown, message?: string) => void
    isTrue: (value: unknown, message?: string) => void
    throws: (f: () => unknown, constructor: Line["ConfigError"], message: string) => void
  }
}

/** A summarizer that never settles, keeping the signal of each call. */
const hanging = () => {
  const signals: Array<AbortSignal> = []
  const summarize = (_summary: string, _messages: ReadonlyArray<unknown>, signal: AbortSignal) => {
    signals.push(signal)
    return new Promise<string>(() => {})
  }
  return { signals, summarize }
}

/** Runs the `timeout` cases against one line's classes. */
export const runPromiseTimeoutCases = (line: Line, { assert, describe, it }: Vitest): void => {
  const { AsyncRollingMemory, AsyncSummaryMemory, ConfigError, Conversations, RollingMemory } = line

  const assertTimeout = (error: unknown, millis: number) => {
    assert.instanceOf(error, DOMException)
    assert.strictEqual((error as DOMException).name, "TimeoutError")
    assert.strictEqual((error as DOMException).message, `the summarizer did not settle within ${millis} ms`)
  }

  describe(`the async facade's timeout option (${line.name})`, () => {
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
        summarize: async (summary: string, messages: ReadonlyArray<{ readonly content: string }>) =>
          `${summary}[${messages.map((m) => m.content).join(",")}]`
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

    it("background folds: an add held back by the hard cap rejects with the fold's TimeoutError; every turn stays", async () => {
      const { signals, summarize } = hanging()
      const memory = new AsyncRollingMemory({
        maxTokens: 3,
        hardMaxTokens: 6,
        fold: "background",
        summarize,
        timeout: 25
      })
      await memory.addUserMessage("a b c")
      await memory.addAssistantMessage("d e") // over the budget: a fold starts behind the add
      assertTimeout(await rejection(memory.addUserMessage("f g")), 25) // would pass the hard cap: waits for the fold
      assert.isTrue(signals[0].aborted)
      assertTimeout(memory.lastFoldFailure, 25)
      assert.strictEqual(memory.summary, "")
      assert.strictEqual(memory.getContext(), "user: a b c\nassistant: d e\nuser: f g")
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

  describe(`Conversations' timeout option (docs/contract.md section 12.2, ${line.name})`, () => {
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
        await conversations.use("c", (memory: FacadeMemory) => memory.addUserMessage("a b"))
        const error = await rejection(conversations.use("c", async (memory: FacadeMemory) => {
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
        await conversations.use("c", (memory: FacadeMemory) => memory.addUserMessage("a b"))
        const caught = await conversations.use(
          "c",
          (memory: FacadeMemory) => memory.addAssistantMessage("c d").catch((e: unknown) => e)
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

    it("compact inside use() is bounded the same way: it rejects with TimeoutError, nothing is saved", async () => {
      const { signals, summarize } = hanging()
      const conversations = new Conversations({
        store: "memory",
        strategy: "rolling",
        maxTokens: 100,
        summarize,
        timeout: 10
      })
      try {
        await conversations.use("c", async (memory: FacadeMemory) => {
          await memory.addUserMessage("a b")
          await memory.addUserMessage("c d")
        })
        assertTimeout(
          await rejection(conversations.use("c", (memory: FacadeMemory) => memory.compact({ targetTokens: 2 }))),
          10
        )
        assert.strictEqual(signals.length, 1)
        assert.isTrue(signals[0].aborted)
        assert.deepStrictEqual(await conversations.load("c"), {
          version: 2,
          summary: "",
          buffer: [{ role: "user", content: "a b" }, { role: "user", content: "c d" }]
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
        summarize: async (summary: string, messages: ReadonlyArray<{ readonly content: string }>) =>
          `${summary}[${messages.map((m) => m.content).join(",")}]`
      })
      try {
        await conversations.use("c", (memory: FacadeMemory) => memory.addUserMessage("a b"))
        await conversations.use("c", (memory: FacadeMemory) => memory.addAssistantMessage("c d"))
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
}
