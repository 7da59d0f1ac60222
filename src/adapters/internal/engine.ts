/**
 * The conversion engine every provider adapter runs on.
 *
 * A format describes how its items (provider messages, input items, contents)
 * become rollmem messages (`derive`, per group of items) and how rollmem
 * messages become items (`render`, the natural form). Reading checks, per
 * group, whether rendering the derived messages gives the group back; when it
 * does not (an image part, a cache-control mark, a refusal, provider options,
 * a legacy field, a boundary the natural form would merge away), the group's
 * items are kept verbatim in the first derived message's metadata under
 * {@link METADATA_KEY}. Writing restores such a group verbatim when the
 * messages it became are still there unchanged (role, content, tool calls,
 * tool call id), and renders every other message naturally.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"
import * as Validity from "../../core/validity.js"
import type { JsonObject, JsonValue } from "../../schema/Json.js"
import { jsonEquals } from "../../schema/Json.js"
import * as Message from "../../schema/Message.js"
import { formatParseError } from "../../schema/ParseIssue.js"
import { AdapterError, type CheckOptions, type DecodeOptions } from "../AdapterError.js"

/**
 * The metadata key under which a message keeps the provider items it came
 * from when rollmem's fields cannot hold all of them: `"rollmem.provider"`.
 * Its value is `{ format, items, messages, tokens? }`: the provider format,
 * the original items (JSON), how many consecutive messages they became, and
 * the estimated tokens of the parts that are not text.
 *
 * @internal
 */
export const METADATA_KEY = "rollmem.provider"

/** A mutable JSON value, as the providers' SDK types expect. @internal */
export type Json = null | boolean | number | string | Array<Json> | { [key: string]: Json }

/** Any JSON value, checked (no function, no undefined inside, no cycle is expected from decoded JSON). @internal */
export const JsonSchema: Schema.Schema<Json> = Schema.declare(
  (u: unknown): u is Json => isJson(u, 0),
  { identifier: "JSON value", description: "a JSON value" }
)

const isJson = (u: unknown, depth: number): boolean => {
  if (u === null || typeof u === "string" || typeof u === "boolean") return true
  if (typeof u === "number") return Number.isFinite(u)
  if (depth > 100 || typeof u !== "object") return false
  if (Array.isArray(u)) return u.every((x) => isJson(x, depth + 1))
  const proto = Object.getPrototypeOf(u)
  if (proto !== Object.prototype && proto !== null) return false
  for (const key of Object.keys(u)) {
    const v = (u as Record<string, unknown>)[key]
    if (v !== undefined && !isJson(v, depth + 1)) return false
  }
  return true
}

/** A JSON object with JSON values. @internal */
export const JsonRecord = Schema.Record({ key: Schema.String, value: JsonSchema })

/** A mutable array schema: the SDKs' request types take `Array<T>`, not `ReadonlyArray<T>`. @internal */
export const Arr = <A, I, R>(item: Schema.Schema<A, I, R>) => Schema.mutable(Schema.Array(item))

/**
 * An optional field that, when present, holds a value (never `undefined`):
 * the SDKs' types are `name?: string`, which a `string | undefined` does not
 * satisfy under `exactOptionalPropertyTypes`.
 *
 * @internal
 */
export const Opt = <A, I, R>(schema: Schema.Schema<A, I, R>) => Schema.optionalWith(schema, { exact: true })

/**
 * A copy of a decoded value as JSON data: keys holding `undefined` dropped
 * (an SDK's objects often carry `providerOptions: undefined`). Objects that
 * are not plain (bytes, a URL) are kept as they are.
 *
 * @internal
 */
export const plain = (u: unknown): Json => {
  if (typeof u !== "object" || u === null) return u as Json
  if (Array.isArray(u)) return u.map(plain)
  const proto = Object.getPrototypeOf(u)
  if (proto !== Object.prototype && proto !== null) return u as Json
  const out: { [key: string]: Json } = {}
  for (const key of Object.keys(u)) {
    const v = (u as Record<string, unknown>)[key]
    if (v !== undefined) Object.defineProperty(out, key, { value: plain(v), enumerable: true, writable: true })
  }
  return out
}

/** Marks an id that reading made up (the provider gave none): any id matches it when restoring. @internal */
export const ANY: unique symbol = Symbol("rollmem/adapters/any-id")

/** One tool call of a derived message. @internal */
export interface DraftCall {
  readonly id: string | typeof ANY
  readonly name: string
  readonly arguments: string
}

