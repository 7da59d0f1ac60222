/**
 * The AI SDK's `UIMessage` (what `useChat` sends and what applications
 * persist: `{ id, role, metadata?, parts }`) to rollmem messages and back.
 *
 * | UIMessage | rollmem messages |
 * |---|---|
 * | `system` | `system`: the text parts joined (with `""`, as the AI SDK sends them) |
 * | `user` | `user`: the text parts joined with `"\n"` |
 * | `assistant` | per step (the parts between two `step-start` parts): an `assistant` message (text parts joined with `"\n"`, each tool part past `input-streaming` a tool call, `arguments` = `JSON.stringify(input)`, `""` without input), then one `tool` message per tool part with a result, in part order |
 *
 * A tool part (`tool-<name>` or `dynamic-tool`) is read in every state:
 * `input-streaming` is no call yet (the AI SDK sends none); `input-available`,
 * `approval-requested` and `approval-responded` are a call awaiting its
 * result; `output-available` (content = the output, as JSON unless a
 * string), `output-error` (content = `errorText`) and `output-denied`
 * (content = the approval's reason, or the AI SDK's `"Tool call execution
 * denied."`) are a call and its result. The first message of a `UIMessage`
 * gets its `id`.
 *
 * Writing gives one `UIMessage` per `system` or `user` message (one text
 * part; none for empty content) and one per assistant turn: each step opens
 * with a `step-start` part, then a text part (when the content is not
 * empty) and a `tool-<name>` part per call (`input` = the arguments parsed
 * as JSON, `{}` for `""`, the raw string when not JSON), in state
 * `output-available` once a following tool message answers it (`output` =
 * the content parsed as JSON when it is a JSON value other than a string,
 * else the content), else `input-available`. An assistant message right
 * after the tool results of the turn, without an id of its own, is the
 * turn's next step. The `UIMessage`'s `id` is its first message's id, else
 * `"rollmem-<index>"` (the message's index in the list written). A tool
 * result with no call in the turn before it, and any role other than
 * `system`, `user`, `assistant` and `tool`, fail with `AdapterError`.
 *
 * **Pending calls.** The unanswered calls of the last turn (only tool
 * results after them: a tool running, an approval asked for) are what a UI
 * shows in state `input-available`; `check` does not refuse them, where
 * every model format does. To send such a list to a model through the AI
 * SDK, `convertToModelMessages(list, { ignoreIncompleteToolCalls: true })`
 * leaves them out.
 *
 * What a rollmem message has no field for (reasoning, file, source and data
 * parts, `step-start` parts where writing would place none, part states and
 * provider metadata, the message's `metadata`) is kept with the whole
 * `UIMessage` under the metadata key `"rollmem.provider"` and restored by
 * {@link encode} while the messages it became are unchanged: data parts
 * come back verbatim, so `fromUIMessages → memory → JSON → memory →
 * toUIMessages` gives back what came in.
 *
 * @example
 * ```ts
 * import { convertToModelMessages, streamText, type LanguageModel, type UIMessage } from "ai"
 * import { fromUIMessages, toUIMessages } from "rollmem/adapters"
 * import { AsyncRollingMemory } from "rollmem/promise"
 *
 * declare const model: LanguageModel
 * const memory = new AsyncRollingMemory({ maxTokens: 4000, summarize: "drop" })
 * // the route of useChat: the client's messages in, the memory's context out
 * export const POST = async (req: Request) => {
 *   const { messages } = (await req.json()) as { messages: Array<UIMessage> }
 *   await memory.addMessages(fromUIMessages(messages.slice(-1)))
 *   const result = streamText({ model, messages: await convertToModelMessages(toUIMessages(memory.getMessages())) })
 *   return result.toUIMessageStreamResponse()
 * }
 * ```
 *
 * @since 0.4.0
 */
import type * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Message from "../schema/Message.js"
import type { AdapterError, CheckOptions, DecodeOptions } from "./AdapterError.js"
import {
  Arr,
  type Draft,
  type DraftCall,
  type Format,
  joinText,
  type Json,
  JsonRecord,
  JsonSchema,
  MEDIA_TOKENS,
  messageLabel,
  Opt,
  parseJson,
  type Rendered,
  stringify,
  textEstimate
} from "./internal/engine.js"
import * as engine from "./internal/engine.js"

const ProviderMetadata = Opt(Schema.Record({ key: Schema.String, value: JsonRecord }))
const PartState = Opt(Schema.Literal("streaming", "done"))

