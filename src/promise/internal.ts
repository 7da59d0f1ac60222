/**
 * What the Promise facade's classes share: the runtime-backed reads and adds.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as MessageCore from "../core/message.js"
import { restoreInputProblem } from "../core/state.js"
import { InvalidMessageError, StateDecodeError, SummarizerError } from "../Errors.js"
import * as MemoryState from "../schema/MemoryState.js"
import * as Message from "../schema/Message.js"
import type * as Archives from "../services/Archive.js"
import { refusals, thrownAsIs } from "../services/internal/summarizing.js"
import * as Summarizer from "../services/Summarizer.js"
import type { Memory, Stepper, Usage } from "../strategies/Memory.js"

/**
 * Optional fields of an added message: `id`, `toolCalls` (`{ id, name,
 * arguments? }`), `toolCallId` (links a tool result to its call), `metadata`
 * (JSON data, round-tripped, never counted).
 *
 * @since 0.1.0
 * @category models
 */
export type MessageOptions = Message.MessageOptions

/**
 * What a facade object refuses after `dispose()` (docs/contract.md section
 * 5.2): a memory's adds, `clear()`, `compact()` and `recordUsage()`; a
 * {@link Conversations}'s calls; and a `ConversationMemory`'s adds and
 * `clear()` once the `use()` call that handed it out has ended (they would
 * never be saved). Nothing was done; a memory's reads still work.
 *
 * @example
 * ```ts
 * import { DisposedError, RollingMemory } from "rollmem/promise"
 *
 * const memory = new RollingMemory({ summarize: "drop" })
 * await memory.dispose()
 * try {
 *   memory.addUserMessage("too late")
 * } catch (error) {
 *   if (error instanceof DisposedError) console.log(error.object) // "RollingMemory"
 * }
 * ```
 *
 * @since 0.2.0
 * @category errors
 */
export class DisposedError extends Schema.TaggedError<DisposedError>("rollmem/DisposedError")("DisposedError", {
  /** What was used: the `Conversations`, a memory of one of its `use()` calls, or a memory class. */
  object: Schema.Literal(
    "Conversations",
    "ConversationMemory",
    "RollingMemory",
    "AsyncRollingMemory",
    "BufferMemory",
    "WindowMemory",
    "SummaryMemory",
    "AsyncSummaryMemory"
  ),
  description: Schema.String
}) {
  override get message(): string {
    return this.description
  }
}

/** The facade object a {@link DisposedError} names. @internal */
export type Disposable = DisposedError["object"]

/**
 * A synchronous summarizer: the new summary from the current one (`""` when
 * none), the evicted messages, oldest first, and the memory's request
 * (`{ maxSummaryTokens, counter }`, docs/contract.md section 10.4; a function
 * may ignore it). Must return a string.
 *
 * @since 0.1.0
 * @category models
 */
export type Summarize = (
  summary: string,
  messages: ReadonlyArray<Message.Message>,
  request: Summarizer.Request
) => string

/**
 * An asynchronous summarizer: returns a string or a Promise of one. The
 * `AbortSignal` fires when the call is interrupted (through the Effect API:
 * a timeout or an interrupted add); pass it to your SDK (`{ signal }`) to
 * cancel the request. It also fires when `dispose()` cancels the call. The
 * signal stays the third argument (a function written before the request
 * existed keeps working); the memory's request (`{ maxSummaryTokens,
 * counter }`) is the fourth.
 *
 * @since 0.1.0
 * @category models
 */
export type AsyncSummarize = Summarizer.PromiseFunction

/**
 * A token counter: tokens in one message's token text, a non-negative integer.
 *
 * @since 0.1.0
 * @category models
 */
export type CountTokens = (text: string) => number

/** The error a caller sees: a summarizer's own error rather than our wrapper. */
/** @internal */
export const unwrap = (error: unknown): unknown => {
  // Errors raised inside a span are proxies: hand back the instance the caller created.
  const original = Cause.originalError(error)
  // One rule for a summarizer that throws (or rejects with) `null` or
  // `undefined`: there is no error to hand back, so the caller gets the
  // `SummarizerError` whose `cause` is that value.
  // A `SummarizerError` the summarizer threw itself is its own error, and one refusing what it returned (not a
  // string) is rollmem's: both handed back whole.
  return original instanceof SummarizerError && !thrownAsIs.has(original) && !refusals.has(original) &&
      original.cause !== undefined && original.cause !== null
    ? Cause.originalError(original.cause)
    : original
}

