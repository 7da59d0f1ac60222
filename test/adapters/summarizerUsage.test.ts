/**
 * The usage of a shipped summarizer's own request (contract 16.5): read
 * from each provider's response, given to `onUsage`, added to the
 * summarizer-usage counters, never recorded as the memory's usage sample
 * (the request is the summarizer's, not the memory's context); and their
 * options decoded as the memories' are: an unknown key is a ConfigError (14.3).
 * The ready summarizers openAIChatSummarizer, anthropicSummarizer and
 * aiSdkSummarizer are held to test/support/summarizerCases.ts on both lines.
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Response from "@effect/ai/Response"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Metric, Stream } from "effect"
import * as Adapters from "../../src/adapters.js"
import * as LanguageModelSummarizer from "../../src/ai/LanguageModelSummarizer.js"
import * as Usage from "../../src/core/usage.js"
import { ConfigError } from "../../src/Errors.js"
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

// openAIChatSummarizer, anthropicSummarizer and aiSdkSummarizer: test/support/summarizerCases.ts, on both lines
describe("the ready summarizers report their requests' usage (contract 16.5)", () => {
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

// openAIChatSummarizer, anthropicSummarizer and aiSdkSummarizer: test/support/summarizerCases.ts, on both lines
describe("the ready summarizers' options are decoded: unknown keys refused (contract 14.3)", () => {
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

  it("a misspelt key is a ConfigError naming it and the known ones, for the compacting summarizers", () => {
    const wrong = { model: "m", maxTokns: 300 } as unknown as Adapters.CompactionSummarizerOptions
    assert.deepStrictEqual(refusal(() => Adapters.anthropicCompactionSummarizer(compaction, wrong)), [
      "maxTokns",
      `unknown option for anthropicCompactionSummarizer (known: ${known})`
    ])
    assert.deepStrictEqual(refusal(() => Adapters.openAIResponsesCompactSummarizer(compact, wrong)), [
      "maxTokns",
      `unknown option for openAIResponsesCompactSummarizer (known: ${known})`
    ])
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
