/**
 * Counting a long text piece by piece gives the whole text's count, with
 * every tokenizer rollmem counts with (src/core/tokenPieces.ts), and the
 * tokenizer layers count that way (issue 25, rough edge 12: a 50 MB turn).
 */
import { assert, describe, it } from "@effect/vitest"
import { Tokenizer } from "ai-tokenizer"
import * as aiCl100k from "ai-tokenizer/encoding/cl100k_base"
import * as claude from "ai-tokenizer/encoding/claude"
import * as aiO200k from "ai-tokenizer/encoding/o200k_base"
import { Effect, FastCheck as fc } from "effect"
import { countTokens as gptO200k } from "gpt-tokenizer/encoding/o200k_base"
import { Tiktoken } from "js-tiktoken/lite"
import cl100kRanks from "js-tiktoken/ranks/cl100k_base"
import { countInPieces, PIECE_CHARS, RUN_CHARS } from "../../src/core/tokenPieces.js"
import * as Tokenizers from "../../src/layers/Tokenizers.js"
import * as TokenCounter from "../../src/services/TokenCounter.js"

const ai = (data: ConstructorParameters<typeof Tokenizer>[0]) => {
  const tokenizer = new Tokenizer(data)
  return (text: string) => tokenizer.encode(text, "all").length
}
const tiktoken = new Tiktoken(cl100kRanks)

const counters: ReadonlyArray<readonly [string, (text: string) => number]> = [
  ["ai-tokenizer o200k_base", ai(aiO200k)],
  ["ai-tokenizer cl100k_base", ai(aiCl100k)],
  ["ai-tokenizer claude", ai(claude)],
  ["gpt-tokenizer o200k_base", (text) => gptO200k(text, { disallowedSpecial: new Set() })],
  ["js-tiktoken cl100k_base", (text) => tiktoken.encode(text, [], []).length]
]

/** Texts made of what pre-tokenizers treat apart: words, runs of spaces, line breaks, digits, marks, apostrophes, special tokens. */
const text = fc.array(
  fc.constantFrom(
    "a",
    "Word",
    "HELLO",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    " \n ",
    "123",
    "45678",
    "'s",
    "'LL",
    "don't",
    "é",
    "\u0301",
    "日本語",
    "🙂",
    "\u00a0",
    "\u3000",
    "...",
    "/",
    "<|endoftext|>",
    "<|im_start|>",
    "{\"k\": [1, 2]}"
  ),
  { maxLength: 60 }
).map((parts) => parts.join(""))