/** @internal */
export const squash = <A, E>(exit: Exit.Exit<A, E>): A => {
  if (Exit.isSuccess(exit)) return exit.value
  throw unwrap(Cause.squash(exit.cause))
}

/**
 * A state a facade class's `fromJSON` decoded, passed to its constructor.
 * A class of its own, so that no other argument passes for one: a stray
 * argument of a plain JavaScript caller is ignored, as it always was.
 *
 * @internal
 */
export class Restored {
  constructor(readonly state: MemoryState.MemoryState) {}
}

/**
 * Decodes a wire-format state, parsed or its JSON text; throws
 * `StateDecodeError` on a bad one (`malformed JSON: ...` for text that is
 * not JSON, `expected a state object or its JSON text, got null` for
 * anything but an object or a string). @internal
 */
export const decodeOrThrow = (data: unknown): Restored => {
  const problem = restoreInputProblem(data)
  if (problem !== undefined) throw new StateDecodeError({ description: problem })
  return new Restored(
    squash(Effect.runSyncExit(typeof data === "string" ? MemoryState.fromString(data) : MemoryState.fromJSON(data)))
  )
}

/** The state a constructor was given, if it is one. @internal */
export const stateOf = (restored: Restored | undefined): MemoryState.MemoryState | undefined =>
  restored instanceof Restored ? restored.state : undefined

const toMessage = (role: unknown, content: unknown, options?: MessageOptions): Message.Message => {
  const problem = MessageCore.roleArgumentProblem(role)
  if (problem !== undefined) throw new InvalidMessageError({ description: problem })
  return Either.getOrThrowWith(Message.decodeFields(role, content, options), (e) => e)
}

/** The message of an `add` call: a `Message` as it is, any other value checked as one of `addMessages`. */
const toOne = (message: unknown): Message.Message =>
  message instanceof Message.Message ? message : toMessages([message])[0]

/**
 * The messages of an `addMessages` call, each checked as `addMessage`
 * checks one; throws `InvalidMessageError` for what is not an array of
 * message objects (`"hi"`, `[null]`), before anything is added
 * (`core/message.ts` `messagesOf`).
 */
const toMessages = (messages: unknown): Array<Message.Message> => {
  const made = MessageCore.messagesOf(messages, (m) => {
    const fields = m as Message.Message
    return toMessage(fields.role, fields.content, fields)
  })
  if ("problem" in made) throw new InvalidMessageError({ description: made.problem })
  return made.messages
}

/**
 * A memory the facade did not build (the recording memory of a stored
 * conversation): its steps are its own `add` and `addMessages`, each run as
 * an effect.
 *
 * @internal
 */
export const wrapped = (memory: Memory): Stepper<Memory> => ({ memory, step: memory.add, stepMany: memory.addMessages })

