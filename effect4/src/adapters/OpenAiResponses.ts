/**
 * OpenAI Responses input items (`input` of `responses.create`, or a
 * response's `output`) to rollmem messages and back, on the Effect 4 line:
 * the conversions are `core/formats/openAiResponses.ts`'s, shared with the
 * Effect 3 line, and this module declares the items' Schema in Effect 4's.
 *
 * A message item becomes a message of its role (text parts joined with
 * `"\n"`); an assistant message and the `function_call` /
 * `custom_tool_call` items right after it (or consecutive calls) become one
 * `assistant` message with its tool calls; a `function_call_output` /
 * `custom_tool_call_output` a `tool` message answering `call_id`; a
 * `reasoning` item, or an item of a type rollmem does not model, goes with
 * the item after it. Writing gives `{ role, content }` messages,
 * `function_call` and `function_call_output` items. What a rollmem message
 * has no field for is kept under `"rollmem.provider"` and restored by
 * {@link encode} while the messages are unchanged.
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
 * @since 1.0.0
 */
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Core from "../../../src/core/formats/openAiResponses.js"
import type * as Message from "../schema/Message.js"
import type { AdapterError, CheckOptions, DecodeOptions } from "./AdapterError.js"
import * as engine from "./internal/engine.js"
import { Arr, type Format, type Open, Opt } from "./internal/engine.js"

const Status = Schema.Literals(["in_progress", "completed", "incomplete"])
const Phase = Opt(Schema.NullOr(Schema.Literals(["commentary", "final_answer"])))

const InputText = Schema.Struct({ type: Schema.Literal("input_text"), text: Schema.String })
const InputImage = Schema.Struct({
  type: Schema.Literal("input_image"),
  detail: Schema.Literals(["low", "high", "auto", "original"]),
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
const TopLogprob = Schema.Struct({ token: Schema.String, bytes: Arr(Schema.Number), logprob: Schema.Number })
const Logprob = Schema.Struct({
  token: Schema.String,
  bytes: Arr(Schema.Number),
  logprob: Schema.Number,
  top_logprobs: Arr(TopLogprob)
})
const Refusal = Schema.Struct({ type: Schema.Literal("refusal"), refusal: Schema.String })
const FunctionCall = Schema.Struct({
  type: Schema.Literal("function_call"),
  call_id: Schema.String,
  name: Schema.String,
  arguments: Schema.String,
  id: Opt(Schema.String),
  namespace: Opt(Schema.String),
  status: Opt(Status)
})
const CustomToolCall = Schema.Struct({
  type: Schema.Literal("custom_tool_call"),
  call_id: Schema.String,
  name: Schema.String,
  input: Schema.String,
  id: Opt(Schema.String),
  namespace: Opt(Schema.String)
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

const ITEM_TYPES = [
  "message",
  "function_call",
  "function_call_output",
  "custom_tool_call",
  "custom_tool_call_output",
  "reasoning",
  "compaction"
]

/** The items' Schemas with their unions of parts opened (lenient) or not (strict). */
const membersOf = (open: Open) => {
  const InputPart = open([InputText, InputImage, InputFile], ["input_text", "input_image", "input_file"])
  const Annotation = open([
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
  ], ["file_citation", "url_citation", "container_file_citation", "file_path"])
  const OutputText = Schema.Struct({
    type: Schema.Literal("output_text"),
    text: Schema.String,
    annotations: Arr(Annotation),
    logprobs: Opt(Arr(Logprob))
  })
  const outputFields = {
    type: Schema.Literal("message"),
    id: Schema.String,
    role: Schema.Literal("assistant"),
    status: Status,
    content: Arr(open([OutputText, Refusal], ["output_text", "refusal"])),
    phase: Phase
  }
  const members = [
    Schema.Struct({
      type: Opt(Schema.Literal("message")),
      role: Schema.Literals(["user", "assistant", "system", "developer"]),
      content: Schema.Union([Schema.String, Arr(InputPart)]),
      phase: Phase
    }),
    Schema.Struct({
      type: Opt(Schema.Literal("message")),
      role: Schema.Literals(["user", "system", "developer"]),
      content: Arr(InputPart),
      status: Opt(Status)
    }),
    Schema.Struct(outputFields),
    FunctionCall,
    Schema.Struct({
      type: Schema.Literal("function_call_output"),
      call_id: Schema.String,
      output: Schema.Union([Schema.String, Arr(InputPart)]),
      id: Opt(Schema.NullOr(Schema.String)),
      status: Opt(Schema.NullOr(Status))
    }),
    CustomToolCall,
    Schema.Struct({
      type: Schema.Literal("custom_tool_call_output"),
      call_id: Schema.String,
      output: Schema.Union([Schema.String, Arr(InputPart)]),
      id: Opt(Schema.String)
    }),
    Reasoning,
    Compaction
  ] as const
  return { members, outputFields }
}

/** One item as the strict Schema declares it. */
const inputItem = (open: Open) => Schema.Union(membersOf(open).members).annotate({ identifier: "ResponseInputItem" })

/**
 * One item as reading takes it: also an output message passed back without
 * `id` or `status`, and (lenient) an item of another type; an output
 * message is read as one, its keys in the Effect 3 line's order.
 */
const readItem = (open: Open) => {
  const { members, outputFields } = membersOf(open)
  const passedBack = Schema.Struct({ ...outputFields, id: Opt(Schema.String), status: Opt(Status) })
  // an output message (then one passed back) tried before the easy form, which would take it with its parts open
  const [easy, input, output, ...rest] = members
  return open([output, passedBack, easy, input, ...rest], ITEM_TYPES).annotate({ identifier: "ResponseInputItem" })
}

/**
 * One Responses input item (assignable to the SDK's `ResponseInputItem`):
 * a message (easy, input or output form), `function_call`,
 * `function_call_output`, `custom_tool_call`, `custom_tool_call_output`,
 * `reasoning` or `compaction`: the strict reader's Schema.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { OpenAiResponses } from "rollmem/adapters"
 *
 * Schema.is(OpenAiResponses.InputItem)({ type: "function_call_output", call_id: "c1", output: "18C" }) // true
 * ```
 *
 * @since 1.0.0
 * @category schemas
 */
export const InputItem = inputItem(engine.closed)

/**
 * One Responses input item.
 *
 * @since 1.0.0
 * @category models
 */
export type InputItem = typeof InputItem.Type

/** @internal */
export const format: Format<InputItem> = {
  ...Core.format,
  // a passed-back message is an output message without its `id` or `status`: written back as it came
  item: (open) => readItem(open) as unknown as Schema.Codec<InputItem, unknown>
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
 * Reads Responses input items (or a response's `output`; any input,
 * checked) into rollmem messages. An item type, part type or key it does
 * not model is kept verbatim (see `DecodeOptions`; `{ strict: true }`
 * refuses it). Fails with `AdapterError` naming the path of what it cannot
 * place.
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
 * @since 1.0.0
 * @category constructors
 */
export const decode = (
  input: unknown,
  options?: DecodeOptions
): Effect.Effect<Array<Message.Message>, AdapterError> => engine.suspended(() => decodeResult(input, options))

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
 * @since 1.0.0
 * @category constructors
 */
export const encode = (
  messages: ReadonlyArray<Message.Message>,
  options?: EncodeOptions
): Effect.Effect<Array<InputItem>, AdapterError> => engine.suspended(() => encodeResult(messages, options))
