/**
 * The interface every strategy implements: add turns, read the context back,
 * clear, and export the state (docs/contract.md sections 2 and 5 to 8); and
 * {@link make}, one constructor over the four strategies, for code that
 * chooses the strategy at run time (the store, the command line).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Memory, Message } from "rollmem"
 *
 * const program = Effect.gen(function*() {
 *   const memory = yield* Memory.make({ strategy: "window", maxMessages: 10 })
 *   yield* memory.add(Message.user("hi"))
 *   return yield* memory.context // "user: hi"
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schedule from "effect/Schedule"
import * as Rules from "../core/options.js"
import * as Overflow from "../core/overflow.js"
import {
  type AddError,
  type ArchiveError,
  ConfigError,
  ContextOverflowError,
  type StateDecodeError,
  type TokenCountError,
  type UsageError
} from "../Errors.js"
import type * as MemoryState from "../schema/MemoryState.js"
import type { Message } from "../schema/Message.js"
import * as OptionsSchema from "../schema/Options.js"
import type * as Archive from "../services/Archive.js"
import * as Summarizer from "../services/Summarizer.js"
import type * as TokenCounter from "../services/TokenCounter.js"
import * as BufferMemory from "./BufferMemory.js"
import { buildStrategy } from "./internal/builders.js"
import * as RollingMemory from "./RollingMemory.js"
import * as SummaryMemory from "./SummaryMemory.js"
import * as WindowMemory from "./WindowMemory.js"

/**
 * A conversation memory.
 *
 * Adds may run concurrently; reads see every completed append at once.
 *
 * @since 0.1.0
 * @category models
 */
export interface Memory {
  /** Which strategy this is: `"rolling"`, `"buffer"`, `"window"` or `"summary"`. */
  readonly strategy: "rolling" | "buffer" | "window" | "summary"
  /**
   * Appends one turn, then prunes or folds as the strategy says. The token
   * counter sees the message's token text once. Fails with `TokenCountError`
   * (nothing appended) or `SummarizerError` (the turn stays appended; nothing
   * else changes). Completes after its own prune.
   */
  readonly add: (message: Message) => Effect.Effect<void, AddError>
  /**
   * Appends several turns in order, then prunes or folds once
   * (docs/contract.md section 10.7): for concurrency, failure and
   * interruption it is one add. Use it for an agent step that yields a tool
   * call and its results together, so no prune ever splits the call from
   * them. Each message is counted once; a failed count appends none of them.
   * An empty list does nothing.
   */
  readonly addMessages: (messages: ReadonlyArray<Message>) => Effect.Effect<void, AddError>
  /** The running summary, `""` when none. */
  readonly summary: Effect.Effect<string>
  /** The buffered messages, oldest first. */
  readonly buffer: Effect.Effect<ReadonlyArray<Message>>
  /**
   * The buffer's size in tokens as its budget sees it: the sum of its
   * messages' counts, pinned messages (`pinSystem`) aside, as `maxTokens`
   * bounds it; the summary is not counted. O(1).
   */
  readonly bufferTokens: Effect.Effect<number>
  /** Tokens of the pinned messages (`pinSystem`, docs/contract.md section 10.3), outside the budget; 0 without. O(1). */
  readonly pinnedTokens: Effect.Effect<number>
  /**
   * The summary's tokens, with the memory's counter (docs/contract.md section
   * 10.4): counted once per summary, when a fold commits it if something
   * needs the count then (`maxSummaryTokens`, a `contextWindow`, summary
   * segments), when a state is restored, or else on the first read, then
   * kept until the summary changes: every read after the first is O(1). 0
   * without a summary. The first read of a summary not counted yet fails
   * with `TokenCountError` when the counter fails on it.
   */
  readonly summaryTokens: Effect.Effect<number, TokenCountError>
  /**
   * Tokens of what {@link Memory.messages} sends, without any per-message
   * overhead of a provider: pinned messages, summary and buffer
   * (`pinnedTokens + summaryTokens + bufferTokens`), plus the content of a
   * provider's compaction item when the state holds one. O(1), the summary
   * counted first as {@link Memory.summaryTokens} says (and failing as it
   * does).
   */
  readonly contextTokens: Effect.Effect<number, TokenCountError>
  /**
   * What to send the model: the buffer, preceded by a message holding the
   * summary when it is not empty (role `system`, or `user` with
   * `summaryRole: "user"`); pinned system messages (`pinSystem`) that open
   * the buffer come before the summary.
   */
  readonly messages: Effect.Effect<ReadonlyArray<Message>>
  /** The string forms of {@link Memory.messages} joined with `"\n"`. */
  readonly context: Effect.Effect<string>
  /** Empties summary and buffer; a summarizer call in flight is discarded. */
  readonly clear: Effect.Effect<void>
  /** The state (summary and buffer). */
  readonly state: Effect.Effect<MemoryState.MemoryState>
  /** The state in the wire format (version 2), ready for `JSON.stringify`. */
  readonly toJSON: Effect.Effect<MemoryState.Encoded>
  /**
   * Records the provider's usage figures for the last request built from
   * {@link Memory.messages} (docs/contract.md section 16.4): `inputTokens`,
   * the provider's count of the whole prompt (Anthropic: `input_tokens` +
   * `cache_read_input_tokens` + `cache_creation_input_tokens`; OpenAI:
   * `prompt_tokens` or `input_tokens`; Gemini: `promptTokenCount`), and
   * `overheadTokens`, the part outside the memory's context (tool
   * definitions, instructions sent apart; default: a context window's
   * reserve, else 0). The memory compares the rest with its own count of the
   * context it last read back and keeps a correction ratio that its budget
   * checks apply (RollingMemory), kept in the state. Fails with `UsageError`
   * (nothing recorded) when `inputTokens` is not a positive integer (a
   * request always has input tokens) or `overheadTokens` not a non-negative
   * integer.
   */
  readonly recordUsage: (usage: Usage) => Effect.Effect<void, UsageError>
  /** The correction ratio learnt from recorded usages (provider's count over the memory's): 1 until one is recorded. */
  readonly usageRatio: Effect.Effect<number>
  /**
   * Searches the memory's archive (its `archive` option) in its own
   * conversation (docs/contract.md section 17): the archived messages that
   * match `query`, best first, those naming the query's artifacts (file
   * paths, identifiers) exactly before the others. Options: `limit` (default
   * 5), `before` (positions below it only), `roles`, `neighbours` (the
   * archived messages around each match, on each side). Fails with
   * `ConfigError` without an archive or with a wrong option, `ArchiveError`
   * when the archive fails.
   */
  readonly recall: (
    query: string,
    options?: Archive.SearchOptions
  ) => Effect.Effect<ReadonlyArray<Archive.Match>, ArchiveError | ConfigError>
}

