/**
 * The Promise facade on the Effect 4 line (`rollmem/promise`): classes over
 * the Effect 4 strategies for code that does not use Effect, with the Effect
 * 3 facade's names and options (`summarize` a function or `"drop"`,
 * `tokenCounter` a function). A synchronous class runs each add in the
 * caller's step; an async class returns a promise per add, each summarizer
 * call bounded by the `timeout` option when given. Errors are thrown (or
 * rejected) as the typed errors themselves, except a summarizer's: an add
 * throws the caller's own summarizer error, the `cause` of the
 * `SummarizerError` (docs/contract.md section 9), as the Effect 3 facade
 * does. `AsyncRollingMemory` takes background folds (`fold`,
 * `hardMaxTokens`, `foldRetries`); the classes but `BufferMemory` take an
 * `archive` (`Archive.memory()`, and in the async classes `Archive.sqlite`
 * and `Archive.postgres`) and `recall` from it. `Conversations`
 * (`Conversations.ts`) keeps conversations in a store, as on the Effect 3
 * line.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Rules from "../../../src/core/options.js"
import { restoreInputProblem } from "../../../src/core/state.js"
import { ConfigError, StateDecodeError } from "../Errors.js"
import * as MemoryState from "../schema/MemoryState.js"
import { keysOf } from "../schema/Options.js"
import type * as Archives from "../services/Archive.js"
import * as Summarizer from "../services/Summarizer.js"
import * as TokenCounter from "../services/TokenCounter.js"
import * as Buffer from "../strategies/BufferMemory.js"
import type { CompactOptions } from "../strategies/internal/engine.js"
import * as Rolling from "../strategies/RollingMemory.js"
import * as Summary from "../strategies/SummaryMemory.js"
import * as Window from "../strategies/WindowMemory.js"
import * as PromiseArchive from "./Archive.js"
import {
  AsyncMemory,
  type AsyncSummarize,
  bounded,
  check,
  type CountTokens,
  squash,
  type Summarize,
  SyncMemory,
  unwrap
} from "./internal.js"

/** @since 1.0.0 */
export * as Archive from "./Archive.js"

export {
  ArchiveError,
  ConfigError,
  ContextWindowError,
  InvalidMessageError,
  StateDecodeError,
  SummarizerError,
  SummaryBudgetError,
  TokenCountError,
  UsageError
} from "../Errors.js"
export { ASSISTANT, Message, SYSTEM, TOOL, ToolCall, USER } from "../schema/Message.js"
export {
  /**
   * Declares that a `summarize` function honours `request.mode` (its fourth
   * argument in the async classes, its third in the synchronous ones), which
   * `summary: "segments"` needs (docs/contract.md section 10.9): the
   * function it returns calls yours and carries `honoursMode: true`.
   *
   * @example
   * ```ts
   * import { honouringMode, RollingMemory } from "rollmem/promise"
   * const memory = new RollingMemory({
   *   maxTokens: 200,
   *   summary: "segments",
   *   summarize: honouringMode((_summary: string, turns: ReadonlyArray<{ readonly content: string }>) =>
   *     turns.map((t) => t.content).join(" ")
   *   )
   * })
   * ```
   *
   * @since 1.0.0
   */
  honouringMode
} from "../services/Summarizer.js"
export { ConversationMemory, Conversations, type ConversationsOptions, type StoreOption } from "./Conversations.js"
export {
  AsyncMemory,
  type AsyncSummarize,
  BaseMemory,
  type CountTokens,
  DisposedError,
  type Summarize,
  SyncMemory
} from "./internal.js"

/** The facade's own options taken off; the rest is the strategy's. */
const split = (
  options: unknown,
  own: ReadonlyArray<string>,
  strategy?: Rules.Strategy
): { readonly own: { readonly [key: string]: unknown }; readonly rest: { readonly [key: string]: unknown } } => {
  // absent options are none; `null` is not options (ConfigError on `options`, as on the Effect 3 line)
  check("options", Rules.options, options === undefined ? {} : options)
  const all = (options ?? {}) as { readonly [key: string]: unknown }
  const mine: Record<string, unknown> = {}
  const rest: Record<string, unknown> = {}
  for (const key of Object.keys(all)) (own.includes(key) ? mine : rest)[key] = all[key]
  if (strategy !== undefined) {
    // an unknown key lists the class's every key, the strategy's and the facade's own
    for (const key of Object.keys(rest)) {
      if (keysOf[strategy].includes(key)) continue
      throw new ConfigError({
        option: key,
        description: Rules.unknownOption([...new Set([...keysOf[strategy], ...own])])
      })
    }
  }
  return { own: mine, rest }
}

