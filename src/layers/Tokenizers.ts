/**
 * Model tokenizers as `TokenCounter` layers, for OpenAI, Anthropic (Claude)
 * and Google (Gemini) models: by encoding, by model name, or by a name given
 * on a command line.
 *
 * - OpenAI models count **exactly**, in their tiktoken encoding: `o200k_base`
 *   (GPT-4o, GPT-4.1, GPT-5, o-series) or `cl100k_base` (GPT-4, GPT-3.5,
 *   text-embedding-3).
 * - Claude and Gemini models count an **estimate**: `ai-tokenizer`'s Claude
 *   vocabulary (Claude) or `o200k_base` (Gemini), times the model's content
 *   multiplier (1.1 for Claude, 1.08 for most Gemini models), rounded. The
 *   package publishes 97.6–99.98% of the provider's own count for Claude
 *   models and 98.0–99.95% for Gemini 2.0/2.5/3 models (92.5% on ~500-token
 *   prompts for the `-preview-09-2025` Gemini models), measured on whole
 *   prompts of ~500, ~5,000 and ~50,000 tokens; rollmem has no provider
 *   count to measure it against, so the figure is the package's, not
 *   measured here.
 *
 * Three libraries count the OpenAI encodings with the same counts (proved
 * on every real message of the test data): `ai-tokenizer` (the default, the
 * fastest measured: see the bench's section 4), `gpt-tokenizer` and
 * `js-tiktoken` (for applications that already load one). Each is an
 * optional peer, loaded (a dynamic import) when a layer using it is first
 * built, so importing this module costs nothing.
 *
 * **Message framing.** A provider bills more than each message's text: the
 * role and the delimiters around it. With `{ framing: true }` a model layer
 * adds that overhead to each message's count (and to the summary's, which is
 * sent as a system message), so `bufferTokens` and a context's tokens are
 * what the provider bills for those messages: 4 tokens per message for
 * GPT-4o, GPT-4.1 and GPT-4 (OpenAI's documented 3, plus the role), 5 for
 * GPT-5 and o3/o4, 3 for Claude, 0 for Gemini (`ai-tokenizer`'s per-model
 * figures, see {@link modelTokenizer}). The fixed overhead of a request
 * (reply priming, tool definitions) is not a message's and is not counted.
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
 *   return yield* memory.bufferTokens // 6; 10 with layerModel("gpt-4o", { framing: true })
 * }).pipe(Effect.provide(layerModel("gpt-4o")))
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { countInPieces } from "../core/tokenPieces.js"
import { ConfigError } from "../Errors.js"
import { checkOptionKeys, describeValue } from "../internal/options.js"
import { fromFunctionLabelled } from "../services/internal/counting.js"
import * as TokenCounter from "../services/TokenCounter.js"

/**
 * The tiktoken encodings of OpenAI models: `o200k_base` (GPT-4o and later)
 * and `cl100k_base` (GPT-4, GPT-3.5, text-embedding-3).
 *
 * @since 0.1.0
 * @category models
 */
export type Encoding = "o200k_base" | "cl100k_base"

/**
 * The encodings accepted by {@link layerEncoding} and {@link layerByName}.
 *
 * @example
 * ```ts
 * import { encodings } from "rollmem/tokenizers"
 *
 * encodings // ["o200k_base", "cl100k_base"]
 * ```
 *
 * @since 0.1.0
 * @category constants
 */
export const encodings: ReadonlyArray<Encoding> = ["o200k_base", "cl100k_base"]

/**
 * Whether `name` is one of the shipped {@link encodings}.
 *
 * @example
 * ```ts
 * import { isEncoding, layerEncoding } from "rollmem/tokenizers"
 *
 * const name: string = process.env.ENCODING ?? "o200k_base"
 * const layer = isEncoding(name) ? layerEncoding(name) : undefined
 * ```
 *
 * @since 0.1.0
 * @category guards
 */
export const isEncoding = (name: string): name is Encoding => name === "o200k_base" || name === "cl100k_base"

const o200kModels = /^(?:gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4)(?:$|[-.])/
const cl100kModels =
  /^(?:gpt-4|gpt-4-turbo|gpt-3\.5-turbo|gpt-35-turbo|text-embedding-3-[a-z]+|text-embedding-ada-002)(?:$|-)/

