/**
 * `rollmem/adapters` on the Effect 4 line: the provider message formats and
 * the `conversation_search` tool, from the same pure code as the Effect 3
 * line's (`src/core/`: one copy of every conversion, docs/contract.md
 * section 15). So far:
 *
 * | provider | to the provider | from the provider | Effect API |
 * |---|---|---|---|
 * | OpenAI Chat Completions | {@link toOpenAIChat} | {@link fromOpenAIChat} | {@link OpenAiChat} |
 * | OpenAI Responses | {@link toOpenAIResponses} | {@link fromOpenAIResponses} | {@link OpenAiResponses} |
 * | Anthropic Messages | {@link toAnthropic} | {@link fromAnthropic} | {@link Anthropic} |
 * | Gemini `contents` | {@link toGemini} | {@link fromGemini} | {@link Gemini} |
 * | AI SDK `ModelMessage` | {@link toAiSdk} | {@link fromAiSdk} | {@link AiSdk} |
 * | AI SDK `UIMessage` (`useChat`) | {@link toUIMessages} | {@link fromUIMessages} | {@link UiMessages} |
 * | LangChain messages | {@link toLangChain} (stored), {@link toLangChainMessages} (instances) | {@link fromLangChain} (both) | {@link LangChain} |
 *
 * The plain functions throw {@link AdapterError}; the Effect API's `decode`
 * and `encode` fail with it. Each `from…` keeps a key or part type it does
 * not model verbatim under {@link METADATA_KEY} (`{ strict: true }` refuses
 * it), and the same provider's `to…` writes it back while the message is
 * unchanged; every `to…` refuses a context the provider would reject
 * (`{ check: false }` writes it anyway); LangChain's writing checks nothing,
 * as on the Effect 3 line. {@link fromProviderHistory} turns a history
 * holding a provider's compaction item (Anthropic block, OpenAI Responses
 * item) into a memory state, everything before it folded.
 *
 * Ready summarizers for the Promise facade (or `Summarizer.fromPromise`)
 * over your own client, as on the Effect 3 line: {@link openAIChatSummarizer}
 * and {@link anthropicSummarizer}; over the AI SDK's `generateText` (the
 * optional peer `ai`, loaded on the first call): {@link aiSdkSummarizer}.
 *
 * @example
 * ```ts
 * import { fromOpenAIChat, toOpenAIChat } from "rollmem/adapters"
 * import { AsyncRollingMemory } from "rollmem/promise"
 *
 * const memory = new AsyncRollingMemory({ maxTokens: 4000, summarize: "drop" })
 * await memory.addMessages(fromOpenAIChat([{ role: "user", content: "Weather in Rome?" }]))
 * toOpenAIChat(memory.getMessages()) // [{ role: "user", content: "Weather in Rome?" }]
 * ```
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Core from "../../src/core/formats/engine.js"
import { AdapterError, type Arrange, type CheckOptions, type DecodeOptions } from "./adapters/AdapterError.js"
import * as AiSdk from "./adapters/AiSdk.js"
import * as Anthropic from "./adapters/Anthropic.js"
import { compactionOf, fromProviderHistory } from "./adapters/Compaction.js"
import * as Gemini from "./adapters/Gemini.js"
import { orThrow } from "./adapters/internal/engine.js"
import * as LangChain from "./adapters/LangChain.js"
import * as OpenAiChat from "./adapters/OpenAiChat.js"
import * as OpenAiResponses from "./adapters/OpenAiResponses.js"
import {
  aiSdkSummarizer,
  type AiSdkSummarizerOptions,
  type AnthropicClient,
  anthropicSummarizer,
  type OpenAIChatClient,
  openAIChatSummarizer,
  type PromiseSummarize,
  type SummarizeRequest,
  type SummarizerOptions
} from "./adapters/Summarizers.js"
import * as UiMessages from "./adapters/UiMessages.js"
import type * as Message from "./schema/Message.js"

/**
 * The `conversation_search` tool (docs/contract.md section 17.1): its
 * definition per provider (`openAIChatTool`, `openAIResponsesTool`,
 * `anthropicTool`, `aiSdkTool`) and the handlers that answer the model's
 * call from any memory with `recall`, within a token budget.
 *
 * @example
 * ```ts
 * import { ConversationSearch } from "rollmem/adapters"
 *
 * ConversationSearch.NAME // "conversation_search"
 * ```
 *
 * @since 1.0.0
 */
