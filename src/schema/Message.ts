/**
 * The message model shared by every strategy, and its wire format.
 *
 * A {@link Message} holds camelCase fields (`toolCalls`, `toolCallId`); its
 * encoded side is the wire format of docs/contract.md section 2 (`tool_calls`,
 * `tool_call_id`, defaults omitted, a tool call's `arguments` always written).
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 * import { Schema } from "effect"
 *
 * const call = new Message.Message({
 *   role: Message.ASSISTANT,
 *   content: "",
 *   toolCalls: [new Message.ToolCall({ id: "c1", name: "search", arguments: "{\"q\":\"rome\"}" })]
 * })
 * call.tokenText // "search({\"q\":\"rome\"})"
 * String(call) // "assistant:  [tool calls: search({\"q\":\"rome\"})]"
 * Schema.encodeSync(Message.Message)(call)
 * // { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "search", arguments: "{\"q\":\"rome\"}" }] }
 * ```
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Equal from "effect/Equal"
import * as Hash from "effect/Hash"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as MessageCore from "../core/message.js"
import { InvalidMessageError } from "../Errors.js"
import { jsonEquals, jsonHash, type JsonObject, JsonObjectSchema } from "./Json.js"

/**
 * The role of a message written by the user.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 *
 * Message.make(Message.USER, "Book me a flight to Rome").role // "user"
 * ```
 *
 * @since 0.1.0
 * @category constants
 */
export const USER = "user"

/**
 * The role of a message written by the model.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 *
 * Message.make(Message.ASSISTANT, "For which dates?").role // "assistant"
 * ```
 *
 * @since 0.1.0
 * @category constants
 */
export const ASSISTANT = "assistant"

/**
 * The role of a system message (also the role of the summary when read back).
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 *
 * Message.make(Message.SYSTEM, "You are a travel agent.").role // "system"
 * ```
 *
 * @since 0.1.0
 * @category constants
 */
export const SYSTEM = "system"

/**
 * The role of a tool result.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 *
 * Message.make(Message.TOOL, "18C, sunny", { toolCallId: "c1" }).role // "tool"
 * ```
 *
 * @since 0.1.0
 * @category constants
 */
export const TOOL = "tool"

/**
 * One call a message asks a tool to make. `arguments` is a string (usually
 * JSON), `""` when absent on the wire; it is always written.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 *
 * const call = new Message.ToolCall({ id: "c1", name: "weather", arguments: "{\"city\":\"Rome\"}" })
 * Message.assistant("", { toolCalls: [call] }).tokenText // "weather({\"city\":\"Rome\"})"
 * ```
 *
 * @since 0.1.0
 * @category schemas
 */
export class ToolCall extends Schema.Class<ToolCall>("rollmem/ToolCall")({
  id: Schema.String,
  name: Schema.String,
  arguments: Schema.optionalWith(Schema.String, { default: () => "", nullable: true })
}) {
  /**
   * `name(arguments)`, the form a tool call takes in token text and in a
   * message's string form.
   *
   * @since 0.1.0
   */
  get signature(): string {
    return MessageCore.signature(this)
  }
}

const emptyToolCalls: ReadonlyArray<ToolCall> = Object.freeze([])
const emptyMetadata: JsonObject = Object.freeze({})

const ToolCalls = Schema.Array(ToolCall)

/**
 * A conversation message: role, content, and the optional id, tool calls,
 * tool call id and metadata of docs/contract.md section 1.
 *
 * - `role`: any string; see {@link USER}, {@link ASSISTANT}, {@link SYSTEM}, {@link TOOL}.
 * - `content`: may be empty.
 * - `id`, `toolCallId`: absent unless given; `""` is present.
 * - `toolCalls`: default empty; wire key `tool_calls`, omitted when empty.
 * - `metadata`: JSON data, never interpreted nor counted; omitted when empty.
 *
 * Two messages with equal fields are `Equal.equals` (tool calls and metadata
 * compared deeply). `new Message(...)` validates its fields and throws
 * Schema's `ParseError` on bad ones: build messages with {@link make},
 * {@link user}... or the class's own `Message.make` (which throw
 * {@link InvalidMessageError}) or {@link decodeFields} (which returns it),
 * and decode untrusted wire input with {@link decodeUnknown}.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 * import { Schema } from "effect"
 *
 * const m = new Message.Message({ role: "user", content: "Book me a flight to Rome" })
 * Schema.encodeSync(Message.Message)(m) // { role: "user", content: "Book me a flight to Rome" }
 * ```
 *
 * @since 0.1.0
 * @category schemas
 */
