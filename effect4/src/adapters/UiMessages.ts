/**
 * The AI SDK's `UIMessage` (what `useChat` sends and what applications
 * persist: `{ id, role, metadata?, parts }`) to rollmem messages and back,
 * on the Effect 4 line: the conversions are `core/formats/uiMessages.ts`'s,
 * shared with the Effect 3 line, and this module declares the parts' Schema
 * in Effect 4's.
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
 * import { Effect } from "effect"
 * import { Message } from "rollmem"
 * import { UiMessages } from "rollmem/adapters"
 *
 * Effect.runSync(UiMessages.encode([Message.user("hi", { id: "m1" })]))
 * // [{ id: "m1", role: "user", parts: [{ type: "text", text: "hi" }] }]
 * ```
 *
 * @since 1.0.0
 */
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Core from "../../../src/core/formats/uiMessages.js"
import type * as Message from "../schema/Message.js"
import type { AdapterError, CheckOptions, DecodeOptions } from "./AdapterError.js"
import * as engine from "./internal/engine.js"
import { Arr, type Format, JsonRecord, JsonSchema, type Open, Opt } from "./internal/engine.js"

const ProviderMetadata = Opt(Schema.Record(Schema.String, JsonRecord))
const PartState = Opt(Schema.Literals(["streaming", "done"]))

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
  type: Schema.TemplateLiteral(["data-", Schema.String]),
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
  inputEncoding: Opt(Schema.Literals(["json", "text"])),
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
  // undefined when the call's input never parsed (absent once written as JSON)
  input: Opt(Schema.UndefinedOr(JsonSchema)),
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
const STATES = [
  InputStreaming,
  InputAvailable,
  ApprovalRequested,
  ApprovalResponded,
  OutputAvailable,
  OutputError,
  OutputDenied
]

const toolFields = {
  toolCallId: Schema.String,
  title: Opt(Schema.String),
  toolMetadata: Opt(JsonRecord),
  providerExecuted: Opt(Schema.Boolean)
}
const staticFields = { type: Schema.TemplateLiteral(["tool-", Schema.String]), ...toolFields }
const dynamicFields = {
  type: Schema.Literal("dynamic-tool"),
  dynamic: Opt(Schema.Literal(false)),
  toolName: Schema.String,
  ...toolFields
}
const ToolParts = STATES.map((state) => Schema.Struct({ ...staticFields, ...state }))
const DynamicToolParts = STATES.map((state) => Schema.Struct({ ...dynamicFields, ...state }))

const PART_TYPES = [
  "text",
  "reasoning",
  "source-url",
  "source-document",
  "file",
  "step-start",
  /^data-/,
  /^tool-/,
  "dynamic-tool"
]

/** The `UIMessage` Schema with its union of parts opened (lenient) or not (strict). */
const uiMessage = (open: Open) =>
  Schema.Struct({
    id: Schema.String,
    role: Schema.Literals(["system", "user", "assistant"]),
    metadata: Opt(JsonSchema),
    parts: Arr(open([
      TextPart,
      ReasoningPart,
      SourceUrlPart,
      SourceDocumentPart,
      FilePart,
      StepStartPart,
      DataPart,
      ...ToolParts,
      ...DynamicToolParts
    ], PART_TYPES))
  }).annotate({ identifier: "UIMessage" })

/**
 * One AI SDK `UIMessage` (assignable to the `ai` package's `UIMessage`):
 * `{ id, role: "system" | "user" | "assistant", metadata?, parts }`, the
 * strict reader's Schema (no unknown part type; unknown keys are refused
 * when decoding with `onExcessProperty: "error"`, as `decode` does with `{
 * strict: true }`).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { UiMessages } from "rollmem/adapters"
 *
 * Schema.is(UiMessages.UIMessage)({ id: "m1", role: "user", parts: [{ type: "text", text: "hi" }] }) // true
 * ```
 *
 * @since 1.0.0
 * @category schemas
 */
export const UIMessage: Schema.Codec<UIMessage, unknown> = uiMessage(engine.closed) as unknown as Schema.Codec<
  UIMessage,
  unknown
>

/**
 * One AI SDK `UIMessage`, as written (`core/formats/uiMessages.ts`).
 *
 * @since 1.0.0
 * @category models
 */
export type UIMessage = Core.UIMessage

/** @internal */
export const format: Format<UIMessage> = {
  ...Core.format,
  item: (open) => uiMessage(open) as unknown as Schema.Codec<UIMessage, unknown>,
  tag: { key: "role", values: ["system", "user", "assistant"] }
}

/**
 * Options of {@link encode}: `check`, `provider`, `arrange` (see `CheckOptions`).
 *
 * @since 1.0.0
 * @category models
 */
export type EncodeOptions = CheckOptions

/** {@link decode} as a `Result`. @internal */
export const decodeResult = (input: unknown, options?: DecodeOptions) => engine.decode(format, input, options)

/** {@link encode} as a `Result`. @internal */
export const encodeResult = (messages: ReadonlyArray<Message.Message>, options?: EncodeOptions) =>
  engine.toResult(format.name, Core.toUIMessages(engine.readOf(format), engine.make, messages, options))

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
 * @since 1.0.0
 * @category constructors
 */
export const decode = (
  input: unknown,
  options?: DecodeOptions
): Effect.Effect<Array<Message.Message>, AdapterError> => engine.suspended(() => decodeResult(input, options))

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
 * @since 1.0.0
 * @category constructors
 */
export const encode = (
  messages: ReadonlyArray<Message.Message>,
  options?: EncodeOptions
): Effect.Effect<Array<UIMessage>, AdapterError> => engine.suspended(() => encodeResult(messages, options))
