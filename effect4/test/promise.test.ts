/**
 * The Promise facade on the Effect 4 line: the Effect 3 facade's classes and
 * options over the Effect 4 strategies (docs/contract.md sections 5 to 8).
 */
import { assert, describe, it } from "@effect/vitest"
import {
  AsyncRollingMemory,
  AsyncSummaryMemory,
  BufferMemory,
  ConfigError,
  DisposedError,
  InvalidMessageError,
  Message,
  RollingMemory,
  SummarizerError,
  SummaryMemory,
  UsageError,
  WindowMemory
} from "../src/promise/index.js"
import * as Messages from "../src/schema/Message.js"

/** What `f` throws; fails the test when it returns. */
const thrownBy = (f: () => unknown): unknown => {
  try {
    f()
  } catch (error) {
    return error
  }
  return assert.fail("nothing was thrown")
}

const fold = (summary: string, messages: ReadonlyArray<Message>): string =>
  summary + messages.map((m) => `<${m.content}>`).join("")

describe("the Promise facade on Effect 4", () => {
  it("RollingMemory folds the oldest turns with a synchronous summarizer, in the caller's step", () => {
    const memory = new RollingMemory({ maxTokens: 4, summarize: fold })
    memory.addUserMessage("a b")
    memory.addAssistantMessage("c d")
    memory.addUserMessage("e f")
    assert.strictEqual(memory.summary, "<a b><c d>")
    assert.deepStrictEqual(memory.buffer.map(String), ["user: e f"])
    assert.strictEqual(memory.getContext(), "system: <a b><c d>\nuser: e f")
    assert.strictEqual(memory.bufferTokens, 2)
    assert.strictEqual(memory.summaryTokens, 3)
  })

  it("summarize is required: a function or \"drop\"", () => {
    assert.throws(() => new RollingMemory({ maxTokens: 4 } as never), ConfigError)
    const dropping = new RollingMemory({ maxTokens: 2, summarize: "drop" })
    dropping.addUserMessage("a b")
    dropping.addUserMessage("c d")
    assert.strictEqual(dropping.summary, "")
    assert.deepStrictEqual(dropping.buffer.map((m) => m.content), ["c d"])
    assert.throws(() => new RollingMemory({ maxTokens: 0, summarize: "drop" }), /maxTokens: must be a positive integer/)
  })

  it("a failing summarizer throws the caller's own error (contract 9) and commits nothing", () => {
    const boom = new RangeError("model down")
    const memory = new RollingMemory({
      maxTokens: 2,
      summarize: () => {
        throw boom
      }
    })
    memory.addUserMessage("a b")
    assert.strictEqual(thrownBy(() => memory.addUserMessage("c d")), boom)
    assert.strictEqual(memory.summary, "")
    assert.deepStrictEqual(memory.buffer.map((m) => m.content), ["a b", "c d"])
  })

  it("AsyncSummaryMemory and AsyncRollingMemory reject with the summarizer's rejection reason", async () => {
    const reason = new Error("quota")
    const summary = new AsyncSummaryMemory({ summarize: () => Promise.reject(reason) })
    assert.strictEqual(await summary.addUserMessage("hi").then(() => "nothing", (e: unknown) => e), reason)
    assert.deepStrictEqual(summary.buffer.map(String), ["user: hi"])
    const rolling = new AsyncRollingMemory({ maxTokens: 2, summarize: () => Promise.reject(reason) })
    await rolling.addUserMessage("a b")
    assert.strictEqual(await rolling.addUserMessage("c d").then(() => "nothing", (e: unknown) => e), reason)
    assert.deepStrictEqual(rolling.buffer.map(String), ["user: a b", "user: c d"])
    await summary.dispose()
    await rolling.dispose()
  })

  it("a sync class given a Promise-returning summarizer throws TypeError, changes nothing more, and handles the rejection", async () => {
    let rejected = false
    const late = Promise.reject(new Error("late")).catch((e) => {
      rejected = true
      throw e
    })
    const memory = new RollingMemory({ maxTokens: 5, summarize: (() => late) as unknown as () => string })
    memory.addUserMessage("one two three")
    const thrown = thrownBy(() => memory.addUserMessage("four five six"))
    assert.instanceOf(thrown, TypeError)
    assert.strictEqual(
      (thrown as TypeError).message,
      "summarizer returned a Promise in a synchronous memory; use an async memory (AsyncRollingMemory) for an async summarizer"
    )
    assert.deepStrictEqual(memory.buffer.map((m) => m.content), ["one two three", "four five six"])
    assert.strictEqual(memory.summary, "")
    await new Promise((resolve) => setImmediate(resolve))
    assert.isTrue(rejected)
  })

  it("a result that is not a string throws the SummarizerError itself (rollmem's refusal); an empty one too", async () => {
    const memory = new RollingMemory({ maxTokens: 2, summarize: (() => 42) as unknown as () => string })
    memory.addUserMessage("a b")
    const thrown = thrownBy(() => memory.addUserMessage("c d"))
    assert.instanceOf(thrown, SummarizerError)
    assert.strictEqual(
      (thrown as SummarizerError).message,
      "summarizer failed: summarizer returned number, not a string"
    )
    assert.strictEqual(
      ((thrown as SummarizerError).cause as TypeError).message,
      "summarizer must return a string, got number"
    )
    const async = new AsyncRollingMemory({ maxTokens: 5, summarize: (async () => 42) as never })
    await async.addUserMessage("one two three")
    const rejected = await async.addUserMessage("four five six").then(() => "nothing", (e: unknown) => e)
    assert.instanceOf(rejected, SummarizerError)
    assert.strictEqual(
      (rejected as SummarizerError).message,
      "summarizer failed: summarizer returned number, not a string"
    )
    await async.dispose()
    const empty = new RollingMemory({ maxTokens: 2, summarize: () => " " })
    empty.addUserMessage("a b")
    const refused = thrownBy(() => empty.addUserMessage("c d"))
    assert.instanceOf(refused, SummarizerError)
    assert.strictEqual((refused as SummarizerError).cause, undefined)
    assert.deepStrictEqual(empty.buffer.map(String), ["user: a b", "user: c d"])
  })

  it("state round-trips through toJSON and fromJSON, counted with the facade's tokenCounter", () => {
    const memory = new WindowMemory({ maxMessages: 2, tokenCounter: (text) => text.length })
    memory.addUserMessage("one")
    memory.addUserMessage("two")
    memory.addUserMessage("three")
    const json = JSON.parse(JSON.stringify(memory))
    assert.deepStrictEqual(json, {
      version: 2,
      summary: "",
      buffer: [{ role: "user", content: "two" }, { role: "user", content: "three" }]
    })
    const back = WindowMemory.fromJSON(json, { maxMessages: 2, tokenCounter: (text) => text.length })
    assert.strictEqual(back.bufferTokens, 8)
    const buffer = BufferMemory.fromJSON(JSON.stringify(json))
    assert.strictEqual(buffer.bufferTokens, 2)
    for (const [data, got] of [[null, "null"], [undefined, "undefined"], [5, "number"]] as const) {
      const error = thrownBy(() => BufferMemory.fromJSON(data))
      assert.strictEqual(
        (error as Error).message,
        `cannot read memory state: expected a state object or its JSON text, got ${got}`
      )
      assert.strictEqual((error as { _tag?: string })._tag, "StateDecodeError")
    }
    const summary = new SummaryMemory({ summarize: fold })
    summary.addUserMessage("x")
    assert.strictEqual(summary.summary, "<x>")
  })

  it("AsyncRollingMemory folds with an async summarizer; after dispose, adds are refused", async () => {
    const memory = new AsyncRollingMemory({
      maxTokens: 2,
      summarize: async (summary, messages) => fold(summary, messages)
    })
    await memory.addUserMessage("a b")
    await memory.addUserMessage("c d")
    assert.strictEqual(memory.summary, "<a b>")
    await memory.dispose()
    await memory.addUserMessage("e").then(
      () => assert.fail("refused"),
      (error: unknown) => assert.instanceOf(error, DisposedError)
    )
    assert.strictEqual(memory.summary, "<a b>")
  })

  it("dispose interrupts a summarizer call in flight: its signal aborts and nothing is committed", async () => {
    let aborted = false
    const memory = new AsyncSummaryMemory({
      summarize: (_summary, _messages, signal) =>
        new Promise<string>(() => {
          signal.addEventListener("abort", () => aborted = true)
        })
    })
    const add = memory.addUserMessage("a")
    await new Promise((resolve) => setImmediate(resolve))
    await memory.dispose()
    const error = await add.then(() => assert.fail("interrupted"), (e: unknown) => e)
    assert.instanceOf(error, DOMException)
    assert.deepStrictEqual([(error as DOMException).name, (error as DOMException).message], [
      "AbortError",
      "the add's summarizer call was cancelled by dispose()"
    ])
    assert.isTrue(aborted)
    assert.strictEqual(memory.summary, "")
  })

  it("every class adds system and tool messages by role; an async add of a wrong message rejects", async () => {
    const sync = new BufferMemory()
    sync.addSystemMessage("be brief")
    sync.addAssistantMessage("", { toolCalls: [{ id: "c1", name: "search", arguments: "{}" }] })
    sync.addToolMessage("[]", { toolCallId: "c1" })
    sync.addMessage("user", "thanks")
    assert.deepStrictEqual(sync.buffer.map((m) => [m.role, m.content, m.toolCallId]), [
      ["system", "be brief", undefined],
      ["assistant", "", undefined],
      ["tool", "[]", "c1"],
      ["user", "thanks", undefined]
    ])
    const memory = new AsyncRollingMemory({ maxTokens: 100, summarize: "drop" })
    await memory.addSystemMessage("be brief")
    await memory.addAssistantMessage("", { toolCalls: [{ id: "c1", name: "search", arguments: "{}" }] })
    await memory.addToolMessage("[]", { toolCallId: "c1" })
    await memory.addMessage("user", "thanks")
    assert.deepStrictEqual(memory.buffer.map(String), sync.buffer.map(String))
    const refused = memory.addMessage("user", 42 as never)
    assert.instanceOf(refused, Promise)
    await refused.then(() => assert.fail("refused"), (error: unknown) => assert.instanceOf(error, InvalidMessageError))
    assert.strictEqual(memory.buffer.length, 4)
  })

  it("recordUsage refuses 0 input tokens (a request always has some) as it refuses a negative; nothing recorded", () => {
    const memory = new RollingMemory({ maxTokens: 100, summarize: "drop" })
    memory.addUserMessage("a b c d")
    memory.getMessages()
    memory.recordUsage({ inputTokens: 6 })
    assert.strictEqual(memory.usageRatio, 1.5)
    for (
      const [usage, description] of [
        [{ inputTokens: 0 }, "inputTokens: must be a positive integer, got 0"],
        [{ inputTokens: -1 }, "inputTokens: must be a positive integer, got -1"],
        [{ inputTokens: 0, overheadTokens: 0 }, "inputTokens: must be a positive integer, got 0"],
        [{ inputTokens: 5, overheadTokens: -1 }, "overheadTokens: must be a non-negative integer, got -1"]
      ] as const
    ) {
      const error = (() => {
        try {
          memory.recordUsage(usage)
        } catch (error) {
          return error
        }
        return assert.fail(`accepted ${JSON.stringify(usage)}`)
      })()
      assert.instanceOf(error, UsageError)
      assert.strictEqual((error as UsageError).description, description)
    }
    assert.strictEqual(memory.usageRatio, 1.5)
  })
})