export class Message extends Schema.Class<Message>("rollmem/Message")({
  role: Schema.String,
  content: Schema.String,
  id: Schema.optionalWith(Schema.String, { nullable: true, exact: true }),
  toolCalls: Schema.optionalToRequired(Schema.NullOr(ToolCalls), Schema.typeSchema(ToolCalls), {
    decode: (o) => Option.getOrElse(Option.flatMap(o, Option.fromNullable), () => emptyToolCalls),
    encode: (calls): Option.Option<ReadonlyArray<ToolCall> | null> =>
      calls.length === 0 ? Option.none() : Option.some(calls)
  }).pipe(Schema.fromKey("tool_calls"), Schema.withConstructorDefault(() => emptyToolCalls)),
  toolCallId: Schema.optionalWith(Schema.String, { nullable: true, exact: true }).pipe(
    Schema.fromKey("tool_call_id")
  ),
  metadata: Schema.optionalToRequired(Schema.NullOr(JsonObjectSchema), Schema.typeSchema(JsonObjectSchema), {
    decode: (o) => Option.getOrElse(Option.flatMap(o, Option.fromNullable), () => emptyMetadata),
    encode: (m): Option.Option<JsonObject | null> => Object.keys(m).length === 0 ? Option.none() : Option.some(m)
  }).pipe(Schema.withConstructorDefault(() => emptyMetadata))
}) {
  /**
   * Builds a message as the module's {@link make} does, in either form:
   * `Message.make(role, content, options?)`, or `Message.make({ role,
   * content, ...options })` (the Schema class's own form). Throws
   * {@link InvalidMessageError} (never Schema's `ParseError`) when a field
   * has the wrong type or a key is not a message field: a misspelt
   * `toolCallID` is refused, naming it, never dropped. This is the
   * `Message.make` of `rollmem/promise`, where `Message` is this class.
   *
   * @example
   * ```ts
   * import { Message } from "rollmem/promise"
   *
   * Message.make("tool", "42", { toolCallId: "c1" }) // a tool result for call c1
   * Message.make({ role: "tool", content: "42", toolCallId: "c1" }) // the same message
   * Message.make({ role: "tool", content: "42", toolCallID: "c1" } as never)
   * // throws InvalidMessageError: unknown option "toolCallID"; the options are id, toolCalls, toolCallId, metadata
   * ```
   *
   * @since 0.4.0
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

  /**
   * What a token counter is given for this message (docs/contract.md section 1): the
   * content if not empty, then `name(arguments)` for each tool call, then the
   * tool call id if present, joined with `"\n"`. A message without tool
   * fields has exactly its content as token text.
   *
   * @since 0.1.0
   */
  get tokenText(): string {
    return MessageCore.tokenText(this)
  }

  /**
   * Whether this message may not open a buffer after eviction (docs/contract.md section 4):
   * its role is `assistant` or `tool`, or it has a tool call id.
   *
   * @since 0.1.0
   */
  get isResponseLike(): boolean {
    return MessageCore.isResponseLike(this)
  }

  /**
   * The string form of docs/contract.md section 1: `"{role}: {content}"`, followed by
   * `" [tool calls: name(arguments), ...]"` when the message has tool calls.
   *
   * @since 0.1.0
   */
  override toString(): string {
    return MessageCore.render(this)
  }

  /**
   * The wire format of docs/contract.md section 2 (snake_case keys, defaults omitted),
   * so `JSON.stringify(memory.getMessages())` writes what `fromJSON` reads.
   *
   * @since 0.1.0
   */
  toJSON(): Encoded {
    return encodeMessage(this)
  }

  /** @since 0.1.0 */
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

  /** @since 0.1.0 */
  [Hash.symbol](): number {
    let h = Hash.string(this.role)
    h = Hash.combine(Hash.string(this.content))(h)
    h = Hash.combine(Hash.hash(this.id))(h)
    h = Hash.combine(Hash.hash(this.toolCallId))(h)
    for (const c of this.toolCalls) h = Hash.combine(Hash.string(c.signature))(h)
    h = Hash.combine(jsonHash(this.metadata))(h)
    // not cached on the instance: stored messages are frozen
    return Hash.optimize(h)
  }
}

