/**
 * `LanguageModelSummarizer` on the Effect 4 line: the Effect 3 line's tests
 * (`test/ai/LanguageModelSummarizer.test.ts`) with the same prompts and
 * values, on `effect/ai`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Ref } from "effect"
import { AiError, type Prompt } from "effect/ai"
import * as SummaryPrompt from "../../../src/core/summaryPrompt.js"
import * as LanguageModelSummarizer from "../../src/ai/LanguageModelSummarizer.js"
import { ConfigError, Message, RollingMemory, Summarizer, SummarizerError, TokenCounter } from "../../src/index.js"
import { scriptedModel, systemText, userText } from "./support.js"

const turns = [
  Message.user("Weather in Rome tomorrow?"),
  Message.assistant("Checking.", {
    toolCalls: [{ id: "c1", name: "weather", arguments: "{\"city\":\"Rome\"}" }, {
      id: "c2",
      name: "clock",
      arguments: ""
    }]
  }),
  Message.tool("18C, sunny", { toolCallId: "c1" }),
  Message.tool("", { toolCallId: "c2" }),
  Message.tool("late", { toolCallId: "c9" }),
  Message.make("critic", "line one\nline two")
]

/** A fold's request as a memory passes it: the word counter unless given. */
const request = (options?: { readonly maxSummaryTokens?: number; readonly counter?: TokenCounter.Service }) => ({
  maxSummaryTokens: options?.maxSummaryTokens,
  counter: options?.counter ?? TokenCounter.wordCounter
})

describe("renderTranscript", () => {
  it("renders roles, content, tool calls and named tool results", () => {
    assert.strictEqual(
      SummaryPrompt.renderTranscript(turns),
      [
        "[user]",
        "Weather in Rome tomorrow?",
        "",
        "[assistant]",
        "Checking.",
        "-> calls tool weather (call id c1) with arguments: {\"city\":\"Rome\"}",
        "-> calls tool clock (call id c2) with no arguments",
        "",
        "[tool: result of tool weather, call id c1]",
        "18C, sunny",
        "",
        "[tool: result of tool clock, call id c2]",
        "",
        "[tool: tool result, call id c9]",
        "late",
        "",
        "[critic]",
        "line one\nline two"
      ].join("\n")
    )
    assert.strictEqual(SummaryPrompt.renderTranscript([]), "")
  })
})

// Word-count budget (the default counter): 5 words.
const setup = (replies: Parameters<typeof scriptedModel>[0], options?: LanguageModelSummarizer.Options) =>
  Effect.gen(function*() {
    const model = yield* scriptedModel(replies)
    const summarizer = yield* Effect.provide(
      Effect.service(Summarizer.Summarizer),
      LanguageModelSummarizer.layer({ maxSummaryTokens: 5, ...options }).pipe(Layer.provide(model.layer))
    )
    const prompts = Ref.get(model.prompts)
    return { summarizer, prompts }
  })

