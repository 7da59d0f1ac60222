/**
 * Anthropic Messages requests (`{ system, messages }` of `messages.create`)
 * to rollmem messages and back, on the Effect 4 line: the conversions are
 * `core/formats/anthropic.ts`'s, shared with the Effect 3 line, and this
 * module declares the blocks' Schema in Effect 4's.
 *
 * | Anthropic | rollmem messages |
 * |---|---|
 * | `system` (a string, or text blocks) | one `system` message per block, first |
 * | a message whose `content` is a string | one message, same role |
 * | an `assistant` message with blocks | one `assistant` message: text blocks (and a `compaction` block's `content`) joined with `"\n"`, `tool_use` blocks as tool calls (`arguments` = `JSON.stringify(input)`) |
 * | a `user` message with blocks | one `tool` message per `tool_result` block (`toolCallId` = `tool_use_id`, content = its text), then one `user` message for the other blocks |
 *
 * Writing puts the leading `system` (and `developer`) messages in `system`
 * (a string for one message, text blocks for several) and the others in
 * `messages`, consecutive messages of one role merged (tool results are
 * `user` turns), so `encode(decode(request))` is `request`. Prompt-cache
 * breakpoints with `cacheControl` (see {@link EncodeOptions}). What a
 * rollmem message has no field for (image, document, thinking and
 * redacted-thinking blocks, `cache_control` marks, `is_error`, a boundary
 * the merging would remove, a key added since) is kept under the metadata
 * key `"rollmem.provider"` and restored by {@link encode} while the
 * messages are unchanged.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message } from "rollmem"
 * import { Anthropic } from "rollmem/adapters"
 *
 * Effect.runSync(Anthropic.encode([Message.system("Be brief."), Message.user("hi")]))
 * // { system: "Be brief.", messages: [{ role: "user", content: "hi" }] }
 * ```
 *
 * @since 1.0.0
 */
import type * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Core from "../../../src/core/formats/anthropic.js"
import type * as Message from "../schema/Message.js"
import type { AdapterError, DecodeOptions } from "./AdapterError.js"
import * as engine from "./internal/engine.js"
import { Arr, type Format, JsonSchema, type Open, Opt } from "./internal/engine.js"

const CacheControl = Schema.NullOr(
  Schema.Struct({ type: Schema.Literal("ephemeral"), ttl: Opt(Schema.Literals(["5m", "1h"])) })
)

const TextBlock = Schema.Struct({ type: Schema.Literal("text"), text: Schema.String, cache_control: Opt(CacheControl) })

const ImageBlock = Schema.Struct({
  type: Schema.Literal("image"),
  source: Schema.Union([
    Schema.Struct({
      type: Schema.Literal("base64"),
      media_type: Schema.Literals(["image/jpeg", "image/png", "image/gif", "image/webp"]),
      data: Schema.String
    }),
    Schema.Struct({ type: Schema.Literal("url"), url: Schema.String }),
    Schema.Struct({ type: Schema.Literal("file"), file_id: Schema.String })
  ]),
  cache_control: Opt(CacheControl)
})
const DocumentBlock = Schema.Struct({
  type: Schema.Literal("document"),
  source: Schema.Union([
    Schema.Struct({
      type: Schema.Literal("base64"),
      media_type: Schema.Literal("application/pdf"),
      data: Schema.String
    }),
    Schema.Struct({ type: Schema.Literal("text"), media_type: Schema.Literal("text/plain"), data: Schema.String }),
    Schema.Struct({ type: Schema.Literal("url"), url: Schema.String }),
    Schema.Struct({ type: Schema.Literal("file"), file_id: Schema.String })
  ]),
  cache_control: Opt(CacheControl),
  citations: Opt(Schema.NullOr(Schema.Struct({ enabled: Opt(Schema.Boolean) }))),
  context: Opt(Schema.NullOr(Schema.String)),
  title: Opt(Schema.NullOr(Schema.String))
})
const ThinkingBlock = Schema.Struct({
  type: Schema.Literal("thinking"),
  thinking: Schema.String,
  signature: Schema.String
})
const RedactedThinkingBlock = Schema.Struct({ type: Schema.Literal("redacted_thinking"), data: Schema.String })
const ToolUseBlock = Schema.Struct({
  type: Schema.Literal("tool_use"),
  id: Schema.String,
  name: Schema.String,
  input: JsonSchema,
  cache_control: Opt(CacheControl)
})

/** The message Schema with its unions of blocks opened (lenient) or not (strict). */
const messageParam = (open: Open) => {
  const ToolResultBlock = Schema.Struct({
    type: Schema.Literal("tool_result"),
    tool_use_id: Schema.String,
    content: Opt(
      Schema.Union([
        Schema.String,
        Arr(open([TextBlock, ImageBlock, DocumentBlock], ["text", "image", "document"]))
      ])
    ),
    is_error: Opt(Schema.Boolean),
    cache_control: Opt(CacheControl)
  })
  const ContentBlock = open(
    [TextBlock, ImageBlock, DocumentBlock, ThinkingBlock, RedactedThinkingBlock, ToolUseBlock, ToolResultBlock],
    ["text", "image", "document", "thinking", "redacted_thinking", "tool_use", "tool_result"]
  )
  return Schema.Struct({
    role: Schema.Literals(["user", "assistant"]),
    content: Schema.Union([Schema.String, Arr(ContentBlock)])
  }).annotate({ identifier: "MessageParam" })
}