/** A rollmem message as derived from provider items, before it is built. @internal */
export interface Draft {
  readonly role: string
  readonly content: string
  /** The message's id, for a format whose items carry one (an AI SDK `UIMessage`). */
  readonly id?: string
  readonly toolCalls?: ReadonlyArray<DraftCall>
  readonly toolCallId?: string | typeof ANY
}

/**
 * What `derive` may need beyond its group: where the group starts in the
 * input (for made-up ids), whether this is a check while writing (made-up ids
 * are then {@link ANY}), and the calls awaiting a result whose ids were made
 * up (the legacy `function_call`, a Gemini `functionCall` without id).
 *
 * @internal
 */
export interface DeriveContext {
  readonly verify: boolean
  index: number
  readonly pending: Array<{ readonly id: string; readonly name: string }>
}

/** An id made up for a call the provider gave none: `prefix + index`. @internal */
export const madeUpCall = (ctx: DeriveContext, name: string, id: string): string | typeof ANY => {
  if (ctx.verify) return ANY
  ctx.pending.push({ id, name })
  return id
}

/**
 * The made-up id of the call a result without id answers: the oldest pending
 * call with that name (any name when `name` is undefined), else `orphan`.
 *
 * @internal
 */
export const madeUpResult = (ctx: DeriveContext, name: string | undefined, orphan: string): string | typeof ANY => {
  if (ctx.verify) return ANY
  const i = ctx.pending.findIndex((call) => name === undefined || call.name === name)
  if (i < 0) return orphan
  const [call] = ctx.pending.splice(i, 1)
  return call.id
}

/** A message to render, with the name of the call its tool call id answers (`""` when unknown). @internal */
export interface Rendered {
  readonly message: Message.Message
  readonly index: number
  readonly toolName: string
}

/** A provider format. @internal */
export interface Format<Item> {
  readonly name: string
  // the encoded side varies per format and is never used here (Schema is invariant in it)
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly item: Schema.Schema<Item, any>
  /** Splits items into consecutive groups, each deriving at least one message. Default: one item per group. */
  readonly groups?: (items: ReadonlyArray<Item>) => Array<ReadonlyArray<Item>>
  readonly derive: (group: ReadonlyArray<Item>, ctx: DeriveContext) => Array<Draft>
  /** The natural items for consecutive messages, or the violation (naming the message index). */
  readonly render: (run: ReadonlyArray<Rendered>) => Either.Either<Array<Item>, string>
  /** Whether rendering would merge `next` (first item of a group) into `previous` (last of the one before). */
  readonly merges?: (previous: Item, next: Item) => boolean
  /** Estimated tokens of the parts of an item that are not text (images, files, reasoning). */
  readonly estimate: (item: Item) => number
}

/** The tokens estimated for one image, file, audio clip or document part. @internal */
export const MEDIA_TOKENS = 1000

/** The tokens estimated for text kept outside the content (reasoning, a refusal): one per 4 characters. @internal */
export const textEstimate = (text: string): number => Math.ceil(text.length / 4)

const parseOptions = { errors: "first", onExcessProperty: "error" } as const
const lenientOptions = { errors: "first", onExcessProperty: "preserve" } as const

const OPEN: unique symbol = Symbol.for("rollmem/adapters/open")

/**
 * Marks a union of typed parts (structs with a literal `type`) as open: a
 * lenient reader also takes a part of another `type`, kept verbatim.
 *
 * @internal
 */
export const open = <S extends Schema.Schema.Any>(union: S): S => union.annotations({ [OPEN]: true }) as S

// A part's `type` as a literal, or as a pattern (`tool-${string}`, `data-${string}`).
const literalsOf = (ast: AST.AST): Array<string | RegExp> =>
  AST.isLiteral(ast) && typeof ast.literal === "string"
    ? [ast.literal]
    : AST.isTemplateLiteral(ast)
    ? [AST.getTemplateLiteralRegExp(ast)]
    : AST.isUnion(ast)
    ? ast.types.flatMap(literalsOf)
    : []

const typesOf = (ast: AST.AST): Array<string | RegExp> => {
  if (AST.isUnion(ast)) return ast.types.flatMap(typesOf)
  if (!AST.isTypeLiteral(ast)) return []
  const type = ast.propertySignatures.find((p) => p.name === "type")
  return type === undefined ? [] : literalsOf(type.type)
}