export * as ConversationSearch from "../../src/core/searchTools.js"

export {
  /** @since 1.0.0 */
  AdapterError,
  /** @since 1.0.0 */
  AiSdk,
  /** @since 1.0.0 */
  aiSdkSummarizer,
  /** @since 1.0.0 */
  type AiSdkSummarizerOptions,
  /** @since 1.0.0 */
  Anthropic,
  /** @since 1.0.0 */
  type AnthropicClient,
  /** @since 1.0.0 */
  anthropicSummarizer,
  /** @since 1.0.0 */
  type Arrange,
  /** @since 1.0.0 */
  type CheckOptions,
  /** @since 1.0.0 */
  compactionOf,
  /** @since 1.0.0 */
  type DecodeOptions,
  /** @since 1.0.0 */
  fromProviderHistory,
  /** @since 1.0.0 */
  Gemini,
  /** @since 1.0.0 */
  LangChain,
  /** @since 1.0.0 */
  OpenAiChat,
  /** @since 1.0.0 */
  type OpenAIChatClient,
  /** @since 1.0.0 */
  openAIChatSummarizer,
  /** @since 1.0.0 */
  OpenAiResponses,
  /** @since 1.0.0 */
  type PromiseSummarize,
  /** @since 1.0.0 */
  type SummarizeRequest,
  /** @since 1.0.0 */
  type SummarizerOptions,
  /** @since 1.0.0 */
  UiMessages
}

/**
 * The metadata key under which a message keeps the provider items rollmem
 * has no field for: `"rollmem.provider"`. Its value is `{ format, items,
 * messages, tokens? }`: the provider format, the original items, how many
 * consecutive messages they became, and the estimated tokens of the parts
 * that are not text (docs/contract.md section 15).
 *
 * @example
 * ```ts
 * import { fromOpenAIChat, METADATA_KEY } from "rollmem/adapters"
 *
 * const [turn] = fromOpenAIChat([{ role: "user", content: "hi", name: "ada" }])
 * turn.metadata[METADATA_KEY] !== undefined // true: the message with its name, kept for toOpenAIChat
 * ```
 *
 * @since 1.0.0
 * @category constants
 */
export const METADATA_KEY: "rollmem.provider" = Core.METADATA_KEY as "rollmem.provider"

/**
 * The tokens estimated for one part that is not text (an image, a file, an
 * audio clip, a document): 1,000.
 *
 * @example
 * ```ts
 * import { MEDIA_TOKENS } from "rollmem/adapters"
 *
 * MEDIA_TOKENS // 1000: what an image or a file part counts for in a message's tokens
 * ```
 *
 * @since 1.0.0
 * @category constants
 */
export const MEDIA_TOKENS: number = Core.MEDIA_TOKENS

/**
 * OpenAI Chat Completions messages to rollmem messages (see
 * {@link OpenAiChat}). Throws `AdapterError` naming the path of what it
 * cannot read.
 *
 * @example
 * ```ts
 * import { fromOpenAIChat } from "rollmem/adapters"
 *
 * const messages = fromOpenAIChat([
 *   { role: "user", content: "Weather in Rome?" },
 *   { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "weather", arguments: "{}" } }] }
 * ])
 * messages[1].toolCalls[0].name // "weather"
 * ```
 *
 * @since 1.0.0
 * @category conversions
 */
export const fromOpenAIChat = (messages: unknown, options?: DecodeOptions): Array<Message.Message> =>
  orThrow(OpenAiChat.decodeResult(messages, options))

