/**
 * LangChain's stored-message JSON (`{ type, data }`) and rollmem messages,
 * both ways, as plain functions over the messages' fields: the conversions
 * both lines' `LangChain` modules run (each declares the stored message's
 * Schema; docs/contract.md section 15), message instances read by their
 * `toDict()`, and the lazy load of `@langchain/core` that turns stored
 * messages into instances.
 *
 * @since 1.0.0
 */
import {
  type DeriveContext,
  type Draft,
  type DraftCall,
  type Format,
  joinText,
  type Json,
  madeUpCall,
  MEDIA_TOKENS,
  messageLabel,
  parseObject,
  type Rendered,
  stringify
} from "./engine.js"

/** A tool call of an `ai` message. @since 1.0.0 */
export interface ToolCall {
  readonly name: string
  readonly args: { readonly [key: string]: Json }
  readonly id?: string | null
  readonly type?: "tool_call"
}

/** A stored message's `data`. @since 1.0.0 */
export interface Data {
  readonly content: string | Array<{ readonly [key: string]: Json }>
  readonly role?: string | null
  readonly name?: string | null
  readonly id?: string | null
  readonly tool_call_id?: string | null
  readonly tool_calls?: Array<ToolCall>
  readonly invalid_tool_calls?: Array<{ readonly [key: string]: Json }>
  readonly additional_kwargs?: { readonly [key: string]: Json }
  readonly response_metadata?: { readonly [key: string]: Json }
  readonly usage_metadata?: { readonly [key: string]: Json } | null
  readonly example?: boolean
  readonly type?: string
  readonly status?: string
  readonly artifact?: Json
}

/** One stored LangChain message: `{ type, data }`. @since 1.0.0 */
export interface StoredMessage {
  readonly type: "human" | "ai" | "system" | "tool" | "function" | "chat" | "generic"
  readonly data: Data
}

/** The `type`s of a stored message. @since 1.0.0 */
export const TYPES = ["human", "ai", "system", "tool", "function", "chat", "generic"] as const

const roles = { human: "user", ai: "assistant", system: "system", tool: "tool", function: "function" } as const

const derive = (group: ReadonlyArray<StoredMessage>, ctx: DeriveContext): Array<Draft> => {
  const { data, type } = group[0]
  const content = typeof data.content === "string"
    ? data.content
    : joinText(data.content.flatMap((b) => b.type === "text" && typeof b.text === "string" ? [b.text] : []))
  const role = type === "chat" || type === "generic" ? data.role ?? type : roles[type]
  const toolCalls = (data.tool_calls ?? []).map((call, k): DraftCall => ({
    id: call.id ?? madeUpCall(ctx, call.name, `langchain:${ctx.index}:${k}`),
    name: call.name,
    arguments: stringify(call.args)
  }))
  return [{
    role,
    content,
    toolCalls,
    ...(data.tool_call_id !== undefined && data.tool_call_id !== null ? { toolCallId: data.tool_call_id } : {})
  }]
}

const typeOf = (role: string): StoredMessage["type"] =>
  role === "user"
    ? "human"
    : role === "assistant"
    ? "ai"
    : role === "system" || role === "tool" || role === "function"
    ? role
    : "chat"

const render = (run: ReadonlyArray<Rendered>): Array<StoredMessage> | string => {
  const out: Array<StoredMessage> = []
  for (const r of run) {
    const m = r.message
    const type = typeOf(m.role)
    const toolCalls = []
    for (const call of m.toolCalls) {
      const args = call.arguments === "" ? {} : parseObject(call.arguments)
      if (args === undefined) {
        return `${messageLabel(r)}: the arguments of tool call ${JSON.stringify(call.id)} are not a JSON object`
      }
      toolCalls.push({ name: call.name, args, id: call.id, type: "tool_call" as const })
    }
    out.push({
      type,
      data: {
        content: m.content,
        ...(type === "chat" ? { role: m.role } : {}),
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        ...(m.toolCallId !== undefined ? { tool_call_id: m.toolCallId } : {})
      }
    })
  }
  return out
}

const estimate = (m: StoredMessage): number => {
  if (typeof m.data.content === "string") return 0
  let tokens = 0
  for (const b of m.data.content) if (b.type !== "text") tokens += MEDIA_TOKENS
  return tokens
}

/**
 * The stored messages' format (`"langchain"`): one message per stored
 * message, its `type` as the role (`chat` and `generic` by `data.role`), a
 * call without id given a made-up one.
 *
 * @since 1.0.0
 */
export const format: Format<StoredMessage> = { name: "langchain", derive, render, estimate }

/**
 * What reading takes of a LangChain message instance (`HumanMessage`,
 * `AIMessage`, ... of `@langchain/core`): its stored form, `toDict()`.
 *
 * @since 1.0.0
 */
export interface Instance {
  readonly toDict: () => { readonly type: string; readonly data: object }
}

const isInstance = (u: unknown): u is Instance =>
  typeof u === "object" && u !== null && typeof (u as { readonly toDict?: unknown }).toDict === "function" &&
  "lc_kwargs" in u

/** Instances as their stored form (`toDict()`); stored messages (any other input) as they are. @since 1.0.0 */
export const stored = (input: unknown): unknown =>
  Array.isArray(input) && input.some(isInstance) ? input.map((u) => isInstance(u) ? u.toDict() : u) : input

/** The part of `@langchain/core/messages` that writing instances uses. @since 1.0.0 */
export interface MessagesModule {
  readonly mapStoredMessagesToChatMessages: (messages: Array<StoredMessage>) => Array<unknown>
}

/**
 * `import(specifier)` out of a bundler's sight (a computed specifier, marked
 * for webpack and Vite): bundling `rollmem/adapters` without
 * `@langchain/core` installed succeeds, and nothing loads it until
 * instances are written.
 */
const load = (specifier: string): Promise<unknown> => import(/* webpackIgnore: true */ /* @vite-ignore */ specifier)

let messagesModule: Promise<MessagesModule> | undefined

/**
 * `@langchain/core/messages`, loaded once on the first call (an optional
 * peer); a failed load is tried again on the next call (the peer may be
 * installed since).
 *
 * @since 1.0.0
 */
export const loadMessages = (): Promise<MessagesModule> => {
  if (messagesModule === undefined) {
    const loading = load("@langchain/core/messages").then((module) => {
      const m = module as Partial<MessagesModule>
      if (typeof m.mapStoredMessagesToChatMessages !== "function") {
        throw new Error("the module `@langchain/core/messages` has no mapStoredMessagesToChatMessages")
      }
      return m as MessagesModule
    })
    messagesModule = loading
    loading.catch(() => {
      if (messagesModule === loading) messagesModule = undefined
    })
  }
  return messagesModule
}

/** Why writing instances failed to load `@langchain/core`. @since 1.0.0 */
export const NEEDS_CORE = "LangChain message instances need @langchain/core, an optional peer: npm i @langchain/core"

/**
 * Stored messages as LangChain instances with the loaded module: a custom
 * role (`chat`, Python's) revived as `generic`, LangChain.js's `ChatMessage`.
 *
 * @since 1.0.0
 */
export const instances = (module: MessagesModule, messages: ReadonlyArray<StoredMessage>): Array<unknown> =>
  module.mapStoredMessagesToChatMessages(
    messages.map((m) => m.type === "chat" ? { type: "generic", data: m.data } : m)
  )
