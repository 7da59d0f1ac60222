/**
 * Gemini `contents` and `systemInstruction` (the REST shape of
 * `generateContent`) and rollmem messages, both ways, as plain functions
 * over the messages' fields: the conversions both lines' `Gemini` modules
 * run (each declares the contents' Schema; docs/contract.md section 15): the
 * contents' format, the `systemInstruction` parts', the request read and
 * written around them.
 *
 * @since 1.0.0
 */
import type { MessageFields } from "../message.js"
import {
  arrange,
  check,
  type CheckOptions,
  type DeriveContext,
  type Draft,
  type DraftCall,
  failed,
  type Format,
  joinText,
  type Json,
  leadingSystem,
  madeUpCall,
  madeUpResult,
  type Make,
  MEDIA_TOKENS,
  messageLabel,
  notMessages,
  type Outcome,
  parseObject,
  type Rendered,
  stringify,
  textEstimate,
  uniqueCallIds
} from "./engine.js"

/** One part of a content: text, a thought, inline or file data, a function call or response. @since 1.0.0 */
export interface Part {
  readonly text?: string
  readonly thought?: boolean
  readonly thoughtSignature?: string
  readonly inlineData?: { readonly data?: string; readonly displayName?: string; readonly mimeType?: string }
  readonly fileData?: { readonly displayName?: string; readonly fileUri?: string; readonly mimeType?: string }
  readonly functionCall?: {
    readonly id?: string
    readonly name?: string
    readonly args?: { readonly [key: string]: Json }
  }
  readonly functionResponse?: {
    readonly id?: string
    readonly name?: string
    readonly response?: { readonly [key: string]: Json }
    readonly willContinue?: boolean
  }
  readonly videoMetadata?: { readonly endOffset?: string; readonly fps?: number; readonly startOffset?: string }
  readonly partMetadata?: { readonly [key: string]: Json }
}

/** One content: `role` (`"user"` when absent) and its parts. @since 1.0.0 */
export interface Content {
  readonly role?: "user" | "model"
  readonly parts: Array<Part>
}

/** One part of `systemInstruction`. @since 1.0.0 */
export interface SystemPart {
  readonly text: string
}

/** `{ systemInstruction?, contents }`. @since 1.0.0 */
export interface Request {
  readonly systemInstruction?: { readonly parts: Array<SystemPart> }
  readonly contents: Array<Content>
}

const textOf = (parts: ReadonlyArray<Part>): string =>
  joinText(parts.flatMap((p) => p.text !== undefined && p.thought !== true ? [p.text] : []))

const responseText = (response: { readonly [key: string]: Json } | undefined): string => {
  if (response === undefined) return ""
  const keys = Object.keys(response)
  if (keys.length === 1 && keys[0] === "output" && typeof response.output === "string") return response.output
  return stringify(response)
}

const derive = (group: ReadonlyArray<Content>, ctx: DeriveContext): Array<Draft> => {
  const c = group[0]
  if (c.role === "model") {
    const toolCalls = c.parts.flatMap((p, k): Array<DraftCall> => {
      const call = p.functionCall
      if (call === undefined) return []
      const name = call.name ?? ""
      const id = call.id ?? madeUpCall(ctx, name, `gemini:${ctx.index}:${k}`)
      return [{ id, name, arguments: stringify(call.args ?? {}) }]
    })
    return [{ role: "assistant", content: textOf(c.parts), toolCalls }]
  }
  const drafts: Array<Draft> = []
  const rest: Array<Part> = []
  c.parts.forEach((p, k) => {
    const response = p.functionResponse
    if (response === undefined) {
      rest.push(p)
      return
    }
    const toolCallId = response.id ?? madeUpResult(ctx, response.name, `gemini:${ctx.index}:${k}`)
    drafts.push({ role: "tool", content: responseText(response.response), toolCallId })
  })
  if (rest.length > 0 || drafts.length === 0) drafts.push({ role: "user", content: textOf(rest) })
  return drafts
}

const partsOf = (r: Rendered): { readonly role: "user" | "model"; readonly parts: Array<Part> } | string => {
  const m = r.message
  if (m.toolCalls.length > 0) {
    const parts: Array<Part> = m.content === "" ? [] : [{ text: m.content }]
    for (const call of m.toolCalls) {
      const args = call.arguments === "" ? {} : parseObject(call.arguments)
      if (args === undefined) {
        return `${messageLabel(r)}: the arguments of tool call ${JSON.stringify(call.id)} are not a JSON object`
      }
      parts.push({ functionCall: { id: call.id, name: call.name, args } })
    }
    return { role: "model", parts }
  }
  if (m.toolCallId !== undefined) {
    const parsed = parseObject(m.content)
    const response = parsed !== undefined && !(Object.keys(parsed).length === 1 && typeof parsed.output === "string")
      ? parsed
      : { output: m.content }
    return { role: "user", parts: [{ functionResponse: { id: m.toolCallId, name: r.toolName, response } }] }
  }
  if (m.role === "user") return { role: "user", parts: [{ text: m.content }] }
  if (m.role === "assistant") return { role: "model", parts: [{ text: m.content }] }
  if (m.role === "system" || m.role === "developer") {
    return `${messageLabel(r)}: Gemini takes system text only in \`systemInstruction\`, before the first turn`
  }
  return `${messageLabel(r)}: Gemini has no such role (user, assistant as model; system first)`
}

