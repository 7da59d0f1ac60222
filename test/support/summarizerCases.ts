/**
 * The ready summarizers of `rollmem/adapters` (docs/contract.md sections
 * 14.3, 15.4 and 16.5), as one case runner both lines run with their own
 * constructors (test/adapters/readySummarizers.test.ts on the Effect 3
 * line, effect4/test/adapters/readySummarizers.test.ts on the Effect 4
 * line): fake clients record the exact request bodies and SDK options, and
 * each line must send the same, read the replies the same and refuse the
 * same options with the same `ConfigError`.
 */
import type { OpenAIChatClient, SummarizeRequest } from "../../src/core/readySummarizers.js"
import * as SummaryPrompt from "../../src/core/summaryPrompt.js"
import { rejection } from "./promises.js"

/** A ready summarizer as the facade calls it. */
export type Summarize<M> = (
  summary: string,
  messages: ReadonlyArray<M>,
  third?: SummarizeRequest,
  fourth?: never
) => Promise<string>

/** The facade memory the cases fold with (`AsyncRollingMemory`). */
export interface FacadeMemory {
  readonly addUserMessage: (content: string) => Promise<unknown>
  readonly addAssistantMessage: (content: string) => Promise<unknown>
  readonly summary: string
  readonly summaryTokens: number
  readonly usageRatio: number
  readonly getMessages: () => ReadonlyArray<unknown>
  readonly dispose: () => Promise<void>
}

/** How one line runs the cases. */
export interface SummarizerLine<M> {
  readonly name: "effect3" | "effect4"
  readonly openAIChatSummarizer: (client: never, options: never) => Summarize<M>
  readonly anthropicSummarizer: (client: never, options: never) => Summarize<M>
  readonly aiSdkSummarizer: (options: never) => Summarize<M>
  readonly user: (content: string) => M
  /** The memory's request (`Summarizer.Request`, the word counter) with these fields. */
  readonly request: (fields: {
    readonly maxSummaryTokens?: number
    readonly focus?: string
    readonly mode?: "segment" | "consolidate"
  }) => unknown
  readonly memory: (
    options: { readonly maxTokens: number; readonly maxSummaryTokens?: number; readonly summarize: never }
  ) => FacadeMemory
  /** The `ConfigError`'s option and description, or `undefined` when `error` is none. */
  readonly configError: (error: unknown) => readonly [string, string] | undefined
  /** The `SummarizerError`'s description, or `undefined` when `error` is none. */
  readonly summarizerError: (error: unknown) => string | undefined
  /** The summarizer-usage counters `[input, output]` of `summarizer` (the Effect 3 line's only). */
  readonly counters?: ((summarizer: string) => readonly [number, number]) | undefined
}

/** The test functions the runner registers with (each line's own vitest). */
export interface Vitest {
  readonly describe: (name: string, body: () => void) => void
  readonly it: (name: string, body: () => Promise<void> | void) => void
  readonly assert: {
    deepStrictEqual: (actual: unknown, expected: unknown, message?: string) => void
    strictEqual: (actual: unknown, expected: unknown, message?: string) => void
    fail: (message?: string) => never
  }
}

/** One call a fake client received: the request body and the SDK options (the second argument). */
export interface Call {
  readonly body: unknown
  readonly options: unknown
}

/** A reply of a fake client: the value, or an error to reject with. */
type Reply = unknown

/** A client whose `create` records each call and answers with `reply(call)` (a rejected promise for an `Error`). */
const recorder = (reply: (call: Call) => Reply | Promise<Reply>) => {
  const calls: Array<Call> = []
  const create = (body: unknown, options?: unknown): Promise<never> => {
    const call = { body: structuredClone(body), options }
    calls.push(call)
    return Promise.resolve(reply(call)) as Promise<never>
  }
  return { calls, create }
}

/** A fake `openai` client (`chat.completions.create`). */
export const openAIChatClient = (reply: (call: Call) => Reply | Promise<Reply>) => {
  const { calls, create } = recorder(reply)
  const client: OpenAIChatClient = { chat: { completions: { create } } }
  return { calls, client }
}