/** A part of a `type` none of `known`: any JSON object with a string `type`, kept whole. */
const other = (known: ReadonlyArray<string | RegExp>): AST.AST =>
  Schema.Struct(
    {
      type: Schema.String.pipe(
        Schema.filter((t) => !known.some((k) => typeof k === "string" ? k === t : k.test(t)), {
          message: (t) => `${JSON.stringify(t)} is a known type: its fields are as above`
        })
      )
    },
    Schema.Record({ key: Schema.String, value: JsonSchema })
  ).annotations({
    identifier: `a part of another type than ${
      known.map((t) => typeof t === "string" ? JSON.stringify(t) : String(t)).join(", ")
    }`
  }).ast

/** `ast` with every union marked {@link open} taking parts of other types too (unchanged nodes kept). */
const opened = (ast: AST.AST): AST.AST => {
  switch (ast._tag) {
    case "Union": {
      const types = ast.types.map(opened)
      if (ast.annotations[OPEN] === true) {
        return AST.Union.make([...types, other(types.flatMap(typesOf))], ast.annotations)
      }
      return types.some((t, i) => t !== ast.types[i]) ? AST.Union.make(types, ast.annotations) : ast
    }
    case "TypeLiteral": {
      const props = ast.propertySignatures.map((p) => {
        const type = opened(p.type)
        return type === p.type ? p : new AST.PropertySignature(p.name, type, p.isOptional, p.isReadonly, p.annotations)
      })
      const indexes = ast.indexSignatures.map((s) => {
        const type = opened(s.type)
        return type === s.type ? s : new AST.IndexSignature(s.parameter, type, s.isReadonly)
      })
      return props.some((p, i) => p !== ast.propertySignatures[i]) ||
          indexes.some((s, i) => s !== ast.indexSignatures[i])
        ? new AST.TypeLiteral(props, indexes, ast.annotations)
        : ast
    }
    case "TupleType": {
      const elements = ast.elements.map((e) => {
        const type = opened(e.type)
        return type === e.type ? e : new AST.OptionalType(type, e.isOptional, e.annotations)
      })
      const rest = ast.rest.map((r) => {
        const type = opened(r.type)
        return type === r.type ? r : new AST.Type(type, r.annotations)
      })
      return elements.some((e, i) => e !== ast.elements[i]) || rest.some((r, i) => r !== ast.rest[i])
        ? new AST.TupleType(elements, rest, ast.isReadonly, ast.annotations)
        : ast
    }
    case "Refinement": {
      const from = opened(ast.from)
      return from === ast.from ? ast : new AST.Refinement(from, ast.filter, ast.annotations)
    }
    case "Transformation": {
      const from = opened(ast.from)
      const to = opened(ast.to)
      return from === ast.from && to === ast.to
        ? ast
        : new AST.Transformation(from, to, ast.transformation, ast.annotations)
    }
    default:
      return ast
  }
}

const lenientCache = new WeakMap<AST.AST, AST.AST>()

/** The array of `item` as a lenient reader decodes it (see the module docs). */
const lenientArray = <Item>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  item: Schema.Schema<Item, any>
): Schema.Schema<ReadonlyArray<Item>, unknown> => {
  let ast = lenientCache.get(item.ast)
  if (ast === undefined) {
    ast = opened(Schema.Array(item).ast)
    lenientCache.set(item.ast, ast)
  }
  return Schema.make<ReadonlyArray<Item>, unknown, never>(ast)
}

/** Decodes `input` as an array of `item` (lenient unless `strict`), errors named under the path `at`. */
const decodeItems = <Item>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  item: Schema.Schema<Item, any>,
  input: unknown,
  strict: boolean,
  at: ReadonlyArray<string>
): Either.Either<ReadonlyArray<Item>, ParseResult.ParseError> => {
  const array: Schema.Schema<ReadonlyArray<Item>, unknown> = strict
    ? Schema.Array(item) as Schema.Schema<ReadonlyArray<Item>, unknown>
    : lenientArray(item)
  const options = strict ? parseOptions : lenientOptions
  if (at.length === 0) return Schema.decodeUnknownEither(array)(input, options)
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let schema: Schema.Schema<any, any> = array
  let value: unknown = input
  for (let i = at.length - 1; i >= 0; i--) {
    schema = Schema.Struct({ [at[i]]: schema })
    value = { [at[i]]: value }
  }
  return Either.map(Schema.decodeUnknownEither(schema)(value, options), (decoded) => {
    let out = decoded
    for (const key of at) out = out[key]
    return out as ReadonlyArray<Item>
  })
}

const describe = (error: ParseResult.ParseError): string => formatParseError(error)

