/**
 * Anthropic Messages requests (`{ system, messages }` of `messages.create`)
 * and rollmem messages, both ways, as plain functions over the messages'
 * fields: the conversions both lines' `Anthropic` modules run (each
 * declares the blocks' Schema; docs/contract.md section 15): the messages'
 * format, the `system` blocks', the request read and written around them
 * (the compaction block first, prompt-cache breakpoints).
 *
 * @since 1.0.0
 */
import type { MessageFields } from "../message.js"
import type { Provider } from "../validity.js"
import {
  arrange,
  check,
  type Draft,
  failed,
  type Format,
  joinText,
  type Json,
  leadingSystem,
  type Make,
  markerOf,
  MEDIA_TOKENS,
  messageLabel,
  METADATA_KEY,
  notMessages,
  type Outcome,
  parseObject,
  plain,
  type Rendered,
  stringify,
  textEstimate,
  uniqueCallIds
} from "./engine.js"

/** A prompt-cache breakpoint. @since 1.0.0 */
export type CacheControl = { readonly type: "ephemeral"; readonly ttl?: "5m" | "1h" } | null

/** A text block. @since 1.0.0 */
export interface TextBlock {
  readonly type: "text"
  readonly text: string
  readonly cache_control?: CacheControl
}

/** An image block. @since 1.0.0 */
export interface ImageBlock {
  readonly type: "image"
  readonly source:
    | {
      readonly type: "base64"
      readonly media_type: "image/jpeg" | "image/png" | "image/gif" | "image/webp"
      readonly data: string
    }
    | { readonly type: "url"; readonly url: string }
    | { readonly type: "file"; readonly file_id: string }
  readonly cache_control?: CacheControl
}

/** A document block. @since 1.0.0 */
export interface DocumentBlock {
  readonly type: "document"
  readonly source:
    | { readonly type: "base64"; readonly media_type: "application/pdf"; readonly data: string }
    | { readonly type: "text"; readonly media_type: "text/plain"; readonly data: string }
    | { readonly type: "url"; readonly url: string }
    | { readonly type: "file"; readonly file_id: string }
  readonly cache_control?: CacheControl
  readonly citations?: { readonly enabled?: boolean } | null
  readonly context?: string | null
  readonly title?: string | null
}

/** A thinking block. @since 1.0.0 */
export interface ThinkingBlock {
  readonly type: "thinking"
  readonly thinking: string
  readonly signature: string
}

/** A redacted thinking block. @since 1.0.0 */
export interface RedactedThinkingBlock {
  readonly type: "redacted_thinking"
  readonly data: string
}

/** A tool call block. @since 1.0.0 */
export interface ToolUseBlock {
  readonly type: "tool_use"
  readonly id: string
  readonly name: string
  readonly input: Json
  readonly cache_control?: CacheControl
}

/** A tool result block. @since 1.0.0 */
export interface ToolResultBlock {
  readonly type: "tool_result"
  readonly tool_use_id: string
  readonly content?: string | Array<TextBlock | ImageBlock | DocumentBlock>
  readonly is_error?: boolean
  readonly cache_control?: CacheControl
}

/** Any content block. @since 1.0.0 */
export type ContentBlock =
  | TextBlock
  | ImageBlock
  | DocumentBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | ToolUseBlock
  | ToolResultBlock

/** One Anthropic message (the SDK's `MessageParam`). @since 1.0.0 */
export interface MessageParam {
  readonly role: "user" | "assistant"
  readonly content: string | Array<ContentBlock>
}

/** `{ system?, messages }` of a Messages request. @since 1.0.0 */
export interface Request {
  readonly system?: string | Array<TextBlock>
  readonly messages: Array<MessageParam>
}

/**
 * Options of `encode`: `check`, `provider`, `arrange` (each line's
 * `CheckOptions`) and `cacheControl` (prompt-cache breakpoints: `pinned`,
 * `summary`, `lastMessage`, `ttl`).
 *
 * @since 1.0.0
 */
