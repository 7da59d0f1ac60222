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
import * as Core from "../core/readySummarizers.js"
import { ConfigError, SummarizerError } from "../Errors.js"
import * as MemoryState from "../schema/MemoryState.js"
import * as Message from "../schema/Message.js"
import { reportUsage } from "../services/internal/summarizing.js"
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
export type SummarizeRequest = Core.SummarizeRequest

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
export type OpenAIChatClient = Core.OpenAIChatClient

/**
 * The part of an `@anthropic-ai/sdk` client `anthropicSummarizer` calls.
 *
 * @since 0.2.0
 * @category models
 */
export type AnthropicClient = Core.AnthropicClient

/**
 * The options decoded (docs/contract.md section 14.3, `core/readySummarizers.ts`): a
 * `ConfigError` thrown naming the first wrong one, an unknown key with the
 * known ones (`unknown option for openAIChatSummarizer (known: model,
 * maxSummaryTokens, prompt, onUsage)`).
 */
const decodeOptions = <A>(given: A, fields: ReadonlyArray<Core.Field>, owner: string): A => {
  const problem = Core.optionsProblem(given, fields, owner)
  if (problem !== undefined) throw new ConfigError(problem)
  return given
}

/**
 * The client checked (docs/contract.md section 14.3, `core/readySummarizers.ts`):
 * a `ConfigError` on option `client` thrown when it is not an object with
 * the method the summarizer calls.
 */
const decodeClient = <C>(client: C, shape: Core.ClientShape): C => {
  const problem = Core.clientProblem(client, shape)
  if (problem !== undefined) throw new ConfigError(problem)
  return client
}

/** What this line gives the ready summarizers of `core/readySummarizers.ts`. */
const line: Core.Line<Summarizer.Request> = {
  fail: (description, cause) => new SummarizerError(cause === undefined ? { description } : { description, cause }),
  count: (text, request) =>
    Effect.runPromise(Effect.mapError(
      TokenCounter.countText(request?.counter ?? TokenCounter.wordCounter, text),
      (cause) => new SummarizerError({ description: cause.message, cause })
    )),
  report: reportUsage
}

const budgetOf = (options: { readonly maxSummaryTokens?: number | undefined }): number =>
  options.maxSummaryTokens ?? Core.DEFAULT_SUMMARY_TOKENS

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
): PromiseSummarize & { readonly honoursMode: true } =>
  Summarizer.honouringMode<PromiseSummarize>(
    Core.openAIChat(
      decodeClient(client, Core.OPENAI_CHAT_CLIENT),
      decodeOptions(given, Core.MODEL_FIELDS, "openAIChatSummarizer"),
      line
    )
  )

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
): PromiseSummarize & { readonly honoursMode: true } =>
  Summarizer.honouringMode<PromiseSummarize>(
    Core.anthropic(
      decodeClient(client, Core.ANTHROPIC_CLIENT),
      decodeOptions(given, Core.MODEL_FIELDS, "anthropicSummarizer"),
      line
    )
  )

/**
 * The model `aiSdkSummarizer` calls: an AI SDK `LanguageModel` (a provider's
 * model, `openai("gpt-4o-mini")`, or a gateway model id string), typed
 * structurally so that nothing is imported from `ai` at run time.
 *
 * @since 0.4.0
 * @category models
 */
export type AiSdkModel = Core.AiSdkModel

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
): PromiseSummarize & { readonly honoursMode: true } =>
  Summarizer.honouringMode<PromiseSummarize>(
    Core.aiSdk(decodeOptions(given, Core.AI_SDK_FIELDS, "aiSdkSummarizer"), line)
  )

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
  decodeClient(client, Core.ANTHROPIC_COMPACTION_CLIENT)
  const options = decodeOptions(given, Core.MODEL_FIELDS, "anthropicCompactionSummarizer")
  const budget = budgetOf(options)
  return SummarizerService.compacting<PromiseCompact>(async (summary, messages, third, request) => {
    const { budget: max, signal } = Core.split(third, request, budget)
    const context = orThrow(Effect.runSync(Effect.either(
      Anthropic.encode(contextOf("anthropic", summary, messages, request), { check: false, arrange: true })
    )))
    const reply = await client.beta.messages.create({
      model: options.model,
      max_tokens: max,
      ...context,
      compaction: { type: "summarize", ...(options.prompt === undefined ? {} : { instructions: options.prompt }) }
    }, signal === undefined ? undefined : { signal })
    reportUsage(Core.providerUsage("anthropic-compaction", options.model, reply.usage), options.onUsage)
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
  decodeClient(client, Core.OPENAI_RESPONSES_COMPACT_CLIENT)
  const options = decodeOptions(given, Core.MODEL_FIELDS, "openAIResponsesCompactSummarizer")
  const budget = budgetOf(options)
  return SummarizerService.compacting<PromiseCompact>(async (summary, messages, third, request) => {
    const { signal } = Core.split(third, request, budget)
    const input = orThrow(Effect.runSync(Effect.either(
      OpenAiResponses.encode(contextOf("openai-responses", summary, messages, request), { check: false })
    )))
    const response = await client.responses.compact({
      model: options.model,
      input,
      ...(options.prompt === undefined ? {} : { instructions: options.prompt })
    }, signal === undefined ? undefined : { signal })
    reportUsage(Core.providerUsage("openai-responses-compact", options.model, response.usage), options.onUsage)
    const item = response.output.find((i) => i.type === "compaction")
    if (item === undefined) throw new SummarizerError({ description: "the output holds no compaction item" })
    return SummarizerService.compacted({ format: "openai-responses", item: asJson(item), content: "" })
  })
}
