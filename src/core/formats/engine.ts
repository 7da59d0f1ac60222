/**
 * The conversion engine every provider format runs on, with no `effect`
 * import: both lines' adapters drive it, each with its own Schema
 * declarations of the provider's items and its own `Message` class.
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
 * What a line gives the engine ({@link Line}): how to read a format's items
 * (its Schema, lenient or strict) and how to build its `Message` from plain
 * fields. A failure is a {@link Failure} (description, cause, violations),
 * which each line makes its `AdapterError` of.
 *
 * @since 1.0.0
 */
import type { JsonObject, JsonValue } from "../json.js"
import { jsonEquals } from "../json.js"
import type { MessageFields, ToolCallFields } from "../message.js"
import * as Validity from "../validity.js"

/**
 * The metadata key under which a message keeps the provider items it came
 * from when rollmem's fields cannot hold all of them: `"rollmem.provider"`.
 * Its value is `{ format, items, messages, tokens? }`: the provider format,
 * the original items (JSON), how many consecutive messages they became, and
 * the estimated tokens of the parts that are not text.
 *
 * @since 1.0.0
 */
export const METADATA_KEY = "rollmem.provider"

/** A mutable JSON value, as the providers' SDK types expect. @since 1.0.0 */
export type Json = null | boolean | number | string | Array<Json> | { [key: string]: Json }

