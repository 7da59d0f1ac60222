/**
 * A provider's own compaction (contract 15.6): Anthropic's `compaction`
 * block and OpenAI Responses' `compaction` item read and kept verbatim; a
 * history holding one becomes a memory (`fromProviderHistory`, everything
 * before it folded) whose version 3 `compaction` reads back before the
 * summary, is counted, survives the JSON state and a later local fold
 * unedited, and is written back verbatim, first, by its provider's writer.
 */
import AnthropicSdk from "@anthropic-ai/sdk"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import OpenAI from "openai"
import * as Adapters from "../../src/adapters.js"
import { ConfigError, type SummarizerError } from "../../src/Errors.js"
import { AsyncRollingMemory, AsyncSummaryMemory, RollingMemory } from "../../src/promise/index.js"
import type * as Message from "../../src/schema/Message.js"
import * as Summarizer from "../../src/services/Summarizer.js"
import * as EffectRollingMemory from "../../src/strategies/RollingMemory.js"
import { either, json } from "./support.js"

const summarize = (summary: string, messages: ReadonlyArray<Message.Message>) =>
  [summary, ...messages.map((m) => m.content)].filter((s) => s !== "").join(" / ")

const ITEM = { type: "compaction", id: "cmp_1", encrypted_content: "gAAAA-opaque" }

describe("OpenAI Responses compaction item", () => {
  const compacted = [{ role: "user", content: "Plan the trip to Rome." }, ITEM]

  it("read as its own assistant message (empty content), in strict mode too, and written back verbatim", () => {
    const messages = Adapters.fromOpenAIResponses(compacted, { strict: true })
    assert.deepStrictEqual(messages.map(String), ["user: Plan the trip to Rome.", "assistant: "])
    assert.deepStrictEqual(Adapters.compactionOf(messages[1]), { format: "openai-responses", item: ITEM, content: "" })
    assert.deepStrictEqual(json(Adapters.toOpenAIResponses(messages)), compacted)
  })

  it("fromProviderHistory: what precedes the item is folded; the item reads back first and is written first", () => {
    const history = [
      ...Adapters.fromOpenAIResponses(compacted),
      ...Adapters.fromOpenAIResponses([{ role: "user", content: "Next?" }])
    ]
    const state = Adapters.fromProviderHistory(history)
    assert.deepStrictEqual(json(state), {
      version: 3,
      summary: "",
      buffer: [{ role: "user", content: "Next?" }],
      compaction: { format: "openai-responses", item: ITEM, content: "" }
    })
    const memory = RollingMemory.fromJSON(state, { maxTokens: 4, summarize })
    assert.deepStrictEqual(json(Adapters.toOpenAIResponses(memory.getMessages())), [ITEM, {
      role: "user",
      content: "Next?"
    }])
    // a later local fold: the item stays first and unedited, the local summary follows it
    memory.addMessage("assistant", "Book the train.")
    memory.addMessage("user", "And a hotel near Termini?")
    assert.strictEqual(memory.summary, "Next? / Book the train.")
    assert.deepStrictEqual(json(Adapters.toOpenAIResponses(memory.getMessages())), [
      ITEM,
      { role: "system", content: "Next? / Book the train." },
      { role: "user", content: "And a hotel near Termini?" }
    ])
    const saved = json(memory.toJSON()) as { version: number; compaction: unknown }
    assert.deepStrictEqual([saved.version, saved.compaction], [3, {
      format: "openai-responses",
      item: ITEM,
      content: ""
    }])
    assert.deepStrictEqual(RollingMemory.fromJSON(saved, { maxTokens: 4, summarize }).getMessages().map(String), [
      "assistant: ",
      "system: Next? / Book the train.",
      "user: And a hotel near Termini?"
    ])
    memory.clear()
    assert.deepStrictEqual(json(memory.toJSON()), { version: 2, summary: "", buffer: [] })
  })

  it("another format's writer refuses the opaque item under check, naming why; check: false writes it empty", () => {
    const messages = Adapters.fromOpenAIResponses(compacted)
    const refused = either(Adapters.OpenAiChat.encode(messages))
    assert.strictEqual(
      Either.isLeft(refused) ? refused.left.message : "(written)",
      "openai-chat: message 1 holds an OpenAI Responses compaction item: its content is encrypted, only OpenAI " +
        "Responses reads it (write with toOpenAIResponses, or pass check: false to write it as an empty assistant " +
        "message)"
    )
    assert.deepStrictEqual(json(Adapters.toOpenAIChat(messages, { check: false })), [
      { role: "user", content: "Plan the trip to Rome." },
      { role: "assistant", content: "" }
    ])
  })

  it("a history without a compaction item is its buffer, version 2", () => {
    const history = Adapters.fromOpenAIResponses([{ role: "user", content: "hi" }])
    assert.deepStrictEqual(json(Adapters.fromProviderHistory(history)), {
      version: 2,
      summary: "",
      buffer: [{ role: "user", content: "hi" }]
    })
  })
})