describe("countInPieces", () => {
  it("equals the whole text's count with every tokenizer, wherever the pieces are cut (property)", () => {
    for (const [name, count] of counters) {
      fc.assert(
        fc.property(text, fc.integer({ min: 1, max: 12 }), (t, size) => {
          assert.strictEqual(countInPieces(count, t, size), count(t), `${name}: ${JSON.stringify(t)} / ${size}`)
        }),
        { numRuns: 300 }
      )
    }
  })

  it("cuts only before a space after a character that is not whitespace, each piece at most one call", () => {
    const calls: Array<string> = []
    const record = (t: string) => {
      calls.push(t)
      return t.length
    }
    assert.strictEqual(countInPieces(record, "one two  three\n four", 3), 20)
    // the space before "  three" follows "two"; the one before "four" follows a line break: no cut there
    assert.deepStrictEqual(calls, ["one", " two", "  three\n four"])
    calls.length = 0
    // no such space: counted whole
    assert.strictEqual(countInPieces(record, "abcdefgh", 3), 8)
    assert.deepStrictEqual(calls, ["abcdefgh"])
    calls.length = 0
    assert.strictEqual(countInPieces(record, "short", PIECE_CHARS), 5)
    assert.deepStrictEqual(calls, ["short"])
  })

  it("counts a run of more than RUN_CHARS characters without whitespace in chunks of RUN_CHARS: the sum of their counts", () => {
    const count = ai(aiO200k)
    assert.strictEqual(RUN_CHARS, 4_096)
    // 10,000 x: chunks of 4,096, 4,096 and 1,808 characters
    assert.strictEqual(count("x".repeat(4_096)), 512)
    assert.strictEqual(count("x".repeat(1_808)), 226)
    assert.strictEqual(countInPieces(count, "x".repeat(10_000)), 512 + 512 + 226)
    // a run of exactly RUN_CHARS characters is counted in one call, as before
    const calls: Array<string> = []
    const record = (t: string) => {
      calls.push(t)
      return count(t)
    }
    assert.strictEqual(countInPieces(record, "x".repeat(4_096)), 512)
    assert.deepStrictEqual(calls.map((t) => t.length), [4_096])
    calls.length = 0
    // text around the run: before it (to the whitespace before the run, which goes with the first chunk) and after it
    const text = "see " + "ab".repeat(3_000) + "\ndone"
    assert.strictEqual(countInPieces(record, text), 1 + 1_025 + 477 + 2)
    assert.deepStrictEqual(calls.map((t) => [t.length, count(t)]), [[3, 1], [4_096, 1_025], [1_905, 477], [5, 2]])
    assert.strictEqual(calls.join(""), text)
    // the whole text's count is one less: the cut inside the run costs a token
    assert.strictEqual(count(text), 1_504)
  })

  it("cuts a long run into chunks of the run length, the whitespace before it with the first chunk", () => {
    const calls: Array<string> = []
    const record = (t: string) => {
      calls.push(t)
      return t.length
    }
    assert.strictEqual(countInPieces(record, "one two abcdefghij tree", PIECE_CHARS, 4), 23)
    assert.deepStrictEqual(calls, ["one two", " abc", "defg", "hij", " tree"])
    calls.length = 0
    // never inside a grapheme: "e" and its combining accent stay together, and so do the halves of an emoji
    assert.strictEqual(countInPieces(record, "abce\u0301fg🙂hi", PIECE_CHARS, 4), 11)
    assert.deepStrictEqual(calls, ["abc", "e\u0301fg", "🙂hi"])
  })

  it("never cuts a long run inside a surrogate pair (property)", () => {
    const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff
    const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff
    const run = fc.array(
      fc.constantFrom("x", "🙂", "👩‍💻", "🇫🇷", "e\u0301", "日", "𝔸", "\ud83d", "\ude42", " ", "\n"),
      { maxLength: 80 }
    ).map((parts) => parts.join(""))
    fc.assert(
      fc.property(run, fc.integer({ min: 1, max: 9 }), (t, size) => {
        const calls: Array<string> = []
        countInPieces(
          (piece) => {
            calls.push(piece)
            return piece.length
          },
          t,
          PIECE_CHARS,
          size
        )
        assert.strictEqual(calls.join(""), t)
        let at = 0
        for (const piece of calls.slice(0, -1)) {
          at += piece.length
          assert.isFalse(
            isHigh(t.charCodeAt(at - 1)) && isLow(t.charCodeAt(at)),
            `${JSON.stringify(t)} / ${size}: cut at ${at}`
          )
        }
      }),
      { numRuns: 1_000 }
    )
  })

  it.effect("the tokenizer layers count a long run in chunks: 1,000,000 x, 125,000 tokens", () =>
    Effect.gen(function*() {
      const counted = yield* Effect.provide(
        Effect.flatMap(TokenCounter.TokenCounter, (counter) => counter.count("x".repeat(1_000_000))),
        Tokenizers.layerO200kBase
      )
      // 244 chunks of 4,096 x (512 tokens each) and one of 576 (72)
      assert.strictEqual(counted, 244 * 512 + 72)
    }))

  it.effect("the tokenizer layers count a long text in pieces: a 10 MB text, the whole text's count", () =>
    Effect.gen(function*() {
      const long = "the quick brown fox jumps over the lazy dog ".repeat(240_000)
      const whole = ai(aiO200k)(long)
      const counted = yield* Effect.provide(
        Effect.flatMap(TokenCounter.TokenCounter, (counter) => counter.count(long)),
        Tokenizers.layerO200kBase
      )
      assert.strictEqual(counted, whole)
      // nine tokens a sentence, and the last space alone
      assert.strictEqual(whole, 2_160_001)
    }))
})
