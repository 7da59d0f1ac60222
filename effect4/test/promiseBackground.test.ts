/**
 * The Promise facade's background folds and dispose() on the Effect 4 line:
 * the Effect 3 line's cases with their exact values
 * (`test/support/promiseBackgroundCases.ts`), then the facade cases of
 * test/background.test.ts and test/promiseTimeout.test.ts
 * (docs/contract.md sections 5.1 and 5.2).
 */
import { assert, describe, it } from "@effect/vitest"
import { outcome, runPromiseBackgroundCases } from "../../test/support/promiseBackgroundCases.js"
import {
  AsyncRollingMemory,
  ConfigError,
  DisposedError,
  RollingMemory,
  type RollingOptions
} from "../src/promise/index.js"

runPromiseBackgroundCases({ AsyncRollingMemory, ConfigError, DisposedError }, { assert, describe, it })

describe("AsyncRollingMemory with fold: \"background\" (the Effect 3 line's test/background.test.ts)", () => {
  it("an add resolves before its fold; dispose() cancels the fold in flight and commits nothing", async () => {
    let release: ((summary: string) => void) | undefined
    let aborted = false
    const memory = new AsyncRollingMemory({
      maxTokens: 4,
      fold: "background",
      summarize: (_summary, messages, signal) =>
        new Promise<string>((resolve) => {
          signal.addEventListener("abort", () => {
            aborted = true
          })
          release = () => resolve(messages.map((m) => m.id).join(","))
        })
    })
    assert.strictEqual(memory.fold, "background")
    await memory.addUserMessage("a b", { id: "t1" })
    await memory.addUserMessage("c d", { id: "t2" })
    await memory.addUserMessage("e f", { id: "t3" }) // over the budget: resolves anyway
    await new Promise((resolve) => setImmediate(resolve))
    assert.isDefined(release, "the fold started")
    assert.deepStrictEqual(memory.buffer.map((m) => m.id), ["t1", "t2", "t3"])
    await memory.dispose()
    assert.isTrue(aborted)
    assert.strictEqual(memory.summary, "")
    assert.deepStrictEqual(memory.buffer.map((m) => m.id), ["t1", "t2", "t3"])
  })

  it("a fold that commits: the summary holds the folded turns; blocking memories say so", async () => {
    const memory = new AsyncRollingMemory({
      maxTokens: 4,
      fold: "background",
      summarize: async (summary, messages) => summary + messages.map((m) => `<${m.id}>`).join("")
    })
    await memory.addUserMessage("a b", { id: "t1" })
    await memory.addUserMessage("c d", { id: "t2" })
    await memory.addUserMessage("e f", { id: "t3" })
    for (let i = 0; i < 5 && memory.summary === ""; i++) await new Promise((resolve) => setImmediate(resolve))
    assert.strictEqual(memory.summary, "<t1>")
    assert.deepStrictEqual(memory.buffer.map((m) => m.id), ["t2", "t3"])
    assert.isUndefined(memory.lastFoldFailure)
    await memory.dispose()
    const blocking = new AsyncRollingMemory({ maxTokens: 4, summarize: "drop" })
    assert.strictEqual(blocking.fold, "blocking")
    assert.isUndefined(blocking.lastFoldFailure)
  })

  it("a failed fold is kept in lastFoldFailure as the summarizer's own error", async () => {
    const boom = new Error("model overloaded")
    const memory = new AsyncRollingMemory({
      maxTokens: 4,
      fold: "background",
      summarize: () => Promise.reject(boom)
    })
    await memory.addUserMessage("a b", { id: "t1" })
    await memory.addUserMessage("c d", { id: "t2" })
    await memory.addUserMessage("e f", { id: "t3" })
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
    assert.strictEqual(memory.lastFoldFailure, boom)
    assert.deepStrictEqual(memory.buffer.map((m) => m.id), ["t1", "t2", "t3"])
    await memory.dispose()
  })

  it("options are checked: background on the synchronous class, bad foldRetries, foldRetry in the facade", () => {
    assert.throws(
      () => new RollingMemory({ fold: "background", summarize: "drop" } as RollingOptions),
      ConfigError,
      "invalid option fold: unknown option (known: maxTokens, "
    )
    assert.throws(
      () => new AsyncRollingMemory({ fold: "background", foldRetries: -1, summarize: () => Promise.resolve("") }),
      ConfigError,
      "invalid option foldRetries: must be a non-negative integer, got -1"
    )
    assert.throws(
      () => new AsyncRollingMemory({ fold: "background", foldRetry: 1, summarize: "drop" } as never),
      ConfigError,
      "invalid option foldRetry: unknown option"
    )
  })

  it("timeout with background folds: an add held back by the hard cap rejects with the fold's TimeoutError; every turn stays", async () => {
    const signals: Array<AbortSignal> = []
    const summarize = (_summary: string, _messages: ReadonlyArray<unknown>, signal: AbortSignal) => {
      signals.push(signal)
      return new Promise<string>(() => {})
    }
    const memory = new AsyncRollingMemory({
      maxTokens: 3,
      hardMaxTokens: 6,
      fold: "background",
      summarize,
      timeout: 25
    })
    await memory.addUserMessage("a b c")
    await memory.addAssistantMessage("d e") // over the budget: a fold starts behind the add
    const error = await outcome(memory.addUserMessage("f g")) // would pass the hard cap: waits for the fold
    for (const e of [error, memory.lastFoldFailure]) {
      assert.instanceOf(e, DOMException)
      assert.deepStrictEqual([(e as DOMException).name, (e as DOMException).message], [
        "TimeoutError",
        "the summarizer did not settle within 25 ms"
      ])
    }
    assert.isTrue(signals[0].aborted)
    assert.strictEqual(memory.summary, "")
    assert.strictEqual(memory.getContext(), "user: a b c\nassistant: d e\nuser: f g")
    await memory.dispose()
  })
})
