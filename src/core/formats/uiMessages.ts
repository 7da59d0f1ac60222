/**
 * The AI SDK's `UIMessage` (what `useChat` sends and applications persist:
 * `{ id, role, metadata?, parts }`) and rollmem messages, both ways, as
 * plain functions over the messages' fields: the conversions both lines'
 * `UiMessages` modules run (each declares the parts' Schema;
 * docs/contract.md section 15.3).
 *
 * @since 1.0.0
 */
import type { MessageFields } from "../message.js"
import { inputOf } from "./aiSdk.js"
import {
  arrange,
  check,
  type Draft,
  type DraftCall,
  encode,
  type Format,
  joinText,
  type Json,
  type Line,
  type Make,
  MEDIA_TOKENS,
  messageLabel,
  notMessages,
  type Outcome,
  parseJson,
  type Rendered,
  stringify,
  textEstimate,
  uniqueCallIds
} from "./engine.js"

/** Provider metadata (per provider, a JSON object). @since 1.0.0 */
export type ProviderMetadata = { readonly [provider: string]: { readonly [key: string]: Json } }

/** A text part. @since 1.0.0 */
export interface TextPart {
  readonly type: "text"
  readonly text: string
  readonly state?: "streaming" | "done"
  readonly providerMetadata?: ProviderMetadata
}

/** A reasoning part. @since 1.0.0 */
export interface ReasoningPart {
  readonly type: "reasoning"
  readonly id?: string
  readonly text: string
  readonly state?: "streaming" | "done"
  readonly providerMetadata?: ProviderMetadata
}

/** A source URL part. @since 1.0.0 */
export interface SourceUrlPart {
  readonly type: "source-url"
  readonly sourceId: string
  readonly url: string
  readonly title?: string
  readonly providerMetadata?: ProviderMetadata
}

/** A source document part. @since 1.0.0 */
export interface SourceDocumentPart {
  readonly type: "source-document"
  readonly sourceId: string
  readonly mediaType: string
  readonly title: string
  readonly filename?: string
  readonly providerMetadata?: ProviderMetadata
}

/** A file part. @since 1.0.0 */
export interface FilePart {
  readonly type: "file"
  readonly mediaType: string
  readonly filename?: string
  readonly url: string
  readonly providerMetadata?: ProviderMetadata
}

/** A step boundary. @since 1.0.0 */
export interface StepStartPart {
  readonly type: "step-start"
}

/** A data part (`data-<name>`). @since 1.0.0 */
export interface DataPart {
  readonly type: `data-${string}`
  readonly id?: string
  readonly data: Json
}

/** A tool approval. @since 1.0.0 */
export interface Approval {
  readonly id: string
  readonly descriptor?: Json
  readonly signature?: string
  readonly inputSchemaInput?: Json
}

/** The states of a tool part, each with its fields (the AI SDK's `UIToolInvocation`). @since 1.0.0 */
export type ToolState =
  | {
    readonly state: "input-streaming"
    readonly input?: Json
    readonly rawInput?: string
    readonly inputEncoding?: "json" | "text"
    readonly callProviderMetadata?: ProviderMetadata
  }
  | { readonly state: "input-available"; readonly input: Json; readonly callProviderMetadata?: ProviderMetadata }
  | {
    readonly state: "approval-requested"
    readonly input: Json
    readonly callProviderMetadata?: ProviderMetadata
    readonly approval: Approval
  }
  | {
    readonly state: "approval-responded"
    readonly input: Json
    readonly callProviderMetadata?: ProviderMetadata
    readonly approval: Approval & { readonly approved: boolean; readonly reason?: string }
  }
  | {
    readonly state: "output-available"
    readonly input: Json
    readonly output: Json
    readonly callProviderMetadata?: ProviderMetadata
    readonly resultProviderMetadata?: ProviderMetadata
    readonly preliminary?: boolean
    readonly approval?: Approval & { readonly approved: true; readonly reason?: string }
  }
  | {
    readonly state: "output-error"
    readonly input: Json | undefined
    readonly rawInput?: Json
    readonly errorText: string
    readonly callProviderMetadata?: ProviderMetadata
    readonly resultProviderMetadata?: ProviderMetadata
    readonly approval?: Approval & { readonly approved: true; readonly reason?: string }
  }
  | {
    readonly state: "output-denied"
    readonly input: Json
    readonly callProviderMetadata?: ProviderMetadata
    readonly approval: Approval & { readonly approved: false; readonly reason?: string }
  }

