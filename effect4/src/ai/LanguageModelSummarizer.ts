/**
 * A `Summarizer` that asks Effect 4's `LanguageModel` (`effect/ai`) to fold
 * the evicted turns into the running summary: the Effect 3 line's
 * `LanguageModelSummarizer` on `effect/ai` (docs/contract.md section 10.4).
 *
 * Each call is incremental: the model gets the current summary and the turns
 * leaving the buffer (rendered by `SummaryPrompt.renderTranscript`) and
 * writes the updated summary. The summary has a budget in tokens (the
 * smaller of `maxSummaryTokens` and the memory's own `maxSummaryTokens`),
 * stated in the prompt and checked with the memory's token counter (both
 * come in the fold's `Summarizer.Request`). A reply over budget is sent back
 * once with a request to compress it; a second reply still over budget is
 * cut, as a last resort, to its longest prefix that fits (between two
 * graphemes, ending with `…`), so the summary never fails the memory's
 * budget check.
 *
 * It honours `request.mode` (summary segments, docs/contract.md section
 * 10.9): the default prompts ask for the new segment or for the
 * consolidation. Unlike the Effect 3 line's, it has no `onUsage` and
 * updates no summarizer-usage counters (this line has none yet).
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import type { LanguageModel } from "effect/ai"
 * import { RollingMemory } from "rollmem"
 * import { LanguageModelSummarizer } from "rollmem/ai"
 *
 * declare const model: Layer.Layer<LanguageModel.LanguageModel> // a provider's language model layer
 * const Summarizer = LanguageModelSummarizer.layer({ maxSummaryTokens: 300 }).pipe(Layer.provide(model))
 * const program = RollingMemory.make({ maxTokens: 2000 }).pipe(Effect.provide(Summarizer))
 * ```
 *
 * @since 1.0.0
 */
import { LanguageModel, Prompt } from "effect/ai"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import * as Rules from "../../../src/core/options.js"
import * as Budget from "../../../src/core/summarizing.js"
import * as SummaryPrompt from "../../../src/core/summaryPrompt.js"
import { ConfigError, SummarizerError } from "../Errors.js"
import type * as Message from "../schema/Message.js"
import * as Summarizer from "../services/Summarizer.js"
import * as TokenCounter from "../services/TokenCounter.js"

/**
 * The default summary budget: 500 tokens (as counted by the memory's
 * `TokenCounter`).
 *
 * @example
 * ```ts
 * import { LanguageModelSummarizer } from "rollmem/ai"
 *
 * LanguageModelSummarizer.DEFAULT_MAX_SUMMARY_TOKENS // 500: the summary's budget without maxSummaryTokens
 * ```
 *
 * @since 1.0.0
 */
export const DEFAULT_MAX_SUMMARY_TOKENS = 500

/**
 * What a prompt is built from.
 *
 * @since 1.0.0
 */
