/**
 * Conversions between rollmem's `Message` and Effect 4's `Prompt`
 * (`effect/ai`), both ways, so a memory's context can be passed straight to
 * `LanguageModel.generateText` and a `Chat`'s history can be loaded into a
 * memory: the Effect 3 line's `AiPrompt`, with the same mapping (the shared
 * part is `src/core/aiPrompt.ts`).
 *
 * **Messages to a prompt** ({@link toPrompt}): one `Message` gives one
 * `Prompt.Message`, chosen by shape, in this order: tool calls (any role)
 * give an `assistant` message (a text part when the content is not empty,
 * then one `tool-call` part per call); a tool call id (any role) a `tool`
 * message with one `tool-result` part; role `system` a `system` message;
 * role `assistant` an `assistant` message; any other role a `user` message
 * (a text part when the content is not empty). A `tool-call` part's
 * `params` are the call's `arguments` parsed as JSON (`{}` for `""`, the
 * raw string when not JSON); a `tool-result` part is named after the
 * latest earlier call with its id (`""` for an orphan), its `result` the
 * content parsed as JSON when it is a JSON object, array, number, boolean
 * or null, else the content itself; `isFailure: false`,
 * `providerExecuted: false`.
 *
 * What `Prompt` has no place for travels in the options under the
 * {@link OPTIONS_KEY} (`"rollmem"`) key, which providers ignore: a
 * message's `id`, `metadata` (when not empty), `role` (when the Prompt role
 * differs) and `toolCallId` (for a message with tool calls too); a call's
 * exact `arguments` and a result's exact `content` when
 * `JSON.stringify` of the parsed value differs from them. So
 * `fromPrompt(toPrompt(messages))` gives back messages equal to
 * `messages`, field for field.
 *
 * **A prompt to messages** ({@link fromPrompt}), for prompts that did not
 * come from {@link toPrompt} (a `Chat`'s history), loses `file` and
 * `reasoning` parts, a tool result's `name`, `isFailure`, `modelOutput` and
 * `providerExecuted`, a call's `providerExecuted`, the tool-approval parts
 * Effect 4 adds (`tool-approval-request`, `tool-approval-response`: a
 * message holds no approval), and the provider options other than
 * `"rollmem"`. Text parts are joined with `""`; a `result` that is a string
 * becomes the content as is, any other is written with `JSON.stringify`
 * (`""` for `undefined`). A `tool` message with several results gives one
 * message per result; a `tool-result` part inside an `assistant` message (a
 * provider-executed tool) gives a `tool` message right after it.
 *
 * @example
 * ```ts
 * import { Effect, Ref } from "effect"
 * import { type Chat, LanguageModel } from "effect/ai"
 * import type { RollingMemory } from "rollmem"
 * import { AiPrompt } from "rollmem/ai"
 *
 * declare const memory: RollingMemory.RollingMemory
 * declare const chat: Chat.Chat
 * // memory -> model
 * const reply = Effect.flatMap(memory.messages, (messages) =>
 *   LanguageModel.generateText({ prompt: AiPrompt.toPrompt(messages) })
 * )
 * // Chat history -> memory
 * const load = Effect.gen(function*() {
 *   const history = yield* Ref.get(chat.history)
 *   for (const message of yield* AiPrompt.fromPrompt(history)) yield* memory.add(message)
 * })
 * ```
 *
 * @since 1.0.0
 */
import { Prompt } from "effect/ai"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Core from "../../../src/core/aiPrompt.js"
import { InvalidMessageError } from "../Errors.js"
import * as Message from "../schema/Message.js"

export { OPTIONS_KEY } from "../../../src/core/aiPrompt.js"
export type { MessageOptions, ToolCallOptions, ToolResultOptions } from "../../../src/core/aiPrompt.js"

const optionsOf = (
  rollmem: Core.MessageOptions | Core.ToolCallOptions | Core.ToolResultOptions
): Prompt.ProviderOptions =>
  Object.keys(rollmem).length === 0 ? {} : { [Core.OPTIONS_KEY]: rollmem as Prompt.ProviderOptions }

/** `effect/ai`'s constructors, for the shared mapping (`src/core/aiPrompt.ts` `toPromptMessage`). */
const build: Core.PromptBuilder<Prompt.Message, Prompt.TextPart | Prompt.ToolCallPart | Prompt.ToolResultPart> = {
  text: (text) => Prompt.textPart({ text }),
  toolCall: ({ id, name, options, params }) =>
    Prompt.toolCallPart({ id, name, params, providerExecuted: false, options: optionsOf(options) }),
  toolResult: ({ id, name, options, result }) =>
    Prompt.toolResultPart({ id, name, isFailure: false, result, providerExecuted: false, options: optionsOf(options) }),
  system: (content, options) => Prompt.systemMessage({ content, options: optionsOf(options) }),
  user: (content, options) =>
    Prompt.userMessage({ content: content as Array<Prompt.TextPart>, options: optionsOf(options) }),
  assistant: (content, options) =>
    Prompt.assistantMessage({
      content: content as Array<Prompt.TextPart | Prompt.ToolCallPart>,
      options: optionsOf(options)
    }),
  tool: (content, options) =>
    Prompt.toolMessage({ content: content as Array<Prompt.ToolResultPart>, options: optionsOf(options) })
}

