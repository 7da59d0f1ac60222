/**
 * rollmem's provider adapters (`rollmem/adapters`): a memory's messages to
 * the request shape of a provider's SDK, and that provider's messages back
 * into rollmem messages, with one call each way. The runtime needs none of
 * the SDKs (their types are matched structurally and checked by tests).
 *
 * | provider | to the provider | from the provider | Effect API |
 * |---|---|---|---|
 * | OpenAI Chat Completions | {@link toOpenAIChat} | {@link fromOpenAIChat} | {@link OpenAiChat} |
 * | OpenAI Responses | {@link toOpenAIResponses} | {@link fromOpenAIResponses} | {@link OpenAiResponses} |
 * | Anthropic Messages | {@link toAnthropic} | {@link fromAnthropic} | {@link Anthropic} |
 * | AI SDK `ModelMessage` | {@link toAiSdk} | {@link fromAiSdk} | {@link AiSdk} |
 * | AI SDK `UIMessage` (`useChat`) | {@link toUIMessages} | {@link fromUIMessages} | {@link UiMessages} |
 * | Gemini `contents` | {@link toGemini} | {@link fromGemini} | {@link Gemini} |
 * | LangChain messages | {@link toLangChain} (stored), {@link toLangChainMessages} (instances) | {@link fromLangChain} (both) | {@link LangChain} |
 *
 * The plain functions throw {@link AdapterError}; the Effect API's `decode`
 * and `encode` fail with it. (`@effect/ai`'s `Prompt` is in `rollmem/ai`.)
 *
 * **Forward-compatible.** Each `from…` keeps a key, part type or item type
 * it does not model (a field a provider added since) verbatim under
 * {@link METADATA_KEY}, so the same provider's `to…` writes it back, and
 * refuses only what it cannot place: an unknown role, a malformed known
 * field, naming the path. `{ strict: true }` ({@link DecodeOptions})
 * refuses every key and type the adapter does not model. Another library's
 * shape (an AI SDK `UIMessage`, a LangChain object) is refused naming the
 * reader that takes it.
 *
 * **Provider compaction.** An Anthropic `compaction` block and an OpenAI
 * Responses `compaction` item are read and kept verbatim;
 * {@link fromProviderHistory} turns a history holding one into a memory
 * state (everything before it folded), whose version 3 `compaction` reads
 * back before the summary and is written back verbatim by its provider's
 * `to…`.
 *
 * Ready summarizers for the Promise facade over your own client:
 * {@link openAIChatSummarizer} and {@link anthropicSummarizer}; over the AI
 * SDK's `generateText` (the optional peer `ai`, loaded on the first call):
 * {@link aiSdkSummarizer}; compacting ones over the provider's own
 * compaction, whose item the memory keeps: {@link anthropicCompactionSummarizer},
 * {@link openAIResponsesCompactSummarizer}.
 *
 * **Nothing is lost.** What a rollmem message has no field for (image, file,
 * audio and document parts, reasoning and thinking, cache-control marks,
 * provider options, a refusal, a legacy field, a message boundary) is kept
 * in the message's metadata under one key, {@link METADATA_KEY}
 * (`"rollmem.provider"`): `{ format, items, messages, tokens? }`, the
 * provider's original items and how many consecutive messages they became.
 * The same provider's `to…` writes those items back verbatim while the
 * messages they became are unchanged (role, content, tool calls, tool call
 * id); a message changed since (a cleared tool result) is written from its
 * fields. So `from… → memory → JSON → memory → to…` gives back what came in.
 * Plain messages carry no such key.
 *
 * **Tokens.** Text parts are the message's content and are counted as text.
 * The other parts are not in the content; their estimate is recorded as
 * `tokens` in the key: {@link MEDIA_TOKENS} (1,000) per image, file, audio
 * or document part, and one token per 4 characters of reasoning, thinking or
 * refusal text.
 *
 * **Checked.** Every `to…` but LangChain's refuses (`AdapterError` with the
 * `Validity` violations) a context the provider would reject: a tool result
 * that does not follow its call, a call without its results; for Anthropic
 * and Gemini, also a first turn that is not a user turn. Pass `{ check:
 * false }` to write such messages anyway.
 *
 * @example
 * ```ts
 * import OpenAI from "openai"
 * import { AsyncRollingMemory } from "rollmem/promise"
 * import { fromOpenAIChat, toOpenAIChat } from "rollmem/adapters"
 *
 * const client = new OpenAI()
 * const memory = new AsyncRollingMemory({ maxTokens: 4000, summarize: "drop" })
 * await memory.addUserMessage("Book me a flight to Rome")
 * const completion = await client.chat.completions.create({ model: "gpt-4o-mini", messages: toOpenAIChat(memory.getMessages()) })
 * await memory.addMessages(fromOpenAIChat([completion.choices[0].message]))
 * ```
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { AdapterError, type Arrange, type CheckOptions, type DecodeOptions } from "./adapters/AdapterError.js"
import * as AiSdk from "./adapters/AiSdk.js"
import * as Anthropic from "./adapters/Anthropic.js"
import { compactionOf, fromProviderHistory } from "./adapters/Compaction.js"
import * as ConversationSearch from "./adapters/ConversationSearch.js"
import * as Gemini from "./adapters/Gemini.js"
import * as engine from "./adapters/internal/engine.js"
import * as LangChain from "./adapters/LangChain.js"
import * as OpenAiChat from "./adapters/OpenAiChat.js"
import * as OpenAiResponses from "./adapters/OpenAiResponses.js"
import {
  aiSdkSummarizer,
  type AiSdkSummarizerOptions,
  type AnthropicClient,
  type AnthropicCompactionClient,
  anthropicCompactionSummarizer,
  anthropicSummarizer,
  type CompactionSummarizerOptions,
  type OpenAIChatClient,
  openAIChatSummarizer,
  type OpenAIResponsesCompactClient,
  openAIResponsesCompactSummarizer,
  type PromiseCompact,
  type PromiseSummarize,
  type SummarizeRequest,
  type SummarizerOptions
} from "./adapters/Summarizers.js"
import * as UiMessages from "./adapters/UiMessages.js"
import type * as Message from "./schema/Message.js"

export {
  /** @since 0.2.0 */
  AdapterError,
  /** @since 0.2.0 */
  AiSdk,
  /** @since 0.4.0 */
  aiSdkSummarizer,
  /** @since 0.4.0 */
  type AiSdkSummarizerOptions,
  /** @since 0.2.0 */
  Anthropic,
  /** @since 0.2.0 */
  type AnthropicClient,
  /** @since 0.4.0 */
  type AnthropicCompactionClient,
  /** @since 0.4.0 */
  anthropicCompactionSummarizer,
  /** @since 0.2.0 */
  anthropicSummarizer,
  /** @since 0.4.0 */
  type Arrange,
  /** @since 0.2.0 */
  type CheckOptions,
  /** @since 0.4.0 */
  compactionOf,
  /** @since 0.4.0 */
  type CompactionSummarizerOptions,
  /** The `conversation_search` tool in each provider's format (contract 17.1). @since 0.4.0 */
  ConversationSearch,
  /** @since 0.2.0 */
  type DecodeOptions,
  /** @since 0.4.0 */
  fromProviderHistory,
  /** @since 0.2.0 */
  Gemini,
  /** @since 0.2.0 */
  LangChain,
  /** @since 0.2.0 */
  OpenAiChat,
  /** @since 0.2.0 */
  type OpenAIChatClient,
  /** @since 0.2.0 */
  openAIChatSummarizer,
  /** @since 0.2.0 */
  OpenAiResponses,
  /** @since 0.4.0 */
  type OpenAIResponsesCompactClient,
  /** @since 0.4.0 */
  openAIResponsesCompactSummarizer,
  /** @since 0.4.0 */
  type PromiseCompact,
  /** @since 0.2.0 */
  type PromiseSummarize,
  /** @since 0.2.0 */
  type SummarizeRequest,
  /** @since 0.2.0 */
  type SummarizerOptions,
  /** @since 0.4.0 */
  UiMessages
}

