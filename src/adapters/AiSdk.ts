/**
 * The AI SDK's `ModelMessage` (the `messages` of `generateText` and
 * `streamText`, and `response.messages`) to rollmem messages and back.
 *
 * | ModelMessage | rollmem messages |
 * |---|---|
 * | `system` | `system` |
 * | `user` | `user`: the string, or the text parts joined with `"\n"` |
 * | `assistant` | `assistant`: text parts joined, `tool-call` parts as tool calls (`arguments` = `JSON.stringify(input)`); a `tool-result` part (a provider-executed tool) as a `tool` message after it |
 * | `tool` | one `tool` message per `tool-result` part (`toolCallId`; content = a `text` or `error-text` output's value, a `json` or `error-json` output's value as JSON, a `content` output's text parts joined) |
 *
 * Writing gives `system`, `user` and `assistant` messages with string
 * content; a message with tool calls gives `assistant` content with a text
 * part (when the content is not empty) and `tool-call` parts (`input` = the
 * arguments parsed as JSON, `{}` for `""`, the raw string when not JSON);
 * consecutive messages with a tool call id give one `tool` message with one
 * `tool-result` part each (`toolName` = the call's name, `output` = `{ type:
 * "json" }` when the content is a JSON value other than a string, else `{
 * type: "text" }`). Any other role fails with `AdapterError`.
 *
 * Binary data (`Uint8Array`, `ArrayBuffer`, `Buffer`) in image and file
 * parts is read as a base64 string and a `URL` as its `href` (both valid
 * `DataContent`), so it can be kept as JSON. What a rollmem message has no
 * field for (image, file and reasoning parts, provider options, error
 * outputs, tool approvals) is kept under the metadata key
 * `"rollmem.provider"` and restored by {@link encode} while the messages are
 * unchanged.
 *
 * @example
 * ```ts
 * import { generateText, type LanguageModel } from "ai"
 * import { fromAiSdk, toAiSdk } from "rollmem/adapters"
 * import { AsyncRollingMemory } from "rollmem/promise"
 *
 * declare const model: LanguageModel
 * const memory = new AsyncRollingMemory({ maxTokens: 4000, summarize: "drop" })
 * const result = await generateText({ model, messages: toAiSdk(memory.getMessages()) })
 * await memory.addMessages(fromAiSdk(result.response.messages))
 * ```
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type * as Message from "../schema/Message.js"
import type { AdapterError, CheckOptions, DecodeOptions } from "./AdapterError.js"
import {
  Arr,
  type Draft,
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

const ProviderOptions = Opt(Schema.Record({ key: Schema.String, value: JsonRecord }))

const isBinary = (u: unknown): u is Uint8Array | ArrayBuffer => u instanceof Uint8Array || u instanceof ArrayBuffer

/** `DataContent | URL` read as a string: base64 for bytes, `href` for a URL. */
const DataContent = Schema.transformOrFail(Schema.Unknown, Schema.String, {
  strict: true,
  decode: (u, _, ast) => {
    if (typeof u === "string") return ParseResult.succeed(u)
    if (isBinary(u)) {
      const bytes = u instanceof Uint8Array ? u : new Uint8Array(u)
      return ParseResult.succeed(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64"))
    }
    if (u instanceof URL) return ParseResult.succeed(u.href)
    return ParseResult.fail(new ParseResult.Type(ast, u, "expected a string, bytes or a URL"))
  },
  encode: (s) => ParseResult.succeed(s)
}).annotations({ identifier: "DataContent" })

const TextPart = Schema.Struct({ type: Schema.Literal("text"), text: Schema.String, providerOptions: ProviderOptions })
const ImagePart = Schema.Struct({
  type: Schema.Literal("image"),
  image: DataContent,
  mediaType: Opt(Schema.String),
  providerOptions: ProviderOptions
})
const FilePart = Schema.Struct({
  type: Schema.Literal("file"),
  data: DataContent,
  filename: Opt(Schema.String),
  mediaType: Schema.String,
  providerOptions: ProviderOptions
})
const ReasoningPart = Schema.Struct({
  type: Schema.Literal("reasoning"),
  text: Schema.String,
  providerOptions: ProviderOptions
})
const ToolCallPart = Schema.Struct({
  type: Schema.Literal("tool-call"),
  toolCallId: Schema.String,
  toolName: Schema.String,
  input: JsonSchema,
  providerOptions: ProviderOptions,
  providerExecuted: Opt(Schema.Boolean)
})
const OutputContent = engine.open(Schema.Union(
  Schema.Struct({ type: Schema.Literal("text"), text: Schema.String, providerOptions: ProviderOptions }),
  Schema.Struct({ type: Schema.Literal("media"), data: Schema.String, mediaType: Schema.String }),
  Schema.Struct({
    type: Schema.Literal("file-data"),
    data: Schema.String,
    mediaType: Schema.String,
    filename: Opt(Schema.String),
    providerOptions: ProviderOptions
  }),
  Schema.Struct({
    type: Schema.Literal("file-url"),
    url: Schema.String,
    mediaType: Opt(Schema.String),
    providerOptions: ProviderOptions
  }),
  Schema.Struct({
    type: Schema.Literal("image-data"),
    data: Schema.String,
    mediaType: Schema.String,
    providerOptions: ProviderOptions
  }),
  Schema.Struct({ type: Schema.Literal("image-url"), url: Schema.String, providerOptions: ProviderOptions })
))
const ToolResultOutput = engine.open(Schema.Union(
  Schema.Struct({ type: Schema.Literal("text", "error-text"), value: Schema.String, providerOptions: ProviderOptions }),
  Schema.Struct({ type: Schema.Literal("json", "error-json"), value: JsonSchema, providerOptions: ProviderOptions }),
  Schema.Struct({
    type: Schema.Literal("execution-denied"),
    reason: Opt(Schema.String),
    providerOptions: ProviderOptions
  }),
  Schema.Struct({ type: Schema.Literal("content"), value: Arr(OutputContent) })
))
const ToolResultPart = Schema.Struct({
  type: Schema.Literal("tool-result"),
  toolCallId: Schema.String,
  toolName: Schema.String,
  output: ToolResultOutput,
  providerOptions: ProviderOptions
})
const ApprovalRequest = Schema.Struct({
  type: Schema.Literal("tool-approval-request"),
  approvalId: Schema.String,
  toolCallId: Schema.String,
  signature: Opt(Schema.String),
  inputSchemaInput: Opt(JsonSchema)
})
const ApprovalResponse = Schema.Struct({
  type: Schema.Literal("tool-approval-response"),
  approvalId: Schema.String,
  approved: Schema.Boolean,
  reason: Opt(Schema.String),
  providerExecuted: Opt(Schema.Boolean)
})

const SystemMessage = Schema.Struct({
  role: Schema.Literal("system"),
  content: Schema.String,
  providerOptions: ProviderOptions
})
const UserMessage = Schema.Struct({
  role: Schema.Literal("user"),
  content: Schema.Union(Schema.String, Arr(engine.open(Schema.Union(TextPart, ImagePart, FilePart)))),
  providerOptions: ProviderOptions
})
const AssistantMessage = Schema.Struct({
  role: Schema.Literal("assistant"),
  content: Schema.Union(
    Schema.String,
    Arr(engine.open(Schema.Union(TextPart, FilePart, ReasoningPart, ToolCallPart, ToolResultPart, ApprovalRequest)))
  ),
  providerOptions: ProviderOptions
})
const ToolMessage = Schema.Struct({
  role: Schema.Literal("tool"),
  content: Arr(engine.open(Schema.Union(ToolResultPart, ApprovalResponse))),
  providerOptions: ProviderOptions
})

/**
 * One AI SDK `ModelMessage` (assignable to the `ai` package's
 * `ModelMessage`). Reading also takes unknown keys and part types (kept
 * verbatim) unless `strict`; an unknown role is refused.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { AiSdk } from "rollmem/adapters"
 *
 * Schema.is(AiSdk.ModelMessage)({ role: "user", content: "hi" }) // true
 * ```
 *
 * @since 0.2.0
 * @category schemas
 */
export const ModelMessage = Schema.Union(SystemMessage, UserMessage, AssistantMessage, ToolMessage).annotations({
  identifier: "ModelMessage"
})

/**
 * One AI SDK `ModelMessage`.
 *
 * @since 0.2.0
 * @category models
 */
export type ModelMessage = typeof ModelMessage.Type

type ToolResult = typeof ToolResultPart.Type

const textOf = (content: string | ReadonlyArray<{ readonly type: string; readonly text?: string }>): string =>
  typeof content === "string" ? content : joinText(content.flatMap((p) => p.type === "text" ? [p.text ?? ""] : []))

const resultContent = (part: ToolResult): string => {
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

const inputOf = (args: string): Json => {
  if (args === "") return {}
  const parsed = parseJson(args)
  return parsed === undefined ? args : parsed.value
}

const outputOf = (content: string): typeof ToolResultOutput.Type => {
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
      const part = {
        type: "tool-result" as const,
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

/** @internal */
export const format: Format<ModelMessage> = {
  name: "ai-sdk",
  item: ModelMessage,
  derive,
  render,
  merges: (previous, next) => previous.role === "tool" && next.role === "tool",
  estimate
}

/**
 * Options of {@link encode}: `check` (see `CheckOptions`).
 *
 * @since 0.2.0
 * @category models
 */
export type EncodeOptions = CheckOptions

const codec = engine.listCodec(format)

/**
 * Reads `ModelMessage`s (any input, checked) into rollmem messages. A key
 * or part type it does not model is kept verbatim (see `DecodeOptions`; `{
 * strict: true }` refuses it). Fails with `AdapterError` naming the path of
 * an unknown role or of a known field of the wrong type (a `UIMessage`, with
 * `parts`, is refused pointing to `fromUIMessages`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AiSdk } from "rollmem/adapters"
 *
 * const messages = Effect.runSync(AiSdk.decode([{ role: "user", content: "Weather in Rome?" }]))
 * messages.map(String) // ["user: Weather in Rome?"]
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const decode: (
  input: unknown,
  options?: DecodeOptions
) => Effect.Effect<Array<Message.Message>, AdapterError> = codec.decode

/**
 * Writes rollmem messages (a memory's `messages`) as `ModelMessage`s,
 * restoring what {@link decode} kept. Fails with `AdapterError` for a role
 * the AI SDK has no place for, or a context the provider refuses.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message } from "rollmem"
 * import { AiSdk } from "rollmem/adapters"
 *
 * Effect.runSync(AiSdk.encode([Message.user("Weather in Rome?")])) // [{ role: "user", content: "Weather in Rome?" }]
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const encode: (
  messages: ReadonlyArray<Message.Message>,
  options?: EncodeOptions
) => Effect.Effect<Array<ModelMessage>, AdapterError> = codec.encode
