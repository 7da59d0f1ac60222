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
 * and `Archive.postgres`) and `recall` from it. Not here yet:
 * `Conversations`.
 *
 * @since 1.0.0
 */
import { Cause, Duration, Effect, Exit, Fiber, Layer, Option, Schedule, Schema, Scope } from "effect"
import * as MessageCore from "../../../src/core/message.js"
import * as Rules from "../../../src/core/options.js"
import { restoreInputProblem } from "../../../src/core/state.js"
import { ConfigError, InvalidMessageError, StateDecodeError, SummarizerError } from "../Errors.js"
import * as MemoryState from "../schema/MemoryState.js"
import * as Message from "../schema/Message.js"
import { keysOf } from "../schema/Options.js"
import type * as Archives from "../services/Archive.js"
import { refusals, thrownAsIs } from "../services/internal/summarizing.js"
import * as Summarizer from "../services/Summarizer.js"
import * as TokenCounter from "../services/TokenCounter.js"
import * as Buffer from "../strategies/BufferMemory.js"
import type { CompactOptions, Memory, Usage } from "../strategies/internal/engine.js"
import * as Rolling from "../strategies/RollingMemory.js"
import * as Summary from "../strategies/SummaryMemory.js"
import * as Window from "../strategies/WindowMemory.js"
import * as PromiseArchive from "./Archive.js"

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

/** A synchronous summarizer: the new summary from the current one and the evicted turns. @since 1.0.0 */
export type Summarize = (
  summary: string,
  messages: ReadonlyArray<Message.Message>,
  request: Summarizer.Request
) => string

/** An async summarizer (a string or a promise of one); `signal` aborts when the memory is disposed or the call times out. @since 1.0.0 */
export type AsyncSummarize = (
  summary: string,
  messages: ReadonlyArray<Message.Message>,
  signal: AbortSignal,
  request: Summarizer.Request
) => string | PromiseLike<string>

/** A token counter as a plain function (default: words). @since 1.0.0 */
export type CountTokens = (text: string) => number

/** Refused: the memory was disposed (docs/contract.md section 5.2). @since 1.0.0 */
export class DisposedError extends Schema.TaggedError<DisposedError>("rollmem/DisposedError")("DisposedError", {
  object: Schema.String,
  description: Schema.String
}) {
  /** Its tag, as the Effect 3 line names its errors (`error.name`, docs/contract.md section 9). */
  override get name(): string {
    return this._tag
  }
  override get message(): string {
    return this.description
  }
}

/**
 * What an add throws for a failure (docs/contract.md section 9): the
 * summarizer's own error, the `cause` of the `SummarizerError` wrapped around
 * it; the `SummarizerError` itself when there is no error to hand back (a
 * thrown `null` or `undefined`, a result refused by the memory) or when the
 * summarizer threw that `SummarizerError` itself.
 */
const unwrap = (error: unknown): unknown =>
  error instanceof SummarizerError && !thrownAsIs.has(error) && !refusals.has(error) && error.cause !== undefined &&
    error.cause !== null
    ? error.cause
    : error

const squash = <A, E>(exit: Exit.Exit<A, E>): A => {
  if (Exit.isSuccess(exit)) return exit.value
  throw unwrap(Cause.squash(exit.cause))
}

const check = (option: string, rule: Rules.Check, value: unknown): void => {
  const problem = rule(value)
  if (problem !== undefined) throw new ConfigError({ option, description: problem })
}

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

/**
 * Each call of `summarizer` bounded by `millis`: a call that has not settled
 * by then is interrupted (its `AbortSignal` aborts) and fails with a
 * `SummarizerError` whose cause is a `DOMException` named `"TimeoutError"`,
 * which the add throws.
 */
