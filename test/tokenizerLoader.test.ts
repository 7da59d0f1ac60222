/**
 * `loadTokenCounter`: the tokenizers of `rollmem/tokenizers` as plain
 * functions for the Promise facade. They count exactly as the layers do, on
 * real messages of the shared data folder (`$ROLLMEM_DATA`, else
 * `../shared/data`; those tests are skipped, saying so, when it is absent),
 * and a facade memory built with one budgets exactly as the Effect API with
 * the layer.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { ConfigError, Message, RollingMemory, Summarizer, TokenCounter } from "../src/index.js"
import * as Facade from "../src/promise/index.js"
import * as Tokenizers from "../src/tokenizers.js"
import { DATA_FILES, dataLines, hasData } from "./support/data.js"

const dataFiles = DATA_FILES.filter(hasData)
const absent = dataFiles.length === 0

const Conversation = Schema.Struct({ id: Schema.String, messages: Schema.Array(Message.Message) })
const decodeConversation = Schema.decodeUnknownSync(Schema.parseJson(Conversation))

const conversations = dataFiles.flatMap((file) => dataLines(file).map((line) => decodeConversation(line)))

/** Every real message's token text, in file order. */
const realTexts: ReadonlyArray<string> = conversations.flatMap((c) => c.messages.map((m) => m.tokenText))

/** Texts the counters must agree on even without the data: special-token text is ordinary text. */
const fixedTexts: ReadonlyArray<string> = [
  "",
  "Book me a flight to Rome",
  "お誕生日おめでとう",
  "<|endoftext|>",
  "<|im_start|>user\nhi<|im_end|>",
  "<|endofprompt|><|fim_prefix|>",
  "search({\"q\":\"rome\"})\ncall_1"
]

const layerCounts = (layer: Layer.Layer<TokenCounter.TokenCounter, ConfigError>, texts: ReadonlyArray<string>) =>
  Effect.flatMap(TokenCounter.TokenCounter, (counter) => Effect.forEach(texts, counter.count)).pipe(
    Effect.provide(layer)
  )

const load = (name: string, options?: Tokenizers.LoadOptions) =>
  Effect.promise(() => Tokenizers.loadTokenCounter(name, options))

/** The rejection of a load that must fail. */
const loadError = (name: string, options?: Tokenizers.LoadOptions) =>
  Effect.flip(Effect.tryPromise({ try: () => Tokenizers.loadTokenCounter(name, options), catch: (error) => error }))

const names = [
  "words",
  "o200k_base",
  "cl100k_base",
  "gpt-4o",
  "gpt-3.5-turbo",
  "claude-sonnet-4-5",
  "gemini-2.5-pro"
] as const

