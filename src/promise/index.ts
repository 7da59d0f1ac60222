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
 * what SPEC section 5 allows (a failed summarizer keeps the appended turn).
 *
 * @example
 * ```ts
 * import { RollingMemory } from "rollmem/promise"
 *
 * const memory = new RollingMemory({
 *   maxTokens: 2000,
 *   summarize: (summary, messages) => `${summary}\n${messages.map(String).join("\n")}`.trim()
 * })
 * memory.addUserMessage("Book me a flight to Rome")
 * memory.addAssistantMessage("For which dates?")
 * memory.getMessages() // what to send to the model
 * const saved = JSON.stringify(memory) // wire-format state
 * const restored = RollingMemory.fromJSON(JSON.parse(saved), { maxTokens: 2000 })
 * ```
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { ConfigError, SummarizerError } from "../Errors.js"
import * as MemoryState from "../schema/MemoryState.js"
import * as Message from "../schema/Message.js"
import * as Summarizer from "../services/Summarizer.js"
import * as TokenCounter from "../services/TokenCounter.js"
import * as EffectBufferMemory from "../strategies/BufferMemory.js"
import type { Memory } from "../strategies/Memory.js"
import * as EffectRollingMemory from "../strategies/RollingMemory.js"
import * as EffectSummaryMemory from "../strategies/SummaryMemory.js"
import * as EffectWindowMemory from "../strategies/WindowMemory.js"

