/**
 * The replay behind `rollmem replay`: every message of a conversation is
 * added in order to a fresh memory of the chosen strategy, and the figures
 * of {@link Figures} are read back from the memory itself.
 *
 * Summarizer calls and evicted messages are counted by wrapping the
 * `Summarizer` service the memory is given; without a summarizer, evictions
 * are the drop in buffer length across each add.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Equal from "effect/Equal"
import * as Stream from "effect/Stream"
import * as Retention from "../core/artifacts.js"
import * as Rules from "../core/options.js"
import * as Usage from "../core/usage.js"
import { type AddError, ConfigError, SummarizerError, type TokenCountError } from "../Errors.js"
import * as ExtractiveSummarizer from "../layers/ExtractiveSummarizer.js"
import * as Message from "../schema/Message.js"
import * as Flags from "../schema/Options.js"
import * as Summarizer from "../services/Summarizer.js"
import * as TokenCounter from "../services/TokenCounter.js"
import * as Memory from "../strategies/Memory.js"
import * as Validity from "../Validity.js"
import type { Conversation } from "./Input.js"
import * as Measure from "./Measure.js"
import * as StrategyOptions from "./StrategyOptions.js"

/**
 * The strategies `replay` can run.
 *
 * @since 0.1.0
 * @category models
 */
export type Strategy = Memory.Memory["strategy"]

/**
 * The strategies, in the order the help lists them.
 *
 * @since 0.1.0
 * @category constants
 */
export const strategies: ReadonlyArray<Strategy> = ["rolling", "buffer", "window", "summary"]

/**
 * The summarizers the command line offers: the embedded extractive one, or
 * none (evicted turns are dropped).
 *
 * @since 0.1.0
 * @category models
 */
export type SummarizerChoice = "extractive" | "none"

/**
 * The summarizer choices.
 *
 * @since 0.1.0
 * @category constants
 */
export const summarizers: ReadonlyArray<SummarizerChoice> = ["extractive", "none"]

/**
 * The options of a replay as given on the command line, before checking:
 * the strategy, the summarizer, and the value of each memory option's flag
 * given (a row of `Options.flags`) under the flag's name in camelCase
 * ({@link keyOf}: `maxTokens`, `maxSummaryTokens`, `clearUntil`): a number
 * (`integer`), a string (`choice`) or a boolean (`flag`). A flag not given
 * is absent: {@link makeConfig} applies its default.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly strategy: string
  readonly summarizer: string
  /** The target whose rules check each request point's context (`--provider`); undefined: the default rules. */
  readonly provider?: Validity.Provider | undefined
  /**
   * The options given explicitly, by name without dashes (`max-tokens`):
   * each must be one the strategy takes (`StrategyOptions.ts`), those left
   * to their defaults are not checked. Default: none.
   */
  readonly given?: ReadonlyArray<string> | undefined
  readonly [flag: string]: unknown
}

/**
 * The key of a flag's value in {@link Options}: its name in camelCase
 * (`max-summary-tokens`: `maxSummaryTokens`).
 *
 * @since 0.4.0
 * @category combinators
 */
export const keyOf = (row: Flags.Flag): string => row.flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())

/**
 * A checked replay configuration.
 *
 * @since 0.1.0
 * @category models
 */
export interface Config {
  readonly strategy: Strategy
  /** The token budget of the buffer: `--max-tokens`, or `--context-window` less `--reserve`. */
  readonly maxTokens: number
  readonly maxMessages: number
  /** The summary budget (tokens): the extractive summarizer's, and the bound of a context at a request point. */
  readonly summaryTokens: number
  /**
   * The options of the strategy's memory (`Memory.make`), decoded: every
   * flag's value or default, those the strategy takes (the summary budget
   * and the ledger only with a summarizer).
   */
  readonly memory: Memory.Options
  /**
   * The summarizer given to a rolling or summary memory (buffer and window
   * memories never get one); none: a rolling memory drops evicted turns.
   */
  readonly summarizer: Summarizer.Service | undefined
  /** The target whose rules check each request point's context (`Validity`); undefined: the default rules. */
  readonly provider?: Validity.Provider | undefined
}

/**
 * The options of the configured strategy's memory (`Memory.make`).
 *
 * @since 0.2.0
 * @category combinators
 */