describe("LanguageModelSummarizer", () => {
  it.effect("sends the default incremental prompt and returns the trimmed reply", () =>
    Effect.gen(function*() {
      const { prompts, summarizer } = yield* setup(["  Rome: 18C sunny.\n"])
      const summary = yield* summarizer.summarize("User plans a trip.", turns.slice(0, 3), request())
      assert.strictEqual(summary, "Rome: 18C sunny.")
      const [prompt] = yield* prompts
      assert.deepStrictEqual(prompt.content.map((m) => m.role), ["system", "user"])
      assert.strictEqual(systemText(prompt), SummaryPrompt.instructions(5))
      const system = systemText(prompt)
      for (
        const needle of [
          "Update the current summary with the new turns",
          "do not start over",
          "\"Goal and constraints\", \"Decisions\", \"State of the work\", \"Open tasks\", \"User preferences\"",
          "Copy artifacts verbatim, never paraphrased: file paths, URLs, e-mail addresses, identifiers, hashes",
          "must not exceed 5 tokens"
        ]
      ) assert.include(system, needle)
      assert.strictEqual(
        userText(prompt),
        [
          "Current summary:",
          "<summary>",
          "User plans a trip.",
          "</summary>",
          "",
          "New turns:",
          "<turns>",
          SummaryPrompt.renderTranscript(turns.slice(0, 3)),
          "</turns>",
          "",
          "Reply with the updated summary, at most 5 tokens."
        ].join("\n")
      )
    }))

  it.effect("says so when there is no summary yet", () =>
    Effect.gen(function*() {
      const { prompts, summarizer } = yield* setup(["ok"])
      yield* summarizer.summarize("", turns.slice(0, 1), request())
      assert.include(userText((yield* prompts)[0]), "<summary>\n(none yet)\n</summary>")
    }))

  it.effect("asks once more to compress a reply over budget, and keeps the shorter one", () =>
    Effect.gen(function*() {
      const { prompts, summarizer } = yield* setup(["one two three four five six", "one two three"])
      assert.strictEqual(yield* summarizer.summarize("", turns, request()), "one two three")
      const sent = yield* prompts
      assert.strictEqual(sent.length, 2)
      assert.strictEqual(
        userText(sent[1]),
        [
          "This summary is 6 tokens, over the limit of 5:",
          "<summary>",
          "one two three four five six",
          "</summary>",
          "",
          "Rewrite it in at most 5 tokens, in the same language.",
          "Keep names, numbers, decisions, open tasks and tool outcomes first; drop the least important details.",
          "Reply with the shorter summary only."
        ].join("\n")
      )
    }))

  it.effect("cuts a second reply still over budget to its longest prefix that fits; the memory commits it", () =>
    Effect.gen(function*() {
      const model = yield* scriptedModel(["a b c d e f", "a b c d e f g"])
      const layer = LanguageModelSummarizer.layer({ maxSummaryTokens: 5 }).pipe(Layer.provide(model.layer))
      const memory = yield* RollingMemory.fromState({ summary: "old summary", buffer: turns.slice(0, 1) }, {
        maxTokens: 4,
        maxSummaryTokens: 5
      }).pipe(Effect.provide(layer))
      yield* memory.add(Message.user("and in Paris?"))
      // the longest prefix within 5 words: the ellipsis sticks to the last one
      assert.strictEqual(yield* memory.summary, "a b c d e…")
      assert.strictEqual(yield* memory.summaryTokens, 5)
      assert.deepStrictEqual((yield* memory.buffer).map(String), ["user: and in Paris?"])
      assert.strictEqual((yield* Ref.get(model.prompts)).length, 2)
    }))

  it.effect("takes the smaller of its budget and the request's", () =>
    Effect.gen(function*() {
      const { prompts, summarizer } = yield* setup(["one two three", "one two"], { maxSummaryTokens: 10 })
      const summary = yield* summarizer.summarize("", turns, request({ maxSummaryTokens: 2 }))
      assert.strictEqual(summary, "one two")
      assert.include(userText((yield* prompts)[1]), "This summary is 3 tokens, over the limit of 2:")
    }))

  it.effect("folds into a RollingMemory, incrementally", () =>
    Effect.gen(function*() {
      const model = yield* scriptedModel(["S1", "S2"])
      const layer = LanguageModelSummarizer.layer({ maxSummaryTokens: 5 }).pipe(Layer.provide(model.layer))
      const memory = yield* RollingMemory.make({ maxTokens: 6 }).pipe(Effect.provide(layer))
      yield* memory.add(Message.user("one two three"))
      yield* memory.add(Message.assistant("four five six"))
      yield* memory.add(Message.user("seven eight"))
      assert.strictEqual(yield* memory.summary, "S1")
      assert.deepStrictEqual((yield* memory.buffer).map(String), ["user: seven eight"])
      yield* memory.add(Message.assistant("nine ten eleven"))
      yield* memory.add(Message.user("twelve thirteen"))
      assert.strictEqual(yield* memory.summary, "S2")
      const sent = yield* Ref.get(model.prompts)
      assert.include(userText(sent[0]), "<summary>\n(none yet)\n</summary>")
      assert.include(userText(sent[0]), "[user]\none two three\n\n[assistant]\nfour five six")
      assert.include(userText(sent[1]), "<summary>\nS1\n</summary>")
      assert.include(userText(sent[1]), "[user]\nseven eight\n\n[assistant]\nnine ten eleven\n</turns>")
    }))

  it.effect("enforces the budget with the request's counter (the memory's)", () =>
    Effect.gen(function*() {
      const { prompts, summarizer } = yield* setup(["abcdefghij", "abc"])
      const counter = TokenCounter.fromFunction((text) => text.length)
      // One word but 10 characters: over a budget of 5 characters.
      assert.strictEqual(yield* summarizer.summarize("", turns, request({ counter })), "abc")
      assert.include(userText((yield* prompts)[1]), "This summary is 10 tokens")
    }))

  it.effect("uses overridden prompts", () =>
    Effect.gen(function*() {
      const inputs: Array<LanguageModelSummarizer.PromptInput> = []
      const { prompts, summarizer } = yield* setup(["x y z w v u", "x"], {
        prompt: (input) => {
          inputs.push(input)
          return `Resume en francais: ${input.summary} | ${input.transcript}`
        },
        compressPrompt: (input) => [{ role: "user", content: `Plus court (${input.draftTokens}): ${input.draft}` }]
      })
      assert.strictEqual(yield* summarizer.summarize("S", turns.slice(0, 1), request()), "x")
      assert.deepStrictEqual(inputs, [{
        summary: "S",
        messages: turns.slice(0, 1),
        transcript: "[user]\nWeather in Rome tomorrow?",
        maxTokens: 5
      }])
      const sent = yield* prompts
      assert.strictEqual(userText(sent[0]), "Resume en francais: S | [user]\nWeather in Rome tomorrow?")
      assert.strictEqual(userText(sent[1]), "Plus court (6): x y z w v u")
    }))

  it.effect("fails with SummarizerError carrying the model's error, an empty reply, or a bad custom prompt", () =>
    Effect.gen(function*() {
      const failure = AiError.make({
        module: "M",
        method: "generateText",
        reason: new AiError.UnknownError({ description: "boom" })
      })
      const failed = yield* setup([Effect.fail(failure)])
      const error = yield* Effect.flip(failed.summarizer.summarize("", turns, request()))
      assert.instanceOf(error, SummarizerError)
      assert.isTrue(AiError.isAiError(error.cause))
      assert.strictEqual((error.cause as AiError.AiError).reason._tag, "UnknownError")
      assert.strictEqual(error.description, failure.message)

      const empty = yield* setup(["  \n"])
      const emptyError = yield* Effect.flip(empty.summarizer.summarize("", turns, request()))
      assert.strictEqual(emptyError.description, "the model returned an empty summary")

      const bad = yield* setup(["x"], {
        prompt: () => [{ role: "nobody", content: "?" } as unknown as Prompt.MessageEncoded]
      })
      const badError = yield* Effect.flip(bad.summarizer.summarize("", turns, request()))
      assert.strictEqual(badError.description, "the prompt is not a valid Prompt input")
      assert.strictEqual((yield* bad.prompts).length, 0)
    }))

  it.effect("refuses a budget that is not a positive integer, an unknown key and a prompt that is no function", () =>
    Effect.gen(function*() {
      const model = yield* scriptedModel(["x"])
      for (const maxSummaryTokens of [0, -1, 2.5, Number.NaN]) {
        const error = yield* Effect.flip(
          Effect.provide(LanguageModelSummarizer.make({ maxSummaryTokens }), model.layer)
        )
        assert.instanceOf(error, ConfigError)
        assert.strictEqual(error.option, "maxSummaryTokens")
      }
      const unknown = yield* Effect.flip(
        Effect.provide(LanguageModelSummarizer.make({ maxTokens: 5 } as LanguageModelSummarizer.Options), model.layer)
      )
      assert.strictEqual(
        unknown.message,
        "invalid option maxTokens: unknown option for LanguageModelSummarizer (known: maxSummaryTokens, prompt, compressPrompt)"
      )
      const notFunction = yield* Effect.flip(
        Effect.provide(
          LanguageModelSummarizer.make({ prompt: "hi" } as unknown as LanguageModelSummarizer.Options),
          model.layer
        )
      )
      assert.strictEqual(notFunction.option, "prompt")
    }))

  it.effect("honours request.mode: a memory with summary segments gets the segment and consolidation prompts", () =>
    Effect.gen(function*() {
      const model = yield* scriptedModel(["S1 x", "S2 x", "S3 x", "C"])
      const layer = LanguageModelSummarizer.layer({ maxSummaryTokens: 50 }).pipe(Layer.provide(model.layer))
      const summarizer = yield* Effect.provide(Effect.service(Summarizer.Summarizer), layer)
      assert.isTrue(Summarizer.honoursMode(summarizer))
      // word counts: 3 a message, two in the buffer; segments of 2 words pass 5 at the third: one consolidation
      const memory = yield* RollingMemory.make({ maxTokens: 6, summary: "segments", maxSummaryTokens: 5 }).pipe(
        Effect.provideService(Summarizer.Summarizer, summarizer)
      )
      for (let i = 1; i <= 5; i++) yield* memory.add(Message.user(`m${i} b c`))
      assert.deepStrictEqual((yield* memory.state).segments, ["C"])
      const sent = yield* Ref.get(model.prompts)
      assert.strictEqual(sent.length, 4)
      assert.strictEqual(systemText(sent[0]), SummaryPrompt.instructions(5, "segment"))
      assert.strictEqual(
        userText(sent[1]),
        SummaryPrompt.request({
          summary: "S1 x",
          transcript: SummaryPrompt.renderTranscript([Message.user("m2 b c")]),
          maxTokens: 3,
          mode: "segment"
        })
      )
      assert.strictEqual(systemText(sent[3]), SummaryPrompt.instructions(3, "consolidate"))
      assert.strictEqual(
        userText(sent[3]),
        SummaryPrompt.request({ summary: "S1 x\n\nS2 x\n\nS3 x", transcript: "", maxTokens: 3, mode: "consolidate" })
      )
    }))
})