/**
 * The metadata key under which a message keeps the provider items rollmem
 * has no field for: `"rollmem.provider"`. Its value is `{ format, items,
 * messages, tokens? }` (see the module docs).
 *
 * @example
 * ```ts
 * import { fromAnthropic, METADATA_KEY } from "rollmem/adapters"
 *
 * const [turn] = fromAnthropic({
 *   messages: [{ role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }] }]
 * })
 * turn.metadata?.[METADATA_KEY] !== undefined // true: the block with its cache mark, kept for toAnthropic
 * ```
 *
 * @since 0.2.0
 * @category constants
 */
export const METADATA_KEY: "rollmem.provider" = engine.METADATA_KEY as "rollmem.provider"

/**
 * The tokens estimated for one part that is not text (an image, a file, an
 * audio clip, a document): 1,000.
 *
 * @example
 * ```ts
 * import { MEDIA_TOKENS } from "rollmem/adapters"
 *
 * MEDIA_TOKENS // what an image or a file part counts for in a message's tokens
 * ```
 *
 * @since 0.2.0
 * @category constants
 */
export const MEDIA_TOKENS: number = engine.MEDIA_TOKENS

// The adapters' effects never suspend: run one at once and throw its AdapterError.
const orThrow = <A>(effect: Effect.Effect<A, AdapterError>): A => {
  const result = Effect.runSync(Effect.either(effect))
  if (Either.isLeft(result)) throw result.left
  return result.right
}