/**
 * Rollmem messages (a memory's `messages`) as OpenAI Chat Completions
 * messages (see {@link OpenAiChat}). Throws `AdapterError` for a role OpenAI
 * has no place for or a context it refuses (`{ check: false }` writes it).
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 * import { toOpenAIChat } from "rollmem/adapters"
 *
 * toOpenAIChat([Message.user("Weather in Rome?")]) // [{ role: "user", content: "Weather in Rome?" }]
 * ```
 *
 * @since 1.0.0
 * @category conversions
 */
export const toOpenAIChat = (
  messages: ReadonlyArray<Message.Message>,
  options?: OpenAiChat.EncodeOptions
): Array<OpenAiChat.ChatMessage> => orThrow(OpenAiChat.encodeResult(messages, options))

/**
 * An Anthropic Messages request's `{ system?, messages }` to rollmem
 * messages (see {@link Anthropic}). Throws `AdapterError` naming the path of
 * what it cannot read (a request key other than `system` and `messages`).
 *
 * @example
 * ```ts
 * import { fromAnthropic } from "rollmem/adapters"
 *
 * fromAnthropic({ system: "Be brief.", messages: [{ role: "user", content: "hi" }] }).map(String)
 * // ["system: Be brief.", "user: hi"]
 * ```
 *
 * @since 1.0.0
 * @category conversions
 */
export const fromAnthropic = (request: unknown, options?: DecodeOptions): Array<Message.Message> =>
  orThrow(Anthropic.decodeResult(request, options))

/**
 * Rollmem messages (a memory's `messages`) as an Anthropic request's
 * `{ system?, messages }` (see {@link Anthropic}): spread it into
 * `messages.create`. Throws `AdapterError` for a system message after the
 * first turn, a role Anthropic has no place for, or a context it refuses.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 * import { toAnthropic } from "rollmem/adapters"
 *
 * toAnthropic([Message.system("Be brief."), Message.user("hi")], { cacheControl: { pinned: 1 } })
 * // { system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }], messages: [...] }
 * ```
 *
 * @since 1.0.0
 * @category conversions
 */
export const toAnthropic = (
  messages: ReadonlyArray<Message.Message>,
  options?: Anthropic.EncodeOptions
): Anthropic.Request => orThrow(Anthropic.encodeResult(messages, options))

/**
 * OpenAI Responses input items (or a response's `output`) to rollmem
 * messages (see {@link OpenAiResponses}). Throws `AdapterError` naming the
 * path of what it cannot read.
 *
 * @example
 * ```ts
 * import { fromOpenAIResponses } from "rollmem/adapters"
 *
 * const messages = fromOpenAIResponses([
 *   { role: "user", content: "Weather in Rome?" },
 *   { type: "function_call", call_id: "c1", name: "weather", arguments: "{}" },
 *   { type: "function_call_output", call_id: "c1", output: "18C" }
 * ])
 * messages.map(String) // ["user: Weather in Rome?", "assistant:  [tool calls: weather({})]", "tool: 18C"]
 * ```
 *
 * @since 1.0.0
 * @category conversions
 */
export const fromOpenAIResponses = (items: unknown, options?: DecodeOptions): Array<Message.Message> =>
  orThrow(OpenAiResponses.decodeResult(items, options))

/**
 * Rollmem messages (a memory's `messages`) as OpenAI Responses input items
 * (the request's `input`, see {@link OpenAiResponses}). Throws
 * `AdapterError` for a role the API has no place for or a context it
 * refuses.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 * import { toOpenAIResponses } from "rollmem/adapters"
 *
 * toOpenAIResponses([Message.user("Weather in Rome?")]) // [{ role: "user", content: "Weather in Rome?" }]
 * ```
 *
 * @since 1.0.0
 * @category conversions
 */
export const toOpenAIResponses = (
  messages: ReadonlyArray<Message.Message>,
  options?: OpenAiResponses.EncodeOptions
): Array<OpenAiResponses.InputItem> => orThrow(OpenAiResponses.encodeResult(messages, options))