export interface PromptInput {
  /** The current summary, `""` when there is none yet. */
  readonly summary: string
  /** The turns to fold in, oldest first. */
  readonly messages: ReadonlyArray<Message.Message>
  /** `messages` rendered by `SummaryPrompt.renderTranscript`. */
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
 * What a compression prompt is built from: the first prompt's input, the
 * reply over budget and its size.
 *
 * @since 1.0.0
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
 * @since 1.0.0
 */
export interface Options {
  /** The summary budget in tokens: a positive integer, default {@link DEFAULT_MAX_SUMMARY_TOKENS}. */
  readonly maxSummaryTokens?: number | undefined
  /** Builds the prompt of the first request. Default: {@link defaultPrompt}. */
  readonly prompt?: ((input: PromptInput) => Prompt.RawInput) | undefined
  /** Builds the prompt asking to shorten an over-budget reply. Default: {@link defaultCompressPrompt}. */
  readonly compressPrompt?: ((input: CompressInput) => Prompt.RawInput) | undefined
}

const OPTION_CHECKS: ReadonlyArray<readonly [keyof Options, Rules.Check]> = [
  ["maxSummaryTokens", Rules.positiveInteger],
  ["prompt", Rules.isFunction],
  ["compressPrompt", Rules.isFunction]
]

/** The options as given (`undefined` as `{}`), or the `ConfigError` naming the first wrong one. */
const decodeOptions = (given: unknown): Result.Result<Options, ConfigError> => {
  const value = given === undefined ? {} : given
  const notObject = Rules.options(value)
  if (notObject !== undefined) return Result.fail(new ConfigError({ option: "options", description: notObject }))
  const options = value as { readonly [key: string]: unknown }
  const known = OPTION_CHECKS.map(([key]) => key)
  for (const key of Object.keys(options)) {
    if (!(known as ReadonlyArray<string>).includes(key)) {
      return Result.fail(
        new ConfigError({ option: key, description: Rules.unknownOption(known, "LanguageModelSummarizer") })
      )
    }
  }
  for (const [key, check] of OPTION_CHECKS) {
    const problem = options[key] === undefined ? undefined : check(options[key])
    if (problem !== undefined) return Result.fail(new ConfigError({ option: key, description: problem }))
  }
  return Result.succeed(options as Options)
}

/**
 * The default prompt: a system message with `SummaryPrompt.instructions`
 * (keep facts, names, numbers, decisions, open tasks and tool outcomes;
 * write in the conversation's language; at most `maxTokens` tokens) and a
 * user message with `SummaryPrompt.request` (the current summary and the
 * new turns).
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
 * @since 1.0.0
 */
export const defaultPrompt = (input: PromptInput): Prompt.Prompt =>
  Prompt.fromMessages([
    Prompt.systemMessage({ content: SummaryPrompt.instructions(input.maxTokens, input.mode) }),
    Prompt.userMessage({ content: [Prompt.textPart({ text: SummaryPrompt.request(input) })] })
  ])

/**
 * The default compression prompt: the same instructions, and a user message
 * with `SummaryPrompt.compressRequest` (the over-budget reply, its size and
 * the budget, asking for a shorter version that keeps names, numbers,
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
 * @since 1.0.0
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
 * `TokenCountError`, or the error of a custom prompt that is not a valid
 * `Prompt` input (description `the prompt is not a valid Prompt input`);
 * an empty reply (a refusal) fails too (`the model returned an empty summary`).
 *
 * Fails with `ConfigError` when `maxSummaryTokens` is not a positive
 * integer, a prompt builder is not a function, or an option key is unknown
 * (naming it and the known ones).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { RollingMemory, Summarizer } from "rollmem"
 * import { LanguageModelSummarizer } from "rollmem/ai"
 *
 * // needs a LanguageModel in context (a provider's model layer)
 * const program = Effect.gen(function*() {
 *   const summarizer = yield* LanguageModelSummarizer.make({ maxSummaryTokens: 300 })
 *   return yield* RollingMemory.make({ maxTokens: 4000 }).pipe(Effect.provideService(Summarizer.Summarizer, summarizer))
 * })
 * ```
 *
 * @since 1.0.0
 */
export const make = (
  given?: Options
): Effect.Effect<Summarizer.Service, ConfigError, LanguageModel.LanguageModel> =>
  Effect.gen(function*() {
    const options = yield* Effect.fromResult(decodeOptions(given))
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
          const maxTokens = Budget.budgetOf(ownBudget, request.maxSummaryTokens)
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
          if (draftTokens <= maxTokens) return draft
          const shorter = yield* ask(buildCompressPrompt, { ...input, draft, draftTokens })
          if ((yield* measure(shorter)) <= maxTokens) return shorter
          const fit = Budget.fitToBudget(shorter, maxTokens)
          let step = fit.next()
          while (step.done !== true) step = fit.next(yield* measure(step.value))
          return step.value
        }
      )
    ))
  })

/**
 * Provides the summarizer of {@link make}. Requires `LanguageModel`; the
 * budget is counted with the counter of the memory that calls it.
 *
 * Fails with `ConfigError` as {@link make} does.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import type { LanguageModel } from "effect/ai"
 * import { RollingMemory } from "rollmem"
 * import { LanguageModelSummarizer } from "rollmem/ai"
 *
 * declare const model: Layer.Layer<LanguageModel.LanguageModel>
 * const SummarizerLive = LanguageModelSummarizer.layer({ maxSummaryTokens: 300 }).pipe(Layer.provide(model))
 * const program = RollingMemory.make({ maxTokens: 4000 }).pipe(Effect.provide(SummarizerLive))
 * ```
 *
 * @since 1.0.0
 */
export const layer = (
  options?: Options
): Layer.Layer<Summarizer.Summarizer, ConfigError, LanguageModel.LanguageModel> =>
  Layer.effect(Summarizer.Summarizer, make(options))