describe("Anthropic compaction block", () => {
  const BLOCK = {
    type: "compaction",
    content: "The user plans a trip to Rome in May.",
    encrypted_content: null,
    signature: "sig-1",
    tool_changes: []
  }
  const request = {
    messages: [
      { role: "user", content: "Plan the trip to Rome." },
      { role: "assistant", content: [BLOCK, { type: "text", text: "Shall I book the train?" }] }
    ]
  }

  it("read: its content is the message's text, the block kept verbatim and written back", () => {
    const messages = Adapters.fromAnthropic(request)
    assert.deepStrictEqual(messages.map(String), [
      "user: Plan the trip to Rome.",
      "assistant: The user plans a trip to Rome in May.\nShall I book the train?"
    ])
    assert.deepStrictEqual(Adapters.compactionOf(messages[1]), {
      format: "anthropic",
      item: BLOCK,
      content: "The user plans a trip to Rome in May."
    })
    assert.deepStrictEqual(json(Adapters.toAnthropic(messages)), request)
  })

  it("another format's writer writes its readable content as text", () => {
    assert.deepStrictEqual(json(Adapters.toOpenAIChat(Adapters.fromAnthropic(request))), [
      { role: "user", content: "Plan the trip to Rome." },
      { role: "assistant", content: "The user plans a trip to Rome in May.\nShall I book the train?" }
    ])
  })

  it("fromProviderHistory: the block first in messages, the blocks after it a message of their own, counted", () => {
    const state = Adapters.fromProviderHistory([
      ...Adapters.fromAnthropic(request),
      ...Adapters.fromAnthropic({ messages: [{ role: "user", content: "Yes, the morning one." }] })
    ])
    const memory = RollingMemory.fromJSON(state, { maxTokens: 100, pinSystem: true, summarize })
    memory.addMessage("system", "Be brief.")
    assert.deepStrictEqual(memory.getMessages().map(String), [
      "assistant: The user plans a trip to Rome in May.",
      "assistant: Shall I book the train?",
      "user: Yes, the morning one.",
      "system: Be brief."
    ])
    // the compaction's content (9 words) is in the context's count (with the pinned 2 and the buffer's 9)
    assert.deepStrictEqual([memory.bufferTokens, memory.pinnedTokens, memory.contextTokens], [9, 2, 20])
    assert.deepStrictEqual(json(Adapters.toAnthropic(memory.getMessages(), { arrange: true })), {
      system: "Be brief.",
      messages: [
        { role: "assistant", content: [BLOCK] },
        // the blocks after the compaction block, as they came
        { role: "assistant", content: [{ type: "text", text: "Shall I book the train?" }] },
        { role: "user", content: "Yes, the morning one." }
      ]
    })
  })

  it("with pinned system messages and a summary: both in system, the block first in messages, accepted by check", () => {
    const state = Adapters.fromProviderHistory(Adapters.fromAnthropic(request))
    const memory = RollingMemory.fromJSON(state, { maxTokens: 6, pinSystem: true, summarize })
    memory.addMessage("user", "Yes, the morning one.")
    memory.addMessage("assistant", "Booked: 08:10 from Milano.")
    assert.deepStrictEqual(memory.getMessages().map(String), [
      "assistant: The user plans a trip to Rome in May.",
      "system: Shall I book the train? / Yes, the morning one.",
      "assistant: Booked: 08:10 from Milano."
    ])
    assert.deepStrictEqual(json(Adapters.toAnthropic(memory.getMessages())), {
      system: "Shall I book the train? / Yes, the morning one.",
      messages: [
        { role: "assistant", content: [BLOCK] },
        { role: "assistant", content: "Booked: 08:10 from Milano." }
      ]
    })
  })
})