/**
 * A Gemini `{ systemInstruction?, contents }` to rollmem messages (see
 * {@link Gemini}). Throws `AdapterError` naming the path of what it cannot
 * read (an unknown role, a malformed known field, a request key other than
 * `systemInstruction` and `contents`; with `{ strict: true }`, any key it
 * does not model).
 *
 * @example
 * ```ts
 * import { fromGemini } from "rollmem/adapters"
 *
 * const messages = fromGemini({
 *   systemInstruction: { parts: [{ text: "You are a travel agent." }] },
 *   contents: [{ role: "user", parts: [{ text: "Book me a flight to Rome" }] }]
 * })
 * messages.map(String) // ["system: You are a travel agent.", "user: Book me a flight to Rome"]
 * ```
 *
 * @since 1.0.0
 * @category conversions
 */
export const fromGemini = (request: unknown, options?: DecodeOptions): Array<Message.Message> =>
  orThrow(Gemini.decodeResult(request, options))

/**
 * Rollmem messages (a memory's `messages`) as a Gemini `{ systemInstruction?,
 * contents }` (see {@link Gemini}): pass `contents` as `contents` and
 * `systemInstruction` in `config`. Throws `AdapterError` for a system
 * message after the first turn, a role Gemini has no place for, tool call
 * arguments that are not a JSON object, or a context Gemini refuses.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 * import { toGemini } from "rollmem/adapters"
 *
 * const { contents, systemInstruction } = toGemini([Message.system("Be brief."), Message.user("Hi")])
 * // contents: [{ role: "user", parts: [{ text: "Hi" }] }], systemInstruction: { parts: [{ text: "Be brief." }] }
 * ```
 *
 * @since 1.0.0
 * @category conversions
 */
export const toGemini = (
  messages: ReadonlyArray<Message.Message>,
  options?: Gemini.EncodeOptions
): Gemini.Request => orThrow(Gemini.encodeResult(messages, options))

/**
 * AI SDK `ModelMessage`s (`generateText`'s `messages`, a result's
 * `response.messages`) to rollmem messages (see {@link AiSdk}). Throws
 * `AdapterError` for what it cannot place (an unknown role, a malformed
 * known field; with `{ strict: true }`, any key or type it does not model).
 *
 * @example
 * ```ts
 * import { fromAiSdk } from "rollmem/adapters"
 *
 * const messages = fromAiSdk([
 *   { role: "user", content: "Weather in Rome?" },
 *   { role: "assistant", content: [{ type: "text", text: "18C and sunny." }] }
 * ])
 * messages.map(String) // ["user: Weather in Rome?", "assistant: 18C and sunny."]
 * ```
 *
 * @since 1.0.0
 * @category conversions
 */
export const fromAiSdk = (messages: unknown, options?: DecodeOptions): Array<Message.Message> =>
  orThrow(AiSdk.decodeResult(messages, options))

/**
 * Rollmem messages (a memory's `messages`) as AI SDK `ModelMessage`s (see
 * {@link AiSdk}), for `generateText` / `streamText`. Throws `AdapterError`
 * for a role the AI SDK has no place for or a context the provider refuses
 * (`{ check: false }` writes it).
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 * import { toAiSdk } from "rollmem/adapters"
 *
 * toAiSdk([Message.user("Weather in Rome?")]) // [{ role: "user", content: "Weather in Rome?" }]
 * ```
 *
 * @since 1.0.0
 * @category conversions
 */
export const toAiSdk = (
  messages: ReadonlyArray<Message.Message>,
  options?: AiSdk.EncodeOptions
): Array<AiSdk.ModelMessage> => orThrow(AiSdk.encodeResult(messages, options))

/**
 * AI SDK `UIMessage`s (what `useChat` sends and applications persist) to
 * rollmem messages (see {@link UiMessages}): per assistant step, the
 * assistant message with its tool calls and a tool message per result; data,
 * reasoning, file and source parts kept verbatim, so {@link toUIMessages}
 * gives them back. Throws `AdapterError` for what it cannot place (an
 * unknown role, a malformed known field; with `{ strict: true }`, any key or
 * type it does not model).
 *
 * @example
 * ```ts
 * import { fromUIMessages } from "rollmem/adapters"
 *
 * fromUIMessages([{ id: "m1", role: "user", parts: [{ type: "text", text: "Weather in Rome?" }] }])
 * // [Message { role: "user", content: "Weather in Rome?", id: "m1" }]
 * ```
 *
 * @since 1.0.0
 * @category conversions
 */
