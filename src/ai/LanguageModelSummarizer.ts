/**
 * A `Summarizer` that asks an `@effect/ai` `LanguageModel` to fold the
 * evicted turns into the running summary.
 *
 * Each call is incremental: the model gets the current summary and the turns
 * leaving the buffer (rendered with their roles, tool calls and tool
 * results by `SummaryPrompt.renderTranscript`) and writes the updated summary. The
 * summary has a budget in tokens (the smaller of `maxSummaryTokens` and the
 * memory's own `maxSummaryTokens`), stated in the prompt and checked with the
 * memory's token counter (both come in the fold's `Summarizer.Request`). A
 * reply over budget is sent back once with a request to compress it; if the
 * second reply is still over budget it is cut, as a last resort, to its
 * longest prefix that fits (between two graphemes, ending with `…`), so the
 * summary never fails the memory's budget check (docs/contract.md section 10.4).
 *
 * Retry, timeout and fallback are not built in: compose them with
 * `Summarizer.withPolicy` and the helpers of `SummarizerPolicy`.
 *
 * @example
 * ```ts
 * import { OpenAiClient, OpenAiLanguageModel } from "@effect/ai-openai"
 * import { FetchHttpClient } from "@effect/platform"
 * import { Config, Effect, Layer } from "effect"
 * import { RollingMemory } from "rollmem"
 * import { LanguageModelSummarizer } from "rollmem/ai"
 *
 * const Summarizer = LanguageModelSummarizer.layer({ maxSummaryTokens: 300 }).pipe(
 *   Layer.provide(OpenAiLanguageModel.layer({ model: "gpt-4o-mini" })),
 *   Layer.provide(OpenAiClient.layerConfig({ apiKey: Config.redacted("OPENAI_API_KEY") })),
 *   Layer.provide(FetchHttpClient.layer)
 * )
 * const program = RollingMemory.make({ maxTokens: 2000 }).pipe(Effect.provide(Summarizer))
 * ```
 *
 * @since 0.1.0
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Rules from "../core/options.js"
import { budgetOf } from "../core/summarizing.js"
import { ConfigError, SummarizerError } from "../Errors.js"
import * as Message from "../schema/Message.js"
import * as OptionsSchema from "../schema/Options.js"
import { fitToBudget, providerUsage, reportUsageEffect } from "../services/internal/summarizing.js"
import * as Summarizer from "../services/Summarizer.js"
import * as TokenCounter from "../services/TokenCounter.js"
import * as SummaryPrompt from "./SummaryPrompt.js"

/**
 * The default summary budget: 500 tokens (as counted by the `TokenCounter`
 * in context).
 *
 * @example
 * ```ts
 * import { LanguageModelSummarizer } from "rollmem/ai"
 *
 * LanguageModelSummarizer.DEFAULT_MAX_SUMMARY_TOKENS // 500: the summary's budget without maxSummaryTokens
 * ```
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_MAX_SUMMARY_TOKENS = 500

/**
 * What a prompt is built from.
 *
 * @since 0.1.0
 * @category models
 */
export interface PromptInput {
  /** The current summary, `""` when there is none yet. */
  readonly summary: string
  /** The turns to fold in, oldest first. */
  readonly messages: ReadonlyArray<Message.Message>
  /** `messages` rendered by {@link SummaryPrompt.renderTranscript}. */
  readonly transcript: string
  /** The summary budget in tokens. */
  readonly maxTokens: number
  /** What to keep, when the fold was asked for with `compact({ focus })` (docs/contract.md section 16.2). */
  readonly focus?: string | undefined
  /**
   * With summary segments (docs/contract.md section 10.9), the fold's
   * `Summarizer.Request.mode`: `"segment"` (`summary` holds the earlier
   * segments, context only: reply with the new turns' segment) or
   * `"consolidate"` (`summary` holds every segment, no turns: reply with one
   * summary replacing them). A custom `prompt` must honour it too.
   */
  readonly mode?: "segment" | "consolidate" | undefined
}

/**
 * What the compression prompt is built from: the first reply and its size.
 *
 * @since 0.1.0
 * @category models
 */
export interface CompressInput extends PromptInput {
  /** The reply that was over budget. */
  readonly draft: string
  /** Its size in tokens. */
  readonly draftTokens: number
}

