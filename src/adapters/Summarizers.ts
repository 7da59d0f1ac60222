/**
 * Ready summarizers for the Promise facade over your own OpenAI or
 * Anthropic client instance. Each returns a `summarize` function for
 * `AsyncRollingMemory` / `AsyncSummaryMemory`: one request per fold, with
 * the instructions and request of `SummaryPrompt` (the current summary and
 * the evicted turns, rendered with their roles, tool calls and results), the
 * summary budget as the instructions' word limit and the request's output
 * token cap, and the facade's `AbortSignal` passed to the SDK (`{ signal }`)
 * so an interrupted or disposed fold cancels its request.
 *
 * The clients are typed structurally (the part of `openai` 6's and
 * `@anthropic-ai/sdk` 1.x's client each one calls): nothing is imported from
 * the SDKs at run time. A request that fails rejects with the SDK's own
 * error (the facade's add then fails and commits nothing); a reply without
 * text rejects with `SummarizerError`. Each honours `request.mode` (summary
 * segments, docs/contract.md section 10.9) and carries `honoursMode`.
 * Each reports its requests' usage when the provider's response carries it
 * (`onUsage` and the counters `rollmem_summarizer_input_tokens` /
 * `_output_tokens`, docs/contract.md section 16.5).
 *
 * @example
 * ```ts
 * import OpenAI from "openai"
 * import { openAIChatSummarizer } from "rollmem/adapters"
 * import { AsyncRollingMemory } from "rollmem/promise"
 *
 * const memory = new AsyncRollingMemory({
 *   maxTokens: 4000,
 *   summarize: openAIChatSummarizer(new OpenAI(), { model: "gpt-4o-mini", maxSummaryTokens: 300 })
 * })
 * ```
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as SummaryPrompt from "../ai/SummaryPrompt.js"
import * as Rules from "../core/options.js"
import { SummarizerError } from "../Errors.js"
import * as MemoryState from "../schema/MemoryState.js"
import * as Message from "../schema/Message.js"
import * as Options from "../schema/Options.js"
import { fitToBudget, providerUsage, reportUsage } from "../services/internal/summarizing.js"
import * as Summarizer from "../services/Summarizer.js"
import * as SummarizerService from "../services/Summarizer.js"
import * as TokenCounter from "../services/TokenCounter.js"
import * as Anthropic from "./Anthropic.js"
import * as OpenAiResponses from "./OpenAiResponses.js"

/**
 * What the facade passes a summarizer beside the summary and the turns: an
 * `AbortSignal`, or a request `{ signal, maxSummaryTokens }`.
 *
 * @since 0.2.0
 * @category models
 */
export type SummarizeRequest = AbortSignal | {
  readonly signal?: AbortSignal | undefined
  readonly maxSummaryTokens?: number | undefined
} | undefined

/**
 * A `summarize` function for the async facade classes: the facade passes the
 * `AbortSignal` third and the memory's `Summarizer.Request` fourth.
 *
 * @since 0.2.0
 * @category models
 */
export type PromiseSummarize = (
  summary: string,
  messages: ReadonlyArray<Message.Message>,
  signal?: SummarizeRequest,
  request?: Summarizer.Request
) => Promise<string>

/**
 * Options of the ready summarizers.
 *
 * - `model`: the model to call (required).
 * - `maxSummaryTokens`: the summary budget (tokens, default 400): the word
 *   limit of the instructions and the request's output cap. A smaller
 *   budget in the memory's request wins; the reply is counted with the
 *   memory's counter and, as a last resort, cut (between two graphemes) to
 *   its longest prefix that fits, so it never fails the memory's check.
 * - `prompt`: replaces the default instructions (`SummaryPrompt.instructions`);
 *   the user message stays the summary and the turns.
 * - `onUsage`: called with each request's usage when the provider's
 *   response reports it (docs/contract.md section 16.5), after the
 *   counters `rollmem_summarizer_input_tokens` / `_output_tokens` are
 *   updated and before the reply is read (a reply then refused was still
 *   paid for); a throw rejects the call. The summarizer's own request, not
 *   the memory's context: give the memory `recordUsage` your model's usage,
 *   not this.
 *
 * @since 0.2.0
 * @category models
 */
export interface SummarizerOptions {
  readonly model: string
  readonly maxSummaryTokens?: number | undefined
  readonly prompt?: string | undefined
  readonly onUsage?: ((usage: SummarizerService.ProviderUsage) => void) | undefined
}