const built = (draft: Draft, metadata: JsonObject | undefined): Either.Either<Message.Message, string> => {
  const options: Message.MessageOptions = {
    ...(draft.toolCalls !== undefined && draft.toolCalls.length > 0
      ? { toolCalls: draft.toolCalls.map((c) => ({ id: c.id as string, name: c.name, arguments: c.arguments })) }
      : {}),
    ...(draft.toolCallId !== undefined ? { toolCallId: draft.toolCallId as string } : {}),
    ...(draft.id !== undefined ? { id: draft.id } : {}),
    ...(metadata !== undefined ? { metadata } : {})
  }
  return Either.mapLeft(Message.decodeFields(draft.role, draft.content, options), (e) => e.description)
}

const namesOf = (messages: ReadonlyArray<Message.Message>): Array<string> => {
  const names = new Map<string, string>()
  const out: Array<string> = []
  for (const m of messages) {
    out.push(m.toolCallId === undefined ? "" : names.get(m.toolCallId) ?? "")
    for (const call of m.toolCalls) names.set(call.id, call.name)
  }
  return out
}

/**
 * Reads provider items into rollmem messages (see the module docs).
 *
 * @internal
 */
export const decode = <Item>(
  format: Format<Item>,
  input: unknown,
  options?: DecodeOptions,
  at: ReadonlyArray<string> = []
): Either.Either<Array<Message.Message>, AdapterError> => {
  const fail = (description: string, cause?: unknown) =>
    Either.left(new AdapterError({ format: format.name, description, ...(cause === undefined ? {} : { cause }) }))
  const decoded = decodeItems(format.item, plain(input), options?.strict === true, at)
  if (Either.isLeft(decoded)) return fail(nearMiss(format.name, input, at) + describe(decoded.left), decoded.left)
  const items = decoded.right
  const where = at.join(".")
  const groups = format.groups === undefined ? items.map((item) => [item]) : format.groups(items)
  const ctx: DeriveContext = { verify: false, index: 0, pending: [] }
  const out: Array<Message.Message> = []
  const names = new Map<string, string>()
  let previous: Item | undefined
  let index = 0
  for (const group of groups) {
    ctx.index = index
    const drafts = format.derive(group, ctx)
    const messages: Array<Message.Message> = []
    const rendered: Array<Rendered> = []
    for (const draft of drafts) {
      const message = built(draft, undefined)
      if (Either.isLeft(message)) return fail(`${where}[${index}]: ${message.left}`)
      rendered.push({
        message: message.right,
        index: out.length + messages.length,
        toolName: message.right.toolCallId === undefined ? "" : names.get(message.right.toolCallId) ?? ""
      })
      messages.push(message.right)
      for (const call of message.right.toolCalls) names.set(call.id, call.name)
    }
    const natural = format.render(rendered)
    const same = Either.isRight(natural) && jsonEquals(plain(natural.right) as JsonValue, plain(group) as JsonValue)
    const separate = previous !== undefined && format.merges !== undefined && format.merges(previous, group[0])
    if (!same || separate) {
      let tokens = 0
      for (const item of group) tokens += format.estimate(item)
      const marker: { [key: string]: Json } = {
        format: format.name,
        items: plain(group),
        messages: drafts.length
      }
      if (tokens > 0) marker.tokens = tokens
      const first = built(drafts[0], { [METADATA_KEY]: marker } as JsonObject)
      if (Either.isLeft(first)) return fail(`${where}[${index}]: ${first.left}`)
      messages[0] = first.right
    }
    out.push(...messages)
    previous = group[group.length - 1]
    index += group.length
  }
  return Either.right(out)
}

const isRecord = (u: unknown): u is { readonly [key: string]: unknown } =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** The reader that takes a common near-miss `u`, with how to name it, or `undefined`. */
const readerOf = (
  u: unknown
): { readonly what: string; readonly reader: string; readonly format: string } | undefined => {
  if (!isRecord(u)) return undefined
  if (u.lc === 1 && u.type === "constructor" && Array.isArray(u.id)) {
    return {
      what: "a serialized LangChain message (`lc`, `kwargs`)",
      reader:
        "fromLangChain, after reviving it with `load` from `@langchain/core/load` (or pass the message instances)",
      format: "langchain-serialized"
    }
  }
  if (typeof (u as { readonly _getType?: unknown })._getType === "function" || "lc_kwargs" in u) {
    return { what: "a LangChain message instance", reader: "fromLangChain", format: "langchain" }
  }
  if (typeof u.type === "string" && isRecord(u.data) && "content" in u.data && !("role" in u)) {
    return { what: "a stored LangChain message (`type`, `data`)", reader: "fromLangChain", format: "langchain" }
  }
  if (Array.isArray(u.parts) && typeof u.role === "string" && !("content" in u)) {
    return u.role === "model" || "id" in u
      ? u.role === "model"
        ? { what: "a Gemini content (`role: \"model\"`, `parts`)", reader: "fromGemini", format: "gemini" }
        : { what: "an AI SDK UIMessage (`id`, `parts`)", reader: "fromUIMessages", format: "ai-sdk-ui" }
      : undefined
  }
  return undefined
}