describe("a summarizer that throws a SummarizerError of its own (contract 9)", () => {
  const own = () => new SummarizerError({ description: "needs the AI SDK: npm i ai@6", cause: new Error("inner") })

  it("sync: the add throws that error whole, not its cause", () => {
    const error = own()
    const memory = new RollingMemory({
      maxTokens: 2,
      summarize: () => {
        throw error
      }
    })
    memory.addUserMessage("a b")
    assert.strictEqual(thrownBy(() => memory.addUserMessage("c d")), error)
    assert.deepStrictEqual(memory.buffer.map(String), ["user: a b", "user: c d"])
  })

  it("async: the add rejects with that error whole; another error is still handed back as thrown", async () => {
    const error = own()
    const memory = new AsyncRollingMemory({ maxTokens: 2, summarize: () => Promise.reject(error) })
    await memory.addUserMessage("a b")
    assert.strictEqual(await memory.addUserMessage("c d").then(() => "nothing", (e: unknown) => e), error)
    const plain = new Error("down")
    const other = new AsyncRollingMemory({ maxTokens: 2, summarize: () => Promise.reject(plain) })
    await other.addUserMessage("a b")
    assert.strictEqual(await other.addUserMessage("c d").then(() => "nothing", (e: unknown) => e), plain)
  })
})

