/**
 * The TokenCounter module: the word count (docs/contract.md section 3), the
 * default service, counters built from functions, and the count check.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, FastCheck as fc, Layer } from "effect"
import { TokenCountError } from "../src/Errors.js"
import * as TokenCounter from "../src/services/TokenCounter.js"
import * as SpecModel from "./support/specModel.js"

describe("word count (contract 3)", () => {
  it("counts runs of non-whitespace", () => {
    assert.strictEqual(TokenCounter.wordCount(""), 0)
    assert.strictEqual(TokenCounter.wordCount("   \n\t "), 0)
    assert.strictEqual(TokenCounter.wordCount("  hello   world\n"), 2)
    assert.strictEqual(TokenCounter.wordCount("a"), 1)
    assert.strictEqual(TokenCounter.wordCount("<|endoftext|> <|im_start|>user"), 2)
  })

  it("splits on every character of Python's whitespace set", () => {
    for (const code of SpecModel.WHITESPACE) {
      const ch = String.fromCharCode(code)
      assert.strictEqual(TokenCounter.wordCount(`a${ch}b`), 2, `U+${code.toString(16).padStart(4, "0")}`)
      assert.strictEqual(TokenCounter.wordCount(`${ch}${ch}`), 0, `U+${code.toString(16).padStart(4, "0")} alone`)
    }
  })

  it("counts U+001C-U+001F and U+0085 as space, unlike JavaScript's \\s", () => {
    assert.strictEqual(TokenCounter.wordCount("a\u001cb\u001dc\u001ed\u001fe\u0085f"), 6)
  })

  it("does not split on U+FEFF, U+200B or U+180E", () => {
    assert.strictEqual(TokenCounter.wordCount("a\ufeffb"), 1)
    assert.strictEqual(TokenCounter.wordCount("a\u200bb"), 1)
    assert.strictEqual(TokenCounter.wordCount("a\u180eb"), 1)
    assert.strictEqual(TokenCounter.wordCount("\ufeff"), 1)
  })

  it("is the default TokenCounter", () =>
    Effect.gen(function*() {
      const counter = yield* TokenCounter.TokenCounter
      assert.strictEqual(yield* counter.count("one two\u0085three"), 3)
    }).pipe(Effect.runSync))

  it.prop(
    "equals the model on any string",
    [fc.string({ unit: fc.constantFrom("a", "é", "😀", " ", "\u0085", "\u001c", "\ufeff", "\u3000", "\n", "\u200b") })],
    ([text]) => {
      assert.strictEqual(TokenCounter.wordCount(text), SpecModel.wordCount(text))
    }
  )
})

describe("TokenCounter.fromFunction", () => {
  it.effect("counts with the function", () =>
    Effect.gen(function*() {
      const counter = TokenCounter.fromFunction((text) => text.length)
      assert.strictEqual(yield* counter.count("hello"), 5)
      assert.strictEqual(yield* counter.count(""), 0)
    }))

  it.effect("a throw fails with TokenCountError carrying the thrown value", () =>
    Effect.gen(function*() {
      const boom = new Error("tokenizer not loaded")
      const error = yield* Effect.flip(
        TokenCounter.fromFunction(() => {
          throw boom
        }).count("hi")
      )
      assert.instanceOf(error, TokenCountError)
      assert.strictEqual(error.description, "Error: tokenizer not loaded")
      assert.strictEqual(error.cause, boom)
    }))

  it.effect("NaN, a negative, a fraction, an unsafe integer or a non-number fails with TokenCountError naming the value", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [NaN, "token counter returned NaN, not a non-negative integer"],
        [-1, "token counter returned -1, not a non-negative integer"],
        [2.5, "token counter returned 2.5, not a non-negative integer"],
        [Infinity, "token counter returned Infinity, not a non-negative integer"],
        ["3", "token counter returned string, not a non-negative integer"],
        [undefined, "token counter returned undefined, not a non-negative integer"],
        [
          Number.MAX_SAFE_INTEGER + 1,
          "token counter returned 9007199254740992, past the largest safe integer (9007199254740991)"
        ],
        [1e300, "token counter returned 1e+300, past the largest safe integer (9007199254740991)"]
      ]
      for (const [value, description] of cases) {
        const error = yield* Effect.flip(TokenCounter.fromFunction(() => value as number).count("hi"))
        assert.instanceOf(error, TokenCountError)
        assert.strictEqual(error.description, description)
      }
    }))

  it("calls the function only when the count runs", () => {
    const seen: Array<string> = []
    const counter = TokenCounter.fromFunction((text) => {
      seen.push(text)
      return 1
    })
    const count = counter.count("a b")
    assert.deepStrictEqual(seen, [])
    assert.deepStrictEqual(Effect.runSyncExit(count), Exit.succeed(1))
    assert.deepStrictEqual(seen, ["a b"])
  })
})

describe("TokenCounter.make", () => {
  it.effect("countSync alone: count runs it, checked; the service keeps the synchronous form", () =>
    Effect.gen(function*() {
      const countSync = (text: string) => text.length
      const counter = TokenCounter.make({ countSync })
      assert.strictEqual(counter.countSync, countSync)
      assert.strictEqual(yield* counter.count("hello"), 5)
      const error = yield* Effect.flip(TokenCounter.make({ countSync: () => -1 }).count("x"))
      assert.strictEqual(error.description, "token counter returned -1, not a non-negative integer")
      const own = new TokenCountError({ description: "no vocabulary" })
      assert.strictEqual(yield* Effect.flip(TokenCounter.make({ countSync: () => own }).count("x")), own)
    }))

  it.effect("count alone: no synchronous form", () =>
    Effect.gen(function*() {
      const counter = TokenCounter.make({ count: (text) => Effect.succeed(text.length * 2) })
      assert.isFalse("countSync" in counter)
      assert.strictEqual(yield* counter.count("abc"), 6)
    }))

  it.effect("both: kept as given", () =>
    Effect.gen(function*() {
      const count = (text: string) => Effect.succeed(text.length)
      const countSync = (text: string) => text.length
      const counter = TokenCounter.make({ count, countSync })
      assert.strictEqual(counter.count, count)
      assert.strictEqual(counter.countSync, countSync)
    }))

  it("fromFunction, the word counter and layerFunction's counter have a countSync", () => {
    assert.strictEqual(TokenCounter.fromFunction((text) => text.length).countSync("abc"), 3)
    assert.strictEqual(TokenCounter.wordCounter.countSync?.("a b"), 2)
    const boom = new Error("boom")
    const failed = TokenCounter.fromFunction(() => {
      throw boom
    }).countSync("x")
    assert.instanceOf(failed, TokenCountError)
    assert.strictEqual((failed as TokenCountError).cause, boom)
  })

  it.effect("countText: an empty text is 0 without calling the counter", () =>
    Effect.gen(function*() {
      let calls = 0
      const counter = TokenCounter.fromFunction(() => ++calls)
      assert.strictEqual(yield* TokenCounter.countText(counter, ""), 0)
      assert.strictEqual(calls, 0)
      assert.strictEqual(yield* TokenCounter.countText(counter, "a"), 1)
    }))
})

describe("TokenCounter.validate and checkedCount", () => {
  it("validate accepts exactly the non-negative safe integers", () => {
    assert.deepStrictEqual(
      [0, 1, 2000, Number.MAX_SAFE_INTEGER, -0].map(TokenCounter.validate),
      [true, true, true, true, true]
    )
    assert.deepStrictEqual(
      [-1, 0.5, NaN, Infinity, -Infinity, 2 ** 53, 1e300, "1", null, undefined, 1n].map(TokenCounter.validate),
      [false, false, false, false, false, false, false, false, false, false, false]
    )
  })

  it.effect("checkedCount checks what a hand-written service returns", () =>
    Effect.gen(function*() {
      const handWritten = (n: unknown): TokenCounter.Service => ({ count: () => Effect.succeed(n as number) })
      assert.strictEqual(yield* TokenCounter.checkedCount(handWritten(7), "x"), 7)
      const negative = yield* Effect.flip(TokenCounter.checkedCount(handWritten(-2), "x"))
      assert.strictEqual(negative.description, "token counter returned -2, not a non-negative integer")
      const text = yield* Effect.flip(TokenCounter.checkedCount(handWritten("7"), "x"))
      assert.strictEqual(text.description, "token counter returned string, not a non-negative integer")
    }))

  it.effect("checkedCount passes a service's own TokenCountError through unchanged", () =>
    Effect.gen(function*() {
      const own = new TokenCountError({ description: "rate limited" })
      const error = yield* Effect.flip(TokenCounter.checkedCount({ count: () => Effect.fail(own) }, "x"))
      assert.strictEqual(error, own)
    }))
})

describe("TokenCounter layers", () => {
  it.effect("layerFunction provides a counter built from the function", () =>
    Effect.gen(function*() {
      const counter = yield* TokenCounter.TokenCounter
      assert.strictEqual(yield* counter.count("a b c"), 5)
    }).pipe(Effect.provide(TokenCounter.layerFunction((text) => text.length))))

  it.effect("layerWordCount provides the word counter over another one", () =>
    Effect.gen(function*() {
      const counter = yield* TokenCounter.TokenCounter
      assert.strictEqual(counter, TokenCounter.wordCounter)
      assert.strictEqual(yield* counter.count("a b c"), 3)
    }).pipe(
      Effect.provide(Layer.provideMerge(TokenCounter.layerWordCount, TokenCounter.layerFunction((text) => text.length)))
    ))
})
