/**
 * Anthropic Messages requests (`{ system, messages }` of `messages.create`)
 * to rollmem messages and back.
 *
 * | Anthropic | rollmem messages |
 * |---|---|
 * | `system` (a string, or text blocks) | one `system` message per block, first |
 * | a message whose `content` is a string | one message, same role |
 * | an `assistant` message with blocks | one `assistant` message: text blocks (and a `compaction` block's `content`) joined with `"\n"`, `tool_use` blocks as tool calls (`arguments` = `JSON.stringify(input)`) |
 * | a `user` message with blocks | one `tool` message per `tool_result` block (`toolCallId` = `tool_use_id`, content = its text), then one `user` message for the other blocks |
 *
 * Writing puts the leading `system` (and `developer`) messages (pinned
 * system prompts, the summary) in `system`: a string for one message, text
 * blocks for several. The other messages become `user` and `assistant`
 * messages, consecutive messages of the same role merged into one (tool
 * results are `user` turns, as the API requires: all results of a call in
 * the next user message), and split back by {@link decode}, so
 * `encode(decode(request))` is `request`. A message with tool calls gives
 * `tool_use` blocks (`input` = the arguments parsed; arguments that are not
 * a JSON object fail with `AdapterError`); a message with a tool call id
 * gives a `tool_result` block. A `system` message after the first turn, or
 * a role Anthropic has no place for, fails with `AdapterError`.
 *
 * Prompt caching: `encode(messages, { cacheControl: { pinned: 1 } })` marks
 * the last pinned system block and the last block of the last message with
 * `cache_control: { type: "ephemeral" }`, so the pinned prompt and the
 * whole conversation so far are cached prefixes (see {@link EncodeOptions});
 * `summary: true` marks the summary's block too, with summary segments the
 * last segment's (each segment is a block of `system`).
 *
 * What a rollmem message has no field for (image, document, thinking and
 * redacted-thinking blocks, `cache_control` marks, an `is_error` flag, a
 * message boundary the merging would remove) is kept under the metadata
 * key `"rollmem.provider"` and restored by {@link encode} while the
 * messages are unchanged.
 *
 * @example
 * ```ts
 * import Anthropic from "@anthropic-ai/sdk"
 * import { fromAnthropic, toAnthropic } from "rollmem/adapters"
 * import { AsyncRollingMemory } from "rollmem/promise"
 *
 * const memory = new AsyncRollingMemory({ maxTokens: 4000, summarize: "drop" })
 * const client = new Anthropic()
 * const reply = await client.messages.create({ model: "claude-sonnet-4-5", max_tokens: 1024, ...toAnthropic(memory.getMessages()) })
 * await memory.addMessages(fromAnthropic({ messages: [{ role: reply.role, content: reply.content }] }))
 * ```
 *
 * @since 0.2.0
 */
import type * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Core from "../core/formats/anthropic.js"
import type { Provider } from "../core/validity.js"
import type * as Message from "../schema/Message.js"
import type { AdapterError, Arrange, DecodeOptions } from "./AdapterError.js"
import { Arr, type Format, JsonSchema, Opt } from "./internal/engine.js"
import * as engine from "./internal/engine.js"

const CacheControl = Schema.NullOr(
  Schema.Struct({ type: Schema.Literal("ephemeral"), ttl: Opt(Schema.Literal("5m", "1h")) })
)

const TextBlock = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
  cache_control: Opt(CacheControl)
})