const TextPart = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
  state: PartState,
  providerMetadata: ProviderMetadata
})
const ReasoningPart = Schema.Struct({
  type: Schema.Literal("reasoning"),
  id: Opt(Schema.String),
  text: Schema.String,
  state: PartState,
  providerMetadata: ProviderMetadata
})
const SourceUrlPart = Schema.Struct({
  type: Schema.Literal("source-url"),
  sourceId: Schema.String,
  url: Schema.String,
  title: Opt(Schema.String),
  providerMetadata: ProviderMetadata
})
const SourceDocumentPart = Schema.Struct({
  type: Schema.Literal("source-document"),
  sourceId: Schema.String,
  mediaType: Schema.String,
  title: Schema.String,
  filename: Opt(Schema.String),
  providerMetadata: ProviderMetadata
})
const FilePart = Schema.Struct({
  type: Schema.Literal("file"),
  mediaType: Schema.String,
  filename: Opt(Schema.String),
  url: Schema.String,
  providerMetadata: ProviderMetadata
})
const StepStartPart = Schema.Struct({ type: Schema.Literal("step-start") })
const DataPart = Schema.Struct({
  type: Schema.TemplateLiteral("data-", Schema.String),
  id: Opt(Schema.String),
  data: JsonSchema
})

const approvalFields = {
  id: Schema.String,
  descriptor: Opt(JsonSchema),
  signature: Opt(Schema.String),
  inputSchemaInput: Opt(JsonSchema)
}
const Approved = Schema.Struct({ ...approvalFields, approved: Schema.Literal(true), reason: Opt(Schema.String) })

// The states of a tool part, each with its fields (the AI SDK's `UIToolInvocation`).
const InputStreaming = {
  state: Schema.Literal("input-streaming"),
  input: Opt(JsonSchema),
  rawInput: Opt(Schema.String),
  inputEncoding: Opt(Schema.Literal("json", "text")),
  callProviderMetadata: ProviderMetadata
}
const InputAvailable = {
  state: Schema.Literal("input-available"),
  input: JsonSchema,
  callProviderMetadata: ProviderMetadata
}
const ApprovalRequested = {
  state: Schema.Literal("approval-requested"),
  input: JsonSchema,
  callProviderMetadata: ProviderMetadata,
  approval: Schema.Struct(approvalFields)
}
const ApprovalResponded = {
  state: Schema.Literal("approval-responded"),
  input: JsonSchema,
  callProviderMetadata: ProviderMetadata,
  approval: Schema.Struct({ ...approvalFields, approved: Schema.Boolean, reason: Opt(Schema.String) })
}
const OutputAvailable = {
  state: Schema.Literal("output-available"),
  input: JsonSchema,
  output: JsonSchema,
  callProviderMetadata: ProviderMetadata,
  resultProviderMetadata: ProviderMetadata,
  preliminary: Opt(Schema.Boolean),
  approval: Opt(Approved)
}
const OutputError = {
  state: Schema.Literal("output-error"),
  // present but undefined when the call's input never parsed (dropped in JSON)
  input: Schema.Union(JsonSchema, Schema.Undefined),
  rawInput: Opt(JsonSchema),
  errorText: Schema.String,
  callProviderMetadata: ProviderMetadata,
  resultProviderMetadata: ProviderMetadata,
  approval: Opt(Approved)
}
const OutputDenied = {
  state: Schema.Literal("output-denied"),
  input: JsonSchema,
  callProviderMetadata: ProviderMetadata,
  approval: Schema.Struct({ ...approvalFields, approved: Schema.Literal(false), reason: Opt(Schema.String) })
}

const toolFields = {
  toolCallId: Schema.String,
  title: Opt(Schema.String),
  toolMetadata: Opt(JsonRecord),
  providerExecuted: Opt(Schema.Boolean)
}

const staticFields = { type: Schema.TemplateLiteral("tool-", Schema.String), ...toolFields }
const dynamicFields = {
  type: Schema.Literal("dynamic-tool"),
  dynamic: Opt(Schema.Literal(false)),
  toolName: Schema.String,
  ...toolFields
}

const ToolPart = Schema.Union(
  Schema.Struct({ ...staticFields, ...InputStreaming }),
  Schema.Struct({ ...staticFields, ...InputAvailable }),
  Schema.Struct({ ...staticFields, ...ApprovalRequested }),
  Schema.Struct({ ...staticFields, ...ApprovalResponded }),
  Schema.Struct({ ...staticFields, ...OutputAvailable }),
  Schema.Struct({ ...staticFields, ...OutputError }),
  Schema.Struct({ ...staticFields, ...OutputDenied })
)
const DynamicToolPart = Schema.Union(
  Schema.Struct({ ...dynamicFields, ...InputStreaming }),
  Schema.Struct({ ...dynamicFields, ...InputAvailable }),
  Schema.Struct({ ...dynamicFields, ...ApprovalRequested }),
  Schema.Struct({ ...dynamicFields, ...ApprovalResponded }),
  Schema.Struct({ ...dynamicFields, ...OutputAvailable }),
  Schema.Struct({ ...dynamicFields, ...OutputError }),
  Schema.Struct({ ...dynamicFields, ...OutputDenied })
)

const Part = engine.open(Schema.Union(
  TextPart,
  ReasoningPart,
  SourceUrlPart,
  SourceDocumentPart,
  FilePart,
  StepStartPart,
  DataPart,
  ToolPart,
  DynamicToolPart
))

