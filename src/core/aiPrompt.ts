/**
 * What both lines' `AiPrompt` (`rollmem/ai`) share, pure (no `effect`
 * import): which `Prompt` message a rollmem message becomes, the JSON
 * reading of a call's arguments and a result's content, what travels
 * under the `"rollmem"` provider options, and the fields of the message a
 * Prompt message gives back. Each line's `AiPrompt` builds its own
 * `Prompt` values (`@effect/ai` on the Effect 3 line, `effect/ai` on the
 * Effect 4 line) around these.
 *
 * @since 0.4.0
 */
import type { JsonObject } from "./json.js"
import type { MessageFields, ToolCallFields } from "./message.js"

/**
 * The provider-options key under which rollmem keeps what `Prompt` cannot
 * hold: `"rollmem"`.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 * import { AiPrompt } from "rollmem/ai"
 *
 * const [message] = AiPrompt.toPrompt([Message.user("hi", { id: "m1" })]).content
 * message.options[AiPrompt.OPTIONS_KEY] // { id: "m1" }: what a Prompt message has no field for
 * ```
 *
 * @since 0.1.0
 * @category constants
 */
export const OPTIONS_KEY = "rollmem"

/**
 * What a Prompt message carries under `options.rollmem`. Every field is
 * present only when needed.
 *
 * @since 0.1.0
 * @category models
 */
export interface MessageOptions {
  /** The message's id. */
  readonly id?: string
  /** The message's metadata, when not empty. */
  readonly metadata?: JsonObject
  /** The message's role, when the Prompt message's role differs from it. */
  readonly role?: string
  /** The tool call id of a message that also has tool calls. */
  readonly toolCallId?: string
}

/**
 * What a `tool-call` part carries under `options.rollmem`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolCallOptions {
  /** The exact `arguments` text, when it differs from `JSON.stringify(params)`. */
  readonly arguments?: string
}

/**
 * What a `tool-result` part carries under `options.rollmem`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolResultOptions {
  /** The exact content, when `result` was parsed from it and `JSON.stringify(result)` differs from it. */
  readonly content?: string
}

/**
 * `JSON.parse`, or `undefined` for text that is not JSON. Text whose first
 * character cannot open a JSON value is refused without a throw (most tool
 * results are prose).
 */
const parseJson = (text: string): { readonly value: unknown } | undefined => {
  const first = text.trimStart().charCodeAt(0)
  const opens = first === 0x7b || first === 0x5b || first === 0x22 || first === 0x2d ||
    (first >= 0x30 && first <= 0x39) || first === 0x74 || first === 0x66 || first === 0x6e
  if (!opens) return undefined
  try {
    return { value: JSON.parse(text) as unknown }
  } catch {
    return undefined
  }
}

/** A call's `arguments` as its `params`: `{}` for `""`, the JSON value, or the text itself when not JSON. @internal */
export const parseArguments = (text: string): unknown => {
  if (text === "") return {}
  const parsed = parseJson(text)
  return parsed === undefined ? text : parsed.value
}

/** `JSON.stringify(params)`, `""` for what it cannot write (`undefined`). @internal */
export const stringifyParams = (params: unknown): string => JSON.stringify(params) ?? ""

/** A result as a message's content: a string as it is, anything else written as JSON. @internal */
export const resultText = (result: unknown): string => typeof result === "string" ? result : stringifyParams(result)

/** A tool result's content as a JSON value, unless it is not JSON or is a JSON string. @internal */
export const parseResult = (content: string): unknown => {
  const parsed = parseJson(content)
  return parsed === undefined || typeof parsed.value === "string" ? content : parsed.value
}

/**
 * The Prompt message a rollmem message becomes, by shape, in this order:
 * with tool calls `"calls"` (an assistant message), with a tool call id
 * `"result"` (a tool message), then by role `"system"`, `"assistant"`, and
 * `"user"` for any other role.
 *
 * @internal
 */
export const shapeOf = (
  message: Pick<MessageFields, "role" | "toolCalls" | "toolCallId">
): "calls" | "result" | "system" | "assistant" | "user" =>
  message.toolCalls.length > 0
    ? "calls"
    : message.toolCallId !== undefined
    ? "result"
    : message.role === "system" || message.role === "assistant"
    ? message.role
    : "user"

/**
 * What a message keeps under `options.rollmem`: its id, its metadata when
 * not empty, its role when the Prompt message's (`promptRole`) differs, and
 * (`withToolCallId`) the tool call id of a message that also has tool calls.
 *
 * @internal
 */
export const messageOptions = (
  message: MessageFields,
  promptRole: string,
  withToolCallId: boolean
): MessageOptions => {
  const out: { -readonly [K in keyof MessageOptions]: MessageOptions[K] } = {}
  if (message.id !== undefined) out.id = message.id
  if (Object.keys(message.metadata).length > 0) out.metadata = message.metadata
  if (message.role !== promptRole) out.role = message.role
  if (withToolCallId && message.toolCallId !== undefined) out.toolCallId = message.toolCallId
  return out
}

