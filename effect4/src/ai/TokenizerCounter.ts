/**
 * A rollmem `TokenCounter` built from Effect 4's `Tokenizer` service
 * (`effect/ai`), so a provider's tokenizer counts a memory's buffer
 * unchanged.
 *
 * A message's token text is given to `Tokenizer.tokenize` as a plain string,
 * which `effect/ai` reads as one user message: the count is whatever that
 * tokenizer returns for it, including any per-message overhead it adds.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import type { Tokenizer } from "effect/ai"
 * import { RollingMemory, Summarizer } from "rollmem"
 * import { TokenizerCounter } from "rollmem/ai"
 *
 * declare const tokenizer: Layer.Layer<Tokenizer.Tokenizer> // a provider's tokenizer layer
 * const counter = TokenizerCounter.layer.pipe(Layer.provide(tokenizer))
 * const program = RollingMemory.make({ maxTokens: 4000 }).pipe(Effect.provide(counter), Effect.provide(Summarizer.layerDrop))
 * ```
 *
 * @since 1.0.0
 */
import { type AiError, Tokenizer } from "effect/ai"
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
 * (docs/contract.md section 3), but some tokenizers refuse it. When the
 * whole text fails and holds `<|`, it is counted in pieces split between
 * `<` and `|` (each piece's count less the tokenizer's per-call overhead,
 * plus that overhead once), which can differ from a plain-text reading by
 * about one token per `<|`. A tokenizer failure otherwise (an `AiError`)
 * fails the count with `TokenCountError` carrying it as `cause`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Tokenizer } from "effect/ai"
 * import { TokenCounter } from "rollmem"
 * import { TokenizerCounter } from "rollmem/ai"
 *
 * const counter = Effect.map(Effect.service(Tokenizer.Tokenizer), TokenizerCounter.fromTokenizer)
 * const count = Effect.flatMap(counter, (c) => TokenCounter.checkedCount(c, "Book me a flight to Rome"))
 * ```
 *
 * @since 1.0.0
 */
export const fromTokenizer = (tokenizer: Tokenizer.Service): TokenCounter.Service =>
  TokenCounter.fromEffect((text) =>
    tokenCount(tokenizer, text).pipe(
      Effect.catch((error) => text.includes("<|") ? countInPieces(tokenizer, text) : Effect.fail(error)),
      Effect.mapError((cause) => new TokenCountError({ description: cause.message, cause }))
    )
  )

/**
 * Provides the `TokenCounter` from the `Tokenizer` in context.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import type { Tokenizer } from "effect/ai"
 * import { RollingMemory, Summarizer } from "rollmem"
 * import { TokenizerCounter } from "rollmem/ai"
 *
 * declare const tokenizer: Layer.Layer<Tokenizer.Tokenizer>
 * const CounterLive = TokenizerCounter.layer.pipe(Layer.provide(tokenizer))
 * const program = RollingMemory.make({ maxTokens: 8000 }).pipe(Effect.provide(CounterLive), Effect.provide(Summarizer.layerDrop))
 * ```
 *
 * @since 1.0.0
 */
export const layer: Layer.Layer<never, never, Tokenizer.Tokenizer> = Layer.effect(
  TokenCounter.TokenCounter,
  Effect.map(Effect.service(Tokenizer.Tokenizer), fromTokenizer)
)
