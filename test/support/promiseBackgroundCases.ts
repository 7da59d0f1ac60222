/**
 * The Promise facade's `dispose()` with folds in flight, and its background
 * options (docs/contract.md sections 5.1 and 5.2), on both lines: the cases
 * and their exact values are here; each line's test
 * (test/promiseBackground.test.ts, effect4/test/promiseBackground.test.ts)
 * gives its `AsyncRollingMemory`, `ConfigError` and `DisposedError`.
 */

/** The facade options the cases use. */
export interface FacadeOptions {
  readonly maxTokens?: number
  readonly hardMaxTokens?: number
  readonly fold?: "background"
  readonly foldRetries?: number
  readonly summarize:
    | "drop"
    | ((summary: string, messages: ReadonlyArray<unknown>, signal: AbortSignal) => string | Promise<string>)
}

/** What the cases read and call of an `AsyncRollingMemory`. */
export interface FacadeMemory {
  readonly buffer: ReadonlyArray<{ readonly content: string }>
  readonly bufferTokens: number
  readonly summary: string
  readonly summaryTokens: number
  readonly lastFoldFailure: unknown
  addUserMessage(content: string): Promise<void>
  addAssistantMessage(content: string): Promise<void>
  addMessages(messages: ReadonlyArray<never>): Promise<void>
  dispose(): Promise<void>
}

/** An error class a line gives (`any` arguments: chai's `Constructor`, which `instanceOf` and `throws` take). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ErrorClass = new(...args: Array<any>) => Error

/** A line's side: its facade class and error classes. */
export interface Line {
  readonly AsyncRollingMemory: new(options: FacadeOptions) => FacadeMemory
  readonly ConfigError: ErrorClass
  readonly DisposedError: ErrorClass
}

/** What {@link runPromiseBackgroundCases} needs of a line's test tooling. */
export interface Vitest {
  readonly describe: (name: string, body: () => void) => void
  readonly it: (name: string, body: () => void | Promise<void>) => void
  readonly assert: {
    strictEqual: (actual: unknown, expected: unknown, message?: string) => void
    deepStrictEqual: (actual: unknown, expected: unknown, message?: string) => void
    isTrue: (value: unknown, message?: string) => void
    isUndefined: (value: unknown, message?: string) => void
    instanceOf: (value: unknown, constructor: ErrorClass | typeof DOMException, message?: string) => void
    throws: (fn: () => void, errorLike: ErrorClass, message: string) => void
  }
}

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
export const outcome = (add: Promise<void>): Promise<unknown> => add.then(() => "resolved", (error: unknown) => error)

const contents = (memory: FacadeMemory) => memory.buffer.map((m) => m.content)

/** Runs the cases against one line. */
export const runPromiseBackgroundCases = (
  { AsyncRollingMemory, ConfigError, DisposedError }: Line,
  { assert, describe, it }: Vitest
): void => {
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
      assert.strictEqual((late as { readonly object: unknown }).object, "AsyncRollingMemory")
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
}
