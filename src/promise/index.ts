/**
 * The Promise facade: the names a user of the Python package knows, in
 * TypeScript casing, as a thin shell over the Effect API.
 *
 * Sync classes (`RollingMemory`, `BufferMemory`, `WindowMemory`,
 * `SummaryMemory`) take a synchronous `summarize` and return nothing from
 * their adds; async classes (`AsyncRollingMemory`, `AsyncSummaryMemory`) take
 * a `summarize` returning a string or a Promise, and their adds return
 * Promises. Reads (`getMessages`, `getContext`, `summary`, `buffer`,
 * `toJSON`) and `clear()` are synchronous on every class.
 *
 * Errors: an add throws (or rejects with) the caller's own summarizer error
 * (not a wrapper); a counter that fails or returns something other than a
 * non-negative integer gives `TokenCountError`; bad options give
 * `ConfigError`; bad message fields `InvalidMessageError`; a bad state in
 * `fromJSON` gives `StateDecodeError`. None of them changes the memory beyond
 * what docs/contract.md section 5 allows (a failed summarizer keeps the appended turn).
 *
 * @example
 * ```ts
 * import { RollingMemory } from "rollmem/promise"
 *
 * const summarize = (summary: string, messages: ReadonlyArray<unknown>) =>
 *   `${summary}\n${messages.map(String).join("\n")}`.trim()
 * const memory = new RollingMemory({ maxTokens: 2000, summarize }) // or summarize: "drop" to drop evicted turns
 * memory.addUserMessage("Book me a flight to Rome")
 * memory.addAssistantMessage("For which dates?")
 * memory.getMessages() // what to send to the model
 * const saved = JSON.stringify(memory) // wire-format state
 * const restored = RollingMemory.fromJSON(JSON.parse(saved), { maxTokens: 2000, summarize })
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import type * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Rules from "../core/options.js"
import * as Overflow from "../core/overflow.js"
import { ConfigError, ContextOverflowError } from "../Errors.js"
import { markDecoded } from "../internal/decoded.js"
import type { Message } from "../schema/Message.js"
import * as OptionsSchema from "../schema/Options.js"
import type * as Archives from "../services/Archive.js"
import * as Summarizer from "../services/Summarizer.js"
import * as TokenCounter from "../services/TokenCounter.js"
import * as EffectBuffer from "../strategies/BufferMemory.js"
import type * as EffectMemory from "../strategies/Memory.js"
import * as EffectRolling from "../strategies/RollingMemory.js"
import * as EffectSummary from "../strategies/SummaryMemory.js"
import * as EffectWindow from "../strategies/WindowMemory.js"
import type * as PromiseArchive from "./Archive.js"
import {
  AsyncMemory,
  type AsyncSummarize,
  type CountTokens,
  decodeOrThrow,
  promiseSummarizer,
  type Restored,
  squash,
  stateOf,
  type Summarize,
  SyncMemory,
  unwrap
} from "./internal.js"

/** @since 0.4.0 */
export * as Archive from "./Archive.js"
export {
  /** @since 0.1.0 */
  ConversationMemory,
  /** @since 0.1.0 */
  Conversations,
  /** @since 0.1.0 */
  type ConversationsOptions,
  /** @since 0.1.0 */
  type StoreOption,
  /** @since 0.4.0 */
  type SummarizeOption
} from "./Conversations.js"
export {
  /** @since 0.1.0 */
  AsyncMemory,
  /** @since 0.1.0 */
  type AsyncSummarize,
  /** @since 0.1.0 */
  BaseMemory,
  /** @since 0.1.0 */
  type CountTokens,
  /** @since 0.2.0 */
  DisposedError,
  /** @since 0.1.0 */
  type MessageOptions,
  /** @since 0.1.0 */
  type Summarize,
  /** @since 0.1.0 */
  SyncMemory
} from "./internal.js"