/**
 * The fix for input that is another library's shape (a UIMessage given to
 * the ModelMessage reader, a LangChain object to a provider's reader):
 * `"[i] is … : read it with …. "`, or `""`.
 */
const nearMiss = (format: string, input: unknown, at: ReadonlyArray<string>): string => {
  if (!Array.isArray(input)) return ""
  for (let i = 0; i < input.length; i++) {
    const found = readerOf(input[i])
    if (found !== undefined && found.format !== format) {
      return `${at.join(".")}[${i}] is ${found.what}: read it with ${found.reader}. `
    }
  }
  return ""
}

const sameCore = (draft: Draft, message: Message.Message): boolean => {
  if (draft.role !== message.role || draft.content !== message.content) return false
  const calls = draft.toolCalls ?? []
  if (calls.length !== message.toolCalls.length) return false
  for (let i = 0; i < calls.length; i++) {
    const a = calls[i]
    const b = message.toolCalls[i]
    if (a.name !== b.name || a.arguments !== b.arguments || (a.id !== ANY && a.id !== b.id)) return false
  }
  if (draft.toolCallId === ANY) return message.toolCallId !== undefined
  return draft.toolCallId === message.toolCallId
}

interface Marker {
  readonly format: string
  readonly items: ReadonlyArray<unknown>
  readonly messages: number
}

/** The marker a message carries for `format`, if any. @internal */
export const markerOf = (message: Message.Message, format: string): Marker | undefined => {
  const value = message.metadata[METADATA_KEY]
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined
  const marker = value as { readonly [key: string]: unknown }
  if (marker.format !== format || !Array.isArray(marker.items) || marker.items.length === 0) return undefined
  if (typeof marker.messages !== "number" || !Number.isInteger(marker.messages) || marker.messages < 1) return undefined
  return marker as unknown as Marker
}

/** The items a group of messages starting at `start` came from, when they are still unchanged. */
const restore = <Item>(
  format: Format<Item>,
  messages: ReadonlyArray<Message.Message>,
  start: number
): { readonly items: ReadonlyArray<Item>; readonly count: number } | undefined => {
  const marker = markerOf(messages[start], format.name)
  if (marker === undefined || start + marker.messages > messages.length) return undefined
  const decoded = decodeItems(format.item, marker.items, false, [])
  if (Either.isLeft(decoded)) return undefined
  const drafts = format.derive(decoded.right, { verify: true, index: 0, pending: [] })
  if (drafts.length !== marker.messages) return undefined
  for (let i = 0; i < drafts.length; i++) if (!sameCore(drafts[i], messages[start + i])) return undefined
  return { items: decoded.right, count: drafts.length }
}

/**
 * Writes rollmem messages as provider items (see the module docs). The
 * public writers check their input once with {@link notMessages} first
 * ({@link encodeChecked} does).
 *
 * @internal
 */
/**
 * The refusal of what is not rollmem messages (a provider's items, a plain
 * wire object whose `tool_calls` a `to…` cannot read): the first such entry,
 * named with how to get messages. @internal
 */
export const notMessages = (format: string, messages: unknown): AdapterError | undefined => {
  if (!Array.isArray(messages)) {
    return new AdapterError({ format, description: `expected an array of rollmem messages, got ${typeof messages}` })
  }
  for (let i = 0; i < messages.length; i++) {
    const m: unknown = messages[i]
    const fields = m as Partial<Record<"role" | "content" | "toolCalls" | "metadata", unknown>> | null
    if (
      typeof m !== "object" || fields === null || typeof fields.role !== "string" ||
      typeof fields.content !== "string" || !Array.isArray(fields.toolCalls) || typeof fields.metadata !== "object"
    ) {
      return new AdapterError({
        format,
        description: `[${i}] is not a rollmem message: make messages with Message.make (or read a provider's ` +
          "with its from…, wire-format JSON with MemoryState.fromJSON)"
      })
    }
  }
  return undefined
}

