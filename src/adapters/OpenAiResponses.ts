/**
 * OpenAI Responses input items (`input` of `responses.create`, and a
 * response's `output`) to rollmem messages and back.
 *
 * | input item | rollmem message |
 * |---|---|
 * | a message (`{ role, content }`, an input message, an output message) | same role; content = the string, or the `input_text` / `output_text` parts joined with `"\n"` |
 * | `function_call` | a tool call `{ id: call_id, name, arguments }` of an `assistant` message: consecutive calls (parallel calls), and the assistant message right before them, make one message |
 * | `custom_tool_call` | a tool call `{ id: call_id, name, arguments: input }`, as `function_call` |
 * | `function_call_output`, `custom_tool_call_output` | `tool`, `toolCallId` = `call_id`, content = the output string or its text parts |
 * | `reasoning` | kept with the item after it (an `assistant` message with empty content when nothing follows) |
 * | `compaction` | an `assistant` message with empty content (the item is opaque), the item kept verbatim |
 *
 * Writing gives `{ role, content }` for `system`, `developer`, `user` and
 * `assistant`; a message with tool calls gives a `{ role: "assistant",
 * content }` item when its content is not empty, then one `function_call`
 * item per call; a message with a tool call id gives a
 * `function_call_output`. Another role fails with `AdapterError`. Other item
 * types (web search, file search, computer, MCP, shell calls) are kept
 * verbatim with the item after them, as reasoning is (refused under
 * `strict`).
 *
 * What a rollmem message has no field for (image and file parts, a refusal,
 * annotations, item ids and statuses, reasoning items, custom tool calls) is
 * kept under the metadata key `"rollmem.provider"` and restored by
 * {@link encode} while the message is unchanged.
 *
 * @example
 * ```ts
 * import OpenAI from "openai"
 * import { fromOpenAIResponses, toOpenAIResponses } from "rollmem/adapters"
 * import { AsyncRollingMemory } from "rollmem/promise"
 *
 * const memory = new AsyncRollingMemory({ maxTokens: 4000, summarize: "drop" })
 * const client = new OpenAI()
 * const response = await client.responses.create({ model: "gpt-4.1-mini", input: toOpenAIResponses(memory.getMessages()) })
 * await memory.addMessages(fromOpenAIResponses(response.output))
 * ```
 *
 * @since 0.2.0
 */
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Core from "../core/formats/openAiResponses.js"
import type * as Message from "../schema/Message.js"
import type { AdapterError, CheckOptions, DecodeOptions } from "./AdapterError.js"
import { Arr, type Format, Opt } from "./internal/engine.js"
import * as engine from "./internal/engine.js"

const Status = Schema.Literal("in_progress", "completed", "incomplete")
const Phase = Opt(Schema.NullOr(Schema.Literal("commentary", "final_answer")))

const InputText = Schema.Struct({ type: Schema.Literal("input_text"), text: Schema.String })
const InputImage = Schema.Struct({
  type: Schema.Literal("input_image"),
  detail: Schema.Literal("low", "high", "auto", "original"),
  file_id: Opt(Schema.NullOr(Schema.String)),
  image_url: Opt(Schema.NullOr(Schema.String))
})
const InputFile = Schema.Struct({
  type: Schema.Literal("input_file"),
  file_data: Opt(Schema.String),
  file_id: Opt(Schema.NullOr(Schema.String)),
  file_url: Opt(Schema.String),
  filename: Opt(Schema.String)
})
const InputPart = engine.open(Schema.Union(InputText, InputImage, InputFile))

const Annotation = engine.open(Schema.Union(
  Schema.Struct({
    type: Schema.Literal("file_citation"),
    file_id: Schema.String,
    filename: Schema.String,
    index: Schema.Number
  }),
  Schema.Struct({
    type: Schema.Literal("url_citation"),
    end_index: Schema.Number,
    start_index: Schema.Number,
    title: Schema.String,
    url: Schema.String
  }),
  Schema.Struct({
    type: Schema.Literal("container_file_citation"),
    container_id: Schema.String,
    end_index: Schema.Number,
    file_id: Schema.String,
    filename: Schema.String,
    start_index: Schema.Number
  }),
  Schema.Struct({ type: Schema.Literal("file_path"), file_id: Schema.String, index: Schema.Number })
))
const TopLogprob = Schema.Struct({ token: Schema.String, bytes: Arr(Schema.Number), logprob: Schema.Number })
const Logprob = Schema.Struct({
  token: Schema.String,
  bytes: Arr(Schema.Number),
  logprob: Schema.Number,
  top_logprobs: Arr(TopLogprob)
})
const OutputText = Schema.Struct({
  type: Schema.Literal("output_text"),
  text: Schema.String,
  annotations: Arr(Annotation),
  logprobs: Opt(Arr(Logprob))
})
const Refusal = Schema.Struct({ type: Schema.Literal("refusal"), refusal: Schema.String })

