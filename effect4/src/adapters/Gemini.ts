/**
 * Gemini `contents` and `systemInstruction` (the REST shape of
 * `generateContent`, as `@google/genai` takes them) to rollmem messages and
 * back, on the Effect 4 line: the conversions are `core/formats/gemini.ts`'s,
 * shared with the Effect 3 line, and this module declares the contents'
 * Schema in Effect 4's.
 *
 * | Gemini | rollmem messages |
 * |---|---|
 * | `systemInstruction.parts` | one `system` message per text part, first |
 * | a `model` content | one `assistant` message: text parts (not thoughts) joined with `"\n"`, `functionCall` parts as tool calls (`arguments` = `JSON.stringify(args)`) |
 * | a `user` content | one `tool` message per `functionResponse` part, then one `user` message for the other parts |
 *
 * A `functionCall` without `id` gets the made-up id `"gemini:<content>:<part>"`
 * and the `functionResponse` of that name that follows it (without id)
 * answers it. A `functionResponse`'s content is its `response`'s `output`
 * when that is the only key and a string, else `JSON.stringify(response)`.
 *
 * Writing puts the leading `system` (and `developer`) messages in
 * `systemInstruction` (one text part each); the others become `user` and
 * `model` contents, consecutive contents of the same role merged and split
 * back by {@link decode}. A tool call gives a `functionCall` part `{ id,
 * name, args }`; a tool result a `functionResponse` part `{ id, name,
 * response }`, `response` being the content parsed when it is a JSON
 * object, else `{ output: content }`. What a rollmem message has no field
 * for (inline data, file data, thoughts and thought signatures, video
 * metadata, a made-up id, a key added since) is kept under the metadata key
 * `"rollmem.provider"` and restored by {@link encode} while the messages are
 * unchanged.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message } from "rollmem"
 * import { Gemini } from "rollmem/adapters"
 *
 * Effect.runSync(Gemini.encode([Message.system("Be brief."), Message.user("hi")]))
 * // { systemInstruction: { parts: [{ text: "Be brief." }] }, contents: [{ role: "user", parts: [{ text: "hi" }] }] }
 * ```
 *
 * @since 1.0.0
 */
import type * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Core from "../../../src/core/formats/gemini.js"
import type * as Message from "../schema/Message.js"
import type { AdapterError, CheckOptions, DecodeOptions } from "./AdapterError.js"
import * as engine from "./internal/engine.js"
import { Arr, type Format, JsonRecord, Opt } from "./internal/engine.js"

const OptionalString = Opt(Schema.String)

const Part = Schema.Struct({
  text: OptionalString,
  thought: Opt(Schema.Boolean),
  thoughtSignature: OptionalString,
  inlineData: Opt(Schema.Struct({ data: OptionalString, displayName: OptionalString, mimeType: OptionalString })),
  fileData: Opt(Schema.Struct({ displayName: OptionalString, fileUri: OptionalString, mimeType: OptionalString })),
  functionCall: Opt(Schema.Struct({ id: OptionalString, name: OptionalString, args: Opt(JsonRecord) })),
  functionResponse: Opt(
    Schema.Struct({
      id: OptionalString,
      name: OptionalString,
      response: Opt(JsonRecord),
      willContinue: Opt(Schema.Boolean)
    })
  ),
  videoMetadata: Opt(
    Schema.Struct({ endOffset: OptionalString, fps: Opt(Schema.Number), startOffset: OptionalString })
  ),
  partMetadata: Opt(JsonRecord)
}).annotate({ identifier: "Part" })

/**
 * One Gemini content (assignable to `@google/genai`'s `Content`): `role`
 * `"user"` or `"model"` and `parts` with text, thoughts, inline and file
 * data, function calls and responses, video metadata. Reading also takes
 * unknown keys (kept verbatim) unless `strict`; an unknown role is refused.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Gemini } from "rollmem/adapters"
 *
 * Schema.is(Gemini.Content)({ role: "model", parts: [{ text: "18C and sunny." }] }) // true
 * ```
 *
 * @since 1.0.0
 * @category schemas
 */
export const Content = Schema.Struct({
  role: Opt(Schema.Literals(["user", "model"])),
  parts: Arr(Part)
}).annotate({ identifier: "Content" })

/**
 * One Gemini content.
 *
 * @since 1.0.0
 * @category models
 */
