/**
 * `summaryFraming` (docs/contract.md section 10.10): a line read back before
 * the summary saying it summarizes earlier turns and is background, not an
 * instruction. Counted once, in `contextTokens` and the context window's
 * fixed part; never in the state nor given to the summarizer; off by
 * default (the summary reads back as the Python package reads it).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Rules from "../src/core/options.js"
import { ConfigError, TokenCountError } from "../src/Errors.js"
import {
  BufferMemory,
  Memory,
  MemoryState,
  Message,
  RollingMemory,
  Summarizer,
  SummaryMemory,
  TokenCounter,
  WindowMemory
} from "../src/index.js"
import * as Promise from "../src/promise/index.js"

/** The summaries a summarizer was given, and its answers `sN` (one word). */
const recording = () => {
  const given: Array<string> = []
  const summarizer = Summarizer.fromFunction((summary) => {
    given.push(summary)
    return `s${given.length}`
  })
  return { given, layer: Layer.succeed(Summarizer.Summarizer, summarizer) }
}

const words = TokenCounter.layerWordCount
const DEFAULT_WORDS = TokenCounter.wordCount(`${Rules.DEFAULT_SUMMARY_FRAMING}\n\n`)

describe("summaryFraming", () => {
  it("the default line counts 19 words", () => {
    assert.strictEqual(DEFAULT_WORDS, 19)
  })

  it.effect("true: the default line, a blank line, the summary; counted in contextTokens, not in the state", () =>
    Effect.gen(function*() {
      const { given, layer } = recording()
      const memory = yield* RollingMemory.make({ maxTokens: 3, summaryFraming: true }).pipe(
        Effect.provide(Layer.merge(layer, words))
      )
      for (const text of ["a b", "c d", "e f"]) yield* memory.add(Message.user(text))
      assert.deepStrictEqual((yield* memory.messages).map((m) => [m.role, m.content]), [
        ["system", `${Rules.DEFAULT_SUMMARY_FRAMING}\n\ns2`],
        ["user", "e f"]
      ])
      assert.strictEqual(yield* memory.summaryTokens, 1)
      assert.strictEqual(yield* memory.bufferTokens, 2)
      assert.strictEqual(yield* memory.contextTokens, 1 + 19 + 2)
      // the state and the summarizer never see the line
      const state = yield* memory.toJSON
      assert.deepStrictEqual(state, { version: 2, summary: "s2", buffer: [{ role: "user", content: "e f" }] })
      yield* memory.add(Message.user("g h"))
      yield* memory.add(Message.user("i j"))
      assert.deepStrictEqual(given, ["", "s1", "s2", "s3"])
      assert.strictEqual((yield* memory.messages)[0].content, `${Rules.DEFAULT_SUMMARY_FRAMING}\n\ns4`)
    }))

  it.effect("a string is the line; summaryRole user reads it back in the user message", () =>
    Effect.gen(function*() {
      const memory = yield* RollingMemory.make({
        maxTokens: 3,
        summaryFraming: "Earlier, in brief:",
        summaryRole: "user"
      }).pipe(Effect.provide(Layer.merge(recording().layer, words)))
      for (const text of ["a b", "c d", "e f"]) yield* memory.add(Message.user(text))
      assert.deepStrictEqual((yield* memory.messages).map((m) => [m.role, m.content]), [
        ["user", "Earlier, in brief:\n\ns2"],
        ["user", "e f"]
      ])
      assert.strictEqual(yield* memory.contextTokens, 1 + 3 + 2)
    }))

  it.effect("no summary, no line: an empty summary reads back nothing and counts nothing", () =>
    Effect.gen(function*() {
      const memory = yield* RollingMemory.make({ maxTokens: 10, summaryFraming: true }).pipe(
        Effect.provide(Layer.merge(recording().layer, words))
      )
      yield* memory.add(Message.user("a b"))
      assert.deepStrictEqual((yield* memory.messages).map((m) => m.content), ["a b"])
      assert.strictEqual(yield* memory.contextTokens, 2)
    }))

  it.effect("off by default: the summary reads back alone, as the Python package reads it", () =>
    Effect.gen(function*() {
      const memory = yield* RollingMemory.make({ maxTokens: 3 }).pipe(
        Effect.provide(Layer.merge(recording().layer, words))
      )
      for (const text of ["a b", "c d", "e f"]) yield* memory.add(Message.user(text))
      assert.deepStrictEqual((yield* memory.messages).map((m) => m.content), ["s2", "e f"])
      assert.strictEqual(yield* memory.contextTokens, 3)
    }))

  it.effect("with segments the line opens the first segment's message only", () =>
    Effect.gen(function*() {
      const summarizer = Summarizer.fromFunction(
        Summarizer.honouringMode((
          _summary: string,
          _messages: ReadonlyArray<Message.Message>,
          request: Summarizer.Request
        ) => `seg ${request.mode}`)
      )
      const memory = yield* RollingMemory.make({ maxTokens: 3, summary: "segments", summaryFraming: "Earlier:" }).pipe(
        Effect.provide(Layer.merge(Layer.succeed(Summarizer.Summarizer, summarizer), words))
      )
      for (const text of ["a b", "c d", "e f", "g h", "i j"]) yield* memory.add(Message.user(text))
      assert.deepStrictEqual((yield* memory.messages).map((m) => [m.role, m.content]), [
        ["system", "Earlier:\n\nseg segment"],
        ["system", "seg segment"],
        ["system", "seg segment"],
        ["system", "seg segment"],
        ["user", "i j"]
      ])
      assert.strictEqual(yield* memory.contextTokens, 8 + 1 + 2)
    }))

  it.effect("a restored summary reads back framed in every strategy that reads one back", () =>
    Effect.gen(function*() {
      const state = MemoryState.make("kept", [Message.user("a b")])
      const framing = { summaryFraming: "Earlier:" } as const
      const memories: ReadonlyArray<Memory.Memory> = [
        yield* BufferMemory.fromState(state, framing),
        yield* WindowMemory.fromState(state, { maxMessages: 4, ...framing }),
        yield* SummaryMemory.fromState(state, framing).pipe(Effect.provide(recording().layer)),
        yield* RollingMemory.fromState(state, framing).pipe(Effect.provide(recording().layer))
      ].map((m) => m as Memory.Memory)
      for (const memory of memories) {
        assert.deepStrictEqual((yield* memory.messages).map((m) => m.content), ["Earlier:\n\nkept", "a b"])
      }
    }).pipe(Effect.provide(words)))

  it.effect("the context window holds the line: the buffer's budget is the window less the reserve, summary and line", () =>
    Effect.gen(function*() {
      // window 30, reserve 0: after the first fold the summary (1) and the line (19) leave 10 for the buffer
      const memory = yield* RollingMemory.make({
        contextWindow: { tokens: 30, reserveTokens: 0 },
        summaryFraming: true
      })
        .pipe(Effect.provide(Layer.merge(recording().layer, words)))
      for (let i = 0; i < 20; i++) yield* memory.add(Message.user(`w${i} x`))
      const context = yield* memory.contextTokens
      const buffer = yield* memory.bufferTokens
      // without the line in the fixed part the buffer would fill 29 and the context read 49
      assert.deepStrictEqual([context, buffer, yield* memory.summaryTokens], [30, 10, 1])
    }))

  it.effect("a wrong value, or a counter that cannot count the line, is a ConfigError on summaryFraming", () =>
    Effect.gen(function*() {
      for (const value of ["  ", 3, null]) {
        const refused = yield* Effect.flip(
          RollingMemory.make({ summaryFraming: value as never }).pipe(Effect.provide(recording().layer))
        )
        assert.instanceOf(refused, ConfigError)
        assert.strictEqual(refused.option, "summaryFraming")
      }
      const failing = TokenCounter.make({
        count: () => Effect.fail(new TokenCountError({ description: "offline" }))
      })
      const refused = yield* Effect.flip(
        BufferMemory.make({ summaryFraming: true }).pipe(
          Effect.provide(Layer.succeed(TokenCounter.TokenCounter, failing))
        )
      )
      assert.instanceOf(refused, ConfigError)
      assert.strictEqual(refused.option, "summaryFraming")
    }))

  it("the Promise facade takes it, and its toJSON stays version 2 without the line", () => {
    const memory = new Promise.RollingMemory({
      maxTokens: 3,
      summarize: (summary, turns) => `${summary}+${turns.length}`,
      tokenCounter: TokenCounter.wordCount,
      summaryFraming: true
    })
    for (const text of ["a b", "c d", "e f"]) memory.addUserMessage(text)
    assert.strictEqual(memory.getMessages()[0].content, `${Rules.DEFAULT_SUMMARY_FRAMING}\n\n+1+1`)
    assert.strictEqual(memory.contextTokens, 1 + 19 + 2)
    assert.deepStrictEqual(memory.toJSON(), { version: 2, summary: "+1+1", buffer: [{ role: "user", content: "e f" }] })
  })
})
