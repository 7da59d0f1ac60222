/**
 * The usage of a shipped summarizer's own request (contract 16.5): read
 * from each provider's response, given to `onUsage`, added to the
 * summarizer-usage counters, never recorded as the memory's usage sample
 * (the request is the summarizer's, not the memory's context); and their
 * options decoded as the memories' are: an unknown key is a ConfigError (14.3).
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Response from "@effect/ai/Response"
import { assert, describe, it } from "@effect/vitest"
import { MockLanguageModelV3 } from "ai/test"
import { Effect, Layer, Metric, Stream } from "effect"
import * as Adapters from "../../src/adapters.js"
import * as LanguageModelSummarizer from "../../src/ai/LanguageModelSummarizer.js"
import * as Usage from "../../src/core/usage.js"
import { ConfigError, type SummarizerError } from "../../src/Errors.js"
import { AsyncRollingMemory } from "../../src/promise/index.js"
import * as Message from "../../src/schema/Message.js"
import * as Summarizer from "../../src/services/Summarizer.js"
import * as Telemetry from "../../src/Telemetry.js"

const spent = (summarizer: Summarizer.ShippedSummarizer) =>
  Effect.runSync(Effect.all([
    Effect.map(Metric.value(Metric.tagged(Telemetry.summarizerInputTokens, "summarizer", summarizer)), (v) => v.count),
    Effect.map(Metric.value(Metric.tagged(Telemetry.summarizerOutputTokens, "summarizer", summarizer)), (v) => v.count)
  ]))

/** The counters' growth over `run`: [input, output]. */
const growth = async (summarizer: Summarizer.ShippedSummarizer, run: () => Promise<unknown>) => {
  const [input, output] = spent(summarizer)
  await run()
  const [input2, output2] = spent(summarizer)
  return [input2 - input, output2 - output]
}

describe("Usage.requestUsage (contract 16.5)", () => {
  it("each provider's usage object: the whole prompt and the output", () => {
    assert.deepStrictEqual(Usage.requestUsage({ prompt_tokens: 812, completion_tokens: 95, total_tokens: 907 }), {
      inputTokens: 812,
      outputTokens: 95
    })
    assert.deepStrictEqual(
      Usage.requestUsage({
        input_tokens: 10,
        cache_read_input_tokens: 800,
        cache_creation_input_tokens: 5,
        output_tokens: 40
      }),
      { inputTokens: 815, outputTokens: 40 }
    )
    assert.deepStrictEqual(Usage.requestUsage({ input_tokens: 30, output_tokens: 7, total_tokens: 37 }), {
      inputTokens: 30,
      outputTokens: 7
    })
    assert.deepStrictEqual(Usage.requestUsage({ inputTokens: 12, outputTokens: 3, totalTokens: 15 }), {
      inputTokens: 12,
      outputTokens: 3
    })
    assert.deepStrictEqual(Usage.requestUsage({ promptTokenCount: 9, candidatesTokenCount: 4 }), {
      inputTokens: 9,
      outputTokens: 4
    })
    assert.deepStrictEqual(Usage.requestUsage({ prompt_tokens: 5 }), { inputTokens: 5, outputTokens: undefined })
  })

  it("Anthropic's compaction iterations are added; other iterations are in the top level already", () => {
    assert.deepStrictEqual(
      Usage.requestUsage({
        input_tokens: 100,
        cache_read_input_tokens: null,
        cache_creation_input_tokens: null,
        output_tokens: 20,
        iterations: [
          {
            type: "compaction",
            input_tokens: 3000,
            cache_read_input_tokens: 200,
            cache_creation_input_tokens: 0,
            output_tokens: 400
          },
          { type: "message", input_tokens: 100, output_tokens: 20 }
        ]
      }),
      { inputTokens: 3300, outputTokens: 420 }
    )
  })

  it("no usage, or a malformed prompt count: undefined", () => {
    for (
      const raw of [
        undefined,
        null,
        "812",
        [],
        {},
        { prompt_tokens: -1 },
        { prompt_tokens: Number.NaN },
        { prompt_tokens: "812" },
        { prompt_tokens: 1.5 },
        { inputTokens: undefined, outputTokens: 3 }
      ]
    ) assert.strictEqual(Usage.requestUsage(raw), undefined, JSON.stringify(raw))
    // a malformed output count is read as not reported
    assert.deepStrictEqual(Usage.requestUsage({ prompt_tokens: 5, completion_tokens: -2 }), {
      inputTokens: 5,
      outputTokens: undefined
    })
  })
})