/**
 * OpenAI Chat Completions messages to rollmem messages (see {@link OpenAiChat}).
 * Throws `AdapterError` for what it cannot place
 * (an unknown role, a malformed known field; with `{ strict: true }`, any key
 * or type it does not model).
 *
 * @example
 * ```ts
 * import { fromOpenAIChat } from "rollmem/adapters"
 *
 * const messages = fromOpenAIChat([
 *   { role: "system", content: "You are a travel agent." },
 *   { role: "user", content: "Book me a flight to Rome" }
 * ])
 * messages.map(String) // ["system: You are a travel agent.", "user: Book me a flight to Rome"]
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromOpenAIChat = (messages: unknown, options?: DecodeOptions): Array<Message.Message> =>
  orThrow(OpenAiChat.decode(messages, options))

/**
 * rollmem messages to OpenAI Chat Completions `messages` (see
 * {@link OpenAiChat}). Throws `AdapterError` for a role OpenAI has no place
 * for or a context it refuses.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 * import { toOpenAIChat } from "rollmem/adapters"
 *
 * toOpenAIChat([Message.user("Weather in Rome?")]) // [{ role: "user", content: "Weather in Rome?" }]
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const toOpenAIChat = (
  messages: ReadonlyArray<Message.Message>,
  options?: OpenAiChat.EncodeOptions
): Array<OpenAiChat.ChatMessage> => orThrow(OpenAiChat.encode(messages, options))

/**
 * OpenAI Responses input items (or a response's `output`) to rollmem
 * messages (see {@link OpenAiResponses}). Throws `AdapterError` for what it
 * cannot place (an unknown role, a malformed known field; with `{ strict:
 * true }`, any key or type it does not model).
 *
 * @example
 * ```ts
 * import { fromOpenAIResponses } from "rollmem/adapters"
 *
 * const messages = fromOpenAIResponses([
 *   { role: "user", content: "Weather in Rome?" },
 *   { type: "function_call", call_id: "c1", name: "weather", arguments: "{\"city\":\"Rome\"}" },
 *   { type: "function_call_output", call_id: "c1", output: "18C, sunny" }
 * ])
 * messages.map((m) => m.role) // ["user", "assistant", "tool"]
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromOpenAIResponses = (items: unknown, options?: DecodeOptions): Array<Message.Message> =>
  orThrow(OpenAiResponses.decode(items, options))

/**
 * rollmem messages to OpenAI Responses `input` items (see
 * {@link OpenAiResponses}). Throws `AdapterError` for a role the Responses
 * API has no place for or a context it refuses.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 * import { toOpenAIResponses } from "rollmem/adapters"
 *
 * const input = toOpenAIResponses([Message.user("Weather in Rome?")]) // the Responses API's `input`
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const toOpenAIResponses = (
  messages: ReadonlyArray<Message.Message>,
  options?: OpenAiResponses.EncodeOptions
): Array<OpenAiResponses.InputItem> => orThrow(OpenAiResponses.encode(messages, options))

/**
 * An Anthropic `{ system?, messages }` to rollmem messages (see
 * {@link Anthropic}). Throws `AdapterError` for what it cannot place
 * (an unknown role, a malformed known field; with `{ strict: true }`, any key
 * or type it does not model).
 *
 * @example
 * ```ts
 * import { fromAnthropic } from "rollmem/adapters"
 *
 * const messages = fromAnthropic({
 *   system: "You are a travel agent.",
 *   messages: [{ role: "user", content: "Book me a flight to Rome" }]
 * })
 * messages.map(String) // ["system: You are a travel agent.", "user: Book me a flight to Rome"]
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromAnthropic = (request: unknown, options?: DecodeOptions): Array<Message.Message> =>
  orThrow(Anthropic.decode(request, options))

/**
 * rollmem messages to an Anthropic `{ system?, messages }`, to spread into
 * `messages.create` (see {@link Anthropic}; `cacheControl` places
 * prompt-cache breakpoints). Throws `AdapterError` for a context Anthropic
 * refuses.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 * import { toAnthropic } from "rollmem/adapters"
 *
 * toAnthropic([Message.system("You are a travel agent."), Message.user("Hi")])
 * // { system: "You are a travel agent.", messages: [{ role: "user", content: "Hi" }] }
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const toAnthropic = (
  messages: ReadonlyArray<Message.Message>,
  options?: Anthropic.EncodeOptions
): Anthropic.Request => orThrow(Anthropic.encode(messages, options))

/**
 * AI SDK `ModelMessage`s (`response.messages`) to rollmem messages (see
 * {@link AiSdk}). Throws `AdapterError` for what it cannot place
 * (an unknown role, a malformed known field; with `{ strict: true }`, any key
 * or type it does not model).
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
 * @since 0.2.0
 * @category constructors
 */