export const memoryOptions = (config: Config): Memory.Options => config.memory

/**
 * The value of `option` (a path: `clearToolResults.keep`) in memory
 * options, if any.
 *
 * @since 0.4.0
 * @category combinators
 */
export const valueAt = (options: { readonly [key: string]: unknown }, option: string): unknown => {
  const [top, member] = option.split(".")
  const value = options[top]
  return member === undefined
    ? value
    : typeof value === "object" && value !== null
    ? (value as { readonly [key: string]: unknown })[member]
    : undefined
}

/**
 * What one conversation's replay gives. Token figures are in the units of
 * the `TokenCounter` in context, summed per message as the memory counts.
 * The request-point, summarizer-token and cost figures are those of
 * `Measure.Sums` and `Measure.Derived` (see `Measure.ts` for their
 * definitions).
 *
 * @since 0.1.0
 * @category models
 */
export interface Figures extends Measure.Sums, Measure.Derived {
  readonly id: string
  /** Messages added. */
  readonly messages: number
  /** Adds after which something was evicted or folded into the summary. */
  readonly prunes: number
  /** Summarizer calls made. */
  readonly summarizerCalls: number
  /**
   * Of those, the consolidations of summary segments (`request.mode:
   * "consolidate"`, docs/contract.md section 10.9); 0 with the single summary.
   */
  readonly consolidations: number
  /** Messages removed from the buffer (folded or dropped). */
  readonly evictedMessages: number
  /** The largest buffer after an add's prune: what a model would have been sent at most. */
  readonly peakBufferTokens: number
  /** The buffer at the end. */
  readonly finalBufferTokens: number
  /** The final summary, counted with the same counter (0 when empty). */
  readonly summaryTokens: number
  /** `summaryTokens + finalBufferTokens`. */
  readonly contextTokens: number
  /** Whether the first non-system message of the final context is a user turn; null when there is none. */
  readonly opensOnUserTurn: boolean | null
  /**
   * Retention at the last request point (docs/contract.md section 14): the
   * distinct artifacts named so far and those the context still names, in
   * all and per kind.
   */
  readonly artifacts: Retention.Figure
  /** `artifacts.kept / artifacts.named` (1 when nothing was named). */
  readonly retention: number
  /**
   * Assistant messages that carried the provider's usage (docs/contract.md
   * section 16.4, `Usage.reportedInputTokens`): each recorded with
   * `recordUsage` before the message was added.
   */
  readonly usageSamples: number
  /**
   * The memory's usage ratio after the last add (the provider's count of
   * the context over the memory's own); `null` when no message carried
   * usage. In the totals: the mean over the conversations that have one.
   */
  readonly usageRatio: number | null
}

/**
 * Totals over every conversation: sums, except `peakBufferTokens` and
 * `maxRequestTokens` (the maxima), `opensOnUserTurn` (how many conversations
 * open on a user turn) and the derived figures (computed from the sums:
 * `prefixReuse` is reused over sent tokens of every request point;
 * `artifacts` sums every conversation's last request point, all sessions
 * taken together, and `retention` is its ratio); `conversations` counts them.
 *
 * @since 0.1.0
 * @category models
 */
export type Totals = Omit<Figures, "id" | "opensOnUserTurn"> & {
  readonly conversations: number
  /** How many conversations open on a user turn. */
  readonly opensOnUserTurn: number
}

/**
 * The report of a replay: one {@link Figures} per conversation, in input
 * order, and the {@link Totals}.
 *
 * @since 0.1.0
 * @category models
 */
export interface Report {
  readonly conversations: ReadonlyArray<Figures>
  readonly totals: Totals
}

/**
 * One conversation's final context: what `memory.messages` and
 * `memory.context` return after the last add.
 *
 * @since 0.1.0
 * @category models
 */
export interface FinalContext {
  readonly id: string
  readonly messages: ReadonlyArray<Message.Message>
  readonly context: string
  /** The summary alone (`""` when none). */
  readonly summary: string
  /** The buffer alone: the recent turns, verbatim. */
  readonly buffer: ReadonlyArray<Message.Message>
  /** The position of the summary message in `messages`; -1 when the summary is empty. */
  readonly summaryIndex: number
}

