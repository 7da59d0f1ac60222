/**
 * The Promise facade's background folds and dispose() on the Effect 4 line,
 * as the Effect 3 line's test/promiseBackground.test.ts and the facade cases
 * of test/background.test.ts and test/promiseTimeout.test.ts run them, with
 * their exact values (docs/contract.md sections 5.1 and 5.2).
 */
import { assert, describe, it } from "@effect/vitest"
import {
  AsyncRollingMemory,
  ConfigError,
  DisposedError,
  RollingMemory,
  type RollingOptions
} from "../src/promise/index.js"

// A summarizer that never answers: its call ends only when its signal is aborted (rejecting with the
// signal's reason). `started` resolves at the first call.
const hanging = () => {
  const signals: Array<AbortSignal> = []
  let onStart: () => void = () => {}
  const started = new Promise<void>((resolve) => (onStart = resolve))
  const summarize = (_summary: string, _messages: ReadonlyArray<unknown>, signal: AbortSignal) => {
    signals.push(signal)
    onStart()
    return new Promise<string>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)))
  }
  return { signals, started, summarize }
}

// What an add's Promise settles with: "resolved", or the rejection reason.
const outcome = (add: Promise<void>): Promise<unknown> => add.then(() => "resolved", (error: unknown) => error)

const contents = (memory: AsyncRollingMemory) => memory.buffer.map((m) => m.content)

describe("AsyncRollingMemory: dispose()", () => {
  it("background folds: the fold in flight is interrupted, commits nothing; the held-back adds are appended in order and resolve", async () => {
    const { signals, started, summarize } = hanging()
    // cap 40 (twice the budget); each turn is 4 words
    const memory = new AsyncRollingMemory({ maxTokens: 20, fold: "background", summarize })
    const turns = Array.from({ length: 14 }, (_, i) => `turn ${i} a b`)
    const settled: Array<boolean> = turns.map(() => false)
    const adds = turns.map((turn, i) =>
      outcome(
        memory.addUserMessage(turn).finally(() => {
          settled[i] = true
        })
      )
    )
    // the first 10 fill the buffer up to the cap; the 6th, over the budget, started a fold
    assert.deepStrictEqual(await Promise.all(adds.slice(0, 10)), Array(10).fill("resolved"))
    await started
    assert.strictEqual(signals.length, 1)
    assert.deepStrictEqual(contents(memory), turns.slice(0, 10))
    assert.strictEqual(memory.bufferTokens, 40)
    // the last 4 would pass the cap: held back, not appended, still pending
    assert.deepStrictEqual(settled.slice(10), [false, false, false, false])

    await memory.dispose()
    assert.isTrue(signals[0].aborted, "the fold's summarizer call was cancelled")
    // the held-back turns are in the buffer, in arrival order, once dispose resolves; their adds resolve
    assert.deepStrictEqual(contents(memory), turns)
    assert.strictEqual(memory.bufferTokens, 56)
    assert.deepStrictEqual(await Promise.all(adds.slice(10)), Array(4).fill("resolved"))
    // nothing committed, no failure recorded
    assert.strictEqual(memory.summary, "")
    assert.strictEqual(memory.summaryTokens, 0)
    assert.isUndefined(memory.lastFoldFailure)

    // after dispose: adds are refused (DisposedError, nothing appended) and no fold starts
    const late = await outcome(memory.addUserMessage("turn 14 a b"))
    assert.instanceOf(late, DisposedError)
    assert.strictEqual((late as DisposedError).object, "AsyncRollingMemory")
    assert.instanceOf(await outcome(memory.addMessages([])), DisposedError)
    assert.deepStrictEqual(contents(memory), turns)
    assert.strictEqual(signals.length, 1)
    await memory.dispose() // again: nothing to stop
    assert.strictEqual(memory.summary, "")
  })

  it("background folds: a held-back addMessages batch is appended whole and resolves", async () => {
    const { signals, started, summarize } = hanging()
    const memory = new AsyncRollingMemory({ maxTokens: 4, hardMaxTokens: 6, fold: "background", summarize })
    assert.strictEqual(await outcome(memory.addUserMessage("a b c")), "resolved")
    assert.strictEqual(await outcome(memory.addAssistantMessage("d e")), "resolved") // 5 > 4: a fold starts
    await started
    const batch = outcome(memory.addMessages([
      { role: "user", content: "f" },
      { role: "assistant", content: "g" }
    ] as never))
    const single = outcome(memory.addUserMessage("h"))
    assert.deepStrictEqual(contents(memory), ["a b c", "d e"]) // 5 + 2 > 6: both held back
    await memory.dispose()
    assert.deepStrictEqual([await batch, await single], ["resolved", "resolved"])
    assert.deepStrictEqual(contents(memory), ["a b c", "d e", "f", "g", "h"])
    assert.strictEqual(memory.summary, "")
    assert.strictEqual(signals.length, 1)
    assert.isTrue(signals[0].aborted)
  })

  it("blocking folds: the add in a summarizer call and the add waiting behind it reject with AbortError; the turns stay", async () => {
    const { signals, started, summarize } = hanging()
    const memory = new AsyncRollingMemory({ maxTokens: 2, summarize })
    assert.strictEqual(await outcome(memory.addUserMessage("a b")), "resolved")
    const calling = outcome(memory.addAssistantMessage("c d")) // over the budget: its prune calls the summarizer
    await started
    const waiting = outcome(memory.addUserMessage("e f")) // its prune waits for the one in flight
    assert.deepStrictEqual(contents(memory), ["a b", "c d", "e f"])
    await memory.dispose()
    assert.isTrue(signals[0].aborted)
    for (const error of [await calling, await waiting]) {
      assert.instanceOf(error, DOMException)
      assert.strictEqual((error as DOMException).name, "AbortError")
      assert.strictEqual((error as DOMException).message, "the add's summarizer call was cancelled by dispose()")
    }
    // one call, cancelled: nothing committed, every turn kept
    assert.strictEqual(signals.length, 1)
    assert.strictEqual(memory.summary, "")
    assert.deepStrictEqual(contents(memory), ["a b", "c d", "e f"])
  })
})

describe("AsyncRollingMemory: background options, in the facade's terms", () => {
  it("foldRetries without fold: \"background\", and fold: \"background\" without summarize, are ConfigErrors", () => {
    assert.throws(
      () => new AsyncRollingMemory({ summarize: () => "", foldRetries: 2 }),
      ConfigError,
      "invalid option foldRetries: needs fold: \"background\""
    )
    assert.throws(
      () => new AsyncRollingMemory({ fold: "background", summarize: "drop" }),
      ConfigError,
      "invalid option fold: \"background\" needs a summarize function: without one, evicted turns are dropped at once"
    )
  })
})

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