describe("loadTokenCounter", () => {
  it.effect("exact counts; special-token text is ordinary text", () =>
    Effect.gen(function*() {
      const o200k = yield* load("gpt-4o")
      const cl100k = yield* load("cl100k_base")
      const words = yield* load("words")
      assert.deepStrictEqual(fixedTexts.map(o200k), [0, 6, 8, 7, 15, 12, 9])
      assert.deepStrictEqual(fixedTexts.map(cl100k), [0, 6, 9, 7, 15, 13, 9])
      assert.deepStrictEqual(fixedTexts.map(words), [0, 6, 1, 1, 2, 1, 2])
      assert.strictEqual(words, TokenCounter.wordCount)
      for (const encoding of Tokenizers.encodings) {
        for (const engine of Tokenizers.engines) {
          const other = yield* load(encoding, { engine })
          assert.deepStrictEqual(fixedTexts.map(other), fixedTexts.map(encoding === "o200k_base" ? o200k : cl100k))
        }
      }
      // Estimates for Claude and Gemini; with framing, the provider's overhead per message.
      assert.deepStrictEqual(fixedTexts.map(yield* load("claude-sonnet-4-5")), [0, 7, 11, 8, 19, 15, 11])
      assert.deepStrictEqual(fixedTexts.map(yield* load("gemini-2.5-pro")), [0, 6, 9, 8, 16, 13, 10])
      assert.deepStrictEqual(fixedTexts.map(yield* load("gpt-4o", { framing: true })), [4, 10, 12, 11, 19, 16, 13])
      assert.deepStrictEqual(fixedTexts.map(yield* load("gpt-5", { framing: true })), [5, 11, 13, 12, 20, 17, 14])
      assert.deepStrictEqual(
        fixedTexts.map(yield* load("claude-sonnet-4-5", { framing: true })),
        [3, 10, 14, 11, 22, 18, 14]
      )
    }))

  for (const name of names) {
    it.effect(`${name}: the same counts as layerByName("${name}") on fixed texts`, () =>
      Effect.gen(function*() {
        const count = yield* load(name)
        assert.deepStrictEqual(fixedTexts.map(count), yield* layerCounts(Tokenizers.layerByName(name), fixedTexts))
      }))

    it.effect.skipIf(absent)(
      `${name}: the same counts as layerByName("${name}") on every real message`,
      () =>
        Effect.gen(function*() {
          assert.isAbove(realTexts.length, 5_000)
          const count = yield* load(name)
          const expected = yield* layerCounts(Tokenizers.layerByName(name), realTexts)
          const counts = realTexts.map(count)
          assert.deepStrictEqual(counts, expected)
          // Model tokens, not words (the comparison with the layer would not see a mix-up).
          if (name !== "words") assert.notDeepEqual(counts, realTexts.map(TokenCounter.wordCount))
        })
    )
  }

  for (const encoding of Tokenizers.encodings) {
    it.effect.skipIf(absent)(
      `js-tiktoken ${encoding}: the same counts as layerJsTiktoken`,
      () =>
        Effect.gen(function*() {
          const sample = realTexts.filter((_, i) => i % 7 === 0)
          const count = yield* load(encoding, { engine: "js-tiktoken" })
          assert.deepStrictEqual(sample.map(count), yield* layerCounts(Tokenizers.layerJsTiktoken(encoding), sample))
        })
    )
  }

  it.effect("an unknown name rejects with the ConfigError of layerByName", () =>
    Effect.gen(function*() {
      for (const name of ["llama-3", "bpe", "", "O200K_BASE"]) {
        const error = yield* loadError(name)
        assert.instanceOf(error, ConfigError)
        assert.strictEqual((error as ConfigError).option, "tokenizer")
        assert.strictEqual(
          (error as ConfigError).description,
          `unknown tokenizer "${name}": expected "words", "o200k_base", "cl100k_base" or a model name ` +
            `(${Tokenizers.models.join(", ")})`
        )
        const layerError = yield* Effect.flip(layerCounts(Tokenizers.layerByName(name), ["hi"]))
        assert.deepStrictEqual(error, layerError)
      }
      // Rejected with js-tiktoken too, before anything loads.
      assert.instanceOf(yield* loadError("llama-3", { engine: "js-tiktoken" }), ConfigError)
    }))

  it.effect("an unknown engine rejects with ConfigError (option engine)", () =>
    Effect.gen(function*() {
      const error = yield* loadError("gpt-4o", { engine: "tiktoken" as Tokenizers.Engine })
      assert.instanceOf(error, ConfigError)
      assert.strictEqual((error as ConfigError).option, "engine")
      assert.strictEqual(
        (error as ConfigError).description,
        "unknown engine \"tiktoken\": expected \"ai-tokenizer\", \"gpt-tokenizer\", \"js-tiktoken\""
      )
      assert.instanceOf(yield* loadError("gpt-4o", { engine: "toString" as Tokenizers.Engine }), ConfigError)
    }))
})

// ---------------------------------------------------------------------------
// A facade memory with a loaded counter budgets as the Effect API with the layer
// ---------------------------------------------------------------------------

const summarize = (summary: string, messages: ReadonlyArray<Message.Message>): string =>
  `${summary}|${messages.length}:${messages[0].id ?? messages[0].role}`

const optionsOf = (m: Message.Message): Facade.MessageOptions => ({
  id: m.id,
  toolCalls: m.toolCalls,
  toolCallId: m.toolCallId,
  ...(Object.keys(m.metadata).length > 0 ? { metadata: m.metadata } : {})
})