/**
 * The outcome of {@link replay}: the report, and the final context of the
 * conversation asked for with `show`, if any.
 *
 * @since 0.1.0
 * @category models
 */
export interface Outcome {
  readonly report: Report
  readonly shown: FinalContext | undefined
  /** One timeline per conversation, in input order (what an HTML report plots). */
  readonly timelines: ReadonlyArray<Measure.Timeline>
  /** Every conversation's final context, in input order, when asked for with `finals: true`; else empty. */
  readonly finals: ReadonlyArray<FinalContext>
}

const oneOf = <A extends string>(
  option: string,
  choices: ReadonlyArray<A>,
  value: unknown
): Effect.Effect<A, ConfigError> =>
  (choices as ReadonlyArray<unknown>).includes(value)
    ? Effect.succeed(value as A)
    : Effect.fail(
      new ConfigError({ option, description: `unknown value "${value}", expected one of ${choices.join(", ")}` })
    )

/** Every memory option any strategy takes, checked value by value (no cross-field rule). */
const everyValue = Flags.struct(
  { ...Flags.rollingFields, ...Flags.windowFields, ...Flags.bufferFields, ...Flags.summaryFields },
  undefined
)

/** The first flag of a member's object (`clear-tool-results` for `clear-until`); a top-level option's own. */
const mainOf = (row: Flags.Flag): Flags.Flag => {
  const dot = row.option.indexOf(".")
  return dot < 0 ? row : Flags.flags.find((r) => r.option.startsWith(row.option.slice(0, dot + 1)))!
}

/** A refusal of the schemas, named as the command line names options (`--target-tokens`). */
const asFlag = (error: ConfigError) =>
  new ConfigError({ option: `--${error.option.replace(/^-+/, "")}`, description: error.description })