describe("compacting summarizers (contract 15.7)", () => {
  const block = {
    type: "compaction",
    content: "Trip to Rome in May; train booked.",
    encrypted_content: null,
    signature: "sig-2"
  }

  it("anthropicCompactionSummarizer: the memory keeps the block as its compaction, sends it back on the next fold", async () => {
    const bodies: Array<unknown> = []
    const signals: Array<AbortSignal | undefined> = []
    const client: Adapters.AnthropicCompactionClient = {
      beta: {
        messages: {
          create: (body, options) => {
            bodies.push(json(body))
            signals.push(options?.signal)
            return Promise.resolve({ content: [block] })
          }
        }
      }
    }
    const summarize = Adapters.anthropicCompactionSummarizer(client, { model: "claude-x", maxSummaryTokens: 50 })
    const memory = new AsyncRollingMemory({ maxTokens: 6, summarize })
    await memory.addUserMessage("Plan the trip to Rome.")
    await memory.addAssistantMessage("Booked the 08:10 train.")
    assert.strictEqual(memory.summary, "")
    assert.deepStrictEqual(memory.getMessages().map(String), [
      "assistant: Trip to Rome in May; train booked.",
      "assistant: Booked the 08:10 train."
    ])
    assert.deepStrictEqual(bodies[0], {
      model: "claude-x",
      max_tokens: 50,
      messages: [{ role: "user", content: "Plan the trip to Rome." }],
      compaction: { type: "summarize" }
    })
    assert.instanceOf(signals[0], AbortSignal)
    assert.deepStrictEqual(json(Adapters.toAnthropic(memory.getMessages())), {
      messages: [{ role: "assistant", content: [block] }, { role: "assistant", content: "Booked the 08:10 train." }]
    })
    // the next fold sends the kept block back first
    await memory.addUserMessage("And a hotel?")
    assert.deepStrictEqual((bodies[1] as { messages: unknown }).messages, [
      { role: "assistant", content: [block] },
      { role: "assistant", content: "Booked the 08:10 train." }
    ])
    assert.deepStrictEqual((json(memory.toJSON()) as { compaction: unknown }).compaction, {
      format: "anthropic",
      item: block,
      content: "Trip to Rome in May; train booked."
    })
  })

  it("openAIResponsesCompactSummarizer: the output's compaction item kept, the user messages it repeats not", async () => {
    const bodies: Array<unknown> = []
    const client: Adapters.OpenAIResponsesCompactClient = {
      responses: {
        compact: (body) => {
          bodies.push(json(body))
          return Promise.resolve({ output: [{ type: "message", role: "user", content: [] }, ITEM] })
        }
      }
    }
    const summarize = Adapters.openAIResponsesCompactSummarizer(client, { model: "gpt-x", prompt: "Keep the dates." })
    const memory = new AsyncRollingMemory({ maxTokens: 6, summarize })
    await memory.addUserMessage("Plan the trip to Rome.")
    await memory.addAssistantMessage("Booked the 08:10 train.")
    assert.deepStrictEqual(bodies[0], {
      model: "gpt-x",
      input: [{ role: "user", content: "Plan the trip to Rome." }],
      instructions: "Keep the dates."
    })
    assert.deepStrictEqual(json(Adapters.toOpenAIResponses(memory.getMessages())), [
      ITEM,
      { role: "assistant", content: "Booked the 08:10 train." }
    ])
    assert.strictEqual(memory.contextTokens, 4)
  })

  it("failures: no compaction block, a failed one (no content), no item; the fold commits nothing", async () => {
    const reply = (content: ReadonlyArray<{ readonly type: string }>): Adapters.AnthropicCompactionClient => ({
      beta: { messages: { create: () => Promise.resolve({ content }) } }
    })
    const failure = async (summarize: Adapters.PromiseCompact) => {
      const memory = new AsyncRollingMemory({ maxTokens: 6, summarize })
      await memory.addUserMessage("Plan the trip to Rome.")
      const error = await memory.addAssistantMessage("Booked the 08:10 train.").then(() => undefined, (e) => e)
      assert.strictEqual(memory.getMessages().length, 2)
      return (error as SummarizerError).message
    }
    assert.strictEqual(
      await failure(Adapters.anthropicCompactionSummarizer(reply([{ type: "text" }]), { model: "m" })),
      "summarizer failed: the reply holds no compaction block"
    )
    assert.strictEqual(
      await failure(
        Adapters.anthropicCompactionSummarizer(reply([{ ...block, content: null } as never]), { model: "m" })
      ),
      "summarizer failed: the compaction failed: its block has no content"
    )
    const none: Adapters.OpenAIResponsesCompactClient = {
      responses: { compact: () => Promise.resolve({ output: [] }) }
    }
    assert.strictEqual(
      await failure(Adapters.openAIResponsesCompactSummarizer(none, { model: "m" })),
      "summarizer failed: the output holds no compaction item"
    )
  })

  it("type test: the pinned SDKs' clients are accepted", () => {
    const anthropic = () => Adapters.anthropicCompactionSummarizer(new AnthropicSdk({ apiKey: "x" }), { model: "m" })
    const openai = () => Adapters.openAIResponsesCompactSummarizer(new OpenAI({ apiKey: "x" }), { model: "m" })
    assert.strictEqual(typeof anthropic, "function")
    assert.strictEqual(typeof openai, "function")
  })
})