/**
 * A provider's usage figures for one request (docs/contract.md section
 * 13.4), in the provider's tokens.
 *
 * @since 0.3.0
 * @category models
 */
export interface Usage {
  /** The provider's count of the whole prompt. */
  readonly inputTokens: number
  /** The part of it outside the memory's context (default: a context window's reserve, else 0). */
  readonly overheadTokens?: number | undefined
}

/**
 * A memory with the synchronous parts of its adds, for code that runs no
 * fiber per add (the Promise facade is built on it): `step(message)` is
 * `memory.add(message)` without its `Effect.suspend`. Call it from
 * synchronous code; what it returns is what is left of the add: an `Exit`
 * (an `Exit` is an `Effect`; `Exit.void` itself when the add succeeded with
 * nothing left, so a caller may compare by reference) when the add completed in the call (a counter
 * and a summarizer built from plain functions: `TokenCounter.fromFunction`,
 * `Summarizer.fromFunction`), else the effect still to run (a count or a
 * fold that may suspend), which must be run for the add to complete. Every
 * strategy's `makeStepper` builds one.
 *
 * @example
 * ```ts
 * import { Effect, Exit } from "effect"
 * import { BufferMemory, Message, TokenCounter } from "rollmem"
 *
 * const built = BufferMemory.makeStepper(undefined, { counter: TokenCounter.wordCounter })
 * // a plain-function counter: the constructor is an Exit too
 * const stepper = Effect.runSync(built)
 * const rest = stepper.step(Message.user("hello"))
 * if (!Exit.isExit(rest)) Effect.runSync(rest)
 * ```
 *
 * @since 0.4.0
 * @category models
 */
export interface Stepper<M extends Memory = Memory> {
  readonly memory: M
  /** `memory.add` without its `Effect.suspend`: an `Exit` when the add completed, else the effect left to run. */
  readonly step: (message: Message) => Effect.Effect<void, AddError>
  /** `memory.addMessages` without its `Effect.suspend`, likewise. */
  readonly stepMany: (messages: ReadonlyArray<Message>) => Effect.Effect<void, AddError>
}

/**
 * The services a `makeStepper` constructor is given instead of reading them
 * from the context: the token counter, and the summarizer (RollingMemory
 * and SummaryMemory; `Summarizer.drop` drops evicted turns, as
 * `Summarizer.layerDrop` does).
 *
 * @since 0.4.0
 * @category models
 */
export interface Services {
  readonly counter: TokenCounter.Service
  readonly summarizer: Summarizer.Service
}

