import * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import { Clock, Effect, Layer, Option, Ref, Schema, Stream } from "effect"
import * as Message from "../../src/schema/Message.js"
import { dataLines } from "../support/data.js"

export { DATA_FILES, dataDir, hasData } from "../support/data.js"

const Conversation = Schema.Struct({ id: Schema.String, messages: Schema.Array(Message.Message) })
const decodeConversation = Schema.decodeUnknownSync(Schema.parseJson(Conversation))

export type Conversation = typeof Conversation.Type

/** The conversations of `file`; none when the data folder is absent. */
export const loadConversations = (file: string): ReadonlyArray<Conversation> =>
  dataLines(file).map((line) => decodeConversation(line))

/** The text of every text part of a prompt's user messages, joined. */
export const userText = (prompt: Prompt.Prompt): string =>
  prompt.content.flatMap((message) =>
    message.role === "user" ? message.content.flatMap((part) => part.type === "text" ? [part.text] : []) : []
  ).join("\n")

/** The content of a prompt's system messages, joined. */
export const systemText = (prompt: Prompt.Prompt): string =>
  prompt.content.flatMap((message) => message.role === "system" ? [message.content] : []).join("\n")

/**
 * A scripted LanguageModel: each generateText call gets the next reply
 * (a text, or an effect: failing with an AiError, or never completing), and
 * every prompt, the clock time of every call and every interruption are
 * recorded. Once the script runs out, the last reply repeats.
 */
export const scriptedModel = (
  replies: ReadonlyArray<string | Effect.Effect<string, AiError.AiError>>
) =>
  Effect.gen(function*() {
    const prompts = yield* Ref.make<ReadonlyArray<Prompt.Prompt>>([])
    const times = yield* Ref.make<ReadonlyArray<number>>([])
    const interrupted = yield* Ref.make(0)
    const model = yield* LanguageModel.make({
      generateText: (options) =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          yield* Ref.update(times, (all) => [...all, now])
          const i = yield* Ref.modify(prompts, (all) => [all.length, [...all, options.prompt]])
          const reply = replies[Math.min(i, replies.length - 1)]
          const text = typeof reply === "string" ? reply : yield* reply
          return [{ type: "text", text }] as Array<Response.PartEncoded>
        }).pipe(Effect.onInterrupt(() => Ref.update(interrupted, (n) => n + 1))),
      streamText: () => Stream.die("not used")
    })
    return { prompts, times, interrupted, layer: Layer.succeed(LanguageModel.LanguageModel, model) }
  })

/** An HttpResponseError with the given status, as the OpenAI client raises for a non-2xx reply. */
export const statusError = (status: number): AiError.HttpResponseError =>
  new AiError.HttpResponseError({
    module: "Test",
    method: "generateText",
    reason: "StatusCode",
    request: { method: "POST", url: "http://127.0.0.1/v1/responses", urlParams: [], hash: Option.none(), headers: {} },
    response: { status, headers: {} }
  })