/**
 * The encoding an OpenAI model name uses, case-insensitive: `gpt-4o`,
 * `gpt-4o-mini`, `gpt-4.1*`, `gpt-4.5*`, `gpt-5*`, `o1*`, `o3*`, `o4*` (dated
 * and suffixed variants included) use `o200k_base`; `gpt-4`, `gpt-4-turbo`,
 * `gpt-4-*`, `gpt-3.5-turbo*`, `text-embedding-3-*` and
 * `text-embedding-ada-002` use `cl100k_base`. `None` for any other name
 * (Claude and Gemini models included: see {@link modelTokenizer}).
 *
 * @example
 * ```ts
 * import { encodingForModel } from "rollmem/tokenizers"
 *
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

/**
 * The library that counts: `"ai-tokenizer"` (the default, the fastest
 * measured), `"gpt-tokenizer"` or `"js-tiktoken"` (for applications that
 * already load one). All three give the same counts for the OpenAI
 * encodings; Claude's vocabulary ships with `ai-tokenizer` only.
 *
 * @since 0.1.0
 * @category models
 */
export type Engine = "ai-tokenizer" | "gpt-tokenizer" | "js-tiktoken"

/**
 * The engines, the default ({@link defaultEngine}) first.
 *
 * @example
 * ```ts
 * import { engines } from "rollmem/tokenizers"
 *
 * engines // ["ai-tokenizer", "gpt-tokenizer", "js-tiktoken"]
 * ```
 *
 * @since 0.2.0
 * @category constants
 */
export const engines: ReadonlyArray<Engine> = ["ai-tokenizer", "gpt-tokenizer", "js-tiktoken"]

/**
 * The engine of {@link layerO200kBase}, {@link layerCl100kBase},
 * {@link layerModel}, {@link layerByName} and {@link loadTokenCounter} when
 * none is given: `"ai-tokenizer"`, the fastest exact counter measured on the
 * real data (bench section 4). When it is not installed, an OpenAI encoding
 * loads the next installed one of {@link engines} (the same counts, slower);
 * Claude models need it.
 *
 * @example
 * ```ts
 * import { defaultEngine } from "rollmem/tokenizers"
 *
 * defaultEngine // "ai-tokenizer": what layerEncoding uses without an engine
 * ```
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultEngine: Engine = "ai-tokenizer"

/**
 * The provider of a model: its counts follow that provider's tokenizer and
 * message framing.
 *
 * @since 0.2.0
 * @category models
 */
export type Provider = "openai" | "anthropic" | "google"

/**
 * How a model's tokens are counted (see {@link modelTokenizer}).
 *
 * @since 0.2.0
 * @category models
 */
export interface ModelTokenizer {
  /** The model family the name matched: `"gpt-4o"`, `"claude-sonnet-4-5"`, `"gemini-2.5-pro"`. */
  readonly family: string
  readonly provider: Provider
  /** The vocabulary counted in: an OpenAI encoding, or `"claude"` (`ai-tokenizer`'s Claude vocabulary). */
  readonly vocabulary: Encoding | "claude"
  /** `true` for OpenAI models (the provider's own encoding); `false` for Claude and Gemini (an estimate). */
  readonly exact: boolean
  /** The vocabulary's count is multiplied by this and rounded: 1 (OpenAI), 1.1 (Claude), 1.08 or 1.11 (Gemini). */
  readonly contentMultiplier: number
  /**
   * Tokens the provider adds to each message (role and delimiters), added
   * to each count with `{ framing: true }`: `ai-tokenizer`'s per-message
   * figure for the model plus one for the role name (`system`, `user`,
   * `assistant` and `tool` are one token in every vocabulary here); for an
   * OpenAI model `ai-tokenizer` does not list, OpenAI's documented 3 plus
   * the role (4; 5 for `gpt-5*`, `o3*` and `o4*`, as `ai-tokenizer` measured
   * for those).
   */
  readonly framingTokens: number
}

