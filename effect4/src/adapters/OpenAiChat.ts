/**
 * OpenAI Chat Completions messages (`messages` of `chat.completions.create`)
 * to rollmem messages and back, on the Effect 4 line: the conversions are
 * `core/formats/openAiChat.ts`'s, shared with the Effect 3 line, and this
 * module declares the messages' Schema in Effect 4's.
 *
 * | OpenAI message | rollmem message |
 * |---|---|
 * | `system`, `developer`, `user`, `assistant` | the same role; `content` is the string, or the text parts joined with `"\n"` |
 * | `assistant` with `tool_calls` | `toolCalls`: `{ id, name: function.name, arguments: function.arguments }` (a `custom` call: `arguments` = its `input`) |
 * | `assistant` with a legacy `function_call` | one tool call with the made-up id `"function_call:<index>"` |
 * | `tool` | role `tool`, `toolCallId` = `tool_call_id` |
 * | legacy `function` | role `function`, `toolCallId` = the made-up id of the oldest unanswered legacy call of that name |
 *
 * Writing gives `{ role, content }` for `system`, `developer`, `user` and
 * `assistant`; a message with tool calls gives an `assistant` message with
 * `content: null` when its content is empty and `tool_calls`; a message with
 * a tool call id gives a `tool` message. Any other role fails with
 * `AdapterError`. What a rollmem message has no field for (image, audio and
 * file parts, a refusal, `name`, `audio`, `annotations`, a legacy
 * `function_call`, a custom tool call, a key added since) is kept under the
 * metadata key `"rollmem.provider"` and restored by {@link encode} while the
 * message is unchanged.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message } from "rollmem"
 * import { OpenAiChat } from "rollmem/adapters"
 *
 * Effect.runSync(OpenAiChat.encode([Message.user("Weather in Rome?")])) // [{ role: "user", content: "Weather in Rome?" }]
 * ```
 *
 * @since 1.0.0
 */
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Core from "../../../src/core/formats/openAiChat.js"
import type * as Message from "../schema/Message.js"
import type { AdapterError, CheckOptions, DecodeOptions } from "./AdapterError.js"
import * as engine from "./internal/engine.js"
import { Arr, type Format, JsonRecord, JsonSchema, type Open, Opt } from "./internal/engine.js"

const TextPart = Schema.Struct({ type: Schema.Literal("text"), text: Schema.String })
const RefusalPart = Schema.Struct({ type: Schema.Literal("refusal"), refusal: Schema.String })
const ImagePart = Schema.Struct({
  type: Schema.Literal("image_url"),
  image_url: Schema.Struct({ url: Schema.String, detail: Opt(Schema.Literals(["auto", "low", "high"])) })
})
const AudioPart = Schema.Struct({
  type: Schema.Literal("input_audio"),
  input_audio: Schema.Struct({ data: Schema.String, format: Schema.Literals(["wav", "mp3"]) })
})
const FilePart = Schema.Struct({
  type: Schema.Literal("file"),
  file: Schema.Struct({ file_data: Opt(Schema.String), file_id: Opt(Schema.String), filename: Opt(Schema.String) })
})
const FunctionToolCall = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("function"),
  function: Schema.Struct({ name: Schema.String, arguments: Schema.String })
})
const CustomToolCall = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("custom"),
  custom: Schema.Struct({ name: Schema.String, input: Schema.String })
})

const Name = Opt(Schema.String)
const TextContent = Schema.Union([Schema.String, Arr(TextPart)])

const ROLES = ["system", "developer", "user", "assistant", "tool", "function"] as const