/** A fake `@anthropic-ai/sdk` client (`messages.create`). */
export const anthropicClient = (reply: (call: Call) => Reply | Promise<Reply>) => {
  const { calls, create } = recorder(reply)
  return { calls, client: { messages: { create } } }
}

/**
 * A fake AI SDK model (`LanguageModelV3`: what the real `generateText` of
 * `ai` calls): each `doGenerate` call's options recorded, answered with
 * `reply(options)` (a text, or a promise that may reject).
 */
export const aiSdkModel = (reply: (options: AiCall) => string | Promise<string>) => {
  const calls: Array<AiCall> = []
  const model = {
    specificationVersion: "v3",
    provider: "fake",
    modelId: "fake-model",
    supportedUrls: {},
    doGenerate: async (options: AiCall) => {
      calls.push(options)
      const text = await reply(options)
      return {
        content: text === "" ? [] : [{ type: "text", text }],
        finishReason: { unified: "stop", raw: "stop" },
        usage: {
          inputTokens: { total: 120, noCache: 20, cacheRead: 100, cacheWrite: 0 },
          outputTokens: { total: 6, text: 6, reasoning: 0 }
        },
        warnings: []
      }
    },
    doStream: () => Promise.reject(new Error("not used"))
  }
  return { calls, model }
}

/** The options `generateText` gives the model (those a ready summarizer sets). */
export interface AiCall {
  readonly maxOutputTokens?: number
  readonly prompt: unknown
  readonly abortSignal?: AbortSignal
}

/** What rollmem asked of the model: `maxOutputTokens` and the prompt, as JSON. */
const asked = (call: AiCall) =>
  JSON.parse(JSON.stringify({ maxOutputTokens: call.maxOutputTokens, prompt: call.prompt }))

/** The prompt `generateText` gives the model for `system` and the request `user`. */
const aiPrompt = (system: string, user: string) => [
  { role: "system", content: system },
  { role: "user", content: [{ type: "text", text: user }] }
]

const chatReply = (content: string | null, usage?: unknown) => ({
  choices: [{ message: { content } }],
  ...(usage === undefined ? {} : { usage })
})

const anthropicReply = (content: ReadonlyArray<unknown>, usage?: unknown) => ({
  content,
  ...(usage === undefined ? {} : { usage })
})

/** The request of a call with one user turn, as `SummaryPrompt` writes it. */
const request = (summary: string, transcript: string, maxTokens: number, extra: {
  readonly focus?: string
  readonly mode?: "segment" | "consolidate"
} = {}) => SummaryPrompt.request({ summary, transcript, maxTokens, ...extra })

const KNOWN = "model, maxSummaryTokens, prompt, onUsage"