interface ToolFields {
  readonly toolCallId: string
  readonly title?: string
  readonly toolMetadata?: { readonly [key: string]: Json }
  readonly providerExecuted?: boolean
}

/** A static tool part (`tool-<name>`). @since 1.0.0 */
export type ToolPart = { readonly type: `tool-${string}` } & ToolFields & ToolState

/** A dynamic tool part. @since 1.0.0 */
export type DynamicToolPart =
  & { readonly type: "dynamic-tool"; readonly dynamic?: false; readonly toolName: string }
  & ToolFields
  & ToolState

/** Any part of a `UIMessage`. @since 1.0.0 */
export type UIPart =
  | TextPart
  | ReasoningPart
  | SourceUrlPart
  | SourceDocumentPart
  | FilePart
  | StepStartPart
  | DataPart
  | ToolPart
  | DynamicToolPart

/** One AI SDK `UIMessage`. @since 1.0.0 */
export interface UIMessage {
  readonly id: string
  readonly role: "system" | "user" | "assistant"
  readonly metadata?: Json
  readonly parts: Array<UIPart>
}

type ToolUIPart = ToolPart | DynamicToolPart

const isTool = (p: UIPart): p is ToolUIPart =>
  "toolCallId" in p && typeof p.toolCallId === "string" && "state" in p &&
  (p.type === "dynamic-tool" || p.type.startsWith("tool-"))

const toolName = (p: ToolUIPart): string => p.type === "dynamic-tool" ? p.toolName : p.type.slice("tool-".length)

const texts = (parts: ReadonlyArray<UIPart>): Array<string> =>
  parts.flatMap((p) => p.type === "text" && "text" in p && typeof p.text === "string" ? [p.text] : [])

/** The result a tool part holds, as a tool message's content, or `undefined` (no result yet). */
const resultOf = (p: ToolUIPart): string | undefined => {
  switch (p.state) {
    case "output-available":
      return typeof p.output === "string" ? p.output : stringify(p.output)
    case "output-error":
      return p.errorText
    case "output-denied":
      return p.approval.reason ?? "Tool call execution denied."
    default:
      return undefined
  }
}

const step = (block: ReadonlyArray<UIPart>, id: string | undefined): Array<Draft> => {
  const tools = block.filter(isTool)
  const toolCalls: Array<DraftCall> = tools.flatMap((p) =>
    p.state === "input-streaming"
      ? []
      : [{ id: p.toolCallId, name: toolName(p), arguments: p.input === undefined ? "" : stringify(p.input) }]
  )
  const results = tools.flatMap((p): Array<Draft> => {
    const content = resultOf(p)
    return content === undefined ? [] : [{ role: "tool", content, toolCallId: p.toolCallId }]
  })
  return [
    { role: "assistant", content: joinText(texts(block)), toolCalls, ...(id === undefined ? {} : { id }) },
    ...results
  ]
}

const derive = (group: ReadonlyArray<UIMessage>): Array<Draft> => {
  const m = group[0]
  switch (m.role) {
    case "system":
      return [{ role: "system", content: texts(m.parts).join(""), id: m.id }]
    case "user":
      return [{ role: "user", content: joinText(texts(m.parts)), id: m.id }]
    case "assistant": {
      const blocks: Array<Array<UIPart>> = [[]]
      for (const p of m.parts) {
        if (p.type === "step-start") blocks.push([])
        else blocks[blocks.length - 1].push(p)
      }
      const steps = blocks.filter((b) => b.length > 0)
      if (steps.length === 0) return [{ role: "assistant", content: "", id: m.id }]
      return steps.flatMap((b, i) => step(b, i === 0 ? m.id : undefined))
    }
  }
}

const outputOf = (content: string): Json => {
  const parsed = parseJson(content)
  return parsed === undefined || typeof parsed.value === "string" ? content : parsed.value
}

const textParts = (content: string): Array<UIPart> => content === "" ? [] : [{ type: "text", text: content }]