export {
  /** An archive that failed to store or search (the fold commits nothing). @since 0.4.0 */
  ArchiveError,
  /** @since 0.1.0 */
  ConfigError,
  /** The provider still refused the request as too long after `withOverflowRetry`'s compactions. @since 0.3.0 */
  ContextOverflowError,
  /** Pinned messages and summary alone exceed `contextWindow` less its reserve. @since 0.3.0 */
  ContextWindowError,
  /** @since 0.1.0 */
  InvalidMessageError,
  /** @since 0.1.0 */
  StateDecodeError,
  /** @since 0.1.0 */
  SummarizerError,
  /** A summary over `maxSummaryTokens` (the fold commits nothing). @since 0.2.0 */
  SummaryBudgetError,
  /** @since 0.1.0 */
  TokenCountError,
  /** A usage passed to `recordUsage` that is refused: `inputTokens` not a positive integer, `overheadTokens` not a non-negative integer. @since 0.3.0 */
  UsageError
} from "../Errors.js"
export {
  /** @since 0.1.0 */
  ASSISTANT,
  /** @since 0.1.0 */
  Message,
  /** @since 0.1.0 */
  SYSTEM,
  /** @since 0.1.0 */
  TOOL,
  /** @since 0.1.0 */
  ToolCall,
  /** @since 0.1.0 */
  USER
} from "../schema/Message.js"
export {
  /**
   * Declares that a `summarize` function honours `request.mode` (its fourth
   * argument in the async classes, its third in the synchronous ones), which
   * `summary: "segments"` needs (docs/contract.md section 10.9): the
   * function it returns calls yours and carries `honoursMode: true`.
   *
   * @since 0.4.0
   */
  honouringMode
} from "../services/Summarizer.js"

/**
 * The context policies of a RollingMemory (docs/contract.md section 10),
 * the same as the Effect API's: `targetTokens`, `boundary`, `pinSystem`,
 * `clearToolResults`, `summaryRole`, `maxSummaryTokens` (see
 * `RollingMemory.Options` of the Effect API for each).
 *
 * @since 0.2.0
 * @category models
 */
export type RollingPolicies =
  & Omit<EffectRolling.Options, "maxTokens" | "fold" | "hardMaxTokens" | "foldRetry" | "archive">
  & ArchiveOption

/**
 * The facade's archive option (docs/contract.md section 17): where the
 * messages that leave the buffer go, each once, and what `recall` searches:
 * `Archive.memory()` (every class), `Archive.sqlite(path)` or
 * `Archive.postgres(url)` (the asynchronous classes). With
 * `conversationId`, the conversation they belong to (default: the restored
 * state's, else a new random id).
 *
 * @since 0.4.0
 * @category models
 */
export interface ArchiveOption {
  readonly archive?: PromiseArchive.Archive | undefined
  readonly conversationId?: string | undefined
}

/**
 * Options of `RollingMemory`.
 *
 * @since 0.1.0
 * @category models
 */
export interface RollingOptions extends RollingPolicies {
  /** Token budget of the buffer (positive integer, default 2000). */
  readonly maxTokens?: number | undefined
  /**
   * Folds evicted turns into the summary, or `"drop"` to drop them on
   * purpose (the Effect API's `Summarizer.drop`). Required: absent, the
   * constructor throws `ConfigError` (option `summarize`).
   */
  readonly summarize: Summarize | "drop"
  /** Counts tokens; default: whitespace-separated words. */
  readonly tokenCounter?: CountTokens | undefined
}

/**
 * Options of `AsyncRollingMemory`.
 *
 * @since 0.1.0
 * @category models
 */
