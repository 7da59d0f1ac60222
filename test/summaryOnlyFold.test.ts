/**
 * The summary-only fold of a context window (docs/contract.md section 16.1):
 * when the add's prunes leave the context over the window with nothing more
 * to evict, the summarizer is asked once, with no turns, for the summary
 * within the room left; the result commits when it fits, and a summary it
 * could not shorten is not asked about again.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SummarizerError } from "../src/Errors.js"
import { ExtractiveSummarizer, Message, RollingMemory, Summarizer, TokenCounter } from "../src/index.js"
import * as Promise from "../src/promise/index.js"

interface Call {
  readonly summary: string
  readonly turns: number
  readonly budget: number | undefined
}

/**
 * A fold answers `a b c d` (four words); a call with no turns answers the
 * summary's first `maxSummaryTokens` words, or `shorten` of it.
 */
const recording = (
  kind: "sync" | "effect",
  shorten: (summary: string, budget: number) => string | undefined = (summary, budget) =>
    summary.split(" ").slice(0, budget).join(" ")
) => {
  const calls: Array<Call> = []
  const answer = (summary: string, messages: ReadonlyArray<Message.Message>, request: Summarizer.Request) => {
    calls.push({ summary, turns: messages.length, budget: request.maxSummaryTokens })
    return messages.length > 0 ? "a b c d" : shorten(summary, request.maxSummaryTokens!)
  }
  const summarizer = kind === "sync"
    ? Summarizer.fromFunction((summary, messages, request) => {
      const result = answer(summary, messages, request)
      if (result === undefined) throw new SummarizerError({ description: "offline" })
      return result
    })
    : Summarizer.fromEffect((summary, messages, request) => {
      const result = answer(summary, messages, request)
      return result === undefined
        ? Effect.fail(new SummarizerError({ description: "offline" }))
        : Effect.succeed(result)
    })
  return { calls, layer: Layer.merge(Layer.succeed(Summarizer.Summarizer, summarizer), TokenCounter.layerWordCount) }
}

const window = { contextWindow: { tokens: 10, reserveTokens: 0 } }
const turns = ["u1 x x", "u2 x x", "u3 x x x x x x"]

describe("the summary-only fold of a context window", () => {
  for (const kind of ["sync", "effect"] as const) {
    it.effect(`${kind}: the summary shortened into the room the newest unit leaves`, () =>
      Effect.gen(function*() {
        const { calls, layer } = recording(kind)
        const memory = yield* RollingMemory.make(window).pipe(Effect.provide(layer))
        for (const text of turns) yield* memory.add(Message.user(text))
        // two folds leave the 7-word turn and the 4-word summary (11 > 10); the third call has no turns
        assert.deepStrictEqual(calls, [
          { summary: "", turns: 1, budget: undefined },
          { summary: "a b c d", turns: 1, budget: undefined },
          { summary: "a b c d", turns: 0, budget: 3 }
        ])
        assert.strictEqual(yield* memory.summary, "a b c")
        assert.deepStrictEqual((yield* memory.buffer).map((m) => m.content), ["u3 x x x x x x"])
        assert.strictEqual(yield* memory.contextTokens, 10)
      }))
  }

  it.effect("a result that does not fit commits nothing, and that summary is not asked about again", () =>
    Effect.gen(function*() {
      const { calls, layer } = recording("sync", (summary) => summary)
      const memory = yield* RollingMemory.make(window).pipe(Effect.provide(layer))
      for (const text of turns) yield* memory.add(Message.user(text))
      assert.strictEqual(yield* memory.summary, "a b c d")
      assert.strictEqual(yield* memory.contextTokens, 11)
      assert.strictEqual(calls.length, 3)
      // the same summary, still over: no fourth call
      yield* memory.add(Message.assistant("ok"))
      assert.strictEqual(calls.filter((c) => c.turns === 0).length, 1)
    }))

  it.effect("an empty result (the summary cannot fit the room) changes nothing and fails nothing", () =>
    Effect.gen(function*() {
      const { calls, layer } = recording("sync", () => "")
      const memory = yield* RollingMemory.make(window).pipe(Effect.provide(layer))
      for (const text of turns) yield* memory.add(Message.user(text))
      assert.strictEqual(yield* memory.summary, "a b c d")
      assert.strictEqual(yield* memory.contextTokens, 11)
      yield* memory.add(Message.assistant("ok"))
      assert.strictEqual(calls.filter((c) => c.turns === 0).length, 1)
    }))

  it.effect("the extractive summarizer in a window too small for one line: the replay goes on", () =>
    Effect.gen(function*() {
      // four 16-word turns, then a 59-word one: 1 token of room is left beside it, too little for any line
      const memory = yield* RollingMemory.make({ contextWindow: { tokens: 60, reserveTokens: 0 } }).pipe(
        Effect.provide(Layer.merge(ExtractiveSummarizer.layer(), TokenCounter.layerWordCount))
      )
      const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ")
      for (let t = 0; t < 4; t++) yield* memory.add(Message.user(words(16, `t${t}w`)))
      yield* memory.add(Message.user(words(59, "last")))
      assert.deepStrictEqual((yield* memory.buffer).map((m) => m.content), [words(59, "last")])
      // the summary as it was (the three older turns' lines, 51 words): the call with no turns answered ""
      const lines = [1, 2, 3].map((t) => `user: ${words(16, `t${t}w`)}`)
      assert.strictEqual(yield* memory.summary, lines.join("\n"))
      assert.deepStrictEqual([yield* memory.summaryTokens, yield* memory.contextTokens], [51, 110])
    }))

  it.effect("a failing call is the add's error, commits nothing, and keeps the turn", () =>
    Effect.gen(function*() {
      const { layer } = recording("sync", () => undefined)
      const memory = yield* RollingMemory.make(window).pipe(Effect.provide(layer))
      yield* memory.add(Message.user(turns[0]))
      yield* memory.add(Message.user(turns[1]))
      const error = yield* Effect.flip(memory.add(Message.user(turns[2])))
      assert.instanceOf(error, SummarizerError)
      assert.strictEqual(yield* memory.summary, "a b c d")
      assert.deepStrictEqual((yield* memory.buffer).map((m) => m.content), ["u3 x x x x x x"])
    }))

  it.effect("without a context window no call has no turns", () =>
    Effect.gen(function*() {
      const { calls, layer } = recording("sync")
      const memory = yield* RollingMemory.make({ maxTokens: 7 }).pipe(Effect.provide(layer))
      for (const text of turns) yield* memory.add(Message.user(text))
      assert.deepStrictEqual(calls.map((c) => c.turns), [2])
      assert.strictEqual(yield* memory.contextTokens, 11)
    }))

  it("the Promise facade: the same calls and the same summary", () => {
    const calls: Array<number> = []
    const memory = new Promise.RollingMemory({
      ...window,
      tokenCounter: TokenCounter.wordCount,
      summarize: (summary, messages, request) => {
        calls.push(messages.length)
        return messages.length > 0 ? "a b c d" : summary.split(" ").slice(0, request.maxSummaryTokens).join(" ")
      }
    })
    for (const text of turns) memory.addUserMessage(text)
    assert.deepStrictEqual(calls, [1, 1, 0])
    assert.strictEqual(memory.summary, "a b c")
    assert.strictEqual(memory.contextTokens, 10)
  })
})
