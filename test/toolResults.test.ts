/**
 * Tool results cut at the door, `maxToolResultTokens` (docs/contract.md
 * section 10.8): the pure cut (`core/toolResults.ts`) with exact head, tail
 * and marker, and the memory's add: a result over the limit is stored cut,
 * each message counted once (a cut result: once, then once per attempt),
 * the same through the synchronous and the effectful counter, `addMessages`
 * and the Promise facade; the option checked like every other.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, FastCheck as fc, Layer } from "effect"
import * as ToolResults from "../src/core/toolResults.js"
import * as Facade from "../src/promise/index.js"
import * as Message from "../src/schema/Message.js"
import * as Options from "../src/schema/Options.js"
import * as Summarizer from "../src/services/Summarizer.js"
import * as TokenCounter from "../src/services/TokenCounter.js"
import * as RollingMemory from "../src/strategies/RollingMemory.js"
import { call, result, u } from "./support/harness.js"

/** `w0 w1 ... w29`: 30 words, 109 characters; with its call id `c1`, 31 words of token text. */
const thirty = Array.from({ length: 30 }, (_, i) => `w${i}`).join(" ")

// Attempt 1 keeps 10 of 31 tokens: floor(109 * 10 / 31) = 35 characters, 18 ahead and 17 behind: 17 words
// counted with the id, over 10; attempt 2 keeps 10 - 7 = 3: floor(109 * 3 / 31) = 10 characters, 5 and 5
const FIRST = "w0 w1 w2 w3 w4 w5 \n[... 21 tokens cut ...]\n5 w26 w27 w28 w29"
const CUT = "w0 w1\n[... 28 tokens cut ...]\n8 w29"

describe("ToolResults.cut (pure)", () => {
  it("keeps the head (half rounded up) and the tail in proportion, the marker between", () => {
    assert.strictEqual(ToolResults.cut("abcdefghijklmnopqrst", 10, 4), "abcd\n[... 6 tokens cut ...]\nqrst")
    assert.strictEqual(ToolResults.cut("abcdefghijklmnopqrst", 10, 3), "abc\n[... 7 tokens cut ...]\nrst")
    assert.strictEqual(ToolResults.cut("abcdefghijklmnopqrstuvwxyz0123", 10, 1), "ab\n[... 9 tokens cut ...]\n3")
    assert.strictEqual(ToolResults.cut("abcdefghij", 10, 0), "\n[... 10 tokens cut ...]\n")
    assert.strictEqual(ToolResults.cut(thirty, 31, 10), FIRST)
    assert.strictEqual(ToolResults.cut(thirty, 31, 3), CUT)
  })

  it("never splits a surrogate pair: a pair at either edge is left out whole", () => {
    // "ab😀cd😀ef": 10 code units; keep 5 of 10 tokens: 5 units, head 3 ends inside the first pair, the tail's 2
    // start after the second pair: "ab" and "ef"
    assert.strictEqual(ToolResults.cut("ab😀cd😀ef", 10, 5), "ab\n[... 5 tokens cut ...]\nef")
    // keep 6: 6 units, head 3 -> "ab", tail 3 starts inside the second pair -> "ef"
    assert.strictEqual(ToolResults.cut("ab😀cd😀ef", 10, 6), "ab\n[... 4 tokens cut ...]\nef")
    const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("a", " ", "😀", "東"), maxLength: 40 }), fc.nat(40), (text, k) => {
        // well-formed UTF-16: no lone surrogate
        assert.isFalse(lone.test(ToolResults.cut(text, 40, k)))
      })
    )
  })

  it("next: kept when within the limit; else keeps counted - max fewer; the last attempt keeps the marker only", () => {
    const first = ToolResults.start(thirty, 31, 10)
    assert.deepStrictEqual(first, { content: FIRST, keep: 10, attempt: 1 })
    assert.strictEqual(ToolResults.next(thirty, 31, 10, first, 10), undefined)
    const second = ToolResults.next(thirty, 31, 10, first, 17)
    assert.deepStrictEqual(second, { content: CUT, keep: 3, attempt: 2 })
    const third = ToolResults.next(thirty, 31, 10, second!, 12)
    assert.deepStrictEqual(third, { content: "w0\n[... 30 tokens cut ...]\n9", keep: 1, attempt: 3 })
    const last = ToolResults.next(thirty, 31, 10, third!, 11)
    assert.deepStrictEqual(last, { content: "\n[... 31 tokens cut ...]\n", keep: 0, attempt: 4 })
    assert.strictEqual(ToolResults.next(thirty, 31, 10, last!, 11), undefined)
  })
})