/**
 * Converts one message. `toolName` names the call a tool result answers
 * (`""` when unknown). See the module docs for the mapping.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 * import { AiPrompt } from "rollmem/ai"
 *
 * // a tool result needs its tool's name, which the message does not hold
 * const part = AiPrompt.toPromptMessage(Message.tool("18C", { toolCallId: "c1" }), "weather")
 * part.role // "tool"
 * ```
 *
 * @since 1.0.0
 */
export const toPromptMessage = (message: Message.Message, toolName = ""): Prompt.Message =>
  Core.toPromptMessage(build, message, toolName)

/**
 * Converts messages (a memory's `messages`, oldest first) to a `Prompt`,
 * ready for `LanguageModel.generateText({ prompt })`. Tool results are named
 * after the latest earlier call with their id. Exact inverse:
 * {@link fromPrompt}.
 *
 * @example
 * ```ts
 * import { LanguageModel } from "effect/ai"
 * import { Message } from "rollmem"
 * import { AiPrompt } from "rollmem/ai"
 *
 * const reply = LanguageModel.generateText({
 *   prompt: AiPrompt.toPrompt([Message.system("Be brief."), Message.user("Weather in Rome?")])
 * })
 * ```
 *
 * @since 1.0.0
 */
export const toPrompt = (messages: Iterable<Message.Message>): Prompt.Prompt =>
  Prompt.fromMessages(Core.toPromptMessages(build, messages))

/**
 * The message of a draft's fields (`Core.promptMessageFields`), through `Message.make` (the decoder every
 * message goes through): the `"rollmem"` options of the Prompt message
 * (`extra`) are untrusted, so a wrong type, metadata that is not JSON or is
 * nested too deep, or a huge wrong value gives a bounded `InvalidMessageError`.
 */
const messageOf = (
  fields: ReturnType<typeof Core.draftFields>
): Result.Result<Message.Message, InvalidMessageError> => {
  try {
    return Result.succeed(Message.make(fields.role as string, fields.content, fields.options as Message.MessageOptions))
  } catch (error) {
    if (error instanceof InvalidMessageError) return Result.fail(error)
    throw error
  }
}

/**
 * Converts one Prompt message to rollmem messages (usually one; a `tool`
 * message gives one per result, an `assistant` message one more per
 * `tool-result` part). Fails with `InvalidMessageError` when its `"rollmem"`
 * options hold a field of the wrong type (metadata that is not JSON, an id
 * that is not a string).
 *
 * @example
 * ```ts
 * import { Prompt } from "effect/ai"
 * import { AiPrompt } from "rollmem/ai"
 *
 * AiPrompt.fromPromptMessage(Prompt.userMessage({ content: [Prompt.textPart({ text: "hi" })] }))
 * // Result.succeed([Message { role: "user", content: "hi" }])
 * ```
 *
 * @since 1.0.0
 */
export const fromPromptMessage = (
  message: Prompt.Message
): Result.Result<Array<Message.Message>, InvalidMessageError> => {
  const out: Array<Message.Message> = []
  for (const fields of Core.promptMessageFields(message)) {
    const decoded = messageOf(fields)
    if (Result.isFailure(decoded)) return Result.fail(decoded.failure)
    out.push(decoded.success)
  }
  return Result.succeed(out)
}

/**
 * Converts a `Prompt` (a `Chat`'s history, or one built by {@link toPrompt})
 * to rollmem messages, oldest first. Exact inverse of {@link toPrompt}; for
 * other prompts, see the module docs for what is lost. Fails with
 * `InvalidMessageError` when a `"rollmem"` option holds a field of the
 * wrong type.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Prompt } from "effect/ai"
 * import { AiPrompt } from "rollmem/ai"
 *
 * const messages = Effect.runSync(AiPrompt.fromPrompt(Prompt.make("Weather in Rome?")))
 * messages.map(String) // ["user: Weather in Rome?"]
 * ```
 *
 * @since 1.0.0
 */
export const fromPrompt = (
  prompt: Prompt.Prompt
): Effect.Effect<Array<Message.Message>, InvalidMessageError> =>
  Effect.suspend(() => {
    const problem = Core.promptProblem(prompt)
    if (problem !== undefined) return Effect.fail(new InvalidMessageError({ description: problem }))
    const out: Array<Message.Message> = []
    for (const message of prompt.content) {
      const converted = fromPromptMessage(message)
      if (Result.isFailure(converted)) return Effect.fail(converted.failure)
      out.push(...converted.success)
    }
    return Effect.succeed(out)
  })