describe("a summarizer that throws null or undefined (one rule)", () => {
  for (const value of [null, undefined]) {
    it(`sync: throwing ${String(value)} throws a SummarizerError whose cause is ${String(value)}`, () => {
      const memory = new RollingMemory({
        maxTokens: 2,
        summarize: () => {
          throw value
        }
      })
      memory.addUserMessage("a b")
      const thrown = thrownBy(() => memory.addUserMessage("c d"))
      assert.instanceOf(thrown, SummarizerError)
      assert.strictEqual((thrown as SummarizerError).cause, value)
      assert.strictEqual((thrown as SummarizerError).description, String(value))
      assert.deepStrictEqual(memory.buffer.map(String), ["user: a b", "user: c d"])
    })

    it(`async: rejecting with ${String(value)} rejects with a SummarizerError whose cause is ${String(value)}`, async () => {
      const memory = new AsyncRollingMemory({ maxTokens: 2, summarize: () => Promise.reject(value) })
      await memory.addUserMessage("a b")
      const thrown = await memory.addUserMessage("c d").then(() => "nothing", (e: unknown) => e)
      assert.instanceOf(thrown, SummarizerError)
      assert.strictEqual((thrown as SummarizerError).cause, value)
      assert.deepStrictEqual(memory.buffer.map(String), ["user: a b", "user: c d"])
    })
  }
})