describe("the ready summarizers report their requests' usage (contract 16.5)", () => {
  it("openAIChatSummarizer: onUsage once per request and the counters; the memory's ratio is not moved", async () => {
    const seen: Array<Summarizer.ProviderUsage> = []
    const client: Adapters.OpenAIChatClient = {
      chat: {
        completions: {
          create: () =>
            Promise.resolve({
              choices: [{ message: { content: "S1" } }],
              usage: { prompt_tokens: 812, completion_tokens: 95, total_tokens: 907 }
            })
        }
      }
    }
    const summarize = Adapters.openAIChatSummarizer(client, { model: "gpt-x", onUsage: (u) => seen.push(u) })
    const memory = new AsyncRollingMemory({ maxTokens: 3, summarize })
    const counted = await growth("openai-chat", async () => {
      await memory.addUserMessage("one two")
      await memory.addAssistantMessage("three four")
    })
    assert.strictEqual(memory.summary, "S1")
    assert.deepStrictEqual(seen, [{ summarizer: "openai-chat", model: "gpt-x", inputTokens: 812, outputTokens: 95 }])
    assert.deepStrictEqual(counted, [812, 95])
    assert.strictEqual(memory.usageRatio, 1)
  })

  it("anthropicSummarizer: the cache reads and writes are input; a reply then refused was still reported", async () => {
    const seen: Array<Summarizer.ProviderUsage> = []
    let content = [{ type: "text", text: "S2" }]
    const client: Adapters.AnthropicClient = {
      messages: {
        create: () =>
          Promise.resolve({
            content,
            usage: { input_tokens: 10, cache_read_input_tokens: 800, cache_creation_input_tokens: 5, output_tokens: 40 }
          })
      }
    }
    const summarize = Adapters.anthropicSummarizer(client, { model: "claude-x", onUsage: (u) => seen.push(u) })
    const counted = await growth("anthropic", async () => {
      assert.strictEqual(await summarize("", [Message.user("hi")]), "S2")
      content = []
      const error = await summarize("", [Message.user("hi")]).then(() => undefined, (e: unknown) => e)
      assert.strictEqual((error as SummarizerError).description, "the model's reply holds no text")
    })
    const one: Summarizer.ProviderUsage = {
      summarizer: "anthropic",
      model: "claude-x",
      inputTokens: 815,
      outputTokens: 40
    }
    assert.deepStrictEqual(seen, [one, one])
    assert.deepStrictEqual(counted, [1630, 80])
  })

  it("no usage in the response, or a malformed one: no call, the counters unchanged", async () => {
    const seen: Array<Summarizer.ProviderUsage> = []
    let usage: unknown = undefined
    const client: Adapters.OpenAIChatClient = {
      chat: { completions: { create: () => Promise.resolve({ choices: [{ message: { content: "S" } }], usage }) } }
    }
    const summarize = Adapters.openAIChatSummarizer(client, { model: "gpt-x", onUsage: (u) => seen.push(u) })
    const counted = await growth("openai-chat", async () => {
      await summarize("", [Message.user("hi")])
      usage = { prompt_tokens: "812" }
      await summarize("", [Message.user("hi")])
    })
    assert.deepStrictEqual(seen, [])
    assert.deepStrictEqual(counted, [0, 0])
  })

  it("a throw from onUsage rejects the call: the memory's fold fails and commits nothing", async () => {
    const client: Adapters.OpenAIChatClient = {
      chat: {
        completions: {
          create: () => Promise.resolve({ choices: [{ message: { content: "S" } }], usage: { prompt_tokens: 4 } })
        }
      }
    }
    const summarize = Adapters.openAIChatSummarizer(client, {
      model: "gpt-x",
      onUsage: () => {
        throw new Error("meter down")
      }
    })
    const memory = new AsyncRollingMemory({ maxTokens: 3, summarize })
    await memory.addUserMessage("one two")
    const error = await memory.addAssistantMessage("three four").then(() => undefined, (e: unknown) => e)
    assert.strictEqual((error as Error).message, "meter down")
    assert.strictEqual(memory.summary, "")
    assert.strictEqual(memory.getMessages().length, 2)
  })

  it("aiSdkSummarizer: generateText's usage, the model's modelId", async () => {
    const seen: Array<Summarizer.ProviderUsage> = []
    const mock = new MockLanguageModelV3({
      modelId: "mock-model",
      doGenerate: () =>
        Promise.resolve({
          content: [{ type: "text", text: "S3" }],
          finishReason: { unified: "stop", raw: "stop" },
          usage: {
            inputTokens: { total: 120, noCache: 20, cacheRead: 100, cacheWrite: 0 },
            outputTokens: { total: 6, text: 6, reasoning: 0 }
          },
          warnings: []
        })
    })
    const summarize = Adapters.aiSdkSummarizer({ model: mock, onUsage: (u) => seen.push(u) })
    const counted = await growth("ai-sdk", () => summarize("", [Message.user("hi")]))
    assert.deepStrictEqual(seen, [{ summarizer: "ai-sdk", model: "mock-model", inputTokens: 120, outputTokens: 6 }])
    assert.deepStrictEqual(counted, [120, 6])
  })

  it("the compacting summarizers: Anthropic's compaction iteration added, OpenAI's compact usage", async () => {
    const seen: Array<Summarizer.ProviderUsage> = []
    const anthropic: Adapters.AnthropicCompactionClient = {
      beta: {
        messages: {
          create: () =>
            Promise.resolve({
              content: [{ type: "compaction", content: "Trip to Rome.", encrypted_content: null, signature: "s" }],
              usage: {
                input_tokens: 50,
                cache_read_input_tokens: 0,
                cache_creation_input_tokens: 0,
                output_tokens: 10,
                iterations: [{
                  type: "compaction",
                  input_tokens: 900,
                  cache_read_input_tokens: 0,
                  cache_creation_input_tokens: 0,
                  output_tokens: 60
                }]
              }
            })
        }
      }
    }
    const openai: Adapters.OpenAIResponsesCompactClient = {
      responses: {
        compact: () =>
          Promise.resolve({
            output: [{ type: "compaction", id: "cmp_1", encrypted_content: "gAAA" }],
            usage: { input_tokens: 700, output_tokens: 80, total_tokens: 780 }
          })
      }
    }
    const onUsage = (u: Summarizer.ProviderUsage) => {
      seen.push(u)
    }
    const a = Adapters.anthropicCompactionSummarizer(anthropic, { model: "claude-x", onUsage })
    const o = Adapters.openAIResponsesCompactSummarizer(openai, { model: "gpt-x", onUsage })
    assert.deepStrictEqual(await growth("anthropic-compaction", () => a("", [Message.user("Plan the trip.")])), [
      950,
      70
    ])
    assert.deepStrictEqual(await growth("openai-responses-compact", () => o("", [Message.user("Plan the trip.")])), [
      700,
      80
    ])
    assert.deepStrictEqual(seen, [
      { summarizer: "anthropic-compaction", model: "claude-x", inputTokens: 950, outputTokens: 70 },
      { summarizer: "openai-responses-compact", model: "gpt-x", inputTokens: 700, outputTokens: 80 }
    ])
  })
})