const render = (run: ReadonlyArray<Rendered>): Array<Content> | string => {
  const out: Array<{ role: "user" | "model"; parts: Array<Part> }> = []
  for (const r of run) {
    const p = partsOf(r)
    if (typeof p === "string") return p
    const last = out[out.length - 1]
    if (last !== undefined && last.role === p.role) {
      const keep = (part: Part) => !(part.text === "" && Object.keys(part).length === 1)
      last.parts = [...last.parts.filter(keep), ...p.parts.filter(keep)]
    } else out.push({ role: p.role, parts: p.parts })
  }
  return out
}

const estimate = (c: Content): number => {
  let tokens = 0
  for (const p of c.parts) {
    if (p.inlineData !== undefined || p.fileData !== undefined) tokens += MEDIA_TOKENS
    if (p.thought === true && p.text !== undefined) tokens += textEstimate(p.text)
  }
  return tokens
}

/**
 * The contents' format (`"gemini"`): a `user` content's function responses
 * split into `tool` messages, a call without id given a made-up one,
 * consecutive contents of one role merged when written (so a boundary
 * between them is kept).
 *
 * @since 1.0.0
 */
export const format: Format<Content> = {
  name: "gemini",
  derive,
  render,
  merges: (previous, next) => (previous.role ?? "user") === (next.role ?? "user"),
  estimate
}

/** The `systemInstruction` parts' format (`"gemini.system"`): one `system` message per text part. @since 1.0.0 */
export const systemFormat: Format<SystemPart> = {
  name: "gemini.system",
  derive: (group) => [{ role: "system", content: group[0].text }],
  render: (run) => run.map((r) => ({ text: r.message.content })),
  estimate: () => 0
}

/**
 * What a line gives {@link fromRequest} and {@link toRequest}: its message
 * constructor, and its engine's reading and writing of the two formats.
 *
 * @since 1.0.0
 */
export interface RequestLine<M extends MessageFields> {
  readonly make: Make<M>
  readonly decodeSystem: (input: unknown) => Outcome<Array<M>>
  readonly decodeContents: (input: unknown) => Outcome<Array<M>>
  readonly encodeSystem: (messages: ReadonlyArray<M>) => Outcome<Array<SystemPart>>
  readonly encodeContents: (messages: ReadonlyArray<M>, offset: number) => Outcome<Array<Content>>
}

/**
 * The messages of a request whose own keys are read (`systemInstruction`
 * with its `parts` an array, `contents` an array): the system messages,
 * then the contents'.
 *
 * @since 1.0.0
 */
export const fromRequest = <M extends MessageFields>(
  request: {
    readonly systemInstruction?: { readonly parts: ReadonlyArray<unknown> }
    readonly contents: ReadonlyArray<unknown>
  },
  line: RequestLine<M>
): Outcome<Array<M>> => {
  const { contents, systemInstruction } = request
  let head: Array<M> = []
  if (systemInstruction !== undefined) {
    const decoded = line.decodeSystem(systemInstruction.parts)
    if (failed(decoded)) return { error: { description: decoded.error.description } }
    head = decoded.ok
  }
  const rest = line.decodeContents(contents)
  return failed(rest) ? rest : { ok: [...head, ...rest.ok] }
}

/**
 * Messages as `{ systemInstruction?, contents }`: the leading system (and
 * developer) messages in `systemInstruction`, one text part each, the
 * others as contents, after the checks (provider `"gemini"`).
 *
 * @since 1.0.0
 */
export const toRequest = <M extends MessageFields>(
  input: ReadonlyArray<M>,
  options: CheckOptions | undefined,
  line: RequestLine<M>
): Outcome<Request> => {
  const refusedInput = notMessages(input)
  if (refusedInput !== undefined) return { error: { description: refusedInput } }
  const messages = arrange(uniqueCallIds(input, line.make), "gemini", options, line.make)
  const refused = check(format.name, messages, "gemini", options)
  if (refused !== undefined) return { error: refused }
  const n = leadingSystem(messages)
  const system = line.encodeSystem(messages.slice(0, n))
  if (failed(system)) return system
  const contents = line.encodeContents(messages.slice(n), n)
  if (failed(contents)) return contents
  return {
    ok: n === 0 ? { contents: contents.ok } : { systemInstruction: { parts: system.ok }, contents: contents.ok }
  }
}
