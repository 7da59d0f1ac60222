import { assert, describe, it } from "@effect/vitest"
import * as Usage from "../../src/core/usage.js"

describe("Usage: the correction ratio (contract 16.4)", () => {
  it("the first sample as it is, then halfway to each new one", () => {
    assert.strictEqual(Usage.nextRatio(undefined, 1250, 1000), 1.25)
    assert.strictEqual(Usage.nextRatio(1.25, 1000, 1000), 1.125)
    assert.strictEqual(Usage.nextRatio(1.125, 800, 1000), 0.9625)
  })

  it("bounded to [0.5, 2]", () => {
    assert.strictEqual(Usage.nextRatio(undefined, 10_000, 1000), 2)
    assert.strictEqual(Usage.nextRatio(undefined, 10, 1000), 0.5)
    assert.strictEqual(Usage.nextRatio(2, 100_000, 1), 2)
  })

  it("a sample with a count that is not a positive finite number changes nothing", () => {
    for (const [measured, counted] of [[0, 10], [10, 0], [Number.NaN, 10], [10, Number.POSITIVE_INFINITY], [-5, 10]]) {
      assert.strictEqual(Usage.nextRatio(undefined, measured, counted), undefined)
      assert.strictEqual(Usage.nextRatio(1.5, measured, counted), 1.5)
    }
  })

  it("a budget in the counter's tokens", () => {
    assert.strictEqual(Usage.inCounterTokens(3000, undefined), 3000)
    assert.strictEqual(Usage.inCounterTokens(3000, 1.25), 2400)
    assert.strictEqual(Usage.inCounterTokens(3000, 0.8), 3750)
    assert.strictEqual(Usage.inCounterTokens(1, 2), 1)
  })
})

describe("Usage.reportedInputTokens: the provider's prompt count a message carries (contract 13.2)", () => {
  const kept = (format: string, item: Record<string, unknown>) => ({
    "rollmem.provider": { format, items: [{ role: "assistant", ...item }], messages: 1 }
  })

  it("reads each provider's fields", () => {
    assert.strictEqual(Usage.reportedInputTokens({ usage: { inputTokens: 1200, outputTokens: 9 } }), 1200)
    assert.strictEqual(Usage.reportedInputTokens({ usage: { prompt_tokens: 70, completion_tokens: 5 } }), 70)
    assert.strictEqual(
      Usage.reportedInputTokens({
        usage: { input_tokens: 10, cache_read_input_tokens: 1000, cache_creation_input_tokens: 24, output_tokens: 5 }
      }),
      1034
    )
    assert.strictEqual(Usage.reportedInputTokens({ usage: { input_tokens: 10, cache_read_input_tokens: null } }), 10)
    assert.strictEqual(Usage.reportedInputTokens({ usage: { promptTokenCount: 33 } }), 33)
    assert.strictEqual(Usage.reportedInputTokens(kept("openai-chat", { usage: { prompt_tokens: 12 } })), 12)
    assert.strictEqual(Usage.reportedInputTokens(kept("gemini", { usageMetadata: { promptTokenCount: 7 } })), 7)
  })

  it("undefined without a usable count", () => {
    assert.strictEqual(Usage.reportedInputTokens({}), undefined)
    assert.strictEqual(Usage.reportedInputTokens({ usage: { outputTokens: 9 } }), undefined)
    assert.strictEqual(Usage.reportedInputTokens({ usage: { inputTokens: -1 } }), undefined)
    assert.strictEqual(Usage.reportedInputTokens({ usage: { inputTokens: 1.5 } }), undefined)
    assert.strictEqual(Usage.reportedInputTokens({ usage: { prompt_tokens: "12" } }), undefined)
    assert.strictEqual(Usage.reportedInputTokens({ usage: [1] }), undefined)
    assert.strictEqual(Usage.reportedInputTokens(kept("anthropic", { content: "no usage" })), undefined)
    assert.strictEqual(Usage.reportedInputTokens({ "rollmem.provider": { items: "x" } }), undefined)
  })
})
