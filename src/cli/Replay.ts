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
import * as Equal from "effect/Equal"
import * as Stream from "effect/Stream"
import * as Retention from "../core/artifacts.js"
import { type AddError, ConfigError, SummarizerError, type TokenCountError } from "../Errors.js"
import * as ExtractiveSummarizer from "../layers/ExtractiveSummarizer.js"
import * as Message from "../schema/Message.js"
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
 * The options of a replay as given on the command line, before checking.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly strategy: string
  /** Token budget of the rolling buffer. */
  readonly maxTokens: number
  /** Message budget of the window. */
  readonly maxMessages: number
  readonly summarizer: string
  /** Summary budget (tokens): the extractive summarizer's, and the memory's `maxSummaryTokens` (rolling, summary). */
  readonly summaryTokens: number
  /** Low-water mark of the rolling buffer (tokens); undefined: the budget. */
  readonly targetTokens?: number | undefined
  /** Low-water mark of the window (messages); undefined: the budget. */
  readonly targetMessages?: number | undefined
  /** `"aligned"` (default) or `"turn"`. */
  readonly boundary?: string | undefined
  /** Pin system and developer messages (rolling, window). */
  readonly pinSystem?: boolean | undefined
  /** `"system"` (default) or `"user"`. */
  readonly summaryRole?: string | undefined
  /** Clear old tool results, sparing this many most recent (rolling); undefined: off. */
  readonly clearToolResults?: number | undefined
  /** When clearing spares the fold: `"target"` (default) or `"budget"`; needs `clearToolResults`. */
  readonly clearUntil?: string | undefined
  /** Tool results counted over it are cut when added (rolling, docs/contract.md section 10.8); undefined: none. */
  readonly maxToolResultTokens?: number | undefined
  /** The artifact ledger's budget in tokens (rolling, summary; docs/contract.md section 14.2); undefined: none. */
  readonly ledgerTokens?: number | undefined
  /** The model's context window (rolling, docs/contract.md section 16.1), instead of `maxTokens`; undefined: none. */
  readonly contextWindow?: number | undefined
  /** The window's reserve (tool definitions, the answer); needs `contextWindow`; default 0. */
  readonly reserve?: number | undefined
  /**
   * The options given explicitly, by name without dashes (`max-tokens`):
   * each must be one the strategy takes (`StrategyOptions.ts`), those left
   * to their defaults are not checked. Default: none.
   */
  readonly given?: ReadonlyArray<string> | undefined
}

/**
 * A checked replay configuration.
 *
 * @since 0.1.0
 * @category models
 */
export interface Config {
  readonly strategy: Strategy
  readonly maxTokens: number
  readonly maxMessages: number
  /** The summary budget (tokens): the extractive summarizer's, and the bound of a context at a request point. */
  readonly summaryTokens: number
  /** The context policies (SPEC section 10), checked; each undefined or default when not given. */
  readonly policies: Policies
  /**
   * The summarizer given to a rolling or summary memory (buffer and window
   * memories never get one); none: a rolling memory drops evicted turns.
   */
  readonly summarizer: Summarizer.Service | undefined
}

/**
 * The context policies of a replay (SPEC section 10), as the command line
 * gives them.
 *
 * @since 0.2.0
 * @category models
 */
export interface Policies {
  readonly targetTokens: number | undefined
  readonly targetMessages: number | undefined
  readonly boundary: "aligned" | "turn"
  readonly pinSystem: boolean
  readonly summaryRole: "system" | "user"
  /** How many of the most recent tool results clearing spares; undefined: no clearing. */
  readonly clearToolResults: number | undefined
  /** When clearing spares the fold (docs/contract.md section 10.5); undefined: not given (the default, `"target"`). */
  readonly clearUntil?: "target" | "budget" | undefined
  /** Tool results counted over it are cut when added (docs/contract.md section 10.8); undefined: none. */
  readonly maxToolResultTokens?: number | undefined
  /** The artifact ledger's budget (docs/contract.md section 14.2); undefined: no ledger. */
  readonly ledgerTokens?: number | undefined
  /** The whole request's budget (docs/contract.md section 16.1), instead of `maxTokens`; undefined: none. */
  readonly contextWindow?: { readonly tokens: number; readonly reserveTokens: number } | undefined
}

