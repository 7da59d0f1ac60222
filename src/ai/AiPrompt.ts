/**
 * Conversions between rollmem's `Message` and `@effect/ai`'s `Prompt`, both
 * ways, so a memory's context can be passed straight to
 * `LanguageModel.generateText` and a `Chat`'s history can be loaded into a
 * memory.
 *
 * **Messages to a prompt** ({@link toPrompt}): one `Message` gives one
 * `Prompt.Message`, chosen by shape, in this order:
 *
 * | rollmem message | Prompt message |
 * |---|---|
 * | has tool calls (any role) | `assistant`: a text part (when the content is not empty), then one `tool-call` part per call |
 * | has a tool call id (any role) | `tool`: one `tool-result` part |
 * | role `system` | `system`, content as is |
 * | role `assistant` | `assistant`: a text part when the content is not empty |
 * | role `user` | `user`: a text part when the content is not empty |
 * | any other role (a custom role, a `tool` message without a tool call id) | `user`: a text part when the content is not empty |
 *
 * A `tool-call` part has the call's `id` and `name`, and `params` = the
 * call's `arguments` parsed as JSON (`{}` for `""`; the raw string when it is
 * not JSON). A `tool-result` part has `id` = the tool call id, `name` = the
 * name of the latest earlier call in the same list with that id (`""` for an
 * orphan result, whose call is not in the list), `result` = the content
 * parsed as JSON when it is a JSON object, array, number, boolean or null
 * (so a provider sends `{"id":1}`, not a quoted string holding it), else the
 * content string itself; `isFailure: false`, `providerExecuted: false`.
 *
 * What `Prompt` has no place for travels in the options under the
 * {@link OPTIONS_KEY} (`"rollmem"`) key, which providers ignore:
 *
 * - on the message: `id`, `metadata` (when not empty), `role` (when the
 *   Prompt role differs from the message's role: a custom role, a `user`
 *   carrying a tool call id, a `tool` message without one), and `toolCallId`
 *   for a message that has both tool calls and a tool call id;
 * - on a `tool-call` part: `arguments`, the exact text, when it differs from
 *   `JSON.stringify(params)` (whitespace, number forms, an empty or non-JSON
 *   string);
 * - on a `tool-result` part: `content`, the exact text, when the result was
 *   parsed from it and `JSON.stringify(result)` differs from it.
 *
 * So `fromPrompt(toPrompt(messages))` gives back messages equal to
 * `messages`, field for field.
 *
 * **A prompt to messages** ({@link fromPrompt}), for prompts that did not
 * come from {@link toPrompt} (a `Chat`'s history), loses:
 *
 * - `file` and `reasoning` parts (a message holds text only);
 * - a tool result's `name`, `isFailure` and `providerExecuted` (a tool result
 *   message holds only the id it answers: put a failure in the result itself
 *   if it matters), and a call's `providerExecuted`;
 * - the provider options of messages and parts (other than `"rollmem"`).
 *
 * Text parts are joined with `""` (as `GenerateTextResponse.text` does). A
 * `result` that is a string becomes the content as is; any other result is
 * written with `JSON.stringify` (`""` for `undefined`).
 *
 * Note that `@effect/ai-openai` sends a call's `params` and a result's
 * `result` re-serialized with `JSON.stringify`: the provider sees the same
 * JSON values, not the exact original text (which only the `"rollmem"`
 * options keep), and a result that is plain text reaches it as a JSON
 * string (`"18C, sunny"` in quotes). A `tool` message with
 * several results gives one rollmem message per result; a `tool-result` part
 * inside an `assistant` message (a provider-executed tool) gives a `tool`
 * message right after it (and an assistant message holding nothing else
 * gives no empty assistant turn). The message-level `"rollmem"` options apply to the
 * first message produced.
 *
 * @example
 * ```ts
 * import { Chat, LanguageModel } from "@effect/ai"
 * import { Effect, Ref } from "effect"
 * import type { RollingMemory } from "rollmem"
 * import { AiPrompt } from "rollmem/ai"
 *
 * declare const memory: RollingMemory.RollingMemory
 * declare const chat: Chat.Service
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
 * @since 0.1.0
 */
