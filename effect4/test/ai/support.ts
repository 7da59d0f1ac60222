/**
 * What the Effect 4 line's `rollmem/ai` tests share (as `test/ai/support.ts`
 * on the Effect 3 line): a scripted `LanguageModel` and the text of a prompt.
 */
import { Clock, Effect, Layer, Ref, Stream } from "effect"
import { AiError, LanguageModel, type Prompt, type Response } from "effect/ai"

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

/** An `AiError` for an HTTP answer of `status`, as a provider maps it (`AiError.reasonFromHttpStatus`). */
export const statusError = (status: number): AiError.AiError =>
  AiError.make({
    module: "Test",
    method: "generateText",
    reason: AiError.reasonFromHttpStatus({ status, http: { response: { status, headers: {} } } })
  })