/**
 * The Effect API's archive of a facade `archive` option (docs/contract.md
 * section 17); a synchronous class (`instead` names the class to use)
 * refuses one that needs I/O with `ConfigError`.
 */
const archiveOf = (archive: unknown, instead: string | undefined): { readonly archive?: Archives.Service } => {
  if (archive === undefined) return {}
  check("archive", Rules.promiseArchive, archive)
  const given = archive as PromiseArchive.Archive
  if (instead !== undefined && !PromiseArchive.isSync(given)) {
    throw new ConfigError(Rules.syncArchive(given.kind, instead))
  }
  return { archive: given.service }
}

/** The archive option of the facade's classes, in place of the Effect API's service. @since 1.0.0 */
export interface ArchiveOption {
  readonly archive?: PromiseArchive.Archive | undefined
  readonly conversationId?: string | undefined
}

const counterOf = (tokenCounter: unknown): TokenCounter.Service => {
  if (tokenCounter === undefined) return TokenCounter.wordCounter
  check("tokenCounter", Rules.isFunction, tokenCounter)
  return TokenCounter.fromFunction(tokenCounter as CountTokens)
}

/**
 * The async classes' `timeout` (milliseconds), checked: a positive integer,
 * given with a `summarize` function (docs/contract.md section 9).
 */
const timeoutOf = (own: { readonly [key: string]: unknown }, fold: unknown): number | undefined => {
  if (own.timeout !== undefined) check("timeout", Rules.milliseconds, own.timeout)
  // `timeout` and `fold: "background"` need a summarize function (not "drop")
  const needs = Rules.promiseNeeds({ summarize: own.summarize, timeout: own.timeout, fold }, Rules.camel)
  if (needs !== undefined) throw new ConfigError(needs)
  return own.timeout as number | undefined
}

const summarizerOf = (
  own: { readonly [key: string]: unknown },
  async: boolean,
  fold?: unknown
): Summarizer.Service => {
  const summarize = own.summarize
  if (summarize !== Rules.DROP) check("summarize", Rules.summarizeOrDrop, summarize)
  const timeout = async ? timeoutOf(own, fold) : undefined
  if (summarize === Rules.DROP) return Summarizer.drop
  if (!async) return Summarizer.fromFunction(summarize as Summarize)
  const f = summarize as AsyncSummarize
  const call: AsyncSummarize = (summary, messages, signal, request) => f(summary, messages, signal, request)
  // a function marked with honouringMode keeps its mark (docs/contract.md section 10.9)
  return bounded(Summarizer.fromPromise(Summarizer.honoursMode(f) ? Summarizer.honouringMode(call) : call), timeout)
}

/** The facade's own keys: every class's, and the async classes' `timeout`. */
const ownKeys = (async: boolean): ReadonlyArray<string> =>
  async ? ["summarize", "tokenCounter", "timeout"] : ["summarize", "tokenCounter"]

/** Background folds' options, `AsyncRollingMemory`'s only (`foldRetries` in place of the Effect API's `foldRetry`). */
const BACKGROUND_KEYS: ReadonlyArray<string> = ["fold", "hardMaxTokens", "foldRetries"]

// `foldRetries`: retried after 0.5 s, 1 s, 2 s, ...
const backoff = (retries: number): Schedule.Schedule<unknown, unknown> =>
  Schedule.max([Schedule.exponential("500 millis"), Schedule.recurs(retries)])

const build = <A>(
  made: Effect.Effect<A, unknown, Summarizer.Summarizer>,
  counter: TokenCounter.Service,
  summarizer: Summarizer.Service
): A =>
  squash(Effect.runSyncExit(made.pipe(
    Effect.provide(Layer.succeed(Summarizer.Summarizer, summarizer)),
    Effect.provideService(TokenCounter.TokenCounter, counter)
  )))

const restored = (data: unknown): MemoryState.MemoryState => {
  const problem = restoreInputProblem(data)
  if (problem !== undefined) throw new StateDecodeError({ description: problem })
  return squash(
    Effect.runSyncExit(typeof data === "string" ? MemoryState.fromString(data) : MemoryState.fromJSON(data))
  )
}

/** RollingMemory's facade options: the Effect API's, `summarize` (required) and `tokenCounter`. @since 1.0.0 */
export interface RollingOptions
  extends Omit<Rolling.Options, "fold" | "hardMaxTokens" | "foldRetry" | "archive">, ArchiveOption
{
  readonly summarize: Summarize | "drop"
  readonly tokenCounter?: CountTokens | undefined
}

