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
 * counted as ordinary text, never an error (docs/contract.md section 3).
 *
 * For the Promise facade, {@link loadTokenCounter} loads the same counters
 * as plain functions (`(text) => number`) for the `tokenCounter` option.
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
import * as Either from "effect/Either"
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

/** A plain counting function: tokens in one message's token text. */
type Count = (text: string) => number

// Special-token text is ordinary text: nothing disallowed, nothing allowed.
const gptTokenizerOptions = { disallowedSpecial: new Set<string>() }

// The module import is cached by the runtime, so each encoding's ranks are
// parsed once per process.
const loadGptTokenizer = (encoding: Encoding): Promise<Count> =>
  (encoding === "o200k_base"
    ? import("gpt-tokenizer/encoding/o200k_base")
    : import("gpt-tokenizer/encoding/cl100k_base")).then(({ countTokens }) => (text: string) =>
      countTokens(text, gptTokenizerOptions)
    )

// Building a js-tiktoken encoder parses its ranks (hundreds of milliseconds),
// so each one is built at most once per process, whatever the number of
// runtimes the layer is provided to.
const jsTiktokens: Partial<Record<Encoding, Promise<Count>>> = {}

const loadJsTiktoken = (encoding: Encoding): Promise<Count> => (jsTiktokens[encoding] ??= Promise.all([
  import("js-tiktoken/lite"),
  encoding === "o200k_base" ? import("js-tiktoken/ranks/o200k_base") : import("js-tiktoken/ranks/cl100k_base")
]).then(([{ Tiktoken }, ranks]) => {
  const tiktoken = new Tiktoken(ranks.default)
  const none: Array<string> = []
  // Nothing allowed, nothing disallowed: special-token text is ordinary text.
  return (text: string) => tiktoken.encode(text, none, none).length
}))

// A layer loading `encoding` when first built; a throw of the counting
// function becomes a TokenCountError labelled with the encoding.
const layerLoaded = (
  load: (encoding: Encoding) => Promise<Count>,
  encoding: Encoding
): Layer.Layer<TokenCounter.TokenCounter> =>
  Layer.effect(
    TokenCounter.TokenCounter,
    Effect.map(Effect.promise(() => load(encoding)), (count) => fromFunctionLabelled(encoding, count))
  )

/**
 * The `o200k_base` encoding (GPT-4o, GPT-4.1, GPT-5, o-series) through
 * `gpt-tokenizer`, loaded when the layer is first built. The recommended
 * counter for current OpenAI models.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerO200kBase: Layer.Layer<TokenCounter.TokenCounter> = layerLoaded(loadGptTokenizer, "o200k_base")

/**
 * The `cl100k_base` encoding (GPT-4, GPT-4-turbo, GPT-3.5-turbo,
 * text-embedding-3) through `gpt-tokenizer`, loaded when the layer is first
 * built.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerCl100kBase: Layer.Layer<TokenCounter.TokenCounter> = layerLoaded(
  loadGptTokenizer,
  "cl100k_base"
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
  o200k_base: layerLoaded(loadJsTiktoken, "o200k_base"),
  cl100k_base: layerLoaded(loadJsTiktoken, "cl100k_base")
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

// What a tokenizer name selects (the word counter or an encoding), or the
// error layerByName and loadTokenCounter fail with: one place decides both.
const resolveName = (name: string): Either.Either<"words" | Encoding, ConfigError> => {
  if (name === "words" || isEncoding(name)) return Either.right(name)
  return Either.fromOption(
    typeof name === "string" ? encodingForModel(name) : Option.none(),
    () =>
      new ConfigError({
        option: "tokenizer",
        description: `unknown tokenizer "${String(name)}": expected "words", "o200k_base", "cl100k_base" ` +
          `or a model name such as "gpt-4o"`
      })
  )
}

/**
 * A counter by name, as given on a command line: `"words"` (the word counter,
 * the default of `TokenCounter`), an encoding (`"o200k_base"`,
 * `"cl100k_base"`), or a model name (`"gpt-4o"`, see {@link layerModel}).
 * Fails with `ConfigError` (option `tokenizer`) for any other name.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerByName = (name: string): Layer.Layer<TokenCounter.TokenCounter, ConfigError> =>
  Either.match(resolveName(name), {
    onLeft: (error) => Layer.fail(error),
    onRight: (selected) => selected === "words" ? TokenCounter.layerWordCount : layerEncoding(selected)
  })

/**
 * The library that counts for {@link loadTokenCounter}: `"gpt-tokenizer"`
 * (the default, faster) or `"js-tiktoken"` (for applications that already
 * load it). Both give the same counts.
 *
 * @since 0.1.0
 * @category models
 */
export type Engine = "gpt-tokenizer" | "js-tiktoken"

/**
 * Options of {@link loadTokenCounter}.
 *
 * @since 0.1.0
 * @category models
 */
export interface LoadOptions {
  /** The library that counts; default `"gpt-tokenizer"`. */
  readonly engine?: Engine | undefined
}

const loaders: Record<Engine, (encoding: Encoding) => Promise<Count>> = {
  "gpt-tokenizer": loadGptTokenizer,
  "js-tiktoken": loadJsTiktoken
}

/**
 * Loads a counter by name for the Promise facade: resolves to a plain
 * `(text) => number` that counts the tokens of one message's token text,
 * to pass as `tokenCounter` to `RollingMemory` or `AsyncRollingMemory` of
 * `rollmem/promise`. Accepts the names of {@link layerByName}: `"words"`
 * (the word count), `"o200k_base"`, `"cl100k_base"`, or a model name such as
 * `"gpt-4o"` (see {@link encodingForModel}). The counts are exactly those of
 * the matching layer; special-token text (`<|endoftext|>`) is ordinary text.
 *
 * The encoding is loaded by the call (a dynamic import; with `js-tiktoken`,
 * its ranks are parsed once per process), so await it once at start-up and
 * reuse the function. Rejects with `ConfigError` (option `tokenizer`, the
 * same error as `layerByName`) for an unknown name, and with `ConfigError`
 * (option `engine`) for an unknown `engine`.
 *
 * @example
 * ```ts
 * import { RollingMemory } from "rollmem/promise"
 * import { loadTokenCounter } from "rollmem/tokenizers"
 *
 * const summarize = (summary: string, turns: ReadonlyArray<unknown>) => `${summary} +${turns.length} turns`.trim()
 * const count = await loadTokenCounter("gpt-4o")
 * count("Book me a flight to Rome") // 6
 * const memory = new RollingMemory({ maxTokens: 2000, summarize, tokenCounter: count })
 * const same = await loadTokenCounter("o200k_base", { engine: "js-tiktoken" }) // same counts
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const loadTokenCounter = (name: string, options?: LoadOptions): Promise<(text: string) => number> => {
  const engine = options?.engine ?? "gpt-tokenizer"
  if (!Object.hasOwn(loaders, engine)) {
    return Promise.reject(
      new ConfigError({
        option: "engine",
        description: `unknown engine "${String(engine)}": expected "gpt-tokenizer" or "js-tiktoken"`
      })
    )
  }
  return Either.match(resolveName(name), {
    onLeft: (error): Promise<Count> => Promise.reject(error),
    onRight: (selected) => selected === "words" ? Promise.resolve(TokenCounter.wordCount) : loaders[engine](selected)
  })
}
