/**
 * The AI SDK's `ModelMessage` (the `messages` of `generateText` and
 * `streamText`, and `response.messages`) and rollmem messages, both ways,
 * as plain functions over the messages' fields: the conversions both lines'
 * `AiSdk` modules run (each declares the messages' Schema; docs/contract.md
 * section 15).
 *
 * @since 1.0.0
 */
import {
  type Draft,
  type Format,
  joinText,
  type Json,
  MEDIA_TOKENS,
  messageLabel,
  parseJson,
  type Rendered,
  stringify,
  textEstimate
} from "./engine.js"

/** Provider options (per provider, a JSON object). @since 1.0.0 */
export type ProviderOptions = { readonly [provider: string]: { readonly [key: string]: Json } }

/**
 * `DataContent | URL` (an image or file part's data) as a string: the string
 * itself, bytes (`Uint8Array`, `ArrayBuffer`, `Buffer`) as base64, a `URL`
 * as its `href`; `undefined` for anything else.
 *
 * @since 1.0.0
 */
export const dataContent = (u: unknown): string | undefined => {
  if (typeof u === "string") return u
  if (u instanceof Uint8Array || u instanceof ArrayBuffer) {
    const bytes = u instanceof Uint8Array ? u : new Uint8Array(u)
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64")
  }
  if (u instanceof URL) return u.href
  return undefined
}

/** A text part. @since 1.0.0 */
export interface TextPart {
  readonly type: "text"
  readonly text: string
  readonly providerOptions?: ProviderOptions
}

/** An image part (its data read as a string). @since 1.0.0 */
export interface ImagePart {
  readonly type: "image"
  readonly image: string
  readonly mediaType?: string
  readonly providerOptions?: ProviderOptions
}

/** A file part (its data read as a string). @since 1.0.0 */
export interface FilePart {
  readonly type: "file"
  readonly data: string
  readonly filename?: string
  readonly mediaType: string
  readonly providerOptions?: ProviderOptions
}

/** A reasoning part. @since 1.0.0 */
export interface ReasoningPart {
  readonly type: "reasoning"
  readonly text: string
  readonly providerOptions?: ProviderOptions
}

/** A tool call part. @since 1.0.0 */
export interface ToolCallPart {
  readonly type: "tool-call"
  readonly toolCallId: string
  readonly toolName: string
  readonly input: Json
  readonly providerOptions?: ProviderOptions
  readonly providerExecuted?: boolean
}

/** One part of a `content` tool output. @since 1.0.0 */
export type OutputContent =
  | { readonly type: "text"; readonly text: string; readonly providerOptions?: ProviderOptions }
  | { readonly type: "media"; readonly data: string; readonly mediaType: string }
  | {
    readonly type: "file-data"
    readonly data: string
    readonly mediaType: string
    readonly filename?: string
    readonly providerOptions?: ProviderOptions
  }
  | {
    readonly type: "file-url"
    readonly url: string
    readonly mediaType?: string
    readonly providerOptions?: ProviderOptions
  }
  | {
    readonly type: "image-data"
    readonly data: string
    readonly mediaType: string
    readonly providerOptions?: ProviderOptions
  }
  | { readonly type: "image-url"; readonly url: string; readonly providerOptions?: ProviderOptions }

/** A tool result's output. @since 1.0.0 */
export type ToolResultOutput =
  | { readonly type: "text" | "error-text"; readonly value: string; readonly providerOptions?: ProviderOptions }
  | { readonly type: "json" | "error-json"; readonly value: Json; readonly providerOptions?: ProviderOptions }
  | { readonly type: "execution-denied"; readonly reason?: string; readonly providerOptions?: ProviderOptions }
  | { readonly type: "content"; readonly value: Array<OutputContent> }

/** A tool result part. @since 1.0.0 */
export interface ToolResultPart {
  readonly type: "tool-result"
  readonly toolCallId: string
  readonly toolName: string
  readonly output: ToolResultOutput
  readonly providerOptions?: ProviderOptions
}

/** A tool approval request (assistant). @since 1.0.0 */
export interface ApprovalRequest {
  readonly type: "tool-approval-request"
  readonly approvalId: string
  readonly toolCallId: string
  readonly signature?: string
  readonly inputSchemaInput?: Json
}

/** A tool approval response (tool). @since 1.0.0 */
export interface ApprovalResponse {
  readonly type: "tool-approval-response"
  readonly approvalId: string
  readonly approved: boolean
  readonly reason?: string
  readonly providerExecuted?: boolean
}

