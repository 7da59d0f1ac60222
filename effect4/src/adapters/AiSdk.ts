/**
 * The AI SDK's `ModelMessage` (the `messages` of `generateText` and
 * `streamText`, and `response.messages`) to rollmem messages and back, on
 * the Effect 4 line: the conversions are `core/formats/aiSdk.ts`'s, shared
 * with the Effect 3 line, and this module declares the messages' Schema in
 * Effect 4's.
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
 * parts is read as a base64 string and a `URL` as its `href`. What a rollmem
 * message has no field for (image, file and reasoning parts, provider
 * options, error outputs, tool approvals, a key added since) is kept under
 * the metadata key `"rollmem.provider"` and restored by {@link encode} while
 * the messages are unchanged.
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
 * @since 1.0.0
 */
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SchemaGetter from "effect/SchemaGetter"
import * as Core from "../../../src/core/formats/aiSdk.js"
import type * as Message from "../schema/Message.js"
import type { AdapterError, CheckOptions, DecodeOptions } from "./AdapterError.js"
import * as engine from "./internal/engine.js"
import { Arr, type Format, JsonRecord, JsonSchema, type Open, Opt } from "./internal/engine.js"

const ProviderOptions = Opt(Schema.Record(Schema.String, JsonRecord))

/** `DataContent | URL` read as a string: base64 for bytes, `href` for a URL. */
const DataContent = Schema.declare(
  (u: unknown): u is string | Uint8Array | ArrayBuffer | URL => Core.dataContent(u) !== undefined,
  { identifier: "DataContent", description: "a string, bytes or a URL" }
).pipe(
  Schema.decodeTo(Schema.String, {
    decode: SchemaGetter.transform((u: string | Uint8Array | ArrayBuffer | URL) => Core.dataContent(u) ?? ""),
    encode: SchemaGetter.transform((s: string): string | Uint8Array | ArrayBuffer | URL => s)
  })
)

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
const OutputContents = [
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
] as const
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

const ROLES = ["system", "user", "assistant", "tool"] as const

/** The message Schema with its unions of parts and outputs opened (lenient) or not (strict). */
const modelMessage = (open: Open) => {
  const ToolResultOutput = open([
    Schema.Struct({
      type: Schema.Literals(["text", "error-text"]),
      value: Schema.String,
      providerOptions: ProviderOptions
    }),
    Schema.Struct({
      type: Schema.Literals(["json", "error-json"]),
      value: JsonSchema,
      providerOptions: ProviderOptions
    }),
    Schema.Struct({
      type: Schema.Literal("execution-denied"),
      reason: Opt(Schema.String),
      providerOptions: ProviderOptions
    }),
    Schema.Struct({
      type: Schema.Literal("content"),
      value: Arr(open(OutputContents, ["text", "media", "file-data", "file-url", "image-data", "image-url"]))
    })
  ], ["text", "error-text", "json", "error-json", "execution-denied", "content"])
  const ToolResultPart = Schema.Struct({
    type: Schema.Literal("tool-result"),
    toolCallId: Schema.String,
    toolName: Schema.String,
    output: ToolResultOutput,
    providerOptions: ProviderOptions
  })
  return Schema.Union([
    Schema.Struct({ role: Schema.Literal("system"), content: Schema.String, providerOptions: ProviderOptions }),
    Schema.Struct({
      role: Schema.Literal("user"),
      content: Schema.Union([Schema.String, Arr(open([TextPart, ImagePart, FilePart], ["text", "image", "file"]))]),
      providerOptions: ProviderOptions
    }),
    Schema.Struct({
      role: Schema.Literal("assistant"),
      content: Schema.Union([
        Schema.String,
        Arr(open(
          [TextPart, FilePart, ReasoningPart, ToolCallPart, ToolResultPart, ApprovalRequest],
          ["text", "file", "reasoning", "tool-call", "tool-result", "tool-approval-request"]
        ))
      ]),
      providerOptions: ProviderOptions
    }),
    Schema.Struct({
      role: Schema.Literal("tool"),
      content: Arr(open([ToolResultPart, ApprovalResponse], ["tool-result", "tool-approval-response"])),
      providerOptions: ProviderOptions
    })
  ]).annotate({ identifier: "ModelMessage" })
}

/**
 * One AI SDK `ModelMessage` (assignable to the `ai` package's
 * `ModelMessage`): the strict reader's Schema (no unknown part type;
 * unknown keys are refused when decoding with `onExcessProperty: "error"`,
 * as `decode` does with `{ strict: true }`).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { AiSdk } from "rollmem/adapters"
 *
 * Schema.is(AiSdk.ModelMessage)({ role: "user", content: "hi" }) // true
 * ```
 *
 * @since 1.0.0
 * @category schemas
 */
export const ModelMessage: Schema.Codec<ModelMessage, unknown> = modelMessage(engine.closed) as unknown as Schema.Codec<
  ModelMessage,
  unknown
>

/**
 * One AI SDK `ModelMessage` (`core/formats/aiSdk.ts`).
 *
 * @since 1.0.0
 * @category models
 */
export type ModelMessage = Core.ModelMessage

/** @internal */
export const format: Format<ModelMessage> = {
  ...Core.format,
  item: (open) => modelMessage(open) as unknown as Schema.Codec<ModelMessage, unknown>,
  tag: { key: "role", values: ROLES }
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
  engine.encodeChecked(format, messages, "openai", options)

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
 * @since 1.0.0
 * @category constructors
 */
export const decode = (
  input: unknown,
  options?: DecodeOptions
): Effect.Effect<Array<Message.Message>, AdapterError> => engine.suspended(() => decodeResult(input, options))

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
 * @since 1.0.0
 * @category constructors
 */
export const encode = (
  messages: ReadonlyArray<Message.Message>,
  options?: EncodeOptions
): Effect.Effect<Array<ModelMessage>, AdapterError> => engine.suspended(() => encodeResult(messages, options))