/**
 * One Anthropic message (assignable to the SDK's `MessageParam`): `user` or
 * `assistant`, content a string or text, image, document, thinking,
 * redacted-thinking, `tool_use` and `tool_result` blocks: the strict
 * reader's Schema.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Anthropic } from "rollmem/adapters"
 *
 * Schema.is(Anthropic.MessageParam)({ role: "user", content: [{ type: "text", text: "hi" }] }) // true
 * ```
 *
 * @since 1.0.0
 * @category schemas
 */
export const MessageParam = messageParam(engine.closed)

/**
 * One Anthropic message.
 *
 * @since 1.0.0
 * @category models
 */
export type MessageParam = typeof MessageParam.Type

/**
 * The conversation part of a Messages request: `system` (absent when there
 * is no system text) and `messages`. Spread it into `messages.create`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Anthropic } from "rollmem/adapters"
 *
 * Schema.is(Anthropic.Request)({ system: "Be brief.", messages: [{ role: "user", content: "hi" }] }) // true
 * ```
 *
 * @since 1.0.0
 * @category schemas
 */
export const Request = Schema.Struct({
  system: Opt(Schema.Union([Schema.String, Arr(TextBlock)])),
  messages: Arr(MessageParam)
}).annotate({ identifier: "AnthropicRequest" })

/**
 * `{ system?, messages }` of a Messages request.
 *
 * @since 1.0.0
 * @category models
 */
export type Request = typeof Request.Type

/**
 * Options of {@link encode}: `check`, `provider` (default `"anthropic"`),
 * `arrange` (see `CheckOptions`), and `cacheControl`: prompt-cache
 * breakpoints (`cache_control: { type: "ephemeral", ttl? }`): `pinned` (how
 * many leading system messages are the pinned prompt: the breakpoint goes on
 * the last of them), `summary` (default `false`: a breakpoint on the last
 * leading system message after the pinned ones), `lastMessage` (default
 * `true`: on the last block of the last message), `ttl` (`"5m"`, the API's
 * default, or `"1h"`).
 *
 * @since 1.0.0
 * @category models
 */
export type EncodeOptions = Core.EncodeOptions

/** @internal */
export const format: Format<MessageParam> = {
  ...Core.format,
  item: (open) => messageParam(open) as Schema.Codec<MessageParam, unknown>
}

type TextBlock = typeof TextBlock.Type

const systemFormat: Format<TextBlock> = {
  ...Core.systemFormat,
  item: () => TextBlock as Schema.Codec<TextBlock, unknown>
}

// The request's own keys: what is in them is read by the formats (lenient unless strict).
const decodeRequest = engine.requestDecoder(
  Schema.Struct({
    system: Opt(Schema.Union([Schema.String, Schema.Array(Schema.Unknown)])),
    messages: Schema.Array(Schema.Unknown)
  }),
  format.name
)

const lineFor = (options: DecodeOptions | undefined): Core.RequestLine<Message.Message> => ({
  make: engine.make,
  decodeSystem: (input) => engine.decodeOutcome(systemFormat, input, options, ["system"]),
  decodeMessages: (input) => engine.decodeOutcome(format, input, options, ["messages"]),
  encodeSystem: (messages) => engine.encodeOutcome(systemFormat, messages),
  encodeMessages: (messages, offset) => engine.encodeOutcome(format, messages, offset)
})

/** {@link decode} as a `Result`. @internal */
export const decodeResult = (
  input: unknown,
  options?: DecodeOptions
): Result.Result<Array<Message.Message>, AdapterError> => {
  const request = decodeRequest(input)
  if (Result.isFailure(request)) return Result.fail(request.failure)
  return engine.toResult(format.name, Core.fromRequest(request.success, lineFor(options)))
}

/** {@link encode} as a `Result`. @internal */
export const encodeResult = (
  messages: ReadonlyArray<Message.Message>,
  options?: EncodeOptions
): Result.Result<Request, AdapterError> =>
  engine.toResult(format.name, Core.toRequest(messages, options, lineFor(undefined)))

/**
 * Reads a Messages request's `{ system?, messages }` (any JSON input,
 * checked; other keys of the request refused: they belong to no message)
 * into rollmem messages. A block type or key it does not model is kept
 * verbatim (see `DecodeOptions`; `{ strict: true }` refuses it). Fails with
 * `AdapterError` naming the path of an unknown role or of a known field of
 * the wrong type.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Anthropic } from "rollmem/adapters"
 *
 * const messages = Effect.runSync(Anthropic.decode({ system: "Be brief.", messages: [{ role: "user", content: "hi" }] }))
 * messages.map(String) // ["system: Be brief.", "user: hi"]
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
 * Writes rollmem messages (a memory's `messages`) as `{ system?, messages }`
 * (see the module docs), restoring what {@link decode} kept. Fails with
 * `AdapterError` for a system message after the first turn, a role
 * Anthropic has no place for, tool call arguments that are not a JSON
 * object, or a context Anthropic refuses.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message } from "rollmem"
 * import { Anthropic } from "rollmem/adapters"
 *
 * Effect.runSync(Anthropic.encode([Message.system("Be brief."), Message.user("hi")]))
 * // { system: "Be brief.", messages: [{ role: "user", content: "hi" }] }
 * ```
 *
 * @since 1.0.0
 * @category constructors
 */
export const encode = (
  messages: ReadonlyArray<Message.Message>,
  options?: EncodeOptions
): Effect.Effect<Request, AdapterError> => engine.suspended(() => encodeResult(messages, options))
