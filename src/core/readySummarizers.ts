/**
 * The ready model summarizers of `rollmem/adapters` (docs/contract.md
 * sections 14.3, 15.4 and 16.5), pure, shared by both lines: their option
 * rules, the request each sends its provider (the instructions and request
 * of `summaryPrompt.ts`, the summary budget, the caller's `AbortSignal`),
 * how each reads the reply and its usage, and the loading of the optional
 * peer `ai`. Each line gives only what needs its Effect ({@link Line}: its
 * `SummarizerError`, its token counting, its usage counters).
 *
 * Pure: no Effect import (both Effect lines compile it).
 *
 * @internal
 */
import type { MessageFields } from "./message.js"
import * as Rules from "./options.js"
import { budgetOf as smaller, fitToBudget } from "./summarizing.js"
import * as SummaryPrompt from "./summaryPrompt.js"
import * as Usage from "./usage.js"

/** The summary budget of a ready summarizer without `maxSummaryTokens`. @internal */
export const DEFAULT_SUMMARY_TOKENS = 400

/** The model summarizers rollmem ships, as their usage names them (section 16.5). @internal */
export type ShippedSummarizer =
  | "openai-chat"
  | "anthropic"
  | "ai-sdk"
  | "anthropic-compaction"
  | "openai-responses-compact"
  | "language-model"

/** One request's usage as a ready summarizer reports it (section 16.5). @internal */
export interface ProviderUsage {
  readonly summarizer: ShippedSummarizer
  readonly model: string | undefined
  readonly inputTokens: number
  readonly outputTokens: number | undefined
}

/** The usage `raw` (the provider's usage object) reports, or `undefined` when none can be read. @internal */
export const providerUsage = (
  summarizer: ShippedSummarizer,
  model: string | undefined,
  raw: unknown
): ProviderUsage | undefined => {
  const read = Usage.requestUsage(raw)
  return read === undefined ? undefined : { summarizer, model, ...read }
}

/** A model name: a non-empty string. @internal */
export const modelName: Rules.Check = (u) => typeof u === "string" && u !== "" ? undefined : "a model name is required"

/**
 * An AI SDK model: a model object (a `LanguageModel`, whose `doGenerate`
 * `generateText` calls) or a non-empty gateway model id. @internal
 */
export const aiSdkModel: Rules.Check = (u) =>
  typeof u === "string"
    ? u !== "" ? undefined : "an AI SDK model (or a gateway model id) is required"
    : typeof u === "object" && u !== null
    ? typeof (u as { readonly doGenerate?: unknown }).doGenerate === "function"
      ? undefined
      : "an AI SDK model (or a gateway model id) is required, got an object without doGenerate " +
        "(a LanguageModel of a provider package, e.g. openai(\"gpt-4.1-mini\"))"
    : "an AI SDK model (or a gateway model id) is required"

/** The client a ready summarizer calls: what it is named and the method it calls on it. @internal */
export interface ClientShape {
  readonly name: string
  readonly method: ReadonlyArray<string>
}

/** `openAIChatSummarizer`'s client: `client.chat.completions.create`. @internal */
export const OPENAI_CHAT_CLIENT: ClientShape = { name: "an OpenAI client", method: ["chat", "completions", "create"] }

/** `anthropicSummarizer`'s client: `client.messages.create`. @internal */
export const ANTHROPIC_CLIENT: ClientShape = { name: "an Anthropic client", method: ["messages", "create"] }

/** `anthropicCompactionSummarizer`'s client: `client.beta.messages.create`. @internal */
export const ANTHROPIC_COMPACTION_CLIENT: ClientShape = {
  name: "an Anthropic client",
  method: ["beta", "messages", "create"]
}

/** `openAIResponsesCompactSummarizer`'s client: `client.responses.compact`. @internal */
export const OPENAI_RESPONSES_COMPACT_CLIENT: ClientShape = {
  name: "an OpenAI client",
  method: ["responses", "compact"]
}