/**
 * Checks command-line options and builds the summarizer (counting with the
 * `TokenCounter` in context). Each memory option's flag is a row of
 * `Options.flags`, checked by the options schemas' rules. Fails with
 * `ConfigError` naming the option: an unknown strategy, summarizer or
 * choice, a value the option's rule refuses (every value is checked,
 * whatever the strategy: `--max-tokens: must be a positive integer, got
 * 0`), then an option of `options.given` the strategy does not take
 * (`StrategyOptions.check`), a member of an object option without the flag
 * of its first member (`--clear-until` needs `--clear-tool-results`),
 * `--strategy summary` with `--summarizer none`, a summary budget given with
 * `--summarizer none` (it would bound nothing), or a rule across options
 * (`--target-tokens: must be at most --max-tokens (500), got 600`). No
 * memory is built.
 *
 * `dashes` is how the descriptions write option names: `"--"`
 * (`--max-tokens`) by default, `""` (`max-tokens`) for a `--compare` set.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeConfig = (
  options: Options,
  dashes: "--" | "" = "--"
): Effect.Effect<Config, ConfigError, TokenCounter.TokenCounter> =>
  Effect.gen(function*() {
    const flag = (name: string) => `${dashes}${name}`
    const name: Rules.Naming = (option) => flag(Flags.flagOf(option))
    const strategy = yield* oneOf("--strategy", strategies, options.strategy)
    const summarizer = yield* oneOf("--summarizer", summarizers, options.summarizer)
    const given = options.given ?? []
    // Every flag's value, or its default (a member's only beside its object's first member), nested as
    // the memory takes them; a choice as the command line words a wrong one (a set's values are unparsed).
    const values: Record<string, unknown> = {}
    for (const row of Flags.flags) {
      const [top, member] = row.option.split(".")
      let value = options[keyOf(row)]
      if (value !== undefined && row.kind === "choice") yield* oneOf(`--${row.flag}`, row.choices ?? [], value)
      if (member === undefined) {
        value ??= row.default ?? (row.kind === "flag" ? false : undefined)
        if (value !== undefined) values[top] = value
      } else if (options[keyOf(mainOf(row))] !== undefined) {
        value ??= row.default
        if (value !== undefined) values[top] = { ...(values[top] as object | undefined), [member]: value }
      }
    }
    yield* Either.mapLeft(Flags.decode(everyValue, values, { name }), asFlag)
    const refused = StrategyOptions.check(strategy, given, dashes)
    if (refused !== undefined) return yield* refused
    for (const row of Flags.flags) {
      const main = mainOf(row)
      if (main !== row && given.includes(row.flag) && options[keyOf(main)] === undefined) {
        return yield* new ConfigError({
          option: `--${row.flag}`,
          description: `needs ${flag(main.flag)}${row.needs === undefined ? "" : ` (${row.needs})`}`
        })
      }
    }
    if (strategy === "summary" && summarizer === "none") {
      return yield* new ConfigError({
        option: "--summarizer",
        description: "the summary strategy folds every turn into the summary, it needs a summarizer (extractive)"
      })
    }
    const summaryBudget = Flags.flags.find((row) => row.option === "maxSummaryTokens")!
    const budgetGiven = given.find((n) => n === summaryBudget.flag || summaryBudget.aliases?.includes(n) === true)
    const ledgerFlag = Flags.flags.find((row) => row.option === "ledger.maxTokens")!
    if (summarizer === "none" && given.includes(ledgerFlag.flag) && usesSummarizer(strategy)) {
      return yield* new ConfigError({
        option: flag(ledgerFlag.flag),
        description: `keeps a ledger at the end of the summary: with ${flag("summarizer")} none there is no summary`
      })
    }
    if (summarizer === "none" && budgetGiven !== undefined) {
      return yield* new ConfigError({
        option: `--${budgetGiven}`,
        description: `bounds the summarizer's summary: with ${flag("summarizer")} none there is no summary to bound`
      })
    }
    // The memory's options: those the strategy takes; the summary's (its budget, the ledger) with a summarizer.
    const memory: Record<string, unknown> = { strategy }
    for (const key of Memory.optionKeys[strategy]) {
      if (summarizer === "none" && (key === "maxSummaryTokens" || key === "ledger")) continue
      if (values[key] !== undefined) memory[key] = values[key]
    }
    const checked = yield* Either.mapLeft(Flags.decodeStrategy<Memory.Options>(memory, undefined, name), asFlag)
    const window = values.contextWindow as { readonly tokens: number; readonly reserveTokens: number } | undefined
    const summaryTokens = values.maxSummaryTokens as number
    return {
      strategy,
      maxTokens: window === undefined
        ? (values.maxTokens as number | undefined) ?? Rules.DEFAULT_MAX_TOKENS
        : window.tokens - window.reserveTokens,
      maxMessages: values.maxMessages as number,
      summaryTokens,
      memory: checked,
      provider: options.provider === undefined
        ? undefined
        : yield* oneOf("--provider", Validity.providers, options.provider),
      summarizer: summarizer === "none" || !usesSummarizer(strategy)
        ? undefined
        : yield* ExtractiveSummarizer.make({ maxTokens: summaryTokens }).pipe(
          Effect.mapError((error) =>
            new ConfigError({ option: "--max-summary-tokens", description: error.description })
          )
        )
    }
  })

/** Whether a strategy folds evicted turns with a summarizer (buffer and window never do). */
const usesSummarizer = (strategy: Strategy): boolean => strategy === "rolling" || strategy === "summary"

const makeMemory = (
  config: Config,
  summarizer: Summarizer.Service | undefined
): Effect.Effect<Memory.Memory, ConfigError> =>
  config.strategy === "summary" && summarizer === undefined
    ? Effect.fail(new ConfigError({ option: "--summarizer", description: "the summary strategy needs a summarizer" }))
    : withSummarizer(Memory.make(config.memory), summarizer)

/**
 * Hands a conversation's memory to `use` and returns what `use` returns:
 * {@link fresh} builds a new memory per conversation; the `--store` option
 * of the command line opens the stored one instead (replacing its state, see
 * `Store.ts`). `summarizer` is the one the memory must use (undefined: none,
 * evicted turns are dropped). `E` and `R` are what opening adds.
 *
 * @since 0.1.0
 * @category models
 */
export type Open<E, R> = <A, E1>(
  id: string,
  config: Config,
  summarizer: Summarizer.Service | undefined,
  use: (memory: Memory.Memory) => Effect.Effect<A, E1, TokenCounter.TokenCounter>
) => Effect.Effect<A, E1 | E | ConfigError, R | TokenCounter.TokenCounter>

