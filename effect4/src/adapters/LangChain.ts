/**
 * LangChain's stored-message JSON (`{ type, data }`, as written by
 * `mapChatMessagesToStoredMessages` in LangChain.js and `messages_to_dict`
 * in Python) and LangChain message instances to rollmem messages and back,
 * on the Effect 4 line: the conversions are `core/formats/langChain.ts`'s,
 * shared with the Effect 3 line, and this module declares the stored
 * message's Schema in Effect 4's.
 *
 * | LangChain `type` | rollmem role |
 * |---|---|
 * | `human` | `user` |
 * | `ai` | `assistant`; `data.tool_calls` as tool calls (`arguments` = `JSON.stringify(args)`; a call without id gets the made-up id `"langchain:<index>:<call>"`) |
 * | `system` | `system` |
 * | `tool` | `tool`, `toolCallId` = `data.tool_call_id` |
 * | `function` | `function` |
 * | `chat`, `generic` (LangChain.js's `ChatMessage`) | `data.role` |
 *
 * The content is `data.content`, or its text blocks joined with `"\n"`.
 * Writing gives `{ type, data: { content } }` plus `tool_calls` (`{ name,
 * args, id, type: "tool_call" }`), `tool_call_id`, and `role` for a `chat`
 * message (any role other than `user`, `assistant`, `system`, `tool`,
 * `function`). Everything else LangChain stores (`additional_kwargs`,
 * `response_metadata`, `usage_metadata`, `name`, `id`, `invalid_tool_calls`,
 * non-text content blocks, a key added since) is kept under the metadata key
 * `"rollmem.provider"` and restored by {@link encode} while the message is
 * unchanged. Instances are written by {@link encodeInstances}, which loads
 * `@langchain/core` (an optional peer) on its first call only.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message } from "rollmem"
 * import { LangChain } from "rollmem/adapters"
 *
 * Effect.runSync(LangChain.encode([Message.user("hi")])) // [{ type: "human", data: { content: "hi" } }]
 * ```
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Core from "../../../src/core/formats/langChain.js"
import type * as Message from "../schema/Message.js"
import { AdapterError, type DecodeOptions } from "./AdapterError.js"
import * as engine from "./internal/engine.js"
import { Arr, type Format, JsonRecord, JsonSchema, Opt } from "./internal/engine.js"

const OptionalNullString = Opt(Schema.NullOr(Schema.String))

const ToolCall = Schema.Struct({
  name: Schema.String,
  args: JsonRecord,
  id: OptionalNullString,
  type: Opt(Schema.Literal("tool_call"))
})

const Data = Schema.Struct({
  content: Schema.Union([Schema.String, Arr(JsonRecord)]),
  role: OptionalNullString,
  name: OptionalNullString,
  id: OptionalNullString,
  tool_call_id: OptionalNullString,
  tool_calls: Opt(Arr(ToolCall)),
  invalid_tool_calls: Opt(Arr(JsonRecord)),
  additional_kwargs: Opt(JsonRecord),
  response_metadata: Opt(JsonRecord),
  usage_metadata: Opt(Schema.NullOr(JsonRecord)),
  example: Opt(Schema.Boolean),
  type: Opt(Schema.String),
  status: Opt(Schema.String),
  artifact: Opt(JsonSchema)
})

/**
 * One stored LangChain message: `{ type, data }`. Reading also takes unknown
 * keys (kept verbatim) unless `strict`; an unknown `type` is refused.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { LangChain } from "rollmem/adapters"
 *
 * Schema.is(LangChain.StoredMessage)({ type: "ai", data: { content: "18C and sunny." } }) // true
 * ```
 *
 * @since 1.0.0
 * @category schemas
 */
export const StoredMessage = Schema.Struct({
  type: Schema.Literals(Core.TYPES),
  data: Data
}).annotate({ identifier: "StoredMessage" })

/**
 * One stored LangChain message.
 *
 * @since 1.0.0
 * @category models
 */
export type StoredMessage = typeof StoredMessage.Type

/** @internal */
export const format: Format<StoredMessage> = {
  ...Core.format,
  item: () => StoredMessage as Schema.Codec<StoredMessage, unknown>,
  tag: { key: "type", values: Core.TYPES }
}