/** A synthetic conversation for when the data is absent: special-token text and tool calls included. */
const synthetic: ReadonlyArray<Message.Message> = Array.from({ length: 60 }, (_, i) =>
  i % 3 === 0
    ? Message.user(`turn ${i}: <|endoftext|> please book お誕生日 ${"flight ".repeat(i % 7)}`, { id: `u${i}` })
    : i % 3 === 1
    ? Message.assistant("", { id: `a${i}`, toolCalls: [{ id: `c${i}`, name: "search", arguments: `{"q":${i}}` }] })
    : Message.tool(`<|im_start|>result ${i}<|im_end|>`, { id: `t${i}`, toolCallId: `c${i - 1}` }))

/** The Effect API's bufferTokens after every add, and its final state. */
const effectRun = (model: string, maxTokens: number, messages: ReadonlyArray<Message.Message>) =>
  Effect.gen(function*() {
    const memory = yield* RollingMemory.make({ maxTokens })
    const tokens: Array<number> = []
    for (const m of messages) {
      yield* memory.add(m)
      tokens.push(yield* memory.bufferTokens)
    }
    return { tokens, state: yield* memory.toJSON }
  }).pipe(Effect.provide(Layer.merge(Tokenizers.layerModel(model), Summarizer.layerFunction(summarize))))

const facadeRuns = (count: (text: string) => number, maxTokens: number, messages: ReadonlyArray<Message.Message>) =>
  Effect.promise(async () => {
    const sync = new Facade.RollingMemory({ maxTokens, summarize, tokenCounter: count })
    const wordCounted = new Facade.AsyncRollingMemory({ maxTokens, summarize: async (s, ms) => summarize(s, ms) })
    const asyncCounted = new Facade.AsyncRollingMemory({
      maxTokens,
      summarize: async (s, ms) => summarize(s, ms),
      tokenCounter: count
    })
    const syncTokens: Array<number> = []
    const asyncTokens: Array<number> = []
    const wordTokens: Array<number> = []
    for (const m of messages) {
      sync.addMessage(m.role, m.content, optionsOf(m))
      await asyncCounted.addMessage(m.role, m.content, optionsOf(m))
      await wordCounted.addMessage(m.role, m.content, optionsOf(m))
      syncTokens.push(sync.bufferTokens)
      asyncTokens.push(asyncCounted.bufferTokens)
      wordTokens.push(wordCounted.bufferTokens)
    }
    return { syncTokens, asyncTokens, wordTokens, sync: sync.toJSON(), async: asyncCounted.toJSON() }
  })

const compare = (model: string, maxTokens: number, messages: ReadonlyArray<Message.Message>) =>
  Effect.gen(function*() {
    const count = yield* load(model)
    const expected = yield* effectRun(model, maxTokens, messages)
    const facade = yield* facadeRuns(count, maxTokens, messages)
    assert.deepStrictEqual(facade.syncTokens, expected.tokens)
    assert.deepStrictEqual(facade.asyncTokens, expected.tokens)
    assert.deepStrictEqual(facade.sync, expected.state)
    assert.deepStrictEqual(facade.async, expected.state)
    // The run pruned, and the model counter counted differently from the default word count.
    assert.notStrictEqual(expected.state.summary, "")
    assert.notDeepEqual(facade.wordTokens, expected.tokens)
    return expected
  })

describe("a facade memory with a loaded counter", () => {
  it.effect("synthetic turns: bufferTokens as the Effect API with the layer, after every add", () =>
    Effect.gen(function*() {
      const o200k = yield* compare("gpt-4o", 60, synthetic)
      const cl100k = yield* compare("gpt-4", 60, synthetic)
      assert.notDeepEqual(o200k.tokens, cl100k.tokens)
    }))

  it.effect.skipIf(absent)(
    `real conversations: bufferTokens as the Effect API with the layer`,
    () =>
      Effect.gen(function*() {
        // The ten longest conversations, at a budget that makes them prune.
        const longest = [...conversations].sort((a, b) => b.messages.length - a.messages.length).slice(0, 10)
        assert.strictEqual(longest.length, 10)
        for (const conversation of longest) {
          yield* compare("gpt-4o", 1_000, conversation.messages)
        }
      })
  )
})