/**
 * A new memory of the configured strategy per conversation, kept nowhere.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fresh: Open<never, never> = (_id, config, summarizer, use) =>
  Effect.flatMap(makeMemory(config, summarizer), use)

/**
 * Runs `effect` with `summarizer` as the `Summarizer` service, or with
 * `Summarizer.drop` when it is undefined (`--summarizer none`: evicted turns
 * are dropped, on purpose).
 *
 * @since 0.1.0
 * @category combinators
 */
export const withSummarizer = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  summarizer: Summarizer.Service | undefined
): Effect.Effect<A, E, Exclude<R, Summarizer.Summarizer>> =>
  Effect.provideService(effect, Summarizer.Summarizer, summarizer ?? Summarizer.drop)

/**
 * Whether the first non-system message of `messages` is a user turn;
 * `null` when every message is a system message (or there is none).
 *
 * @since 0.1.0
 * @category combinators
 */
export const opensOnUserTurn = (messages: ReadonlyArray<Message.Message>): boolean | null => {
  const first = messages.find((message) => message.role !== Message.SYSTEM)
  return first === undefined ? null : first.role === Message.USER
}

/**
 * Counts messages with the replay's token counter, each message object once
 * (and each distinct text once: the summary message read back is a new
 * object at every read).
 */
interface MessageCounter {
  readonly count: (message: Message.Message) => Effect.Effect<number, TokenCountError>
  readonly countText: (text: string) => Effect.Effect<number, TokenCountError>
}

const makeMessageCounter = (counter: TokenCounter.Service): MessageCounter => {
  const byMessage = new WeakMap<Message.Message, number>()
  const byText = new Map<string, number>()
  const countText = (text: string): Effect.Effect<number, TokenCountError> => {
    const known = byText.get(text)
    return known !== undefined
      ? Effect.succeed(known)
      : Effect.map(TokenCounter.countText(counter, text), (n) => {
        byText.set(text, n)
        return n
      })
  }
  return {
    countText,
    count: (message) => {
      const known = byMessage.get(message)
      return known !== undefined ? Effect.succeed(known) : Effect.map(countText(message.tokenText), (n) => {
        byMessage.set(message, n)
        return n
      })
    }
  }
}

const countAll = (
  counter: MessageCounter,
  messages: ReadonlyArray<Message.Message>
): Effect.Effect<Array<number>, TokenCountError> =>
  Effect.gen(function*() {
    const out: Array<number> = []
    for (const message of messages) out.push(yield* counter.count(message))
    return out
  })

/**
 * What one conversation's replay gives: its figures, its final context and
 * its timeline (every add, fold and request point, see `Measure.Timeline`).
 *
 * @since 0.2.0
 * @category models
 */
export interface ConversationResult {
  readonly figures: Figures
  readonly final: FinalContext
  readonly timeline: Measure.Timeline
}

/**
 * Replays one conversation into an empty memory (a fresh one, or the one
 * `open` gives) and returns its figures, final context and timeline. Fails
 * with what an add fails with (`TokenCountError`, `SummarizerError`),
 * `ConfigError` for a configuration {@link makeConfig} would refuse, or what
 * `open` fails with. `onMessage` runs after every add.
 *
 * Before each assistant turn but the first message (a request point), the
 * memory's `messages` are read, counted and checked (see `Measure.ts`);
 * summarizer calls are measured by wrapping the summarizer.
 *
 * @since 0.1.0
 * @category constructors
 */
export const replayConversation = <E = never, R = never>(
  conversation: Conversation,
  config: Config,
  onMessage: Effect.Effect<void> = Effect.void,
  open: Open<E, R> = fresh
): Effect.Effect<
  ConversationResult,
  ConfigError | AddError | E,
  TokenCounter.TokenCounter | R
