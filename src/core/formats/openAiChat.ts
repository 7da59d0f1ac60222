/**
 * OpenAI Chat Completions messages (`messages` of `chat.completions.create`)
 * and rollmem messages, both ways, as plain functions over the messages'
 * fields: the conversions both lines' `OpenAiChat` modules run (each
 * declares the messages' Schema; docs/contract.md section 15).
 *
 * @since 1.0.0
 */
import type { MessageFields } from "../message.js"
import {
  type DeriveContext,
  type Draft,
  type DraftCall,
  type Format,
  joinText,
  type Json,
  madeUpCall,
  madeUpResult,
  MEDIA_TOKENS,
  messageLabel,
  type Rendered,
  textEstimate
} from "./engine.js"

/** A text part. @since 1.0.0 */
export interface TextPart {
  readonly type: "text"
  readonly text: string
}

/** A refusal part (assistant). @since 1.0.0 */
export interface RefusalPart {
  readonly type: "refusal"
  readonly refusal: string
}

/** An image part (user). @since 1.0.0 */
export interface ImagePart {
  readonly type: "image_url"
  readonly image_url: { readonly url: string; readonly detail?: "auto" | "low" | "high" }
}

/** An audio part (user). @since 1.0.0 */
export interface AudioPart {
  readonly type: "input_audio"
  readonly input_audio: { readonly data: string; readonly format: "wav" | "mp3" }
}

/** A file part (user). @since 1.0.0 */
export interface FilePart {
  readonly type: "file"
  readonly file: { readonly file_data?: string; readonly file_id?: string; readonly filename?: string }
}

/** A function tool call. @since 1.0.0 */
export interface FunctionToolCall {
  readonly id: string
  readonly type: "function"
  readonly function: { readonly name: string; readonly arguments: string }
}

/** A custom tool call (its input is free text). @since 1.0.0 */
export interface CustomToolCall {
  readonly id: string
  readonly type: "custom"
  readonly custom: { readonly name: string; readonly input: string }
}

/** One Chat Completions message, as the SDK's `ChatCompletionMessageParam`. @since 1.0.0 */
export type ChatMessage =
  | { readonly role: "system"; readonly content: string | Array<TextPart>; readonly name?: string }
  | { readonly role: "developer"; readonly content: string | Array<TextPart>; readonly name?: string }
  | {
    readonly role: "user"
    readonly content: string | Array<TextPart | ImagePart | AudioPart | FilePart>
    readonly name?: string
  }
  | {
    readonly role: "assistant"
    readonly content?: string | Array<TextPart | RefusalPart> | null
    readonly refusal?: string | null
    readonly name?: string
    readonly audio?: { readonly id: string; readonly [key: string]: Json } | null
    readonly tool_calls?: Array<FunctionToolCall | CustomToolCall>
    readonly function_call?: { readonly name: string; readonly arguments: string } | null
    readonly annotations?: Array<Json>
  }
  | { readonly role: "tool"; readonly content: string | Array<TextPart>; readonly tool_call_id: string }
  | { readonly role: "function"; readonly content: string | null; readonly name: string }

const textOf = (content: string | ReadonlyArray<{ readonly type: string; readonly text?: string }>): string =>
  typeof content === "string" ? content : joinText(content.flatMap((p) => p.type === "text" ? [p.text ?? ""] : []))

const derive = (group: ReadonlyArray<ChatMessage>, ctx: DeriveContext): Array<Draft> => {
  const m = group[0]
  switch (m.role) {
    case "system":
    case "developer":
    case "user":
      return [{ role: m.role, content: textOf(m.content) }]
    case "tool":
      return [{ role: "tool", content: textOf(m.content), toolCallId: m.tool_call_id }]
    case "function":
      return [{
        role: "function",
        content: m.content ?? "",
        toolCallId: madeUpResult(ctx, m.name, `function_result:${ctx.index}`)
      }]
    case "assistant": {
      const content = m.content === undefined || m.content === null ? "" : textOf(m.content)
      const toolCalls: Array<DraftCall> = (m.tool_calls ?? []).map((call) =>
        call.type === "function"
          ? { id: call.id, name: call.function.name, arguments: call.function.arguments }
          : { id: call.id, name: call.custom.name, arguments: call.custom.input }
      )
      if (m.function_call !== undefined && m.function_call !== null) {
        const name = m.function_call.name
        toolCalls.push({
          id: madeUpCall(ctx, name, `function_call:${ctx.index}`),
          name,
          arguments: m.function_call.arguments
        })
      }
      return [{ role: "assistant", content, toolCalls }]
    }
  }
}

const renderOne = (r: Rendered): ChatMessage | string => {
  const m: MessageFields = r.message
  if (m.toolCalls.length > 0) {
    return {
      role: "assistant",
      content: m.content === "" ? null : m.content,
      tool_calls: m.toolCalls.map((call) => ({
        id: call.id,
        type: "function" as const,
        function: { name: call.name, arguments: call.arguments }
      }))
    }
  }
  if (m.toolCallId !== undefined) return { role: "tool", content: m.content, tool_call_id: m.toolCallId }
  switch (m.role) {
    case "system":
    case "developer":
    case "user":
    case "assistant":
      return { role: m.role, content: m.content }
  }
  return `${messageLabel(r)}: OpenAI chat has no such role (system, developer, user, assistant, tool)`
}

const render = (run: ReadonlyArray<Rendered>): Array<ChatMessage> | string => {
  const out: Array<ChatMessage> = []
  for (const r of run) {
    const item = renderOne(r)
    if (typeof item === "string") return item
    out.push(item)
  }
  return out
}

const estimate = (m: ChatMessage): number => {
  let tokens = 0
  if (m.role === "assistant") {
    if (typeof m.refusal === "string") tokens += textEstimate(m.refusal)
    if (Array.isArray(m.content)) {
      for (const p of m.content) if (p.type === "refusal") tokens += textEstimate(p.refusal)
    }
  }
  if (m.role === "user" && Array.isArray(m.content)) {
    for (const p of m.content) if (p.type !== "text") tokens += MEDIA_TOKENS
  }
  return tokens
}

/**
 * The OpenAI Chat Completions format (`"openai-chat"`): each message one
 * group, derived and rendered as the table of `OpenAiChat` says.
 *
 * @since 1.0.0
 */
export const format: Format<ChatMessage> = { name: "openai-chat", derive, render, estimate }