describe("LanguageModelSummarizer reports each request's usage (contract 16.5)", () => {
  /** A model whose replies carry a finish part with usage (`undefined`: none). */
  const modelWith = (replies: ReadonlyArray<readonly [string, number | undefined, number | undefined]>) =>
    Effect.map(
      LanguageModel.make({
        generateText: () =>
          Effect.sync(() => {
            const [text, inputTokens, outputTokens] = replies[calls++]
            return [
              { type: "text", text },
              {
                type: "finish",
                reason: "stop",
                usage: { inputTokens, outputTokens, totalTokens: undefined }
              }
            ] as Array<Response.PartEncoded>
          }),
        streamText: () => Stream.die("not used")
      }),
      (model) => Layer.succeed(LanguageModel.LanguageModel, model)
    )
  let calls = 0

  it.effect("once per request (a compression is a second one); the counters with the fiber's labels", () =>
    Effect.gen(function*() {
      calls = 0
      const seen: Array<Summarizer.ProviderUsage> = []
      const layer = yield* modelWith([["one two three four five six", 300, 6], ["one two", 40, 2]])
      const summarizer = yield* LanguageModelSummarizer.make({
        maxSummaryTokens: 5,
        onUsage: (u) => Effect.sync(() => seen.push(u))
      }).pipe(Effect.provide(layer))
      const labelled = (metric: typeof Telemetry.summarizerInputTokens) =>
        Effect.map(
          Metric.value(metric.pipe(Metric.tagged("summarizer", "language-model"), Metric.tagged("tenant", "t1"))),
          (v) => v.count
        )
      const before = yield* Effect.all([
        labelled(Telemetry.summarizerInputTokens),
        labelled(Telemetry.summarizerOutputTokens)
      ])
      const summary = yield* summarizer.summarize("", [Message.user("hi")], Summarizer.request()).pipe(
        Effect.tagMetrics("tenant", "t1")
      )
      const after = yield* Effect.all([
        labelled(Telemetry.summarizerInputTokens),
        labelled(Telemetry.summarizerOutputTokens)
      ])
      assert.strictEqual(summary, "one two")
      assert.deepStrictEqual(seen, [
        { summarizer: "language-model", model: undefined, inputTokens: 300, outputTokens: 6 },
        { summarizer: "language-model", model: undefined, inputTokens: 40, outputTokens: 2 }
      ])
      assert.deepStrictEqual([after[0] - before[0], after[1] - before[1]], [340, 8])
    }))

  it.effect("a response without usage: nothing reported", () =>
    Effect.gen(function*() {
      calls = 0
      const seen: Array<Summarizer.ProviderUsage> = []
      const layer = yield* modelWith([["short", undefined, undefined]])
      const summarizer = yield* LanguageModelSummarizer.make({ onUsage: (u) => Effect.sync(() => seen.push(u)) }).pipe(
        Effect.provide(layer)
      )
      assert.strictEqual(yield* summarizer.summarize("", [Message.user("hi")], Summarizer.request()), "short")
      assert.deepStrictEqual(seen, [])
    }))
})