/** One AI SDK `ModelMessage`. @since 1.0.0 */
export type ModelMessage =
  | { readonly role: "system"; readonly content: string; readonly providerOptions?: ProviderOptions }
  | {
    readonly role: "user"
    readonly content: string | Array<TextPart | ImagePart | FilePart>
    readonly providerOptions?: ProviderOptions
  }
  | {
    readonly role: "assistant"
    readonly content:
      | string
      | Array<TextPart | FilePart | ReasoningPart | ToolCallPart | ToolResultPart | ApprovalRequest>
    readonly providerOptions?: ProviderOptions
  }
  | {
    readonly role: "tool"
    readonly content: Array<ToolResultPart | ApprovalResponse>
    readonly providerOptions?: ProviderOptions
  }

const textOf = (content: string | ReadonlyArray<{ readonly type: string; readonly text?: string }>): string =>
  typeof content === "string" ? content : joinText(content.flatMap((p) => p.type === "text" ? [p.text ?? ""] : []))

const resultContent = (part: ToolResultPart): string => {
  const output = part.output
  switch (output.type) {
    case "text":
    case "error-text":
      return output.value
    case "json":
    case "error-json":
      return stringify(output.value)
    case "execution-denied":
      return output.reason ?? ""
    case "content":
      return textOf(output.value)
    default:
      // an output type rollmem does not model (kept verbatim)
      return ""
  }
}

const derive = (group: ReadonlyArray<ModelMessage>): Array<Draft> => {
  const m = group[0]
  switch (m.role) {
    case "system":
      return [{ role: "system", content: m.content }]
    case "user":
      return [{ role: "user", content: textOf(m.content) }]
    case "assistant": {
      if (typeof m.content === "string") return [{ role: "assistant", content: m.content }]
      const toolCalls = m.content.flatMap((p) =>
        p.type === "tool-call" ? [{ id: p.toolCallId, name: p.toolName, arguments: stringify(p.input) }] : []
      )
      const results = m.content.flatMap((p): Array<Draft> =>
        p.type === "tool-result" ? [{ role: "tool", content: resultContent(p), toolCallId: p.toolCallId }] : []
      )
      return [{ role: "assistant", content: textOf(m.content), toolCalls }, ...results]
    }
    case "tool": {
      const results = m.content.flatMap((p): Array<Draft> =>
        p.type === "tool-result" ? [{ role: "tool", content: resultContent(p), toolCallId: p.toolCallId }] : []
      )
      return results.length === 0 ? [{ role: "tool", content: "" }] : results
    }
  }
}

/** A tool call's arguments as a part's `input`: `{}` for `""`, the parsed JSON, else the raw string. @since 1.0.0 */
export const inputOf = (args: string): Json => {
  if (args === "") return {}
  const parsed = parseJson(args)
  return parsed === undefined ? args : parsed.value
}

const outputOf = (content: string): ToolResultOutput => {
  const parsed = parseJson(content)
  return parsed === undefined || typeof parsed.value === "string"
    ? { type: "text", value: content }
    : { type: "json", value: parsed.value }
}

const render = (run: ReadonlyArray<Rendered>): Array<ModelMessage> | string => {
  const out: Array<ModelMessage> = []
  for (const r of run) {
    const m = r.message
    if (m.toolCalls.length > 0) {
      out.push({
        role: "assistant",
        content: [
          ...(m.content === "" ? [] : [{ type: "text" as const, text: m.content }]),
          ...m.toolCalls.map((call) => ({
            type: "tool-call" as const,
            toolCallId: call.id,
            toolName: call.name,
            input: inputOf(call.arguments)
          }))
        ]
      })
      continue
    }
    if (m.toolCallId !== undefined) {
      const part: ToolResultPart = {
        type: "tool-result",
        toolCallId: m.toolCallId,
        toolName: r.toolName,
        output: outputOf(m.content)
      }
      const last = out[out.length - 1]
      if (last !== undefined && last.role === "tool") last.content.push(part)
      else out.push({ role: "tool", content: [part] })
      continue
    }
    switch (m.role) {
      case "system":
      case "user":
      case "assistant":
        out.push({ role: m.role, content: m.content })
        continue
    }
    return `${messageLabel(r)}: the AI SDK has no such role (system, user, assistant, tool)`
  }
  return out
}

const estimate = (m: ModelMessage): number => {
  let tokens = 0
  if (typeof m.content === "string") return 0
  for (const p of m.content) {
    if (p.type === "image" || p.type === "file") tokens += MEDIA_TOKENS
    else if (p.type === "reasoning") tokens += textEstimate(p.text)
    else if (p.type === "tool-result" && p.output.type === "content") {
      for (const c of p.output.value) if (c.type !== "text") tokens += MEDIA_TOKENS
    }
  }
  return tokens
}

/**
 * The AI SDK `ModelMessage` format (`"ai-sdk"`): each message one group (a
 * `tool` message right after another kept, as rendering would merge them),
 * derived and rendered as the table of `AiSdk` says.
 *
 * @since 1.0.0
 */
export const format: Format<ModelMessage> = {
  name: "ai-sdk",
  derive,
  render,
  merges: (previous, next) => previous.role === "tool" && next.role === "tool",
  estimate
}