/**
 * A strategy and its options, for {@link make}. The state is the same for
 * every strategy (docs/contract.md section 2), so a state written by one can
 * be restored by another.
 *
 * - `rolling`: `RollingMemory.Options` (`maxTokens` default 2000, the context
 *   policies); needs a `Summarizer` (`Summarizer.layerDrop` to drop evicted turns);
 * - `buffer`: `BufferMemory.Options` (`summaryRole`);
 * - `window`: `WindowMemory.Options` (`maxMessages` required, ...);
 * - `summary`: `SummaryMemory.Options`; needs a `Summarizer` (not the dropping one).
 *
 * @since 0.2.0
 * @category models
 */
export type Options =
  | { readonly strategy: "rolling" } & RollingMemory.Options
  | { readonly strategy: "buffer" } & BufferMemory.Options
  | { readonly strategy: "window" } & WindowMemory.Options
  | { readonly strategy: "summary" } & SummaryMemory.Options

/**
 * The option keys of each strategy besides `strategy`: what {@link make}
 * takes (RollingMemory's background-folding options, which need
 * `RollingMemory.makeScoped`, are not among them): the fields of each
 * strategy's schema (`Options.fieldsOf`, `schema/Options.ts`), which every
 * constructor decodes its options with.
 *
 * @example
 * ```ts
 * import { Memory } from "rollmem"
 *
 * Memory.optionKeys.window.includes("maxMessages") // true
 * Memory.optionKeys.buffer.includes("maxTokens") // false
 * ```
 *
 * @since 0.2.0
 * @category constants
 */
export const optionKeys: { readonly [S in Options["strategy"]]: ReadonlyArray<string> } = OptionsSchema.keysOf

/**
 * What {@link make} requires for options `O`: a `Summarizer` for the
 * `rolling` and `summary` strategies (or a strategy not known statically),
 * nothing for `buffer` and `window`.
 *
 * @since 0.3.0
 * @category models
 */
export type Requirements<O extends { readonly strategy: Options["strategy"] }> = O["strategy"] extends
  "buffer" | "window" ? never
  : Summarizer.Summarizer

/**
 * Builds a memory of the strategy `options.strategy` with the rest of
 * `options`, empty or holding `state` (restored verbatim, not pruned, each
 * message counted once), as that strategy's own `make` / `fromState` build
 * it; the options are decoded once, with the strategy's schema
 * (`schema/Options.ts`).
 * The services are read from the context as those read them: the
 * `TokenCounter` (default: word count) and the `Summarizer`, required for
 * `rolling` and `summary` ({@link Requirements}; `Summarizer.layerDrop` to
 * drop evicted turns with `rolling`).
 *
 * Fails with `ConfigError` for options that are not an object (`option:
 * "options"`), an unknown key (naming it and listing the strategy's keys,
 * {@link optionKeys}), an option the strategy refuses, an unknown
 * strategy (`option: "strategy"`, listing the known ones) or a `summary`
 * strategy given `Summarizer.drop` (`option: "summarizer"`), and
 * with `TokenCountError` when a restored message cannot be counted, and
 * with `StateDecodeError` when `state` is not a decoded state (a parsed
 * document: decode it with `MemoryState.fromJSON` first).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Memory, MemoryState, Message, Summarizer } from "rollmem"
 *
 * const state = MemoryState.make("", [Message.user("hi")])
 * // Effect<Memory, ConfigError | TokenCountError, Summarizer>
 * const memory = Memory.make({ strategy: "rolling", maxTokens: 500 }, state)
 * const dropping = memory.pipe(Effect.provide(Summarizer.layerDrop))
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export function make<O extends Options>(options: O): Effect.Effect<Memory, ConfigError, Requirements<O>>
export function make<O extends Options>(
  options: O,
  state: MemoryState.MemoryState | undefined
): Effect.Effect<Memory, ConfigError | TokenCountError | StateDecodeError, Requirements<O>>
export function make(
  options: Options,
  state?: MemoryState.MemoryState
): Effect.Effect<Memory, ConfigError | TokenCountError | StateDecodeError, Summarizer.Summarizer> {
  const decoded = OptionsSchema.decodeStrategy<Options>(options)
  if (Either.isLeft(decoded)) return Effect.fail(decoded.left)
  return buildStrategy(decoded.right, state)
}

/**
 * A memory that can fold on demand: a RollingMemory or a SummaryMemory.
 *
 * @since 0.3.0
 * @category models
 */
export interface Compactable {
  readonly messages: Effect.Effect<ReadonlyArray<Message>>
  readonly bufferTokens: Effect.Effect<number>
  readonly compact: (
    options?: { readonly targetTokens?: number | undefined; readonly focus?: string | undefined }
  ) => Effect.Effect<void, AddError | ConfigError>
}