describe("the ready summarizers' options are decoded: unknown keys refused (contract 14.3)", () => {
  const chat: Adapters.OpenAIChatClient = {
    chat: { completions: { create: () => Promise.resolve({ choices: [{ message: { content: "S" } }] }) } }
  }
  const anthropic: Adapters.AnthropicClient = {
    messages: { create: () => Promise.resolve({ content: [{ type: "text", text: "S" }] }) }
  }
  const compaction: Adapters.AnthropicCompactionClient = {
    beta: { messages: { create: () => Promise.resolve({ content: [] }) } }
  }
  const compact: Adapters.OpenAIResponsesCompactClient = {
    responses: { compact: () => Promise.resolve({ output: [] }) }
  }
  const refusal = (build: () => unknown): [string, string] => {
    try {
      build()
    } catch (e) {
      assert.instanceOf(e, ConfigError)
      return [(e as ConfigError).option, (e as ConfigError).description]
    }
    assert.fail("no ConfigError")
  }
  const known = "model, maxSummaryTokens, prompt, onUsage"

  it("a misspelt key is a ConfigError naming it and the known ones, for each summarizer", () => {
    const wrong = { model: "m", maxTokns: 300 } as unknown as Adapters.SummarizerOptions
    assert.deepStrictEqual(refusal(() => Adapters.openAIChatSummarizer(chat, wrong)), [
      "maxTokns",
      `unknown option for openAIChatSummarizer (known: ${known})`
    ])
    assert.deepStrictEqual(refusal(() => Adapters.anthropicSummarizer(anthropic, wrong)), [
      "maxTokns",
      `unknown option for anthropicSummarizer (known: ${known})`
    ])
    assert.deepStrictEqual(refusal(() => Adapters.anthropicCompactionSummarizer(compaction, wrong)), [
      "maxTokns",
      `unknown option for anthropicCompactionSummarizer (known: ${known})`
    ])
    assert.deepStrictEqual(refusal(() => Adapters.openAIResponsesCompactSummarizer(compact, wrong)), [
      "maxTokns",
      `unknown option for openAIResponsesCompactSummarizer (known: ${known})`
    ])
    assert.deepStrictEqual(
      refusal(() =>
        Adapters.aiSdkSummarizer({ model: "openai/gpt-x", maxRetry: 1 } as unknown as Adapters.AiSdkSummarizerOptions)
      ),
      ["maxRetry", "unknown option for aiSdkSummarizer (known: model, maxSummaryTokens, prompt, onUsage, maxRetries)"]
    )
  })

  it("a wrong value names the option and the rule; not an object is the options", () => {
    assert.deepStrictEqual(refusal(() => Adapters.openAIChatSummarizer(chat, { model: "" })), [
      "model",
      "a model name is required"
    ])
    assert.deepStrictEqual(refusal(() => Adapters.openAIChatSummarizer(chat, { model: "m", maxSummaryTokens: 0 })), [
      "maxSummaryTokens",
      "must be a positive integer, got 0"
    ])
    assert.deepStrictEqual(
      refusal(() => Adapters.anthropicSummarizer(anthropic, { model: "m", prompt: 3 as unknown as string })),
      ["prompt", "must be a string, got 3"]
    )
    assert.deepStrictEqual(
      refusal(() =>
        Adapters.openAIChatSummarizer(chat, {
          model: "m",
          onUsage: "log" as unknown as Adapters.SummarizerOptions["onUsage"]
        })
      ),
      ["onUsage", "must be a function, got string"]
    )
    assert.deepStrictEqual(refusal(() => Adapters.aiSdkSummarizer({ model: "" })), [
      "model",
      "an AI SDK model (or a gateway model id) is required"
    ])
    assert.deepStrictEqual(refusal(() => Adapters.aiSdkSummarizer({ model: "x", maxRetries: -1 })), [
      "maxRetries",
      "must be a non-negative integer, got -1"
    ])
    assert.deepStrictEqual(
      refusal(() => Adapters.openAIChatSummarizer(chat, null as unknown as Adapters.SummarizerOptions)),
      ["options", "must be an object, got null"]
    )
  })

  it("keys given as undefined are absent, as everywhere", async () => {
    const summarize = Adapters.openAIChatSummarizer(chat, {
      model: "m",
      maxSummaryTokens: undefined,
      prompt: undefined
    })
    assert.strictEqual(await summarize("", [Message.user("hi")]), "S")
  })

  it.effect("LanguageModelSummarizer.make: an unknown key, a prompt that is not a function", () =>
    Effect.gen(function*() {
      const layer = yield* Effect.map(
        LanguageModel.make({ generateText: () => Effect.succeed([]), streamText: () => Stream.die("not used") }),
        (model) => Layer.succeed(LanguageModel.LanguageModel, model)
      )
      const refused = (options: unknown) =>
        Effect.map(
          Effect.flip(Effect.provide(LanguageModelSummarizer.make(options as LanguageModelSummarizer.Options), layer)),
          (e) => [e.option, e.description]
        )
      assert.deepStrictEqual(yield* refused({ maxSummaryToken: 5 }), [
        "maxSummaryToken",
        "unknown option for LanguageModelSummarizer (known: maxSummaryTokens, prompt, compressPrompt, onUsage)"
      ])
      assert.deepStrictEqual(yield* refused({ prompt: "Summarize." }), ["prompt", "must be a function, got string"])
    }))
})