/**
 * The part of an `openai` client `openAIChatSummarizer` calls.
 *
 * @since 0.2.0
 * @category models
 */
export interface OpenAIChatClient {
  readonly chat: {
    readonly completions: {
      readonly create: (
        body: {
          model: string
          max_completion_tokens: number
          messages: Array<{ role: "system" | "user"; content: string }>
        },
        options?: { signal?: AbortSignal }
      ) => PromiseLike<{
        readonly choices: ReadonlyArray<{ readonly message: { readonly content: string | null } }>
        readonly usage?: unknown
      }>
    }
  }
}

/**
 * The part of an `@anthropic-ai/sdk` client `anthropicSummarizer` calls.
 *
 * @since 0.2.0
 * @category models
 */
export interface AnthropicClient {
  readonly messages: {
    readonly create: (
      body: {
        model: string
        max_tokens: number
        system: string
        messages: Array<{ role: "user"; content: string }>
        stream?: false
      },
      options?: { signal?: AbortSignal }
    ) => PromiseLike<{
      readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>
      readonly usage?: unknown
    }>
  }
}

const DEFAULT_SUMMARY_TOKENS = 400

const modelName: Rules.Check = (u) => typeof u === "string" && u !== "" ? undefined : "a model name is required"

const aiSdkModel: Rules.Check = (u) =>
  (typeof u === "string" ? u !== "" : typeof u === "object" && u !== null)
    ? undefined
    : "an AI SDK model (or a gateway model id) is required"

/** The fields every ready summarizer takes beside its model (docs/contract.md section 14.3). */
const commonFields = {
  maxSummaryTokens: Options.optional<number>(Rules.positiveInteger),
  prompt: Options.optional<string>(Rules.string),
  onUsage: Options.optional<(usage: SummarizerService.ProviderUsage) => void>(Rules.isFunction)
}

/** The options of `openAIChatSummarizer`, `anthropicSummarizer` and the compacting summarizers, as a schema. */
const ModelOptions = Options.struct({ model: Options.required<string>(modelName), ...commonFields }, undefined)

/** The options of `aiSdkSummarizer`, as a schema. */
const AiSdkOptions = Options.struct({
  model: Options.required<AiSdkModel>(aiSdkModel),
  ...commonFields,
  maxRetries: Options.optional<number>(Rules.nonNegativeInteger)
}, undefined)

/**
 * The options decoded with `schema` (docs/contract.md section 14.3): a
 * `ConfigError` thrown naming the first wrong one, an unknown key with the
 * known ones (`unknown option for openAIChatSummarizer (known: model,
 * maxSummaryTokens, prompt, onUsage)`).
 */
const decodeOptions = <A, I>(schema: Schema.Schema<A, I>, options: unknown, owner: string): A =>
  Either.getOrThrowWith(Options.decode(schema, options, { owner }), (error) => error)

/** The summary budget of decoded options: `maxSummaryTokens`, default 400. */
const budgetOf = (options: { readonly maxSummaryTokens?: number | undefined }): number =>
  options.maxSummaryTokens ?? DEFAULT_SUMMARY_TOKENS

const smaller = (budget: number, max: number | undefined): number => max === undefined ? budget : Math.min(budget, max)

const split = (third: SummarizeRequest, fourth: Summarizer.Request | undefined, budget: number) => {
  const own = smaller(budget, fourth?.maxSummaryTokens)
  if (third === undefined) return { signal: undefined, budget: own }
  if (typeof AbortSignal !== "undefined" && third instanceof AbortSignal) return { signal: third, budget: own }
  const r = third as { readonly signal?: AbortSignal; readonly maxSummaryTokens?: number }
  return { signal: r.signal, budget: smaller(own, r.maxSummaryTokens) }
}

// The reply within `max` tokens of the memory's counter (the word count without a request).
const fit = (text: string, max: number, request: Summarizer.Request | undefined): Promise<string> => {
  const counter = request?.counter ?? TokenCounter.wordCounter
  return Effect.runPromise(
    Effect.mapError(
      fitToBudget(text, max, (t) => TokenCounter.countText(counter, t)),
      (cause) => new SummarizerError({ description: cause.message, cause })
    )
  )
}

const prompts = (
  options: SummarizerOptions,
  summary: string,
  messages: ReadonlyArray<Message.Message>,
  max: number,
  request: Summarizer.Request | undefined
) => ({
  system: options.prompt ?? SummaryPrompt.instructions(max, request?.mode),
  user: SummaryPrompt.request({
    summary,
    transcript: SummaryPrompt.renderTranscript(messages),
    maxTokens: max,
    focus: request?.focus,
    mode: request?.mode
  })
})

