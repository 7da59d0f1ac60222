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

/** Provider options as both lines' `Prompt` values hold them: an object keyed by provider. @internal */
export type ProviderOptions = { readonly [key: string]: unknown }

/**
 * The constructors of one line's `Prompt` values (`@effect/ai` on the
 * Effect 3 line, `effect/ai` on the Effect 4 line) that {@link toPromptMessage}
 * builds with: `M` a Prompt message, `P` a part. `options` are the
 * `"rollmem"` entry's fields ({@link MessageOptions}, {@link ToolCallOptions},
 * {@link ToolResultOptions}), `{}` when there are none.
 *
 * @internal
 */
export interface PromptBuilder<M, P> {
  readonly text: (text: string) => P
  readonly toolCall: (part: {
    readonly id: string
    readonly name: string
    readonly params: unknown
    readonly options: ToolCallOptions
  }) => P
  readonly toolResult: (part: {
    readonly id: string
    readonly name: string
    readonly result: unknown
    readonly options: ToolResultOptions
  }) => P
  readonly system: (content: string, options: MessageOptions) => M
  readonly user: (content: Array<P>, options: MessageOptions) => M
  readonly assistant: (content: Array<P>, options: MessageOptions) => M
  readonly tool: (content: Array<P>, options: MessageOptions) => M
}

/**
 * The Prompt message a rollmem message becomes ({@link shapeOf}), built with
 * a line's constructors. `toolName` names the call a tool result answers
 * (`""` when unknown).
 *
 * @internal
 */
export const toPromptMessage = <M, P>(build: PromptBuilder<M, P>, message: MessageFields, toolName: string): M => {
  const text = (content: string): Array<P> => content === "" ? [] : [build.text(content)]
  switch (shapeOf(message)) {
    case "calls": {
      const content = text(message.content)
      for (const call of message.toolCalls) {
        const { params, rollmem } = callPart(call)
        content.push(build.toolCall({ id: call.id, name: call.name, params, options: rollmem }))
      }
      return build.assistant(content, messageOptions(message, "assistant", true))
    }
    case "result": {
      const { result, rollmem } = resultPart(message.content)
      return build.tool(
        [build.toolResult({ id: message.toolCallId ?? "", name: toolName, result, options: rollmem })],
        messageOptions(message, "tool", false)
      )
    }
    case "system":
      return build.system(message.content, messageOptions(message, "system", false))
    case "assistant":
      return build.assistant(text(message.content), messageOptions(message, "assistant", false))
    case "user":
      return build.user(text(message.content), messageOptions(message, "user", false))
  }
}

/**
 * Messages (oldest first) as Prompt messages, each tool result named after
 * the latest earlier call with its id.
 *
 * @internal
 */
export const toPromptMessages = <M, P>(build: PromptBuilder<M, P>, messages: Iterable<MessageFields>): Array<M> => {
  const names = new Map<string, string>()
  const out: Array<M> = []
  for (const message of messages) {
    out.push(
      toPromptMessage(build, message, message.toolCallId === undefined ? "" : names.get(message.toolCallId) ?? "")
    )
    for (const call of message.toolCalls) names.set(call.id, call.name)
  }
  return out
}

/** A part of a Prompt message as both lines' `Prompt` values have it, read by its `type`. @internal */
export interface PromptPart {
  readonly type: string
}

/** A Prompt message as both lines' `Prompt` values have it. @internal */
export type PromptMessage =
  | { readonly role: "system"; readonly content: string; readonly options: ProviderOptions }
  | {
    readonly role: "user" | "assistant" | "tool"
    readonly content: ReadonlyArray<PromptPart>
    readonly options: ProviderOptions
  }

interface TextPart extends PromptPart {
  readonly type: "text"
  readonly text: string
}

interface ToolCallPart extends PromptPart {
  readonly type: "tool-call"
  readonly id: string
  readonly name: string
  readonly params: unknown
  readonly options: ProviderOptions
}

interface ToolResultPart extends PromptPart {
  readonly type: "tool-result"
  readonly id: string
  readonly result: unknown
  readonly options: ProviderOptions
}

const textOf = (parts: ReadonlyArray<PromptPart>): string => {
  let text = ""
  for (const part of parts) if (part.type === "text") text += (part as TextPart).text
  return text
}

const callOf = (part: ToolCallPart): ToolCallFields => ({
  id: part.id,
  name: part.name,
  arguments: callArguments(part.params, part.options)
})

const resultDraft = (part: ToolResultPart): Draft => ({
  role: "tool",
  content: resultContent(part.result, part.options),
  toolCallId: part.id
})

/**
 * The messages to be of one Prompt message: a system or user message one;
 * an assistant message one with its text and calls, then one per
 * `tool-result` part (a provider-executed tool; no empty assistant turn
 * when it holds nothing else); a tool message one per `tool-result` part.
 * Other parts (files, reasoning, approvals) are left out.
 *
 * @internal
 */
export const draftsOf = (message: PromptMessage): Array<Draft> => {
  switch (message.role) {
    case "system":
      return [{ role: "system", content: message.content }]
    case "user":
      return [{ role: "user", content: textOf(message.content) }]
    case "assistant": {
      const calls: Array<ToolCallFields> = []
      const results: Array<Draft> = []
      for (const part of message.content) {
        if (part.type === "tool-call") calls.push(callOf(part as ToolCallPart))
        else if (part.type === "tool-result") results.push(resultDraft(part as ToolResultPart))
      }
      const content = textOf(message.content)
      if (content === "" && calls.length === 0 && results.length > 0) return results
      return [{ role: "assistant", content, toolCalls: calls }, ...results]
    }
    case "tool": {
      const results: Array<Draft> = []
      for (const part of message.content) {
        if (part.type === "tool-result") results.push(resultDraft(part as ToolResultPart))
      }
      return results
    }
  }
}

/**
 * The fields (`Message.make`'s role, content and options) of the messages
 * one Prompt message gives ({@link draftsOf}), the message's `"rollmem"`
 * options applied to the first ({@link draftFields}); each line decodes
 * them with its own message decoder.
 *
 * @internal
 */
export const promptMessageFields = (
  message: PromptMessage
): Array<ReturnType<typeof draftFields>> => {
  const extra = rollmemOptions(message.options)
  return draftsOf(message).map((draft, i) => draftFields(draft, i === 0 ? extra : {}))
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