> =>
  Effect.gen(function*() {
    const counter = makeMessageCounter(yield* TokenCounter.TokenCounter)
    const recorder = Measure.makeRecorder(conversation.id, limitsOf(config))
    let calls = 0
    let consolidations = 0
    let folded = 0
    const at = { index: 0 }
    const inner = usesSummarizer(config.strategy) ? config.summarizer : undefined
    const counting: Summarizer.Service | undefined = inner === undefined ? undefined : {
      summarize: (...args: Parameters<Summarizer.Service["summarize"]>) =>
        Effect.gen(function*() {
          const [summary, messages, request] = args
          calls++
          if (request.mode === "consolidate") consolidations++
          let inputTokens = yield* counter.countText(summary)
          for (const message of messages) inputTokens += yield* counter.count(message)
          const result = yield* inner.summarize(...args)
          folded += messages.length
          recorder.fold({
            index: at.index,
            evictedMessages: messages.length,
            summarized: true,
            inputTokens,
            outputTokens: yield* counter.countText(result)
          })
          return result
        }).pipe(
          // a token count failing here is the summarizer's failure as far as the memory can tell
          Effect.catchTag("TokenCountError", (cause) => new SummarizerError({ description: cause.message, cause }))
        ),
      // counting changes no answer: the summarizer's honoursMode is kept (docs/contract.md section 10.9)
      ...(inner.honoursMode === true ? { honoursMode: true } : {})
    }
    return yield* open(conversation.id, config, counting, (memory) =>
      replayInto(memory, conversation, counter, recorder, at, {
        onMessage,
        calls: () =>
          calls,
        consolidations: () =>
          consolidations,
        folded: () =>
          folded,
        trackLength: counting === undefined && memory.strategy !== "buffer",
        provider: config.provider
      }))
  })

const limitsOf = (config: Config): Measure.Limits => ({
  maxTokens: config.strategy === "rolling" ? config.maxTokens : undefined,
  maxSummaryTokens: config.strategy === "rolling" && config.summarizer !== undefined
    ? config.summaryTokens
    : undefined,
  pinSystem: (config.memory as { readonly pinSystem?: boolean }).pinSystem === true,
  provider: config.provider
})

const replayInto = (
  memory: Memory.Memory,
  conversation: Conversation,
  counter: MessageCounter,
  recorder: Measure.Recorder,
  at: { index: number },
  track: {
    readonly onMessage: Effect.Effect<void>
    /** Summarizer calls and folded messages so far. */
    readonly calls: () => number
    /** Of those, the consolidations of summary segments (docs/contract.md section 10.9). */
    readonly consolidations: () => number
    readonly folded: () => number
    readonly trackLength: boolean
    /** The target whose rules check the transcript (`--provider`). */
    readonly provider: Validity.Provider | undefined
  }
) =>
  Effect.gen(function*() {
    // Without a summarizer (window, rolling without one), evictions show as a drop in buffer
    // length (`trackLength`); BufferMemory never evicts. The memory starts empty.
    const { onMessage, trackLength } = track
    // The transcript is valid itself up to its first violation (a request point at or before it sees a valid prefix).
    const firstViolation = Validity.violations(conversation.messages, { provider: track.provider })[0]?.index ??
      Infinity
    let length = 0
    let dropped = 0
    let prunes = 0
    let peak = 0
    let index = 0
    // the no-fold ceiling's context: every message added so far, as given
    let ceiling = 0
    let usageSamples = 0
    for (const message of conversation.messages) {
      if (index > 0 && message.role === Message.ASSISTANT) {
        const context = yield* memory.messages
        const buffer = yield* memory.buffer
        recorder.request({
          index,
          context,
          tokens: yield* countAll(counter, context),
          summaryAt: context.length > buffer.length ? summaryPosition(context, buffer) : -1,
          // the summary's messages: one, or its segments (docs/contract.md section 10.9)
          summaryMessages: context.length - buffer.length,
          transcriptValid: index <= firstViolation,
          ceilingTokens: ceiling
        })
        // the provider's count of the request just read, when the answer carries it (section 13.2)
        const inputTokens = Usage.reportedInputTokens(message.metadata)
        if (inputTokens !== undefined) {
          yield* Effect.orDie(memory.recordUsage({ inputTokens }))
          usageSamples++
        }
      }
      recorder.observe(message)
      ceiling += yield* counter.count(message)
      at.index = index
      const callsBefore = track.calls()
      yield* memory.add(message)
      const buffer = yield* memory.buffer
      if (trackLength) {
        const evicted = length + 1 - buffer.length
        if (evicted > 0) {
          dropped += evicted
          prunes++
          recorder.fold({ index, evictedMessages: evicted, summarized: false, inputTokens: 0, outputTokens: 0 })
        }
      } else if (track.calls() > callsBefore) {
        prunes++
      }
      length = buffer.length
      const bufferTokens = yield* memory.bufferTokens
      peak = Math.max(peak, bufferTokens)
      recorder.turn({
        index,
        role: message.role,
        bufferMessages: buffer.length,
        bufferTokens,
        summaryTokens: yield* memory.summaryTokens,
        contextTokens: yield* memory.contextTokens
      })
      index++
      yield* onMessage
    }
    const finalBufferTokens = yield* memory.bufferTokens
    const finalSummary = yield* memory.summary
    const summaryTokens = yield* counter.countText(finalSummary)
    const messages = yield* memory.messages
    const summaryIndex = finalSummary === "" ? -1 : summaryPosition(messages, yield* memory.buffer)
    const { artifacts, sums, timeline } = recorder.done()
    const summarizerCalls = track.calls()
    const figures: Figures = {
      id: conversation.id,
      messages: conversation.messages.length,
      prunes,
      summarizerCalls,
      consolidations: track.consolidations(),
      evictedMessages: track.folded() + dropped,
      peakBufferTokens: peak,
      finalBufferTokens,
      summaryTokens,
      contextTokens: (yield* memory.pinnedTokens) + summaryTokens + finalBufferTokens,
      opensOnUserTurn: opensOnUserTurn(messages),
      ...sums,
      ...Measure.derive(sums, conversation.messages.length, summarizerCalls),
      artifacts,
      retention: Retention.ratio(artifacts),
      usageSamples,
      usageRatio: usageSamples === 0 ? null : yield* memory.usageRatio
    }
    const final: FinalContext = {
      id: conversation.id,
      messages,
      context: yield* memory.context,
      summary: yield* memory.summary,
      buffer: yield* memory.buffer,
      summaryIndex
    }
    return { figures, final, timeline }
  })

