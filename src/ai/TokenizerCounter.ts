/**
 * A rollmem `TokenCounter` built from `@effect/ai`'s `Tokenizer` service, so
 * a provider's tokenizer (`OpenAiTokenizer`, `AnthropicTokenizer`) counts a
 * memory's buffer unchanged.
 *
 * A message's token text is given to `Tokenizer.tokenize` as a plain string,
 * which `@effect/ai` reads as one user message: the count is whatever that
 * tokenizer returns for it, including any per-message overhead it adds
 * (`OpenAiTokenizer` encodes a chat, so even `""` counts a few tokens).
 *
 * @example
 * ```ts
 * import { OpenAiTokenizer } from "@effect/ai-openai"
 * import { Effect, Layer } from "effect"
 * import { RollingMemory } from "rollmem"
 * import { TokenizerCounter } from "rollmem/ai"
 *
 * const counter = TokenizerCounter.layer.pipe(Layer.provide(OpenAiTokenizer.layer({ model: "gpt-4o" })))
 * const program = RollingMemory.make({ maxTokens: 4000 }).pipe(Effect.provide(counter))
 * ```
 *
 * @since 0.1.0
 */
import type * as AiError from "@effect/ai/AiError"
import * as Tokenizer from "@effect/ai/Tokenizer"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { TokenCountError } from "../Errors.js"
import * as TokenCounter from "../services/TokenCounter.js"

const tokenCount = (tokenizer: Tokenizer.Service, text: string): Effect.Effect<number, AiError.AiError> =>
  Effect.map(tokenizer.tokenize(text), (tokens) => tokens.length)

/**
 * Counts text holding `<|` in pieces that hold none, so no piece can be
 * read as a special token: `"a<|endoftext|>b"` is counted as `"a<"` and
 * `"|endoftext|>b"`, minus the overhead the tokenizer adds per call (the
 * count of `""`), which is added back once.
 */
const countInPieces = (tokenizer: Tokenizer.Service, text: string): Effect.Effect<number, AiError.AiError> => {
  const parts = text.split("<|")
  const pieces = parts.map((part, i) => (i === 0 ? "" : "|") + part + (i < parts.length - 1 ? "<" : ""))
  return Effect.map(
    Effect.all([tokenCount(tokenizer, ""), Effect.forEach(pieces, (piece) => tokenCount(tokenizer, piece))]),
    ([overhead, counts]) => Math.max(0, counts.reduce((sum, n) => sum + n - overhead, overhead))
  )
}

/**
 * A counter that counts with `tokenizer`: the number of tokens
 * `tokenizer.tokenize(text)` returns.
 *
 * Text that looks like a special token (`<|endoftext|>`) is ordinary text
 * (docs/contract.md section 3), but some tokenizers refuse it (`OpenAiTokenizer` fails
 * with "Disallowed special token"). When the whole text fails and holds
 * `<|`, it is counted in pieces split between `<` and `|` (each piece's
 * count less the tokenizer's per-call overhead, plus that overhead once),
 * which can differ from a plain-text reading by about one token per `<|`.
 * A tokenizer failure otherwise (an `AiError`) fails the count with
 * `TokenCountError` carrying it as `cause`.
 *
 * @example
 * ```ts
 * import { Tokenizer } from "@effect/ai"
 * import { Effect } from "effect"
 * import { TokenCounter } from "rollmem"
 * import { TokenizerCounter } from "rollmem/ai"
 *
 * const counter = Effect.map(Tokenizer.Tokenizer, TokenizerCounter.fromTokenizer)
 * const count = Effect.flatMap(counter, (c) => TokenCounter.checkedCount(c, "Book me a flight to Rome"))
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromTokenizer = (tokenizer: Tokenizer.Service): TokenCounter.Service => ({
  count: (text) =>
    tokenCount(tokenizer, text).pipe(
      Effect.catchAll((error) => text.includes("<|") ? countInPieces(tokenizer, text) : Effect.fail(error)),
      Effect.mapError((cause) => new TokenCountError({ description: cause.message, cause }))
    )
})

/**
 * Provides the `TokenCounter` from the `Tokenizer` in context.
 *
 * @example
 * ```ts
 * import { OpenAiTokenizer } from "@effect/ai-openai"
 * import { Effect, Layer } from "effect"
 * import { RollingMemory, Summarizer } from "rollmem"
 * import { TokenizerCounter } from "rollmem/ai"
 *
 * const CounterLive = TokenizerCounter.layer.pipe(Layer.provide(OpenAiTokenizer.layer({ model: "gpt-4o" })))
 * const program = RollingMemory.make({ maxTokens: 8000 }).pipe(Effect.provide(CounterLive), Effect.provide(Summarizer.layerDrop))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<TokenCounter.TokenCounter, never, Tokenizer.Tokenizer> = Layer.effect(
  TokenCounter.TokenCounter,
  Effect.map(Tokenizer.Tokenizer, fromTokenizer)
)
