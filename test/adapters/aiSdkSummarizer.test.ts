/**
 * `aiSdkSummarizer` over the AI SDK's own `generateText` (the `ai`
 * devDependency) and its mock model: the request it makes (instructions,
 * request, `maxOutputTokens`, `abortSignal`), the budget rule of the other
 * ready summarizers, cancellation, and its errors. No network.
 */
import { assert, describe, it } from "@effect/vitest"
import { MockLanguageModelV3 } from "ai/test"
import { aiSdkSummarizer } from "../../src/adapters.js"
import * as SummaryPrompt from "../../src/ai/SummaryPrompt.js"
import { ConfigError, SummarizerError } from "../../src/Errors.js"
import { AsyncRollingMemory } from "../../src/promise/index.js"
import * as Message from "../../src/schema/Message.js"

type CallOptions = Parameters<MockLanguageModelV3["doGenerate"]>[0]
type GenerateResult = Awaited<ReturnType<MockLanguageModelV3["doGenerate"]>>

const reply = (text: string): GenerateResult => ({
  content: text === "" ? [] : [{ type: "text", text }],
  finishReason: { unified: "stop", raw: "stop" },
  usage: {
    inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 2, text: 2, reasoning: 0 }
  },
  warnings: []
})

const model = (text: string) => {
  const calls: Array<CallOptions> = []
  const mock = new MockLanguageModelV3({
    doGenerate: (options) => {
      calls.push(options)
      return Promise.resolve(reply(text))
    }
  })
  return { mock, calls }
}

describe("aiSdkSummarizer", () => {
  it("one generateText call: the instructions as system, the request as prompt, the budget as maxOutputTokens", async () => {
    const { calls, mock } = model("S1")
    const summarize = aiSdkSummarizer({ model: mock, maxSummaryTokens: 50 })
    const memory = new AsyncRollingMemory({ maxTokens: 3, summarize })
    await memory.addUserMessage("one two")
    await memory.addAssistantMessage("three four")
    assert.strictEqual(memory.summary, "S1")
    assert.strictEqual(calls.length, 1)
    assert.strictEqual(calls[0].maxOutputTokens, 50)
    assert.deepStrictEqual(JSON.parse(JSON.stringify(calls[0].prompt)), [
      { role: "system", content: SummaryPrompt.instructions(50) },
      {
        role: "user",
        content: [{
          type: "text",
          text: SummaryPrompt.request({ summary: "", transcript: "[user]\none two", maxTokens: 50 })
        }]
      }
    ])
    assert.instanceOf(calls[0].abortSignal, AbortSignal)
  })

  it("a smaller budget in the request wins; a custom prompt replaces the instructions; the reply is fitted", async () => {
    const { calls, mock } = model("one two three four five")
    const summarize = aiSdkSummarizer({ model: mock, maxSummaryTokens: 300, prompt: "Sum.", maxRetries: 0 })
    assert.strictEqual(await summarize("S0", [Message.user("hi")], { maxSummaryTokens: 3 }), "one two three…")
    assert.strictEqual(calls[0].maxOutputTokens, 3)
    assert.deepStrictEqual(calls[0].prompt[0], { role: "system", content: "Sum." })
  })

  it("the facade's signal cancels the request: an aborted signal rejects and the model sees it aborted", async () => {
    const seen: Array<AbortSignal | undefined> = []
    let started = (): void => undefined
    const start = new Promise<void>((resolve) => started = resolve)
    const mock = new MockLanguageModelV3({
      doGenerate: (options) => {
        seen.push(options.abortSignal)
        started()
        return new Promise((_, reject) => {
          options.abortSignal?.addEventListener("abort", () => reject(options.abortSignal?.reason), { once: true })
        })
      }
    })
    const controller = new AbortController()
    const pending = aiSdkSummarizer({ model: mock, maxRetries: 0 })("", [Message.user("hi")], controller.signal)
    await start
    controller.abort(new DOMException("stop", "AbortError"))
    const error = await pending.then(() => undefined, (e: unknown) => e)
    assert.strictEqual((error as DOMException).name, "AbortError")
    assert.strictEqual(seen[0]?.aborted, true)
  })

  it("a reply without text rejects with SummarizerError; the memory's fold fails and commits nothing", async () => {
    const { mock } = model("")
    const summarize = aiSdkSummarizer({ model: mock })
    const error = await summarize("", [Message.user("hi")]).then(() => undefined, (e: unknown) => e)
    assert.instanceOf(error, SummarizerError)
    assert.strictEqual((error as SummarizerError).description, "the model's reply holds no text")
    const memory = new AsyncRollingMemory({ maxTokens: 3, summarize })
    await memory.addUserMessage("one two")
    const failed = await memory.addAssistantMessage("three four").then(() => undefined, (e: unknown) => e)
    assert.instanceOf(failed, SummarizerError)
    assert.strictEqual(memory.summary, "")
  })

  it("a missing model, a budget or retry count out of range is a ConfigError", () => {
    const { mock } = model("S")
    assert.throws(() => aiSdkSummarizer({ model: "" }), ConfigError)
    assert.throws(() => aiSdkSummarizer({ model: mock, maxSummaryTokens: 0 }), ConfigError)
    assert.throws(() => aiSdkSummarizer({ model: mock, maxRetries: -1 }), ConfigError)
  })
})