/** Where the summary message stands in a context one longer than the buffer: the first message not the buffer's. */
const summaryPosition = (context: ReadonlyArray<Message.Message>, buffer: ReadonlyArray<Message.Message>): number => {
  let i = 0
  while (i < buffer.length && (context[i] === buffer[i] || Equal.equals(context[i], buffer[i]))) i++
  return i
}

const SUMMED = [
  "messages",
  "prunes",
  "summarizerCalls",
  "consolidations",
  "evictedMessages",
  "finalBufferTokens",
  "summaryTokens",
  "contextTokens"
] as const

/**
 * The totals of a list of figures (see {@link Totals}).
 *
 * @since 0.1.0
 * @category combinators
 */
export const totalsOf = (figures: ReadonlyArray<Figures>): Totals => {
  const totals = {
    conversations: 0,
    messages: 0,
    prunes: 0,
    summarizerCalls: 0,
    consolidations: 0,
    evictedMessages: 0,
    peakBufferTokens: 0,
    finalBufferTokens: 0,
    summaryTokens: 0,
    contextTokens: 0,
    opensOnUserTurn: 0
  }
  for (const f of figures) {
    totals.conversations++
    Measure.accumulate(totals, f, SUMMED, ["peakBufferTokens"])
    if (f.opensOnUserTurn === true) totals.opensOnUserTurn++
  }
  const sums = Measure.sum(figures)
  const artifacts = Retention.sum(figures.map((f) => f.artifacts))
  const ratios = figures.flatMap((f) => f.usageRatio === null ? [] : [f.usageRatio])
  return {
    ...totals,
    ...sums,
    ...Measure.derive(sums, totals.messages, totals.summarizerCalls),
    artifacts,
    retention: Retention.ratio(artifacts),
    usageSamples: figures.reduce((n, f) => n + f.usageSamples, 0),
    usageRatio: ratios.length === 0 ? null : ratios.reduce((a, b) => a + b, 0) / ratios.length
  }
}

/**
 * How often {@link replay} reports progress: every this many messages, and
 * after each conversation.
 *
 * @since 0.1.0
 * @category constants
 */
export const PROGRESS_EVERY = 100

