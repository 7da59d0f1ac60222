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
import { countInPieces, PIECE_CHARS } from "../../src/core/tokenPieces.js"
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