export interface EncodeOptions {
  readonly check?: boolean | undefined
  readonly provider?: Provider | undefined
  readonly arrange?: boolean | { readonly summary: string } | undefined
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

/**
 * The Anthropic messages' format (`"anthropic"`): a `user` message's tool
 * results split into `tool` messages, consecutive turns of one role merged
 * when written (so a boundary between them is kept).
 *
 * @since 1.0.0
 */
export const format: Format<MessageParam> = {
  name: "anthropic",
  derive,
  render,
  merges: (previous, next) => previous.role === next.role,
  estimate
}

/** The `system` blocks' format (`"anthropic.system"`): one `system` message per text block. @since 1.0.0 */
export const systemFormat: Format<TextBlock> = {
  name: "anthropic.system",
  derive: (group) => [{ role: "system", content: group[0].text }],
  render: (run) => run.map((r) => ({ type: "text" as const, text: r.message.content })),
  estimate: () => 0
}

/**
 * What a line gives {@link fromRequest} and {@link toRequest}: its message
 * constructor, and its engine's reading and writing of the two formats.
 *
 * @since 1.0.0
 */
export interface RequestLine<M extends MessageFields> {
  readonly make: Make<M>
  readonly decodeSystem: (input: unknown) => Outcome<Array<M>>
  readonly decodeMessages: (input: unknown) => Outcome<Array<M>>
  readonly encodeSystem: (messages: ReadonlyArray<M>) => Outcome<Array<TextBlock>>
  readonly encodeMessages: (messages: ReadonlyArray<M>, offset: number) => Outcome<Array<MessageParam>>
}

/**
 * The messages of a request whose own keys are read (`system` a string or
 * an array, `messages` an array): the system messages, then the messages'.
 *
 * @since 1.0.0
 */
export const fromRequest = <M extends MessageFields>(
  request: { readonly system?: string | ReadonlyArray<unknown>; readonly messages: ReadonlyArray<unknown> },
  line: RequestLine<M>
): Outcome<Array<M>> => {
  const { messages, system } = request
  let head: Array<M> = []
  if (typeof system === "string") head = [line.make("system", system, {})]
  else if (system !== undefined) {
    const decoded = line.decodeSystem(system)
    if (failed(decoded)) return { error: { description: decoded.error.description } }
    head = decoded.ok
    // One plain block would be written back as a string: keep the array form.
    if (head.length === 1 && markerOf(head[0], systemFormat.name) === undefined) {
      const m = head[0]
      head = [line.make(m.role, m.content, {
        metadata: { ...m.metadata, [METADATA_KEY]: { format: systemFormat.name, items: plain(system), messages: 1 } }
      })]
    }
  }
  const rest = line.decodeMessages(messages)
  return failed(rest) ? rest : { ok: [...head, ...rest.ok] }
}

const withCache = (block: Block, ttl: "5m" | "1h" | undefined): Block => ({
  ...block,
  cache_control: ttl === undefined ? { type: "ephemeral" } : { type: "ephemeral", ttl }
} as Block)

/** Whether a message is a compaction block's assistant message as read (the block first), kept verbatim. */
const isCompaction = (m: MessageFields): boolean => {
  const first = markerOf(m, format.name)?.items[0] as { readonly content?: unknown } | undefined
  return Array.isArray(first?.content) && (first.content[0] as { readonly type?: unknown } | undefined)?.type ===
      "compaction"
}

/**
 * A memory's read-back holding a compaction (docs/contract.md section 15.6):
 * the compaction message, read back before the summary, goes after the
 * leading system messages (they go to `system`), first in `messages`.
 */
const compactionFirst = <M extends MessageFields>(messages: ReadonlyArray<M>): ReadonlyArray<M> => {
  const i = leadingSystem(messages)
  if (i >= messages.length || !isCompaction(messages[i])) return messages
  const j = i + 1 + leadingSystem(messages.slice(i + 1))
  return j === i + 1
    ? messages
    : [...messages.slice(0, i), ...messages.slice(i + 1, j), messages[i], ...messages.slice(j)]
}

/**
 * Messages as `{ system?, messages }`: the leading system messages in
 * `system` (a string for one plain message), the others as messages, after
 * the checks; prompt-cache breakpoints as `cacheControl` says.
 *
 * @since 1.0.0
 */
export const toRequest = <M extends MessageFields>(
  input: ReadonlyArray<M>,
  options: EncodeOptions | undefined,
  line: RequestLine<M>
): Outcome<Request> => {
  const refusedInput = notMessages(input)
  if (refusedInput !== undefined) return { error: { description: refusedInput } }
  const messages = compactionFirst(arrange(uniqueCallIds(input, line.make), "anthropic", options, line.make))
  // the API takes a compaction block first in `messages`: checked as the opening user turn would be
  const n0 = leadingSystem(messages)
  const checked = n0 < messages.length && isCompaction(messages[n0])
    ? [...messages.slice(0, n0), line.make("user", "compaction", {}), ...messages.slice(n0 + 1)]
    : messages
  const refused = check(format.name, checked, "anthropic", options)
  if (refused !== undefined) return { error: refused }
  const n = leadingSystem(messages)
  const head = messages.slice(0, n)
  const system = line.encodeSystem(head)
  if (failed(system)) return system
  const rest = line.encodeMessages(messages.slice(n), n)
  if (failed(rest)) return rest
  let systemBlocks: Array<TextBlock> = system.ok
  const out: Array<MessageParam> = rest.ok
  const cache = options?.cacheControl
  if (cache !== undefined) {
    const pinned = cache.pinned ?? 0
    if (!Number.isInteger(pinned) || pinned < 0 || pinned > systemBlocks.length) {
      return {
        error: {
          description:
            `cacheControl.pinned: ${pinned} is not a count of the ${systemBlocks.length} leading system messages`
        }
      }
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
  return {
    ok: systemBlocks.length === 0
      ? { messages: out }
      : { system: asString ? systemBlocks[0].text : systemBlocks, messages: out }
  }
}