const noText = (): SummarizerError => new SummarizerError({ description: "the model's reply holds no text" })

/**
 * A summarizer over your OpenAI client's Chat Completions (`openai` 6):
 * `client.chat.completions.create({ model, max_completion_tokens, messages:
 * [system instructions, user request] }, { signal })`. Throws `ConfigError`
 * for a missing model or a budget that is not a positive integer.
 *
 * @example
 * ```ts
 * import OpenAI from "openai"
 * import { openAIChatSummarizer } from "rollmem/adapters"
 * import { AsyncRollingMemory } from "rollmem/promise"
 *
 * const memory = new AsyncRollingMemory({
 *   maxTokens: 4000,
 *   summarize: openAIChatSummarizer(new OpenAI(), {
 *     model: "gpt-4o-mini",
 *     maxSummaryTokens: 300,
 *     onUsage: (usage) => console.log(usage) // each request's tokens
 *   })
 * })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const openAIChatSummarizer = (
  client: OpenAIChatClient,
  given: SummarizerOptions
): PromiseSummarize & { readonly honoursMode: true } => {
  const options = decodeOptions(ModelOptions, given, "openAIChatSummarizer")
  const budget = budgetOf(options)
  return Summarizer.honouringMode<PromiseSummarize>(async (summary, messages, third, request) => {
    const { budget: max, signal } = split(third, request, budget)
    const { system, user } = prompts(options, summary, messages, max, request)
    const completion = await client.chat.completions.create({
      model: options.model,
      max_completion_tokens: max,
      messages: [{ role: "system", content: system }, { role: "user", content: user }]
    }, signal === undefined ? undefined : { signal })
    reportUsage(providerUsage("openai-chat", options.model, completion.usage), options.onUsage)
    const text = completion.choices[0]?.message.content
    if (typeof text !== "string" || text.trim() === "") throw noText()
    return fit(text.trim(), max, request)
  })
}

/**
 * A summarizer over your Anthropic client's Messages API
 * (`@anthropic-ai/sdk` 1.x): `client.messages.create({ model, max_tokens,
 * system: instructions, messages: [user request] }, { signal })`. Throws
 * `ConfigError` for a missing model or a budget that is not a positive
 * integer.
 *
 * @example
 * ```ts
 * import Anthropic from "@anthropic-ai/sdk"
 * import { anthropicSummarizer } from "rollmem/adapters"
 * import { AsyncRollingMemory } from "rollmem/promise"
 *
 * const memory = new AsyncRollingMemory({
 *   maxTokens: 4000,
 *   summarize: anthropicSummarizer(new Anthropic(), { model: "claude-haiku-4-5", maxSummaryTokens: 300 })
 * })
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const anthropicSummarizer = (
  client: AnthropicClient,
  given: SummarizerOptions
): PromiseSummarize & { readonly honoursMode: true } => {
  const options = decodeOptions(ModelOptions, given, "anthropicSummarizer")
  const budget = budgetOf(options)
  return Summarizer.honouringMode<PromiseSummarize>(async (summary, messages, third, request) => {
    const { budget: max, signal } = split(third, request, budget)
    const { system, user } = prompts(options, summary, messages, max, request)
    const reply = await client.messages.create({
      model: options.model,
      max_tokens: max,
      system,
      messages: [{ role: "user", content: user }]
    }, signal === undefined ? undefined : { signal })
    reportUsage(providerUsage("anthropic", options.model, reply.usage), options.onUsage)
    const text = reply.content.flatMap((b) => b.type === "text" && typeof b.text === "string" ? [b.text] : []).join("")
    if (text.trim() === "") throw noText()
    return fit(text.trim(), max, request)
  })
}

/**
 * The model `aiSdkSummarizer` calls: an AI SDK `LanguageModel` (a provider's
 * model, `openai("gpt-4o-mini")`, or a gateway model id string), typed
 * structurally so that nothing is imported from `ai` at run time.
 *
 * @since 0.4.0
 * @category models
 */
export type AiSdkModel = string | {
  readonly specificationVersion: string
  readonly provider: string
  readonly modelId: string
}

/**
 * Options of {@link aiSdkSummarizer}: those of the other ready summarizers
 * (`maxSummaryTokens`, default 400: the instructions' word limit and
 * `generateText`'s `maxOutputTokens`; `prompt`) with an AI SDK model in
 * place of a model name, `maxRetries` (passed to `generateText`, whose
 * default is 2) and `onUsage` (each request's usage, `generateText`'s
 * `usage`, with the model's `modelId`, or the gateway id, as `model`).
 *
 * @since 0.4.0
 * @category models
 */