/**
 * The options of the configured strategy's memory (`Memory.make`): every
 * option the command line sets, keeping those the strategy takes
 * (`Memory.optionKeys`). The summary budget bounds a memory's summary only
 * when there is a summarizer.
 *
 * @since 0.2.0
 * @category combinators
 */
export const memoryOptions = (config: Config): Memory.Options => {
  const all: Record<string, unknown> = {
    // with a context window, the window less the reserve is the budget (maxTokens is not given)
    maxTokens: config.policies.contextWindow === undefined ? config.maxTokens : undefined,
    contextWindow: config.policies.contextWindow,
    targetTokens: config.policies.targetTokens,
    maxMessages: config.maxMessages,
    targetMessages: config.policies.targetMessages,
    boundary: config.policies.boundary,
    pinSystem: config.policies.pinSystem,
    summaryRole: config.policies.summaryRole,
    clearToolResults: config.policies.clearToolResults === undefined
      ? undefined
      : {
        keep: config.policies.clearToolResults,
        ...(config.policies.clearUntil === undefined ? {} : { until: config.policies.clearUntil })
      },
    maxToolResultTokens: config.policies.maxToolResultTokens,
    maxSummaryTokens: config.summarizer === undefined ? undefined : config.summaryTokens,
    ledger: config.summarizer === undefined || config.policies.ledgerTokens === undefined
      ? undefined
      : { maxTokens: config.policies.ledgerTokens }
  }
  const options: Record<string, unknown> = { strategy: config.strategy }
  for (const key of Memory.optionKeys[config.strategy]) options[key] = all[key]
  return options as unknown as Memory.Options
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

const positive = (option: string, value: number): Effect.Effect<number, ConfigError> =>
  Number.isInteger(value) && value > 0
    ? Effect.succeed(value)
    : Effect.fail(new ConfigError({ option, description: `must be a positive integer, got ${value}` }))

const oneOf = <A extends string>(
  option: string,
  choices: ReadonlyArray<A>,
  value: string
): Effect.Effect<A, ConfigError> =>
  (choices as ReadonlyArray<string>).includes(value)
    ? Effect.succeed(value as A)
    : Effect.fail(
      new ConfigError({ option, description: `unknown value "${value}", expected one of ${choices.join(", ")}` })
    )

/**
 * Checks command-line options and builds the summarizer (counting with the
 * `TokenCounter` in context). Fails with `ConfigError` naming the option: an
 * unknown strategy or summarizer, a budget that is not a positive integer
 * (every budget is checked, whatever the strategy), then an option of
 * `options.given` the strategy does not take (`StrategyOptions.check`), `--clear-until`
 * without `--clear-tool-results`, `--strategy summary` with `--summarizer
 * none`, a summary budget given with `--summarizer none` (it would bound
 * nothing), or what the memory refuses (`--target-tokens: must be at most
 * --max-tokens (500), got 600`).
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
    const strategy = yield* oneOf("--strategy", strategies, options.strategy)
    const summarizer = yield* oneOf("--summarizer", summarizers, options.summarizer)
    const window = options.contextWindow === undefined
      ? undefined
      : yield* positive("--context-window", options.contextWindow)
    const reserve = options.reserve === undefined ? undefined : yield* nonNegative("--reserve", options.reserve)
    const given = options.given ?? []
    if (reserve !== undefined && window === undefined) {
      return yield* new ConfigError({
        option: "--reserve",
        description:
          `needs ${dashes}context-window (it is the part of the window kept for what the memory does not hold)`
      })
    }
    if (window !== undefined && given.includes("max-tokens")) {
      return yield* new ConfigError({
        option: "--max-tokens",
        description: `cannot be given with ${dashes}context-window: the window less the reserve is the budget; give one`
      })
    }
    if (window !== undefined && (reserve ?? 0) >= window) {
      return yield* new ConfigError({
        option: "--reserve",
        description: `must be less than ${dashes}context-window (${window}), got ${reserve}`
      })
    }
    const maxTokens = window === undefined
      ? yield* positive("--max-tokens", options.maxTokens)
      : window - (reserve ?? 0)
    const maxMessages = yield* positive("--max-messages", options.maxMessages)
    const summaryTokens = yield* positive("--max-summary-tokens", options.summaryTokens)
    const policies: Policies = {
      targetTokens: options.targetTokens === undefined
        ? undefined
        : yield* positive("--target-tokens", options.targetTokens),
      targetMessages: options.targetMessages === undefined
        ? undefined
        : yield* positive("--target-messages", options.targetMessages),
      boundary: yield* oneOf("--boundary", boundaries, options.boundary ?? "aligned"),
      pinSystem: options.pinSystem ?? false,
      summaryRole: yield* oneOf("--summary-role", summaryRoles, options.summaryRole ?? "system"),
      clearToolResults: options.clearToolResults === undefined
        ? undefined
        : yield* nonNegative("--clear-tool-results", options.clearToolResults),
      clearUntil: options.clearUntil === undefined
        ? undefined
        : yield* oneOf("--clear-until", clearUntils, options.clearUntil),
      maxToolResultTokens: options.maxToolResultTokens === undefined
        ? undefined
        : yield* positive("--max-tool-result-tokens", options.maxToolResultTokens),
      ledgerTokens: options.ledgerTokens === undefined
        ? undefined
        : yield* positive("--ledger-tokens", options.ledgerTokens),
      contextWindow: window === undefined ? undefined : { tokens: window, reserveTokens: reserve ?? 0 }
    }
    const refused = StrategyOptions.check(strategy, options.given ?? [], dashes)
    if (refused !== undefined) return yield* refused
    if (policies.clearUntil !== undefined && policies.clearToolResults === undefined) {
      return yield* new ConfigError({
        option: "--clear-until",
        description: `needs ${flag("clear-tool-results")} (it says when tool-result clearing spares the fold)`
      })
    }
    if (strategy === "summary" && summarizer === "none") {
      return yield* new ConfigError({
        option: "--summarizer",
        description: "the summary strategy folds every turn into the summary, it needs a summarizer (extractive)"
      })
    }
    const summaryBudget = (options.given ?? []).find((name) =>
      name === "max-summary-tokens" || name === "summary-tokens"
    )
    if (summarizer === "none" && summaryBudget !== undefined) {
      return yield* new ConfigError({
        option: `--${summaryBudget}`,
        description: `bounds the summarizer's summary: with ${flag("summarizer")} none there is no summary to bound`
      })
    }
    const config: Config = {
      strategy,
      maxTokens,
      maxMessages,
      summaryTokens,
      policies,
      summarizer: summarizer === "none" || !usesSummarizer(strategy)
        ? undefined
        : yield* ExtractiveSummarizer.make({ maxTokens: summaryTokens }).pipe(
          Effect.mapError((error) =>
            new ConfigError({ option: "--max-summary-tokens", description: error.description })
          )
        )
    }
    // the memory's own checks (a target above its budget), named as the command line names the options
    yield* makeMemory(config, config.summarizer).pipe(
      Effect.mapError((error) =>
        new ConfigError({
          option: error.option.startsWith("--") ? error.option : `--${kebab(error.option)}`,
          description: error.description.replace(/\b[a-z]+(?:[A-Z][a-z]*)+\b/g, (key) => flag(kebab(key)))
        })
      )
    )
    return config
  })

/** A memory option as the command line names it: `targetTokens` is `target-tokens`. */
const kebab = (key: string): string => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)

