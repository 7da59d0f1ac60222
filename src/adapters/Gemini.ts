/**
 * Gemini `contents` and `systemInstruction` (the REST shape of
 * `generateContent`, as `@google/genai` takes them) to rollmem messages and
 * back.
 *
 * | Gemini | rollmem messages |
 * |---|---|
 * | `systemInstruction.parts` | one `system` message per text part, first |
 * | a `model` content | one `assistant` message: text parts (not thoughts) joined with `"\n"`, `functionCall` parts as tool calls (`arguments` = `JSON.stringify(args)`) |
 * | a `user` content | one `tool` message per `functionResponse` part, then one `user` message for the other parts |
 *
 * A `functionCall` without `id` gets the made-up id `"gemini:<content>:<part>"`
 * and the `functionResponse` of that name that follows it (without id)
 * answers it, so a call and its result stay one unit. A `functionResponse`'s
 * content is its `response`'s `output` when that is the only key and a
 * string, else `JSON.stringify(response)`.
 *
 * Writing puts the leading `system` (and `developer`) messages in
 * `systemInstruction` (one text part each); the others become `user` and
 * `model` contents, consecutive contents of the same role merged (all the
 * results of parallel calls in one `user` content) and split back by
 * {@link decode}. A tool call gives a `functionCall` part `{ id, name, args }`
 * (arguments that are not a JSON object fail with `AdapterError`); a tool
 * result gives a `functionResponse` part `{ id, name, response }`, `response`
 * being the content parsed when it is a JSON object, else `{ output: content
 * }`. A `system` message after the first turn, or another role, fails with
 * `AdapterError`.
 *
 * What a rollmem message has no field for (inline data, file data, thoughts
 * and thought signatures, video metadata, a made-up id) is kept under the
 * metadata key `"rollmem.provider"` and restored by {@link encode} while the
 * messages are unchanged. Executable code and code execution results are
 * not read (`AdapterError`).
 *
 * @example
 * ```ts
 * import { GoogleGenAI } from "@google/genai"
 * import { fromGemini, toGemini } from "rollmem/adapters"
 * import { AsyncRollingMemory } from "rollmem/promise"
 *
 * const memory = new AsyncRollingMemory({ maxTokens: 4000, summarize: "drop" })
 * const ai = new GoogleGenAI({})
 * const { contents, systemInstruction } = toGemini(memory.getMessages())
 * const response = await ai.models.generateContent({ model: "gemini-2.5-flash", contents, config: systemInstruction === undefined ? {} : { systemInstruction } })
 * await memory.addMessages(fromGemini({ contents: [response.candidates![0].content!] }))
 * ```
 *
 * @since 0.2.0
 */
import type * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Core from "../core/formats/gemini.js"
import type * as Message from "../schema/Message.js"
import type { AdapterError, CheckOptions, DecodeOptions } from "./AdapterError.js"
import { Arr, type Format, JsonRecord, Opt } from "./internal/engine.js"
import * as engine from "./internal/engine.js"

const OptionalString = Opt(Schema.String)

const Part = Schema.Struct({
  text: OptionalString,
  thought: Opt(Schema.Boolean),
  thoughtSignature: OptionalString,
  inlineData: Opt(
    Schema.Struct({ data: OptionalString, displayName: OptionalString, mimeType: OptionalString })
  ),
  fileData: Opt(
    Schema.Struct({ displayName: OptionalString, fileUri: OptionalString, mimeType: OptionalString })
  ),
  functionCall: Opt(
    Schema.Struct({ id: OptionalString, name: OptionalString, args: Opt(JsonRecord) })
  ),
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
}).annotations({ identifier: "Part" })
type Part = typeof Part.Type

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
 * @since 0.2.0
 * @category schemas
 */
export const Content = Schema.Struct({
  role: Opt(Schema.Literal("user", "model")),
  parts: Arr(Part)
}).annotations({ identifier: "Content" })

/**
 * One Gemini content.
 *
 * @since 0.2.0
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
 * @since 0.2.0
 * @category schemas
 */
export const Request = Schema.Struct({
  systemInstruction: Opt(Schema.Struct({ parts: Arr(SystemPart) })),
  contents: Arr(Content)
}).annotations({ identifier: "GeminiRequest" })

/**
 * `{ systemInstruction?, contents }`.
 *
 * @since 0.2.0
 * @category models
 */
export type Request = typeof Request.Type

/** @internal */
export const format: Format<Content> = { ...Core.format, item: Content }

const systemFormat: Format<SystemPart> = { ...Core.systemFormat, item: SystemPart }

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

const decodeSync = (input: unknown, options?: DecodeOptions): Either.Either<Array<Message.Message>, AdapterError> => {
  const request = decodeRequest(input)
  if (Either.isLeft(request)) return Either.left(request.left)
  return engine.toEither(format.name, Core.fromRequest(request.right, lineFor(options)))
}

/**
 * Options of {@link encode}: `check` (see `CheckOptions`).
 *
 * @since 0.2.0
 * @category models
 */
export type EncodeOptions = CheckOptions

const encodeSync = (
  input: ReadonlyArray<Message.Message>,
  options?: EncodeOptions
): Either.Either<Request, AdapterError> =>
  engine.toEither(format.name, Core.toRequest(input, options, lineFor(undefined)))

const codec = engine.codec(decodeSync, encodeSync)

/**
 * Reads `{ systemInstruction?, contents }` (any input, checked; other keys
 * of the request, and of `systemInstruction`, refused: they belong to no
 * message) into rollmem messages. A key it does not model in a content or a
 * part is kept verbatim (see `DecodeOptions`; `{ strict: true }` refuses
 * it). Fails with `AdapterError` naming the path of an unknown role or of a
 * known field of the wrong type.
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
 * @since 0.2.0
 * @category constructors
 */
export const decode: (
  input: unknown,
  options?: DecodeOptions
) => Effect.Effect<Array<Message.Message>, AdapterError> = codec.decode

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
 * @since 0.2.0
 * @category constructors
 */
export const encode: (
  messages: ReadonlyArray<Message.Message>,
  options?: EncodeOptions
) => Effect.Effect<Request, AdapterError> = codec.encode
