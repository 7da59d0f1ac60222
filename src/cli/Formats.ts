/**
 * The provider formats of the command line: reading a conversation in
 * OpenAI chat, Anthropic Messages, AI SDK `ModelMessage`, Gemini `contents`
 * or rollmem's own wire format (`--input-format`), detected per conversation
 * by default, and printing a final context in a provider's shape
 * (`--output-format`). Every conversion goes through the adapters of
 * `rollmem/adapters` (`fromOpenAIChat`, `toAnthropic`, ...), read with `{
 * strict: true }`: an unknown key or part type is an error naming it. The
 * library's readers keep such a field verbatim by default, but the command
 * line measures: a kept field is not counted (nor are its tool calls read),
 * so a replay would report figures for less than the transcript holds, and
 * detection falls back from one format to another, which a lenient reader
 * would turn into a silent misreading (rollmem's `toolCalls` misspelt, read
 * as an OpenAI message without calls). A turn whose tool calls cannot be
 * read refuses its conversation.
 *
 * A conversation is an object (a JSON Lines line, or a JSON document):
 *
 * | format | keys read |
 * |---|---|
 * | `rollmem` | `messages`: the wire format of docs/contract.md section 2 (no other key in a message) |
 * | `openai` | `messages`: Chat Completions messages |
 * | `anthropic` | `system` (optional), `messages`: Messages API message params |
 * | `ai-sdk` | `messages`: `ModelMessage`s |
 * | `gemini` | `systemInstruction` (optional), `contents` |
 *
 * Other keys of the conversation object (`id`, `model`, `meta`...) are not
 * messages and are ignored; one with both `messages` and `contents` is
 * refused (either would be dropped). A JSON array is the `messages` of a
 * conversation (the `contents` of a Gemini one when its items have `parts`).
 *
 * **Detection** (`auto`): `contents` or items with `parts` is Gemini; a
 * top-level `system`, or a `tool_use`, `tool_result`, `thinking`,
 * `redacted_thinking` or `document` block, or an `image` block with a
 * `source`, is Anthropic; a `tool-call`, `tool-result`, `reasoning` or `file`
 * part, or an `image` part with an `image`, is the AI SDK; a `developer` or
 * `function` role, a `null` content, nested tool calls (`function`), a
 * `function_call`, or an `image_url`, `input_audio` or `refusal` part is
 * OpenAI. Anything else is read as rollmem's format, then as OpenAI's (plain
 * text turns read the same either way); when neither reads it, rollmem's
 * error is reported.
 *
 * @example
 * ```ts
 * decode({ system: "Be brief.", messages: [{ role: "user", content: "hi" }] }, "auto")
 * // Either.right({ format: "anthropic", messages: [system: Be brief., user: hi] })
 * ```
 *
 * @since 0.2.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import {
  AdapterError,
  fromAiSdk,
  fromAnthropic,
  fromGemini,
  fromOpenAIChat,
  toAiSdk,
  toAnthropic,
  toGemini,
  toOpenAIChat
} from "../adapters.js"
import { Message } from "../schema/Message.js"
import { formatParseError } from "../schema/ParseIssue.js"

/**
 * A format a conversation is read in.
 *
 * @since 0.2.0
 * @category models
 */
export type Format = "rollmem" | "openai" | "anthropic" | "ai-sdk" | "gemini"

/**
 * What `--input-format` takes: a format, or `auto` (detected per conversation).
 *
 * @since 0.2.0
 * @category models
 */
export type InputFormat = "auto" | Format

/**
 * The choices of `--input-format`, `auto` first (the default).
 *
 * @since 0.2.0
 * @category constants
 */
export const inputFormats: ReadonlyArray<InputFormat> = ["auto", "openai", "anthropic", "ai-sdk", "gemini", "rollmem"]

/**
 * What `--output-format` takes: a provider's shape.
 *
 * @since 0.2.0
 * @category models
 */
export type OutputFormat = "openai" | "anthropic" | "ai-sdk" | "gemini"

/**
 * The choices of `--output-format`.
 *
 * @since 0.2.0
 * @category constants
 */
export const outputFormats: ReadonlyArray<OutputFormat> = ["openai", "anthropic", "ai-sdk", "gemini"]

/**
 * A conversation read: its messages and the format they were read in.
 *
 * @since 0.2.0
 * @category models
 */
export interface Decoded {
  readonly format: Format
  readonly messages: ReadonlyArray<Message>
}

type Conversation = { readonly [key: string]: unknown }

const isObject = (u: unknown): u is Conversation => typeof u === "object" && u !== null && !Array.isArray(u)

const decodeWire = Schema.decodeUnknownEither(
  Schema.Struct({ messages: Schema.Array(Message.annotations({ identifier: "Message" })) })
)

