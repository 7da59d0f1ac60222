/**
 * What the Promise facade's classes share: the runtime-backed reads and adds.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { SummarizerError } from "../Errors.js"
import * as MemoryState from "../schema/MemoryState.js"
import * as Message from "../schema/Message.js"
import * as Summarizer from "../services/Summarizer.js"
import * as TokenCounter from "../services/TokenCounter.js"
import type { Memory } from "../strategies/Memory.js"

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
 * A synchronous summarizer: the new summary from the current one (`""` when
 * none) and the evicted messages, oldest first. Must return a string.
 *
 * @since 0.1.0
 * @category models
 */
export type Summarize = (summary: string, messages: ReadonlyArray<Message.Message>) => string

/**
 * An asynchronous summarizer: returns a string or a Promise of one. The
 * `AbortSignal` fires when the call is interrupted (through the Effect API:
 * a timeout or an interrupted add); pass it to your SDK (`{ signal }`) to
 * cancel the request. `dispose()` does not cancel a call in flight.
 *
 * @since 0.1.0
 * @category models
 */
export type AsyncSummarize = (
  summary: string,
  messages: ReadonlyArray<Message.Message>,
  signal: AbortSignal
) => string | PromiseLike<string>

/**
 * A token counter: tokens in one message's token text, a non-negative integer.
 *
 * @since 0.1.0
 * @category models
 */
export type CountTokens = (text: string) => number

/** @internal */
export type Services = Summarizer.Summarizer | TokenCounter.TokenCounter
/** @internal */
export type Runtime = ManagedRuntime.ManagedRuntime<never, never>

/** @internal */
export const layerOf = (
  summarizer: Summarizer.Service | undefined,
  counter: CountTokens | undefined
): Layer.Layer<Services> =>
  Layer.mergeAll(
    summarizer === undefined ? Layer.empty : Layer.succeed(Summarizer.Summarizer, summarizer),
    counter === undefined ? TokenCounter.layerWordCount : TokenCounter.layerFunction(counter)
  ) as Layer.Layer<Services>

/** The error a caller sees: a summarizer's own error rather than our wrapper. */
const unwrap = (error: unknown): unknown => {
  // Errors raised inside a span are proxies: hand back the instance the caller created.
  const original = Cause.originalError(error)
  return original instanceof SummarizerError && original.cause !== undefined
    ? Cause.originalError(original.cause)
    : original
}

/** @internal */
export const squash = <A, E>(exit: Exit.Exit<A, E>): A => {
  if (Exit.isSuccess(exit)) return exit.value
  throw unwrap(Cause.squash(exit.cause))
}

/** Per-class construction input, set just before `new` by the static constructors. */
/** @internal */
export let restoring: MemoryState.MemoryState | undefined

/** @internal */
export const takeRestoring = (): MemoryState.MemoryState | undefined => {
  const state = restoring
  restoring = undefined
  return state
}

/** @internal */
export const decodeOrThrow = (data: unknown): MemoryState.MemoryState =>
  squash(Effect.runSyncExit(MemoryState.fromJSON(data)))

const toMessage = (role: unknown, content: unknown, options?: MessageOptions): Message.Message =>
  Either.getOrThrowWith(Message.decodeFields(role, content, options), (e) => e)

/**
 * What every facade class shares: the synchronous reads, `clear`, `toJSON`
 * and `dispose`.
 *
 * @since 0.1.0
 * @category models
 */
export abstract class BaseMemory {
  /** @internal */
  protected readonly runtime: Runtime
  /** @internal */
  protected readonly memory: Memory

  /** @internal */
  protected constructor(runtime: Runtime, memory: Memory) {
    this.runtime = runtime
    this.memory = memory
  }

  /** The running summary, `""` when none. */
  get summary(): string {
    return this.runtime.runSync(this.memory.summary)
  }

  /** The buffered messages, oldest first (a copy). */
  get buffer(): ReadonlyArray<Message.Message> {
    return this.runtime.runSync(this.memory.buffer)
  }

  /** The buffer's size in tokens, as the memory's counter counted it. */
  get bufferTokens(): number {
    return this.runtime.runSync(this.memory.bufferTokens)
  }

  /** The buffer, preceded by a `system` message holding the summary when it is not empty. */
  getMessages(): Array<Message.Message> {
    return [...this.runtime.runSync(this.memory.messages)]
  }

  /** The string forms of `getMessages()` joined with `"\n"`. */
  getContext(): string {
    return this.runtime.runSync(this.memory.context)
  }

  /** Empties summary and buffer; a summarizer call in flight is discarded. */
  clear(): void {
    this.runtime.runSync(this.memory.clear)
  }

  /** The wire-format state (version 2), so `JSON.stringify(memory)` works. */
  toJSON(): MemoryState.Encoded {
    return this.runtime.runSync(this.memory.toJSON)
  }

  /** Releases the memory's runtime. The memory must not be used afterwards. */
  dispose(): Promise<void> {
    return this.runtime.dispose()
  }
}

/**
 * A memory whose adds are synchronous.
 *
 * @since 0.1.0
 * @category models
 */
export abstract class SyncMemory extends BaseMemory {
  /**
   * Adds a message. Throws `InvalidMessageError` on bad fields,
   * `TokenCountError`, or the summarizer's own error (the turn stays).
   */
  addMessage(role: string, content: string, options?: MessageOptions): void {
    const message = toMessage(role, content, options)
    squash(this.runtime.runSyncExit(this.memory.add(message)))
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
 * @since 0.1.0
 * @category models
 */
export abstract class AsyncMemory extends BaseMemory {
  /**
   * Adds a message; resolves once its prune is done. Rejects with
   * `InvalidMessageError`, `TokenCountError`, or the summarizer's own error
   * (the turn stays). The turn is visible to reads at once.
   */
  async addMessage(role: string, content: string, options?: MessageOptions): Promise<void> {
    const message = toMessage(role, content, options)
    squash(await this.runtime.runPromiseExit(this.memory.add(message)))
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

/** @internal */
export const build = <M extends Memory, E>(
  summarizer: Summarizer.Service | undefined,
  counter: CountTokens | undefined,
  make: (state: MemoryState.MemoryState | undefined) => Effect.Effect<M, E, Services>
): [Runtime, M] => {
  const state = takeRestoring()
  const runtime = ManagedRuntime.make(layerOf(summarizer, counter))
  const exit = runtime.runSyncExit(make(state))
  // A constructor that throws leaves nothing behind: release the runtime it built.
  if (Exit.isFailure(exit)) Effect.runSync(runtime.disposeEffect)
  return [runtime as Runtime, squash(exit)]
}

/** @internal */
export const restore = <T>(data: unknown, construct: () => T): T => {
  restoring = decodeOrThrow(data)
  try {
    return construct()
  } finally {
    restoring = undefined
  }
}