export const encode = <Item>(
  format: Format<Item>,
  messages: ReadonlyArray<Message.Message>,
  offset = 0
): Either.Either<Array<Item>, AdapterError> => {
  const names = namesOf(messages)
  const out: Array<Item> = []
  let run: Array<Rendered> = []
  const flush = (): string | undefined => {
    if (run.length === 0) return undefined
    const items = format.render(run)
    run = []
    if (Either.isLeft(items)) return items.left
    out.push(...items.right)
    return undefined
  }
  let i = 0
  while (i < messages.length) {
    const restored = restore(format, messages, i)
    if (restored !== undefined) {
      const error = flush()
      if (error !== undefined) return Either.left(new AdapterError({ format: format.name, description: error }))
      out.push(...restored.items)
      i += restored.count
      continue
    }
    run.push({ message: messages[i], index: offset + i, toolName: names[i] })
    i++
  }
  const error = flush()
  if (error !== undefined) return Either.left(new AdapterError({ format: format.name, description: error }))
  return Either.right(out)
}

/** Joins the text of text parts (`"\n"` between parts). @internal */
export const joinText = (texts: ReadonlyArray<string>): string => texts.join("\n")

/** `JSON.parse`, or `undefined` when the text is not JSON. @internal */
export const parseJson = (text: string): { readonly value: Json } | undefined => {
  const first = text.trimStart().charCodeAt(0)
  const opens = first === 0x7b || first === 0x5b || first === 0x22 || first === 0x2d ||
    (first >= 0x30 && first <= 0x39) || first === 0x74 || first === 0x66 || first === 0x6e
  if (!opens) return undefined
  return Either.getOrUndefined(Either.try(() => ({ value: JSON.parse(text) as Json })))
}

/** A JSON object parsed from `text`, or `undefined`. @internal */
export const parseObject = (text: string): { [key: string]: Json } | undefined => {
  const parsed = parseJson(text)
  return parsed !== undefined && typeof parsed.value === "object" && parsed.value !== null &&
      !Array.isArray(parsed.value)
    ? parsed.value
    : undefined
}

/** `JSON.stringify` of a decoded JSON value (`""` for undefined). @internal */
export const stringify = (value: unknown): string => JSON.stringify(value) ?? ""

/** Role names a context may not open with or hold mid-way, in the providers' words. @internal */
export const messageLabel = (r: Rendered): string => `message ${r.index} (role ${JSON.stringify(r.message.role)})`

/** Options every checked `to…` takes (the public {@link CheckOptions}) and every `from…` ({@link DecodeOptions}). @internal */
export type { CheckOptions, DecodeOptions }

/**
 * A decoder of a request with several parts (`{ system?, messages }`,
 * `{ systemInstruction?, contents }`) from any JSON input: other keys
 * refused, the first wrong path an `AdapterError` of `format`.
 *
 * @internal
 */
export const requestDecoder = <A, I>(
  schema: Schema.Schema<A, I>,
  format: string
): (input: unknown) => Either.Either<A, AdapterError> => {
  const decodeEither = Schema.decodeUnknownEither(schema)
  return (input) =>
    Either.mapLeft(
      decodeEither(plain(input), { errors: "first", onExcessProperty: "error" }),
      (error) => new AdapterError({ format, description: formatParseError(error), cause: error })
    )
}

/**
 * How many messages open `messages` as system instructions (system or
 * developer, no tool call, no tool call id): what a provider with a
 * separate system field takes out of its message list.
 *
 * @internal
 */
export const leadingSystem = (messages: ReadonlyArray<Message.Message>): number => {
  let n = 0
  while (
    n < messages.length && (messages[n].role === "system" || messages[n].role === "developer") &&
    messages[n].toolCalls.length === 0 && messages[n].toolCallId === undefined
  ) n++
  return n
}

const isSystemMessage = (m: Message.Message): boolean =>
  (m.role === "system" || m.role === "developer") && m.toolCalls.length === 0 && m.toolCallId === undefined

/** Moves the system messages after the first turn up to the leading ones, before the summary's when found. */
const hoist = (
  messages: ReadonlyArray<Message.Message>,
  summary: string | undefined
): ReadonlyArray<Message.Message> => {
  const n = leadingSystem(messages)
  const late: Array<Message.Message> = []
  const rest: Array<Message.Message> = []
  for (let i = n; i < messages.length; i++) (isSystemMessage(messages[i]) ? late : rest).push(messages[i])
  if (late.length === 0) return messages
  const at = summary === undefined ? n : summaryStart(messages, n, summary)
  return [...messages.slice(0, at), ...late, ...messages.slice(at, n), ...rest]
}

