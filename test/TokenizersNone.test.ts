/**
 * `rollmem/tokenizers` when no tokenizer library is installed (every
 * engine's import fails): the encoding layers fail with a `ConfigError`
 * saying what to install, in their error type, so `Effect.catchTag` handles
 * it (a fallback to the word count here).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { vi } from "vitest"
import { ConfigError, TokenCounter } from "../src/index.js"
import * as Tokenizers from "../src/tokenizers.js"

vi.mock("ai-tokenizer", () => {
  throw new Error("Cannot find package 'ai-tokenizer'")
})
vi.mock("ai-tokenizer/encoding/o200k_base", () => {
  throw new Error("Cannot find package 'ai-tokenizer'")
})
vi.mock("ai-tokenizer/encoding/cl100k_base", () => {
  throw new Error("Cannot find package 'ai-tokenizer'")
})
vi.mock("gpt-tokenizer/encoding/o200k_base", () => {
  throw new Error("Cannot find package 'gpt-tokenizer'")
})
vi.mock("gpt-tokenizer/encoding/cl100k_base", () => {
  throw new Error("Cannot find package 'gpt-tokenizer'")
})
vi.mock("js-tiktoken/lite", () => {
  throw new Error("Cannot find package 'js-tiktoken'")
})
vi.mock("js-tiktoken/ranks/o200k_base", () => {
  throw new Error("Cannot find package 'js-tiktoken'")
})
vi.mock("js-tiktoken/ranks/cl100k_base", () => {
  throw new Error("Cannot find package 'js-tiktoken'")
})

// a counter that never fails: what fails is the layer
const count = (text: string) =>
  Effect.flatMap(TokenCounter.TokenCounter, (counter) => Effect.orDie(counter.count(text)))

const NONE =
  "no library for o200k_base is installed: npm i ai-tokenizer@1.0.6 (or gpt-tokenizer@4.0.0, js-tiktoken@1.0.21)"

describe("without any tokenizer library", () => {
  it.effect("layerO200kBase fails with ConfigError (option tokenizer) in its error type, caught by catchTag", () =>
    Effect.gen(function*() {
      const error: ConfigError = yield* Effect.flip(
        count("Book me a flight to Rome").pipe(
          Effect.provide(Tokenizers.layerO200kBase)
        )
      )
      assert.instanceOf(error, ConfigError)
      assert.deepStrictEqual([error.option, error.description], ["tokenizer", NONE])
      const fallback = yield* count("Book me a flight to Rome").pipe(
        Effect.provide(Tokenizers.layerO200kBase),
        Effect.catchTag("ConfigError", () => Effect.succeed(-1))
      )
      assert.strictEqual(fallback, -1)
      // or at the layer: the word count when no tokenizer loads
      const words = yield* count("Book me a flight to Rome").pipe(
        Effect.provide(Layer.catchAll(Tokenizers.layerO200kBase, () => TokenCounter.layerWordCount))
      )
      assert.strictEqual(words, 6)
    }))

  it.effect("each encoding layer and engine: a ConfigError naming what to install, never a defect", () =>
    Effect.gen(function*() {
      const failures = yield* Effect.forEach([
        Tokenizers.layerCl100kBase,
        Tokenizers.layerEncoding("o200k_base"),
        Tokenizers.layerGptTokenizer("o200k_base"),
        Tokenizers.layerJsTiktoken("cl100k_base")
      ], (layer) => Effect.flip(Effect.provide(count("hi"), layer)))
      assert.deepStrictEqual(failures.map((e) => [e._tag, e.option]), [
        ["ConfigError", "tokenizer"],
        ["ConfigError", "tokenizer"],
        ["ConfigError", "tokenizer"],
        ["ConfigError", "tokenizer"]
      ])
      assert.strictEqual(failures[0].description, NONE.replace("o200k_base", "cl100k_base"))
      assert.match(
        failures[2].description,
        /^o200k_base counts with gpt-tokenizer, which did not load \(npm i gpt-tokenizer@4\.0\.0\): /
      )
      assert.match(
        failures[3].description,
        /^cl100k_base counts with js-tiktoken, which did not load \(npm i js-tiktoken@1\.0\.21\): /
      )
    }))
})
