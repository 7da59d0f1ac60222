/**
 * OpenAI Responses input items (`input` of `responses.create`, or a
 * response's `output`) and rollmem messages, both ways, as plain functions
 * over the messages' fields: the conversions both lines' `OpenAiResponses`
 * modules run (each declares the items' Schema; docs/contract.md section 15).
 *
 * @since 1.0.0
 */
import { type Draft, type Format, joinText, MEDIA_TOKENS, messageLabel, type Rendered, textEstimate } from "./engine.js"

type Status = "in_progress" | "completed" | "incomplete"
type Phase = "commentary" | "final_answer" | null

/** An input part: text, image or file. @since 1.0.0 */
export type InputPart =
  | { readonly type: "input_text"; readonly text: string }
  | {
    readonly type: "input_image"
    readonly detail: "low" | "high" | "auto" | "original"
    readonly file_id?: string | null
    readonly image_url?: string | null
  }
  | {
    readonly type: "input_file"
    readonly file_data?: string
    readonly file_id?: string | null
    readonly file_url?: string
    readonly filename?: string
  }

/** An output text's annotation. @since 1.0.0 */
export type Annotation =
  | { readonly type: "file_citation"; readonly file_id: string; readonly filename: string; readonly index: number }
  | {
    readonly type: "url_citation"
    readonly end_index: number
    readonly start_index: number
    readonly title: string
    readonly url: string
  }
  | {
    readonly type: "container_file_citation"
    readonly container_id: string
    readonly end_index: number
    readonly file_id: string
    readonly filename: string
    readonly start_index: number
  }
  | { readonly type: "file_path"; readonly file_id: string; readonly index: number }

interface TopLogprob {
  readonly token: string
  readonly bytes: Array<number>
  readonly logprob: number
}

/** An output message's part: text or a refusal. @since 1.0.0 */
export type OutputPart =
  | {
    readonly type: "output_text"
    readonly text: string
    readonly annotations: Array<Annotation>
    readonly logprobs?: Array<TopLogprob & { readonly top_logprobs: Array<TopLogprob> }>
  }
  | { readonly type: "refusal"; readonly refusal: string }

/** One Responses input item (the SDK's `ResponseInputItem`, as rollmem models it). @since 1.0.0 */
export type InputItem =
  | {
    readonly type?: "message"
    readonly role: "user" | "assistant" | "system" | "developer"
    readonly content: string | Array<InputPart>
    readonly phase?: Phase
  }
  | {
    readonly type?: "message"
    readonly role: "user" | "system" | "developer"
    readonly content: Array<InputPart>
    readonly status?: Status
  }
  | {
    readonly type: "message"
    readonly id: string
    readonly role: "assistant"
    readonly status: Status
    readonly content: Array<OutputPart>
    readonly phase?: Phase
  }
  | {
    readonly type: "function_call"
    readonly call_id: string
    readonly name: string
    readonly arguments: string
    readonly id?: string
    readonly namespace?: string
    readonly status?: Status
  }
  | {
    readonly type: "function_call_output"
    readonly call_id: string
    readonly output: string | Array<InputPart>
    readonly id?: string | null
    readonly status?: Status | null
  }
  | {
    readonly type: "custom_tool_call"
    readonly call_id: string
    readonly name: string
    readonly input: string
    readonly id?: string
    readonly namespace?: string
  }
  | {
    readonly type: "custom_tool_call_output"
    readonly call_id: string
    readonly output: string | Array<InputPart>
    readonly id?: string
  }
  | {
    readonly type: "reasoning"
    readonly id: string
    readonly summary: Array<{ readonly type: "summary_text"; readonly text: string }>
    readonly content?: Array<{ readonly type: "reasoning_text"; readonly text: string }>
    readonly encrypted_content?: string | null
    readonly status?: Status
  }
  | { readonly type: "compaction"; readonly encrypted_content: string; readonly id?: string | null }

/** The item types that make a message; the others (reasoning, and types rollmem does not model) go with the next. */
const OWN: ReadonlySet<string | undefined> = new Set([
  undefined,
  "message",
  "function_call",
  "function_call_output",
  "custom_tool_call",
  "custom_tool_call_output",
  "compaction"
])

const isAttached = (item: InputItem): boolean => !OWN.has("type" in item ? item.type : undefined)

const isCall = (item: InputItem): boolean =>
  "type" in item && (item.type === "function_call" || item.type === "custom_tool_call")