/**
 * The options of {@link withOverflowRetry}: `retries` (compactions and
 * calls after the first, default 2), `recognizers` (what a "too long"
 * refusal looks like, default `Overflow.defaultRecognizers`: OpenAI,
 * Anthropic, Gemini), `schedule` (the pause between attempts, default
 * none), `focus` (passed to each compaction's summarizer).
 *
 * @since 0.3.0
 * @category models
 */
export interface OverflowRetryOptions {
  readonly retries?: number | undefined
  readonly recognizers?: ReadonlyArray<Overflow.Recognizer> | undefined
  readonly schedule?: Schedule.Schedule<unknown, unknown> | undefined
  readonly focus?: string | undefined
}

class Overflowed {
  constructor(readonly overflow: Overflow.Overflow, readonly error: unknown) {}
}

/**
 * Runs the user's model call with the memory's context and, when the
 * provider refuses it as too long (docs/contract.md section 16.3), compacts
 * the memory to a smaller target and calls again, at most `retries` times
 * (default 2): the first compaction folds the buffer down to half its
 * tokens, each later one down to the newest unit alone. When the provider
 * still refuses, or the buffer cannot shrink further, fails with
 * `ContextOverflowError` carrying the provider's numbers and its last error.
 * Any other error of the call is the call's own, unchanged; a failed
 * compaction fails with its error (the memory loses no turn: a failed fold
 * commits nothing). The call reads the context it is given, never a stale
 * one: each attempt reads `memory.messages` again.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Memory, type Message, type RollingMemory } from "rollmem"
 *
 * declare const memory: RollingMemory.RollingMemory
 * declare const callModel: (messages: ReadonlyArray<Message.Message>) => Effect.Effect<string, Error>
 *
 * const answer = Memory.withOverflowRetry(memory, callModel, { retries: 2 })
 * ```
 *
 * @since 0.3.0
 * @category combinators
 */
export const withOverflowRetry = <A, E, R>(
  memory: Compactable,
  call: (messages: ReadonlyArray<Message>) => Effect.Effect<A, E, R>,
  options?: OverflowRetryOptions
): Effect.Effect<A, E | ContextOverflowError | AddError | ConfigError, R> =>
  Effect.suspend(() => {
    const problem = Rules.overflowRetryOptions(options)
    if (problem !== undefined) return Effect.fail(new ConfigError(problem))
    const retries = options?.retries ?? 2
    if (!Number.isSafeInteger(retries) || retries < 0) {
      return Effect.fail(
        new ConfigError({ option: "retries", description: `must be a non-negative integer, got ${String(retries)}` })
      )
    }
    const recognizers = options?.recognizers ?? Overflow.defaultRecognizers
    let attempts = 0
    const attempt: Effect.Effect<A, E | Overflowed, R> = Effect.flatMap(memory.messages, (messages) => {
      attempts++
      return Effect.catchAll(call(messages), (error): Effect.Effect<never, E | Overflowed> => {
        const overflow = Overflow.recognize(error, recognizers)
        return Effect.fail(overflow === undefined ? error : new Overflowed(overflow, error))
      })
    })
    const giveUp = (o: Overflowed) =>
      new ContextOverflowError({
        provider: o.overflow.provider,
        requestedTokens: o.overflow.requestedTokens,
        maxTokens: o.overflow.maxTokens,
        attempts,
        cause: o.error
      })
    // before each retry: compact to a smaller target; a buffer that cannot shrink ends the retries
    const shrink = (o: Overflowed): Effect.Effect<void, ContextOverflowError | AddError | ConfigError> =>
      Effect.flatMap(memory.bufferTokens, (before) => {
        const targetTokens = attempts === 1 ? Math.max(1, Math.floor(before / 2)) : 1
        return Effect.flatMap(
          memory.compact({ targetTokens, focus: options?.focus }),
          () => Effect.flatMap(memory.bufferTokens, (after) => after < before ? Effect.void : Effect.fail(giveUp(o)))
        )
      })
    const recurs = Schedule.recurs(retries)
    const schedule = options?.schedule === undefined ? recurs : Schedule.intersect(recurs, options.schedule)
    return attempt.pipe(
      // compact before each retry (the last refusal is not followed by one)
      Effect.tapError((e) => e instanceof Overflowed && attempts <= retries ? shrink(e) : Effect.void),
      Effect.retry({ schedule, while: (e) => e instanceof Overflowed }),
      Effect.catchIf((e): e is Overflowed => e instanceof Overflowed, (o) => Effect.fail(giveUp(o)))
    )
  })