/**
 * One AI SDK `UIMessage` (assignable to the `ai` package's `UIMessage`):
 * `{ id, role: "system" | "user" | "assistant", metadata?, parts }`.
 * Reading also takes unknown keys and part types (kept verbatim) unless
 * `strict`; an unknown role is refused.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { UiMessages } from "rollmem/adapters"
 *
 * Schema.is(UiMessages.UIMessage)({ id: "m1", role: "user", parts: [{ type: "text", text: "hi" }] }) // true
 * ```
 *
 * @since 0.4.0
 * @category schemas
 */
export const UIMessage = Schema.Struct({
  id: Schema.String,
  role: Schema.Literal("system", "user", "assistant"),
  metadata: Opt(JsonSchema),
  parts: Arr(Part)
}).annotations({ identifier: "UIMessage" })

/**
 * One AI SDK `UIMessage`.
 *
 * @since 0.4.0
 * @category models
 */
export type UIMessage = typeof UIMessage.Type

type UIPart = UIMessage["parts"][number]
type ToolUIPart = Extract<UIPart, { readonly toolCallId: string }>

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

const inputOf = (args: string): Json => {
  if (args === "") return {}
  const parsed = parseJson(args)
  return parsed === undefined ? args : parsed.value
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

/** @internal */
export const format: Format<UIMessage> = {
  name: "ai-sdk-ui",
  item: UIMessage,
  derive,
  render,
  estimate
}

/**
 * Options of {@link encode}: `check` (see `CheckOptions`).
 *
 * @since 0.4.0
 * @category models
 */
export type EncodeOptions = CheckOptions

/**
 * The ids of the calls still awaiting their results at the end of
 * `messages`: the unanswered calls of the last message, an assistant one,
 * that makes calls, when only tool results follow it (a tool running, an
 * approval asked for). A UI shows them as tool parts in state
 * `input-available` (docs/contract.md section 15.3).
 *
 * @internal
 */
export const pendingCalls = (messages: ReadonlyArray<Message.Message>): ReadonlyArray<string> => {
  let i = messages.length - 1
  while (i >= 0 && messages[i].toolCallId !== undefined && messages[i].toolCalls.length === 0) i--
  if (i < 0 || messages[i].role !== "assistant" || messages[i].toolCalls.length === 0) return []
  const answered = new Set(messages.slice(i + 1).map((m) => m.toolCallId))
  return messages[i].toolCalls.flatMap((call) => answered.has(call.id) ? [] : [call.id])
}

const encodeSync = (
  input: ReadonlyArray<Message.Message>,
  options?: EncodeOptions
): Either.Either<Array<UIMessage>, AdapterError> => {
  const refused = engine.notMessages(format.name, input)
  if (refused !== undefined) return Either.left(refused)
  const messages = engine.arrange(engine.uniqueCallIds(input), "openai", options)
  // the pending calls are a UI's state, not a fault: checked as if answered, written in state input-available
  const pending = pendingCalls(messages)
  const checked = pending.length === 0
    ? messages
    : [...messages, ...pending.map((id) => Message.make("tool", "", { toolCallId: id }))]
  const error = engine.check(format.name, checked, "openai", options)
  return error === undefined ? engine.encode(format, messages) : Either.left(error)
}

const codec = engine.codec((input, options?: DecodeOptions) => engine.decode(format, input, options), encodeSync)

/**
 * Reads `UIMessage`s (any input, checked) into rollmem messages. A key or
 * part type it does not model is kept verbatim (see `DecodeOptions`; `{
 * strict: true }` refuses it); data parts (`data-<name>`) are modelled and
 * kept verbatim in both modes. Fails with `AdapterError` naming the path of
 * an unknown role or of a known field of the wrong type.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { UiMessages } from "rollmem/adapters"
 *
 * const messages = Effect.runSync(UiMessages.decode([{ id: "m1", role: "user", parts: [{ type: "text", text: "hi" }] }]))
 * messages[0].id // "m1"
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const decode: (
  input: unknown,
  options?: DecodeOptions
) => Effect.Effect<Array<Message.Message>, AdapterError> = codec.decode

/**
 * Writes rollmem messages (a memory's `messages`) as `UIMessage`s,
 * restoring what {@link decode} kept. The last turn's calls still awaiting
 * their results are tool parts in state `input-available` (not refused).
 * Fails with `AdapterError` for a role a `UIMessage` has no place for, a
 * tool result without its call in the turn before it, or a context the
 * provider refuses (`check`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message } from "rollmem"
 * import { UiMessages } from "rollmem/adapters"
 *
 * const asked = [
 *   Message.user("Weather in Rome?"),
 *   Message.assistant("", { toolCalls: [{ id: "c1", name: "weather", arguments: "{\"city\":\"Rome\"}" }] })
 * ]
 * const parts = Effect.runSync(UiMessages.encode(asked))[1].parts
 * // [{ type: "step-start" }, { type: "tool-weather", toolCallId: "c1", state: "input-available", input: { city: "Rome" } }]
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const encode: (
  messages: ReadonlyArray<Message.Message>,
  options?: EncodeOptions
) => Effect.Effect<Array<UIMessage>, AdapterError> = codec.encode