const render = (run: ReadonlyArray<Rendered>): Array<UIMessage> | string => {
  const out: Array<UIMessage> = []
  // the assistant UIMessage of the current turn, and its tool parts by call id
  let turn: UIMessage | undefined
  let calls = new Map<string, number>()
  let afterResult = false
  for (const r of run) {
    const m = r.message
    const id = m.id ?? `rollmem-${r.index}`
    if (m.toolCallId !== undefined) {
      const at = turn === undefined ? undefined : calls.get(m.toolCallId)
      if (turn === undefined || at === undefined) {
        return `${messageLabel(r)}: a tool result without its call in the assistant turn before it`
      }
      const part = turn.parts[at] as ToolUIPart
      turn.parts[at] = {
        type: part.type as `tool-${string}`,
        toolCallId: m.toolCallId,
        state: "output-available",
        input: part.input ?? {},
        output: outputOf(m.content)
      }
      calls.delete(m.toolCallId)
      afterResult = true
      continue
    }
    switch (m.role) {
      case "system":
      case "user":
        out.push({ id, role: m.role, parts: textParts(m.content) })
        turn = undefined
        afterResult = false
        continue
      case "assistant": {
        if (turn === undefined || !afterResult || m.id !== undefined) {
          turn = { id, role: "assistant", parts: [] }
          calls = new Map()
          out.push(turn)
        }
        turn.parts.push({ type: "step-start" }, ...textParts(m.content))
        for (const call of m.toolCalls) {
          calls.set(call.id, turn.parts.length)
          turn.parts.push({
            type: `tool-${call.name}`,
            toolCallId: call.id,
            state: "input-available",
            input: inputOf(call.arguments)
          })
        }
        afterResult = false
        continue
      }
    }
    return `${messageLabel(r)}: a UIMessage has no such role (system, user, assistant, tool)`
  }
  return out
}

const estimate = (m: UIMessage): number => {
  let tokens = 0
  for (const p of m.parts) {
    if (p.type === "file") tokens += MEDIA_TOKENS
    else if (p.type === "reasoning" && "text" in p && typeof p.text === "string") tokens += textEstimate(p.text)
  }
  return tokens
}

/**
 * The AI SDK `UIMessage` format (`"ai-sdk-ui"`): each `UIMessage` one group,
 * an assistant one a message per step and a tool message per result,
 * derived and rendered as the table of `UiMessages` says.
 *
 * @since 1.0.0
 */
export const format: Format<UIMessage> = { name: "ai-sdk-ui", derive, render, estimate }

/**
 * The ids of the calls still awaiting their results at the end of
 * `messages`: the unanswered calls of the last message, an assistant one,
 * that makes calls, when only tool results follow it (a tool running, an
 * approval asked for). A UI shows them as tool parts in state
 * `input-available` (docs/contract.md section 15.3).
 *
 * @since 1.0.0
 */
export const pendingCalls = (messages: ReadonlyArray<MessageFields>): ReadonlyArray<string> => {
  let i = messages.length - 1
  while (i >= 0 && messages[i].toolCallId !== undefined && messages[i].toolCalls.length === 0) i--
  if (i < 0 || messages[i].role !== "assistant" || messages[i].toolCalls.length === 0) return []
  const answered = new Set(messages.slice(i + 1).map((m) => m.toolCallId))
  return messages[i].toolCalls.flatMap((call) => answered.has(call.id) ? [] : [call.id])
}

/**
 * Writes messages as `UIMessage`s: what is not messages refused, the
 * context arranged and its call ids made unique, checked as OpenAI's with
 * the last turn's pending calls counted as answered (a UI shows them in
 * state `input-available`, not a fault), then encoded (`read` reads the
 * kept `UIMessage`s back, `make` builds the line's messages).
 *
 * @since 1.0.0
 */
export const toUIMessages = <M extends MessageFields>(
  read: Line<UIMessage, M>["read"],
  make: Make<M>,
  input: ReadonlyArray<M>,
  options: Parameters<typeof arrange>[2]
): Outcome<Array<UIMessage>> => {
  const refused = notMessages(input)
  if (refused !== undefined) return { error: { description: refused } }
  const messages = arrange(uniqueCallIds(input, make), "openai", options, make)
  const pending = pendingCalls(messages)
  const checked = pending.length === 0
    ? messages
    : [...messages, ...pending.map((id) => make("tool", "", { toolCallId: id }))]
  const error = check(format.name, checked, "openai", options)
  return error === undefined ? encode(format, read, messages) : { error }
}