const nonNegative = (option: string, value: number): Effect.Effect<number, ConfigError> =>
  Number.isInteger(value) && value >= 0
    ? Effect.succeed(value)
    : Effect.fail(new ConfigError({ option, description: `must be a non-negative integer, got ${value}` }))

/**
 * The boundary modes (SPEC 10.2).
 *
 * @since 0.2.0
 * @category constants
 */
export const boundaries: ReadonlyArray<Policies["boundary"]> = ["aligned", "turn"]

/**
 * The summary roles (SPEC 10.6).
 *
 * @since 0.2.0
 * @category constants
 */
export const summaryRoles: ReadonlyArray<Policies["summaryRole"]> = ["system", "user"]

/**
 * Where tool-result clearing stops (SPEC 10.5): within the target (default)
 * or within the budget.
 *
 * @since 0.3.0
 * @category constants
 */
export const clearUntils: ReadonlyArray<NonNullable<Policies["clearUntil"]>> = ["target", "budget"]

/** Whether a strategy folds evicted turns with a summarizer (buffer and window never do). */
const usesSummarizer = (strategy: Strategy): boolean => strategy === "rolling" || strategy === "summary"

const makeMemory = (
  config: Config,
  summarizer: Summarizer.Service | undefined
): Effect.Effect<Memory.Memory, ConfigError> =>
  config.strategy === "summary" && summarizer === undefined
    ? Effect.fail(new ConfigError({ option: "--summarizer", description: "the summary strategy needs a summarizer" }))
    : withSummarizer(Memory.make(memoryOptions(config)), summarizer)

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
    let folded = 0
    const at = { index: 0 }
    const inner = usesSummarizer(config.strategy) ? config.summarizer : undefined
    const counting: Summarizer.Service | undefined = inner === undefined ? undefined : {
      summarize: (...args: Parameters<Summarizer.Service["summarize"]>) =>
        Effect.gen(function*() {
          const [summary, messages] = args
          calls++
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
        )
    }
    return yield* open(conversation.id, config, counting, (memory) =>
      replayInto(memory, conversation, counter, recorder, at, {
        onMessage,
        calls: () =>
          calls,
        folded: () =>
          folded,
        trackLength: counting === undefined && memory.strategy !== "buffer"
      }))
  })