// ai-tokenizer 1.0.6's model table (`models` of "ai-tokenizer") for the three
// providers: family, provider, vocabulary, content multiplier, per-message
// tokens (without the role). Claude families are spelt as Anthropic's API
// spells them (dashes); a test checks every row against the package.
const modelTable: ReadonlyArray<readonly [string, Provider, Encoding | "claude", number, number]> = [
  ["gpt-4-turbo", "openai", "cl100k_base", 1, 3],
  ["gpt-4.1", "openai", "o200k_base", 1, 3],
  ["gpt-4.1-mini", "openai", "o200k_base", 1, 3],
  ["gpt-4o", "openai", "o200k_base", 1, 3],
  ["gpt-4o-mini", "openai", "o200k_base", 1, 3],
  ["gpt-5", "openai", "o200k_base", 1, 4],
  ["gpt-5-chat", "openai", "o200k_base", 1, 3],
  ["gpt-5-codex", "openai", "o200k_base", 1, 4],
  ["gpt-5-mini", "openai", "o200k_base", 1, 4],
  ["gpt-5-nano", "openai", "o200k_base", 1, 4],
  ["gpt-5-pro", "openai", "o200k_base", 1, 4],
  ["gpt-5.1-codex", "openai", "o200k_base", 1, 4],
  ["gpt-5.1-codex-mini", "openai", "o200k_base", 1, 4],
  ["gpt-5.1-instant", "openai", "o200k_base", 1, 4],
  ["gpt-5.1-thinking", "openai", "o200k_base", 1, 4],
  ["o1", "openai", "o200k_base", 1, 3],
  ["o3", "openai", "o200k_base", 1, 4],
  ["o3-mini", "openai", "o200k_base", 1, 3],
  ["o4-mini", "openai", "o200k_base", 1, 4],
  ["claude-3-haiku", "anthropic", "claude", 1.1, 2],
  ["claude-3-opus", "anthropic", "claude", 1.1, 2],
  ["claude-3-5-haiku", "anthropic", "claude", 1.1, 2],
  ["claude-3-5-sonnet", "anthropic", "claude", 1.1, 2],
  ["claude-3-5-sonnet-20240620", "anthropic", "claude", 1.1, 2],
  ["claude-3-7-sonnet", "anthropic", "claude", 1.1, 2],
  ["claude-haiku-4-5", "anthropic", "claude", 1.1, 2],
  ["claude-opus-4", "anthropic", "claude", 1.1, 2],
  ["claude-opus-4-1", "anthropic", "claude", 1.1, 2],
  ["claude-opus-4-5", "anthropic", "claude", 1.1, 2],
  ["claude-sonnet-4", "anthropic", "claude", 1.1, 2],
  ["claude-sonnet-4-5", "anthropic", "claude", 1.1, 2],
  ["gemini-2.0-flash", "google", "o200k_base", 1.08, -1],
  ["gemini-2.0-flash-lite", "google", "o200k_base", 1.08, -1],
  ["gemini-2.5-flash", "google", "o200k_base", 1.08, -1],
  ["gemini-2.5-flash-lite", "google", "o200k_base", 1.08, -1],
  ["gemini-2.5-flash-lite-preview-09-2025", "google", "o200k_base", 1.11, 0],
  ["gemini-2.5-flash-preview-09-2025", "google", "o200k_base", 1.11, 0],
  ["gemini-2.5-pro", "google", "o200k_base", 1.08, -1],
  ["gemini-3-pro-preview", "google", "o200k_base", 1.08, -1]
]

// One token for the role name, in every vocabulary here.
const ROLE_TOKENS = 1
// OpenAI's documented overhead of a message (`<|start|>{role}<|message|>...<|end|>`), role excluded.
const OPENAI_TOKENS_PER_MESSAGE = 3

const openAiFamilies = ["gpt-4", "gpt-4-*", "gpt-3.5-turbo*", "gpt-4.5*", "o1*", "text-embedding-3-*"]

/**
 * The model names {@link modelTokenizer} knows: each family also matches its
 * dated and suffixed variants (`gpt-4o-2024-08-06`, `claude-sonnet-4-5-20250929`,
 * `gemini-2.5-pro-preview-06-05`), and every `gpt-4o*`, `gpt-4.1*`,
 * `gpt-5*`, `o1*`, `o3*`, `o4*`, `gpt-4*` and `gpt-3.5-turbo*` name.
 *
 * @example
 * ```ts
 * import { models } from "rollmem/tokenizers"
 *
 * models.includes("gpt-4o") // true: a name layerModel knows
 * ```
 *
 * @since 0.2.0
 * @category constants
 */
export const models: ReadonlyArray<string> = [...modelTable.map(([family]) => family), ...openAiFamilies]

const providerPrefix = /^(?:openai|anthropic|google)\//

// Lower case, a gateway prefix (`anthropic/`) dropped, Claude's dotted spelling (`claude-sonnet-4.5`) dashed.
const normalize = (model: string): string => {
  const name = model.trim().toLowerCase().replace(providerPrefix, "")
  return name.startsWith("claude-") ? name.replaceAll(".", "-") : name
}