/** The message Schema with its unions of parts opened (lenient) or not (strict). */
const chatMessage = (open: Open) =>
  Schema.Union([
    Schema.Struct({ role: Schema.Literal("system"), content: TextContent, name: Name }),
    Schema.Struct({ role: Schema.Literal("developer"), content: TextContent, name: Name }),
    Schema.Struct({
      role: Schema.Literal("user"),
      content: Schema.Union([
        Schema.String,
        Arr(open([TextPart, ImagePart, AudioPart, FilePart], ["text", "image_url", "input_audio", "file"]))
      ]),
      name: Name
    }),
    Schema.Struct({
      role: Schema.Literal("assistant"),
      content: Opt(
        Schema.NullOr(Schema.Union([Schema.String, Arr(open([TextPart, RefusalPart], ["text", "refusal"]))]))
      ),
      refusal: Opt(Schema.NullOr(Schema.String)),
      name: Name,
      audio: Opt(Schema.NullOr(Schema.StructWithRest(Schema.Struct({ id: Schema.String }), [JsonRecord]))),
      tool_calls: Opt(Arr(Schema.Union([FunctionToolCall, CustomToolCall]))),
      function_call: Opt(Schema.NullOr(Schema.Struct({ name: Schema.String, arguments: Schema.String }))),
      annotations: Opt(Arr(JsonSchema))
    }),
    Schema.Struct({ role: Schema.Literal("tool"), content: TextContent, tool_call_id: Schema.String }),
    Schema.Struct({ role: Schema.Literal("function"), content: Schema.NullOr(Schema.String), name: Schema.String })
  ]).annotate({ identifier: "ChatCompletionMessageParam" })

/**
 * One Chat Completions message, as the SDK's `ChatCompletionMessageParam`
 * (also accepting a response's `ChatCompletionMessage`, with `annotations`
 * and `audio`): the strict reader's Schema (no unknown part type; unknown
 * keys are refused when decoding with `onExcessProperty: "error"`, as
 * `decode` does with `{ strict: true }`).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { OpenAiChat } from "rollmem/adapters"
 *
 * Schema.is(OpenAiChat.ChatMessage)({ role: "user", content: "hi" }) // true
 * ```
 *
 * @since 1.0.0
 * @category schemas
 */
export const ChatMessage = chatMessage(engine.closed)

/**
 * One Chat Completions message (assignable to the SDK's `ChatCompletionMessageParam`).
 *
 * @since 1.0.0
 * @category models
 */
export type ChatMessage = typeof ChatMessage.Type

/** @internal */
export const format: Format<ChatMessage> = {
  ...Core.format,
  item: (open) => chatMessage(open) as Schema.Codec<ChatMessage, unknown>,
  tag: { key: "role", values: ROLES }
}

/**
 * Options of {@link encode}: `check`, `provider`, `arrange` (see `CheckOptions`).
 *
 * @since 1.0.0
 * @category models
 */
export type EncodeOptions = CheckOptions

/** {@link decode} as a `Result`. @internal */
export const decodeResult = (input: unknown, options?: DecodeOptions) => engine.decode(format, input, options)

/** {@link encode} as a `Result`. @internal */
export const encodeResult = (messages: ReadonlyArray<Message.Message>, options?: EncodeOptions) =>
  engine.encodeChecked(format, messages, "openai", options)

/**
 * Reads Chat Completions messages (any JSON input, checked) into rollmem
 * messages, one per message. A key or part type it does not model is kept
 * verbatim (see `DecodeOptions`; `{ strict: true }` refuses it). Fails with
 * `AdapterError` naming the path of an unknown role or of a known field of
 * the wrong type.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { OpenAiChat } from "rollmem/adapters"
 *
 * const messages = OpenAiChat.decode([{ role: "user", content: "Weather in Rome?" }]) // Effect<Message[], AdapterError>
 * const refused = Effect.runSyncExit(OpenAiChat.decode([{ role: "moderator", content: "hi" }])) // AdapterError naming [0].role
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
 * Writes rollmem messages (a memory's `messages`) as Chat Completions
 * messages, restoring what {@link decode} kept. Fails with `AdapterError`
 * for a role OpenAI chat has no place for, or a context OpenAI refuses.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message } from "rollmem"
 * import { OpenAiChat } from "rollmem/adapters"
 *
 * Effect.runSync(OpenAiChat.encode([Message.user("Weather in Rome?")])) // [{ role: "user", content: "Weather in Rome?" }]
 * ```
 *
 * @since 1.0.0
 * @category constructors
 */
export const encode = (
  messages: ReadonlyArray<Message.Message>,
  options?: EncodeOptions
): Effect.Effect<Array<ChatMessage>, AdapterError> => engine.suspended(() => encodeResult(messages, options))