/**
 * Where the summary starts among the `n` leading system messages: the last
 * one when its content is `summary`; with summary segments (docs/contract.md
 * section 10.9) the first of the last ones whose contents joined with a blank
 * line are `summary`; `n` when there is none.
 */
const summaryStart = (messages: ReadonlyArray<Message.Message>, n: number, summary: string): number => {
  let joined: string | undefined
  for (let i = n - 1; i >= 0; i--) {
    joined = joined === undefined ? messages[i].content : `${messages[i].content}\n\n${joined}`
    if (joined === summary) return i
    if (!summary.endsWith(joined)) return n
  }
  return n
}

/** Merges consecutive messages of one kind (no tool call id, the first without tool calls): contents joined. */
const mergeSameRole = (messages: ReadonlyArray<Message.Message>): ReadonlyArray<Message.Message> => {
  const out: Array<Message.Message> = []
  let merged = false
  for (const m of messages) {
    const last = out[out.length - 1]
    const kind = (x: Message.Message) => isSystemMessage(x) ? "system" : x.role
    if (
      last !== undefined && kind(last) === kind(m) && m.toolCallId === undefined && last.toolCallId === undefined &&
      last.toolCalls.length === 0
    ) {
      out[out.length - 1] = Message.make(last.role, `${last.content}\n\n${m.content}`, {
        ...(m.toolCalls.length > 0 ? { toolCalls: m.toolCalls } : {})
      })
      merged = true
    } else out.push(m)
  }
  return merged ? out : messages
}

/**
 * The context with every tool call id used once (docs/contract.md section
 * 15.1, "Call ids are unique"): a call whose id an earlier call of the
 * context already used is written as `<id>_<n>` (n = 2, 3, ...: the first
 * such id the context does not hold), and its results, in the block of tool
 * results right after its message, take the same id. The first use keeps its
 * id (the cached prefix stays as it was); a context without a repeated id is
 * returned as given. Anthropic, OpenAI Responses and Gemini refuse a request
 * that repeats a call id (`tool_use ids must be unique`, `Duplicate
 * function_call_output`); transcripts do (tau-bench's reuse ids across turns).
 *
 * @internal
 */
export const uniqueCallIds = (messages: ReadonlyArray<Message.Message>): ReadonlyArray<Message.Message> => {
  const taken = new Set<string>()
  let repeated = false
  for (const m of messages) {
    for (const call of m.toolCalls) {
      if (taken.has(call.id)) repeated = true
      taken.add(call.id)
    }
  }
  if (!repeated) return messages
  for (const m of messages) if (m.toolCallId !== undefined) taken.add(m.toolCallId)
  const seen = new Set<string>()
  const out = [...messages]
  const copy = (
    m: Message.Message,
    fields: { readonly toolCalls?: Message.MessageOptions["toolCalls"]; readonly toolCallId?: string }
  ) =>
    Message.make(m.role, m.content, {
      ...(m.id !== undefined ? { id: m.id } : {}),
      toolCalls: fields.toolCalls ?? m.toolCalls,
      ...(m.toolCallId !== undefined || fields.toolCallId !== undefined
        ? { toolCallId: fields.toolCallId ?? m.toolCallId }
        : {}),
      metadata: m.metadata
    })
  for (let i = 0; i < out.length; i++) {
    const m = out[i]
    if (m.toolCalls.length === 0) continue
    // per id of this message's calls, the ids written, in call order (the results answer them in that order)
    const written = new Map<string, Array<string>>()
    let renamed = false
    const calls = m.toolCalls.map((call) => {
      let id = call.id
      if (seen.has(id)) {
        let n = 2
        while (taken.has(`${call.id}_${n}`)) n++
        id = `${call.id}_${n}`
        taken.add(id)
        renamed = true
      }
      seen.add(id)
      written.set(call.id, [...(written.get(call.id) ?? []), id])
      return id === call.id ? call : { id, name: call.name, arguments: call.arguments }
    })
    if (!renamed) continue
    out[i] = copy(m, { toolCalls: calls })
    for (let j = i + 1; j < out.length && out[j].toolCallId !== undefined; j++) {
      const ids = written.get(out[j].toolCallId!)
      const id = ids?.shift()
      if (id !== undefined && id !== out[j].toolCallId) out[j] = copy(out[j], { toolCallId: id })
    }
  }
  return out
}

