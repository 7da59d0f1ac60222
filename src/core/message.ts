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
import { formatValue } from "./format.js"
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

/**
 * The keys a message's options may have (besides `role` and `content` equal
 * to the message's own), in the order the errors list them.
 *
 * @since 0.4.0
 */
export const OPTION_KEYS: ReadonlyArray<"id" | "toolCalls" | "toolCallId" | "metadata"> = [
  "id",
  "toolCalls",
  "toolCallId",
  "metadata"
]

/**
 * Why `options` are not a message's options (not an object, or a key other
 * than {@link OPTION_KEYS}), or `undefined` when they are; `role` and
 * `content` keys are allowed when equal to the message's own (an object
 * spread from a message's fields). Both lines' `Message.make` check with it
 * (docs/contract.md section 9).
 *
 * @since 0.4.0
 */
export const optionsProblem = (role: unknown, content: unknown, options: unknown): string | undefined => {
  if (options === undefined || options === null) return undefined
  if (typeof options !== "object" || Array.isArray(options)) {
    return `options must be an object, got ${formatValue(options)}`
  }
  // for-in allocates no key array (this runs on every add of the facade); inherited keys are not options.
  for (const key in options) {
    if (key === "id" || key === "toolCalls" || key === "toolCallId" || key === "metadata") continue
    if (!Object.hasOwn(options, key)) continue
    const value = (options as Record<string, unknown>)[key]
    if ((key === "role" && value === role) || (key === "content" && value === content)) continue
    return `unknown option ${formatValue(key)}; the options are ${OPTION_KEYS.join(", ")}`
  }
  return undefined
}

const kindOf = (u: unknown): string => u === null ? "null" : Array.isArray(u) ? "an array" : typeof u

/**
 * Why a facade's `addMessage(role, content, options)` cannot take its
 * first argument: a message object passed as the role (`addMessage(msg)`),
 * with what to call instead; `undefined` otherwise (the role's own checks
 * follow). Both lines' facades throw it as `InvalidMessageError`.
 *
 * @since 0.4.0
 */
export const roleArgumentProblem = (role: unknown): string | undefined =>
  typeof role === "object" && role !== null
    ? "addMessage takes (role, content, options) and got a message object as its role: add one message with add(message), several with addMessages(messages)"
    : undefined

/**
 * The messages of a facade's `addMessages` call, each object made a message
 * by `each` (the line's check of one message, which may throw its own
 * error), in order; or, for what is not an array of message objects
 * (`"hi"`, `[null]`), the description of the first problem
 * (`addMessages takes an array of messages, got string`,
 * `message 0: expected a message object, got null`) before the next element
 * is made. Both lines' facades throw it as `InvalidMessageError`.
 *
 * @since 0.4.0
 */
export const messagesOf = <M>(
  messages: unknown,
  each: (message: object) => M
): { readonly messages: Array<M> } | { readonly problem: string } => {
  if (!Array.isArray(messages)) return { problem: `addMessages takes an array of messages, got ${kindOf(messages)}` }
  const out: Array<M> = []
  for (let i = 0; i < messages.length; i++) {
    const m: unknown = messages[i]
    if (typeof m !== "object" || m === null || Array.isArray(m)) {
      return { problem: `message ${i}: expected a message object, got ${kindOf(m)}` }
    }
    out.push(each(m))
  }
  return { messages: out }
}

/**
 * A message's final fields when they have the common shape, checked by hand:
 * string role and content, a string id and answered call id when given,
 * plain tool calls (string id and name, string or absent arguments), no
 * metadata; `undefined` for anything else (metadata, `null`s, a wrong
 * type), which each line's Schema decoder then decides and names. Built once,
 * in the Schema's field order (role, content, id, toolCalls, toolCallId,
 * metadata): each tool call made by the line's `makeToolCall`, `noCalls` for
 * none, `metadata` the line's empty metadata; each line wraps the object in
 * its `Message` prototype. The fast path of both lines' `Message.make`: a
 * test checks that it agrees with the decoder on every input it accepts.
 *
 * @since 0.4.0
 */
export const plainFields = <C, Meta, M extends object>(
  role: unknown,
  content: unknown,
  options: unknown,
  prototype: M,
  makeToolCall: (id: string, name: string, args: string) => C,
  noCalls: ReadonlyArray<C>,
  metadata: Meta
): M | undefined => {
  if (typeof role !== "string" || typeof content !== "string") return undefined
  let id: unknown
  let toolCallId: unknown
  let calls: ReadonlyArray<C> = noCalls
  if (options !== undefined) {
    if (typeof options !== "object" || options === null) return undefined
    const given = options as Record<string, unknown>
    if (given.metadata !== undefined) return undefined
    id = given.id
    toolCallId = given.toolCallId
    if (id !== undefined && typeof id !== "string") return undefined
    if (toolCallId !== undefined && typeof toolCallId !== "string") return undefined
    const toolCalls = given.toolCalls
    if (toolCalls !== undefined) {
      if (!Array.isArray(toolCalls)) return undefined
      if (toolCalls.length > 0) {
        const out: Array<C> = []
        for (let i = 0; i < toolCalls.length; i++) {
          const call: unknown = toolCalls[i]
          if (typeof call !== "object" || call === null) return undefined
          const { arguments: args, id: callId, name } = call as Record<string, unknown>
          if (typeof callId !== "string" || typeof name !== "string") return undefined
          if (args !== undefined && typeof args !== "string") return undefined
          out.push(makeToolCall(callId, name, args ?? ""))
        }
        calls = out
      }
    }
  }
  // one object, its own properties in the Schema's field order: role, content, id, toolCalls, toolCallId, metadata
  const fields = Object.create(prototype) as Record<string, unknown>
  fields.role = role
  fields.content = content
  if (id !== undefined) fields.id = id
  fields.toolCalls = calls
  if (toolCallId !== undefined) fields.toolCallId = toolCallId
  fields.metadata = metadata
  return fields as M
}
