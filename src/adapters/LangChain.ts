/**
 * LangChain's stored-message JSON (`{ type, data }`, as written by
 * `mapChatMessagesToStoredMessages` in LangChain.js and `messages_to_dict`
 * in Python) to rollmem messages and back.
 *
 * | LangChain `type` | rollmem role |
 * |---|---|
 * | `human` | `user` |
 * | `ai` | `assistant`; `data.tool_calls` as tool calls (`arguments` = `JSON.stringify(args)`; a call without id gets the made-up id `"langchain:<index>:<call>"`) |
 * | `system` | `system` |
 * | `tool` | `tool`, `toolCallId` = `data.tool_call_id` |
 * | `function` | `function` |
 * | `chat` | `data.role` |
 *
 * The content is `data.content`, or its text blocks joined with `"\n"`.
 * Writing gives `{ type, data: { content } }` plus `tool_calls` (`{ name,
 * args, id, type: "tool_call" }`, `args` the arguments parsed: arguments
 * that are not a JSON object fail with `AdapterError`), `tool_call_id`, and
 * `role` for a `chat` message (any role other than `user`, `assistant`,
 * `system`, `tool`, `function`). Everything else LangChain stores
 * (`additional_kwargs`, `response_metadata`, `usage_metadata`, `name`, `id`,
 * `invalid_tool_calls`, non-text content blocks) is kept under the metadata
 * key `"rollmem.provider"` and restored by {@link encode} while the message
 * is unchanged.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type * as Message from "../schema/Message.js"
import type { AdapterError, DecodeOptions } from "./AdapterError.js"
import {
  Arr,
  type DeriveContext,
  type Draft,
  type DraftCall,
  type Format,
  joinText,
  JsonRecord,
  JsonSchema,
  madeUpCall,
  MEDIA_TOKENS,
  messageLabel,
  Opt,
  parseObject,
  type Rendered,
  stringify
} from "./internal/engine.js"
import * as engine from "./internal/engine.js"

const OptionalNullString = Opt(Schema.NullOr(Schema.String))

const ToolCall = Schema.Struct({
  name: Schema.String,
  args: JsonRecord,
  id: OptionalNullString,
  type: Opt(Schema.Literal("tool_call"))
})

const Data = Schema.Struct({
  content: Schema.Union(Schema.String, Arr(JsonRecord)),
  role: OptionalNullString,
  name: OptionalNullString,
  id: OptionalNullString,
  tool_call_id: OptionalNullString,
  tool_calls: Opt(Arr(ToolCall)),
  invalid_tool_calls: Opt(Arr(JsonRecord)),
  additional_kwargs: Opt(JsonRecord),
  response_metadata: Opt(JsonRecord),
  usage_metadata: Opt(Schema.NullOr(JsonRecord)),
  example: Opt(Schema.Boolean),
  type: Opt(Schema.String),
  status: Opt(Schema.String),
  artifact: Opt(JsonSchema)
})

/**
 * One stored LangChain message: `{ type, data }`. Reading also takes unknown
 * keys (kept verbatim) unless `strict`; an unknown `type` is refused.
 *
 * @since 0.2.0
 * @category schemas
 */
export const StoredMessage = Schema.Struct({
  type: Schema.Literal("human", "ai", "system", "tool", "function", "chat"),
  data: Data
}).annotations({ identifier: "StoredMessage" })

/**
 * One stored LangChain message.
 *
 * @since 0.2.0
 * @category models
 */
export type StoredMessage = typeof StoredMessage.Type

const roles = { human: "user", ai: "assistant", system: "system", tool: "tool", function: "function" } as const

const derive = (group: ReadonlyArray<StoredMessage>, ctx: DeriveContext): Array<Draft> => {
  const { data, type } = group[0]
  const content = typeof data.content === "string"
    ? data.content
    : joinText(data.content.flatMap((b) => b.type === "text" && typeof b.text === "string" ? [b.text] : []))
  const role = type === "chat" ? data.role ?? "chat" : roles[type]
  const toolCalls = (data.tool_calls ?? []).map((call, k): DraftCall => ({
    id: call.id ?? madeUpCall(ctx, call.name, `langchain:${ctx.index}:${k}`),
    name: call.name,
    arguments: stringify(call.args)
  }))
  return [{
    role,
    content,
    toolCalls,
    ...(data.tool_call_id !== undefined && data.tool_call_id !== null ? { toolCallId: data.tool_call_id } : {})
  }]
}

const typeOf = (role: string): StoredMessage["type"] =>
  role === "user"
    ? "human"
    : role === "assistant"
    ? "ai"
    : role === "system" || role === "tool" || role === "function"
    ? role
    : "chat"

const render = (run: ReadonlyArray<Rendered>): Either.Either<Array<StoredMessage>, string> => {
  const out: Array<StoredMessage> = []
  for (const r of run) {
    const m = r.message
    const type = typeOf(m.role)
    const toolCalls = []
    for (const call of m.toolCalls) {
      const args = call.arguments === "" ? {} : parseObject(call.arguments)
      if (args === undefined) {
        return Either.left(
          `${messageLabel(r)}: the arguments of tool call ${JSON.stringify(call.id)} are not a JSON object`
        )
      }
      toolCalls.push({ name: call.name, args, id: call.id, type: "tool_call" as const })
    }
    out.push({
      type,
      data: {
        content: m.content,
        ...(type === "chat" ? { role: m.role } : {}),
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        ...(m.toolCallId !== undefined ? { tool_call_id: m.toolCallId } : {})
      }
    })
  }
  return Either.right(out)
}

const estimate = (m: StoredMessage): number => {
  if (typeof m.data.content === "string") return 0
  let tokens = 0
  for (const b of m.data.content) if (b.type !== "text") tokens += MEDIA_TOKENS
  return tokens
}

/** @internal */
export const format: Format<StoredMessage> = { name: "langchain", item: StoredMessage, derive, render, estimate }

const codec = engine.codec(
  (input, options) => engine.decode(format, input, options),
  (messages) => {
    const refused = engine.notMessages(format.name, messages)
    return refused === undefined ? engine.encode(format, messages) : Either.left(refused)
  }
)

/**
 * Reads stored LangChain messages (any input, checked) into rollmem
 * messages. Fails with `AdapterError` naming the path of a field it does not
 * know or of the wrong type.
 *
 * @since 0.2.0
 * @category constructors
 */
export const decode: (
  input: unknown,
  options?: DecodeOptions
) => Effect.Effect<Array<Message.Message>, AdapterError> = codec.decode

/**
 * Writes rollmem messages as stored LangChain messages, restoring what
 * {@link decode} kept. Fails with `AdapterError` for tool call arguments
 * that are not a JSON object.
 *
 * @since 0.2.0
 * @category constructors
 */
export const encode: (
  messages: ReadonlyArray<Message.Message>
) => Effect.Effect<Array<StoredMessage>, AdapterError> = codec.encode