/**
 * How a model name counts: its provider, vocabulary, whether the count is
 * exact, the content multiplier and the framing tokens per message.
 * Case-insensitive; a family matches its dated and suffixed variants
 * (`claude-sonnet-4-5-20250929` is `claude-sonnet-4-5`), the longest family
 * winning (`gpt-4o-mini` before `gpt-4o`); a gateway prefix (`anthropic/`)
 * and Claude's dotted spelling (`claude-sonnet-4.5`) are accepted. `None`
 * for a name it does not know (see {@link models}).
 *
 * @example
 * ```ts
 * import { modelTokenizer } from "rollmem/tokenizers"
 *
 * modelTokenizer("claude-sonnet-4-5-20250929")
 * // Option.some({ family: "claude-sonnet-4-5", provider: "anthropic", vocabulary: "claude", exact: false,
 * //               contentMultiplier: 1.1, framingTokens: 3 })
 * modelTokenizer("gpt-4o") // ... vocabulary: "o200k_base", exact: true, contentMultiplier: 1, framingTokens: 4
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const modelTokenizer = (model: string): Option.Option<ModelTokenizer> => {
  const name = normalize(model)
  let row: (typeof modelTable)[number] | undefined
  for (const candidate of modelTable) {
    const family = candidate[0]
    if ((name === family || name.startsWith(`${family}-`)) && (row === undefined || family.length > row[0].length)) {
      row = candidate
    }
  }
  if (row !== undefined) {
    const [family, provider, vocabulary, contentMultiplier, perMessage] = row
    return Option.some({
      family,
      provider,
      vocabulary,
      exact: provider === "openai",
      contentMultiplier,
      framingTokens: perMessage + ROLE_TOKENS
    })
  }
  return Option.map(encodingForModel(name), (vocabulary) => ({
    family: name,
    provider: "openai",
    vocabulary,
    exact: true,
    contentMultiplier: 1,
    framingTokens: (/^(?:gpt-5|o3|o4)/.test(name) ? OPENAI_TOKENS_PER_MESSAGE + 1 : OPENAI_TOKENS_PER_MESSAGE) +
      ROLE_TOKENS
  }))
}

/** A plain counting function: tokens in one message's token text. */
type Count = (text: string) => number

type Vocabulary = Encoding | "claude"

// Special-token text is ordinary text: nothing disallowed, nothing allowed.
const gptTokenizerOptions = { disallowedSpecial: new Set<string>() }

// How to empty each loaded tokenizer's merge cache (see clearMergeCaches).
const cacheClearers = new Set<() => void>()

// The module import is cached by the runtime, so each encoding's ranks are
// parsed once per process.
const loadGptTokenizer = (encoding: Encoding): Promise<Count> =>
  (encoding === "o200k_base"
    ? import("gpt-tokenizer/encoding/o200k_base")
    : import("gpt-tokenizer/encoding/cl100k_base")).then(({ clearMergeCache, countTokens }) => {
      cacheClearers.add(clearMergeCache)
      return (text: string) => countTokens(text, gptTokenizerOptions)
    })

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

// One ai-tokenizer Tokenizer per vocabulary and process (its merge cache is
// bounded: 100,000 pieces).
const aiTokenizers: Partial<Record<Vocabulary, Promise<Count>>> = {}

const loadAiTokenizer = (vocabulary: Vocabulary): Promise<Count> => (aiTokenizers[vocabulary] ??= Promise.all([
  import("ai-tokenizer"),
  vocabulary === "o200k_base"
    ? import("ai-tokenizer/encoding/o200k_base")
    : vocabulary === "cl100k_base"
    ? import("ai-tokenizer/encoding/cl100k_base")
    : import("ai-tokenizer/encoding/claude")
]).then(([{ Tokenizer }, data]) => {
  // ai-tokenizer looks ranks up in a plain object, so a piece spelt like an
  // Object.prototype member (`toString`, `__proto__`, `valueOf`) would read
  // the inherited member and count as one token. Without a prototype the
  // object has only its ranks (the same object, nothing copied).
  if (Object.getPrototypeOf(data.stringEncoder) !== null) Object.setPrototypeOf(data.stringEncoder, null)
  // A new Tokenizer is an empty merge cache (building one takes microseconds).
  const current = { tokenizer: new Tokenizer(data) }
  cacheClearers.add(() => {
    current.tokenizer = new Tokenizer(data)
  })
  // With every special token allowed, ai-tokenizer encodes the text as
  // ordinary text (its `encodeOrdinary`): special-token text is ordinary text.
  return (text: string) => current.tokenizer.encode(text, "all").length
}))