export interface AsyncRollingOptions extends RollingPolicies {
  /** Token budget of the buffer (positive integer, default 2000). */
  readonly maxTokens?: number | undefined
  /**
   * Folds evicted turns into the summary (may return a Promise), or
   * `"drop"` to drop them on purpose (the Effect API's `Summarizer.drop`).
   * Required: absent, the constructor throws `ConfigError` (option
   * `summarize`).
   */
  readonly summarize: AsyncSummarize | "drop"
  /** Counts tokens; default: whitespace-separated words. */
  readonly tokenCounter?: CountTokens | undefined
  /**
   * When folds run (docs/contract.md section 5.1): `"blocking"` (default),
   * or `"background"`: an add resolves once its turn is appended, and folds
   * run one at a time behind it until `dispose()`, which interrupts the fold
   * in flight (committing nothing) and lets in the adds held back by
   * `hardMaxTokens` (they resolve). Needs a `summarize` function.
   */
  readonly fold?: "blocking" | "background" | undefined
  /**
   * With `fold: "background"`: the buffer's hard cap in tokens (default
   * twice `maxTokens`); an add that would pass it waits for the fold in
   * flight and rejects with that fold's error if it fails (its turn stays);
   * `dispose()` appends it at once and it resolves.
   */
  readonly hardMaxTokens?: number | undefined
  /**
   * With `fold: "background"`: how many times a failed fold is retried,
   * after 0.5 s, 1 s, 2 s, ... (default 0). A fold that still fails is
   * kept in `lastFoldFailure`; the next add over the budget starts a new one.
   */
  readonly foldRetries?: number | undefined
  /**
   * How long one summarizer call may take, in milliseconds (a positive
   * integer; default: no limit; needs a `summarize` function). A call that has not settled by then is
   * abandoned: the `AbortSignal` passed to `summarize` is aborted, and the
   * fold fails as any failed fold does (docs/contract.md section 5): nothing
   * is committed, the turn stays in the buffer. A blocking add rejects with
   * a `DOMException` named `"TimeoutError"` (as `AbortSignal.timeout` gives);
   * with background folds, the fold is retried (`foldRetries`) and then
   * kept in `lastFoldFailure`.
   */
  readonly timeout?: number | undefined
}

/**
 * Options of `BufferMemory`: the Effect API's (`summaryRole`), with a
 * function in place of the `TokenCounter` service.
 *
 * @since 0.3.0
 * @category models
 */
export interface BufferOptions extends EffectBuffer.Options {
  /**
   * Counts tokens, for `bufferTokens` and `contextTokens` only (nothing is
   * evicted); default: whitespace-separated words.
   */
  readonly tokenCounter?: CountTokens | undefined
}

/**
 * Options of `WindowMemory`: the Effect API's (`maxMessages`, required; the
 * context policies), with a token-counting function in place of the
 * `TokenCounter` service.
 *
 * @since 0.1.0
 * @category models
 */
export interface WindowOptions extends Omit<EffectWindow.Options, "archive">, ArchiveOption {
  /**
   * Counts tokens, for `bufferTokens` and `contextTokens` only (the window
   * evicts by message count); default: whitespace-separated words.
   */
  readonly tokenCounter?: CountTokens | undefined
}

/**
 * Options of `SummaryMemory`.
 *
 * @since 0.1.0
 * @category models
 */
export interface SummaryOptions extends Omit<EffectSummary.Options, "archive">, ArchiveOption {
  /** Folds each turn into the summary (required). */
  readonly summarize: Summarize
  /**
   * Counts tokens: the summary against `maxSummaryTokens`, and
   * `summaryTokens` / `contextTokens`; default: whitespace-separated words.
   */
  readonly tokenCounter?: CountTokens | undefined
}

/**
 * Options of `AsyncSummaryMemory`.
 *
 * @since 0.1.0
 * @category models
 */
