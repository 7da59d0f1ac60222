import * as OpenAiTokenizer from "@effect/ai-openai/OpenAiTokenizer"
import * as AiError from "@effect/ai/AiError"
import * as Tokenizer from "@effect/ai/Tokenizer"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as TokenizerCounter from "../../src/ai/TokenizerCounter.js"
import { TokenCountError } from "../../src/Errors.js"
import * as Message from "../../src/schema/Message.js"
import * as Summarizer from "../../src/services/Summarizer.js"
import { TokenCounter } from "../../src/services/TokenCounter.js"
import * as RollingMemory from "../../src/strategies/RollingMemory.js"

// A tokenizer with one token per character of each text part: exact, easy to check.
const charTokenizer = Tokenizer.make({
  tokenize: (prompt) =>
    Effect.succeed(
      prompt.content.flatMap((message) =>
        message.role === "system"
          ? [...message.content]
          : message.content.flatMap((part) => part.type === "text" ? [...part.text] : [])
      ).map((c) => c.charCodeAt(0))
    )
})

const count = (text: string) => Effect.flatMap(TokenCounter, (counter) => counter.count(text))

describe("TokenizerCounter", () => {
  it.effect("counts with the Tokenizer in context", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* Effect.all([count(""), count("hello"), count("a\nb")]), [0, 5, 3])
    }).pipe(
      Effect.provide(TokenizerCounter.layer.pipe(Layer.provide(Layer.succeed(Tokenizer.Tokenizer, charTokenizer))))
    ))

  it.effect("works with OpenAiTokenizer unchanged (a chat of one user message: 7 tokens of overhead)", () =>
    Effect.gen(function*() {
      // "hello world" is 2 tokens and "Book me a flight to Rome" 6 (cl100k_base, as in the
      // tokenizers tests); OpenAiTokenizer encodes a chat: <|im_start|>user<|im_sep|> ... <|im_end|>
      // then <|im_start|>assistant<|im_sep|>, 7 tokens around the text.
      assert.deepStrictEqual(yield* Effect.all([count(""), count("hello world"), count("Book me a flight to Rome")]), [
        7,
        9,
        13
      ])
    }).pipe(
      Effect.provide(TokenizerCounter.layer.pipe(Layer.provide(OpenAiTokenizer.layer({ model: "gpt-4o" }))))
    ))

  it.effect("counts text that looks like a special token instead of failing (contract 3)", () =>
    Effect.gen(function*() {
      const tokenizer = OpenAiTokenizer.make({ model: "gpt-4o" })
      // The tokenizer itself refuses it:
      const refused = yield* Effect.flip(tokenizer.tokenize("say <|endoftext|> now"))
      assert.strictEqual(refused._tag, "UnknownError")
      const pieces = yield* Effect.forEach(
        ["say <", "|endoftext|> now"],
        (text) => Effect.map(tokenizer.tokenize(text), (t) => t.length - 7)
      )
      const n = yield* TokenizerCounter.fromTokenizer(tokenizer).count("say <|endoftext|> now")
      assert.strictEqual(n, 7 + pieces[0] + pieces[1])
      assert.isAbove(pieces[0], 0)
      assert.isAbove(pieces[1], 0)
      // Several markers, and one at each end.
      const m = yield* TokenizerCounter.fromTokenizer(tokenizer).count("<|im_start|>x<|im_end|>")
      const parts = yield* Effect.forEach(
        ["<", "|im_start|>x<", "|im_end|>"],
        (text) => Effect.map(tokenizer.tokenize(text), (t) => t.length - 7)
      )
      assert.strictEqual(m, 7 + parts[0] + parts[1] + parts[2])
    }))

  it.effect("counts the same in pieces as whole for a tokenizer that accepts the text", () =>
    Effect.gen(function*() {
      const counter = TokenizerCounter.fromTokenizer(charTokenizer)
      assert.strictEqual(yield* counter.count("a<|b|>c"), 7)
    }))

  it.effect("turns a tokenizer failure into TokenCountError carrying it, and the add fails with nothing added", () =>
    Effect.gen(function*() {
      const failure = new AiError.UnknownError({ module: "T", method: "tokenize", description: "down" })
      const failing = Tokenizer.make({ tokenize: () => Effect.fail(failure) })
      const error = yield* Effect.flip(TokenizerCounter.fromTokenizer(failing).count("hi"))
      assert.instanceOf(error, TokenCountError)
      assert.strictEqual(error.cause, failure)
      const memory = yield* RollingMemory.make({ maxTokens: 10 }).pipe(
        Effect.provide(TokenizerCounter.layer.pipe(Layer.provide(Layer.succeed(Tokenizer.Tokenizer, failing))))
      )
      const addError = yield* Effect.flip(memory.add(Message.user("hi")))
      assert.instanceOf(addError, TokenCountError)
      assert.deepStrictEqual(yield* memory.buffer, [])
    }).pipe(Effect.provide(Summarizer.layerDrop)))

  it.effect("drives a RollingMemory's budget", () =>
    Effect.gen(function*() {
      const memory = yield* RollingMemory.make({ maxTokens: 10 })
      yield* memory.add(Message.user("12345"))
      yield* memory.add(Message.assistant("6789"))
      assert.strictEqual(yield* memory.bufferTokens, 9)
      yield* memory.add(Message.user("ab"))
      // 11 > 10: the oldest unit goes (no summarizer: dropped); "6789" would open the buffer
      // and is an assistant turn, so it goes too.
      assert.deepStrictEqual((yield* memory.buffer).map((m) => m.content), ["ab"])
      assert.strictEqual(yield* memory.bufferTokens, 2)
    }).pipe(Effect.provide(Summarizer.layerDrop)).pipe(
      Effect.provide(TokenizerCounter.layer.pipe(Layer.provide(Layer.succeed(Tokenizer.Tokenizer, charTokenizer))))
    ))
})