const bounded = (summarizer: Summarizer.Service, millis: number | undefined): Summarizer.Service => {
  if (millis === undefined) return summarizer
  const duration = Duration.millis(millis)
  const orElse = () =>
    Effect.fail(
      new SummarizerError({
        description: `no summary within ${millis} ms (the timeout option)`,
        cause: new DOMException(`the summarizer did not settle within ${millis} ms`, "TimeoutError")
      })
    )
  return {
    ...summarizer,
    summarize: (summary, messages, request) =>
      Effect.timeoutOrElse(summarizer.summarize(summary, messages, request), { duration, orElse })
  }
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

/**
 * The messages of an `addMessages` call, each checked as `addMessage` checks
 * one (a message, or an object of its fields); throws `InvalidMessageError`
 * for what is not an array of message objects (`"hi"`, `[null]`), before
 * anything is added, as the Effect 3 facade does (`core/message.ts`
 * `messagesOf`).
 */
const toMessages = (messages: unknown): Array<Message.Message> => {
  const made = MessageCore.messagesOf(messages, (m) => {
    if (m instanceof Message.Message) return m
    const { content, role, ...options } = m as { readonly role: string; readonly content: string }
    return Message.make(role, content, options)
  })
  if ("problem" in made) throw new InvalidMessageError({ description: made.problem })
  return made.messages
}

/** What every facade memory shares: the reads, `clear`, usage, state and `dispose`. @since 1.0.0 */
export abstract class BaseMemory {
  protected disposed = false
  protected readonly inFlight = new Set<Fiber.Fiber<void, unknown>>()

  protected constructor(
    protected readonly memory: Memory,
    protected readonly kind: string,
    /** The scope that owns background folds, closed by `dispose()`. */
    protected readonly scope?: Scope.Closeable
  ) {}

  protected assertLive(): void {
    if (!this.disposed) return
    throw new DisposedError({
      object: this.kind,
      description: `this ${this.kind} was disposed: nothing was added, cleared or compacted; its reads still ` +
        `work: to go on, restore its state into a new one (${this.kind}.fromJSON(memory.toJSON(), options))`
    })
  }

  /** The summary (`""` when none). */
  get summary(): string {
    return Effect.runSync(this.memory.summary)
  }

  /** The buffered messages, oldest first. */
  get buffer(): ReadonlyArray<Message.Message> {
    return Effect.runSync(this.memory.buffer)
  }

  /** The buffer's tokens, pinned messages excluded. */
  get bufferTokens(): number {
    return Effect.runSync(this.memory.bufferTokens)
  }

  /** The pinned messages' tokens. */
  get pinnedTokens(): number {
    return Effect.runSync(this.memory.pinnedTokens)
  }

  /** The summary's tokens. */
  get summaryTokens(): number {
    return Effect.runSync(this.memory.summaryTokens)
  }

  /** The whole context's tokens: pinned messages, summary and buffer. */
  get contextTokens(): number {
    return Effect.runSync(this.memory.contextTokens)
  }

  /** What the model is sent: leading pinned messages, the summary, then the buffer. */
  getMessages(): Array<Message.Message> {
    return [...Effect.runSync(this.memory.messages)]
  }

  /** {@link getMessages} as one string, a message per line. */
  getContext(): string {
    return Effect.runSync(this.memory.context)
  }

  /** Records a provider's usage for the last request (docs/contract.md section 16.4). */
  recordUsage(usage: Usage): void {
    this.assertLive()
    squash(Effect.runSyncExit(this.memory.recordUsage(usage)))
  }

  /** The usage correction ratio (1 until a usage is recorded). */
  get usageRatio(): number {
    return Effect.runSync(this.memory.usageRatio)
  }

  /** Empties the summary and the buffer. */
  clear(): void {
    this.assertLive()
    Effect.runSync(this.memory.clear)
  }

  /** The state file (docs/contract.md section 2). */
  toJSON(): MemoryState.Encoded {
    return Effect.runSync(this.memory.toJSON)
  }

  /**
   * Refuses later changes and interrupts the summarizer calls in flight (their signals abort); with
   * background folds, interrupts the fold in flight (committing nothing) and lets the held-back adds
   * in (they resolve).
   */
  dispose(): Promise<void> {
    this.disposed = true
    const scope = this.scope
    if (scope === undefined) {
      const fibers = [...this.inFlight]
      return fibers.length === 0 ? Promise.resolve() : Effect.runPromise(Fiber.interruptAll(fibers))
    }
    // Background folds: an add's fiber only waits for room under the hard cap. Interrupting it would
    // drop its turn; closing the scope interrupts the fold in flight and admits every held-back add.
    return Effect.runPromise(
      Effect.andThen(
        Scope.close(scope, Exit.void),
        Effect.suspend(() => Effect.asVoid(Fiber.awaitAll([...this.inFlight])))
      )
    )
  }
}

/** A memory whose adds complete in the caller's step (a synchronous summarizer). @since 1.0.0 */
export abstract class SyncMemory extends BaseMemory {
  /** Adds a message; throws the add's typed error, or the summarizer's own error (docs/contract.md section 9). */
  add(message: Message.Message): void {
    this.assertLive()
    squash(Effect.runSyncExit(this.memory.add(message)))
  }

  /** Adds several messages, pruning once. */
  addMessages(messages: ReadonlyArray<Message.Message>): void {
    this.assertLive()
    squash(Effect.runSyncExit(this.memory.addMessages(toMessages(messages))))
  }

  /** Adds a message from its role, content and options. */
  addMessage(role: string, content: string, options?: Message.MessageOptions): void {
    this.add(Message.make(role, content, options))
  }

  /** Adds a user message. */
  addUserMessage(content: string, options?: Message.MessageOptions): void {
    this.add(Message.user(content, options))
  }

  /** Adds an assistant message (pass `toolCalls` for a tool call). */
  addAssistantMessage(content: string, options?: Message.MessageOptions): void {
    this.add(Message.assistant(content, options))
  }

  /** Adds a `system` message. */
  addSystemMessage(content: string, options?: Message.MessageOptions): void {
    this.add(Message.system(content, options))
  }

  /** Adds a `tool` result; `toolCallId` links it to its call. */
  addToolMessage(content: string, options?: Message.MessageOptions): void {
    this.add(Message.tool(content, options))
  }

  /**
   * Searches the memory's archive in its own conversation (docs/contract.md
   * section 17): the matches of `query`, best first; `limit` (default 5),
   * `before`, `roles`, `neighbours`. Throws `ConfigError` without an archive
   * or on a wrong option. Works after `dispose()` (a read).
   */
  recall(query: string, options?: Archives.SearchOptions): ReadonlyArray<Archives.Match> {
    return squash(Effect.runSyncExit(this.memory.recall(query, options)))
  }
}

/** A memory whose adds return promises (an async summarizer). @since 1.0.0 */
export abstract class AsyncMemory extends BaseMemory {
  protected run(effect: Effect.Effect<void, unknown>): Promise<void> {
    try {
      this.assertLive()
    } catch (error) {
      return Promise.reject(error)
    }
    const fiber = Effect.runFork(effect)
    this.inFlight.add(fiber)
    return Effect.runPromise(Fiber.await(fiber)).then((exit) => {
      this.inFlight.delete(fiber)
      // dispose() cancelled the summarizer call the add ran or waited behind (docs/contract.md section 5.2)
      if (Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)) {
        throw new DOMException("the add's summarizer call was cancelled by dispose()", "AbortError")
      }
      return squash(exit)
    })
  }

  /** Adds a message; rejects with the add's typed error, or the summarizer's own error (docs/contract.md section 9). */
  add(message: Message.Message): Promise<void> {
    return this.run(this.memory.add(message))
  }

  /** Adds several messages, pruning once. */
  addMessages(messages: ReadonlyArray<Message.Message>): Promise<void> {
    let checked: Array<Message.Message>
    try {
      this.assertLive()
      checked = toMessages(messages)
    } catch (error) {
      return Promise.reject(error)
    }
    return this.run(this.memory.addMessages(checked))
  }

  /** Adds a user message. */
  addUserMessage(content: string, options?: Message.MessageOptions): Promise<void> {
    return this.addMessage(Message.USER, content, options)
  }

  /** Adds an assistant message (pass `toolCalls` for a tool call). */
  addAssistantMessage(content: string, options?: Message.MessageOptions): Promise<void> {
    return this.addMessage(Message.ASSISTANT, content, options)
  }

  /** Adds a message from its role, content and options; rejects with `InvalidMessageError` on a wrong one. */
  addMessage(role: string, content: string, options?: Message.MessageOptions): Promise<void> {
    try {
      return this.add(Message.make(role, content, options))
    } catch (error) {
      return Promise.reject(error)
    }
  }

  /** Adds a `system` message. */
  addSystemMessage(content: string, options?: Message.MessageOptions): Promise<void> {
    return this.addMessage(Message.SYSTEM, content, options)
  }

  /** Adds a `tool` result; `toolCallId` links it to its call. */
  addToolMessage(content: string, options?: Message.MessageOptions): Promise<void> {
    return this.addMessage(Message.TOOL, content, options)
  }

  /**
   * Searches the memory's archive in its own conversation (docs/contract.md
   * section 17), as a Promise: the matches of `query`, best first. Rejects
   * with `ConfigError` without an archive or on a wrong option, with
   * `ArchiveError` when a database archive fails. Works after `dispose()`.
   */
  recall(query: string, options?: Archives.SearchOptions): Promise<ReadonlyArray<Archives.Match>> {
    return Effect.runPromiseExit(this.memory.recall(query, options)).then(squash)
  }
}

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
