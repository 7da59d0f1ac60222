/**
 * The message model (docs/contract.md sections 1 and 2) in Effect 4's
 * Schema: `Message` holds the fields, and `Message.Wire` is the wire format
 * (snake_case keys, defaults omitted), byte for byte the Effect 3 line's and
 * the Python package's. The token text, response-likeness, string form and
 * freezing are `core/message.ts`'s, shared with the Effect 3 line.
 *
 * @since 1.0.0
 */
import * as Equal from "effect/Equal"
import * as Hash from "effect/Hash"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaGetter from "effect/SchemaGetter"
import { copyJson, isPlainObject, jsonEquals, type JsonObject } from "../../../src/core/json.js"
import * as Core from "../../../src/core/message.js"
import { InvalidMessageError } from "../Errors.js"
import { describeInput } from "./Issue.js"

/** The role of a user message. @since 1.0.0 */
export const USER = "user"
/** The role of an assistant message. @since 1.0.0 */
export const ASSISTANT = "assistant"
/** The role of a system message. @since 1.0.0 */
export const SYSTEM = "system"
/** The role of a tool result. @since 1.0.0 */
export const TOOL = "tool"

/**
 * A tool call of an assistant message: its id, the tool's name and the arguments (a string, `""` when none).
 *
 * @since 1.0.0
 */
export class ToolCall extends Schema.Class<ToolCall>("rollmem/ToolCall")({
  id: Schema.String,
  name: Schema.String,
  arguments: Schema.String
}) {
  /** `name(arguments)`, as the token text and the string form show the call. */
  get signature(): string {
    return Core.signature(this)
  }
}

/** Metadata: a JSON object (docs/contract.md section 1). @since 1.0.0 */
export const Metadata = Schema.declare((u: unknown): u is JsonObject => isPlainObject(u), {
  identifier: "JsonObject",
  description: "a JSON object"
})

const emptyToolCalls: ReadonlyArray<ToolCall> = Object.freeze([])
const emptyMetadata: JsonObject = Object.freeze({})

/**
 * A conversation message (docs/contract.md section 1): a role, its content,
 * an optional id, tool calls (assistant), the id of the call a tool result
 * answers, and JSON metadata. Build one with {@link make} (or {@link user},
 * {@link assistant}, ...), read one from the wire with {@link decodeUnknown}.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 * const m = Message.user("hello")
 * String(m) // "user: hello"
 * ```
 *
 * @since 1.0.0
 */
export class Message extends Schema.Class<Message>("rollmem/Message")({
  role: Schema.String,
  content: Schema.String,
  id: Schema.optionalKey(Schema.String),
  toolCalls: Schema.Array(ToolCall),
  toolCallId: Schema.optionalKey(Schema.String),
  metadata: Metadata
}) {
  /**
   * Builds a message, checked, as the module's {@link make} does, from its
   * role, content and options or from one object of its fields (the form
   * `Schema.Class` gives every class, here with the message's defaults and
   * checks): throws `InvalidMessageError` on a wrong field or an unknown
   * option key, never Schema's error.
   *
   * @example
   * ```ts
   * import { Message } from "rollmem/promise"
   *
   * Message.make("tool", "42", { toolCallId: "c1" }) // a tool result for call c1
   * Message.make({ role: "tool", content: "42", toolCallId: "c1" }) // the same message
   * ```
   *
   * @since 1.0.0
   */
  static override make(role: string, content: string, options?: MessageOptions): Message
  static override make(fields: { readonly role: string; readonly content: string } & MessageOptions): Message
  static override make(...args: ReadonlyArray<unknown>): Message {
    const [first, content, options] = args
    if (typeof first === "object" && first !== null) {
      const fields = first as { readonly role?: unknown; readonly content?: unknown }
      return make(fields.role as string, fields.content as string, fields as MessageOptions)
    }
    return make(first as string, content as string, options as MessageOptions | undefined)
  }

  /** The text a counter counts (docs/contract.md section 3). */
  get tokenText(): string {
    return Core.tokenText(this)
  }

  /** Whether this message may not open a buffer after eviction: `assistant`, `tool`, or a tool call id. */
  get isResponseLike(): boolean {
    return Core.isResponseLike(this)
  }

  /** `"{role}: {content}"`, then `" [tool calls: name(arguments), ...]"`. */
  override toString(): string {
    return Core.render(this)
  }

  /** The wire format (docs/contract.md section 2). */
  toJSON(): Encoded {
    return toWire(this)
  }

  [Equal.symbol](that: Equal.Equal): boolean {
    if (!(that instanceof Message)) return false
    if (
      this.role !== that.role || this.content !== that.content || this.id !== that.id ||
      this.toolCallId !== that.toolCallId || this.toolCalls.length !== that.toolCalls.length
    ) return false
    for (let i = 0; i < this.toolCalls.length; i++) {
      const a = this.toolCalls[i]
      const b = that.toolCalls[i]
      if (a.id !== b.id || a.name !== b.name || a.arguments !== b.arguments) return false
    }
    return jsonEquals(this.metadata, that.metadata)
  }

  [Hash.symbol](): number {
    let h = Hash.string(this.role)
    h = Hash.combine(h, Hash.string(this.content))
    h = Hash.combine(h, Hash.string(this.id ?? "\u0000"))
    h = Hash.combine(h, Hash.string(this.toolCallId ?? "\u0000"))
    for (const c of this.toolCalls) h = Hash.combine(h, Hash.string(c.signature))
    return Hash.optimize(h)
  }
}