/**
 * Options of {@link make} and {@link layer}.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * The summary budget in tokens, counted with the `TokenCounter` in
   * context: a positive integer, default {@link DEFAULT_MAX_SUMMARY_TOKENS}.
   */
  readonly maxSummaryTokens?: number | undefined
  /** Builds the prompt of the first request. Default: {@link defaultPrompt}. */
  readonly prompt?: ((input: PromptInput) => Prompt.RawInput) | undefined
  /** Builds the prompt asking to shorten an over-budget reply. Default: {@link defaultCompressPrompt}. */
  readonly compressPrompt?: ((input: CompressInput) => Prompt.RawInput) | undefined
  /**
   * Run with each request's usage when the response reports it
   * (`response.usage` with an `inputTokens` count; docs/contract.md section
   * 16.5), after the counters `rollmem_summarizer_input_tokens` /
   * `_output_tokens` (summarizer `"language-model"`, with the fiber's metric
   * labels) are updated: once per request, so twice for a fold whose first
   * reply was over budget. The summarizer's own request, not the memory's
   * context: not a `recordUsage` sample. A defect it raises is the fold's.
   */
  readonly onUsage?: ((usage: Summarizer.ProviderUsage) => Effect.Effect<void>) | undefined
}

/** {@link Options} as a schema: unknown keys refused (docs/contract.md section 14.3). */
const OptionsStruct = OptionsSchema.struct({
  maxSummaryTokens: OptionsSchema.optional<number>(Rules.positiveInteger),
  prompt: OptionsSchema.optional<(input: PromptInput) => Prompt.RawInput>(Rules.isFunction),
  compressPrompt: OptionsSchema.optional<(input: CompressInput) => Prompt.RawInput>(Rules.isFunction),
  onUsage: OptionsSchema.optional<(usage: Summarizer.ProviderUsage) => Effect.Effect<void>>(Rules.isFunction)
}, undefined)