/** A word counter recording every text it counts. */
const recordingCounter = () => {
  const counted: Array<string> = []
  const count = (text: string) => {
    counted.push(text)
    return TokenCounter.wordCount(text)
  }
  return {
    counted,
    sync: TokenCounter.fromFunction(count),
    effect: TokenCounter.make({ count: (text) => Effect.sync(() => count(text)) })
  }
}

const drop = Summarizer.layerDrop

describe("maxToolResultTokens in a RollingMemory", () => {
  for (const kind of ["sync", "effect"] as const) {
    it.effect(`a result over the limit is stored cut, each attempt counted once (${kind} counter)`, () =>
      Effect.gen(function*() {
        const rec = recordingCounter()
        const memory = yield* RollingMemory.make({ maxTokens: 100, maxToolResultTokens: 10 }).pipe(
          Effect.provide(Layer.succeed(TokenCounter.TokenCounter, rec[kind])),
          Effect.provide(drop)
        )
        yield* memory.add(u("u1"))
        yield* memory.add(call("c1"))
        yield* memory.add(result("c1", thirty))
        // a result within the limit and a long message that is not a result are stored as given
        yield* memory.add(result("c1", "w w w w w w w w w"))
        yield* memory.add(Message.user(thirty))
        const buffer = yield* memory.buffer
        assert.deepStrictEqual(buffer.map((m) => m.content), ["u1 w w w w", "", CUT, "w w w w w w w w w", thirty])
        assert.strictEqual(buffer[2].toolCallId, "c1")
        assert.strictEqual(buffer[2].role, "tool")
        // 5 + 1 + 10 + 10 + 30
        assert.strictEqual(yield* memory.bufferTokens, 56)
        assert.deepStrictEqual(rec.counted, [
          "u1 w w w w",
          "f({})",
          `${thirty}\nc1`,
          `${FIRST}\nc1`,
          `${CUT}\nc1`,
          "w w w w w w w w w\nc1",
          thirty
        ])
      }))
  }

  it.effect("addMessages cuts the same way, and a later add counts only its own message", () =>
    Effect.gen(function*() {
      const rec = recordingCounter()
      const memory = yield* RollingMemory.make({ maxTokens: 100, maxToolResultTokens: 10 }).pipe(
        Effect.provide(Layer.succeed(TokenCounter.TokenCounter, rec.sync)),
        Effect.provide(drop)
      )
      yield* memory.addMessages([u("u1"), call("c1"), result("c1", thirty)])
      assert.deepStrictEqual((yield* memory.buffer).map((m) => m.content), ["u1 w w w w", "", CUT])
      assert.strictEqual(rec.counted.length, 5)
      yield* memory.add(u("u2"))
      assert.deepStrictEqual(rec.counted.slice(5), ["u2 w w w w"])
    }))

  it.effect("a cut that would not lower the count is not made", () =>
    Effect.gen(function*() {
      // a call id of 12 words: every attempt counts 12 + the marker's 5 or more, over the 13 of the original
      const id = "i i i i i i i i i i i i"
      const memory = yield* RollingMemory.make({ maxTokens: 100, maxToolResultTokens: 5 }).pipe(Effect.provide(drop))
      const original = Message.tool("x", { toolCallId: id })
      yield* memory.add(original)
      assert.deepStrictEqual((yield* memory.buffer).map((m) => m.content), ["x"])
      assert.strictEqual(yield* memory.bufferTokens, 13)
    }))

  it("the Promise facade cuts on add", () => {
    const memory = new Facade.RollingMemory({ maxTokens: 100, maxToolResultTokens: 10, summarize: "drop" })
    memory.addMessages([u("u1"), call("c1"), result("c1", thirty)])
    assert.deepStrictEqual(memory.buffer.map((m) => m.content), ["u1 w w w w", "", CUT])
    assert.strictEqual(memory.bufferTokens, 16)
  })

  it("is checked like every option", () => {
    const bad = Options.decode(Options.RollingOptions, { maxToolResultTokens: 0 })
    assert.isTrue(Either.isLeft(bad))
    if (Either.isLeft(bad)) {
      assert.strictEqual(bad.left.option, "maxToolResultTokens")
      assert.strictEqual(bad.left.description, "must be a positive integer, got 0")
    }
    assert.strictEqual(Options.flagOf("maxToolResultTokens"), "max-tool-result-tokens")
  })
})