/** A message's fields as the wire format writes them (docs/contract.md section 2). @since 1.0.0 */
export interface Encoded {
  readonly role: string
  readonly content: string
  readonly id?: string
  readonly tool_calls?: ReadonlyArray<{ readonly id: string; readonly name: string; readonly arguments: string }>
  readonly tool_call_id?: string
  readonly metadata?: JsonObject
}

// An instance exactly as the class's constructor builds it, for fields already checked.
const trustedToolCall = (id: string, name: string, args: string): ToolCall =>
  Object.assign(Object.create(ToolCall.prototype) as ToolCall, { id, name, arguments: args })

const trusted = (fields: {
  role: string
  content: string
  id?: string
  toolCalls: ReadonlyArray<ToolCall>
  toolCallId?: string
  metadata: JsonObject
}): Message => Object.assign(Object.create(Message.prototype) as Message, fields)

const checkMetadata = (u: unknown): string | undefined => {
  if (u === undefined || u === null) return undefined
  if (!isPlainObject(u)) return "metadata must be a JSON object"
  const copied = copyJson(u, 0, "metadata")
  return typeof copied === "string" ? copied : undefined
}

const WireToolCall = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  arguments: Schema.optionalKey(Schema.NullOr(Schema.String))
})

/**
 * The wire format of a message (docs/contract.md section 2): `role` and
 * `content` strings; `id`, `tool_calls`, `tool_call_id` and `metadata`
 * optional (or `null`); a call's `arguments` optional (or `null`).
 *
 * @since 1.0.0
 */
export const WireFields = Schema.Struct({
  role: Schema.String,
  content: Schema.String,
  id: Schema.optionalKey(Schema.NullOr(Schema.String)),
  tool_calls: Schema.optionalKey(Schema.NullOr(Schema.Array(WireToolCall))),
  tool_call_id: Schema.optionalKey(Schema.NullOr(Schema.String)),
  metadata: Schema.optionalKey(Schema.Unknown.check(Schema.makeFilter((u) => checkMetadata(u) ?? true)))
})

type WireType = typeof WireFields.Type

const fromWire = (wire: WireType): Message => {
  // the Schema's field order: role, content, id, toolCalls, toolCallId, metadata
  const fields: Record<string, unknown> = { role: wire.role, content: wire.content }
  if (wire.id !== undefined && wire.id !== null) fields.id = wire.id
  const calls = wire.tool_calls
  fields.toolCalls = calls === undefined || calls === null || calls.length === 0
    ? emptyToolCalls
    : calls.map((c) => trustedToolCall(c.id, c.name, c.arguments ?? ""))
  if (wire.tool_call_id !== undefined && wire.tool_call_id !== null) fields.toolCallId = wire.tool_call_id
  const metadata = wire.metadata
  if (metadata === undefined || metadata === null) fields.metadata = emptyMetadata
  else {
    const copied = copyJson(metadata, 0, "metadata")
    fields.metadata = typeof copied === "string" ? emptyMetadata : copied.value
  }
  return trusted(fields as Parameters<typeof trusted>[0])
}

/**
 * A message's wire form (docs/contract.md section 2): keys in the order
 * `role`, `content`, `id`, `tool_calls`, `tool_call_id`, `metadata`; empty
 * tool calls and metadata left out.
 *
 * @since 1.0.0
 */
export const toWire = (message: Message): Encoded => {
  const out: { -readonly [K in keyof Encoded]: Encoded[K] } = { role: message.role, content: message.content }
  if (message.id !== undefined) out.id = message.id
  if (message.toolCalls.length > 0) {
    out.tool_calls = message.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments }))
  }
  if (message.toolCallId !== undefined) out.tool_call_id = message.toolCallId
  if (Object.keys(message.metadata).length > 0) out.metadata = message.metadata
  return out
}