/**
 * The problem of `client` as the client `shape` names (section 14.3), on
 * option `client`: not an object, or an object without the method the
 * summarizer calls (`must be an OpenAI client (client.chat.completions.create
 * a function), got null`, `... got an object whose chat is undefined`).
 * `undefined` when the method is a function.
 *
 * @internal
 */
export const clientProblem = (client: unknown, shape: ClientShape): Rules.Problem | undefined => {
  const expected = `must be ${shape.name} (client.${shape.method.join(".")} a function)`
  const holder = (u: unknown): boolean => (typeof u === "object" && u !== null) || typeof u === "function"
  if (!holder(client) || Array.isArray(client)) {
    return { option: "client", description: `${expected}, got ${Rules.describeKind(client)}` }
  }
  let value: unknown = client
  for (let i = 0; i < shape.method.length; i++) {
    value = (value as { readonly [key: string]: unknown })[shape.method[i]]
    const last = i === shape.method.length - 1
    if (last ? typeof value !== "function" : !holder(value)) {
      const at = shape.method.slice(0, i + 1).join(".")
      return {
        option: "client",
        description: `${expected}, got an object whose ${at} is ${Rules.describeKind(value)}`
      }
    }
  }
  return undefined
}

/** One option: its key, its rule, whether it is required (an absent required one is checked as `undefined`). @internal */
export type Field = readonly [key: string, check: Rules.Check, required: boolean]

const commonFields: ReadonlyArray<Field> = [
  ["maxSummaryTokens", Rules.positiveInteger, false],
  ["prompt", Rules.string, false],
  ["onUsage", Rules.isFunction, false]
]

/** The options of `openAIChatSummarizer`, `anthropicSummarizer` and the compacting summarizers. @internal */
export const MODEL_FIELDS: ReadonlyArray<Field> = [["model", modelName, true], ...commonFields]

/** The options of `aiSdkSummarizer`. @internal */
export const AI_SDK_FIELDS: ReadonlyArray<Field> = [
  ["model", aiSdkModel, true],
  ...commonFields,
  ["maxRetries", Rules.nonNegativeInteger, false]
]

/**
 * The first problem of `given` as the options of `owner` (section 14.3):
 * not an object (`undefined` reads as `{}`), then the first unknown key
 * (even one given as `undefined`), then the first field, in the order of
 * `fields`, its rule refuses (an optional one given as `undefined` is
 * absent). `undefined` when there is none.
 *
 * @internal
 */
export const optionsProblem = (
  given: unknown,
  fields: ReadonlyArray<Field>,
  owner: string
): Rules.Problem | undefined => {
  const value = given === undefined ? {} : given
  const notObject = Rules.options(value)
  if (notObject !== undefined) return { option: "options", description: notObject }
  const options = value as { readonly [key: string]: unknown }
  const known = fields.map(([key]) => key)
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) return { option: key, description: Rules.unknownOption(known, owner) }
  }
  for (const [key, check, required] of fields) {
    const problem = options[key] === undefined && !required ? undefined : check(options[key])
    if (problem !== undefined) return { option: key, description: problem }
  }
  return undefined
}

/** The options every ready summarizer takes beside its model. @internal */
export interface CommonOptions {
  readonly maxSummaryTokens?: number | undefined
  readonly prompt?: string | undefined
  readonly onUsage?: ((usage: ProviderUsage) => void) | undefined
}

/** The options of {@link openAIChat} and {@link anthropic}. @internal */
export interface ModelOptions extends CommonOptions {
  readonly model: string
}

/** The part of a memory's summarizer request a ready summarizer reads. @internal */
export interface Request {
  readonly maxSummaryTokens?: number | undefined
  readonly focus?: string | undefined
  readonly mode?: "segment" | "consolidate" | undefined
}

/** What a caller passes third: an `AbortSignal`, or `{ signal, maxSummaryTokens }`. @internal */
export type SummarizeRequest = AbortSignal | {
  readonly signal?: AbortSignal | undefined
  readonly maxSummaryTokens?: number | undefined
} | undefined

