/**
 * Ready summarizers over your own OpenAI or Anthropic client on the Effect 4
 * line: the Effect 3 line's (the same options, requests, replies and errors,
 * `src/core/readySummarizers.ts`, docs/contract.md sections 14.3 and 16.5).
 * Each returns a `summarize` function for `AsyncRollingMemory` /
 * `AsyncSummaryMemory` (or `Summarizer.fromPromise`): one request per fold,
 * with the instructions and request of `SummaryPrompt`, the summary budget
 * as the instructions' word limit and the request's output token cap, and
 * the facade's `AbortSignal` passed to the SDK (`{ signal }`) so an
 * interrupted, timed-out or disposed fold cancels its request. The clients
 * are typed structurally: nothing is imported from the SDKs. `onUsage` gets
 * each request's usage; this line keeps no summarizer-usage counters.
 *
 * @example
 * ```ts
 * import { openAIChatSummarizer, type OpenAIChatClient } from "rollmem/adapters"
 * import { AsyncRollingMemory } from "rollmem/promise"
 *
 * declare const client: OpenAIChatClient // new OpenAI() of `openai` 6
 * const memory = new AsyncRollingMemory({
 *   maxTokens: 4000,
 *   summarize: openAIChatSummarizer(client, { model: "gpt-4o-mini", maxSummaryTokens: 300 })
 * })
 * ```
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Core from "../../../src/core/readySummarizers.js"
import { ConfigError, SummarizerError } from "../Errors.js"
import type * as Message from "../schema/Message.js"
import * as Summarizer from "../services/Summarizer.js"
import * as TokenCounter from "../services/TokenCounter.js"

/**
 * What the facade passes a summarizer beside the summary and the turns: an
 * `AbortSignal`, or a request `{ signal, maxSummaryTokens }`.
 *
 * @since 1.0.0
 */
export type SummarizeRequest = Core.SummarizeRequest

/**
 * A `summarize` function for the async facade classes (and
 * `Summarizer.fromPromise`): the `AbortSignal` third, the memory's
 * `Summarizer.Request` fourth.
 *
 * @since 1.0.0
 */
export type PromiseSummarize = (
  summary: string,
  messages: ReadonlyArray<Message.Message>,
  signal?: SummarizeRequest,
  request?: Summarizer.Request
) => Promise<string>

/**
 * Options of the ready summarizers, as on the Effect 3 line: `model`
 * (required); `maxSummaryTokens` (default 400: the instructions' word limit
 * and the request's output cap; a smaller budget in the memory's request
 * wins; the reply is counted with the memory's counter and, as a last
 * resort, cut to fit); `prompt` (replaces the instructions); `onUsage`
 * (each request's usage when the response reports it, before the reply is
 * read; a throw rejects the call).
 *
 * @since 1.0.0
 */
export interface SummarizerOptions {
  readonly model: string
  readonly maxSummaryTokens?: number | undefined
  readonly prompt?: string | undefined
  readonly onUsage?: ((usage: Summarizer.ProviderUsage) => void) | undefined
}

/**
 * The part of an `openai` client `openAIChatSummarizer` calls.
 *
 * @since 1.0.0
 */
export type OpenAIChatClient = Core.OpenAIChatClient

/**
 * The part of an `@anthropic-ai/sdk` client `anthropicSummarizer` calls.
 *
 * @since 1.0.0
 */
export type AnthropicClient = Core.AnthropicClient

/** The options checked (docs/contract.md section 14.3): a `ConfigError` thrown naming the first wrong one. */
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

/** What this line gives the ready summarizers of `core/readySummarizers.ts`: no usage counters. */
const line: Core.Line<Summarizer.Request> = {
  fail: (description, cause) => new SummarizerError(cause === undefined ? { description } : { description, cause }),
  count: (text, request) =>
    Effect.runPromise(Effect.mapError(
      TokenCounter.countText(request?.counter ?? TokenCounter.wordCounter, text),
      (cause) => new SummarizerError({ description: cause.message, cause })
    )),
  report: (usage, onUsage) => {
    if (usage !== undefined) onUsage?.(usage)
  }
}

