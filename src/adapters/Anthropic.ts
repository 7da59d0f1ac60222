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
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { Provider } from "../core/validity.js"
import * as Message from "../schema/Message.js"
import { AdapterError, type Arrange, type DecodeOptions } from "./AdapterError.js"
import {
  Arr,
  type Draft,
  type Format,
  joinText,
  JsonSchema,
  markerOf,
  MEDIA_TOKENS,
  messageLabel,
  METADATA_KEY,
  Opt,
  parseObject,
  plain,
  type Rendered,
  stringify,
  textEstimate
} from "./internal/engine.js"
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

// A `compaction` block (server-side compaction, kept verbatim) reads as its summary text.
const textOfBlocks = (
  blocks: ReadonlyArray<{ readonly type: string; readonly text?: string; readonly content?: unknown }>
): string =>
  joinText(
    blocks.flatMap((b) =>
      b.type === "text"
        ? [b.text ?? ""]
        : b.type === "compaction" && typeof b.content === "string"
        ? [b.content]
        : []
    )
  )

const derive = (group: ReadonlyArray<MessageParam>): Array<Draft> => {
  const m = group[0]
  if (typeof m.content === "string") return [{ role: m.role, content: m.content }]
  if (m.role === "assistant") {
    const toolCalls = m.content.flatMap((b) =>
      b.type === "tool_use" ? [{ id: b.id, name: b.name, arguments: stringify(b.input) }] : []
    )
    return [{ role: "assistant", content: textOfBlocks(m.content), toolCalls }]
  }
  const drafts: Array<Draft> = []
  const rest: Array<ContentBlock> = []
  for (const b of m.content) {
    if (b.type === "tool_result") {
      const content = b.content === undefined ? "" : typeof b.content === "string" ? b.content : textOfBlocks(b.content)
      drafts.push({ role: "tool", content, toolCallId: b.tool_use_id })
    } else rest.push(b)
  }
  if (rest.length > 0 || drafts.length === 0) drafts.push({ role: "user", content: textOfBlocks(rest) })
  return drafts
}

type Block = ContentBlock

const blocksOf = (r: Rendered): { readonly role: "user" | "assistant"; readonly blocks: Array<Block> } | string => {
  const m = r.message
  if (m.toolCalls.length > 0) {
    const blocks: Array<Block> = m.content === "" ? [] : [{ type: "text", text: m.content }]
    for (const call of m.toolCalls) {
      const input = call.arguments === "" ? {} : parseObject(call.arguments)
      if (input === undefined) {
        return `${messageLabel(r)}: the arguments of tool call ${JSON.stringify(call.id)} are not a JSON object`
      }
      blocks.push({ type: "tool_use", id: call.id, name: call.name, input })
    }
    return { role: "assistant", blocks }
  }
  if (m.toolCallId !== undefined) {
    return { role: "user", blocks: [{ type: "tool_result", tool_use_id: m.toolCallId, content: m.content }] }
  }
  if (m.role === "user" || m.role === "assistant") return { role: m.role, blocks: [{ type: "text", text: m.content }] }
  if (m.role === "system" || m.role === "developer") {
    return `${messageLabel(r)}: Anthropic takes system text only in \`system\`, before the first turn`
  }
  return `${messageLabel(r)}: Anthropic has no such role (user, assistant; system first)`
}

const isPlainText = (blocks: ReadonlyArray<Block>): boolean =>
  blocks.length === 1 && blocks[0].type === "text" && Object.keys(blocks[0]).length === 2

const render = (run: ReadonlyArray<Rendered>): Array<MessageParam> | string => {
  const out: Array<{ role: "user" | "assistant"; blocks: Array<Block> }> = []
  for (const r of run) {
    const b = blocksOf(r)
    if (typeof b === "string") return b
    const last = out[out.length - 1]
    if (last !== undefined && last.role === b.role) {
      // Merged turns: an empty text block is refused by the API and carries nothing.
      const keep = (block: Block) => !(block.type === "text" && block.text === "")
      last.blocks = [...last.blocks.filter(keep), ...b.blocks.filter(keep)]
    } else out.push({ role: b.role, blocks: b.blocks })
  }
  return out.map(({ blocks, role }) => ({
    role,
    content: isPlainText(blocks) ? (blocks[0] as { readonly text: string }).text : blocks
  }))
}

const blockTokens = (b: Block): number => {
  switch (b.type) {
    case "image":
    case "document":
      return MEDIA_TOKENS
    case "thinking":
      return textEstimate(b.thinking)
    case "redacted_thinking":
      return textEstimate(b.data)
    case "tool_result": {
      let tokens = 0
      if (Array.isArray(b.content)) { for (const c of b.content) tokens += blockTokens(c) }
      return tokens
    }
    default:
      return 0
  }
}

const estimate = (m: MessageParam): number => {
  let tokens = 0
  if (typeof m.content !== "string") { for (const b of m.content) tokens += blockTokens(b) }
  return tokens
}

/** @internal */
export const format: Format<MessageParam> = {
  name: "anthropic",
  item: MessageParam,
  derive,
  render,
  merges: (previous, next) => previous.role === next.role,
  estimate
}

type TextBlock = typeof TextBlock.Type

const systemFormat: Format<TextBlock> = {
  name: "anthropic.system",
  item: TextBlock,
  derive: (group) => [{ role: "system", content: group[0].text }],
  render: (run) => run.map((r) => ({ type: "text" as const, text: r.message.content })),
  estimate: () => 0
}