const ImageSource = Schema.Union(
  Schema.Struct({
    type: Schema.Literal("base64"),
    media_type: Schema.Literal("image/jpeg", "image/png", "image/gif", "image/webp"),
    data: Schema.String
  }),
  Schema.Struct({ type: Schema.Literal("url"), url: Schema.String }),
  Schema.Struct({ type: Schema.Literal("file"), file_id: Schema.String })
)
const ImageBlock = Schema.Struct({
  type: Schema.Literal("image"),
  source: ImageSource,
  cache_control: Opt(CacheControl)
})
const DocumentBlock = Schema.Struct({
  type: Schema.Literal("document"),
  source: Schema.Union(
    Schema.Struct({
      type: Schema.Literal("base64"),
      media_type: Schema.Literal("application/pdf"),
      data: Schema.String
    }),
    Schema.Struct({ type: Schema.Literal("text"), media_type: Schema.Literal("text/plain"), data: Schema.String }),
    Schema.Struct({ type: Schema.Literal("url"), url: Schema.String }),
    Schema.Struct({ type: Schema.Literal("file"), file_id: Schema.String })
  ),
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
const ToolResultBlock = Schema.Struct({
  type: Schema.Literal("tool_result"),
  tool_use_id: Schema.String,
  content: Opt(Schema.Union(Schema.String, Arr(engine.open(Schema.Union(TextBlock, ImageBlock, DocumentBlock))))),
  is_error: Opt(Schema.Boolean),
  cache_control: Opt(CacheControl)
})

const ContentBlock = engine.open(Schema.Union(
  TextBlock,
  ImageBlock,
  DocumentBlock,
  ThinkingBlock,
  RedactedThinkingBlock,
  ToolUseBlock,
  ToolResultBlock
))
type ContentBlock = typeof ContentBlock.Type

/**
 * One Anthropic message (assignable to the SDK's `MessageParam`): `user` or
 * `assistant`, content a string or text, image, document, thinking,
 * redacted-thinking, `tool_use` and `tool_result` blocks. Other block types
 * and unknown keys are refused.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Anthropic } from "rollmem/adapters"
 *
 * Schema.is(Anthropic.MessageParam)({ role: "user", content: [{ type: "text", text: "hi" }] }) // true
 * ```
 *
 * @since 0.2.0
 * @category schemas
 */
export const MessageParam = Schema.Struct({
  role: Schema.Literal("user", "assistant"),
  content: Schema.Union(Schema.String, Arr(ContentBlock))
}).annotations({ identifier: "MessageParam" })

/**
 * One Anthropic message.
 *
 * @since 0.2.0
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
 * @since 0.2.0
 * @category schemas
 */
export const Request = Schema.Struct({
  system: Opt(Schema.Union(Schema.String, Arr(TextBlock))),
  messages: Arr(MessageParam)
}).annotations({ identifier: "AnthropicRequest" })

/**
 * `{ system?, messages }` of a Messages request.
 *
 * @since 0.2.0
 * @category models
 */
export type Request = typeof Request.Type

/**
 * Options of {@link encode}.
 *
 * - `check` (default `true`): refuse, with `AdapterError` listing the
 *   `Validity` violations, messages Anthropic rejects: a first turn (after
 *   the system messages) that is not a user turn, a tool result that does
 *   not follow its call, a tool call without its results right after it, a
 *   system message after the first turn. Consecutive messages of one role
 *   are written (Anthropic merges them). `provider` (default `"anthropic"`)
 *   applies another target's rules (see `CheckOptions`). `arrange` writes a
 *   memory's read-back in a form the target accepts (see `Arrange`).
 * - `cacheControl`: prompt-cache breakpoints (`cache_control: { type:
 *   "ephemeral", ttl? }`). `pinned`: how many leading system messages are the
 *   pinned system prompt (with `pinSystem`, usually 1): the breakpoint goes on
 *   the last of them, before the summary, which changes at every fold; none
 *   when omitted or 0. `summary` (default `false`): a breakpoint on the last
 *   leading system message after the pinned ones: the summary, or with
 *   summary segments (`summary: "segments"`, docs/contract.md section 10.9)
 *   the last segment, so the earlier segments and the new one are read from
 *   the cache up to there after a fold; none when every leading system
 *   message is pinned. `lastMessage` (default `true`): a breakpoint on the
 *   last block of the last message, so the next request reads the whole
 *   conversation so far from the cache. `ttl`: `"5m"` (the API's default
 *   when omitted) or `"1h"`.
 *
 * @since 0.2.0
 * @category models
 */
export interface EncodeOptions {
  readonly check?: boolean | undefined
  readonly provider?: Provider | undefined
  readonly arrange?: Arrange | undefined
  readonly cacheControl?: {
    readonly pinned?: number | undefined
    readonly summary?: boolean | undefined
    readonly lastMessage?: boolean | undefined
    readonly ttl?: "5m" | "1h" | undefined
  } | undefined
}

/** @internal */
export const format: Format<MessageParam> = { ...Core.format, item: MessageParam }

type TextBlock = typeof TextBlock.Type

const systemFormat: Format<TextBlock> = { ...Core.systemFormat, item: TextBlock }

// The request's own keys: what is in them is read by the formats (lenient unless strict).
const decodeRequest = engine.requestDecoder(
  Schema.Struct({
    system: Opt(Schema.Union(Schema.String, Schema.Array(Schema.Unknown))),
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

const decodeSync = (input: unknown, options?: DecodeOptions): Either.Either<Array<Message.Message>, AdapterError> => {
  const request = decodeRequest(input)
  if (Either.isLeft(request)) return Either.left(request.left)
  return engine.toEither(format.name, Core.fromRequest(request.right, lineFor(options)))
}

const encodeSync = (
  input: ReadonlyArray<Message.Message>,
  options?: EncodeOptions
): Either.Either<Request, AdapterError> =>
  engine.toEither(format.name, Core.toRequest(input, options, lineFor(undefined)))

/** {@link decode} as an `Either`. @internal */
export const decodeEither = decodeSync

const codec = engine.codec(decodeSync, encodeSync)

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
 * @since 0.2.0
 * @category constructors
 */
export const decode: (
  input: unknown,
  options?: DecodeOptions
) => Effect.Effect<Array<Message.Message>, AdapterError> = codec.decode

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
 * @since 0.2.0
 * @category constructors
 */
export const encode: (
  messages: ReadonlyArray<Message.Message>,
  options?: EncodeOptions
) => Effect.Effect<Request, AdapterError> = codec.encode