/**
 * What every facade class shares: the synchronous reads, `clear`, `toJSON`
 * and `dispose`.
 *
 * There is no runtime per memory: the services were read when the memory
 * was built. An add runs the synchronous part of the Effect API's add at
 * once and runs an effect only for what is left (a summarizer call that may
 * suspend), so most adds start no fiber.
 *
 * @example
 * ```ts
 * import { BaseMemory, BufferMemory, WindowMemory } from "rollmem/promise"
 *
 * // code that only reads a memory takes any facade class
 * const contextOf = (memory: BaseMemory): string => memory.getContext()
 * contextOf(new BufferMemory())
 * contextOf(new WindowMemory({ maxMessages: 20 }))
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export abstract class BaseMemory {
  /** @internal */
  protected readonly memory: Memory
  /** The synchronous part of the memory's `add`, from its builder. @internal */
  protected readonly step: Stepper<Memory>["step"]
  /** The synchronous part of the memory's `addMessages`. @internal */
  protected readonly stepMany: Stepper<Memory>["stepMany"]
  /** Adds not yet done: in (or waiting behind) a summarizer call, or held back by the hard cap. @internal */
  protected readonly inFlight = new Set<Fiber.RuntimeFiber<void, unknown>>()
  /**
   * The scope owning the background folds (`fold: "background"` only; then
   * the adds' fibers make no summarizer call), closed by `dispose()`. @internal
   */
  protected readonly scope: Scope.CloseableScope | undefined
  /** Which class this is, for {@link DisposedError}. @internal */
  protected readonly kind: Disposable
  /** Set by `dispose()`: what changes the memory is refused from then on. @internal */
  protected disposed = false

  /** @internal */
  protected constructor(built: Stepper<Memory>, kind: Disposable, scope?: Scope.CloseableScope) {
    this.memory = built.memory
    this.step = built.step
    this.stepMany = built.stepMany
    this.kind = kind
    this.scope = scope
  }

  /** The error of a call that would change a disposed memory, or `undefined` while it is not disposed. @internal */
  protected refused(): DisposedError | undefined {
    return this.disposed
      ? new DisposedError({
        object: this.kind,
        description: `this ${this.kind} was disposed: nothing was added, cleared or compacted; its reads still ` +
          `work: to go on, restore its state into a new one (${this.kind}.fromJSON(memory.toJSON(), options))`
      })
      : undefined
  }

  /** Throws {@link DisposedError} once disposed. @internal */
  protected assertLive(): void {
    const refused = this.refused()
    if (refused !== undefined) throw refused
  }

  /** The running summary, `""` when none. */
  get summary(): string {
    return Effect.runSync(this.memory.summary)
  }

  /** The buffered messages, oldest first (a copy). */
  get buffer(): ReadonlyArray<Message.Message> {
    return Effect.runSync(this.memory.buffer)
  }

  /**
   * The buffer's size in tokens, as the memory's counter counted it and as
   * its budget sees it: pinned messages (`pinSystem`) aside, as `maxTokens`
   * bounds it (docs/contract.md section 3).
   */
  get bufferTokens(): number {
    return Effect.runSync(this.memory.bufferTokens)
  }

  /** Tokens of the pinned messages (`pinSystem`), outside the budget; 0 without. */
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

  /**
   * Tokens of what `getMessages()` returns: `pinnedTokens + summaryTokens + bufferTokens`, plus a provider
   * compaction item's content. Throws `TokenCountError` as `summaryTokens` does.
   */
  get contextTokens(): number {
    return squash(Effect.runSyncExit(this.memory.contextTokens))
  }

  /**
   * What to send the model: the buffer, preceded by the summary (a `system`
   * message, or `user` with `summaryRole: "user"`) when it is not empty;
   * pinned system messages that open the buffer come first.
   */
  getMessages(): Array<Message.Message> {
    return [...Effect.runSync(this.memory.messages)]
  }

  /** The string forms of `getMessages()` joined with `"\n"`. */
  getContext(): string {
    return Effect.runSync(this.memory.context)
  }

  /**
   * Records the provider's usage figures for the last request built from
   * `getMessages()` (docs/contract.md section 16.4): `inputTokens`, the
   * provider's count of the whole prompt, and `overheadTokens`, the part
   * outside the memory's context (default: a context window's reserve, else
   * 0). The memory keeps a correction ratio its budget checks apply. Throws
   * `UsageError` (nothing recorded) when `inputTokens` is not a positive
   * integer or `overheadTokens` not a non-negative integer.
   */
  recordUsage(usage: Usage): void {
    this.assertLive()
    squash(Effect.runSyncExit(this.memory.recordUsage(usage)))
  }

  /** The correction ratio learnt from recorded usages (provider's count over the memory's): 1 until one is recorded. */
  get usageRatio(): number {
    return Effect.runSync(this.memory.usageRatio)
  }

  /** Empties summary and buffer; a summarizer call in flight is discarded. Throws {@link DisposedError} once disposed. */
  clear(): void {
    this.assertLive()
    Effect.runSync(this.memory.clear)
  }

  /** The wire-format state (version 2), so `JSON.stringify(memory)` works. */
  toJSON(): MemoryState.Encoded {
    return Effect.runSync(this.memory.toJSON)
  }

  /**
   * Cancels the summarizer calls in flight and resolves once they have
   * stopped: their `AbortSignal` fires, their adds (and the adds waiting to
   * prune behind them) reject with a `DOMException` named `"AbortError"`,
   * nothing of those folds is committed and the turns stay in the buffer.
   * With background folds (`fold: "background"`, docs/contract.md section
   * 5.1) the adds make no summarizer call: the fold in flight is
   * interrupted, committing nothing, the adds held back by the hard cap are
   * appended in arrival order (before it resolves) and resolve; no fold
   * starts after it. From then on the memory refuses what would change it
   * (adds, `clear()`, `compact()`, `recordUsage()`: {@link DisposedError},
   * nothing done), as `Conversations.dispose()` does; its reads still work,
   * so its state can be saved (`toJSON()`). Calling it again does no harm.
   */
  dispose(): Promise<void> {
    this.disposed = true
    const scope = this.scope
    if (scope === undefined) {
      const fibers = [...this.inFlight]
      return fibers.length === 0 ? Promise.resolve() : Effect.runPromise(Fiber.interruptAll(fibers))
    }
    // Background folds: an add's fiber only waits for room under the hard cap. Interrupting it
    // would drop its turn (an add interrupted while held back appends nothing); closing the scope
    // interrupts the fold in flight and admits every held-back add, whose fibers then complete.
    return Effect.runPromise(
      Effect.zipRight(
        Scope.close(scope, Exit.void),
        Effect.suspend(() => Effect.asVoid(Fiber.awaitAll([...this.inFlight])))
      )
    )
  }
}

