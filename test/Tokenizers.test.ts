import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import { ConfigError, Message, RollingMemory, TokenCounter, TokenCountError } from "../src/index.js"
import * as Tokenizers from "../src/tokenizers.js"
import { DATA_FILES, dataLines } from "./support/data.js"

const Conversation = Schema.Struct({ messages: Schema.Array(Message.Message) })
const decodeConversation = Schema.decodeUnknownSync(Schema.parseJson(Conversation))

// Every 29th message of the three transcript files, in file order: a fixed
// sample of a few hundred real messages (chat, agentic with tool calls, ToolTalk).
const sample: ReadonlyArray<string> = DATA_FILES
  .flatMap((file) => dataLines(file).flatMap((line) => decodeConversation(line).messages))
  .filter((_, i) => i % 29 === 0)
  .map((message) => message.tokenText)

const countAll = (texts: ReadonlyArray<string>) =>
  Effect.flatMap(TokenCounter.TokenCounter, (counter) => Effect.forEach(texts, counter.count))

const count = (text: string) => Effect.flatMap(TokenCounter.TokenCounter, (counter) => counter.count(text))

// Counts checked against OpenAI's published examples ("antidisestablishmentarianism",
// "2 + 2 = 4", "お誕生日おめでとう") and equal in gpt-tokenizer and js-tiktoken.
const fixed: ReadonlyArray<readonly [text: string, o200k: number, cl100k: number]> = [
  ["", 0, 0],
  ["hello world", 2, 2],
  ["Book me a flight to Rome", 6, 6],
  ["antidisestablishmentarianism", 6, 6],
  ["2 + 2 = 4", 7, 7],
  ["お誕生日おめでとう", 8, 9],
  ["search({\"q\":\"rome\"})\ncall_1", 9, 9]
]

// Special-token text counted as ordinary text (a single special token would be 1).
const special: ReadonlyArray<readonly [text: string, o200k: number, cl100k: number]> = [
  ["<|endoftext|>", 7, 7],
  ["<|im_start|>user\nhi<|im_end|>", 15, 15],
  ["<|endofprompt|><|fim_prefix|>", 12, 13]
]

const implementations = [
  ["gpt-tokenizer", Tokenizers.layerEncoding],
  ["js-tiktoken", Tokenizers.layerJsTiktoken]
] as const