/**
 * Replays the conversations of a stream as they arrive, each into its own
 * memory (a fresh one, or the one `open` gives, see {@link Open}), holding
 * no more than one conversation at a time besides the figures: `show`
 * names a conversation whose final context to keep; `finals` keeps every
 * final context and `timelines` (default `true`) every timeline (what an
 * HTML report shows: without them, memory is bounded by the largest
 * conversation, not the input). `onMessage` runs after each message.
 * Fails like {@link replayConversation}, or with the stream's error; with
 * `onFailure`, a conversation's failure is handed to it with the
 * conversation instead: when it succeeds, the conversation is left out of
 * the outcome (its figures, timeline and final context) and the replay goes
 * on with the next one; when it fails, the replay stops with its error.
 *
 * @since 0.2.0
 * @category constructors
 */
export const replayStream = <E = never, R = never, E2 = never, R2 = never, E3 = never>(
  conversations: Stream.Stream<Conversation, E2, R2>,
  config: Config,
  options?: {
    readonly show?: string | undefined
    readonly open?: Open<E, R> | undefined
    readonly finals?: boolean | undefined
    readonly timelines?: boolean | undefined
    readonly onMessage?: Effect.Effect<void> | undefined
    readonly onConversation?: Effect.Effect<void> | undefined
    readonly onFailure?:
      | ((conversation: Conversation, error: ConfigError | AddError | E) => Effect.Effect<void, E3>)
      | undefined
  }
): Effect.Effect<Outcome, ConfigError | AddError | E | E2 | E3, TokenCounter.TokenCounter | R | R2> =>
  Effect.suspend(() => {
    const open: Open<E, R> = options?.open ?? fresh
    const onMessage = options?.onMessage ?? Effect.void
    const keepTimelines = options?.timelines !== false
    const figures: Array<Figures> = []
    const timelines: Array<Measure.Timeline> = []
    const finals: Array<FinalContext> = []
    let shown: FinalContext | undefined
    const onFailure = options?.onFailure
    const each = (conversation: Conversation) =>
      Effect.matchEffect(replayConversation(conversation, config, onMessage, open), {
        onFailure: (error): Effect.Effect<void, ConfigError | AddError | E | E3> =>
          onFailure === undefined
            ? Effect.fail(error)
            : Effect.zipRight(onFailure(conversation, error), options?.onConversation ?? Effect.void),
        onSuccess: (result) => {
          figures.push(result.figures)
          if (keepTimelines) timelines.push(result.timeline)
          if (options?.finals === true) finals.push(result.final)
          if (shown === undefined && conversation.id === options?.show) shown = result.final
          return options?.onConversation ?? Effect.void
        }
      })
    return Effect.map(
      Stream.runForEach(conversations, each),
      (): Outcome => ({ report: { conversations: figures, totals: totalsOf(figures) }, shown, timelines, finals })
    )
  })

/**
 * Replays every conversation, in order, each into its own memory: a fresh
 * one, or the one `open` gives (see {@link Open}). `show` names a conversation whose final context to keep; `onProgress`
 * receives (messages replayed, messages in all) every {@link PROGRESS_EVERY}
 * messages and after each conversation. Fails like {@link replayConversation}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const replay = <E = never, R = never>(
  conversations: ReadonlyArray<Conversation>,
  config: Config,
  options?: {
    readonly show?: string | undefined
    readonly onProgress?: ((done: number, total: number) => Effect.Effect<void>) | undefined
    readonly open?: Open<E, R> | undefined
    /** Keep every conversation's final context in {@link Outcome.finals} (the HTML report shows them). */
    readonly finals?: boolean | undefined
  }
): Effect.Effect<Outcome, ConfigError | AddError | E, TokenCounter.TokenCounter | R> =>
  Effect.suspend(() => {
    const total = conversations.reduce((n, c) => n + c.messages.length, 0)
    const onProgress = options?.onProgress
    let done = 0
    return replayStream(Stream.fromIterable(conversations), config, {
      show: options?.show,
      open: options?.open,
      finals: options?.finals,
      onMessage: onProgress === undefined ? undefined : Effect.suspend(() => {
        done++
        return done % PROGRESS_EVERY === 0 ? onProgress(done, total) : Effect.void
      }),
      onConversation: onProgress === undefined ? undefined : Effect.suspend(() => onProgress(done, total))
    })
  })