// The request's own keys: what is in them is read by the formats (lenient unless strict).
const decodeRequest = engine.requestDecoder(
  Schema.Struct({
    system: Opt(Schema.Union(Schema.String, Schema.Array(Schema.Unknown))),
    messages: Schema.Array(Schema.Unknown)
  }),
  format.name
)

const withMarker = (message: Message.Message, items: ReadonlyArray<unknown>): Message.Message =>
  Message.make(message.role, message.content, {
    metadata: { ...message.metadata, [METADATA_KEY]: { format: systemFormat.name, items: plain(items), messages: 1 } }
  })

const decodeSync = (input: unknown, options?: DecodeOptions): Either.Either<Array<Message.Message>, AdapterError> => {
  const request = decodeRequest(input)
  if (Either.isLeft(request)) return Either.left(request.left)
  const { messages, system } = request.right
  let head: Array<Message.Message> = []
  if (typeof system === "string") head = [Message.system(system)]
  else if (system !== undefined) {
    const decoded = engine.decode(systemFormat, system, options, ["system"])
    if (Either.isLeft(decoded)) {
      return Either.left(new AdapterError({ format: format.name, description: decoded.left.description }))
    }
    head = decoded.right
    // One plain block would be written back as a string: keep the array form.
    if (head.length === 1 && markerOf(head[0], systemFormat.name) === undefined) head = [withMarker(head[0], system)]
  }
  return Either.map(engine.decode(format, messages, options, ["messages"]), (rest) => [...head, ...rest])
}

const withCache = (
  block: Block,
  ttl: "5m" | "1h" | undefined
): Block => ({
  ...block,
  cache_control: ttl === undefined ? { type: "ephemeral" } : { type: "ephemeral", ttl }
} as Block)

/** Whether a message is a compaction block's assistant message as read (the block first), kept verbatim. */
const isCompaction = (m: Message.Message): boolean => {
  const first = markerOf(m, format.name)?.items[0] as { readonly content?: unknown } | undefined
  return Array.isArray(first?.content) && (first.content[0] as { readonly type?: unknown } | undefined)?.type ===
      "compaction"
}

/**
 * A memory's read-back holding a compaction (docs/contract.md section 15.6):
 * the compaction message, read back before the summary, goes after the
 * leading system messages (they go to `system`), first in `messages`.
 */
const compactionFirst = (messages: ReadonlyArray<Message.Message>): ReadonlyArray<Message.Message> => {
  const i = engine.leadingSystem(messages)
  if (i >= messages.length || !isCompaction(messages[i])) return messages
  const j = i + 1 + engine.leadingSystem(messages.slice(i + 1))
  return j === i + 1
    ? messages
    : [...messages.slice(0, i), ...messages.slice(i + 1, j), messages[i], ...messages.slice(j)]
}

const encodeSync = (
  input: ReadonlyArray<Message.Message>,
  options?: EncodeOptions
): Either.Either<Request, AdapterError> => {
  const notMessages = engine.notMessages(format.name, input)
  if (notMessages !== undefined) return Either.left(notMessages)
  const messages = compactionFirst(engine.arrange(engine.uniqueCallIds(input), "anthropic", options))
  // the API takes a compaction block first in `messages`: checked as the opening user turn would be
  const n0 = engine.leadingSystem(messages)
  const checked = n0 < messages.length && isCompaction(messages[n0])
    ? [...messages.slice(0, n0), Message.user("compaction"), ...messages.slice(n0 + 1)]
    : messages
  const refused = engine.check(format.name, checked, "anthropic", options)
  if (refused !== undefined) return Either.left(refused)
  const n = engine.leadingSystem(messages)
  const head = messages.slice(0, n)
  const system = engine.encode(systemFormat, head)
  if (Either.isLeft(system)) return Either.left(system.left)
  const rest = engine.encode(format, messages.slice(n), n)
  if (Either.isLeft(rest)) return Either.left(rest.left)
  let systemBlocks: Array<TextBlock> = system.right
  const out: Array<MessageParam> = rest.right
  const cache = options?.cacheControl
  if (cache !== undefined) {
    const pinned = cache.pinned ?? 0
    if (!Number.isInteger(pinned) || pinned < 0 || pinned > systemBlocks.length) {
      return Either.left(
        new AdapterError({
          format: format.name,
          description:
            `cacheControl.pinned: ${pinned} is not a count of the ${systemBlocks.length} leading system messages`
        })
      )
    }
    // at most 3 of Anthropic's 4 breakpoints: the pinned prompt, the summary (its last segment), the last message
    const marked = cache.summary === true && systemBlocks.length > pinned ? systemBlocks.length - 1 : -1
    if (pinned > 0 || marked >= 0) {
      systemBlocks = systemBlocks.map((b, i) =>
        (pinned > 0 && i === pinned - 1) || i === marked ? withCache(b, cache.ttl) as TextBlock : b
      )
    }
    const last = out[out.length - 1]
    if ((cache.lastMessage ?? true) && last !== undefined) {
      const blocks: Array<Block> = typeof last.content === "string"
        ? [{ type: "text", text: last.content }]
        : [...last.content]
      if (blocks.length > 0) {
        blocks[blocks.length - 1] = withCache(blocks[blocks.length - 1], cache.ttl)
        out[out.length - 1] = { role: last.role, content: blocks }
      }
    }
  }
  const asString = head.length === 1 && markerOf(head[0], systemFormat.name) === undefined &&
    !(cache?.pinned !== undefined && cache.pinned > 0) && cache?.summary !== true
  return Either.right(
    systemBlocks.length === 0
      ? { messages: out }
      : { system: asString ? systemBlocks[0].text : systemBlocks, messages: out }
  )
}

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
