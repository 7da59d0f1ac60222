/**
 * What the Promise facade's classes on the Effect 4 line share (its memory
 * classes of `index.ts` and the stored conversations of
 * `Conversations.ts`): the summarizer and counter types, `DisposedError`,
 * how a failure is thrown, and the base classes `BaseMemory`, `SyncMemory`
 * and `AsyncMemory`. A module of its own so that `Conversations.ts` extends
 * `AsyncMemory` without importing the facade's entry, which exports it.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as MessageCore from "../../../src/core/message.js"
import type * as Rules from "../../../src/core/options.js"
import { ConfigError, InvalidMessageError, SummarizerError } from "../Errors.js"
import type * as MemoryState from "../schema/MemoryState.js"
import * as Message from "../schema/Message.js"
import type * as Archives from "../services/Archive.js"
import { refusals, thrownAsIs } from "../services/internal/summarizing.js"
import type * as Summarizer from "../services/Summarizer.js"
import { type Memory, stepOf, type Usage } from "../strategies/internal/engine.js"

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
export const unwrap = (error: unknown): unknown =>
  error instanceof SummarizerError && !thrownAsIs.has(error) && !refusals.has(error) && error.cause !== undefined &&
    error.cause !== null
    ? error.cause
    : error

export const squash = <A, E>(exit: Exit.Exit<A, E>): A => {
  if (Exit.isSuccess(exit)) return exit.value
  throw unwrap(Cause.squash(exit.cause))
}

export const check = (option: string, rule: Rules.Check, value: unknown): void => {
  const problem = rule(value)
  if (problem !== undefined) throw new ConfigError({ option, description: problem })
}

/**
 * The messages of an `addMessages` call, each checked as `addMessage` checks
 * one (a message, or an object of its fields); throws `InvalidMessageError`
 * for what is not an array of message objects (`"hi"`, `[null]`), before
 * anything is added, as the Effect 3 facade does (`core/message.ts`
 * `messagesOf`).
 */
/** A message from `addMessage`'s arguments: a message object as the role refused with what to call instead. */
const toMessage = (role: unknown, content: string, options?: Message.MessageOptions): Message.Message => {
  const problem = MessageCore.roleArgumentProblem(role)
  if (problem !== undefined) throw new InvalidMessageError({ description: problem })
  return Message.make(role as string, content, options)
}

/** The message of an `add` call: a `Message` as it is, any other value checked as one of `addMessages`. */
const toOne = (message: unknown): Message.Message =>
  message instanceof Message.Message ? message : toMessages([message])[0]

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

  /**
   * The summary's tokens (docs/contract.md section 10.4): counted once per
   * summary, at its fold when a budget needs it, else on the first read and
   * kept. A first read whose count fails throws the `TokenCountError`.
   */
  get summaryTokens(): number {
    return squash(Effect.runSyncExit(this.memory.summaryTokens))
  }

  /** The whole context's tokens: pinned messages, summary and buffer. Throws `TokenCountError` as `summaryTokens` does. */
  get contextTokens(): number {
    return squash(Effect.runSyncExit(this.memory.contextTokens))
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

/** What an add made now gave: its `Exit`, or the rest of the add run to its `Exit`. */
const exitOf = <A, E>(effect: Effect.Effect<A, E>): Exit.Exit<A, E> =>
  Exit.isExit(effect) ? effect as Exit.Exit<A, E> : Effect.runSyncExit(effect)

/** A memory whose adds complete in the caller's step (a synchronous summarizer). @since 1.0.0 */
export abstract class SyncMemory extends BaseMemory {
  /** The memory's add made now (`engine.ts` `stepOf`): no fiber when it answers at once. */
  private readonly step = stepOf(this.memory)

  /** Adds a message; throws the add's typed error, or the summarizer's own error (docs/contract.md section 9). */
  add(message: Message.Message): void {
    this.assertLive()
    squash(exitOf(this.step(toOne(message))))
  }

  /** Adds several messages, pruning once. */
  addMessages(messages: ReadonlyArray<Message.Message>): void {
    this.assertLive()
    squash(Effect.runSyncExit(this.memory.addMessages(toMessages(messages))))
  }

  /** Adds a message from its role, content and options. */
  addMessage(role: string, content: string, options?: Message.MessageOptions): void {
    this.add(toMessage(role, content, options))
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
    let checked: Message.Message
    try {
      checked = toOne(message)
    } catch (error) {
      return Promise.reject(error)
    }
    return this.run(this.memory.add(checked))
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
      return this.add(toMessage(role, content, options))
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

/**
 * Each call of `summarizer` bounded by `millis`: a call that has not settled
 * by then is interrupted (its `AbortSignal` aborts) and fails with a
 * `SummarizerError` whose cause is a `DOMException` named `"TimeoutError"`,
 * which the add throws. The async classes' and `Conversations`' `timeout`.
 *
 * @internal
 */
export const bounded = (summarizer: Summarizer.Service, millis: number | undefined): Summarizer.Service => {
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