export interface AiSdkSummarizerOptions {
  readonly model: AiSdkModel
  readonly maxSummaryTokens?: number | undefined
  readonly prompt?: string | undefined
  readonly maxRetries?: number | undefined
  readonly onUsage?: ((usage: SummarizerService.ProviderUsage) => void) | undefined
}

/** The part of the `ai` package `aiSdkSummarizer` calls. */
interface AiModule {
  readonly generateText: (options: {
    model: AiSdkModel
    system: string
    prompt: string
    maxOutputTokens: number
    abortSignal?: AbortSignal
    maxRetries?: number
  }) => PromiseLike<{ readonly text: string; readonly usage?: unknown }>
}

/**
 * `import(specifier)` out of a bundler's sight (a computed specifier, marked
 * for webpack and Vite), as the store's optional peers are loaded: bundling
 * `rollmem/adapters` without `ai` installed succeeds.
 */
const load = (specifier: string): Promise<unknown> => import(/* webpackIgnore: true */ /* @vite-ignore */ specifier)

let ai: Promise<AiModule> | undefined

/** The `ai` package, loaded on the first call (a missing peer is a `SummarizerError` naming it). */
const loadAi = (): Promise<AiModule> => {
  if (ai === undefined) {
    const loading = load("ai").then((module) => {
      const m = module as Partial<AiModule>
      if (typeof m.generateText !== "function") throw new Error("the module `ai` has no generateText")
      return m as AiModule
    })
    ai = loading
    // a failed load is retried on the next call (the peer may be installed since)
    loading.catch(() => {
      if (ai === loading) ai = undefined
    })
  }
  return ai.catch((cause: unknown) => {
    throw new SummarizerError({
      description: "aiSdkSummarizer needs the AI SDK, an optional peer: npm i ai@6",
      cause
    })
  })
}

/**
 * A summarizer over the AI SDK's `generateText` (`ai` 6, an optional peer,
 * loaded on the first call, never when `rollmem/adapters` is imported):
 * `generateText({ model, system: instructions, prompt: request,
 * maxOutputTokens, abortSignal, maxRetries? })`, with the instructions and
 * request of `SummaryPrompt`. The summary budget (the smaller of
 * `maxSummaryTokens` and the memory's request) is `maxOutputTokens` and the
 * instructions' word limit; the reply is fitted to it as the other ready
 * summarizers fit theirs. The facade's `AbortSignal` (an interrupted or
 * disposed fold, the facade's `timeout`) is `abortSignal`, so it cancels
 * the request. Throws `ConfigError` for a missing model or a budget that is
 * not a positive integer; a call rejects with `SummarizerError` when `ai`
 * is not installed or the reply holds no text, and with the AI SDK's own
 * error when the request fails (the memory's fold then fails with
 * `SummarizerError`, the rejection as its `cause`, and commits nothing).
 *
 * @example
 * ```ts
 * import type { LanguageModel } from "ai"
 * import { aiSdkSummarizer } from "rollmem/adapters"
 * import { AsyncRollingMemory } from "rollmem/promise"
 *
 * declare const model: LanguageModel // e.g. openai("gpt-4o-mini") from @ai-sdk/openai
 * const memory = new AsyncRollingMemory({
 *   maxTokens: 4000,
 *   timeout: 30_000,
 *   summarize: aiSdkSummarizer({ model, maxSummaryTokens: 300 })
 * })
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const aiSdkSummarizer = (
  given: AiSdkSummarizerOptions
): PromiseSummarize & { readonly honoursMode: true } => {
  const options = decodeOptions(AiSdkOptions, given, "aiSdkSummarizer")
  const model = options.model
  const budget = budgetOf(options)
  const modelName = typeof model === "string" ? model : typeof model.modelId === "string" ? model.modelId : undefined
  const retries = options.maxRetries
  return Summarizer.honouringMode<PromiseSummarize>(async (summary, messages, third, request) => {
    const { budget: max, signal } = split(third, request, budget)
    const { generateText } = await loadAi()
    const { system, user } = prompts({ ...options, model: "ai-sdk" }, summary, messages, max, request)
    const result = await generateText({
      model,
      system,
      prompt: user,
      maxOutputTokens: max,
      ...(signal === undefined ? {} : { abortSignal: signal }),
      ...(retries === undefined ? {} : { maxRetries: retries })
    })
    reportUsage(providerUsage("ai-sdk", modelName, result.usage), options.onUsage)
    const text = result.text
    if (typeof text !== "string" || text.trim() === "") throw noText()
    return fit(text.trim(), max, request)
  })
}

/**
 * A `summarize` function for the async facade classes that may return a
 * provider compaction (`Summarizer.Compacted`) in place of a summary text:
 * what {@link anthropicCompactionSummarizer} and
 * {@link openAIResponsesCompactSummarizer} return.
 *
 * @since 0.4.0
 * @category models
 */