/**
 * What is wrong at a path, said plainly: a value that is neither a string
 * nor an array of parts (the adapters' schemas list every part type the
 * array takes, cut with `…` when long) is `[0].content: must be a string or
 * an array of content parts, got null`; any other description is kept.
 */
const plainly = (description: string): string =>
  description.replace(
    /^(\S+): Expected string, actual (.+?); \1: Expected ReadonlyArray<.*(?:>, actual \2|\u2026)$/s,
    (_, path: string, actual: string) => `${path}: must be a string or an array of content parts, got ${actual}`
  )

/**
 * The adapters' plain functions throw their `AdapterError`, which names the
 * adapter's format (`openai-chat`) and the path: the line names the command
 * line's format (`openai: [0].content: ...`, as `--input-format` does).
 */
const adapt = (format: Format, read: () => ReadonlyArray<Message>): Either.Either<ReadonlyArray<Message>, string> =>
  Either.try({
    try: read,
    catch: (error) =>
      error instanceof AdapterError
        ? `${format}: ${plainly(error.description)}`
        : error instanceof Error
        ? error.message
        : String(error)
  })

/** Only the keys a request has: `{ system: undefined }` would be refused as a wrong `system`. */
const pick = (conversation: Conversation, keys: ReadonlyArray<string>): Conversation => {
  const out: Record<string, unknown> = {}
  for (const key of keys) if (conversation[key] !== undefined) out[key] = conversation[key]
  return out
}

// The command line measures: a field it would not count is refused, naming it (see the module docs).
const strict = { strict: true } as const

const readers: { readonly [F in Format]: (c: Conversation) => Either.Either<ReadonlyArray<Message>, string> } = {
  rollmem: (c) =>
    Either.mapBoth(decodeWire({ messages: c.messages }, { errors: "first", onExcessProperty: "error" }), {
      onLeft: (error) => `wire format: ${formatParseError(error)}`,
      onRight: (wire) => wire.messages
    }),
  openai: (c) => adapt("openai", () => fromOpenAIChat(c.messages, strict)),
  anthropic: (c) => adapt("anthropic", () => fromAnthropic(pick(c, ["system", "messages"]), strict)),
  "ai-sdk": (c) => adapt("ai-sdk", () => fromAiSdk(c.messages, strict)),
  gemini: (c) => adapt("gemini", () => fromGemini(pick(c, ["systemInstruction", "contents"]), strict))
}

const anthropicBlocks = new Set(["tool_use", "tool_result", "thinking", "redacted_thinking", "document"])
const aiSdkParts = new Set(["tool-call", "tool-result", "reasoning", "file"])
const openAiParts = new Set(["image_url", "input_audio", "refusal"])
const openAiRoles = new Set(["developer", "function"])

/** The format a part marks, if it marks one. */
const partFormat = (part: unknown): Format | undefined => {
  if (!isObject(part) || typeof part.type !== "string") return undefined
  if (anthropicBlocks.has(part.type) || (part.type === "image" && "source" in part)) return "anthropic"
  if (aiSdkParts.has(part.type) || (part.type === "image" && "image" in part)) return "ai-sdk"
  if (openAiParts.has(part.type)) return "openai"
  return undefined
}

/** The format a message marks, if it marks one. */
const messageFormat = (message: unknown): Format | undefined => {
  if (!isObject(message)) return undefined
  if ("parts" in message) return "gemini"
  if (typeof message.role === "string" && openAiRoles.has(message.role)) return "openai"
  if (message.content === null || "function_call" in message) return "openai"
  if (Array.isArray(message.tool_calls) && message.tool_calls.some((call) => isObject(call) && "function" in call)) {
    return "openai"
  }
  if (Array.isArray(message.content)) {
    for (const part of message.content) {
      const format = partFormat(part)
      if (format !== undefined) return format
    }
  }
  return undefined
}

/**
 * The format a conversation object marks (see the module docs), or
 * `undefined` when it marks none.
 *
 * @since 0.2.0
 * @category combinators
 */
export const detect = (conversation: Conversation): Format | undefined => {
  if ("contents" in conversation || "systemInstruction" in conversation) return "gemini"
  if ("system" in conversation) return "anthropic"
  if (!Array.isArray(conversation.messages)) return undefined
  for (const message of conversation.messages) {
    const format = messageFormat(message)
    if (format !== undefined) return format
  }
  return undefined
}

/**
 * A JSON document as a conversation object: an array is its `messages`
 * (its `contents` when its first item has `parts`); an object is itself;
 * anything else is none.
 *
 * @since 0.2.0
 * @category combinators
 */
export const conversationOf = (value: unknown): Conversation | undefined => {
  if (Array.isArray(value)) {
    return isObject(value[0]) && "parts" in value[0] ? { contents: value } : { messages: value }
  }
  return isObject(value) ? value : undefined
}