describe("Summarizer.withPolicy keeps a compacting summarizer's compact (contract 15.7)", () => {
  const compaction = { format: "openai-responses" as const, item: ITEM, content: "" }
  const policy = Summarizer.withPolicy((call) => Effect.orElse(call, () => Effect.succeed("local summary")))
  const run = (inner: Summarizer.Service) =>
    Effect.runPromise(
      Effect.flatMap(Summarizer.Summarizer, (s) => s.compact!("", [], Summarizer.request())).pipe(
        Effect.provide(Layer.provide(policy, Layer.succeed(Summarizer.Summarizer, inner)))
      )
    )

  it("the compaction passes through; a failed call falls back to the local text", async () => {
    assert.deepStrictEqual(
      await run(Summarizer.fromPromise(() => Promise.resolve(Summarizer.compacted(compaction)))),
      Summarizer.compacted(compaction)
    )
    assert.strictEqual(await run(Summarizer.fromPromise(() => Promise.reject(new Error("down")))), "local summary")
  })
})

describe("a compacting summarizer with summary segments or folds in chunks (contract 15.7)", () => {
  const client: Adapters.OpenAIResponsesCompactClient = {
    responses: { compact: () => Promise.resolve({ output: [ITEM] }) }
  }
  const compacting = Adapters.openAIResponsesCompactSummarizer(client, { model: "gpt-x" })
  const refusal = (build: () => unknown): [string, string] => {
    try {
      build()
    } catch (e) {
      assert.instanceOf(e, ConfigError)
      return [(e as ConfigError).option, (e as ConfigError).description]
    }
    assert.fail("no ConfigError")
  }
  const SEGMENTS = "\"segments\" cannot hold a provider compaction: this summarizer compacts (it returns one " +
    "provider item replacing the memory's compaction, not a text segment); use a summarizer that returns text, " +
    "or drop summary: \"segments\""
  const CHUNKS = "a fold in chunks needs a text summary of each chunk, and this summarizer compacts (it returns " +
    "one provider item for all the evicted turns): drop maxSummarizerInputTokens (the provider's compaction " +
    "takes the whole input), or use a summarizer that returns text"

  it("a client without the method the summarizer calls is a ConfigError on client when it is built", () => {
    const anthropic = (client: unknown) =>
      refusal(() => Adapters.anthropicCompactionSummarizer(client as never, { model: "m" }))
    const openai = (client: unknown) =>
      refusal(() => Adapters.openAIResponsesCompactSummarizer(client as never, { model: "m" }))
    const ANTHROPIC = "must be an Anthropic client (client.beta.messages.create a function), got"
    const OPENAI = "must be an OpenAI client (client.responses.compact a function), got"
    assert.deepStrictEqual(anthropic(null), ["client", `${ANTHROPIC} null`])
    assert.deepStrictEqual(anthropic({}), ["client", `${ANTHROPIC} an object whose beta is undefined`])
    // a Messages client without the beta namespace
    assert.deepStrictEqual(anthropic({ messages: { create: () => undefined } }), [
      "client",
      `${ANTHROPIC} an object whose beta is undefined`
    ])
    assert.deepStrictEqual(anthropic({ beta: { messages: {} } }), [
      "client",
      `${ANTHROPIC} an object whose beta.messages.create is undefined`
    ])
    assert.deepStrictEqual(openai(null), ["client", `${OPENAI} null`])
    assert.deepStrictEqual(openai({}), ["client", `${OPENAI} an object whose responses is undefined`])
    assert.deepStrictEqual(openai({ responses: { create: () => undefined } }), [
      "client",
      `${OPENAI} an object whose responses.compact is undefined`
    ])
    // the client first, then the options
    assert.deepStrictEqual(refusal(() => Adapters.openAIResponsesCompactSummarizer(null as never, null as never)), [
      "client",
      `${OPENAI} null`
    ])
  })

  it("the ready compacting summarizers are marked; the facade refuses them when the memory is built", () => {
    const anthropic = Adapters.anthropicCompactionSummarizer({
      beta: { messages: { create: () => Promise.resolve({ content: [] }) } }
    }, { model: "m" })
    assert.isTrue(Summarizer.compacts(compacting))
    assert.isTrue(Summarizer.compacts(anthropic))
    assert.isFalse(Summarizer.compacts(Summarizer.fromPromise(async () => "text")))
    for (const summarize of [compacting, anthropic]) {
      assert.deepStrictEqual(
        refusal(() => new AsyncRollingMemory({ maxTokens: 50, summary: "segments", summarize })),
        ["summary", SEGMENTS]
      )
      assert.deepStrictEqual(
        refusal(() => new AsyncRollingMemory({ maxTokens: 50, maxSummarizerInputTokens: 20, summarize })),
        ["maxSummarizerInputTokens", CHUNKS]
      )
      // with the facade's timeout too
      assert.deepStrictEqual(
        refusal(() =>
          new AsyncRollingMemory({ maxTokens: 50, timeout: 1000, maxSummarizerInputTokens: 20, summarize })
        ),
        ["maxSummarizerInputTokens", CHUNKS]
      )
      assert.deepStrictEqual(refusal(() => new AsyncSummaryMemory({ summary: "segments", summarize })), [
        "summary",
        SEGMENTS
      ])
      assert.deepStrictEqual(refusal(() => new AsyncSummaryMemory({ maxSummarizerInputTokens: 20, summarize })), [
        "maxSummarizerInputTokens",
        CHUNKS
      ])
    }
  })

  it.effect("the Effect API: fromPromise and withPolicy keep the mark; make fails with the ConfigError", () =>
    Effect.gen(function*() {
      const service = Summarizer.fromPromise(compacting)
      assert.strictEqual(service.compacts, true)
      const wrapped = yield* Effect.provide(
        Summarizer.Summarizer,
        Summarizer.withPolicy((call) => call).pipe(Layer.provide(Layer.succeed(Summarizer.Summarizer, service)))
      )
      assert.strictEqual(wrapped.compacts, true)
      for (const summarizer of [service, wrapped]) {
        const error = yield* Effect.flip(
          EffectRollingMemory.make({ maxTokens: 50, maxSummarizerInputTokens: 20 }).pipe(
            Effect.provideService(Summarizer.Summarizer, summarizer)
          )
        )
        assert.deepStrictEqual([error._tag, (error as ConfigError).option], ["ConfigError", "maxSummarizerInputTokens"])
      }
      const segments = yield* Effect.flip(
        EffectRollingMemory.make({ maxTokens: 50, summary: "segments" }).pipe(
          Effect.provideService(Summarizer.Summarizer, service)
        )
      )
      assert.deepStrictEqual([(segments as ConfigError).option, (segments as ConfigError).description], [
        "summary",
        SEGMENTS
      ])
    }))

  it("without either, it folds as before", async () => {
    const memory = new AsyncRollingMemory({ maxTokens: 6, summarize: compacting })
    await memory.addUserMessage("Plan the trip to Rome.")
    await memory.addAssistantMessage("Booked the 08:10 train.")
    assert.deepStrictEqual(json(Adapters.toOpenAIResponses(memory.getMessages())), [
      ITEM,
      { role: "assistant", content: "Booked the 08:10 train." }
    ])
  })
})