/**
 * A memory's read-back as the target takes it (`CheckOptions.arrange`,
 * docs/contract.md section 15.5): unchanged unless `arrange` is set.
 *
 * @internal
 */
export const arrange = (
  messages: ReadonlyArray<Message.Message>,
  provider: Validity.Provider,
  options: CheckOptions | undefined
): ReadonlyArray<Message.Message> => {
  const how = options?.arrange
  if (how === undefined || how === false) return messages
  const rules = Validity.rulesOf(options?.provider ?? provider)
  let out = messages
  if (rules.includes("SystemAfterFirstTurn")) out = hoist(out, typeof how === "object" ? how.summary : undefined)
  if (rules.includes("ConsecutiveSameRole")) out = mergeSameRole(out)
  return out
}

/**
 * The index of the first message holding an OpenAI Responses compaction item
 * (opaque: no readable content), which no other format can write, or -1.
 */
const opaqueCompaction = (messages: ReadonlyArray<Message.Message>): number =>
  messages.findIndex((m) => {
    const marker = m.content === "" ? markerOf(m, "openai-responses") : undefined
    return marker !== undefined && marker.items.some((item) =>
      typeof item === "object" && item !== null && (item as { readonly type?: unknown }).type === "compaction"
    )
  })

/** The `AdapterError` for the violations a provider rejects, if any. @internal */
export const check = (
  format: string,
  messages: ReadonlyArray<Message.Message>,
  provider: Validity.Provider,
  options: CheckOptions | undefined
): AdapterError | undefined => {
  if (options?.check === false) return undefined
  const opaque = format === "openai-responses" ? -1 : opaqueCompaction(messages)
  if (opaque >= 0) {
    return new AdapterError({
      format,
      description: `message ${opaque} holds an OpenAI Responses compaction item: its content is encrypted, ` +
        "only OpenAI Responses reads it (write with toOpenAIResponses, or pass check: false to write it as an empty " +
        "assistant message)"
    })
  }
  const found = Validity.violations(messages, { provider: options?.provider ?? provider })
  if (found.length === 0) return undefined
  return new AdapterError({
    format,
    description: `the provider would refuse this context: ${found.map((v) => v.description).join("; ")}`,
    violations: found
  })
}

/** {@link encode} after {@link check}. @internal */
export const encodeChecked = <Item>(
  format: Format<Item>,
  messages: ReadonlyArray<Message.Message>,
  provider: Validity.Provider,
  options: CheckOptions | undefined
): Either.Either<Array<Item>, AdapterError> => {
  const refused = notMessages(format.name, messages)
  if (refused !== undefined) return Either.left(refused)
  // OpenAI Chat Completions takes a call id repeated across turns (tau-bench's transcripts were made so)
  const arranged = arrange(format.name === "openai-chat" ? messages : uniqueCallIds(messages), provider, options)
  const error = check(format.name, arranged, provider, options)
  return error === undefined ? encode(format, arranged) : Either.left(error)
}

/**
 * What an adapter module exports, built from its Either forms: the Effect
 * functions `decode` / `encode`, suspended (nothing runs until the effect
 * does) and never asynchronous (the plain `to…` / `from…` run them at once).
 *
 * @internal
 */
export interface Codec<Request, Options> {
  readonly decode: (input: unknown, options?: DecodeOptions) => Effect.Effect<Array<Message.Message>, AdapterError>
  readonly encode: (
    messages: ReadonlyArray<Message.Message>,
    options?: Options
  ) => Effect.Effect<Request, AdapterError>
}

/** A {@link Codec} from a module's own Either forms (a request with several parts). @internal */
export const codec = <Request, Options>(
  decodeEither: (input: unknown, options?: DecodeOptions) => Either.Either<Array<Message.Message>, AdapterError>,
  encodeEither: (messages: ReadonlyArray<Message.Message>, options?: Options) => Either.Either<Request, AdapterError>
): Codec<Request, Options> => ({
  decode: (input, options) => Effect.suspend(() => decodeEither(input, options)),
  encode: (messages, options) => Effect.suspend(() => encodeEither(messages, options))
})

/**
 * The {@link Codec} of a format whose request is the list of its items,
 * checked with `Validity` before writing unless `check: false`, by the
 * rules of `provider` (the format's target; the options' `provider` wins).
 *
 * @internal
 */
export const listCodec = <Item>(
  format: Format<Item>,
  provider: Validity.Provider = "openai"
): Codec<Array<Item>, CheckOptions> =>
  codec(
    (input, options) => decode(format, input, options),
    (messages, options) => encodeChecked(format, messages, provider, options)
  )