export const fromAiSdk = (messages: unknown, options?: DecodeOptions): Array<Message.Message> =>
  orThrow(AiSdk.decode(messages, options))

/**
 * rollmem messages to AI SDK `ModelMessage`s (see {@link AiSdk}). Throws
 * `AdapterError` for a role the AI SDK has no place for or a context the
 * provider refuses.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 * import { toAiSdk } from "rollmem/adapters"
 *
 * const messages = toAiSdk([Message.user("Weather in Rome?")]) // ModelMessage[] for generateText / streamText
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const toAiSdk = (
  messages: ReadonlyArray<Message.Message>,
  options?: AiSdk.EncodeOptions
): Array<AiSdk.ModelMessage> => orThrow(AiSdk.encode(messages, options))

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
 * @since 0.4.0
 * @category constructors
 */
export const fromUIMessages = (messages: unknown, options?: DecodeOptions): Array<Message.Message> =>
  orThrow(UiMessages.decode(messages, options))

/**
 * rollmem messages to AI SDK `UIMessage`s (see {@link UiMessages}), for
 * `convertToModelMessages` or a chat UI: one per system or user message, one
 * per assistant turn (its steps, tool parts with their outputs; the last
 * turn's calls still awaiting their results in state `input-available`, as
 * a UI shows a running tool). Throws `AdapterError` for a role a `UIMessage`
 * has no place for, a tool result without its call, or a context the
 * provider refuses (`check`).
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 * import { toUIMessages } from "rollmem/adapters"
 *
 * toUIMessages([Message.user("hi", { id: "m1" })])
 * // [{ id: "m1", role: "user", parts: [{ type: "text", text: "hi" }] }]
 *
 * // a tool still running: shown, not refused
 * toUIMessages([Message.user("hi"), Message.assistant("", { toolCalls: [{ id: "c1", name: "clock", arguments: "{}" }] })])
 * // [..., { id: "rollmem-1", role: "assistant", parts: [{ type: "step-start" },
 * //   { type: "tool-clock", toolCallId: "c1", state: "input-available", input: {} }] }]
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const toUIMessages = (
  messages: ReadonlyArray<Message.Message>,
  options?: UiMessages.EncodeOptions
): Array<UiMessages.UIMessage> => orThrow(UiMessages.encode(messages, options))

/**
 * A Gemini `{ systemInstruction?, contents }` to rollmem messages (see
 * {@link Gemini}). Throws `AdapterError` for what it cannot place
 * (an unknown role, a malformed known field; with `{ strict: true }`, any key
 * or type it does not model).
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
 * @since 0.2.0
 * @category constructors
 */