/**
 * Empties the merge caches of the tokenizers loaded so far (`ai-tokenizer`'s
 * and `gpt-tokenizer`'s: the pieces of text each has already split), as in
 * a new process. Counts are unchanged; only the next counts' speed is. For
 * measurements (the bench clears them before every sample); a cache holds
 * at most 100,000 pieces, so an application has no need to.
 *
 * @example
 * ```ts
 * import { clearMergeCaches, loadTokenCounter } from "rollmem/tokenizers"
 *
 * const count = await loadTokenCounter("gpt-4o")
 * count("Book me a flight to Rome")
 * clearMergeCaches() // the next count is as slow as a first one, and the same
 * ```
 *
 * @since 0.2.0
 * @category utils
 */
export const clearMergeCaches = (): void => {
  for (const clear of cacheClearers) clear()
}

const installs: Record<Engine, string> = {
  "ai-tokenizer": "ai-tokenizer@1.0.6",
  "gpt-tokenizer": "gpt-tokenizer@4.0.0",
  "js-tiktoken": "js-tiktoken@1.0.21"
}

// A library that does not load (an optional peer not installed) is a
// ConfigError saying what to install, carrying the import's error.
const loadWith = <A>(engine: Engine, what: string, load: () => Promise<A>): Promise<A> =>
  load().catch((cause: unknown) =>
    Promise.reject(
      new ConfigError({
        option: "tokenizer",
        description: `${what} counts with ${engine}, which did not load (npm i ${installs[engine]}): ${String(cause)}`
      })
    )
  )

const loaders: Record<Engine, (encoding: Encoding) => Promise<Count>> = {
  "ai-tokenizer": (encoding) => loadWith("ai-tokenizer", encoding, () => loadAiTokenizer(encoding)),
  "gpt-tokenizer": (encoding) => loadWith("gpt-tokenizer", encoding, () => loadGptTokenizer(encoding)),
  "js-tiktoken": (encoding) => loadWith("js-tiktoken", encoding, () => loadJsTiktoken(encoding))
}

// The default engine: the first of `engines` that loads; when none does, the
// default's error, naming all three.
const loadInstalled = (encoding: Encoding): Promise<Count> =>
  engines.slice(1).reduce(
    (loaded, engine) => loaded.catch(() => loaders[engine](encoding)),
    loaders[engines[0]](encoding)
  ).catch(() =>
    Promise.reject(
      new ConfigError({
        option: "tokenizer",
        description: `no library for ${encoding} is installed: npm i ${installs["ai-tokenizer"]} ` +
          `(or ${installs["gpt-tokenizer"]}, ${installs["js-tiktoken"]})`
      })
    )
  )

// What a counter counts: a vocabulary through an engine (undefined: the
// first installed), times a multiplier (rounded), plus framing tokens per message.
interface Spec {
  readonly engine: Engine | undefined
  readonly vocabulary: Vocabulary
  readonly contentMultiplier: number
  readonly framingTokens: number
}

const loadSpec = (spec: Spec): Promise<Count> => {
  const base = (spec.vocabulary === "claude"
    ? loadWith("ai-tokenizer", "Claude's vocabulary", () => loadAiTokenizer("claude"))
    : spec.engine === undefined
    ? loadInstalled(spec.vocabulary)
    : loaders[spec.engine](spec.vocabulary)).then((whole) => (text: string) => countInPieces(whole, text))
  const { contentMultiplier, framingTokens } = spec
  if (contentMultiplier === 1 && framingTokens === 0) return base
  if (contentMultiplier === 1) return base.then((count) => (text: string) => count(text) + framingTokens)
  return base.then((count) => (text: string) => Math.round(count(text) * contentMultiplier) + framingTokens)
}

const keyOf = (spec: Spec): string =>
  `${spec.engine ?? "installed"} ${spec.vocabulary} ${spec.contentMultiplier} ${spec.framingTokens}`

// Layers by spec, built once per spec, so equal specs give the same layer value (layers memoize by reference).
const layers = new Map<string, Layer.Layer<TokenCounter.TokenCounter, ConfigError>>()