import * as Prompt from "@effect/ai/Prompt"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Core from "../core/aiPrompt.js"
import { InvalidMessageError } from "../Errors.js"
import * as Message from "../schema/Message.js"

export { OPTIONS_KEY } from "../core/aiPrompt.js"
export type { MessageOptions, ToolCallOptions, ToolResultOptions } from "../core/aiPrompt.js"

const optionsOf = (
  rollmem: Core.MessageOptions | Core.ToolCallOptions | Core.ToolResultOptions
): Prompt.ProviderOptions =>
  Object.keys(rollmem).length === 0 ? {} : { [Core.OPTIONS_KEY]: rollmem as Record<string, unknown> }

/** `@effect/ai`'s constructors, for the shared mapping (`core/aiPrompt.ts` `toPromptMessage`). */
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
 * @since 0.1.0
 * @category constructors
 */
export const toPromptMessage = (message: Message.Message, toolName = ""): Prompt.Message =>
  Core.toPromptMessage(build, message, toolName)

/**
 * Converts messages (a memory's `messages`, oldest first) to a `Prompt`,
 * ready for `LanguageModel.generateText({ prompt })`. Tool results are named
 * after the latest earlier call with their id. Exact inverse:
 * {@link fromPrompt}. See the module docs for the mapping.
 *
 * @example
 * ```ts
 * import { LanguageModel } from "@effect/ai"
 * import { Effect } from "effect"
 * import { Message } from "rollmem"
 * import { AiPrompt } from "rollmem/ai"
 *
 * const reply = LanguageModel.generateText({
 *   prompt: AiPrompt.toPrompt([Message.system("Be brief."), Message.user("Weather in Rome?")])
 * })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const toPrompt = (messages: Iterable<Message.Message>): Prompt.Prompt =>
  Prompt.fromMessages(Core.toPromptMessages(build, messages))

/**
 * The message of a draft's fields (`Core.promptMessageFields`), through the decoder every message goes through
 * (`Message.decodeFields`): the `"rollmem"` options of the Prompt message
 * (`extra`) are untrusted, so a wrong type, metadata that is not JSON or is
 * nested too deep, or a huge wrong value gives a bounded `InvalidMessageError`.
 */
const messageOf = (
  fields: ReturnType<typeof Core.draftFields>
): Either.Either<Message.Message, InvalidMessageError> =>
  Message.decodeFields(fields.role, fields.content, fields.options)

/**
 * Converts one Prompt message to rollmem messages (usually one; a `tool`
 * message gives one per result, an `assistant` message one more per
 * `tool-result` part). Fails with `InvalidMessageError` when its `"rollmem"`
 * options hold a field of the wrong type (metadata that is not JSON, an id
 * that is not a string).
 *
 * @example
 * ```ts
 * import { Prompt } from "@effect/ai"
 * import { AiPrompt } from "rollmem/ai"
 *
 * AiPrompt.fromPromptMessage(Prompt.userMessage({ content: [Prompt.textPart({ text: "hi" })] }))
 * // Either.right([Message { role: "user", content: "hi" }])
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromPromptMessage = (
  message: Prompt.Message
): Either.Either<Array<Message.Message>, InvalidMessageError> => {
  const out: Array<Message.Message> = []
  for (const fields of Core.promptMessageFields(message)) {
    const decoded = messageOf(fields)
    if (Either.isLeft(decoded)) return Either.left(decoded.left)
    out.push(decoded.right)
  }
  return Either.right(out)
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
 * import { Prompt } from "@effect/ai"
 * import { Effect } from "effect"
 * import { AiPrompt } from "rollmem/ai"
 *
 * const messages = Effect.runSync(AiPrompt.fromPrompt(Prompt.make("Weather in Rome?")))
 * messages.map(String) // ["user: Weather in Rome?"]
 * ```
 *
 * @since 0.1.0
 * @category constructors
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
      if (Either.isLeft(converted)) return Effect.fail(converted.left)
      out.push(...converted.right)
    }
    return Effect.succeed(out)
  })