/**
 * The default prompt: a system message with {@link SummaryPrompt.instructions}
 * (keep facts, names, numbers, decisions, open tasks and tool outcomes;
 * write in the conversation's language; at most `maxTokens` tokens) and a
 * user message with {@link SummaryPrompt.request} (the current summary and
 * the new turns).
 *
 * @example
 * ```ts
 * import { LanguageModelSummarizer } from "rollmem/ai"
 *
 * // the default prompt with one line added to its instructions
 * const summarizer = LanguageModelSummarizer.layer({
 *   prompt: (input) => [
 *     { role: "system", content: "Write in the user's language." },
 *     ...LanguageModelSummarizer.defaultPrompt(input).content
 *   ]
 * })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const defaultPrompt = (input: PromptInput): Prompt.Prompt =>
  Prompt.fromMessages([
    Prompt.systemMessage({ content: SummaryPrompt.instructions(input.maxTokens, input.mode) }),
    Prompt.userMessage({ content: [Prompt.textPart({ text: SummaryPrompt.request(input) })] })
  ])

/**
 * The default compression prompt: the same instructions, and a user message
 * with {@link SummaryPrompt.compressRequest} (the over-budget reply, its size
 * and the budget, asking for a shorter version that keeps names, numbers,
 * decisions, open tasks and tool outcomes first).
 *
 * @example
 * ```ts
 * import { LanguageModelSummarizer } from "rollmem/ai"
 *
 * const summarizer = LanguageModelSummarizer.layer({
 *   maxSummaryTokens: 300,
 *   compressPrompt: (input) => LanguageModelSummarizer.defaultCompressPrompt(input) // what is used when not given
 * })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const defaultCompressPrompt = (input: CompressInput): Prompt.Prompt =>
  Prompt.fromMessages([
    Prompt.systemMessage({ content: SummaryPrompt.instructions(input.maxTokens, input.mode) }),
    Prompt.userMessage({ content: [Prompt.textPart({ text: SummaryPrompt.compressRequest(input) })] })
  ])

/**
 * Builds the summarizer from the `LanguageModel` in context (captured now).
 * Each call asks the model once, and once more to compress when the reply is
 * over the budget (the smaller of `maxSummaryTokens` and the request's),
 * counted with the request's counter (the memory's); a second reply still
 * over it is cut to fit. The reply is trimmed. A call fails with
 * `SummarizerError` whose `cause` is the model's `AiError`, a
 * `TokenCountError`, or the `ParseError` of a custom prompt that is not a
 * valid `Prompt` input; an empty reply (a refusal) fails too. It honours
 * `request.mode` (summary segments, docs/contract.md section 10.9): the
 * default prompts ask for the new segment or the consolidation.
 *
 * Each request's usage, when the response reports it, is added to the
 * summarizer-usage counters and given to `onUsage` (docs/contract.md
 * section 16.5).
 *
 * Fails with `ConfigError` when `maxSummaryTokens` is not a positive
 * integer, a prompt builder or `onUsage` is not a function, or an option
 * key is unknown (naming it and the known ones).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { RollingMemory, Summarizer } from "rollmem"
 * import { LanguageModelSummarizer } from "rollmem/ai"
 *
 * // needs a LanguageModel in context (OpenAiLanguageModel.model("gpt-4o-mini"), ...)
 * const program = Effect.gen(function*() {
 *   const summarizer = yield* LanguageModelSummarizer.make({ maxSummaryTokens: 300 })
 *   return yield* RollingMemory.make({ maxTokens: 4000 }).pipe(Effect.provideService(Summarizer.Summarizer, summarizer))
 * })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  given?: Options
): Effect.Effect<Summarizer.Service, ConfigError, LanguageModel.LanguageModel> =>
  Effect.gen(function*() {
    const options: Options = yield* OptionsSchema.decode(OptionsStruct, given, { owner: "LanguageModelSummarizer" })
    const ownBudget = options.maxSummaryTokens ?? DEFAULT_MAX_SUMMARY_TOKENS
    const model = yield* LanguageModel.LanguageModel
    const buildPrompt = options.prompt ?? defaultPrompt
    const buildCompressPrompt = options.compressPrompt ?? defaultCompressPrompt

    const ask = <I>(build: (input: I) => Prompt.RawInput, input: I) =>
      Effect.try({
        try: () => Prompt.make(build(input)),
        catch: (cause) => new SummarizerError({ description: "the prompt is not a valid Prompt input", cause })
      }).pipe(
        Effect.flatMap((prompt) => model.generateText({ prompt })),
        Effect.tap((response) =>
          reportUsageEffect(providerUsage("language-model", undefined, response.usage), options.onUsage)
        ),
        Effect.flatMap((response) => {
          const text = response.text.trim()
          return text === ""
            ? Effect.fail(new SummarizerError({ description: "the model returned an empty summary" }))
            : Effect.succeed(text)
        })
      )

    // it honours request.mode (docs/contract.md section 10.9): the default prompts ask for a segment or a consolidation
    return Summarizer.honouringMode(Summarizer.fromEffect(
      Effect.fn("LanguageModelSummarizer.summarize")(
        function*(summary: string, messages: ReadonlyArray<Message.Message>, request: Summarizer.Request) {
          const maxTokens = budgetOf(ownBudget, request.maxSummaryTokens)
          // A summary counts as its text (the memory counts it so), with the memory's counter.
          const measure = (text: string) => TokenCounter.countText(request.counter, text)
          const input: PromptInput = {
            summary,
            messages,
            transcript: SummaryPrompt.renderTranscript(messages),
            maxTokens,
            ...(request.focus === undefined ? {} : { focus: request.focus }),
            ...(request.mode === undefined ? {} : { mode: request.mode })
          }
          const draft = yield* ask(buildPrompt, input)
          const draftTokens = yield* measure(draft)
          if (draftTokens <= maxTokens) {
            return draft
          }
          const shorter = yield* ask(buildCompressPrompt, { ...input, draft, draftTokens })
          const tokens = yield* measure(shorter)
          if (tokens <= maxTokens) {
            return shorter
          }
          return yield* fitToBudget(shorter, maxTokens, measure)
        }
      )
    ))
  })

/**
 * Provides the summarizer of {@link make}. Requires `LanguageModel`; the
 * budget is counted with the counter of the memory that calls it.
 *
 * Fails with `ConfigError` when `maxSummaryTokens` is not a positive integer.
 *
 * @example
 * ```ts
 * import { OpenAiClient, OpenAiLanguageModel } from "@effect/ai-openai"
 * import { NodeHttpClient } from "@effect/platform-node"
 * import { Config, Effect, Layer } from "effect"
 * import { RollingMemory } from "rollmem"
 * import { LanguageModelSummarizer } from "rollmem/ai"
 *
 * const SummarizerLive = LanguageModelSummarizer.layer({ maxSummaryTokens: 300 }).pipe(
 *   Layer.provide(OpenAiLanguageModel.model("gpt-4o-mini")),
 *   Layer.provide(OpenAiClient.layerConfig({ apiKey: Config.redacted("OPENAI_API_KEY") })),
 *   Layer.provide(NodeHttpClient.layerUndici)
 * )
 * const program = RollingMemory.make({ maxTokens: 4000 }).pipe(Effect.provide(SummarizerLive))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options?: Options
): Layer.Layer<Summarizer.Summarizer, ConfigError, LanguageModel.LanguageModel> =>
  Layer.effect(Summarizer.Summarizer, make(options))