// A layer loading `spec` when first built, failing with the ConfigError of a
// library that does not load; a throw of the counting function becomes a
// TokenCountError labelled with the vocabulary.
const layerOf = (spec: Spec): Layer.Layer<TokenCounter.TokenCounter, ConfigError> => {
  const key = keyOf(spec)
  let layer = layers.get(key)
  if (layer === undefined) {
    layer = Layer.effect(
      TokenCounter.TokenCounter,
      Effect.map(
        Effect.tryPromise({
          try: () => loadSpec(spec),
          catch: (cause) =>
            cause instanceof ConfigError ? cause : new ConfigError({ option: "tokenizer", description: String(cause) })
        }),
        (count) => fromFunctionLabelled(spec.vocabulary, count)
      )
    )
    layers.set(key, layer)
  }
  return layer
}

const encodingSpec = (encoding: Encoding, engine: Engine | undefined): Spec => ({
  engine,
  vocabulary: encoding,
  contentMultiplier: 1,
  framingTokens: 0
})

/**
 * The `o200k_base` encoding (GPT-4o, GPT-4.1, GPT-5, o-series) through
 * `ai-tokenizer` (the {@link defaultEngine}; the next installed engine when
 * it is not), loaded when the layer is first built. Exact: the same counts
 * as `gpt-tokenizer` and `js-tiktoken`. When no engine is installed, building
 * the layer fails with `ConfigError` (option `tokenizer`) saying what to
 * install: `Effect.catchTag("ConfigError", ...)` handles it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message, RollingMemory, Summarizer } from "rollmem"
 * import { layerO200kBase } from "rollmem/tokenizers"
 *
 * const program = Effect.gen(function*() {
 *   const memory = yield* RollingMemory.make({ maxTokens: 8000 })
 *   yield* memory.add(Message.user("Book me a flight to Rome"))
 *   return yield* memory.bufferTokens // o200k_base tokens (GPT-4o, GPT-4.1, GPT-5)
 * }).pipe(Effect.provide(layerO200kBase), Effect.provide(Summarizer.layerDrop))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerO200kBase: Layer.Layer<TokenCounter.TokenCounter, ConfigError> = layerOf(
  encodingSpec("o200k_base", undefined)
)

/**
 * The `cl100k_base` encoding (GPT-4, GPT-4-turbo, GPT-3.5-turbo,
 * text-embedding-3) through `ai-tokenizer` (the {@link defaultEngine}; the
 * next installed engine when it is not), loaded when the layer is first
 * built, as {@link layerO200kBase}.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { RollingMemory, Summarizer } from "rollmem"
 * import { layerCl100kBase } from "rollmem/tokenizers"
 *
 * // GPT-4 and GPT-3.5's encoding
 * const program = RollingMemory.make({ maxTokens: 8000 }).pipe(Effect.provide(layerCl100kBase), Effect.provide(Summarizer.layerDrop))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerCl100kBase: Layer.Layer<TokenCounter.TokenCounter, ConfigError> = layerOf(
  encodingSpec("cl100k_base", undefined)
)

/**
 * An encoding through an engine (default: the first installed of
 * {@link engines}): without one, {@link layerO200kBase} or
 * {@link layerCl100kBase}. Each (encoding, engine) pair gives the same layer
 * value on every call, so it memoizes. An engine that is not installed fails
 * the layer with `ConfigError` (option `tokenizer`) when it is built.
 *
 * @example
 * ```ts
 * import { layerEncoding } from "rollmem/tokenizers"
 *
 * layerEncoding("o200k_base") // layerO200kBase
 * layerEncoding("o200k_base", "gpt-tokenizer") // the same counts through gpt-tokenizer
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerEncoding = (
  encoding: Encoding,
  engine?: Engine
): Layer.Layer<TokenCounter.TokenCounter, ConfigError> => layerOf(encodingSpec(encoding, engine))

/**
 * An encoding through `js-tiktoken`, for applications that already load it.
 * Same counts, slower. The encoder is built once per process, when a layer
 * is first built; `ConfigError` when `js-tiktoken` is not installed. Same as
 * `layerEncoding(encoding, "js-tiktoken")`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { RollingMemory, Summarizer } from "rollmem"
 * import { layerJsTiktoken } from "rollmem/tokenizers"
 *
 * // the same counts through js-tiktoken (npm i js-tiktoken@1.0.21)
 * const program = RollingMemory.make().pipe(Effect.provide(layerJsTiktoken("o200k_base")), Effect.provide(Summarizer.layerDrop))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerJsTiktoken = (encoding: Encoding): Layer.Layer<TokenCounter.TokenCounter, ConfigError> =>
  layerEncoding(encoding, "js-tiktoken")

/**
 * An encoding through `gpt-tokenizer`, for applications that already load
 * it. Same counts; `ConfigError` when `gpt-tokenizer` is not installed. Same
 * as `layerEncoding(encoding, "gpt-tokenizer")`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { RollingMemory, Summarizer } from "rollmem"
 * import { layerGptTokenizer } from "rollmem/tokenizers"
 *
 * // the same counts through gpt-tokenizer (npm i gpt-tokenizer@4.0.0)
 * const program = RollingMemory.make().pipe(Effect.provide(layerGptTokenizer("o200k_base")), Effect.provide(Summarizer.layerDrop))
 * ```
 *
 * @since 0.2.0
 * @category layers
 */