describe("tokenizers", () => {
  for (const [library, layerOf] of implementations) {
    layer(layerOf("o200k_base"))(`${library} o200k_base`, (it) => {
      it.effect("exact counts", () =>
        Effect.gen(function*() {
          for (const [text, o200k] of fixed) assert.strictEqual(yield* count(text), o200k, text)
        }))
      it.effect("special-token text is ordinary text", () =>
        Effect.gen(function*() {
          for (const [text, o200k] of special) assert.strictEqual(yield* count(text), o200k, text)
        }))
    })
    layer(layerOf("cl100k_base"))(`${library} cl100k_base`, (it) => {
      it.effect("exact counts", () =>
        Effect.gen(function*() {
          for (const [text, , cl100k] of fixed) assert.strictEqual(yield* count(text), cl100k, text)
        }))
      it.effect("special-token text is ordinary text", () =>
        Effect.gen(function*() {
          for (const [text, , cl100k] of special) assert.strictEqual(yield* count(text), cl100k, text)
        }))
    })
  }

  for (const encoding of Tokenizers.encodings) {
    it.effect.skipIf(sample.length === 0)(
      `${encoding}: both libraries agree on real transcripts`,
      () =>
        Effect.gen(function*() {
          assert.isAbove(sample.length, 250)
          const fast = yield* countAll(sample).pipe(Effect.provide(Tokenizers.layerEncoding(encoding)))
          const reference = yield* countAll(sample).pipe(Effect.provide(Tokenizers.layerJsTiktoken(encoding)))
          assert.deepStrictEqual(fast, reference)
          // Model tokens, not words: the totals differ from the word count.
          const words = sample.reduce((sum, text) => sum + TokenCounter.wordCount(text), 0)
          const tokens = fast.reduce((sum, n) => sum + n, 0)
          assert.isAbove(tokens, words)
        })
    )
  }

  it.effect("a throw inside the tokenizer becomes TokenCountError", () =>
    Effect.gen(function*() {
      const error = yield* count(undefined as unknown as string).pipe(
        Effect.provide(Tokenizers.layerO200kBase),
        Effect.flip
      )
      assert.instanceOf(error, TokenCountError)
      assert.match(error.description, /^o200k_base: /)
    }))

  it("encodingForModel", () => {
    const o200k = [
      "gpt-4o",
      "gpt-4o-mini",
      "gpt-4o-2024-08-06",
      "chatgpt-4o-latest",
      "gpt-4.1",
      "gpt-4.1-mini",
      "gpt-4.1-nano-2025-04-14",
      "gpt-4.5-preview",
      "gpt-5",
      "gpt-5-mini",
      "gpt-5.1",
      "o1",
      "o1-mini",
      "o3",
      "o3-pro",
      "o4-mini",
      " GPT-4o "
    ]
    const cl100k = [
      "gpt-4",
      "gpt-4-turbo",
      "gpt-4-0613",
      "gpt-4-32k",
      "gpt-3.5-turbo",
      "gpt-3.5-turbo-16k",
      "gpt-35-turbo",
      "text-embedding-3-small",
      "text-embedding-3-large",
      "text-embedding-ada-002"
    ]
    for (const model of o200k) {
      assert.deepStrictEqual(Tokenizers.encodingForModel(model), Option.some("o200k_base"), model)
    }
    for (const model of cl100k) {
      assert.deepStrictEqual(Tokenizers.encodingForModel(model), Option.some("cl100k_base"), model)
    }
    for (const model of ["", "gpt-4x", "gpt-3.5", "o2", "o10", "claude-3-5-sonnet", "llama-3", "text-davinci-003"]) {
      assert.deepStrictEqual(Tokenizers.encodingForModel(model), Option.none(), model)
    }
  })

  it("layers are built once: the same name gives the same layer value", () => {
    assert.strictEqual(Tokenizers.layerModel("gpt-4o"), Tokenizers.layerO200kBase)
    assert.strictEqual(Tokenizers.layerModel("o3-mini"), Tokenizers.layerO200kBase)
    assert.strictEqual(Tokenizers.layerModel("gpt-4-turbo"), Tokenizers.layerCl100kBase)
    assert.strictEqual(Tokenizers.layerEncoding("cl100k_base"), Tokenizers.layerCl100kBase)
    assert.strictEqual(Tokenizers.layerJsTiktoken("o200k_base"), Tokenizers.layerJsTiktoken("o200k_base"))
    assert.notStrictEqual(Tokenizers.layerJsTiktoken("o200k_base"), Tokenizers.layerJsTiktoken("cl100k_base"))
    assert.strictEqual(Tokenizers.layerByName("words"), TokenCounter.layerWordCount)
    assert.strictEqual(Tokenizers.layerByName("o200k_base"), Tokenizers.layerO200kBase)
    assert.strictEqual(Tokenizers.layerByName("gpt-3.5-turbo"), Tokenizers.layerCl100kBase)
  })

  it.effect("layerModel counts with the model's encoding", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* count("お誕生日おめでとう").pipe(Effect.provide(Tokenizers.layerModel("gpt-4o-mini"))),
        8
      )
      assert.strictEqual(yield* count("お誕生日おめでとう").pipe(Effect.provide(Tokenizers.layerModel("gpt-4"))), 9)
    }))

  it.effect("layerModel fails with ConfigError for an unknown model", () =>
    Effect.gen(function*() {
      const error = yield* count("hi").pipe(Effect.provide(Tokenizers.layerModel("llama-3")), Effect.flip)
      assert.instanceOf(error, ConfigError)
      assert.strictEqual(error.option, "model")
      assert.include(error.description, "\"llama-3\"")
    }))

  it.effect("layerByName: words, an encoding, a model; anything else is a ConfigError", () =>
    Effect.gen(function*() {
      const text = "お誕生日 おめでとう <|endoftext|>"
      assert.strictEqual(yield* count(text).pipe(Effect.provide(Tokenizers.layerByName("words"))), 3)
      const o200k = yield* count(text).pipe(Effect.provide(Tokenizers.layerByName("o200k_base")))
      const cl100k = yield* count(text).pipe(Effect.provide(Tokenizers.layerByName("cl100k_base")))
      assert.strictEqual(yield* count(text).pipe(Effect.provide(Tokenizers.layerByName("gpt-5"))), o200k)
      assert.strictEqual(yield* count(text).pipe(Effect.provide(Tokenizers.layerByName("gpt-4"))), cl100k)
      assert.strictEqual(o200k, 15)
      assert.strictEqual(cl100k, 16)
      const error = yield* count(text).pipe(Effect.provide(Tokenizers.layerByName("bpe")), Effect.flip)
      assert.instanceOf(error, ConfigError)
      assert.strictEqual(error.option, "tokenizer")
    }))

  it.effect("a RollingMemory budgets in model tokens", () =>
    Effect.gen(function*() {
      const memory = yield* RollingMemory.make({ maxTokens: 8 })
      yield* memory.add(Message.user("Book me a flight to Rome")) // 6 tokens
      assert.strictEqual(yield* memory.bufferTokens, 6)
      yield* memory.add(Message.assistant("<|endoftext|>")) // 7 tokens: over budget, the user turn goes
      assert.deepStrictEqual((yield* memory.buffer).map((m) => m.content), ["<|endoftext|>"])
      assert.strictEqual(yield* memory.bufferTokens, 7)
    }).pipe(Effect.provide(Tokenizers.layerO200kBase)))
})