/**
 * The wire-format (encoded) shape of a {@link Message}.
 *
 * @since 0.1.0
 * @category models
 */
export type Encoded = typeof Message.Encoded

const encodeMessage = (message: Message): Encoded => Schema.encodeSync(Message)(message)

/**
 * Freezes a message with its tool calls and metadata, so the value a memory
 * stores (and hands back) cannot be changed behind its back (docs/contract.md section 1:
 * messages are immutable values). Every memory freezes each message it adds.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 *
 * const m = Message.freeze(Message.user("hi", { metadata: { source: "web" } }))
 * Object.isFrozen(m.metadata) // true
 * ```
 *
 * @since 0.1.0
 * @category combinators
 */
export const freeze = (message: Message): Message => MessageCore.freeze(message)

/**
 * Options accepted by the message constructors {@link user}, {@link assistant},
 * {@link system}, {@link tool}, {@link make} and {@link decodeFields}. Any
 * other key is refused (`InvalidMessageError`: `unknown option "toolCallID";
 * the options are id, toolCalls, toolCallId, metadata`), except `role` and
 * `content` equal to the message's own, so a message can be passed as its
 * own options.
 *
 * @since 0.1.0
 * @category models
 */
export interface MessageOptions {
  readonly id?: string | undefined
  readonly toolCalls?:
    | ReadonlyArray<ToolCall | { readonly id: string; readonly name: string; readonly arguments?: string }>
    | undefined
  readonly toolCallId?: string | undefined
  readonly metadata?: JsonObject | undefined
}

// An instance exactly as the Schema constructor builds it (the prototype, then
// the fields as own properties, defaults filled), for fields already checked:
// the constructor's generic merge of defaults costs microseconds per message.
const unsafeToolCall = (id: string, name: string, args: string): ToolCall =>
  Object.assign(Object.create(ToolCall.prototype) as ToolCall, { id, name, arguments: args })

/**
 * The keys {@link MessageOptions} may have.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 *
 * Message.OPTION_KEYS // ["id", "toolCalls", "toolCallId", "metadata"]
 * ```
 *
 * @since 0.2.0
 * @category constants
 */
export const OPTION_KEYS: ReadonlyArray<keyof MessageOptions> = MessageCore.OPTION_KEYS

/**
 * Why `options` are not options at all (not an object, or a key
 * {@link MessageOptions} does not have), or `undefined` when they are.
 * `role` and `content` keys are allowed when equal to the message's own.
 */
const optionsProblem = MessageCore.optionsProblem

/**
 * The common shapes of a message's fields, checked by hand (`core/message.ts`
 * `plainFields`, shared with the Effect 4 line): strings, plain tool calls,
 * no metadata. Anything else gives `undefined`, and the Schema decoder,
 * which names the error, decides. A test checks that both agree on every
 * input this accepts.
 */
const fastFields = (role: unknown, content: unknown, options: unknown): Message | undefined =>
  MessageCore.plainFields(role, content, options, Message.prototype, unsafeToolCall, emptyToolCalls, emptyMetadata)