export const layerGptTokenizer = (encoding: Encoding): Layer.Layer<TokenCounter.TokenCounter, ConfigError> =>
  layerEncoding(encoding, "gpt-tokenizer")

/**
 * Options of {@link layerModel}, {@link layerByName} and
 * {@link loadTokenCounter}.
 *
 * @since 0.1.0
 * @category models
 */
export interface LoadOptions {
  /**
   * The library that counts; default {@link defaultEngine} (the next
   * installed engine when it is not installed). Claude models count with
   * `"ai-tokenizer"` only.
   */
  readonly engine?: Engine | undefined
  /**
   * Add the provider's per-message overhead (role and delimiters, see
   * {@link ModelTokenizer.framingTokens}) to each count, so counts are
   * billed tokens; default `false` (the text's tokens only). Needs a model
   * name: an encoding alone does not say whose framing.
   */
  readonly framing?: boolean | undefined
}

const optionKeys: ReadonlyArray<string> = ["engine", "framing"]

// The options, checked: an object of known keys with values of the right type.
const checkOptions = (
  options: unknown
): Either.Either<{ engine: Engine | undefined; framing: boolean }, ConfigError> => {
  if (options === undefined) return Either.right({ engine: undefined, framing: false })
  const invalid = checkOptionKeys(options, optionKeys)
  if (invalid !== undefined) return Either.left(invalid)
  const { engine, framing } = options as { readonly engine?: unknown; readonly framing?: unknown }
  if (engine !== undefined && !(typeof engine === "string" && (engines as ReadonlyArray<string>).includes(engine))) {
    return Either.left(
      new ConfigError({
        option: "engine",
        description: `unknown engine ${describeValue(engine)}: expected ${engines.map((e) => `"${e}"`).join(", ")}`
      })
    )
  }
  if (framing !== undefined && typeof framing !== "boolean") {
    return Either.left(
      new ConfigError({ option: "framing", description: `expected true or false, got ${describeValue(framing)}` })
    )
  }
  return Either.right({ engine: engine as Engine | undefined, framing: framing === true })
}

const knownNames = `"words", "o200k_base", "cl100k_base" or a model name (${models.join(", ")})`

// What a tokenizer name selects (the word counter or a spec), or the error
// layerModel, layerByName and loadTokenCounter fail with: one place decides all.
const resolve = (
  name: unknown,
  options: unknown,
  nameOption: "tokenizer" | "model"
): Either.Either<"words" | Spec, ConfigError> =>
  Either.flatMap(checkOptions(options), ({ engine, framing }): Either.Either<"words" | Spec, ConfigError> => {
    const isText = typeof name === "string"
    if (nameOption === "tokenizer" && isText && (name === "words" || isEncoding(name))) {
      if (framing) {
        return Either.left(
          new ConfigError({
            option: "framing",
            description: `framing needs a model name (whose framing?), got "${name}"`
          })
        )
      }
      return Either.right(name === "words" ? "words" : encodingSpec(name, engine))
    }
    const model = isText ? modelTokenizer(name) : Option.none()
    if (Option.isNone(model)) {
      return Either.left(
        new ConfigError({
          option: nameOption,
          description: `unknown ${nameOption} ${describeValue(name)}: expected ${
            nameOption === "tokenizer" ? knownNames : `a model name (${models.join(", ")})`
          }`
        })
      )
    }
    const { contentMultiplier, framingTokens, vocabulary } = model.value
    if (vocabulary === "claude" && engine !== undefined && engine !== "ai-tokenizer") {
      return Either.left(
        new ConfigError({
          option: "engine",
          description: `"${String(name)}" counts with "ai-tokenizer" only (Claude's vocabulary ships there), ` +
            `not "${engine}"`
        })
      )
    }
    return Either.right({
      engine: vocabulary === "claude" ? "ai-tokenizer" : engine,
      vocabulary,
      contentMultiplier,
      framingTokens: framing ? framingTokens : 0
    })
  })

