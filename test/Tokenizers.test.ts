import { assert, describe, it, layer } from "@effect/vitest"
import * as AiTokenizer from "ai-tokenizer"
import * as cl100k from "ai-tokenizer/encoding/cl100k_base"
import * as claude from "ai-tokenizer/encoding/claude"
import * as o200k from "ai-tokenizer/encoding/o200k_base"
import * as AiTokenizerSdk from "ai-tokenizer/sdk"
import { Effect, FastCheck as fc, Layer, Option, Schema } from "effect"
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

// Claude's vocabulary × 1.1 and o200k_base × 1.08, rounded, for "", "hello world", "Book me a flight to Rome",
// "お誕生日おめでとう", "<|endoftext|>", "__proto__".
const CLAUDE_FIXED: ReadonlyArray<number> = [0, 2, 7, 11, 8, 3]
const GEMINI_FIXED: ReadonlyArray<number> = [0, 2, 6, 9, 8, 3]

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

const implementations = Tokenizers.engines.map((engine) =>
  [engine, (encoding: Tokenizers.Encoding) => Tokenizers.layerEncoding(encoding, engine)] as const
)

describe("tokenizers", () => {
  for (const [library, layerOf] of implementations) {
    layer(layerOf("o200k_base"), { timeout: 120_000 })(`${library} o200k_base`, (it) => {
      it.effect("exact counts", () =>
        Effect.gen(function*() {
          for (const [text, o200k] of fixed) assert.strictEqual(yield* count(text), o200k, text)
        }))
      it.effect("special-token text is ordinary text", () =>
        Effect.gen(function*() {
          for (const [text, o200k] of special) assert.strictEqual(yield* count(text), o200k, text)
        }))
    })
    layer(layerOf("cl100k_base"), { timeout: 120_000 })(`${library} cl100k_base`, (it) => {
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
      `${encoding}: the three libraries agree on real transcripts`,
      () =>
        Effect.gen(function*() {
          assert.isAbove(sample.length, 250)
          const fast = yield* countAll(sample).pipe(Effect.provide(Tokenizers.layerEncoding(encoding)))
          const gpt = yield* countAll(sample).pipe(Effect.provide(Tokenizers.layerGptTokenizer(encoding)))
          const reference = yield* countAll(sample).pipe(Effect.provide(Tokenizers.layerJsTiktoken(encoding)))
          assert.deepStrictEqual(fast, reference)
          assert.deepStrictEqual(gpt, reference)
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
    assert.strictEqual(Tokenizers.layerModel("gpt-4o"), Tokenizers.layerModel("o3-mini"))
    assert.strictEqual(Tokenizers.layerModel("gpt-4-turbo"), Tokenizers.layerModel("gpt-3.5-turbo"))
    assert.notStrictEqual(Tokenizers.layerModel("gpt-4o"), Tokenizers.layerModel("gpt-4"))
    assert.strictEqual(Tokenizers.layerEncoding("cl100k_base"), Tokenizers.layerCl100kBase)
    assert.strictEqual(Tokenizers.layerEncoding("o200k_base"), Tokenizers.layerO200kBase)
    assert.strictEqual(
      Tokenizers.layerEncoding("o200k_base", "ai-tokenizer"),
      Tokenizers.layerEncoding("o200k_base", "ai-tokenizer")
    )
    assert.strictEqual(
      Tokenizers.layerGptTokenizer("o200k_base"),
      Tokenizers.layerEncoding("o200k_base", "gpt-tokenizer")
    )
    assert.notStrictEqual(Tokenizers.layerGptTokenizer("o200k_base"), Tokenizers.layerO200kBase)
    assert.strictEqual(Tokenizers.layerJsTiktoken("o200k_base"), Tokenizers.layerJsTiktoken("o200k_base"))
    assert.notStrictEqual(Tokenizers.layerJsTiktoken("o200k_base"), Tokenizers.layerJsTiktoken("cl100k_base"))
    assert.strictEqual(Tokenizers.layerByName("words"), TokenCounter.layerWordCount)
    assert.strictEqual(Tokenizers.layerByName("o200k_base"), Tokenizers.layerModel("gpt-4o"))
    assert.strictEqual(Tokenizers.layerByName("gpt-3.5-turbo"), Tokenizers.layerByName("cl100k_base"))
  })

  it.effect("layerModel counts with the model's encoding", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* count("お誕生日おめでとう").pipe(Effect.provide(Tokenizers.layerModel("gpt-4o-mini"))),
        8
      )
      assert.strictEqual(yield* count("お誕生日おめでとう").pipe(Effect.provide(Tokenizers.layerModel("gpt-4"))), 9)
    }))

  it.effect("layerModel fails with ConfigError for an unknown model, listing the known ones", () =>
    Effect.gen(function*() {
      const error = yield* count("hi").pipe(Effect.provide(Tokenizers.layerModel("llama-3")), Effect.flip)
      assert.instanceOf(error, ConfigError)
      assert.strictEqual(error.option, "model")
      assert.strictEqual(
        error.description,
        `unknown model "llama-3": expected a model name (${Tokenizers.models.join(", ")})`
      )
      for (const known of ["gpt-4o", "gpt-5", "claude-sonnet-4-5", "gemini-2.5-pro", "gpt-3.5-turbo*"]) {
        assert.include(Tokenizers.models, known)
      }
      // An encoding is not a model name.
      const encodingError = yield* count("hi").pipe(Effect.provide(Tokenizers.layerModel("o200k_base")), Effect.flip)
      assert.instanceOf(encodingError, ConfigError)
      assert.strictEqual(encodingError.option, "model")
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

// ---------------------------------------------------------------------------
// ai-tokenizer: exact on every real message; Claude and Gemini estimates; framing
// ---------------------------------------------------------------------------

/** Every real message of the four transcript files (`conversations-long.jsonl` included), in file order. */
const everyMessage: ReadonlyArray<Message.Message> = [...DATA_FILES, "conversations-long.jsonl"]
  .flatMap((file) => dataLines(file).flatMap((line) => decodeConversation(line).messages))
const everyText = everyMessage.map((m) => m.tokenText)

const counterOf = (layer: Layer.Layer<TokenCounter.TokenCounter, ConfigError>) =>
  Effect.flatMap(
    TokenCounter.TokenCounter,
    (counter) => Effect.succeed((text: string) => Effect.runSync(counter.count(text)))
  )
    .pipe(Effect.provide(layer))

// Names spelt like Object.prototype members, alone and inside text: ai-tokenizer
// alone reads an inherited member for them (1 token); the layer counts them exactly.
type SdkTokenizer = Parameters<typeof AiTokenizerSdk.count>[0]["tokenizer"]

const prototypeNames = Object.getOwnPropertyNames(Object.prototype)

describe("ai-tokenizer", () => {
  for (const encoding of Tokenizers.encodings) {
    it.effect.skipIf(everyText.length === 0)(
      `${encoding}: the same counts as gpt-tokenizer on every real message`,
      () =>
        Effect.gen(function*() {
          assert.isAbove(everyText.length, 12_000)
          const fast = yield* countAll(everyText).pipe(Effect.provide(Tokenizers.layerEncoding(encoding)))
          const gpt = yield* countAll(everyText).pipe(Effect.provide(Tokenizers.layerGptTokenizer(encoding)))
          assert.deepStrictEqual(fast, gpt)
          assert.strictEqual(fast.reduce((a, b) => a + b, 0), encoding === "o200k_base" ? 2_273_330 : 2_281_701)
        }),
      60_000
    )

    it.effect(`${encoding}: text spelt like Object.prototype members counts exactly`, () =>
      Effect.gen(function*() {
        const fast = yield* counterOf(Tokenizers.layerEncoding(encoding))
        const gpt = yield* counterOf(Tokenizers.layerGptTokenizer(encoding))
        assert.deepStrictEqual(
          ["__proto__", "toString", "valueOf", "hasOwnProperty"].map(fast),
          encoding === "o200k_base" ? [3, 2, 2, 3] : [3, 1, 1, 2]
        )
        for (const name of prototypeNames) {
          for (const text of [name, `${name} x`, `(${name})`, `a.${name}()`, `\n${name}`]) {
            assert.strictEqual(fast(text), gpt(text), JSON.stringify(text))
          }
        }
      }))

    it.effect.prop(
      `${encoding}: the same counts as gpt-tokenizer on any text`,
      [fc.array(
        fc.oneof(fc.string({ unit: "grapheme" }), fc.constantFrom(...prototypeNames, " ", "\n", ".", "<|endoftext|>"))
      )],
      ([parts]) =>
        Effect.gen(function*() {
          const text = parts.join("")
          const fast = yield* counterOf(Tokenizers.layerEncoding(encoding))
          const gpt = yield* counterOf(Tokenizers.layerGptTokenizer(encoding))
          assert.strictEqual(fast(text), gpt(text))
        }),
      { fastCheck: { numRuns: 300 } }
    )
  }

  it("modelTokenizer: the model table is ai-tokenizer's", () => {
    const published = AiTokenizer.models as Record<string, { encoding: string; tokens: Record<string, number> }>
    const seen: Array<string> = []
    for (const [id, model] of Object.entries(published)) {
      const [provider, family] = id.split("/")
      if (!["openai", "anthropic", "google"].includes(provider) || model.encoding === "p50k_base") continue
      const name = provider === "anthropic" ? family.replaceAll(".", "-") : family
      seen.push(name)
      assert.deepStrictEqual(
        Tokenizers.modelTokenizer(id),
        Option.some({
          family: name,
          provider: provider as Tokenizers.Provider,
          vocabulary: model.encoding as Tokenizers.ModelTokenizer["vocabulary"],
          exact: provider === "openai",
          contentMultiplier: model.tokens.contentMultiplier,
          framingTokens: model.tokens.perMessage + 1
        }),
        id
      )
    }
    assert.strictEqual(seen.length, 39)
    assert.deepStrictEqual([...seen].sort(), Tokenizers.models.filter((m) => !m.includes("*") && m !== "gpt-4").sort())
    // The role is one token in every vocabulary (the framing counts it as 1).
    for (const vocabulary of ["o200k_base", "cl100k_base", "claude"] as const) {
      const tokenizer = new AiTokenizer.Tokenizer(
        vocabulary === "o200k_base" ? o200k : vocabulary === "cl100k_base" ? cl100k : claude
      )
      for (const role of ["system", "user", "assistant", "tool"]) assert.strictEqual(tokenizer.count(role), 1)
    }
  })

  it("modelTokenizer: names of the three providers, dated and suffixed variants, the longest family first", () => {
    const cases: ReadonlyArray<readonly [string, string, string, number, number]> = [
      // name, family, vocabulary, multiplier, framing tokens
      ["gpt-4o", "gpt-4o", "o200k_base", 1, 4],
      ["gpt-4o-mini-2024-07-18", "gpt-4o-mini", "o200k_base", 1, 4],
      ["GPT-5", "gpt-5", "o200k_base", 1, 5],
      ["gpt-5-chat-latest", "gpt-5-chat", "o200k_base", 1, 4],
      ["gpt-5.1", "gpt-5.1", "o200k_base", 1, 5],
      ["o3-mini", "o3-mini", "o200k_base", 1, 4],
      ["o3-pro", "o3", "o200k_base", 1, 5],
      ["gpt-4", "gpt-4", "cl100k_base", 1, 4],
      ["gpt-4-turbo-2024-04-09", "gpt-4-turbo", "cl100k_base", 1, 4],
      ["gpt-3.5-turbo", "gpt-3.5-turbo", "cl100k_base", 1, 4],
      ["claude-sonnet-4-5", "claude-sonnet-4-5", "claude", 1.1, 3],
      ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5", "claude", 1.1, 3],
      ["anthropic/claude-sonnet-4.5", "claude-sonnet-4-5", "claude", 1.1, 3],
      ["claude-3-5-sonnet-20240620", "claude-3-5-sonnet-20240620", "claude", 1.1, 3],
      ["claude-3-5-sonnet-latest", "claude-3-5-sonnet", "claude", 1.1, 3],
      ["claude-opus-4-1-20250805", "claude-opus-4-1", "claude", 1.1, 3],
      ["gemini-2.5-pro", "gemini-2.5-pro", "o200k_base", 1.08, 0],
      ["gemini-2.5-flash-lite", "gemini-2.5-flash-lite", "o200k_base", 1.08, 0],
      ["gemini-2.5-flash-preview-09-2025", "gemini-2.5-flash-preview-09-2025", "o200k_base", 1.11, 1],
      ["google/gemini-2.0-flash-001", "gemini-2.0-flash", "o200k_base", 1.08, 0]
    ]
    for (const [name, family, vocabulary, contentMultiplier, framingTokens] of cases) {
      const model = Option.getOrThrow(Tokenizers.modelTokenizer(name))
      assert.deepStrictEqual(
        [model.family, model.vocabulary, model.contentMultiplier, model.framingTokens, model.exact],
        [family, vocabulary, contentMultiplier, framingTokens, model.provider === "openai"],
        name
      )
    }
    for (
      const name of ["", "claude", "claude-2", "gemini-1.5-pro", "gemini-2.5", "llama-3", "mistral-large", "sonnet"]
    ) {
      assert.deepStrictEqual(Tokenizers.modelTokenizer(name), Option.none(), name)
    }
  })

  it.effect("Claude and Gemini: the vocabulary's count times the multiplier, rounded", () =>
    Effect.gen(function*() {
      const texts = ["", "hello world", "Book me a flight to Rome", "お誕生日おめでとう", "<|endoftext|>", "__proto__"]
      const claudeCount = yield* counterOf(Tokenizers.layerModel("claude-sonnet-4-5"))
      const geminiCount = yield* counterOf(Tokenizers.layerModel("gemini-2.5-pro"))
      const o200kCount = yield* counterOf(Tokenizers.layerO200kBase)
      assert.deepStrictEqual(texts.map(claudeCount), CLAUDE_FIXED)
      assert.deepStrictEqual(texts.map(geminiCount), GEMINI_FIXED)
      assert.deepStrictEqual(texts.map(geminiCount), texts.map((t) => Math.round(o200kCount(t) * 1.08)))
      const claudeTokenizer = new AiTokenizer.Tokenizer(claude)
      assert.deepStrictEqual(texts.map(claudeCount), texts.map((t) => Math.round(claudeTokenizer.count(t) * 1.1)))
    }))

  it.effect.skipIf(everyMessage.length === 0)(
    `framing: each count is ai-tokenizer's count of the message for the model, on every real text message`,
    () =>
      Effect.gen(function*() {
        // Messages ai-tokenizer's `count` takes as they are: a standard role, text content, no tool fields.
        const plain = everyMessage.filter((m) =>
          ["system", "user", "assistant"].includes(m.role) && m.toolCalls.length === 0 && m.toolCallId === undefined
        )
        assert.isAbove(plain.length, 7_000)
        for (
          const [name, id, data] of [
            ["gpt-4o", "openai/gpt-4o", o200k],
            ["gpt-5", "openai/gpt-5", o200k],
            ["gpt-4-turbo", "openai/gpt-4-turbo", cl100k],
            ["claude-sonnet-4-5", "anthropic/claude-sonnet-4.5", claude],
            ["gemini-2.5-pro", "google/gemini-2.5-pro", o200k]
          ] as const
        ) {
          const framed = yield* counterOf(Tokenizers.layerModel(name, { framing: true }))
          // The sdk entry declares its own copy of the Tokenizer class.
          const tokenizer = new AiTokenizer.Tokenizer(data) as unknown as SdkTokenizer
          const model = AiTokenizer.models[id]
          const expected = plain.map((m) =>
            AiTokenizerSdk.count({
              tokenizer,
              model,
              messages: [{ role: m.role as "user", content: m.content }]
            }).messages[0].total
          )
          assert.deepStrictEqual(plain.map((m) => framed(m.tokenText)), expected, name)
        }
      }),
    60_000
  )

  it.effect("framing: a RollingMemory budgets in billed tokens", () =>
    Effect.gen(function*() {
      const memory = yield* RollingMemory.make({ maxTokens: 20 })
      yield* memory.add(Message.user("Book me a flight to Rome")) // 6 + 4
      assert.strictEqual(yield* memory.bufferTokens, 10)
      yield* memory.add(Message.assistant("Which day?")) // 3 + 4
      assert.strictEqual(yield* memory.bufferTokens, 17)
      yield* memory.add(Message.user("May 3")) // 3 + 4: over 20, the oldest unit goes
      assert.deepStrictEqual((yield* memory.buffer).map((m) => m.content), ["May 3"])
      assert.strictEqual(yield* memory.bufferTokens, 7)
    }).pipe(Effect.provide(Tokenizers.layerModel("gpt-4o", { framing: true }))))

  it("framing: layers memoize by what they count", () => {
    assert.strictEqual(Tokenizers.layerModel("gpt-4o", { framing: false }), Tokenizers.layerByName("o200k_base"))
    assert.strictEqual(
      Tokenizers.layerModel("gpt-4o", { framing: true }),
      Tokenizers.layerModel("gpt-4.1", { framing: true })
    )
    assert.notStrictEqual(
      Tokenizers.layerModel("gpt-4o", { framing: true }),
      Tokenizers.layerModel("gpt-5", { framing: true })
    )
    assert.strictEqual(Tokenizers.layerModel("claude-sonnet-4-5"), Tokenizers.layerModel("claude-opus-4-1-20250805"))
    assert.strictEqual(
      Tokenizers.layerModel("gemini-2.5-pro", { framing: true }),
      Tokenizers.layerModel("gemini-2.5-pro")
    )
  })

  it.effect("bad options are a ConfigError naming the option", () =>
    Effect.gen(function*() {
      const failure = (layer: Layer.Layer<TokenCounter.TokenCounter, ConfigError>) =>
        Effect.flip(count("hi").pipe(Effect.provide(layer)))
      const cases: ReadonlyArray<readonly [Layer.Layer<TokenCounter.TokenCounter, ConfigError>, string, string]> = [
        [
          Tokenizers.layerModel("gpt-4o", { framng: true } as Tokenizers.LoadOptions),
          "framng",
          "unknown option (known: engine, framing)"
        ],
        [
          Tokenizers.layerModel("gpt-4o", { framing: "yes" } as unknown as Tokenizers.LoadOptions),
          "framing",
          "expected true or false, got \"yes\""
        ],
        [
          Tokenizers.layerModel("gpt-4o", null as unknown as Tokenizers.LoadOptions),
          "options",
          "must be an object, got null"
        ],
        [
          Tokenizers.layerModel("gpt-4o", { engine: "tiktoken" as Tokenizers.Engine }),
          "engine",
          "unknown engine \"tiktoken\": expected \"ai-tokenizer\", \"gpt-tokenizer\", \"js-tiktoken\""
        ],
        [
          Tokenizers.layerModel("claude-sonnet-4-5", { engine: "gpt-tokenizer" }),
          "engine",
          "\"claude-sonnet-4-5\" counts with \"ai-tokenizer\" only (Claude's vocabulary ships there), not \"gpt-tokenizer\""
        ],
        [
          Tokenizers.layerByName("o200k_base", { framing: true }),
          "framing",
          "framing needs a model name (whose framing?), got \"o200k_base\""
        ],
        [
          Tokenizers.layerByName("words", { framing: true }),
          "framing",
          "framing needs a model name (whose framing?), got \"words\""
        ]
      ]
      for (const [layer, option, description] of cases) {
        const error = yield* failure(layer)
        assert.instanceOf(error, ConfigError)
        assert.deepStrictEqual([error.option, error.description], [option, description])
      }
    }))
})