/**
 * A summarizer over your OpenAI client's Chat Completions (`openai` 6):
 * `client.chat.completions.create({ model, max_completion_tokens, messages:
 * [system instructions, user request] }, { signal })`. Throws `ConfigError`
 * for a missing model, a budget that is not a positive integer or an
 * unknown key; a call rejects with the SDK's own error when the request
 * fails and with `SummarizerError` when the reply holds no text.
 *
 * @example
 * ```ts
 * import { openAIChatSummarizer, type OpenAIChatClient } from "rollmem/adapters"
 * import { AsyncRollingMemory } from "rollmem/promise"
 *
 * declare const client: OpenAIChatClient // new OpenAI() of `openai` 6
 * const memory = new AsyncRollingMemory({
 *   maxTokens: 4000,
 *   summarize: openAIChatSummarizer(client, {
 *     model: "gpt-4o-mini",
 *     maxSummaryTokens: 300,
 *     onUsage: (usage) => console.log(usage) // each request's tokens
 *   })
 * })
 * ```
 *
 * @since 1.0.0
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
 * (`@anthropic-ai/sdk`): `client.messages.create({ model, max_tokens,
 * system: instructions, messages: [user request] }, { signal })`, the
 * reply's text blocks joined. Throws `ConfigError` for a missing model, a
 * budget that is not a positive integer or an unknown key; a call rejects
 * with the SDK's own error when the request fails and with
 * `SummarizerError` when the reply holds no text.
 *
 * @example
 * ```ts
 * import { anthropicSummarizer, type AnthropicClient } from "rollmem/adapters"
 * import { AsyncRollingMemory } from "rollmem/promise"
 *
 * declare const client: AnthropicClient // new Anthropic() of `@anthropic-ai/sdk`
 * const memory = new AsyncRollingMemory({
 *   maxTokens: 4000,
 *   summarize: anthropicSummarizer(client, { model: "claude-haiku-4-5", maxSummaryTokens: 300 })
 * })
 * ```
 *
 * @since 1.0.0
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
 * @since 1.0.0
 */
export type AiSdkModel = Core.AiSdkModel

/**
 * Options of {@link aiSdkSummarizer}, as on the Effect 3 line: those of the
 * other ready summarizers (`maxSummaryTokens`, default 400: the
 * instructions' word limit and `generateText`'s `maxOutputTokens`; `prompt`;
 * `onUsage`, with the model's `modelId`, or the gateway id, as `model`) with
 * an AI SDK model in place of a model name, and `maxRetries` (passed to
 * `generateText`, whose default is 2).
 *
 * @since 1.0.0
 */
export interface AiSdkSummarizerOptions {
  readonly model: AiSdkModel
  readonly maxSummaryTokens?: number | undefined
  readonly prompt?: string | undefined
  readonly maxRetries?: number | undefined
  readonly onUsage?: ((usage: Summarizer.ProviderUsage) => void) | undefined
}

/**
 * A summarizer over the AI SDK's `generateText` (`ai` 6, an optional peer,
 * loaded on the first call, never when `rollmem/adapters` is imported):
 * `generateText({ model, system: instructions, prompt: request,
 * maxOutputTokens, abortSignal, maxRetries? })`. The facade's `AbortSignal`
 * (an interrupted or disposed fold, the facade's `timeout`) is
 * `abortSignal`. Throws `ConfigError` for a missing model, a budget or
 * `maxRetries` out of range or an unknown key; a call rejects with
 * `SummarizerError` when `ai` is not installed (naming `npm i ai@6`) or the
 * reply holds no text, and with the AI SDK's own error when the request
 * fails.
 *
 * @example
 * ```ts
 * import { aiSdkSummarizer, type AiSdkSummarizerOptions } from "rollmem/adapters"
 * import { AsyncRollingMemory } from "rollmem/promise"
 *
 * declare const model: AiSdkSummarizerOptions["model"] // e.g. openai("gpt-4o-mini") from @ai-sdk/openai
 * const memory = new AsyncRollingMemory({
 *   maxTokens: 4000,
 *   timeout: 30_000,
 *   summarize: aiSdkSummarizer({ model, maxSummaryTokens: 300 })
 * })
 * ```
 *
 * @since 1.0.0
 */
export const aiSdkSummarizer = (
  given: AiSdkSummarizerOptions
): PromiseSummarize & { readonly honoursMode: true } =>
  Summarizer.honouringMode<PromiseSummarize>(
    Core.aiSdk(decodeOptions(given, Core.AI_SDK_FIELDS, "aiSdkSummarizer"), line)
  )