/**
 * A model's counter (see {@link modelTokenizer}): exact for OpenAI models,
 * an estimate for Claude and Gemini models; with `{ framing: true }`, each
 * count includes the provider's per-message overhead. Fails with
 * `ConfigError` (option `model`) for a model it does not know, listing the
 * known ones, and for bad options (`engine`, `framing`, an unknown key);
 * with `ConfigError` (option `tokenizer`) when built if its library is not
 * installed, saying what to install.
 *
 * @example
 * ```ts
 * import { layerModel } from "rollmem/tokenizers"
 *
 * layerModel("gpt-4.1-mini") // the o200k_base layer
 * layerModel("gpt-3.5-turbo") // the cl100k_base layer
 * layerModel("claude-sonnet-4-5") // Claude's vocabulary × 1.1 (an estimate)
 * layerModel("gemini-2.5-pro", { framing: true }) // o200k_base × 1.08, + 0 per message (an estimate)
 * layerModel("gpt-4o", { framing: true }) // o200k_base + 4 per message: billed tokens
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerModel = (model: string, options?: LoadOptions): Layer.Layer<TokenCounter.TokenCounter, ConfigError> =>
  Either.match(resolve(model, options, "model"), {
    onLeft: (error) => Layer.fail(error),
    onRight: (spec) => spec === "words" ? TokenCounter.layerWordCount : layerOf(spec)
  })

/**
 * A counter by name, as given on a command line: `"words"` (the word counter,
 * the default of `TokenCounter`), an encoding (`"o200k_base"`,
 * `"cl100k_base"`), or a model name of any of the three providers
 * (`"gpt-4o"`, `"claude-sonnet-4-5"`, `"gemini-2.5-pro"`, see
 * {@link layerModel}). Fails with `ConfigError` (option `tokenizer`) for any
 * other name, listing the known ones, for bad options, and, when built,
 * if its library is not installed (saying what to install).
 *
 * @example
 * ```ts
 * import { layerByName } from "rollmem/tokenizers"
 *
 * layerByName("words") // the word counter
 * layerByName("cl100k_base") // an encoding
 * layerByName("claude-sonnet-4-5") // a model's counter
 * layerByName("llama") // fails with ConfigError (option tokenizer), listing the known names
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerByName = (
  name: string,
  options?: LoadOptions
): Layer.Layer<TokenCounter.TokenCounter, ConfigError> =>
  Either.match(resolve(name, options, "tokenizer"), {
    onLeft: (error) => Layer.fail(error),
    onRight: (spec) => spec === "words" ? TokenCounter.layerWordCount : layerOf(spec)
  })

/**
 * Loads a counter by name for the Promise facade: resolves to a plain
 * `(text) => number` that counts the tokens of one message's token text,
 * to pass as `tokenCounter` to `RollingMemory` or `AsyncRollingMemory` of
 * `rollmem/promise`. Accepts the names and options of {@link layerByName}:
 * `"words"` (the word count), `"o200k_base"`, `"cl100k_base"`, or a model
 * name such as `"gpt-4o"`, `"claude-sonnet-4-5"` or `"gemini-2.5-pro"`
 * (see {@link modelTokenizer}). The counts are exactly those of the matching
 * layer; special-token text (`<|endoftext|>`) is ordinary text.
 *
 * The vocabulary is loaded by the call (a dynamic import, once per
 * process), so await it once at start-up and reuse the function. Rejects
 * with `ConfigError` (option `tokenizer`, the same error as `layerByName`)
 * for an unknown name or a library that is not installed, and with
 * `ConfigError` (option `engine`, `framing` or the unknown key) for bad
 * options.
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
 * const billed = await loadTokenCounter("gpt-4o", { framing: true }) // billed("Book me a flight to Rome") === 10
 * const claude = await loadTokenCounter("claude-sonnet-4-5") // an estimate
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const loadTokenCounter = (name: string, options?: LoadOptions): Promise<(text: string) => number> =>
  Either.match(resolve(name, options, "tokenizer"), {
    onLeft: (error): Promise<Count> => Promise.reject(error),
    onRight: (spec) => spec === "words" ? Promise.resolve(TokenCounter.wordCount) : loadSpec(spec)
  })