export type PromiseCompact = (
  summary: string,
  messages: ReadonlyArray<Message.Message>,
  signal?: SummarizeRequest,
  request?: Summarizer.Request
) => Promise<SummarizerService.Result>

/**
 * Options of the compaction summarizers: `model` (required); `prompt`, the
 * provider's compaction instructions in place of its own (Anthropic's
 * `compaction.instructions`, OpenAI's `instructions`); `maxSummaryTokens`
 * (default 400), Anthropic's `max_tokens` (the smaller of it and the
 * memory's request; OpenAI's compaction takes no output cap); `onUsage`, as
 * the other ready summarizers' (Anthropic's usage with its `compaction`
 * iterations added, docs/contract.md section 16.5).
 *
 * @since 0.4.0
 * @category models
 */
export interface CompactionSummarizerOptions {
  readonly model: string
  readonly maxSummaryTokens?: number | undefined
  readonly prompt?: string | undefined
  readonly onUsage?: ((usage: SummarizerService.ProviderUsage) => void) | undefined
}

/**
 * The part of an `@anthropic-ai/sdk` client `anthropicCompactionSummarizer`
 * calls: `beta.messages.create` with the `compaction` parameter.
 *
 * @since 0.4.0
 * @category models
 */
export interface AnthropicCompactionClient {
  readonly beta: {
    readonly messages: {
      create(
        body: Anthropic.Request & {
          model: string
          max_tokens: number
          compaction: { type: "summarize"; instructions?: string }
          stream?: false
        },
        options?: { signal?: AbortSignal }
      ): PromiseLike<{ readonly content: ReadonlyArray<{ readonly type: string }>; readonly usage?: unknown }>
    }
  }
}

/**
 * The part of an `openai` client `openAIResponsesCompactSummarizer` calls:
 * `responses.compact`.
 *
 * @since 0.4.0
 * @category models
 */
export interface OpenAIResponsesCompactClient {
  readonly responses: {
    compact(
      body: { model: string; input: Array<OpenAiResponses.InputItem>; instructions?: string },
      options?: { signal?: AbortSignal }
    ): PromiseLike<{ readonly output: ReadonlyArray<{ readonly type?: string }>; readonly usage?: unknown }>
  }
}

/** What a compaction request sends: the memory's compaction (its own format's), the summary, the turns. */
const contextOf = (
  format: MemoryState.Compaction["format"],
  summary: string,
  messages: ReadonlyArray<Message.Message>,
  request: Summarizer.Request | undefined
): Array<Message.Message> => [
  ...(request?.compaction?.format === format ? [MemoryState.compactionMessage(request.compaction)] : []),
  ...(summary === "" ? [] : [Message.system(summary)]),
  ...messages
]

const orThrow = <A>(result: Either.Either<A, { readonly message: string }>): A => {
  if (Either.isLeft(result)) {
    throw new SummarizerError({ description: `the turns cannot be sent: ${result.left.message}`, cause: result.left })
  }
  return result.right
}

const asJson = (u: unknown): { [key: string]: MemoryState.Compaction["item"][string] } =>
  JSON.parse(JSON.stringify(u)) as { [key: string]: MemoryState.Compaction["item"][string] }