/**
 * The wire format as a schema: decodes the wire form into a `Message`
 * (unknown keys refused unless the caller says otherwise), encodes a
 * `Message` into its wire form.
 *
 * @since 1.0.0
 */
export const Wire = WireFields.pipe(
  Schema.decodeTo(Schema.declare((u: unknown): u is Message => u instanceof Message, { identifier: "Message" }), {
    decode: SchemaGetter.transform(fromWire),
    encode: SchemaGetter.transform((message: Message): WireType => toWire(message) as WireType)
  })
)

const decodeWire = Schema.decodeUnknownResult(Wire)

/**
 * **The** message decoder: a wire-format object to a `Message`, or the
 * `InvalidMessageError` naming the first wrong field.
 *
 * @since 1.0.0
 */
export const decodeUnknown = (input: unknown): Result.Result<Message, InvalidMessageError> => {
  const decoded = decodeWire(input, { errors: "all" })
  return Result.isSuccess(decoded)
    ? Result.succeed(decoded.success)
    : Result.fail(
      new InvalidMessageError({
        description: describeInput(decoded.failure.issue, input, { messageLevel: 1, name: "message" })
      })
    )
}

/** The options of {@link make}: an id, tool calls, the answered call's id, metadata. @since 1.0.0 */
export interface MessageOptions {
  readonly id?: string | undefined
  readonly toolCalls?:
    | ReadonlyArray<ToolCall | { readonly id: string; readonly name: string; readonly arguments?: string }>
    | undefined
  readonly toolCallId?: string | undefined
  readonly metadata?: JsonObject | undefined
}

/**
 * A message from its role, content and options, checked: throws
 * `InvalidMessageError` on a wrong field or an unknown option key.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 * Message.make("assistant", "", { toolCalls: [{ id: "c1", name: "now" }] }).tokenText // "now()"
 * ```
 *
 * @since 1.0.0
 */
export const make = (role: string, content: string, options?: MessageOptions): Message => {
  const problem = Core.optionsProblem(role, content, options)
  if (problem !== undefined) throw new InvalidMessageError({ description: problem })
  // the common shapes checked by hand (`core/message.ts`), as the Effect 3 line does
  const fast = Core.plainFields(
    role,
    content,
    options,
    Message.prototype,
    trustedToolCall,
    emptyToolCalls,
    emptyMetadata
  )
  if (fast !== undefined) return fast
  const wire: Record<string, unknown> = { role, content }
  if (options?.id !== undefined) wire.id = options.id
  if (options?.toolCalls !== undefined) {
    wire.tool_calls = Array.isArray(options.toolCalls)
      ? options.toolCalls.map((c: unknown) =>
        c instanceof ToolCall ? { id: c.id, name: c.name, arguments: c.arguments } : c
      )
      : options.toolCalls
  }
  if (options?.toolCallId !== undefined) wire.tool_call_id = options.toolCallId
  if (options?.metadata !== undefined) wire.metadata = options.metadata
  const decoded = decodeUnknown(wire)
  if (Result.isFailure(decoded)) throw decoded.failure
  return decoded.success
}

/** A user message. @since 1.0.0 */
export const user = (content: string, options?: MessageOptions): Message => make(USER, content, options)
/** An assistant message. @since 1.0.0 */
export const assistant = (content: string, options?: MessageOptions): Message => make(ASSISTANT, content, options)
/** A system message. @since 1.0.0 */
export const system = (content: string, options?: MessageOptions): Message => make(SYSTEM, content, options)
/** A tool result. @since 1.0.0 */
export const tool = (content: string, options?: MessageOptions): Message => make(TOOL, content, options)

/** Freezes a message deeply (every stored message is frozen); returns it. @since 1.0.0 */
export const freeze = (message: Message): Message => Core.freeze(message)

/**
 * A message with its content replaced, every other field kept: a cleared
 * tool result (docs/contract.md section 10.5), a cut one (section 10.8).
 *
 * @since 1.0.0
 */
export const withContent = (message: Message, content: string): Message => {
  const fields: Record<string, unknown> = { role: message.role, content }
  if (message.id !== undefined) fields.id = message.id
  fields.toolCalls = message.toolCalls
  if (message.toolCallId !== undefined) fields.toolCallId = message.toolCallId
  fields.metadata = message.metadata
  return trusted(fields as Parameters<typeof trusted>[0])
}
