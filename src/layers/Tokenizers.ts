/**
 * Model tokenizers as `TokenCounter` layers: the tiktoken encodings
 * `o200k_base` (GPT-4o, GPT-4.1, GPT-5, o-series) and `cl100k_base` (GPT-4,
 * GPT-3.5, text-embedding-3), by encoding, by model name, or by a name given
 * on a command line.
 *
 * The default implementation is `gpt-tokenizer` (the faster one);
 * {@link layerJsTiktoken} uses `js-tiktoken` for applications that already
 * load it. Both give the same counts. The ranks are loaded on first use of a
 * layer (a dynamic import when the layer is built), so importing this module
 * costs nothing.
 *
 * Text that looks like a special token (`<|endoftext|>`, `<|im_start|>`) is
 * counted as ordinary text, never an error (SPEC section 3).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message, RollingMemory } from "rollmem"
 * import { layerModel } from "rollmem/tokenizers"
 *
 * const program = Effect.gen(function*() {
 *   const memory = yield* RollingMemory.make({ maxTokens: 8000 })
 *   yield* memory.add(Message.user("Book me a flight to Rome"))
 *   return yield* memory.bufferTokens // 6
 * }).pipe(Effect.provide(layerModel("gpt-4o")))
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { ConfigError } from "../Errors.js"
import { fromFunctionLabelled } from "../services/internal/counting.js"
import * as TokenCounter from "../services/TokenCounter.js"

/**
 * The tiktoken encodings rollmem ships: `o200k_base` (GPT-4o and later) and
 * `cl100k_base` (GPT-4, GPT-3.5, text-embedding-3).
 *
 * @since 0.1.0
 * @category models
 */
export type Encoding = "o200k_base" | "cl100k_base"

/**
 * The encodings accepted by {@link layerEncoding} and {@link layerByName}.
 *
 * @since 0.1.0
 * @category constants
 */
export const encodings: ReadonlyArray<Encoding> = ["o200k_base", "cl100k_base"]

/**
 * Whether `name` is one of the shipped {@link encodings}.
 *
 * @since 0.1.0
 * @category guards
 */
export const isEncoding = (name: string): name is Encoding => name === "o200k_base" || name === "cl100k_base"

const o200kModels = /^(?:gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4)(?:$|[-.])/
const cl100kModels =
  /^(?:gpt-4|gpt-4-turbo|gpt-3\.5-turbo|gpt-35-turbo|text-embedding-3-[a-z]+|text-embedding-ada-002)(?:$|-)/