export interface AsyncSummaryOptions extends Omit<EffectSummary.Options, "archive">, ArchiveOption {
  /** Folds each turn into the summary (required); may return a Promise. */
  readonly summarize: AsyncSummarize
  /** As {@link SummaryOptions.tokenCounter}. */
  readonly tokenCounter?: CountTokens | undefined
  /**
   * How long one summarizer call may take, in milliseconds (a positive
   * integer; default: no limit). A call that has not settled by then is
   * abandoned: the `AbortSignal` passed to `summarize` is aborted, and the
   * fold fails as any failed fold does (docs/contract.md section 5): nothing
   * is committed, the turn stays in the buffer. The add rejects with
   * a `DOMException` named `"TimeoutError"` (as `AbortSignal.timeout` gives).
   */
  readonly timeout?: number | undefined
}

// Decodes a class's options once with its schema (`Options.PromiseOptions`); throws the ConfigError.
const decodeOptions = <A, I>(schema: Schema.Schema<A, I>, options: unknown): A =>
  Either.getOrThrowWith(OptionsSchema.decode(schema, options), (error) => error)

/**
 * The Effect API's archive of a facade `archive` option (docs/contract.md
 * section 17); a synchronous class (`instead` names the class to use) refuses
 * one that needs I/O with `ConfigError`.
 */
const archiveOf = (
  archive: { readonly kind: string; readonly service: Archives.Service } | undefined,
  instead: string | undefined
): { readonly archive?: Archives.Service } => {
  if (archive === undefined) return {}
  if (instead !== undefined && archive.service.appendSync === undefined) {
    throw new ConfigError(Rules.syncArchive(archive.kind, instead))
  }
  return { archive: archive.service }
}

const counterOf = (tokenCounter: CountTokens | undefined): TokenCounter.Service =>
  tokenCounter === undefined ? TokenCounter.wordCounter : TokenCounter.fromFunction(tokenCounter)

// `foldRetries`: retried after 0.5 s, 1 s, 2 s, ...
const backoff = (retries: number): Schedule.Schedule<unknown, unknown> =>
  Schedule.exponential("500 millis").pipe(Schedule.intersect(Schedule.recurs(retries)))

// Builds a memory with its steps through the Effect API's `makeStepper`: at once when it is an Exit
// (a synchronous counter), else by running it synchronously. Throws its error.
const build = <M extends EffectMemory.Memory>(
  made: Effect.Effect<EffectMemory.Stepper<M>, unknown>
): EffectMemory.Stepper<M> =>
  squash(Exit.isExit(made) ? made as Exit.Exit<EffectMemory.Stepper<M>, unknown> : Effect.runSyncExit(made))

/**
 * A running summary plus a token-bounded buffer (docs/contract.md section 5), synchronous.
 * Throws `ConfigError` when `maxTokens` is not a positive integer, or
 * without `summarize` (a function, or `"drop"` to drop evicted turns).
 *
 * @example
 * ```ts
 * import { RollingMemory } from "rollmem/promise"
 *
 * const memory = new RollingMemory({ maxTokens: 2000, summarize: (summary, turns) => `${summary} +${turns.length}`.trim() })
 * memory.addUserMessage("Book me a flight to Rome")
 * memory.getMessages() // summary (when there is one) + recent turns
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export class RollingMemory extends SyncMemory {
  /** The token budget of the buffer. */
  readonly maxTokens: number
  constructor(options: RollingOptions)
  /** With `restored`: holding that state (what {@link RollingMemory.fromJSON} decoded). @internal */
  constructor(options: RollingOptions, restored: Restored)
  constructor(options: RollingOptions, restored?: Restored) {
    const { archive, summarize, tokenCounter, ...rolling } = decodeOptions(
      OptionsSchema.PromiseOptions.rolling,
      options
    )
    const withArchive = { ...rolling, ...archiveOf(archive, "AsyncRollingMemory") }
    const built = build(EffectRolling.makeStepper(markDecoded(withArchive, OptionsSchema.RollingOptions), {
      counter: counterOf(tokenCounter),
      summarizer: summarize === Rules.DROP ? Summarizer.drop : Summarizer.fromFunction(summarize as Summarize)
    }, { state: stateOf(restored) }))
    super(built, "RollingMemory")
    this.rolling = built.memory
    this.maxTokens = built.memory.maxTokens
  }
  /** @internal */
  private readonly rolling: EffectRolling.RollingMemory
  /**
   * Folds now, whatever the buffer's size (docs/contract.md section 16.2):
   * down to `targetTokens` (default the low-water mark, or half the budget),
   * never the newest unit; `focus` reaches the summarizer in its request
   * (fourth argument of `summarize`). Throws `ConfigError` on a wrong option,
   * the summarizer's own error otherwise (nothing committed).
   */
  compact(options?: EffectRolling.CompactOptions): void {
    this.assertLive()
    squash(Effect.runSyncExit(this.rolling.compact(options)))
  }
  /** Restores from a wire-format state (any strategy's), parsed or its JSON text; throws `StateDecodeError` on a bad one. */
  static fromJSON(data: unknown, options: RollingOptions): RollingMemory {
    return new RollingMemory(options, decodeOrThrow(data))
  }
}