export type Content = typeof Content.Type

const SystemPart = Schema.Struct({ text: Schema.String })
type SystemPart = typeof SystemPart.Type

/**
 * `{ systemInstruction?, contents }`: pass `contents` as `contents` and
 * `systemInstruction` in `config` (`@google/genai`), or both at the top
 * level of a REST request.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Gemini } from "rollmem/adapters"
 *
 * Schema.is(Gemini.Request)({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }) // true
 * ```
 *
 * @since 1.0.0
 * @category schemas
 */
export const Request = Schema.Struct({
  systemInstruction: Opt(Schema.Struct({ parts: Arr(SystemPart) })),
  contents: Arr(Content)
}).annotate({ identifier: "GeminiRequest" })

/**
 * `{ systemInstruction?, contents }`.
 *
 * @since 1.0.0
 * @category models
 */
export type Request = typeof Request.Type

/**
 * Options of {@link encode}: `check`, `provider` (default `"gemini"`),
 * `arrange` (see `CheckOptions`).
 *
 * @since 1.0.0
 * @category models
 */
export type EncodeOptions = CheckOptions

/** @internal */
export const format: Format<Content> = {
  ...Core.format,
  item: () => Content as Schema.Codec<Content, unknown>
}

const systemFormat: Format<SystemPart> = {
  ...Core.systemFormat,
  item: () => SystemPart as Schema.Codec<SystemPart, unknown>
}

// The request's own keys: what is in them is read by the formats (lenient unless strict).
const decodeRequest = engine.requestDecoder(
  Schema.Struct({
    systemInstruction: Opt(Schema.Struct({ parts: Schema.Array(Schema.Unknown) })),
    contents: Schema.Array(Schema.Unknown)
  }),
  format.name
)

const lineFor = (options: DecodeOptions | undefined): Core.RequestLine<Message.Message> => ({
  make: engine.make,
  decodeSystem: (input) => engine.decodeOutcome(systemFormat, input, options, ["systemInstruction", "parts"]),
  decodeContents: (input) => engine.decodeOutcome(format, input, options, ["contents"]),
  encodeSystem: (messages) => engine.encodeOutcome(systemFormat, messages),
  encodeContents: (messages, offset) => engine.encodeOutcome(format, messages, offset)
})

/** {@link decode} as a `Result`. @internal */
export const decodeResult = (
  input: unknown,
  options?: DecodeOptions
): Result.Result<Array<Message.Message>, AdapterError> => {
  const request = decodeRequest(input)
  if (Result.isFailure(request)) return Result.fail(request.failure)
  return engine.toResult(format.name, Core.fromRequest(request.success, lineFor(options)))
}

/** {@link encode} as a `Result`. @internal */
export const encodeResult = (
  messages: ReadonlyArray<Message.Message>,
  options?: EncodeOptions
): Result.Result<Request, AdapterError> =>
  engine.toResult(format.name, Core.toRequest(messages, options, lineFor(undefined)))

/**
 * Reads `{ systemInstruction?, contents }` (any JSON input, checked; other
 * keys of the request, and of `systemInstruction`, refused: they belong to
 * no message) into rollmem messages. A key it does not model in a content
 * or a part is kept verbatim (see `DecodeOptions`; `{ strict: true }`
 * refuses it). Fails with `AdapterError` naming the path of an unknown role
 * or of a known field of the wrong type.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Gemini } from "rollmem/adapters"
 *
 * const messages = Effect.runSync(Gemini.decode({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }))
 * messages.map(String) // ["user: hi"]
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
 * Writes rollmem messages (a memory's `messages`) as `{ systemInstruction?,
 * contents }` (see the module docs), restoring what {@link decode} kept.
 * Fails with `AdapterError` for a system message after the first turn,
 * another role, tool call arguments that are not a JSON object, or a
 * context Gemini refuses.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message } from "rollmem"
 * import { Gemini } from "rollmem/adapters"
 *
 * Effect.runSync(Gemini.encode([Message.user("hi")])) // { contents: [{ role: "user", parts: [{ text: "hi" }] }] }
 * ```
 *
 * @since 1.0.0
 * @category constructors
 */
export const encode = (
  messages: ReadonlyArray<Message.Message>,
  options?: EncodeOptions
): Effect.Effect<Request, AdapterError> => engine.suspended(() => encodeResult(messages, options))