/** The key of a provider's turn that carries its usage: Gemini's `usageMetadata`, every other's `usage`. */
const usageKey = (format: Format): string => format === "gemini" ? "usageMetadata" : "usage"

/** The provider's turns of a conversation object: Gemini's `contents`, every other's `messages`. */
const turnsKey = (format: Format): string => format === "gemini" ? "contents" : "messages"

const isAnswer = (turn: Conversation): boolean => turn.role === "assistant" || turn.role === "model"

/**
 * Reads a conversation in a provider's format with the usage its answers
 * carry (docs/contract.md section 13.2): the `usage` object of an assistant
 * message (Gemini: `usageMetadata` of a `model` content) is taken off before
 * the strict reader sees it and put back, verbatim, as the `usage` metadata
 * of the assistant message it became (the n-th answer read is the n-th
 * given). When the answers read are not as many as those given, a usage
 * that cannot be placed refuses the conversation.
 */
const readWithUsage = (format: Format, conversation: Conversation): Either.Either<Decoded, string> => {
  const key = usageKey(format)
  const turns = conversation[turnsKey(format)]
  const usages: Array<unknown> = []
  let carried = false
  let stripped = turns
  if (Array.isArray(turns)) {
    stripped = turns.map((turn) => {
      if (!isObject(turn) || !isAnswer(turn)) return turn
      const { [key]: usage, ...rest } = turn
      usages.push(usage)
      if (usage !== undefined) carried = true
      return usage === undefined ? turn : rest
    })
  }
  const read = readers[format]({ ...conversation, [turnsKey(format)]: stripped })
  if (!carried || Either.isLeft(read)) return Either.map(read, (messages): Decoded => ({ format, messages }))
  const answers = read.right.filter((m) => m.role === "assistant").length
  if (answers !== usages.length) {
    return Either.left(
      `${format}: the ${key} of ${usages.length} answers cannot be placed on the ${answers} assistant messages read`
    )
  }
  let n = 0
  const messages = read.right.map((m) => {
    if (m.role !== "assistant") return m
    const usage = usages[n++]
    return usage === undefined ? m : Message.make(m.role, m.content, {
      id: m.id,
      toolCallId: m.toolCallId,
      toolCalls: m.toolCalls,
      metadata: { ...m.metadata, usage: usage as Message["metadata"][string] }
    })
  })
  return Either.right({ format, messages })
}

/**
 * Reads a conversation object in `format` (`auto`: detected, see the module
 * docs). Fails with one line naming the format, the path and what is wrong
 * there (`openai: [2].tool_calls[0].type: is missing`): a turn that
 * cannot be read refuses its conversation, never replayed without its tool
 * calls.
 *
 * @since 0.2.0
 * @category constructors
 */
export const decode = (conversation: Conversation, format: InputFormat): Either.Either<Decoded, string> => {
  const read = (f: Format) =>
    f === "rollmem"
      ? Either.map(readers[f](conversation), (messages): Decoded => ({ format: f, messages }))
      : readWithUsage(f, conversation)
  if ("messages" in conversation && "contents" in conversation) {
    // Either key would be read and the other dropped silently.
    return Either.left("a conversation has both `messages` and `contents`: give its turns under one of them")
  }
  if (format !== "auto") return read(format)
  const detected = detect(conversation)
  if (detected !== undefined) return read(detected)
  const wire = read("rollmem")
  return Either.isRight(wire) ? wire : Either.orElse(read("openai"), () => wire)
}

/**
 * A context in a provider's shape, as that provider's request takes it:
 * OpenAI's `messages`, Anthropic's `{ system, messages }`, the AI SDK's
 * `messages`, Gemini's `{ systemInstruction, contents }`. The context is
 * checked first (`Validity`): a context that provider would refuse (an
 * orphaned tool result, a first turn that is not the user's) fails with its
 * violations, each naming its message (`message 0: tool result "c9" does
 * not follow its call`, joined by `; `); any other refusal with the
 * adapter's description.
 *
 * @since 0.2.0
 * @category combinators
 */
export const encode = (messages: ReadonlyArray<Message>, format: OutputFormat): Either.Either<unknown, string> =>
  Either.try({
    try: (): unknown => {
      switch (format) {
        case "openai":
          return toOpenAIChat(messages)
        case "anthropic":
          return toAnthropic(messages)
        case "ai-sdk":
          return toAiSdk(messages)
        case "gemini":
          return toGemini(messages)
      }
    },
    catch: refusal
  })

// Why a `to…` refused: the violations of the context, each naming its message, or the adapter's description.
const refusal = (error: unknown): string => {
  if (!(error instanceof AdapterError)) return error instanceof Error ? error.message : String(error)
  const violations = error.violations ?? []
  return violations.length > 0 ? violations.map((v) => v.description).join("; ") : error.description
}