/**
 * A compacting summarizer over your Anthropic client's server-side
 * compaction (`@anthropic-ai/sdk`, beta): one `client.beta.messages.create({
 * model, max_tokens, system?, messages, compaction: { type: "summarize",
 * instructions? } }, { signal })` per fold, with the memory's compaction
 * (an Anthropic one), the summary (as system text) and the evicted turns
 * written by `toAnthropic` (`arrange`, unchecked). The reply's `compaction`
 * block is the result (`Summarizer.Compacted`, summary `""`): the memory
 * keeps it verbatim as its `compaction`, read back first, its `content`
 * counted. Use it as any `summarize` function of the async facade (its
 * `timeout` and `AbortSignal` apply). Throws `ConfigError` for a missing
 * model or a budget that is not a positive integer; a call rejects with the
 * SDK's error when the request fails, and with `SummarizerError` when the
 * reply holds no compaction block or one with no content (a failed
 * compaction).
 *
 * @example
 * ```ts
 * import Anthropic from "@anthropic-ai/sdk"
 * import { anthropicCompactionSummarizer } from "rollmem/adapters"
 * import { AsyncRollingMemory } from "rollmem/promise"
 *
 * const memory = new AsyncRollingMemory({
 *   maxTokens: 8000,
 *   timeout: 60_000,
 *   summarize: anthropicCompactionSummarizer(new Anthropic(), { model: "claude-sonnet-4-5" })
 * })
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const anthropicCompactionSummarizer = (
  client: AnthropicCompactionClient,
  given: CompactionSummarizerOptions
): PromiseCompact & { readonly compacts: true } => {
  const options = decodeOptions(ModelOptions, given, "anthropicCompactionSummarizer")
  const budget = budgetOf(options)
  return SummarizerService.compacting<PromiseCompact>(async (summary, messages, third, request) => {
    const { budget: max, signal } = split(third, request, budget)
    const context = orThrow(Effect.runSync(Effect.either(
      Anthropic.encode(contextOf("anthropic", summary, messages, request), { check: false, arrange: true })
    )))
    const reply = await client.beta.messages.create({
      model: options.model,
      max_tokens: max,
      ...context,
      compaction: { type: "summarize", ...(options.prompt === undefined ? {} : { instructions: options.prompt }) }
    }, signal === undefined ? undefined : { signal })
    reportUsage(providerUsage("anthropic-compaction", options.model, reply.usage), options.onUsage)
    const block = reply.content.find((b) => b.type === "compaction") as
      | { readonly type: string; readonly content?: unknown }
      | undefined
    if (block === undefined) throw new SummarizerError({ description: "the reply holds no compaction block" })
    if (typeof block.content !== "string" || block.content === "") {
      throw new SummarizerError({ description: "the compaction failed: its block has no content" })
    }
    return SummarizerService.compacted({ format: "anthropic", item: asJson(block), content: block.content })
  })
}

/**
 * A compacting summarizer over your OpenAI client's `/responses/compact`
 * (`openai` 6): one `client.responses.compact({ model, input, instructions?
 * }, { signal })` per fold, with the memory's compaction (an OpenAI one),
 * the summary (as a system message) and the evicted turns written by
 * `toOpenAIResponses` (unchecked). The output's `compaction` item is the
 * result (`Summarizer.Compacted`, summary `""`, content `""`: the item is
 * encrypted): the memory keeps it verbatim as its `compaction`, read back
 * first. The user messages the output repeats are not kept (they are
 * evicted turns, which the compaction covers). Throws `ConfigError` for a
 * missing model; a call rejects with the SDK's error when the request
 * fails, and with `SummarizerError` when the output holds no compaction
 * item.
 *
 * @example
 * ```ts
 * import OpenAI from "openai"
 * import { openAIResponsesCompactSummarizer } from "rollmem/adapters"
 * import { AsyncRollingMemory } from "rollmem/promise"
 *
 * const memory = new AsyncRollingMemory({
 *   maxTokens: 8000,
 *   summarize: openAIResponsesCompactSummarizer(new OpenAI(), { model: "gpt-5.4" })
 * })
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const openAIResponsesCompactSummarizer = (
  client: OpenAIResponsesCompactClient,
  given: CompactionSummarizerOptions
): PromiseCompact & { readonly compacts: true } => {
  const options = decodeOptions(ModelOptions, given, "openAIResponsesCompactSummarizer")
  const budget = budgetOf(options)
  return SummarizerService.compacting<PromiseCompact>(async (summary, messages, third, request) => {
    const { signal } = split(third, request, budget)
    const input = orThrow(Effect.runSync(Effect.either(
      OpenAiResponses.encode(contextOf("openai-responses", summary, messages, request), { check: false })
    )))
    const response = await client.responses.compact({
      model: options.model,
      input,
      ...(options.prompt === undefined ? {} : { instructions: options.prompt })
    }, signal === undefined ? undefined : { signal })
    reportUsage(providerUsage("openai-responses-compact", options.model, response.usage), options.onUsage)
    const item = response.output.find((i) => i.type === "compaction")
    if (item === undefined) throw new SummarizerError({ description: "the output holds no compaction item" })
    return SummarizerService.compacted({ format: "openai-responses", item: asJson(item), content: "" })
  })
}
