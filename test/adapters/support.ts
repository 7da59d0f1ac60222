import { Effect, Either } from "effect"
import * as Adapters from "../../src/adapters.js"
import type { AdapterError } from "../../src/adapters/AdapterError.js"
import { BufferMemory } from "../../src/promise/index.js"
import type * as Message from "../../src/schema/Message.js"

/** One provider format, as the tests drive it. */
export interface Format {
  readonly name: string
  readonly decode: (input: unknown) => Effect.Effect<Array<Message.Message>, AdapterError>
  readonly encode: (
    messages: ReadonlyArray<Message.Message>,
    options?: { readonly check?: boolean }
  ) => Effect.Effect<unknown, AdapterError>
}

export const FORMATS: ReadonlyArray<Format> = [
  { name: "openai-chat", decode: Adapters.OpenAiChat.decode, encode: Adapters.OpenAiChat.encode },
  { name: "openai-responses", decode: Adapters.OpenAiResponses.decode, encode: Adapters.OpenAiResponses.encode },
  { name: "anthropic", decode: Adapters.Anthropic.decode, encode: Adapters.Anthropic.encode },
  { name: "ai-sdk", decode: Adapters.AiSdk.decode, encode: Adapters.AiSdk.encode },
  { name: "ai-sdk-ui", decode: Adapters.UiMessages.decode, encode: Adapters.UiMessages.encode },
  { name: "gemini", decode: Adapters.Gemini.decode, encode: Adapters.Gemini.encode },
  { name: "langchain", decode: Adapters.LangChain.decode, encode: Adapters.LangChain.encode }
]

/** The messages through a memory and its JSON state: add each, save, restore, read back. */
export const throughMemory = (messages: ReadonlyArray<Message.Message>): Array<Message.Message> => {
  const memory = new BufferMemory()
  for (const m of messages) memory.addMessage(m.role, m.content, m)
  const saved = JSON.stringify(memory)
  return BufferMemory.fromJSON(JSON.parse(saved)).getMessages()
}

/** As JSON data (what a request body holds). */
export const json = (u: unknown): unknown => JSON.parse(JSON.stringify(u))

/** `from… → memory → JSON → memory → to…` on provider input `x`. */
export const roundTrip = (format: Format, x: unknown, options?: { readonly check?: boolean }) =>
  Effect.gen(function*() {
    const messages = yield* format.decode(json(x))
    return json(yield* format.encode(throughMemory(messages), options))
  })

export const either = <A, E>(effect: Effect.Effect<A, E>): Either.Either<A, E> => Effect.runSync(Effect.either(effect))

/** `x` with `x_future: { since: "2027-01" }` added to every object, the request's own keys excepted. */
export const withFuture = (x: unknown, top = false): unknown => {
  if (Array.isArray(x)) return x.map((v) => withFuture(v))
  if (typeof x !== "object" || x === null) return x
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(x)) {
    out[k] = top && k === "systemInstruction" ? { parts: withFuture((v as { parts: unknown }).parts) } : withFuture(v)
  }
  if (!top) out.x_future = { since: "2027-01" }
  return out
}