/**
 * A memory whose adds are synchronous.
 *
 * @example
 * ```ts
 * import { BufferMemory, RollingMemory, type SyncMemory } from "rollmem/promise"
 *
 * const greet = (memory: SyncMemory) => memory.addUserMessage("hi") // returns at once
 * greet(new BufferMemory())
 * greet(new RollingMemory({ maxTokens: 2000, summarize: "drop" }))
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export abstract class SyncMemory extends BaseMemory {
  /**
   * Adds one message (a `Message`, or an object of its fields checked as
   * `addMessages` checks one). Throws as `addMessage`.
   */
  add(message: Message.Message): void {
    this.assertLive()
    const rest = this.step(toOne(message))
    if (rest !== Exit.void) squash(Exit.isExit(rest) ? rest : Effect.runSyncExit(rest))
  }
  /**
   * Adds a message. Throws `InvalidMessageError` on bad fields,
   * `TokenCountError`, the summarizer's own error (the turn stays), or
   * {@link DisposedError} once disposed.
   */
  addMessage(role: string, content: string, options?: MessageOptions): void {
    this.assertLive()
    const rest = this.step(toMessage(role, content, options))
    if (rest !== Exit.void) squash(Exit.isExit(rest) ? rest : Effect.runSyncExit(rest))
  }
  /**
   * Adds several messages in order, then prunes once (docs/contract.md
   * section 10.7): for failure it is one add. Use it for an agent step that
   * yields a tool call and its results together. Throws as `addMessage`;
   * on `InvalidMessageError` or `TokenCountError` none is added.
   */
  addMessages(messages: ReadonlyArray<Message.Message>): void {
    this.assertLive()
    const rest = this.stepMany(toMessages(messages))
    if (rest !== Exit.void) squash(Exit.isExit(rest) ? rest : Effect.runSyncExit(rest))
  }
  /**
   * Searches the memory's archive in its own conversation (docs/contract.md
   * section 17): the matches of `query`, best first, those naming its
   * artifacts exactly first; `limit` (default 5), `before`, `roles`,
   * `neighbours`. Throws `ConfigError` without an archive or on a wrong
   * option. Works after `dispose()` (a read).
   */
  recall(query: string, options?: Archives.SearchOptions): ReadonlyArray<Archives.Match> {
    return squash(Effect.runSyncExit(this.memory.recall(query, options)))
  }
  /** Adds a `user` message. */
  addUserMessage(content: string, options?: MessageOptions): void {
    this.addMessage(Message.USER, content, options)
  }
  /** Adds an `assistant` message (pass `toolCalls` for a tool call). */
  addAssistantMessage(content: string, options?: MessageOptions): void {
    this.addMessage(Message.ASSISTANT, content, options)
  }
  /** Adds a `system` message. */
  addSystemMessage(content: string, options?: MessageOptions): void {
    this.addMessage(Message.SYSTEM, content, options)
  }
  /** Adds a `tool` result; `toolCallId` links it to its call. */
  addToolMessage(content: string, options?: MessageOptions): void {
    this.addMessage(Message.TOOL, content, options)
  }
}