/**
 * A running summary plus a token-bounded buffer (docs/contract.md section 5) whose adds
 * return Promises and whose summarizer may be asynchronous. Adds may overlap:
 * prunes run one at a time and no turn is lost. Throws `ConfigError` on a
 * wrong option, or without `summarize` (a function, or `"drop"`).
 *
 * @example
 * ```ts
 * import { AsyncRollingMemory } from "rollmem/promise"
 *
 * const memory = new AsyncRollingMemory({
 *   maxTokens: 2000,
 *   summarize: async (summary, turns, signal) => `${summary} +${turns.length}`.trim() // pass signal to your SDK
 * })
 * await memory.addUserMessage("Book me a flight to Rome")
 * const context = memory.getContext()
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export class AsyncRollingMemory extends AsyncMemory {
  /** The token budget of the buffer. */
  readonly maxTokens: number
  /** When folds run: `"blocking"` (default) or `"background"`. */
  readonly fold: "blocking" | "background"
  /** @internal */
  private readonly rolling: EffectRolling.RollingMemory
  constructor(options: AsyncRollingOptions)
  /** With `restored`: holding that state (what {@link AsyncRollingMemory.fromJSON} decoded). @internal */
  constructor(options: AsyncRollingOptions, restored: Restored)
  constructor(options: AsyncRollingOptions, restored?: Restored) {
    const { archive, foldRetries, summarize, timeout, tokenCounter, ...options_ } = decodeOptions(
      OptionsSchema.PromiseOptions.asyncRolling,
      options
    )
    const rolling = { ...options_, ...archiveOf(archive, undefined) }
    // Only background folds need a scope (dispose() closes it).
    const scope = rolling.fold === "background" ? Effect.runSync(Scope.make()) : undefined
    const built = build(EffectRolling.makeStepper(
      markDecoded(
        foldRetries === undefined ? rolling : { ...rolling, foldRetry: backoff(foldRetries) },
        OptionsSchema.RollingOptions
      ),
      {
        counter: counterOf(tokenCounter),
        summarizer: summarize === Rules.DROP
          ? Summarizer.drop
          : promiseSummarizer(summarize as AsyncSummarize, timeout)
      },
      { state: stateOf(restored), scope }
    ))
    super(built, "AsyncRollingMemory", scope)
    this.rolling = built.memory
    this.maxTokens = built.memory.maxTokens
    this.fold = built.memory.fold
  }
  /**
   * With background folds: the error of the last fold that failed after its
   * retries (your summarizer's own error), until a fold commits; `undefined`
   * when none failed, and always with blocking folds.
   */
  get lastFoldFailure(): unknown {
    return Option.match(Effect.runSync(this.rolling.lastFoldFailure), { onNone: () => undefined, onSome: unwrap })
  }
  /**
   * Folds now, whatever the buffer's size (docs/contract.md section 16.2):
   * down to `targetTokens` (default the low-water mark, or half the budget),
   * never the newest unit, one fold at a time with the adds' folds; `focus`
   * reaches the summarizer in its request. Rejects with `ConfigError` on a
   * wrong option or with background folds, with the summarizer's own error
   * otherwise (nothing committed).
   */
  compact(options?: EffectRolling.CompactOptions): Promise<void> {
    const refused = this.refused()
    return refused === undefined ? this.run(this.rolling.compact(options)) : Promise.reject(refused)
  }
  /** Restores from a wire-format state (any strategy's), parsed or its JSON text; throws `StateDecodeError` on a bad one. */
  static fromJSON(data: unknown, options: AsyncRollingOptions): AsyncRollingMemory {
    return new AsyncRollingMemory(options, decodeOrThrow(data))
  }
}