export const fromGemini = (request: unknown, options?: DecodeOptions): Array<Message.Message> =>
  orThrow(Gemini.decode(request, options))

/**
 * rollmem messages to a Gemini `{ systemInstruction?, contents }` (see
 * {@link Gemini}). Throws `AdapterError` for a context Gemini refuses.
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
 * @since 0.2.0
 * @category constructors
 */
export const toGemini = (
  messages: ReadonlyArray<Message.Message>,
  options?: Gemini.EncodeOptions
): Gemini.Request => orThrow(Gemini.encode(messages, options))

/**
 * LangChain messages to rollmem messages (see {@link LangChain}): message
 * instances (`HumanMessage`, `AIMessage`, ..., read by their `toDict()`) or
 * their stored form (`{ type, data }`). Throws `AdapterError` for what it cannot place
 * (an unknown role, a malformed known field; with `{ strict: true }`, any key
 * or type it does not model).
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
 * @since 0.2.0
 * @category constructors
 */
export const fromLangChain = (messages: unknown, options?: DecodeOptions): Array<Message.Message> =>
  orThrow(LangChain.decode(messages, options))

/**
 * rollmem messages to LangChain message instances (`HumanMessage`,
 * `AIMessage`, `ToolMessage`, ...; see {@link LangChain.encodeInstances}),
 * loading the optional peer `@langchain/core` on the first call. Rejects
 * with `AdapterError` when it is not installed or for tool call arguments
 * that are not a JSON object. Name `BaseMessage` as `M` to get the
 * instances as LangChain types them.
 *
 * @example
 * ```ts
 * import type { BaseMessage } from "@langchain/core/messages"
 * import { Message } from "rollmem"
 * import { fromLangChain, toLangChainMessages } from "rollmem/adapters"
 *
 * const instances = await toLangChainMessages<BaseMessage>([Message.user("Weather in Rome?")])
 * fromLangChain(instances) // [Message { role: "user", content: "Weather in Rome?" }]
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const toLangChainMessages = <M extends LangChain.Instance = LangChain.Instance>(
  messages: ReadonlyArray<Message.Message>
): Promise<Array<M>> =>
  Effect.runPromise(Effect.either(LangChain.encodeInstances<M>(messages))).then((result) => {
    if (Either.isLeft(result)) throw result.left
    return result.right
  })

/**
 * rollmem messages to stored LangChain messages (see {@link LangChain}).
 * Throws `AdapterError` for tool call arguments that are not a JSON object.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 * import { toLangChain } from "rollmem/adapters"
 *
 * // for mapStoredMessagesToChatMessages
 * const stored = toLangChain([Message.user("Weather in Rome?")])
 * stored[0].type // "human"
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const toLangChain = (messages: ReadonlyArray<Message.Message>): Array<LangChain.StoredMessage> =>
  orThrow(LangChain.encode(messages))
