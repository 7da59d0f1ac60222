/**
 * `TokenizerCounter` on the Effect 4 line: the Effect 3 line's tests
 * (`test/ai/TokenizerCounter.test.ts`) on `effect/ai`'s `Tokenizer`. The
 * Effect 3 line also runs them on `OpenAiTokenizer`; this line installs no
 * provider package, so a tokenizer refusing special tokens is written here.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { AiError, Tokenizer } from "effect/ai"
import * as TokenizerCounter from "../../src/ai/TokenizerCounter.js"
import { Message, RollingMemory, Summarizer, TokenCounter, TokenCountError } from "../../src/index.js"

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

// One token per character plus 3 of overhead per call, refusing "<|" (as OpenAiTokenizer refuses special tokens).
const strictTokenizer = Tokenizer.make({
  tokenize: (prompt) => {
    const text = prompt.content.flatMap((message) =>
      message.role === "user" ? message.content.flatMap((part) => part.type === "text" ? [part.text] : []) : []
    ).join("")
    return text.includes("<|")
      ? Effect.fail(
        AiError.make({
          module: "T",
          method: "tokenize",
          reason: new AiError.UnknownError({ description: "Disallowed special token" })
        })
      )
      : Effect.succeed(Array.from({ length: [...text].length + 3 }, (_, i) => i))
  }
})

const count = (text: string) => Effect.flatMap(Effect.service(TokenCounter.TokenCounter), (c) => c.count(text))

const charLayer = TokenizerCounter.layer.pipe(Layer.provide(Layer.succeed(Tokenizer.Tokenizer, charTokenizer)))

describe("TokenizerCounter", () => {
  it.effect("counts with the Tokenizer in context", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* Effect.all([count(""), count("hello"), count("a\nb")]), [0, 5, 3])
    }).pipe(Effect.provide(charLayer)))

  it.effect("counts text that looks like a special token instead of failing (contract 3)", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip(strictTokenizer.tokenize("say <|endoftext|> now"))
      assert.strictEqual(refused.reason._tag, "UnknownError")
      const counter = TokenizerCounter.fromTokenizer(strictTokenizer)
      // "say <" (5) and "|endoftext|> now" (16), each less the overhead of 3, plus 3 once.
      assert.strictEqual(yield* counter.count("say <|endoftext|> now"), 24)
      // "<", "|im_start|>x<", "|im_end|>": 1 + 13 + 9, plus 3.
      assert.strictEqual(yield* counter.count("<|im_start|>x<|im_end|>"), 26)
      assert.strictEqual(yield* counter.count("hello"), 8)
    }))

  it.effect("counts the same in pieces as whole for a tokenizer that accepts the text", () =>
    Effect.gen(function*() {
      const counter = TokenizerCounter.fromTokenizer(charTokenizer)
      assert.strictEqual(yield* counter.count("a<|b|>c"), 7)
    }))

  it.effect("turns a tokenizer failure into TokenCountError carrying it, and the add fails with nothing added", () =>
    Effect.gen(function*() {
      const failure = AiError.make({
        module: "T",
        method: "tokenize",
        reason: new AiError.UnknownError({ description: "down" })
      })
      const failing = Tokenizer.make({ tokenize: () => Effect.fail(failure) })
      const error = yield* Effect.flip(TokenizerCounter.fromTokenizer(failing).count("hi"))
      assert.instanceOf(error, TokenCountError)
      assert.strictEqual(error.cause, failure)
      assert.strictEqual(error.description, failure.message)
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
    }).pipe(Effect.provide(Summarizer.layerDrop), Effect.provide(charLayer)))
})