/** Runs every case of the ready summarizers on `line`. */
export const runSummarizerCases = <M>(line: SummarizerLine<M>, { assert, describe, it }: Vitest) => {
  const chat = (client: OpenAIChatClient, options: unknown) =>
    line.openAIChatSummarizer(client as never, options as never)
  const aiSdk = (options: unknown) => line.aiSdkSummarizer(options as never)
  const anthropic = (client: unknown, options: unknown) => line.anthropicSummarizer(client as never, options as never)
  const memory = (summarize: Summarize<M>, maxSummaryTokens?: number) =>
    line.memory({
      maxTokens: 3,
      ...(maxSummaryTokens === undefined ? {} : { maxSummaryTokens }),
      summarize: summarize as never
    })
  /** A fold of the two turns "one two" and "three four" (the first is evicted). */
  const fold = async (m: FacadeMemory) => {
    await m.addUserMessage("one two")
    await m.addAssistantMessage("three four")
  }
  const refusal = (build: () => unknown): readonly [string, string] => {
    try {
      build()
    } catch (error) {
      const found = line.configError(error)
      if (found === undefined) throw error
      return found
    }
    return assert.fail("no ConfigError")
  }
  const describedFailure = async (promise: Promise<unknown>): Promise<string | undefined> =>
    line.summarizerError(await rejection(promise))
  const growth = async (summarizer: string, run: () => Promise<unknown>) => {
    const before = line.counters?.(summarizer)
    await run()
    const after = line.counters?.(summarizer)
    return before === undefined || after === undefined ? undefined : [after[0] - before[0], after[1] - before[1]]
  }

  describe(`openAIChatSummarizer (${line.name})`, () => {
    it("one request per fold: the instructions, the request, the budget, the facade's signal; the reply trimmed", async () => {
      const { calls, client } = openAIChatClient(() => chatReply(" S1 ", { prompt_tokens: 812, completion_tokens: 95 }))
      const m = memory(chat(client, { model: "gpt-4o-mini", maxSummaryTokens: 50 }))
      await fold(m)
      assert.strictEqual(m.summary, "S1")
      // the summarizer's own usage is not the memory's usage sample (contract 16.5)
      assert.strictEqual(m.usageRatio, 1)
      assert.strictEqual(calls.length, 1)
      assert.deepStrictEqual(calls[0].body, {
        model: "gpt-4o-mini",
        max_completion_tokens: 50,
        messages: [
          { role: "system", content: SummaryPrompt.instructions(50) },
          { role: "user", content: request("", "[user]\none two", 50) }
        ]
      })
      const options = calls[0].options as { readonly signal: AbortSignal }
      assert.deepStrictEqual(Object.keys(options), ["signal"])
      assert.strictEqual(options.signal instanceof AbortSignal, true)
      assert.strictEqual(options.signal.aborted, false)
    })

    it("called directly: the default budget 400, no SDK options without a signal; a custom prompt replaces the instructions", async () => {
      const { calls, client } = openAIChatClient(() => chatReply("S"))
      assert.strictEqual(await chat(client, { model: "m" })("S0", [line.user("hi")]), "S")
      assert.deepStrictEqual(calls[0], {
        body: {
          model: "m",
          max_completion_tokens: 400,
          messages: [
            { role: "system", content: SummaryPrompt.instructions(400) },
            { role: "user", content: request("S0", "[user]\nhi", 400) }
          ]
        },
        options: undefined
      })
      await chat(client, { model: "m", prompt: "Sum.", maxSummaryTokens: 300 })("", [line.user("hi")], {
        maxSummaryTokens: 20
      })
      assert.deepStrictEqual(calls[1], {
        body: {
          model: "m",
          max_completion_tokens: 20,
          messages: [{ role: "system", content: "Sum." }, { role: "user", content: request("", "[user]\nhi", 20) }]
        },
        options: undefined
      })
    })

    it("the memory's request: its smaller budget, its focus and its mode are sent", async () => {
      const { calls, client } = openAIChatClient(() => chatReply("S"))
      const summarize = chat(client, { model: "m", maxSummaryTokens: 50 })
      await summarize(
        "A.",
        [line.user("hi")],
        undefined,
        line.request({ maxSummaryTokens: 30, focus: "the dates", mode: "segment" }) as never
      )
      assert.deepStrictEqual(calls[0].body, {
        model: "m",
        max_completion_tokens: 30,
        messages: [
          { role: "system", content: SummaryPrompt.instructions(30, "segment") },
          { role: "user", content: request("A.", "[user]\nhi", 30, { focus: "the dates", mode: "segment" }) }
        ]
      })
    })

    it("the memory's smaller maxSummaryTokens wins and a longer reply is cut to fit it", async () => {
      const { calls, client } = openAIChatClient(() => chatReply("one two three four five six"))
      const m = memory(chat(client, { model: "m", maxSummaryTokens: 50 }), 3)
      await fold(m)
      assert.strictEqual(m.summary, "one two three…")
      assert.strictEqual(m.summaryTokens, 3)
      assert.strictEqual((calls[0].body as { max_completion_tokens: number }).max_completion_tokens, 3)
    })

    it("a reply without text is a SummarizerError; the fold fails and commits nothing", async () => {
      for (const reply of [chatReply(null), chatReply("  \n"), { choices: [] }]) {
        const { client } = openAIChatClient(() => reply)
        assert.strictEqual(
          await describedFailure(chat(client, { model: "m" })("", [line.user("hi")])),
          "the model's reply holds no text"
        )
      }
      const { client } = openAIChatClient(() => chatReply(null))
      const m = memory(chat(client, { model: "m" }))
      await m.addUserMessage("one two")
      assert.strictEqual(await describedFailure(m.addAssistantMessage("three four")), "the model's reply holds no text")
      assert.strictEqual(m.summary, "")
      assert.strictEqual(m.getMessages().length, 2)
    })

    it("a failed request rejects with the SDK's own error, the fold's too", async () => {
      const down = new Error("503 overloaded")
      const { client } = openAIChatClient(() => Promise.reject(down))
      const summarize = chat(client, { model: "m" })
      assert.strictEqual(await rejection(summarize("", [line.user("hi")])), down)
      const m = memory(summarize)
      await m.addUserMessage("one two")
      assert.strictEqual(await rejection(m.addAssistantMessage("three four")), down)
      assert.strictEqual(m.summary, "")
      assert.strictEqual(m.getMessages().length, 2)
    })

    it("the signal goes to the SDK: given, as is; the memory's dispose aborts the request in flight", async () => {
      const aborted = AbortSignal.abort()
      const direct = openAIChatClient(() => chatReply("S"))
      await chat(direct.client, { model: "m" })("", [line.user("hi")], aborted)
      await chat(direct.client, { model: "m" })("", [line.user("hi")], { signal: aborted, maxSummaryTokens: 7 })
      assert.strictEqual((direct.calls[0].options as { signal: AbortSignal }).signal, aborted)
      assert.strictEqual((direct.calls[1].options as { signal: AbortSignal }).signal, aborted)
      assert.strictEqual((direct.calls[1].body as { max_completion_tokens: number }).max_completion_tokens, 7)

      let started = (): void => undefined
      const start = new Promise<void>((resolve) => started = resolve)
      const { calls, client } = openAIChatClient(({ options }) => {
        started()
        const signal = (options as { readonly signal: AbortSignal }).signal
        return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }))
      })
      const m = memory(chat(client, { model: "m" }))
      await m.addUserMessage("one two")
      const pending = rejection(m.addAssistantMessage("three four"))
      await start
      await m.dispose()
      const cancelled = (await pending) as Error
      assert.deepStrictEqual([cancelled.name, cancelled.message], [
        "AbortError",
        "the add's summarizer call was cancelled by dispose()"
      ])
      assert.strictEqual((calls[0].options as { signal: AbortSignal }).signal.aborted, true)
      assert.strictEqual(m.summary, "")
    })

    it("onUsage: each request's usage, once, before the reply is read; none without a usage", async () => {
      const seen: Array<unknown> = []
      let usage: unknown = { prompt_tokens: 812, completion_tokens: 95, total_tokens: 907 }
      let content: string | null = "S1"
      const { client } = openAIChatClient(() => chatReply(content, usage))
      const summarize = chat(client, { model: "gpt-x", onUsage: (u: unknown) => seen.push(u) })
      const counted = await growth("openai-chat", async () => {
        assert.strictEqual(await summarize("", [line.user("hi")]), "S1")
        content = null
        assert.strictEqual(await describedFailure(summarize("", [line.user("hi")])), "the model's reply holds no text")
      })
      const one = { summarizer: "openai-chat", model: "gpt-x", inputTokens: 812, outputTokens: 95 }
      assert.deepStrictEqual(seen, [one, one])
      if (counted !== undefined) assert.deepStrictEqual(counted, [1624, 190])
      content = "S"
      for (usage of [undefined, { prompt_tokens: "812" }, { prompt_tokens: 5 }]) await summarize("", [line.user("hi")])
      assert.deepStrictEqual(seen.slice(2), [{
        summarizer: "openai-chat",
        model: "gpt-x",
        inputTokens: 5,
        outputTokens: undefined
      }])
    })

    it("a throw from onUsage rejects the call: the fold fails and commits nothing", async () => {
      const { client } = openAIChatClient(() => chatReply("S", { prompt_tokens: 4 }))
      const meter = new Error("meter down")
      const summarize = chat(client, {
        model: "m",
        onUsage: () => {
          throw meter
        }
      })
      const m = memory(summarize)
      await m.addUserMessage("one two")
      assert.strictEqual(await rejection(m.addAssistantMessage("three four")), meter)
      assert.strictEqual(m.summary, "")
      assert.strictEqual(m.getMessages().length, 2)
    })
  })

  describe(`anthropicSummarizer (${line.name})`, () => {
    it("one request per fold: system instructions, one user request, max_tokens; the text blocks joined", async () => {
      const { calls, client } = anthropicClient(() =>
        anthropicReply([
          { type: "thinking", thinking: "Short." },
          { type: "text", text: " S" },
          { type: "tool_use", id: "t", name: "x", input: {} },
          { type: "text", text: "2 " }
        ])
      )
      const m = memory(anthropic(client, { model: "claude-haiku-4-5", maxSummaryTokens: 50 }))
      await fold(m)
      assert.strictEqual(m.summary, "S2")
      assert.deepStrictEqual(calls[0].body, {
        model: "claude-haiku-4-5",
        max_tokens: 50,
        system: SummaryPrompt.instructions(50),
        messages: [{ role: "user", content: request("", "[user]\none two", 50) }]
      })
      assert.deepStrictEqual(Object.keys(calls[0].options as object), ["signal"])
    })

    it("a smaller budget in the request wins; a custom prompt is the system; focus and mode are sent", async () => {
      const { calls, client } = anthropicClient(() => anthropicReply([{ type: "text", text: "S2" }]))
      const summarize = anthropic(client, { model: "claude-x", maxSummaryTokens: 300, prompt: "Sum." })
      assert.strictEqual(await summarize("S0", [line.user("hi")], { maxSummaryTokens: 20 }), "S2")
      assert.deepStrictEqual(calls[0], {
        body: {
          model: "claude-x",
          max_tokens: 20,
          system: "Sum.",
          messages: [{ role: "user", content: request("S0", "[user]\nhi", 20) }]
        },
        options: undefined
      })
      await anthropic(client, { model: "claude-x" })(
        "A.",
        [line.user("hi")],
        undefined,
        line.request({ maxSummaryTokens: 600, focus: "the dates", mode: "consolidate" }) as never
      )
      assert.deepStrictEqual(calls[1].body, {
        model: "claude-x",
        max_tokens: 400,
        system: SummaryPrompt.instructions(400, "consolidate"),
        messages: [{
          role: "user",
          content: request("A.", "[user]\nhi", 400, { focus: "the dates", mode: "consolidate" })
        }]
      })
    })

    it("a reply without text is a SummarizerError; onUsage had its usage (cache reads and writes are input)", async () => {
      const seen: Array<unknown> = []
      const usage = {
        input_tokens: 10,
        cache_read_input_tokens: 800,
        cache_creation_input_tokens: 5,
        output_tokens: 40
      }
      let content: ReadonlyArray<unknown> = [{ type: "text", text: "S2" }]
      const { client } = anthropicClient(() => anthropicReply(content, usage))
      const summarize = anthropic(client, { model: "claude-x", onUsage: (u: unknown) => seen.push(u) })
      const counted = await growth("anthropic", async () => {
        assert.strictEqual(await summarize("", [line.user("hi")]), "S2")
        for (content of [[], [{ type: "text", text: " " }], [{ type: "thinking", thinking: "x" }]]) {
          assert.strictEqual(
            await describedFailure(summarize("", [line.user("hi")])),
            "the model's reply holds no text"
          )
        }
      })
      const one = { summarizer: "anthropic", model: "claude-x", inputTokens: 815, outputTokens: 40 }
      assert.deepStrictEqual(seen, [one, one, one, one])
      if (counted !== undefined) assert.deepStrictEqual(counted, [3260, 160])
    })

    it("a failed request rejects with the SDK's own error; an aborted signal is passed as is", async () => {
      const down = new Error("overloaded")
      const failing = anthropicClient(() => Promise.reject(down))
      assert.strictEqual(await rejection(anthropic(failing.client, { model: "m" })("", [line.user("hi")])), down)
      const aborted = AbortSignal.abort()
      const { calls, client } = anthropicClient(() => anthropicReply([{ type: "text", text: "S" }]))
      await anthropic(client, { model: "m" })("", [line.user("hi")], aborted)
      assert.strictEqual((calls[0].options as { signal: AbortSignal }).signal, aborted)
    })
  })

  describe(`aiSdkSummarizer (${line.name})`, () => {
    it("one generateText call per fold: the instructions as system, the request, the budget, the facade's signal", async () => {
      const seen: Array<unknown> = []
      const { calls, model } = aiSdkModel(() => " S1 ")
      const m = memory(aiSdk({ model, maxSummaryTokens: 50, onUsage: (u: unknown) => seen.push(u) }))
      const counted = await growth("ai-sdk", () => fold(m))
      assert.strictEqual(m.summary, "S1")
      assert.strictEqual(calls.length, 1)
      assert.deepStrictEqual(asked(calls[0]), {
        maxOutputTokens: 50,
        prompt: aiPrompt(SummaryPrompt.instructions(50), request("", "[user]\none two", 50))
      })
      assert.strictEqual(calls[0].abortSignal instanceof AbortSignal, true)
      assert.deepStrictEqual(seen, [{ summarizer: "ai-sdk", model: "fake-model", inputTokens: 120, outputTokens: 6 }])
      if (counted !== undefined) assert.deepStrictEqual(counted, [120, 6])
    })

    it("called directly: the default budget, no abortSignal without a signal; a custom prompt, a smaller budget, the reply fitted", async () => {
      const { calls, model } = aiSdkModel(() => "one two three four five")
      assert.strictEqual(await aiSdk({ model })("S0", [line.user("hi")]), "one two three four five")
      assert.deepStrictEqual(asked(calls[0]), {
        maxOutputTokens: 400,
        prompt: aiPrompt(SummaryPrompt.instructions(400), request("S0", "[user]\nhi", 400))
      })
      assert.strictEqual(calls[0].abortSignal, undefined)
      const summarize = aiSdk({ model, maxSummaryTokens: 300, prompt: "Sum.", maxRetries: 0 })
      assert.strictEqual(await summarize("", [line.user("hi")], { maxSummaryTokens: 3 }), "one two three…")
      assert.deepStrictEqual(asked(calls[1]), {
        maxOutputTokens: 3,
        prompt: aiPrompt("Sum.", request("", "[user]\nhi", 3))
      })
    })

    it("the memory's request: its focus and its mode are sent", async () => {
      const { calls, model } = aiSdkModel(() => "S")
      await aiSdk({ model })(
        "A.",
        [line.user("hi")],
        undefined,
        line.request({ maxSummaryTokens: 30, focus: "the dates", mode: "segment" }) as never
      )
      assert.deepStrictEqual(asked(calls[0]), {
        maxOutputTokens: 30,
        prompt: aiPrompt(
          SummaryPrompt.instructions(30, "segment"),
          request("A.", "[user]\nhi", 30, { focus: "the dates", mode: "segment" })
        )
      })
    })

    it("a reply without text is a SummarizerError; the fold fails and commits nothing", async () => {
      const { model } = aiSdkModel(() => "")
      const summarize = aiSdk({ model })
      assert.strictEqual(await describedFailure(summarize("", [line.user("hi")])), "the model's reply holds no text")
      const m = memory(summarize)
      await m.addUserMessage("one two")
      assert.strictEqual(await describedFailure(m.addAssistantMessage("three four")), "the model's reply holds no text")
      assert.strictEqual(m.summary, "")
      assert.strictEqual(m.getMessages().length, 2)
    })

    it("a failed request rejects with the AI SDK's error; maxRetries 0 asks once", async () => {
      const down = new Error("model down")
      const { calls, model } = aiSdkModel(() => Promise.reject(down))
      assert.strictEqual(await rejection(aiSdk({ model, maxRetries: 0 })("", [line.user("hi")])), down)
      assert.strictEqual(calls.length, 1)
    })

    it("the facade's signal is the abortSignal: the memory's dispose aborts the request in flight", async () => {
      let started = (): void => undefined
      const start = new Promise<void>((resolve) => started = resolve)
      const { calls, model } = aiSdkModel(({ abortSignal }) => {
        started()
        return new Promise((_, reject) =>
          abortSignal?.addEventListener("abort", () => reject(abortSignal.reason), { once: true })
        )
      })
      const m = memory(aiSdk({ model, maxRetries: 0 }))
      await m.addUserMessage("one two")
      const pending = rejection(m.addAssistantMessage("three four"))
      await start
      await m.dispose()
      const cancelled = (await pending) as Error
      assert.deepStrictEqual([cancelled.name, cancelled.message], [
        "AbortError",
        "the add's summarizer call was cancelled by dispose()"
      ])
      assert.strictEqual(calls[0].abortSignal?.aborted, true)
    })

    it("an aborted signal rejects with its reason and the model sees it aborted", async () => {
      let started = (): void => undefined
      const start = new Promise<void>((resolve) => started = resolve)
      const { calls, model } = aiSdkModel(({ abortSignal }) => {
        started()
        return new Promise((_, reject) =>
          abortSignal?.addEventListener("abort", () => reject(abortSignal.reason), { once: true })
        )
      })
      const controller = new AbortController()
      const pending = rejection(aiSdk({ model, maxRetries: 0 })("", [line.user("hi")], controller.signal))
      await start
      const reason = new DOMException("stop", "AbortError")
      controller.abort(reason)
      assert.strictEqual(await pending, reason)
      assert.strictEqual(calls[0].abortSignal?.aborted, true)
    })

    it("its options: an AI SDK model, maxRetries a non-negative integer, an unknown key names maxRetries too", () => {
      const { model } = aiSdkModel(() => "S")
      const cases: ReadonlyArray<readonly [unknown, readonly [string, string]]> = [
        [{ model: "openai/gpt-x", maxRetry: 1 }, [
          "maxRetry",
          "unknown option for aiSdkSummarizer (known: model, maxSummaryTokens, prompt, onUsage, maxRetries)"
        ]],
        [{ model: "" }, ["model", "an AI SDK model (or a gateway model id) is required"]],
        [{ model: null, maxRetries: -1 }, ["model", "an AI SDK model (or a gateway model id) is required"]],
        [{ model: 3 }, ["model", "an AI SDK model (or a gateway model id) is required"]],
        [{ model: {} }, [
          "model",
          "an AI SDK model (or a gateway model id) is required, got an object without doGenerate " +
          "(a LanguageModel of a provider package, e.g. openai(\"gpt-4.1-mini\"))"
        ]],
        [{ model, maxRetries: -1, maxSummaryTokens: 0 }, ["maxSummaryTokens", "must be a positive integer, got 0"]],
        [{ model, maxRetries: -1 }, ["maxRetries", "must be a non-negative integer, got -1"]],
        [{ model, maxRetries: 1.5 }, ["maxRetries", "must be a non-negative integer, got 1.5"]],
        [{ model, onUsage: 1 }, ["onUsage", "must be a function, got number"]],
        [null, ["options", "must be an object, got null"]]
      ]
      for (const [options, expected] of cases) {
        assert.deepStrictEqual(refusal(() => aiSdk(options)), expected, JSON.stringify(options))
      }
      aiSdk({ model: "openai/gpt-x", maxRetries: 0, maxSummaryTokens: undefined, prompt: undefined })
    })
  })

  describe(`the ready summarizers' options (${line.name})`, () => {
    const { client: chatFake } = openAIChatClient(() => chatReply("S"))
    const { client: anthropicFake } = anthropicClient(() => anthropicReply([{ type: "text", text: "S" }]))

    it("an unknown key is a ConfigError naming it and the known ones, before any wrong value", () => {
      assert.deepStrictEqual(refusal(() => chat(chatFake, { model: "m", maxTokns: 300 })), [
        "maxTokns",
        `unknown option for openAIChatSummarizer (known: ${KNOWN})`
      ])
      assert.deepStrictEqual(refusal(() => anthropic(anthropicFake, { model: "", maxTokns: undefined })), [
        "maxTokns",
        `unknown option for anthropicSummarizer (known: ${KNOWN})`
      ])
    })

    it("a wrong value names the option and the rule, the first in the order model, maxSummaryTokens, prompt, onUsage", () => {
      const cases: ReadonlyArray<readonly [unknown, readonly [string, string]]> = [
        [{ model: "" }, ["model", "a model name is required"]],
        [{}, ["model", "a model name is required"]],
        [undefined, ["model", "a model name is required"]],
        [{ model: 3 }, ["model", "a model name is required"]],
        [{ maxSummaryTokens: 0, model: undefined }, ["model", "a model name is required"]],
        [{ model: "m", maxSummaryTokens: 0 }, ["maxSummaryTokens", "must be a positive integer, got 0"]],
        [{ model: "m", prompt: 3, maxSummaryTokens: 1.5 }, ["maxSummaryTokens", "must be a positive integer, got 1.5"]],
        [{ model: "m", prompt: 3 }, ["prompt", "must be a string, got 3"]],
        [{ model: "m", onUsage: "log" }, ["onUsage", "must be a function, got string"]],
        [null, ["options", "must be an object, got null"]],
        [[], ["options", "must be an object, got array"]],
        ["m", ["options", "must be an object, got string"]]
      ]
      for (const [options, expected] of cases) {
        assert.deepStrictEqual(refusal(() => chat(chatFake, options)), expected, JSON.stringify(options))
        assert.deepStrictEqual(refusal(() => anthropic(anthropicFake, options)), expected, JSON.stringify(options))
      }
    })

    it("a client without the method the summarizer calls is a ConfigError on client when it is built, before its options", () => {
      const OPENAI = "must be an OpenAI client (client.chat.completions.create a function), got"
      const ANTHROPIC = "must be an Anthropic client (client.messages.create a function), got"
      const chatCases: ReadonlyArray<readonly [unknown, string]> = [
        [null, `${OPENAI} null`],
        [undefined, `${OPENAI} undefined`],
        ["sk-key", `${OPENAI} string`],
        [[], `${OPENAI} array`],
        [{}, `${OPENAI} an object whose chat is undefined`],
        [{ chat: { completions: null } }, `${OPENAI} an object whose chat.completions is null`],
        [{ chat: { completions: { create: "x" } } }, `${OPENAI} an object whose chat.completions.create is string`],
        [anthropicFake, `${OPENAI} an object whose chat is undefined`]
      ]
      for (const [client, description] of chatCases) {
        assert.deepStrictEqual(refusal(() => chat(client as OpenAIChatClient, { model: "m" })), ["client", description])
        // the client first, then the options
        assert.deepStrictEqual(refusal(() => chat(client as OpenAIChatClient, null)), ["client", description])
      }
      const anthropicCases: ReadonlyArray<readonly [unknown, string]> = [
        [null, `${ANTHROPIC} null`],
        [{}, `${ANTHROPIC} an object whose messages is undefined`],
        [{ messages: {} }, `${ANTHROPIC} an object whose messages.create is undefined`],
        [chatFake, `${ANTHROPIC} an object whose messages is undefined`]
      ]
      for (const [client, description] of anthropicCases) {
        assert.deepStrictEqual(refusal(() => anthropic(client, { model: "m" })), ["client", description])
        assert.deepStrictEqual(refusal(() => anthropic(client, { maxTokns: 1 })), ["client", description])
      }
      // a method reached through a class's prototype, as the SDKs' are
      class Completions {
        create(...args: Parameters<OpenAIChatClient["chat"]["completions"]["create"]>) {
          return chatFake.chat.completions.create(...args)
        }
      }
      chat({ chat: { completions: new Completions() } }, { model: "m" })
    })

    it("keys given as undefined are absent", async () => {
      const options = { model: "m", maxSummaryTokens: undefined, prompt: undefined, onUsage: undefined }
      assert.strictEqual(await chat(chatFake, options)("", [line.user("hi")]), "S")
      assert.strictEqual(await anthropic(anthropicFake, options)("", [line.user("hi")]), "S")
    })
  })
}