/**
 * The encoding a model name uses, case-insensitive: `gpt-4o`, `gpt-4o-mini`,
 * `gpt-4.1*`, `gpt-4.5*`, `gpt-5*`, `o1*`, `o3*`, `o4*` (dated and suffixed
 * variants included) use `o200k_base`; `gpt-4`, `gpt-4-turbo`, `gpt-4-*`,
 * `gpt-3.5-turbo*`, `text-embedding-3-*` and `text-embedding-ada-002` use
 * `cl100k_base`. `None` for any other name.
 *
 * @example
 * ```ts
 * encodingForModel("gpt-4o-mini") // Option.some("o200k_base")
 * encodingForModel("gpt-4-turbo") // Option.some("cl100k_base")
 * encodingForModel("llama-3") // Option.none()
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const encodingForModel = (model: string): Option.Option<Encoding> => {
  const name = model.trim().toLowerCase()
  if (o200kModels.test(name)) return Option.some("o200k_base")
  if (cl100kModels.test(name)) return Option.some("cl100k_base")
  return Option.none()
}

// A throw becomes a TokenCountError labelled with the encoding.
const fromCount = (encoding: string, count: (text: string) => number): TokenCounter.Service =>
  fromFunctionLabelled(encoding, count)

// Special-token text is ordinary text: nothing disallowed, nothing allowed.
const gptTokenizerOptions = { disallowedSpecial: new Set<string>() }

const gptTokenizer = (encoding: Encoding): Effect.Effect<TokenCounter.Service> =>
  Effect.map(
    Effect.promise(() =>
      encoding === "o200k_base"
        ? import("gpt-tokenizer/encoding/o200k_base")
        : import("gpt-tokenizer/encoding/cl100k_base")
    ),
    ({ countTokens }) => fromCount(encoding, (text) => countTokens(text, gptTokenizerOptions))
  )

// Building a js-tiktoken encoder parses its ranks (hundreds of milliseconds),
// so each one is built at most once per process, whatever the number of
// runtimes the layer is provided to.
const jsTiktokens: Partial<Record<Encoding, Promise<(text: string) => number>>> = {}

const loadJsTiktoken = (
  encoding: Encoding
): Promise<(text: string) => number> => (jsTiktokens[encoding] ??= Promise.all([
  import("js-tiktoken/lite"),
  encoding === "o200k_base" ? import("js-tiktoken/ranks/o200k_base") : import("js-tiktoken/ranks/cl100k_base")
]).then(([{ Tiktoken }, ranks]) => {
  const tiktoken = new Tiktoken(ranks.default)
  const none: Array<string> = []
  // Nothing allowed, nothing disallowed: special-token text is ordinary text.
  return (text: string) => tiktoken.encode(text, none, none).length
}))

/**
 * The `o200k_base` encoding (GPT-4o, GPT-4.1, GPT-5, o-series) through
 * `gpt-tokenizer`, loaded when the layer is first built. The recommended
 * counter for current OpenAI models.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerO200kBase: Layer.Layer<TokenCounter.TokenCounter> = Layer.effect(
  TokenCounter.TokenCounter,
  gptTokenizer("o200k_base")
)

/**
 * The `cl100k_base` encoding (GPT-4, GPT-4-turbo, GPT-3.5-turbo,
 * text-embedding-3) through `gpt-tokenizer`, loaded when the layer is first
 * built.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerCl100kBase: Layer.Layer<TokenCounter.TokenCounter> = Layer.effect(
  TokenCounter.TokenCounter,
  gptTokenizer("cl100k_base")
)

/**
 * The `gpt-tokenizer` layer of an encoding: {@link layerO200kBase} or
 * {@link layerCl100kBase} (the same layer values, so they memoize).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerEncoding = (encoding: Encoding): Layer.Layer<TokenCounter.TokenCounter> =>
  encoding === "o200k_base" ? layerO200kBase : layerCl100kBase

const jsTiktokenLayers: Record<Encoding, Layer.Layer<TokenCounter.TokenCounter>> = {
  o200k_base: Layer.effect(
    TokenCounter.TokenCounter,
    Effect.map(Effect.promise(() => loadJsTiktoken("o200k_base")), (count) => fromCount("o200k_base", count))
  ),
  cl100k_base: Layer.effect(
    TokenCounter.TokenCounter,
    Effect.map(Effect.promise(() => loadJsTiktoken("cl100k_base")), (count) => fromCount("cl100k_base", count))
  )
}

/**
 * An encoding through `js-tiktoken` instead of `gpt-tokenizer`, for
 * applications that already load it. Same counts, slower. The encoder is
 * built once per process, when a layer is first built. Each encoding gives
 * the same layer value on every call, so it memoizes.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerJsTiktoken = (encoding: Encoding): Layer.Layer<TokenCounter.TokenCounter> =>
  jsTiktokenLayers[encoding]

/**
 * The encoding of a model (see {@link encodingForModel}), through
 * `gpt-tokenizer`. Fails with `ConfigError` (option `model`) for a model
 * whose encoding is not known.
 *
 * @example
 * ```ts
 * layerModel("gpt-4.1-mini") // the o200k_base layer
 * layerModel("gpt-3.5-turbo") // the cl100k_base layer
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerModel = (model: string): Layer.Layer<TokenCounter.TokenCounter, ConfigError> =>
  Option.match(encodingForModel(model), {
    onNone: () =>
      Layer.fail(
        new ConfigError({
          option: "model",
          description: `no known encoding for model "${model}" (known: gpt-4o*, gpt-4.1*, gpt-4.5*, gpt-5*, ` +
            `o1*, o3*, o4*, gpt-4*, gpt-3.5-turbo*, text-embedding-3-*); use layerEncoding`
        })
      ),
    onSome: layerEncoding
  })

/**
 * A counter by name, as given on a command line: `"words"` (the word counter,
 * the default of `TokenCounter`), an encoding (`"o200k_base"`,
 * `"cl100k_base"`), or a model name (`"gpt-4o"`, see {@link layerModel}).
 * Fails with `ConfigError` (option `tokenizer`) for any other name.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerByName = (name: string): Layer.Layer<TokenCounter.TokenCounter, ConfigError> => {
  if (name === "words") return TokenCounter.layerWordCount
  if (isEncoding(name)) return layerEncoding(name)
  return Option.match(encodingForModel(name), {
    onNone: () =>
      Layer.fail(
        new ConfigError({
          option: "tokenizer",
          description: `unknown tokenizer "${name}": expected "words", "o200k_base", "cl100k_base" ` +
            `or a model name such as "gpt-4o"`
        })
      ),
    onSome: layerEncoding
  })
}