/**
 * A memory whose adds return Promises.
 *
 * @example
 * ```ts
 * import { AsyncRollingMemory, type AsyncMemory } from "rollmem/promise"
 *
 * const greet = (memory: AsyncMemory): Promise<void> => memory.addUserMessage("hi") // await it before the next add
 * await greet(new AsyncRollingMemory({ maxTokens: 2000, summarize: async (summary) => summary }))
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export abstract class AsyncMemory extends BaseMemory {
  /**
   * Adds one message (a `Message`, or an object of its fields checked as
   * `addMessages` checks one). Rejects as `addMessage`.
   */
  async add(message: Message.Message): Promise<void> {
    this.assertLive()
    return this.run(this.step(toOne(message)))
  }
  /**
   * Adds a message; resolves once its prune is done (with background folds:
   * once its turn is appended). Rejects with `InvalidMessageError`,
   * `TokenCountError`, the summarizer's own error (the turn stays), an
   * `AbortError` when `dispose()` cancels the summarizer call it runs or
   * waits behind (blocking folds; the turn stays), or {@link DisposedError}
   * when called after `dispose()` (nothing appended). The turn is visible to
   * reads at once, unless held back by a background fold's hard cap.
   */
  async addMessage(role: string, content: string, options?: MessageOptions): Promise<void> {
    this.assertLive()
    return this.run(this.step(toMessage(role, content, options)))
  }
  /**
   * Adds several messages in order, then prunes once (docs/contract.md
   * section 10.7): for failure and cancellation it is one add. Use it for an
   * agent step that yields a tool call and its results together. Rejects as
   * `addMessage`; on `InvalidMessageError` or `TokenCountError` none is added.
   */
  async addMessages(messages: ReadonlyArray<Message.Message>): Promise<void> {
    this.assertLive()
    return this.run(this.stepMany(toMessages(messages)))
  }
  /** Runs what is left of an operation, tracked for `dispose()`. @internal */
  protected async run(rest: Effect.Effect<void, unknown>): Promise<void> {
    if (rest === Exit.void) return
    if (Exit.isExit(rest)) {
      squash(rest)
      return
    }
    const fiber = Effect.runFork(rest)
    this.inFlight.add(fiber)
    const exit = await new Promise<Exit.Exit<void, unknown>>((resolve) => fiber.addObserver(resolve))
    this.inFlight.delete(fiber)
    if (Exit.isInterrupted(exit)) {
      throw new DOMException("the add's summarizer call was cancelled by dispose()", "AbortError")
    }
    squash(exit)
  }
  /**
   * Searches the memory's archive in its own conversation (docs/contract.md
   * section 17): the matches of `query`, best first, those naming its
   * artifacts exactly first; `limit` (default 5), `before`, `roles`,
   * `neighbours`. Rejects with `ConfigError` without an archive or on a
   * wrong option, `ArchiveError` when the archive fails. Works after
   * `dispose()` (a read).
   */
  async recall(query: string, options?: Archives.SearchOptions): Promise<ReadonlyArray<Archives.Match>> {
    return squash(await Effect.runPromiseExit(this.memory.recall(query, options)))
  }
  /** Adds a `user` message. */
  addUserMessage(content: string, options?: MessageOptions): Promise<void> {
    return this.addMessage(Message.USER, content, options)
  }
  /** Adds an `assistant` message (pass `toolCalls` for a tool call). */
  addAssistantMessage(content: string, options?: MessageOptions): Promise<void> {
    return this.addMessage(Message.ASSISTANT, content, options)
  }
  /** Adds a `system` message. */
  addSystemMessage(content: string, options?: MessageOptions): Promise<void> {
    return this.addMessage(Message.SYSTEM, content, options)
  }
  /** Adds a `tool` result; `toolCallId` links it to its call. */
  addToolMessage(content: string, options?: MessageOptions): Promise<void> {
    return this.addMessage(Message.TOOL, content, options)
  }
}

/**
 * The async classes' and `Conversations`' summarizer: `summarize` as a
 * Promise function, each call bounded by `timeout` (milliseconds) when
 * given: a call that has not settled by then is interrupted (its
 * `AbortSignal` aborts) and fails with a `SummarizerError` whose cause is a
 * `DOMException` named `"TimeoutError"`, which the facade throws.
 *
 * @internal
 */
export const promiseSummarizer = (summarize: AsyncSummarize, millis: number | undefined): Summarizer.Service => {
  const summarizer = Summarizer.fromPromise(summarize)
  if (millis === undefined) return summarizer
  const duration = Duration.millis(millis)
  // Interrupting the call aborts its AbortSignal (Effect.tryPromise).
  const onTimeout = () =>
    new SummarizerError({
      description: `no summary within ${millis} ms (the timeout option)`,
      cause: new DOMException(`the summarizer did not settle within ${millis} ms`, "TimeoutError")
    })
  return {
    summarize: (summary, messages, request) =>
      Effect.timeoutFail(summarizer.summarize(summary, messages, request), { duration, onTimeout }),
    // a provider compaction (docs/contract.md section 15.7) is bounded the same way
    ...(summarizer.compact === undefined ? {} : {
      compact: (summary: string, messages: ReadonlyArray<Message.Message>, request: Summarizer.Request) =>
        Effect.timeoutFail(summarizer.compact!(summary, messages, request), { duration, onTimeout })
    }),
    // a timeout changes no answer: the function's honoursMode is kept (docs/contract.md section 10.9)
    ...(summarizer.honoursMode === true ? { honoursMode: true } : {}),
    // nor what it returns: a compacting one stays marked (docs/contract.md section 15.7)
    ...(summarizer.compacts === true ? { compacts: true } : {})
  }
}