/**
 * Every turn, kept (docs/contract.md section 6). Options (all optional):
 * `summaryRole` (how a restored summary reads back, default `"system"`) and
 * `tokenCounter`. Throws `ConfigError` naming the option for options that
 * are `null` or not an object (option `options`), a misspelt key (listing
 * the known ones), a `summaryRole` other than `"system"` or `"user"`, or a
 * `tokenCounter` that is not a function.
 *
 * @example
 * ```ts
 * import { BufferMemory } from "rollmem/promise"
 *
 * const memory = new BufferMemory()
 * memory.addUserMessage("hi")
 * memory.addAssistantMessage("hello")
 * memory.getMessages().length // 2: every turn is kept
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export class BufferMemory extends SyncMemory {
  constructor(options?: BufferOptions)
  /** With `restored`: holding that state (what {@link BufferMemory.fromJSON} decoded). @internal */
  constructor(options: BufferOptions | undefined, restored: Restored)
  constructor(options: BufferOptions = {}, restored?: Restored) {
    const { tokenCounter, ...buffer } = decodeOptions(OptionsSchema.PromiseOptions.buffer, options)
    super(
      build(EffectBuffer.makeStepper(
        markDecoded(buffer, OptionsSchema.BufferOptions),
        { counter: counterOf(tokenCounter) },
        stateOf(restored)
      )),
      "BufferMemory"
    )
  }
  /**
   * Restores from a wire-format state (any strategy's), parsed or its JSON text; throws `StateDecodeError` on a bad one,
   * `ConfigError` on bad options (as the constructor).
   */
  static fromJSON(data: unknown, options: BufferOptions = {}): BufferMemory {
    return new BufferMemory(options, decodeOrThrow(data))
  }
}

/**
 * The last `maxMessages` messages, by units (docs/contract.md section 7). Throws
 * `ConfigError` when `maxMessages` is not a positive integer, on a misspelt
 * option, or a `tokenCounter` that is not a function.
 *
 * @example
 * ```ts
 * import { WindowMemory } from "rollmem/promise"
 *
 * const memory = new WindowMemory({ maxMessages: 2 })
 * for (const n of [1, 2, 3]) memory.addUserMessage(`turn ${n}`)
 * memory.getMessages().map((m) => m.content) // ["turn 2", "turn 3"]
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export class WindowMemory extends SyncMemory {
  /** The message budget of the buffer. */
  readonly maxMessages: number
  constructor(options: WindowOptions)
  /** With `restored`: holding that state (what {@link WindowMemory.fromJSON} decoded). @internal */
  constructor(options: WindowOptions, restored: Restored)
  constructor(options: WindowOptions, restored?: Restored) {
    const { archive, tokenCounter, ...window } = decodeOptions(OptionsSchema.PromiseOptions.window, options)
    const built = build(EffectWindow.makeStepper(
      markDecoded(
        { ...window, ...archiveOf(archive, "AsyncRollingMemory with summarize: \"drop\", or the Effect API's") },
        OptionsSchema.WindowOptions
      ),
      { counter: counterOf(tokenCounter) },
      stateOf(restored)
    ))
    super(built, "WindowMemory")
    this.maxMessages = built.memory.maxMessages
  }
  /** Restores from a wire-format state (any strategy's), parsed or its JSON text; throws `StateDecodeError` on a bad one. */
  static fromJSON(data: unknown, options: WindowOptions): WindowMemory {
    return new WindowMemory(options, decodeOrThrow(data))
  }
}