const limitsOf = (config: Config): Measure.Limits => ({
  maxTokens: config.strategy === "rolling" ? config.maxTokens : undefined,
  maxSummaryTokens: config.strategy === "rolling" && config.summarizer !== undefined
    ? config.summaryTokens
    : undefined,
  pinSystem: config.policies.pinSystem && (config.strategy === "rolling" || config.strategy === "window")
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
    readonly folded: () => number
    readonly trackLength: boolean
  }
) =>
  Effect.gen(function*() {
    // Without a summarizer (window, rolling without one), evictions show as a drop in buffer
    // length (`trackLength`); BufferMemory never evicts. The memory starts empty.
    const { onMessage, trackLength } = track
    // The transcript is valid itself up to its first violation (a request point at or before it sees a valid prefix).
    const firstViolation = Validity.violations(conversation.messages)[0]?.index ?? Infinity
    let length = 0
    let dropped = 0
    let prunes = 0
    let peak = 0
    let index = 0
    for (const message of conversation.messages) {
      if (index > 0 && message.role === Message.ASSISTANT) {
        const context = yield* memory.messages
        const buffer = yield* memory.buffer
        recorder.request({
          index,
          context,
          tokens: yield* countAll(counter, context),
          summaryAt: context.length > buffer.length ? summaryPosition(context, buffer) : -1,
          transcriptValid: index <= firstViolation
        })
      }
      recorder.observe(message)
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
      evictedMessages: track.folded() + dropped,
      peakBufferTokens: peak,
      finalBufferTokens,
      summaryTokens,
      contextTokens: summaryTokens + finalBufferTokens,
      opensOnUserTurn: opensOnUserTurn(messages),
      ...sums,
      ...Measure.derive(sums, conversation.messages.length, summarizerCalls),
      artifacts,
      retention: Retention.ratio(artifacts)
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
  return {
    ...totals,
    ...sums,
    ...Measure.derive(sums, totals.messages, totals.summarizerCalls),
    artifacts,
    retention: Retention.ratio(artifacts)
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
 * Fails like {@link replayConversation}, or with the stream's error.
 *
 * @since 0.2.0
 * @category constructors
 */
export const replayStream = <E = never, R = never, E2 = never, R2 = never>(
  conversations: Stream.Stream<Conversation, E2, R2>,
  config: Config,
  options?: {
    readonly show?: string | undefined
    readonly open?: Open<E, R> | undefined
    readonly finals?: boolean | undefined
    readonly timelines?: boolean | undefined
    readonly onMessage?: Effect.Effect<void> | undefined
    readonly onConversation?: Effect.Effect<void> | undefined
  }
): Effect.Effect<Outcome, ConfigError | AddError | E | E2, TokenCounter.TokenCounter | R | R2> =>
  Effect.suspend(() => {
    const open: Open<E, R> = options?.open ?? fresh
    const onMessage = options?.onMessage ?? Effect.void
    const keepTimelines = options?.timelines !== false
    const figures: Array<Figures> = []
    const timelines: Array<Measure.Timeline> = []
    const finals: Array<FinalContext> = []
    let shown: FinalContext | undefined
    const each = (conversation: Conversation) =>
      Effect.flatMap(replayConversation(conversation, config, onMessage, open), (result) => {
        figures.push(result.figures)
        if (keepTimelines) timelines.push(result.timeline)
        if (options?.finals === true) finals.push(result.final)
        if (shown === undefined && conversation.id === options?.show) shown = result.final
        return options?.onConversation ?? Effect.void
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