const EasyMessage = Schema.Struct({
  type: Opt(Schema.Literal("message")),
  role: Schema.Literal("user", "assistant", "system", "developer"),
  content: Schema.Union(Schema.String, Arr(InputPart)),
  phase: Phase
})
const InputMessage = Schema.Struct({
  type: Opt(Schema.Literal("message")),
  role: Schema.Literal("user", "system", "developer"),
  content: Arr(InputPart),
  status: Opt(Status)
})
const OutputMessage = Schema.Struct({
  type: Schema.Literal("message"),
  id: Schema.String,
  role: Schema.Literal("assistant"),
  status: Status,
  content: Arr(engine.open(Schema.Union(OutputText, Refusal))),
  phase: Phase
})
const FunctionCall = Schema.Struct({
  type: Schema.Literal("function_call"),
  call_id: Schema.String,
  name: Schema.String,
  arguments: Schema.String,
  id: Opt(Schema.String),
  namespace: Opt(Schema.String),
  status: Opt(Status)
})
const FunctionCallOutput = Schema.Struct({
  type: Schema.Literal("function_call_output"),
  call_id: Schema.String,
  output: Schema.Union(Schema.String, Arr(InputPart)),
  id: Opt(Schema.NullOr(Schema.String)),
  status: Opt(Schema.NullOr(Status))
})
const CustomToolCall = Schema.Struct({
  type: Schema.Literal("custom_tool_call"),
  call_id: Schema.String,
  name: Schema.String,
  input: Schema.String,
  id: Opt(Schema.String),
  namespace: Opt(Schema.String)
})
const CustomToolCallOutput = Schema.Struct({
  type: Schema.Literal("custom_tool_call_output"),
  call_id: Schema.String,
  output: Schema.Union(Schema.String, Arr(InputPart)),
  id: Opt(Schema.String)
})
const Reasoning = Schema.Struct({
  type: Schema.Literal("reasoning"),
  id: Schema.String,
  summary: Arr(Schema.Struct({ type: Schema.Literal("summary_text"), text: Schema.String })),
  content: Opt(Arr(Schema.Struct({ type: Schema.Literal("reasoning_text"), text: Schema.String }))),
  encrypted_content: Opt(Schema.NullOr(Schema.String)),
  status: Opt(Status)
})

// A compaction item (`/responses/compact`, `context_management`): opaque, its own message.
const Compaction = Schema.Struct({
  type: Schema.Literal("compaction"),
  encrypted_content: Schema.String,
  id: Opt(Schema.NullOr(Schema.String))
})

/**
 * One Responses input item (assignable to the SDK's `ResponseInputItem`):
 * a message (easy, input or output form), `function_call`,
 * `function_call_output`, `custom_tool_call`, `custom_tool_call_output`,
 * `reasoning` or `compaction`. Reading also takes other item types, part types and unknown
 * keys (kept verbatim; an item of another type is kept with the item after
 * it, as a reasoning item is) unless `strict`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { OpenAiResponses } from "rollmem/adapters"
 *
 * Schema.is(OpenAiResponses.InputItem)({ type: "function_call_output", call_id: "c1", output: "18C" }) // true
 * ```
 *
 * @since 0.2.0
 * @category schemas
 */
export const InputItem = Schema.Union(
  EasyMessage,
  InputMessage,
  OutputMessage,
  FunctionCall,
  FunctionCallOutput,
  CustomToolCall,
  CustomToolCallOutput,
  Reasoning,
  Compaction
).annotations({ identifier: "ResponseInputItem" })

/**
 * One Responses input item.
 *
 * @since 0.2.0
 * @category models
 */
export type InputItem = typeof InputItem.Type

// What reading takes besides: an output message passed back without `id` or `status` (the API takes it).
const PassedBackMessage = Schema.Struct({ ...OutputMessage.fields, id: Opt(Schema.String), status: Opt(Status) })
const ReadItem = engine.open(
  Schema.Union(...InputItem.members, PassedBackMessage).annotations({ identifier: "ResponseInputItem" })
)

/** @internal */
export const format: Format<InputItem> = {
  ...Core.format,
  // a passed-back message is an output message without its `id` or `status`: written back as it came
  item: ReadItem as unknown as typeof InputItem
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
 * Reads Responses input items (or a response's `output`; any input,
 * checked) into rollmem messages. An item type, part type or key it does not
 * model is kept verbatim (see `DecodeOptions`; `{ strict: true }` refuses
 * it). Fails with `AdapterError` naming the path of an unknown role or of a
 * known field of the wrong type.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { OpenAiResponses } from "rollmem/adapters"
 *
 * const messages = Effect.runSync(OpenAiResponses.decode([{ role: "user", content: "Weather in Rome?" }]))
 * messages[0].content // "Weather in Rome?"
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
 * Writes rollmem messages (a memory's `messages`) as Responses input items,
 * restoring what {@link decode} kept. Fails with `AdapterError` for a role
 * the Responses API has no place for, or a context it refuses.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message } from "rollmem"
 * import { OpenAiResponses } from "rollmem/adapters"
 *
 * const input = Effect.runSync(OpenAiResponses.encode([Message.user("Weather in Rome?")])) // the request's `input`
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const encode: (
  messages: ReadonlyArray<Message.Message>,
  options?: EncodeOptions
) => Effect.Effect<Array<InputItem>, AdapterError> = codec.encode