/**
 * A summary only (docs/contract.md section 8), synchronous. Throws `ConfigError` without
 * a `summarize` function.
 *
 * @example
 * ```ts
 * import { SummaryMemory } from "rollmem/promise"
 *
 * const memory = new SummaryMemory({ summarize: (summary, turns) => `${summary} ${turns.map(String).join("; ")}`.trim() })
 * memory.addUserMessage("I live in Rome")
 * memory.summary // "user: I live in Rome"
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export class SummaryMemory extends SyncMemory {
  constructor(options: SummaryOptions)
  /** With `restored`: holding that state (what {@link SummaryMemory.fromJSON} decoded). @internal */
  constructor(options: SummaryOptions, restored: Restored)
  constructor(options: SummaryOptions, restored?: Restored) {
    const { archive, summarize, tokenCounter, ...summary } = decodeOptions(
      OptionsSchema.PromiseOptions.summary,
      options
    )
    const built = build(EffectSummary.makeStepper(
      markDecoded({ ...summary, ...archiveOf(archive, "AsyncSummaryMemory") }, OptionsSchema.SummaryOptions),
      { counter: counterOf(tokenCounter), summarizer: Summarizer.fromFunction(summarize as Summarize) },
      stateOf(restored)
    ))
    super(built, "SummaryMemory")
    this.summaryMemory = built.memory
  }
  /** @internal */
  private readonly summaryMemory: EffectSummary.SummaryMemory
  /** Folds the pending turns now, with `focus` in the summarizer's request (docs/contract.md section 16.2). */
  compact(options?: EffectRolling.CompactOptions): void {
    this.assertLive()
    squash(Effect.runSyncExit(this.summaryMemory.compact(options)))
  }
  /** Restores from a wire-format state (any strategy's), parsed or its JSON text; throws `StateDecodeError` on a bad one. */
  static fromJSON(data: unknown, options: SummaryOptions): SummaryMemory {
    return new SummaryMemory(options, decodeOrThrow(data))
  }
}

/**
 * A summary only (docs/contract.md section 8) whose adds return Promises and whose
 * summarizer may be asynchronous. Throws `ConfigError` without `summarize`.
 *
 * @example
 * ```ts
 * import { AsyncSummaryMemory } from "rollmem/promise"
 *
 * const memory = new AsyncSummaryMemory({ summarize: async (summary, turns) => `${summary} +${turns.length}`.trim() })
 * await memory.addUserMessage("I live in Rome")
 * const summary = memory.summary
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export class AsyncSummaryMemory extends AsyncMemory {
  constructor(options: AsyncSummaryOptions)
  /** With `restored`: holding that state (what {@link AsyncSummaryMemory.fromJSON} decoded). @internal */
  constructor(options: AsyncSummaryOptions, restored: Restored)
  constructor(options: AsyncSummaryOptions, restored?: Restored) {
    const { archive, summarize, timeout, tokenCounter, ...options_ } = decodeOptions(
      OptionsSchema.PromiseOptions.asyncSummary,
      options
    )
    const summary = { ...options_, ...archiveOf(archive, undefined) }
    const built = build(EffectSummary.makeStepper(
      markDecoded(summary, OptionsSchema.SummaryOptions),
      { counter: counterOf(tokenCounter), summarizer: promiseSummarizer(summarize as AsyncSummarize, timeout) },
      stateOf(restored)
    ))
    super(built, "AsyncSummaryMemory")
    this.summaryMemory = built.memory
  }
  /** @internal */
  private readonly summaryMemory: EffectSummary.SummaryMemory
  /** Folds the pending turns now, with `focus` in the summarizer's request (docs/contract.md section 16.2). */
  compact(options?: EffectRolling.CompactOptions): Promise<void> {
    const refused = this.refused()
    return refused === undefined ? this.run(this.summaryMemory.compact(options)) : Promise.reject(refused)
  }
  /** Restores from a wire-format state (any strategy's), parsed or its JSON text; throws `StateDecodeError` on a bad one. */
  static fromJSON(data: unknown, options: AsyncSummaryOptions): AsyncSummaryMemory {
    return new AsyncSummaryMemory(options, decodeOrThrow(data))
  }
}