/**
 * Builds a message from a role, content and options ({@link MessageOptions}).
 * A synchronous constructor: it throws {@link InvalidMessageError} (never
 * Schema's `ParseError`) when a field has the wrong type or an option is
 * unknown; inside an `Effect`, use {@link decodeFields} to get the error
 * typed (`Effect.fromEither`) instead of a defect.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 *
 * Message.make("tool", "42", { toolCallId: "c1" }) // a tool result for call c1
 * Message.make("tool", "42", { toolCallID: "c1" } as Message.MessageOptions)
 * // throws InvalidMessageError: unknown option "toolCallID"; the options are id, toolCalls, toolCallId, metadata
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (role: string, content: string, options?: MessageOptions): Message => {
  const decoded = decodeFields(role, content, options)
  if (Either.isLeft(decoded)) throw decoded.left
  return decoded.right
}

/**
 * A `user` message. Throws {@link InvalidMessageError} as {@link make} does.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 *
 * const m = Message.user("Book me a flight to Rome")
 * String(m) // "user: Book me a flight to Rome"
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const user = (content: string, options?: MessageOptions): Message => make(USER, content, options)

/**
 * An `assistant` message (pass `toolCalls` in the options for a tool call). Throws {@link InvalidMessageError} as {@link make} does.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 *
 * const call = Message.assistant("", { toolCalls: [{ id: "c1", name: "search", arguments: "{}" }] })
 * String(call) // "assistant:  [tool calls: search({})]" (two spaces, as the Python package writes it)
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const assistant = (content: string, options?: MessageOptions): Message => make(ASSISTANT, content, options)

/**
 * A `system` message. Throws {@link InvalidMessageError} as {@link make} does.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 *
 * const prompt = Message.system("You are a travel agent.")
 * prompt.role // "system"
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const system = (content: string, options?: MessageOptions): Message => make(SYSTEM, content, options)

/**
 * A `tool` result; `toolCallId` links it to the call it answers. Throws {@link InvalidMessageError} as {@link make} does.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 *
 * const result = Message.tool("[{\"flight\":\"AZ 611\"}]", { toolCallId: "c1" })
 * result.toolCallId // "c1"
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const tool = (content: string, options?: MessageOptions): Message => make(TOOL, content, options)

const decodeWire = Schema.decodeUnknownEither(Message)

/**
 * Decodes one message in the wire format (`{ role, content, tool_calls?,
 * tool_call_id?, id?, metadata? }`, docs/contract.md section 2) from
 * untrusted input: the decoder every message of rollmem goes through
 * ({@link decodeFields}, the `@effect/ai` prompt conversion). Fails with
 * {@link InvalidMessageError} built by `InvalidMessageError.fromParseError`:
 * the wrong fields named, metadata nested deeper than 100 levels or
 * containing itself named by its path, a huge wrong value cut to 80
 * characters with its size, at most 2,000 characters in all.
 *
 * @example
 * ```ts
 * import { Either } from "effect"
 * import { Message } from "rollmem"
 *
 * const decoded = Message.decodeUnknown(JSON.parse("{\"role\":\"tool\",\"content\":\"42\",\"tool_call_id\":\"c1\"}"))
 * if (Either.isRight(decoded)) decoded.right.toolCallId // "c1"
 * Message.decodeUnknown({ role: "user" }) // Either.left(InvalidMessageError "content: is missing")
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const decodeUnknown = (input: unknown): Either.Either<Message, InvalidMessageError> =>
  Either.mapLeft(decodeWire(input, { errors: "all" }), (error) => InvalidMessageError.fromParseError({ error, input }))

/**
 * Builds a message from untrusted fields (a facade's arguments, parsed
 * input), validating every field and copying metadata safely
 * (prototype-safe, at most 100 levels deep). Tool calls may be given as
 * `ToolCall`s or plain `{ id, name, arguments? }` objects.
 *
 * Fails with `InvalidMessageError` naming the wrong field or the unknown
 * option (see {@link MessageOptions}); the description is bounded like
 * `MemoryState.fromJSON`'s (see {@link decodeUnknown}).
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 *
 * Message.decodeFields("assistant", "", { toolCalls: [{ id: "c1", name: "search", arguments: "{}" }] }) // Either.right(Message)
 * Message.decodeFields("user", 42) // Either.left(InvalidMessageError "content: Expected string, actual 42")
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const decodeFields = (
  role: unknown,
  content: unknown,
  options?: MessageOptions | undefined
): Either.Either<Message, InvalidMessageError> => {
  const problem = optionsProblem(role, content, options)
  if (problem !== undefined) return Either.left(new InvalidMessageError({ description: problem }))
  const fast = fastFields(role, content, options)
  if (fast !== undefined) return Either.right(fast)
  const o: Record<string, unknown> = typeof options === "object" && options !== null ? { ...options } : {}
  const wire: Record<string, unknown> = { role, content }
  if (o.id !== undefined) wire.id = o.id
  if (o.toolCallId !== undefined) wire.tool_call_id = o.toolCallId
  if (o.toolCalls !== undefined) {
    wire.tool_calls = Array.isArray(o.toolCalls)
      ? o.toolCalls.map((c: unknown) => c instanceof ToolCall ? { id: c.id, name: c.name, arguments: c.arguments } : c)
      : o.toolCalls
  }
  if (o.metadata !== undefined) wire.metadata = o.metadata
  return decodeUnknown(wire)
}