/** A ready summarizer: the facade's `summarize` (the signal third, the memory's request fourth). @internal */
export type Summarize<R> = (
  summary: string,
  messages: ReadonlyArray<MessageFields>,
  signal?: SummarizeRequest,
  request?: R
) => Promise<string>

/** What a line gives the ready summarizers. @internal */
export interface Line<R extends Request> {
  /** The line's `SummarizerError`. */
  readonly fail: (description: string, cause?: unknown) => Error
  /** `text`'s tokens by the counter of `request` (words without one), rejecting with the line's `SummarizerError`. */
  readonly count: (text: string, request: R | undefined) => Promise<number>
  /** Reports one request's usage: the line's counters, then `onUsage` (a throw rejects the call). */
  readonly report: (usage: ProviderUsage | undefined, onUsage: ((usage: ProviderUsage) => void) | undefined) => void
}

/** The description of a reply without text. @internal */
export const NO_TEXT = "the model's reply holds no text"

/** The signal and the budget of one call: the smallest of the summarizer's, the request's and the third argument's. @internal */
export const split = (
  third: SummarizeRequest,
  fourth: Request | undefined,
  budget: number
): { readonly signal: AbortSignal | undefined; readonly budget: number } => {
  const own = smaller(budget, fourth?.maxSummaryTokens)
  if (third === undefined) return { signal: undefined, budget: own }
  if (typeof AbortSignal !== "undefined" && third instanceof AbortSignal) return { signal: third, budget: own }
  const r = third as { readonly signal?: AbortSignal; readonly maxSummaryTokens?: number }
  return { signal: r.signal, budget: smaller(own, r.maxSummaryTokens) }
}

/** The instructions (`prompt`, else `SummaryPrompt.instructions`) and the request of one call. @internal */
export const prompts = (
  prompt: string | undefined,
  summary: string,
  messages: ReadonlyArray<MessageFields>,
  max: number,
  request: Request | undefined
): { readonly system: string; readonly user: string } => ({
  system: prompt ?? SummaryPrompt.instructions(max, request?.mode),
  user: SummaryPrompt.request({
    summary,
    transcript: SummaryPrompt.renderTranscript(messages),
    maxTokens: max,
    focus: request?.focus,
    mode: request?.mode
  })
})

/** A reply's text, trimmed, within `max` tokens (cut as a last resort); a blank or missing one rejects. */
const reply = async <R extends Request>(
  text: unknown,
  max: number,
  request: R | undefined,
  line: Line<R>
): Promise<string> => {
  if (typeof text !== "string" || text.trim() === "") throw line.fail(NO_TEXT)
  const fit = fitToBudget(text.trim(), max)
  let step = fit.next()
  while (step.done !== true) step = fit.next(await line.count(step.value, request))
  return step.value
}

/** The SDK's second argument: `{ signal }`, or nothing without a signal. */
const sdkOptions = (signal: AbortSignal | undefined): { signal: AbortSignal } | undefined =>
  signal === undefined ? undefined : { signal }

/** The part of an `openai` client `openAIChatSummarizer` calls. @internal */
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
 * `openAIChatSummarizer` over decoded `options`: `client.chat.completions.create({ model,
 * max_completion_tokens, messages: [system, user] }, { signal })`, the first choice's text.
 *
 * @internal
 */
export const openAIChat = <R extends Request>(
  client: OpenAIChatClient,
  options: ModelOptions,
  line: Line<R>
): Summarize<R> => {
  const budget = options.maxSummaryTokens ?? DEFAULT_SUMMARY_TOKENS
  return async (summary, messages, third, request) => {
    const { budget: max, signal } = split(third, request, budget)
    const { system, user } = prompts(options.prompt, summary, messages, max, request)
    const completion = await client.chat.completions.create({
      model: options.model,
      max_completion_tokens: max,
      messages: [{ role: "system", content: system }, { role: "user", content: user }]
    }, sdkOptions(signal))
    line.report(providerUsage("openai-chat", options.model, completion.usage), options.onUsage)
    return reply(completion.choices[0]?.message.content, max, request, line)
  }
}