/** AsyncRollingMemory's options. @since 1.0.0 */
export interface AsyncRollingOptions extends Omit<Rolling.Options, "foldRetry" | "archive">, ArchiveOption {
  readonly summarize: AsyncSummarize | "drop"
  readonly tokenCounter?: CountTokens | undefined
  /**
   * With `fold: "background"` (docs/contract.md section 5.1): how many times
   * a failed fold is retried, after 0.5 s, 1 s, 2 s, ... (default 0). A fold
   * that still fails is kept in `lastFoldFailure`.
   */
  readonly foldRetries?: number | undefined
  /**
   * How long one summarizer call may take, in milliseconds (a positive
   * integer; default: no limit; needs a `summarize` function). A call that
   * has not settled by then is abandoned: the `AbortSignal` passed to
   * `summarize` is aborted, and the fold fails as any failed fold does
   * (docs/contract.md section 5): nothing is committed, the turn stays in the
   * buffer. The add rejects with a `DOMException` named `"TimeoutError"` (as
   * `AbortSignal.timeout` gives).
   */
  readonly timeout?: number | undefined
}

const rolling = (
  options: unknown,
  state: MemoryState.MemoryState | undefined,
  async: boolean
): { readonly memory: Rolling.RollingMemory; readonly scope: Scope.Closeable | undefined } => {
  const { own, rest } = split(options, [...ownKeys(async), "archive", ...(async ? ["foldRetries"] : [])])
  // the synchronous class takes no background folds; foldRetry (a Schedule) is foldRetries here
  const known = [...keysOf.rolling, ...ownKeys(async), ...(async ? BACKGROUND_KEYS : [])]
  for (const key of Object.keys(rest)) {
    if (!known.includes(key)) throw new ConfigError({ option: key, description: Rules.unknownOption(known) })
  }
  const strategy: { [key: string]: unknown } = {
    ...rest,
    ...archiveOf(own.archive, async ? undefined : "AsyncRollingMemory")
  }
  if (own.foldRetries !== undefined) {
    check("foldRetries", Rules.nonNegativeInteger, own.foldRetries)
    const needs = Rules.foldRules({ fold: rest.fold, foldRetries: own.foldRetries } as Rules.FoldOptions, Rules.camel)
    if (needs !== undefined) throw new ConfigError(needs)
    strategy.foldRetry = backoff(own.foldRetries as number)
  }
  const counter = counterOf(own.tokenCounter)
  const summarizer = summarizerOf(own, async, rest.fold)
  if (rest.fold !== "background") {
    return {
      memory: build(Rolling.fromState(state, strategy as Rolling.Options), counter, summarizer),
      scope: undefined
    }
  }
  // only background folds need a scope (dispose() closes it)
  const scope = Effect.runSync(Scope.make())
  const memory = build(
    Scope.provide(Rolling.makeScoped(strategy as Rolling.Options, state), scope),
    counter,
    summarizer
  )
  return { memory, scope }
}

/**
 * A running summary plus a token-bounded buffer (docs/contract.md section 5), synchronous.
 *
 * @example
 * ```ts
 * import { RollingMemory } from "rollmem/promise"
 * const memory = new RollingMemory({ maxTokens: 1000, summarize: "drop" })
 * memory.addUserMessage("hello")
 * memory.getContext() // "user: hello"
 * ```
 *
 * @since 1.0.0
 */
export class RollingMemory extends SyncMemory {
  constructor(options: RollingOptions, state?: MemoryState.MemoryState) {
    super(rolling(options, state, false).memory, "RollingMemory")
  }

  /** Folds (or drops) down to the target now (docs/contract.md section 16.2). */
  compact(options?: CompactOptions): void {
    this.assertLive()
    squash(Effect.runSyncExit((this.memory as Rolling.RollingMemory).compact(options)))
  }

  /** A RollingMemory holding a state file (parsed or text). */
  static fromJSON(data: unknown, options: RollingOptions): RollingMemory {
    return new RollingMemory(options, restored(data))
  }
}

/** RollingMemory with an async summarizer. @since 1.0.0 */
export class AsyncRollingMemory extends AsyncMemory {
  constructor(options: AsyncRollingOptions, state?: MemoryState.MemoryState) {
    const { memory, scope } = rolling(options, state, true)
    super(memory, "AsyncRollingMemory", scope)
  }

  /** When folds run: `"blocking"` (default) or `"background"`. */
  get fold(): "blocking" | "background" {
    return (this.memory as Rolling.RollingMemory).fold
  }

  /**
   * With background folds: the error of the last fold that failed after its
   * retries (the summarizer's own error, as an add throws it), until a fold
   * commits; `undefined` when none failed, and always with blocking folds.
   */
  get lastFoldFailure(): unknown {
    const failure = Effect.runSync((this.memory as Rolling.RollingMemory).lastFoldFailure)
    return Option.isSome(failure) ? unwrap(failure.value) : undefined
  }

