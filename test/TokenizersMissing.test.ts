/**
 * `rollmem/tokenizers` when the optional peer `ai-tokenizer` is not
 * installed (its import fails): the OpenAI encodings count with the next
 * installed engine, the same counts; a name that needs `ai-tokenizer` is a
 * ConfigError saying what to install.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { vi } from "vitest"
import { ConfigError, TokenCounter } from "../src/index.js"
import * as Tokenizers from "../src/tokenizers.js"

vi.mock("ai-tokenizer", () => {
  throw new Error("Cannot find package 'ai-tokenizer'")
})

const texts = ["", "Book me a flight to Rome", "お誕生日おめでとう", "<|endoftext|>", "__proto__"]

describe("without ai-tokenizer", () => {
  it.effect("the OpenAI encodings count with the next installed engine, the same counts", () =>
    Effect.gen(function*() {
      const count = yield* Effect.promise(() => Tokenizers.loadTokenCounter("gpt-4o"))
      assert.deepStrictEqual(texts.map(count), [0, 6, 8, 7, 3])
      const layered = yield* Effect.forEach(texts, (text) =>
        Effect.flatMap(TokenCounter.TokenCounter, (counter) => counter.count(text))).pipe(
          Effect.provide(Tokenizers.layerO200kBase)
        )
      assert.deepStrictEqual(layered, [0, 6, 8, 7, 3])
    }))

  it.effect("a name that needs it is a ConfigError saying what to install", () =>
    Effect.gen(function*() {
      const rejected = yield* Effect.flip(
        Effect.tryPromise({ try: () => Tokenizers.loadTokenCounter("claude-sonnet-4-5"), catch: (error) => error })
      )
      assert.instanceOf(rejected, ConfigError)
      assert.strictEqual((rejected as ConfigError).option, "tokenizer")
      assert.match(
        (rejected as ConfigError).description,
        /^Claude's vocabulary counts with ai-tokenizer, which did not load \(npm i ai-tokenizer@1\.0\.6\): /
      )
      const explicit = yield* Effect.flip(
        Effect.tryPromise({
          try: () => Tokenizers.loadTokenCounter("o200k_base", { engine: "ai-tokenizer" }),
          catch: (error) => error
        })
      )
      assert.match(
        (explicit as ConfigError).description,
        /^o200k_base counts with ai-tokenizer, which did not load \(npm i ai-tokenizer@1\.0\.6\): /
      )
      const failed = yield* Effect.flip(
        Effect.flatMap(TokenCounter.TokenCounter, (counter) => counter.count("hi")).pipe(
          Effect.provide(Tokenizers.layerByName("claude-sonnet-4-5"))
        )
      )
      assert.instanceOf(failed, ConfigError)
      assert.deepStrictEqual(failed, rejected)
    }))
})