/** The part of an `@anthropic-ai/sdk` client `anthropicSummarizer` calls. @internal */
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

/**
 * `anthropicSummarizer` over decoded `options`: `client.messages.create({ model, max_tokens,
 * system, messages: [user] }, { signal })`, the reply's text blocks joined.
 *
 * @internal
 */
export const anthropic = <R extends Request>(
  client: AnthropicClient,
  options: ModelOptions,
  line: Line<R>
): Summarize<R> => {
  const budget = options.maxSummaryTokens ?? DEFAULT_SUMMARY_TOKENS
  return async (summary, messages, third, request) => {
    const { budget: max, signal } = split(third, request, budget)
    const { system, user } = prompts(options.prompt, summary, messages, max, request)
    const answer = await client.messages.create({
      model: options.model,
      max_tokens: max,
      system,
      messages: [{ role: "user", content: user }]
    }, sdkOptions(signal))
    line.report(providerUsage("anthropic", options.model, answer.usage), options.onUsage)
    const text = answer.content.flatMap((b) => b.type === "text" && typeof b.text === "string" ? [b.text] : []).join("")
    return reply(text, max, request, line)
  }
}

/** The model `aiSdkSummarizer` calls: an AI SDK `LanguageModel` or a gateway model id. @internal */
export type AiSdkModel = string | {
  readonly specificationVersion: string
  readonly provider: string
  readonly modelId: string
}

/** The options of {@link aiSdk}. @internal */
export interface AiSdkOptions extends CommonOptions {
  readonly model: AiSdkModel
  readonly maxRetries?: number | undefined
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

/** The description of a call without the `ai` package installed. @internal */
export const AI_MISSING = "aiSdkSummarizer needs the AI SDK, an optional peer: npm i ai@6"

/**
 * `import(specifier)` out of a bundler's sight (a computed specifier, marked
 * for webpack and Vite), as the store's optional peers are loaded: bundling
 * `rollmem/adapters` without `ai` installed succeeds.
 */
const load = (specifier: string): Promise<unknown> => import(/* webpackIgnore: true */ /* @vite-ignore */ specifier)

let ai: Promise<AiModule> | undefined

/** The `ai` package, loaded on the first call; a failed load is retried on the next (the peer may be installed since). */
const loadAi = (fail: Line<Request>["fail"]): Promise<AiModule> => {
  if (ai === undefined) {
    const loading = load("ai").then((module) => {
      const m = module as Partial<AiModule>
      if (typeof m.generateText !== "function") throw new Error("the module `ai` has no generateText")
      return m as AiModule
    })
    ai = loading
    loading.catch(() => {
      if (ai === loading) ai = undefined
    })
  }
  return ai.catch((cause: unknown) => {
    throw fail(AI_MISSING, cause)
  })
}

/**
 * `aiSdkSummarizer` over decoded `options`: `generateText({ model, system, prompt,
 * maxOutputTokens, abortSignal?, maxRetries? })` of the `ai` package, its `text`.
 *
 * @internal
 */
export const aiSdk = <R extends Request>(options: AiSdkOptions, line: Line<R>): Summarize<R> => {
  const model = options.model
  const budget = options.maxSummaryTokens ?? DEFAULT_SUMMARY_TOKENS
  const name = typeof model === "string" ? model : typeof model.modelId === "string" ? model.modelId : undefined
  const retries = options.maxRetries
  return async (summary, messages, third, request) => {
    const { budget: max, signal } = split(third, request, budget)
    const { generateText } = await loadAi(line.fail)
    const { system, user } = prompts(options.prompt, summary, messages, max, request)
    const result = await generateText({
      model,
      system,
      prompt: user,
      maxOutputTokens: max,
      ...(signal === undefined ? {} : { abortSignal: signal }),
      ...(retries === undefined ? {} : { maxRetries: retries })
    })
    line.report(providerUsage("ai-sdk", name, result.usage), options.onUsage)
    return reply(result.text, max, request, line)
  }
}