const isAssistantMessage = (item: InputItem): boolean =>
  "role" in item && item.role === "assistant" &&
  (!("type" in item) || item.type === undefined || item.type === "message")

/**
 * One group per message: the attached items (reasoning...) with the item
 * after them; an assistant message and the calls right after it, or
 * consecutive calls (parallel calls), make one group, one assistant message
 * with its tool calls, as the natural form writes it.
 */
const groups = (items: ReadonlyArray<InputItem>): Array<ReadonlyArray<InputItem>> => {
  const out: Array<Array<InputItem>> = []
  let pending: Array<InputItem> = []
  for (const item of items) {
    const last = out[out.length - 1]
    const tail = last?.[last.length - 1]
    if (pending.length === 0 && isCall(item) && tail !== undefined && (isCall(tail) || isAssistantMessage(tail))) {
      last.push(item)
      continue
    }
    pending.push(item)
    if (!isAttached(item)) {
      out.push(pending)
      pending = []
    }
  }
  if (pending.length > 0) out.push(pending)
  return out
}

const textOf = (content: string | ReadonlyArray<{ readonly type: string; readonly text?: string }>): string =>
  typeof content === "string"
    ? content
    : joinText(content.flatMap((p) => p.type === "input_text" || p.type === "output_text" ? [p.text ?? ""] : []))

type EasyMessage = Extract<InputItem, { readonly phase?: Phase; readonly content: string | Array<InputPart> }>

const derive = (group: ReadonlyArray<InputItem>): Array<Draft> => {
  const own = group.filter((item) => !isAttached(item))
  const item = own[0]
  // reasoning (or an item of another type) that nothing follows
  if (item === undefined) return [{ role: "assistant", content: "" }]
  if (own.length > 1 || isCall(item)) {
    const content = isCall(item) ? "" : textOf((item as EasyMessage).content)
    const toolCalls = own.flatMap((call) =>
      !("type" in call)
        ? []
        : call.type === "function_call"
        ? [{ id: call.call_id, name: call.name, arguments: call.arguments }]
        : call.type === "custom_tool_call"
        ? [{ id: call.call_id, name: call.name, arguments: call.input }]
        : []
    )
    return [{ role: "assistant", content, toolCalls }]
  }
  if (!("type" in item) || item.type === undefined || item.type === "message") {
    const m = item as EasyMessage
    return [{ role: m.role, content: textOf(m.content) }]
  }
  switch (item.type) {
    case "function_call_output":
    case "custom_tool_call_output":
      return [{ role: "tool", content: textOf(item.output), toolCallId: item.call_id }]
    default:
      return [{ role: "assistant", content: "" }]
  }
}

const render = (run: ReadonlyArray<Rendered>): Array<InputItem> | string => {
  const out: Array<InputItem> = []
  for (const r of run) {
    const m = r.message
    if (m.toolCalls.length > 0) {
      if (m.content !== "") out.push({ role: "assistant", content: m.content })
      for (const call of m.toolCalls) {
        out.push({ type: "function_call", call_id: call.id, name: call.name, arguments: call.arguments })
      }
      continue
    }
    if (m.toolCallId !== undefined) {
      out.push({ type: "function_call_output", call_id: m.toolCallId, output: m.content })
      continue
    }
    switch (m.role) {
      case "system":
      case "developer":
      case "user":
      case "assistant":
        out.push({ role: m.role, content: m.content })
        continue
    }
    return `${messageLabel(r)}: OpenAI Responses has no such role (system, developer, user, assistant)`
  }
  return out
}

const estimate = (item: InputItem): number => {
  if ("type" in item && item.type === "reasoning") {
    let tokens = 0
    for (const s of item.summary) tokens += textEstimate(s.text)
    for (const c of item.content ?? []) tokens += textEstimate(c.text)
    return tokens
  }
  const parts = "content" in item ? item.content : "output" in item ? item.output : undefined
  let tokens = 0
  if (Array.isArray(parts)) {
    for (const p of parts as ReadonlyArray<{ readonly type: string; readonly refusal?: string }>) {
      if (p.type === "input_image" || p.type === "input_file") tokens += MEDIA_TOKENS
      else if (p.type === "refusal") tokens += textEstimate(p.refusal ?? "")
    }
  }
  return tokens
}

/**
 * The OpenAI Responses format (`"openai-responses"`): reasoning and items of
 * other types go with the item after them; an assistant message and the
 * calls right after it are one message.
 *
 * @since 1.0.0
 */
export const format: Format<InputItem> = { name: "openai-responses", groups, derive, render, estimate }