/** A call's `params` and what its part keeps under `options.rollmem` (the exact text when it differs). @internal */
export const callPart = (call: ToolCallFields): { readonly params: unknown; readonly rollmem: ToolCallOptions } => {
  const params = parseArguments(call.arguments)
  return { params, rollmem: stringifyParams(params) === call.arguments ? {} : { arguments: call.arguments } }
}

/** A result's `result` and what its part keeps under `options.rollmem` (the exact text when it differs). @internal */
export const resultPart = (content: string): { readonly result: unknown; readonly rollmem: ToolResultOptions } => {
  const result = parseResult(content)
  return { result, rollmem: resultText(result) === content ? {} : { content } }
}

/** The `"rollmem"` entry of a message's or part's provider options, `{}` when it is not an object. @internal */
export const rollmemOptions = (options: { readonly [key: string]: unknown }): Record<string, unknown> => {
  const value = options[OPTIONS_KEY]
  return typeof value === "object" && value !== null ? value as Record<string, unknown> : {}
}

/** A `tool-call` part's `arguments`: the exact text kept under `"rollmem"`, else `JSON.stringify(params)`. @internal */
export const callArguments = (params: unknown, options: { readonly [key: string]: unknown }): string => {
  const exact = rollmemOptions(options).arguments
  return typeof exact === "string" ? exact : stringifyParams(params)
}

/** A `tool-result` part's content: the exact text kept under `"rollmem"`, else {@link resultText}. @internal */
export const resultContent = (result: unknown, options: { readonly [key: string]: unknown }): string => {
  const exact = rollmemOptions(options).content
  return typeof exact === "string" ? exact : resultText(result)
}

/**
 * A message to be, read from a Prompt message: its role, its text, the
 * calls of its `tool-call` parts and the id it answers.
 *
 * @internal
 */
export interface Draft {
  readonly role: string
  readonly content: string
  readonly toolCalls?: ReadonlyArray<ToolCallFields>
  readonly toolCallId?: string
}

/**
 * The role, content and options (`Message.make`'s) of the message a draft
 * gives, the Prompt message's `"rollmem"` options (`extra`, untrusted:
 * each line's message decoder checks them) taking precedence: `role`,
 * `id`, `toolCallId`, `metadata`.
 *
 * @internal
 */
export const draftFields = (
  draft: Draft,
  extra: Record<string, unknown>
): { readonly role: unknown; readonly content: string; readonly options: Record<string, unknown> } => {
  const options: Record<string, unknown> = {}
  if ("id" in extra) options.id = extra.id
  const toolCallId = "toolCallId" in extra ? extra.toolCallId : draft.toolCallId
  if (toolCallId !== undefined) options.toolCallId = toolCallId
  if (draft.toolCalls !== undefined && draft.toolCalls.length > 0) options.toolCalls = draft.toolCalls
  if ("metadata" in extra) options.metadata = extra.metadata
  return { role: "role" in extra ? extra.role : draft.role, content: draft.content, options }
}

const kindOf = (u: unknown): string => u === null ? "null" : Array.isArray(u) ? "an array" : typeof u

/**
 * Why a value is not a `Prompt` that `fromPrompt` can read, or `undefined`
 * when it is one in shape: an object whose `content` is an array of messages,
 * each an object with a role of `system` (content a string), `user`,
 * `assistant` or `tool` (content an array of parts, each an object). Both
 * lines' `fromPrompt` fail with it as `InvalidMessageError` (what a plain
 * JavaScript caller passing `null` or an array of messages gets) instead of
 * a defect.
 *
 * @since 0.4.0
 */
export const promptProblem = (prompt: unknown): string | undefined => {
  const content = typeof prompt === "object" && prompt !== null && !Array.isArray(prompt)
    ? (prompt as { readonly content?: unknown }).content
    : undefined
  if (!Array.isArray(content)) {
    return `expected a Prompt (an object whose content is an array of messages), got ${
      typeof prompt === "object" && prompt !== null && !Array.isArray(prompt) ? "an object without one" : kindOf(prompt)
    }`
  }
  for (let i = 0; i < content.length; i++) {
    const message: unknown = content[i]
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      return `prompt message ${i}: expected a message object, got ${kindOf(message)}`
    }
    const { content: parts, role } = message as { readonly role?: unknown; readonly content?: unknown }
    if (role === "system") {
      if (typeof parts !== "string") return `prompt message ${i}: a system message's content must be a string`
    } else if (role === "user" || role === "assistant" || role === "tool") {
      if (!Array.isArray(parts) || parts.some((part) => typeof part !== "object" || part === null)) {
        return `prompt message ${i}: a ${role} message's content must be an array of parts`
      }
    } else {
      return `prompt message ${i}: role must be "system", "user", "assistant" or "tool", got ${
        typeof role === "string" ? JSON.stringify(role) : kindOf(role)
      }`
    }
  }
  return undefined
}