/** Whether `u` is a JSON value (finite numbers, plain objects, at most 100 levels). @since 1.0.0 */
export const isJson = (u: unknown, depth = 0): u is Json => {
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

/**
 * A copy of a decoded value as JSON data: keys holding `undefined` dropped
 * (an SDK's objects often carry `providerOptions: undefined`). Objects that
 * are not plain (bytes, a URL) are kept as they are.
 *
 * @since 1.0.0
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

/** Marks an id that reading made up (the provider gave none): any id matches it when restoring. @since 1.0.0 */
export const ANY: unique symbol = Symbol("rollmem/adapters/any-id")

/** One tool call of a derived message. @since 1.0.0 */
export interface DraftCall {
  readonly id: string | typeof ANY
  readonly name: string
  readonly arguments: string
}

/** A rollmem message as derived from provider items, before it is built. @since 1.0.0 */
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
 * @since 1.0.0
 */
export interface DeriveContext {
  readonly verify: boolean
  index: number
  readonly pending: Array<{ readonly id: string; readonly name: string }>
}

/** An id made up for a call the provider gave none: `prefix + index`. @since 1.0.0 */
export const madeUpCall = (ctx: DeriveContext, name: string, id: string): string | typeof ANY => {
  if (ctx.verify) return ANY
  ctx.pending.push({ id, name })
  return id
}

/**
 * The made-up id of the call a result without id answers: the oldest pending
 * call with that name (any name when `name` is undefined), else `orphan`.
 *
 * @since 1.0.0
 */
export const madeUpResult = (ctx: DeriveContext, name: string | undefined, orphan: string): string | typeof ANY => {
  if (ctx.verify) return ANY
  const i = ctx.pending.findIndex((call) => name === undefined || call.name === name)
  if (i < 0) return orphan
  const [call] = ctx.pending.splice(i, 1)
  return call.id
}

/** A message to render, with the name of the call its tool call id answers (`""` when unknown). @since 1.0.0 */
export interface Rendered<M extends MessageFields = MessageFields> {
  readonly message: M
  readonly index: number
  readonly toolName: string
}

/**
 * A provider format's conversions: `render` gives the natural items for
 * consecutive messages, or the violation (a string naming the message index).
 *
 * @since 1.0.0
 */
export interface Format<Item, M extends MessageFields = MessageFields> {
  readonly name: string
  /** Splits items into consecutive groups, each deriving at least one message. Default: one item per group. */
  readonly groups?: (items: ReadonlyArray<Item>) => Array<ReadonlyArray<Item>>
  readonly derive: (group: ReadonlyArray<Item>, ctx: DeriveContext) => Array<Draft>
  /** The natural items for consecutive messages, or the violation (naming the message index). */
  readonly render: (run: ReadonlyArray<Rendered<M>>) => Array<Item> | string
  /** Whether rendering would merge `next` (first item of a group) into `previous` (last of the one before). */
  readonly merges?: (previous: Item, next: Item) => boolean
  /** Estimated tokens of the parts of an item that are not text (images, files, reasoning). */
  readonly estimate: (item: Item) => number
}

/** The tokens estimated for one image, file, audio clip or document part. @since 1.0.0 */
export const MEDIA_TOKENS = 1000

/** The tokens estimated for text kept outside the content (reasoning, a refusal): one per 4 characters. @since 1.0.0 */
export const textEstimate = (text: string): number => Math.ceil(text.length / 4)

/**
 * Why a conversion cannot be made: the description each line's
 * `AdapterError` carries, with the decode error as `cause` and the
 * `Validity` violations when writing was refused for them.
 *
 * @since 1.0.0
 */
export interface Failure {
  readonly description: string
  readonly cause?: unknown
  readonly violations?: ReadonlyArray<Validity.Violation>
}

/** A conversion's outcome: `{ ok }` or `{ error }`. @since 1.0.0 */
export type Outcome<A> = { readonly ok: A } | { readonly error: Failure }

/** Whether an outcome failed. @since 1.0.0 */
export const failed = <A>(outcome: Outcome<A>): outcome is { readonly error: Failure } => "error" in outcome

/** The options of a message a line builds (its `Message.make`'s). @since 1.0.0 */
export interface Fields {
  readonly id?: string
  readonly toolCalls?: ReadonlyArray<ToolCallFields>
  readonly toolCallId?: string
  readonly metadata?: JsonObject
}

/**
 * What a line gives the engine: `read` decodes items of one format (its
 * Schema; lenient unless `strict`, errors named under the path `at`; a
 * failure's description and cause), `build` makes its message from fields
 * or says why it cannot, `make` makes one from fields it already holds.
 *
 * @since 1.0.0
 */
export interface Line<Item, M extends MessageFields> {
  readonly read: (input: unknown, strict: boolean, at: ReadonlyArray<string>) => Outcome<ReadonlyArray<Item>>
  readonly build: (role: string, content: string, fields: Fields) => M | string
}

/** How a line makes a message from fields it holds (copies, merges). @since 1.0.0 */
export type Make<M extends MessageFields> = (role: string, content: string, fields: Fields) => M

const built = <M extends MessageFields>(
  line: Line<unknown, M>,
  draft: Draft,
  metadata: JsonObject | undefined
): M | string =>
  line.build(draft.role, draft.content, {
    ...(draft.toolCalls !== undefined && draft.toolCalls.length > 0
      ? { toolCalls: draft.toolCalls.map((c) => ({ id: c.id as string, name: c.name, arguments: c.arguments })) }
      : {}),
    ...(draft.toolCallId !== undefined ? { toolCallId: draft.toolCallId as string } : {}),
    ...(draft.id !== undefined ? { id: draft.id } : {}),
    ...(metadata !== undefined ? { metadata } : {})
  })

const namesOf = (messages: ReadonlyArray<MessageFields>): Array<string> => {
  const names = new Map<string, string>()
  const out: Array<string> = []
  for (const m of messages) {
    out.push(m.toolCallId === undefined ? "" : names.get(m.toolCallId) ?? "")
    for (const call of m.toolCalls) names.set(call.id, call.name)
  }
  return out
}

/**
 * Reads provider items into messages (see the module docs); a failure names
 * the path, after the reader that takes a near-miss input.
 *
 * @since 1.0.0
 */
export const decode = <Item, M extends MessageFields>(
  format: Format<Item, M>,
  line: Line<Item, M>,
  input: unknown,
  strict: boolean,
  at: ReadonlyArray<string> = []
): Outcome<Array<M>> => {
  const decoded = line.read(plain(input), strict, at)
  if (failed(decoded)) {
    return {
      error: {
        description: nearMiss(format.name, input, at) + decoded.error.description,
        ...(decoded.error.cause === undefined ? {} : { cause: decoded.error.cause })
      }
    }
  }
  const fail = (description: string): Outcome<Array<M>> => ({ error: { description } })
  const items = decoded.ok
  const where = at.join(".")
  const groups = format.groups === undefined ? items.map((item) => [item]) : format.groups(items)
  const ctx: DeriveContext = { verify: false, index: 0, pending: [] }
  const out: Array<M> = []
  const names = new Map<string, string>()
  let previous: Item | undefined
  let index = 0
  for (const group of groups) {
    ctx.index = index
    const drafts = format.derive(group, ctx)
    const messages: Array<M> = []
    const rendered: Array<Rendered<M>> = []
    for (const draft of drafts) {
      const message = built(line, draft, undefined)
      if (typeof message === "string") return fail(`${where}[${index}]: ${message}`)
      rendered.push({
        message,
        index: out.length + messages.length,
        toolName: message.toolCallId === undefined ? "" : names.get(message.toolCallId) ?? ""
      })
      messages.push(message)
      for (const call of message.toolCalls) names.set(call.id, call.name)
    }
    const natural = format.render(rendered)
    const same = typeof natural !== "string" &&
      jsonEquals(plain(natural) as JsonValue, plain(group) as JsonValue)
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
      const first = built(line, drafts[0], { [METADATA_KEY]: marker } as JsonObject)
      if (typeof first === "string") return fail(`${where}[${index}]: ${first}`)
      messages[0] = first
    }
    out.push(...messages)
    previous = group[group.length - 1]
    index += group.length
  }
  return { ok: out }
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
 *
 * @since 1.0.0
 */
export const nearMiss = (format: string, input: unknown, at: ReadonlyArray<string>): string => {
  if (!Array.isArray(input)) return ""
  for (let i = 0; i < input.length; i++) {
    const found = readerOf(input[i])
    if (found !== undefined && found.format !== format) {
      return `${at.join(".")}[${i}] is ${found.what}: read it with ${found.reader}. `
    }
  }
  return ""
}

const sameCore = (draft: Draft, message: MessageFields): boolean => {
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

/** What a message keeps under {@link METADATA_KEY}. @since 1.0.0 */
export interface Marker {
  readonly format: string
  readonly items: ReadonlyArray<unknown>
  readonly messages: number
}

/** The marker a message carries for `format`, if any. @since 1.0.0 */
export const markerOf = (message: Pick<MessageFields, "metadata">, format: string): Marker | undefined => {
  const value = message.metadata[METADATA_KEY]
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined
  const marker = value as { readonly [key: string]: unknown }
  if (marker.format !== format || !Array.isArray(marker.items) || marker.items.length === 0) return undefined
  if (typeof marker.messages !== "number" || !Number.isInteger(marker.messages) || marker.messages < 1) return undefined
  return marker as unknown as Marker
}

/** The items a group of messages starting at `start` came from, when they are still unchanged. */
const restore = <Item, M extends MessageFields>(
  format: Format<Item, M>,
  read: Line<Item, M>["read"],
  messages: ReadonlyArray<M>,
  start: number
): { readonly items: ReadonlyArray<Item>; readonly count: number } | undefined => {
  const marker = markerOf(messages[start], format.name)
  if (marker === undefined || start + marker.messages > messages.length) return undefined
  const decoded = read(marker.items, false, [])
  if (failed(decoded)) return undefined
  const drafts = format.derive(decoded.ok, { verify: true, index: 0, pending: [] })
  if (drafts.length !== marker.messages) return undefined
  for (let i = 0; i < drafts.length; i++) if (!sameCore(drafts[i], messages[start + i])) return undefined
  return { items: decoded.ok, count: drafts.length }
}

/**
 * The refusal of what is not rollmem messages (a provider's items, a plain
 * wire object whose `tool_calls` a `to…` cannot read): the first such entry,
 * named with how to get messages, or `undefined`.
 *
 * @since 1.0.0
 */
export const notMessages = (messages: unknown): string | undefined => {
  if (!Array.isArray(messages)) return `expected an array of rollmem messages, got ${typeof messages}`
  for (let i = 0; i < messages.length; i++) {
    const m: unknown = messages[i]
    const fields = m as Partial<Record<"role" | "content" | "toolCalls" | "metadata", unknown>> | null
    if (
      typeof m !== "object" || fields === null || typeof fields.role !== "string" ||
      typeof fields.content !== "string" || !Array.isArray(fields.toolCalls) || typeof fields.metadata !== "object"
    ) {
      return `[${i}] is not a rollmem message: make messages with Message.make (or read a provider's ` +
        "with its from…, wire-format JSON with MemoryState.fromJSON)"
    }
  }
  return undefined
}

/**
 * Writes messages as provider items (see the module docs): each group kept
 * under {@link METADATA_KEY} restored while unchanged (read back with
 * `read`), every other run of messages rendered.
 *
 * @since 1.0.0
 */
export const encode = <Item, M extends MessageFields>(
  format: Format<Item, M>,
  read: Line<Item, M>["read"],
  messages: ReadonlyArray<M>,
  offset = 0
): Outcome<Array<Item>> => {
  const names = namesOf(messages)
  const out: Array<Item> = []
  let run: Array<Rendered<M>> = []
  const flush = (): string | undefined => {
    if (run.length === 0) return undefined
    const items = format.render(run)
    run = []
    if (typeof items === "string") return items
    out.push(...items)
    return undefined
  }
  let i = 0
  while (i < messages.length) {
    const restored = restore(format, read, messages, i)
    if (restored !== undefined) {
      const error = flush()
      if (error !== undefined) return { error: { description: error } }
      out.push(...restored.items)
      i += restored.count
      continue
    }
    run.push({ message: messages[i], index: offset + i, toolName: names[i] })
    i++
  }
  const error = flush()
  if (error !== undefined) return { error: { description: error } }
  return { ok: out }
}

/** Joins the text of text parts (`"\n"` between parts). @since 1.0.0 */
export const joinText = (texts: ReadonlyArray<string>): string => texts.join("\n")

/** `JSON.parse`, or `undefined` when the text is not JSON. @since 1.0.0 */
export const parseJson = (text: string): { readonly value: Json } | undefined => {
  const first = text.trimStart().charCodeAt(0)
  const opens = first === 0x7b || first === 0x5b || first === 0x22 || first === 0x2d ||
    (first >= 0x30 && first <= 0x39) || first === 0x74 || first === 0x66 || first === 0x6e
  if (!opens) return undefined
  try {
    return { value: JSON.parse(text) as Json }
  } catch {
    return undefined
  }
}

/** A JSON object parsed from `text`, or `undefined`. @since 1.0.0 */
export const parseObject = (text: string): { [key: string]: Json } | undefined => {
  const parsed = parseJson(text)
  return parsed !== undefined && typeof parsed.value === "object" && parsed.value !== null &&
      !Array.isArray(parsed.value)
    ? parsed.value
    : undefined
}

/** `JSON.stringify` of a decoded JSON value (`""` for undefined). @since 1.0.0 */
export const stringify = (value: unknown): string => JSON.stringify(value) ?? ""

/** A message as a violation names it: `message <index> (role "<role>")`. @since 1.0.0 */
export const messageLabel = (r: Rendered): string => `message ${r.index} (role ${JSON.stringify(r.message.role)})`

const isSystemMessage = (m: MessageFields): boolean =>
  (m.role === "system" || m.role === "developer") && m.toolCalls.length === 0 && m.toolCallId === undefined

/**
 * How many messages open `messages` as system instructions (system or
 * developer, no tool call, no tool call id): what a provider with a
 * separate system field takes out of its message list.
 *
 * @since 1.0.0
 */
export const leadingSystem = (messages: ReadonlyArray<MessageFields>): number => {
  let n = 0
  while (n < messages.length && isSystemMessage(messages[n])) n++
  return n
}

/** Moves the system messages after the first turn up to the leading ones, before the summary's when found. */
const hoist = <M extends MessageFields>(messages: ReadonlyArray<M>, summary: string | undefined): ReadonlyArray<M> => {
  const n = leadingSystem(messages)
  const late: Array<M> = []
  const rest: Array<M> = []
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
const summaryStart = (messages: ReadonlyArray<MessageFields>, n: number, summary: string): number => {
  let joined: string | undefined
  for (let i = n - 1; i >= 0; i--) {
    joined = joined === undefined ? messages[i].content : `${messages[i].content}\n\n${joined}`
    if (joined === summary) return i
    if (!summary.endsWith(joined)) return n
  }
  return n
}

/** Merges consecutive messages of one kind (no tool call id, the first without tool calls): contents joined. */
const mergeSameRole = <M extends MessageFields>(messages: ReadonlyArray<M>, make: Make<M>): ReadonlyArray<M> => {
  const out: Array<M> = []
  let merged = false
  for (const m of messages) {
    const last = out[out.length - 1]
    const kind = (x: MessageFields) => isSystemMessage(x) ? "system" : x.role
    if (
      last !== undefined && kind(last) === kind(m) && m.toolCallId === undefined && last.toolCallId === undefined &&
      last.toolCalls.length === 0
    ) {
      out[out.length - 1] = make(last.role, `${last.content}\n\n${m.content}`, {
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
 * @since 1.0.0
 */
export const uniqueCallIds = <M extends MessageFields>(messages: ReadonlyArray<M>, make: Make<M>): ReadonlyArray<M> => {
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
  const copy = (m: M, fields: { readonly toolCalls?: ReadonlyArray<ToolCallFields>; readonly toolCallId?: string }) => {
    const toolCallId = fields.toolCallId ?? m.toolCallId
    return make(m.role, m.content, {
      ...(m.id !== undefined ? { id: m.id } : {}),
      toolCalls: fields.toolCalls ?? m.toolCalls,
      ...(toolCallId !== undefined ? { toolCallId } : {}),
      metadata: m.metadata
    })
  }
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
 * What every checked `to…` takes (each line's `CheckOptions`): `check`,
 * `provider`, `arrange` (docs/contract.md sections 15.2 and 15.5).
 *
 * @since 1.0.0
 */
export interface CheckOptions {
  readonly check?: boolean | undefined
  readonly provider?: Validity.Provider | undefined
  readonly arrange?: boolean | { readonly summary: string } | undefined
}

/**
 * A memory's read-back as the target takes it (`CheckOptions.arrange`,
 * docs/contract.md section 15.5): unchanged unless `arrange` is set.
 *
 * @since 1.0.0
 */
export const arrange = <M extends MessageFields>(
  messages: ReadonlyArray<M>,
  provider: Validity.Provider,
  options: CheckOptions | undefined,
  make: Make<M>
): ReadonlyArray<M> => {
  const how = options?.arrange
  if (how === undefined || how === false) return messages
  const rules = Validity.rulesOf(options?.provider ?? provider)
  let out = messages
  if (rules.includes("SystemAfterFirstTurn")) out = hoist(out, typeof how === "object" ? how.summary : undefined)
  if (rules.includes("ConsecutiveSameRole")) out = mergeSameRole(out, make)
  return out
}

/**
 * The index of the first message holding an OpenAI Responses compaction item
 * (opaque: no readable content), which no other format can write, or -1.
 */
const opaqueCompaction = (messages: ReadonlyArray<MessageFields>): number =>
  messages.findIndex((m) => {
    const marker = m.content === "" ? markerOf(m, "openai-responses") : undefined
    return marker !== undefined && marker.items.some((item) =>
      typeof item === "object" && item !== null && (item as { readonly type?: unknown }).type === "compaction"
    )
  })

/** The failure for the violations a provider rejects, if any. @since 1.0.0 */
export const check = (
  format: string,
  messages: ReadonlyArray<MessageFields>,
  provider: Validity.Provider,
  options: CheckOptions | undefined
): Failure | undefined => {
  if (options?.check === false) return undefined
  const opaque = format === "openai-responses" ? -1 : opaqueCompaction(messages)
  if (opaque >= 0) {
    return {
      description: `message ${opaque} holds an OpenAI Responses compaction item: its content is encrypted, ` +
        "only OpenAI Responses reads it (write with toOpenAIResponses, or pass check: false to write it as an empty " +
        "assistant message)"
    }
  }
  const found = Validity.violations(messages, { provider: options?.provider ?? provider })
  if (found.length === 0) return undefined
  return {
    description: `the provider would refuse this context: ${found.map((v) => v.description).join("; ")}${
      memoryHint(found)
    }`,
    violations: found
  }
}

/**
 * The fix a refusal of {@link check} names when a memory's option gives no
 * such context (docs/contract.md section 15.2): `boundary: "turn"` for an
 * orphaned tool result and a first turn that is not the user's
 * (`summaryRole: "user"` for a context that holds no user turn), after a
 * space; `""` when no violation is of these.
 *
 * @example
 * ```ts
 * memoryHint([new Validity.OrphanedToolResult({ index: 0, toolCallId: "c1" })])
 * // ' (a memory with boundary: "turn" never gives an orphaned tool result: docs/guides/context-policies.md)'
 * ```
 *
 * @since 1.0.0
 */
export const memoryHint = (found: ReadonlyArray<Validity.Violation>): string => {
  const fixes = [
    ...(found.some((v) => v._tag === "OrphanedToolResult") ? ["never gives an orphaned tool result"] : []),
    ...(found.some((v) => v._tag === "FirstTurnNotUser")
      ? ["opens on a user turn when it holds one, with summaryRole: \"user\" when it holds none"]
      : [])
  ]
  return fixes.length === 0
    ? ""
    : ` (a memory with boundary: "turn" ${fixes.join(" and ")}: docs/guides/context-policies.md)`
}

/**
 * {@link encode} after {@link notMessages} and {@link check}, the context
 * arranged and its call ids made unique (but for OpenAI Chat Completions).
 *
 * @since 1.0.0
 */
export const encodeChecked = <Item, M extends MessageFields>(
  format: Format<Item, M>,
  read: Line<Item, M>["read"],
  make: Make<M>,
  messages: ReadonlyArray<M>,
  provider: Validity.Provider,
  options: CheckOptions | undefined
): Outcome<Array<Item>> => {
  const refused = notMessages(messages)
  if (refused !== undefined) return { error: { description: refused } }
  // OpenAI Chat Completions takes a call id repeated across turns (tau-bench's transcripts were made so)
  const arranged = arrange(
    format.name === "openai-chat" ? messages : uniqueCallIds(messages, make),
    provider,
    options,
    make
  )
  const error = check(format.name, arranged, provider, options)
  return error === undefined ? encode(format, read, arranged) : { error }
}

/**
 * A value decoded leniently with what the decoder dropped put back: the keys
 * of `input` the decoded value lacks (in input order), then the decoded keys
 * (in the decoder's order), at every level. For a line whose Schema drops
 * unknown keys (Effect 4), the forward-compatible reading keeps them as the
 * Effect 3 line's `onExcessProperty: "preserve"` does.
 *
 * @since 1.0.0
 */
export const preserve = (input: unknown, decoded: unknown): unknown => {
  if (Array.isArray(input) && Array.isArray(decoded) && input.length === decoded.length) {
    return decoded.map((d, i) => preserve(input[i], d))
  }
  if (!isRecord(input) || !isRecord(decoded) || Array.isArray(decoded)) return decoded
  const proto = Object.getPrototypeOf(decoded)
  if (proto !== Object.prototype && proto !== null) return decoded
  const out: { [key: string]: unknown } = {}
  for (const key of Object.keys(input)) {
    if (!Object.hasOwn(decoded, key)) {
      Object.defineProperty(out, key, { value: input[key], enumerable: true, writable: true })
    }
  }
  for (const key of Object.keys(decoded)) {
    Object.defineProperty(out, key, { value: preserve(input[key], decoded[key]), enumerable: true, writable: true })
  }
  return out
}
