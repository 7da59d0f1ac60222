/**
 * A message's derived forms as plain functions over its fields (no `effect`
 * import): the token text a counter counts, whether it reads as a response,
 * its string form, freezing, and the eviction entry it is appended with.
 * Each Effect line's `Message` class reads them, so both count, print and
 * evict the same (docs/contract.md sections 1 and 3).
 *
 * @since 0.4.0
 */
import type { Entry } from "./eviction.js"
import type { JsonObject } from "./json.js"

/**
 * A tool call's fields: its id, the tool's name and the arguments (a string, `""` when none).
 *
 * @since 0.4.0
 */
export interface ToolCallFields {
  readonly id: string
  readonly name: string
  readonly arguments: string
}

/**
 * A message's fields as both lines' `Message` classes hold them (docs/contract.md section 1).
 *
 * @since 0.4.0
 */
export interface MessageFields {
  readonly role: string
  readonly content: string
  readonly id?: string | undefined
  readonly toolCalls: ReadonlyArray<ToolCallFields>
  readonly toolCallId?: string | undefined
  readonly metadata: JsonObject
}

/** A tool call as its message's token text and string form show it: `name(arguments)`. @since 0.4.0 */
export const signature = (call: ToolCallFields): string => `${call.name}(${call.arguments})`

/**
 * The text a counter counts for a message (docs/contract.md section 3): the
 * content, then each call's signature, then the result's call id, joined
 * with newlines (the content alone when the message has neither).
 *
 * @since 0.4.0
 */
export const tokenText = (message: MessageFields): string => {
  if (message.toolCalls.length === 0 && message.toolCallId === undefined) return message.content
  const parts: Array<string> = []
  if (message.content !== "") parts.push(message.content)
  for (const call of message.toolCalls) parts.push(signature(call))
  if (message.toolCallId !== undefined) parts.push(message.toolCallId)
  return parts.join("\n")
}

/** Whether a message reads as a response (`assistant`, `tool`, or any tool result): what alignment keeps together. @since 0.4.0 */
export const isResponseLike = (message: Pick<MessageFields, "role" | "toolCallId">): boolean =>
  message.role === "assistant" || message.role === "tool" || message.toolCallId !== undefined

/** A message's string form: `role: content`, then its tool calls' signatures. @since 0.4.0 */
export const render = (message: MessageFields): string => {
  const head = `${message.role}: ${message.content}`
  if (message.toolCalls.length === 0) return head
  return `${head} [tool calls: ${message.toolCalls.map(signature).join(", ")}]`
}

const deepFreeze = (value: unknown): void => {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return
  Object.freeze(value)
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
}

/** Freezes a message, its tool calls and its metadata, deeply (a stored message never changes); returns it. @since 0.4.0 */
export const freeze = <M extends MessageFields>(message: M): M => {
  if (!Object.isFrozen(message)) {
    for (const call of message.toolCalls) Object.freeze(call)
    Object.freeze(message.toolCalls)
    deepFreeze(message.metadata)
    Object.freeze(message)
  }
  return message
}

const noIds: ReadonlyArray<string> = []

/**
 * The eviction entry of a message with its count (`core/eviction.ts`):
 * the one place every stored message passes, so it freezes the message;
 * `position` is its place in the conversation when positions are kept.
 *
 * @since 0.4.0
 */
export const entryOf = (message: MessageFields, tokens: number, position?: number): Entry => ({
  tokens: (freeze(message), tokens),
  position,
  responseLike: isResponseLike(message),
  callIds: message.toolCalls.length === 0 ? noIds : message.toolCalls.map((call) => call.id),
  resultId: message.toolCallId,
  userTurn: message.role === "user" && message.toolCallId === undefined,
  systemLike: (message.role === "system" || message.role === "developer") && message.toolCalls.length === 0 &&
    message.toolCallId === undefined
})