export const fromUIMessages = (messages: unknown, options?: DecodeOptions): Array<Message.Message> =>
  orThrow(UiMessages.decodeResult(messages, options))

/**
 * Rollmem messages (a memory's `messages`) as AI SDK `UIMessage`s (see
 * {@link UiMessages}), for `convertToModelMessages` or a chat UI: one per
 * system or user message, one per assistant turn (its steps, tool parts with
 * their outputs; the last turn's calls still awaiting their results in state
 * `input-available`). Throws `AdapterError` for a role a `UIMessage` has no
 * place for, a tool result without its call, or a context the provider
 * refuses (`check`).
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 * import { toUIMessages } from "rollmem/adapters"
 *
 * toUIMessages([Message.user("hi", { id: "m1" })])
 * // [{ id: "m1", role: "user", parts: [{ type: "text", text: "hi" }] }]
 * ```
 *
 * @since 1.0.0
 * @category conversions
 */
export const toUIMessages = (
  messages: ReadonlyArray<Message.Message>,
  options?: UiMessages.EncodeOptions
): Array<UiMessages.UIMessage> => orThrow(UiMessages.encodeResult(messages, options))

/**
 * LangChain messages to rollmem messages (see {@link LangChain}): message
 * instances (`HumanMessage`, `AIMessage`, ..., read by their `toDict()`) or
 * their stored form (`{ type, data }`). Throws `AdapterError` naming the
 * path of what it cannot read (an unknown `type`, a malformed known field;
 * with `{ strict: true }`, any key it does not model).
 *
 * @example
 * ```ts
 * import { fromLangChain } from "rollmem/adapters"
 *
 * // LangChain's stored form (mapChatMessagesToStoredMessages)
 * const messages = fromLangChain([{ type: "human", data: { content: "Weather in Rome?" } }])
 * messages.map(String) // ["user: Weather in Rome?"]
 * ```
 *
 * @since 1.0.0
 * @category conversions
 */
export const fromLangChain = (messages: unknown, options?: DecodeOptions): Array<Message.Message> =>
  orThrow(LangChain.decodeResult(messages, options))

/**
 * Rollmem messages (a memory's `messages`) as stored LangChain messages (see
 * {@link LangChain}), for `mapStoredMessagesToChatMessages`. Throws
 * `AdapterError` for tool call arguments that are not a JSON object.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 * import { toLangChain } from "rollmem/adapters"
 *
 * const stored = toLangChain([Message.user("Weather in Rome?")])
 * stored[0].type // "human"
 * ```
 *
 * @since 1.0.0
 * @category conversions
 */
export const toLangChain = (messages: ReadonlyArray<Message.Message>): Array<LangChain.StoredMessage> =>
  orThrow(LangChain.encodeResult(messages))

/**
 * Rollmem messages as LangChain message instances (`HumanMessage`,
 * `AIMessage`, `ToolMessage`, ...; see {@link LangChain.encodeInstances}),
 * loading the optional peer `@langchain/core` on the first call (nothing
 * to install unless you call this). Rejects with `AdapterError` when it is
 * not installed or for tool call arguments that are not a JSON object.
 * Name `BaseMessage` as `M` to get the instances as LangChain types them.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 * import { fromLangChain, toLangChainMessages } from "rollmem/adapters"
 *
 * const instances = await toLangChainMessages([Message.user("Weather in Rome?")])
 * fromLangChain(instances).map(String) // ["user: Weather in Rome?"]
 * ```
 *
 * @since 1.0.0
 * @category conversions
 */
export const toLangChainMessages = <M extends LangChain.Instance = LangChain.Instance>(
  messages: ReadonlyArray<Message.Message>
): Promise<Array<M>> =>
  Effect.runPromise(Effect.result(LangChain.encodeInstances<M>(messages))).then((result) => {
    if (Result.isFailure(result)) throw result.failure
    return result.success
  })