describe("addMessages checks its messages as addMessage does (the Effect 3 facade's rule)", () => {
  it("message objects are taken, a wrong one is refused before anything is added", async () => {
    const memory = new BufferMemory()
    memory.addMessages([{ role: "user", content: "a" }, Messages.assistant("b")] as never)
    assert.deepStrictEqual(memory.buffer.map(String), ["user: a", "assistant: b"])
    const withNull = thrownBy(() => memory.addMessages([{ role: "user", content: "c" }, null] as never))
    assert.instanceOf(withNull, InvalidMessageError)
    assert.strictEqual((withNull as InvalidMessageError).description, "message 1: expected a message object, got null")
    const misspelt = thrownBy(() => memory.addMessages([{ role: "tool", content: "c", toolCallID: "x" }] as never))
    assert.instanceOf(misspelt, InvalidMessageError)
    assert.deepStrictEqual(memory.buffer.map(String), ["user: a", "assistant: b"])
    const later = new AsyncRollingMemory({ maxTokens: 100, summarize: "drop" })
    const rejected = await later.addMessages(42 as never).then(() => "nothing", (e: unknown) => e)
    assert.instanceOf(rejected, InvalidMessageError)
    assert.strictEqual(
      (rejected as InvalidMessageError).description,
      "addMessages takes an array of messages, got number"
    )
    assert.strictEqual(later.buffer.length, 0)
  })
})

describe("add(message) and addMessage(message) as on the Effect 3 line's facade (contract section 9)", () => {
  const hint =
    "addMessage takes (role, content, options) and got a message object as its role: add one message with add(message), several with addMessages(messages)"

  it("add checks a plain object as addMessages does; a Message given to addMessage is refused with what to call instead", async () => {
    const memory = new BufferMemory()
    memory.add(Messages.user("hi", { id: "m1" }))
    memory.add({ role: "assistant", content: "hello" } as never)
    const bad = thrownBy(() => memory.add({ role: "user", content: 5 } as never))
    assert.instanceOf(bad, InvalidMessageError)
    assert.strictEqual((bad as InvalidMessageError).description, "content: Expected string, actual 5")
    const misused = thrownBy(() => memory.addMessage(Messages.user("x") as never, ""))
    assert.instanceOf(misused, InvalidMessageError)
    assert.strictEqual((misused as InvalidMessageError).description, hint)
    assert.deepStrictEqual(memory.toJSON(), {
      version: 2,
      summary: "",
      buffer: [{ role: "user", content: "hi", id: "m1" }, { role: "assistant", content: "hello" }]
    })
    const rolling = new AsyncRollingMemory({ maxTokens: 100, summarize: async (summary: string) => summary })
    const rejected = await rolling.addMessage(Messages.user("x") as never, "").then(() => undefined, (e: unknown) => e)
    assert.instanceOf(rejected, InvalidMessageError)
    assert.strictEqual((rejected as InvalidMessageError).description, hint)
    assert.deepStrictEqual(rolling.buffer.length, 0)
  })
})