  /** Folds (or drops) down to the target now (docs/contract.md section 16.2). */
  compact(options?: CompactOptions): Promise<void> {
    return this.run((this.memory as Rolling.RollingMemory).compact(options))
  }

  /** An AsyncRollingMemory holding a state file. */
  static fromJSON(data: unknown, options: AsyncRollingOptions): AsyncRollingMemory {
    return new AsyncRollingMemory(options, restored(data))
  }
}

/** BufferMemory's facade options. @since 1.0.0 */
export interface BufferOptions extends Buffer.Options {
  readonly tokenCounter?: CountTokens | undefined
}

/** Every turn kept (docs/contract.md section 6). @since 1.0.0 */
export class BufferMemory extends SyncMemory {
  constructor(options: BufferOptions = {}, state?: MemoryState.MemoryState) {
    const { own, rest } = split(options, ["tokenCounter"], "buffer")
    super(
      build(Buffer.fromState(state, rest as Buffer.Options), counterOf(own.tokenCounter), Summarizer.drop),
      "BufferMemory"
    )
  }

  /** A BufferMemory holding a state file. */
  static fromJSON(data: unknown, options: BufferOptions = {}): BufferMemory {
    return new BufferMemory(options, restored(data))
  }
}

/** WindowMemory's facade options. @since 1.0.0 */
export interface WindowOptions extends Omit<Window.Options, "archive">, ArchiveOption {
  readonly tokenCounter?: CountTokens | undefined
}

/** The last `maxMessages` messages (docs/contract.md section 7). @since 1.0.0 */
export class WindowMemory extends SyncMemory {
  constructor(options: WindowOptions, state?: MemoryState.MemoryState) {
    const { own, rest } = split(options, ["tokenCounter", "archive"], "window")
    const archive = archiveOf(own.archive, "AsyncRollingMemory with summarize: \"drop\", or the Effect API's")
    super(
      build(
        Window.fromState(state, { ...rest, ...archive } as unknown as Window.Options),
        counterOf(own.tokenCounter),
        Summarizer.drop
      ),
      "WindowMemory"
    )
  }

  /** A WindowMemory holding a state file. */
  static fromJSON(data: unknown, options: WindowOptions): WindowMemory {
    return new WindowMemory(options, restored(data))
  }
}

/** SummaryMemory's facade options: `summarize` required. @since 1.0.0 */
export interface SummaryOptions extends Omit<Summary.Options, "archive">, ArchiveOption {
  readonly summarize: Summarize
  readonly tokenCounter?: CountTokens | undefined
}

/** AsyncSummaryMemory's options. @since 1.0.0 */
export interface AsyncSummaryOptions extends Omit<Summary.Options, "archive">, ArchiveOption {
  readonly summarize: AsyncSummarize
  readonly tokenCounter?: CountTokens | undefined
  /** As {@link AsyncRollingOptions.timeout}. */
  readonly timeout?: number | undefined
}

const summary = (options: unknown, state: MemoryState.MemoryState | undefined, async: boolean) => {
  const { own, rest } = split(options, [...ownKeys(async), "archive"], "summary")
  check("summarize", Rules.summarizeFunction, own.summarize)
  const archive = archiveOf(own.archive, async ? undefined : "AsyncSummaryMemory")
  return build(
    Summary.fromState(state, { ...rest, ...archive } as Summary.Options),
    counterOf(own.tokenCounter),
    summarizerOf(own, async)
  )
}

/** Every turn folded into the summary at once (docs/contract.md section 8). @since 1.0.0 */
export class SummaryMemory extends SyncMemory {
  constructor(options: SummaryOptions, state?: MemoryState.MemoryState) {
    super(summary(options, state, false), "SummaryMemory")
  }

  /** Folds every pending turn now. */
  compact(options?: CompactOptions): void {
    this.assertLive()
    squash(Effect.runSyncExit((this.memory as Summary.SummaryMemory).compact(options)))
  }

  /** A SummaryMemory holding a state file. */
  static fromJSON(data: unknown, options: SummaryOptions): SummaryMemory {
    return new SummaryMemory(options, restored(data))
  }
}

/** SummaryMemory with an async summarizer. @since 1.0.0 */
export class AsyncSummaryMemory extends AsyncMemory {
  constructor(options: AsyncSummaryOptions, state?: MemoryState.MemoryState) {
    super(summary(options, state, true), "AsyncSummaryMemory")
  }

  /** Folds every pending turn now. */
  compact(options?: CompactOptions): Promise<void> {
    return this.run((this.memory as Summary.SummaryMemory).compact(options))
  }

  /** An AsyncSummaryMemory holding a state file. */
  static fromJSON(data: unknown, options: AsyncSummaryOptions): AsyncSummaryMemory {
    return new AsyncSummaryMemory(options, restored(data))
  }
}