export {
  /** @since 0.1.0 */
  ConfigError,
  /** @since 0.1.0 */
  InvalidMessageError,
  /** @since 0.1.0 */
  StateDecodeError,
  /** @since 0.1.0 */
  SummarizerError,
  /** @since 0.1.0 */
  TokenCountError
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
 * `AbortSignal` fires when the add is abandoned (the memory is disposed or
 * the call interrupted): pass it to your SDK (`{ signal }`) to cancel the
 * request.
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

/**
 * Options of `RollingMemory`.
 *
 * @since 0.1.0
 * @category models
 */
export interface RollingOptions {
  /** Token budget of the buffer (positive integer, default 2000). */
  readonly maxTokens?: number | undefined
  /** Folds evicted turns into the summary; without one they are dropped. */
  readonly summarize?: Summarize | undefined
  /** Counts tokens; default: whitespace-separated words. */
  readonly tokenCounter?: CountTokens | undefined
}

/**
 * Options of `AsyncRollingMemory`.
 *
 * @since 0.1.0
 * @category models
 */
export interface AsyncRollingOptions {
  /** Token budget of the buffer (positive integer, default 2000). */
  readonly maxTokens?: number | undefined
  /** Folds evicted turns into the summary; may return a Promise. */
  readonly summarize?: AsyncSummarize | undefined
  /** Counts tokens; default: whitespace-separated words. */
  readonly tokenCounter?: CountTokens | undefined
}

/**
 * Options of `WindowMemory`.
 *
 * @since 0.1.0
 * @category models
 */
export interface WindowOptions {
  /** Most messages kept (positive integer, required). */
  readonly maxMessages: number
}

/**
 * Options of `SummaryMemory`.
 *
 * @since 0.1.0
 * @category models
 */
export interface SummaryOptions {
  /** Folds each turn into the summary (required). */
  readonly summarize: Summarize
}

/**
 * Options of `AsyncSummaryMemory`.
 *
 * @since 0.1.0
 * @category models
 */
export interface AsyncSummaryOptions {
  /** Folds each turn into the summary (required); may return a Promise. */
  readonly summarize: AsyncSummarize
}

type Services = Summarizer.Summarizer | TokenCounter.TokenCounter
type Runtime = ManagedRuntime.ManagedRuntime<Services, never>

const layerOf = (
  summarizer: Summarizer.Service | undefined,
  counter: CountTokens | undefined
): Layer.Layer<Services> =>
  Layer.mergeAll(
    summarizer === undefined ? Layer.empty : Layer.succeed(Summarizer.Summarizer, summarizer),
    counter === undefined ? TokenCounter.layerWordCount : TokenCounter.layerFunction(counter)
  ) as Layer.Layer<Services>

/** The error a caller sees: a summarizer's own error rather than our wrapper. */
const unwrap = (error: unknown): unknown =>
  error instanceof SummarizerError && error.cause !== undefined ? error.cause : error

const squash = <A, E>(exit: Exit.Exit<A, E>): A => {
  if (Exit.isSuccess(exit)) return exit.value
  throw unwrap(Cause.squash(exit.cause))
}

/** Per-class construction input, set just before `new` by the static constructors. */
let restoring: MemoryState.MemoryState | undefined

const takeRestoring = (): MemoryState.MemoryState | undefined => {
  const state = restoring
  restoring = undefined
  return state
}

const decodeOrThrow = (data: unknown): MemoryState.MemoryState => squash(Effect.runSyncExit(MemoryState.fromJSON(data)))

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

const build = <M extends Memory, E>(
  summarizer: Summarizer.Service | undefined,
  counter: CountTokens | undefined,
  make: (state: MemoryState.MemoryState | undefined) => Effect.Effect<M, E, Services>
): [Runtime, M] => {
  const state = takeRestoring()
  const runtime = ManagedRuntime.make(layerOf(summarizer, counter))
  return [runtime, squash(runtime.runSyncExit(make(state)))]
}

const restore = <T>(data: unknown, construct: () => T): T => {
  restoring = decodeOrThrow(data)
  try {
    return construct()
  } finally {
    restoring = undefined
  }
}

/**
 * A running summary plus a token-bounded buffer (SPEC section 5), synchronous.
 * Throws `ConfigError` when `maxTokens` is not a positive integer.
 *
 * @since 0.1.0
 * @category constructors
 */
export class RollingMemory extends SyncMemory {
  /** The token budget of the buffer. */
  readonly maxTokens: number
  constructor(options: RollingOptions = {}) {
    const [runtime, memory] = build(
      options.summarize === undefined ? undefined : Summarizer.fromFunction(options.summarize),
      options.tokenCounter,
      (state) =>
        state === undefined
          ? EffectRollingMemory.make({ maxTokens: options.maxTokens })
          : EffectRollingMemory.fromState(state, { maxTokens: options.maxTokens })
    )
    super(runtime, memory)
    this.maxTokens = memory.maxTokens
  }
  /** Restores from a wire-format state (any strategy's); throws `StateDecodeError` on a bad one. */
  static fromJSON(data: unknown, options: RollingOptions = {}): RollingMemory {
    return restore(data, () => new RollingMemory(options))
  }
}

/**
 * A running summary plus a token-bounded buffer (SPEC section 5) whose adds
 * return Promises and whose summarizer may be asynchronous. Adds may overlap:
 * prunes run one at a time and no turn is lost.
 *
 * @since 0.1.0
 * @category constructors
 */
export class AsyncRollingMemory extends AsyncMemory {
  /** The token budget of the buffer. */
  readonly maxTokens: number
  constructor(options: AsyncRollingOptions = {}) {
    const [runtime, memory] = build(
      options.summarize === undefined ? undefined : Summarizer.fromPromise(options.summarize),
      options.tokenCounter,
      (state) =>
        state === undefined
          ? EffectRollingMemory.make({ maxTokens: options.maxTokens })
          : EffectRollingMemory.fromState(state, { maxTokens: options.maxTokens })
    )
    super(runtime, memory)
    this.maxTokens = memory.maxTokens
  }
  /** Restores from a wire-format state (any strategy's); throws `StateDecodeError` on a bad one. */
  static fromJSON(data: unknown, options: AsyncRollingOptions = {}): AsyncRollingMemory {
    return restore(data, () => new AsyncRollingMemory(options))
  }
}

/**
 * Every turn, kept (SPEC section 6).
 *
 * @since 0.1.0
 * @category constructors
 */
export class BufferMemory extends SyncMemory {
  constructor() {
    const [runtime, memory] = build(
      undefined,
      undefined,
      (state) => state === undefined ? EffectBufferMemory.make() : EffectBufferMemory.fromState(state)
    )
    super(runtime, memory)
  }
  /** Restores from a wire-format state (any strategy's); throws `StateDecodeError` on a bad one. */
  static fromJSON(data: unknown): BufferMemory {
    return restore(data, () => new BufferMemory())
  }
}

/**
 * The last `maxMessages` messages, by units (SPEC section 7). Throws
 * `ConfigError` when `maxMessages` is not a positive integer.
 *
 * @since 0.1.0
 * @category constructors
 */
export class WindowMemory extends SyncMemory {
  /** The message budget of the buffer. */
  readonly maxMessages: number
  constructor(options: WindowOptions) {
    const [runtime, memory] = build(
      undefined,
      undefined,
      (state) =>
        state === undefined
          ? EffectWindowMemory.make({ maxMessages: options?.maxMessages })
          : EffectWindowMemory.fromState(state, { maxMessages: options?.maxMessages })
    )
    super(runtime, memory)
    this.maxMessages = memory.maxMessages
  }
  /** Restores from a wire-format state (any strategy's); throws `StateDecodeError` on a bad one. */
  static fromJSON(data: unknown, options: WindowOptions): WindowMemory {
    return restore(data, () => new WindowMemory(options))
  }
}

const requireSummarize = <F>(options: { readonly summarize?: F } | undefined): F => {
  if (typeof options?.summarize !== "function") {
    throw new ConfigError({ option: "summarize", description: "a summarizer function is required" })
  }
  return options.summarize
}

/**
 * A summary only (SPEC section 8), synchronous. Throws `ConfigError` without
 * a `summarize` function.
 *
 * @since 0.1.0
 * @category constructors
 */
export class SummaryMemory extends SyncMemory {
  constructor(options: SummaryOptions) {
    const summarizer = Summarizer.fromFunction(requireSummarize(options))
    const [runtime, memory] = build(
      summarizer,
      undefined,
      (state) => state === undefined ? EffectSummaryMemory.make() : EffectSummaryMemory.fromState(state)
    )
    super(runtime, memory)
  }
  /** Restores from a wire-format state (any strategy's); throws `StateDecodeError` on a bad one. */
  static fromJSON(data: unknown, options: SummaryOptions): SummaryMemory {
    return restore(data, () => new SummaryMemory(options))
  }
}

/**
 * A summary only (SPEC section 8) whose adds return Promises and whose
 * summarizer may be asynchronous. Throws `ConfigError` without `summarize`.
 *
 * @since 0.1.0
 * @category constructors
 */
export class AsyncSummaryMemory extends AsyncMemory {
  constructor(options: AsyncSummaryOptions) {
    const summarizer = Summarizer.fromPromise(requireSummarize(options))
    const [runtime, memory] = build(
      summarizer,
      undefined,
      (state) => state === undefined ? EffectSummaryMemory.make() : EffectSummaryMemory.fromState(state)
    )
    super(runtime, memory)
  }
  /** Restores from a wire-format state (any strategy's); throws `StateDecodeError` on a bad one. */
  static fromJSON(data: unknown, options: AsyncSummaryOptions): AsyncSummaryMemory {
    return restore(data, () => new AsyncSummaryMemory(options))
  }
}