/**
 * A facade memory that can fold on demand (`RollingMemory`,
 * `AsyncRollingMemory`, `SummaryMemory`, `AsyncSummaryMemory`).
 *
 * @since 0.3.0
 * @category models
 */
export interface Compactable {
  getMessages(): Array<Message>
  readonly bufferTokens: number
  compact(options?: EffectRolling.CompactOptions): void | Promise<void>
}

/**
 * Calls the model with the memory's context and, when the provider refuses
 * it as too long (docs/contract.md section 16.3: OpenAI
 * `context_length_exceeded`, Anthropic "prompt is too long", Gemini's
 * token-limit `INVALID_ARGUMENT`, or your own `recognizers`), compacts and
 * calls again, at most `retries` times (default 2): first down to half the
 * buffer, then down to the newest unit. Throws `ContextOverflowError`
 * (the provider's numbers, `attempts`, the last error as `cause`) when the
 * provider still refuses or the buffer cannot shrink; any other error of the
 * call is thrown as it is. No turn is lost: a failed compaction commits
 * nothing.
 *
 * @example
 * ```ts
 * import { AsyncRollingMemory, type Message, withOverflowRetry } from "rollmem/promise"
 *
 * declare const callModel: (messages: Array<Message>) => Promise<string>
 * declare const summarize: (summary: string, turns: ReadonlyArray<Message>) => Promise<string>
 * const memory = new AsyncRollingMemory({ contextWindow: { tokens: 128_000, reserveTokens: 8_000 }, summarize })
 * const answer = await withOverflowRetry(memory, callModel)
 * ```
 *
 * @since 0.3.0
 * @category combinators
 */
export const withOverflowRetry = async <A>(
  memory: Compactable,
  call: (messages: Array<Message>) => Promise<A>,
  options?: {
    readonly retries?: number | undefined
    readonly recognizers?: ReadonlyArray<Overflow.Recognizer> | undefined
    readonly focus?: string | undefined
  }
): Promise<A> => {
  const problem = Rules.overflowRetryOptions(options)
  if (problem !== undefined) throw new ConfigError(problem)
  const retries = options?.retries ?? 2
  if (!Number.isSafeInteger(retries) || retries < 0) {
    throw new ConfigError({ option: "retries", description: `must be a non-negative integer, got ${String(retries)}` })
  }
  const recognizers = options?.recognizers ?? Overflow.defaultRecognizers
  for (let attempts = 1;; attempts++) {
    try {
      return await call(memory.getMessages())
    } catch (error) {
      const overflow = Overflow.recognize(error, recognizers)
      if (overflow === undefined) throw error
      const giveUp = new ContextOverflowError({
        provider: overflow.provider,
        requestedTokens: overflow.requestedTokens,
        maxTokens: overflow.maxTokens,
        attempts,
        cause: error
      })
      if (attempts > retries) throw giveUp
      const before = memory.bufferTokens
      await memory.compact({
        targetTokens: attempts === 1 ? Math.max(1, Math.floor(before / 2)) : 1,
        focus: options?.focus
      })
      if (memory.bufferTokens >= before) throw giveUp
    }
  }
}