/**
 * What reading takes of a LangChain message instance (`HumanMessage`,
 * `AIMessage`, ... of `@langchain/core`): its stored form, `toDict()`.
 * A `BaseMessage` of `@langchain/core` 0.3 or 1 is one.
 *
 * @since 1.0.0
 * @category models
 */
export type Instance = Core.Instance

/** {@link decode} as a `Result`. @internal */
export const decodeResult = (
  input: unknown,
  options?: DecodeOptions
): Result.Result<Array<Message.Message>, AdapterError> => engine.decode(format, Core.stored(input), options)

/** {@link encode} as a `Result`. @internal */
export const encodeResult = (
  messages: ReadonlyArray<Message.Message>
): Result.Result<Array<StoredMessage>, AdapterError> => {
  const refused = engine.notMessages(format.name, messages)
  return refused === undefined ? engine.encode(format, messages) : Result.fail(refused)
}

/**
 * Reads LangChain messages into rollmem messages: message instances
 * (`HumanMessage`, `AIMessage`, `ToolMessage`, ..., read by their
 * `toDict()`) or their stored form `{ type, data }` (any JSON input,
 * checked). A key it does not model is kept verbatim (see `DecodeOptions`;
 * `{ strict: true }` refuses it). Fails with `AdapterError` naming the path
 * of an unknown `type` or of a known field of the wrong type.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { LangChain } from "rollmem/adapters"
 *
 * const messages = Effect.runSync(LangChain.decode([{ type: "human", data: { content: "hi" } }]))
 * messages.map(String) // ["user: hi"]
 * ```
 *
 * @since 1.0.0
 * @category constructors
 */
export const decode = (
  input: unknown,
  options?: DecodeOptions
): Effect.Effect<Array<Message.Message>, AdapterError> => engine.suspended(() => decodeResult(input, options))

/**
 * Writes rollmem messages as stored LangChain messages, restoring what
 * {@link decode} kept. Fails with `AdapterError` for tool call arguments
 * that are not a JSON object.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message } from "rollmem"
 * import { LangChain } from "rollmem/adapters"
 *
 * const stored = Effect.runSync(LangChain.encode([Message.user("hi")]))
 * stored[0].type // "human"
 * ```
 *
 * @since 1.0.0
 * @category constructors
 */
export const encode = (messages: ReadonlyArray<Message.Message>): Effect.Effect<Array<StoredMessage>, AdapterError> =>
  engine.suspended(() => encodeResult(messages))

/**
 * Writes rollmem messages as LangChain message instances (`HumanMessage`,
 * `AIMessage` with its `tool_calls`, `ToolMessage`, `SystemMessage`,
 * `ChatMessage` for another role), for a LangChain model's `invoke` or a
 * LangGraph state: {@link encode}'s stored messages revived by
 * `mapStoredMessagesToChatMessages` of `@langchain/core` (an optional peer,
 * loaded on the first call by a computed specifier, never when
 * `rollmem/adapters` is imported). What {@link decode} kept is restored, so
 * instances read and written back are equal (`toDict()`). The instances are
 * typed by their `toDict()` ({@link Instance}); name `BaseMessage` as `M` to
 * get them as LangChain types them. Fails with `AdapterError` for tool call
 * arguments that are not a JSON object, and when `@langchain/core` is not
 * installed (naming `npm i @langchain/core`; the next call tries again).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message } from "rollmem"
 * import { LangChain } from "rollmem/adapters"
 *
 * const instances = await Effect.runPromise(LangChain.encodeInstances([Message.user("Weather in Rome?")]))
 * instances[0].toDict().type // "human": a HumanMessage
 * ```
 *
 * @since 1.0.0
 * @category constructors
 */
export const encodeInstances = <M extends Instance = Instance>(
  messages: ReadonlyArray<Message.Message>
): Effect.Effect<Array<M>, AdapterError> =>
  Effect.flatMap(encode(messages), (storedMessages) =>
    Effect.tryPromise({
      try: () => Core.loadMessages(),
      catch: (cause) => new AdapterError({ format: format.name, description: Core.NEEDS_CORE, cause })
    }).pipe(Effect.map((m) => Core.instances(m, storedMessages) as Array<M>)))
