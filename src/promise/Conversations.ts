/**
 * Stored conversations for the Promise facade: a thin shell over
 * `Conversation.withMemory` of `rollmem/store`.
 *
 * `conversations.use(id, fn)` loads the conversation, hands `fn` a memory
 * whose adds return Promises, and saves once `fn` resolves. When another
 * request (or process, with SQLite) saved the same conversation meanwhile,
 * `fn` is not run again: the adds and clears it made are re-applied to the
 * newer state, so no turn of either writer is lost and none is applied twice.
 *
 * @example
 * ```ts
 * import { Conversations } from "rollmem/promise"
 *
 * const conversations = new Conversations({
 *   store: { sqlite: "conversations.db" }, // or "memory"
 *   strategy: "rolling",
 *   maxTokens: 2000,
 *   summarize: async (summary, turns) => mySummarize(summary, turns)
 * })
 * const reply = await conversations.use("chat-42", async (memory) => {
 *   await memory.addUserMessage("Book me a flight to Rome")
 *   const text = await callMyModel(memory.getMessages())
 *   await memory.addAssistantMessage(text)
 *   return text
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Option from "effect/Option"
import * as MemoryState from "../schema/MemoryState.js"
import * as Summarizer from "../services/Summarizer.js"
import * as TokenCounter from "../services/TokenCounter.js"
import * as Conversation from "../store/Conversation.js"
import * as ConversationStore from "../store/ConversationStore.js"
import type { Memory } from "../strategies/Memory.js"
import { AsyncMemory, type AsyncSummarize, type CountTokens, squash } from "./internal.js"

/**
 * Where conversations are stored: `"memory"` (this process only, lost on
 * exit) or an SQLite file (`{ sqlite: path }`, safe across processes; needs
 * the optional peer `@effect/sql-sqlite-node`).
 *
 * @since 0.1.0
 * @category models
 */
export type StoreOption = "memory" | { readonly sqlite: string }

/**
 * Options of {@link Conversations}: the store, the strategy with its budget,
 * and the summarizer and token counter the memories use.
 *
 * @since 0.1.0
 * @category models
 */
export type ConversationsOptions = Conversation.StrategyOptions & {
  readonly store: StoreOption
  /** Folds evicted turns (rolling) or every turn (summary, required there); may return a Promise. */
  readonly summarize?: AsyncSummarize | undefined
  /** Counts tokens; default: whitespace-separated words. */
  readonly tokenCounter?: CountTokens | undefined
}

type Services = ConversationStore.ConversationStore | Summarizer.Summarizer | TokenCounter.TokenCounter

/**
 * A memory handed to {@link Conversations.use}: adds return Promises, reads
 * are synchronous. It is valid only while the `use` callback runs.
 *
 * @since 0.1.0
 * @category models
 */
export class ConversationMemory extends AsyncMemory {
  /** @internal */
  constructor(memory: Memory) {
    super(memory)
  }
}

/**
 * A set of stored conversations.
 *
 * Errors (rejections): `ConversationConflictError` when retries run out
 * under heavy contention (nothing of that call is saved),
 * `ConversationDecodeError` for a stored value that does not decode,
 * `ConversationStoreError` when the backend fails, `ConfigError` for bad
 * options, and whatever `fn` or the summarizer rejects with.
 *
 * @since 0.1.0
 * @category constructors
 */
export class Conversations {
  private readonly runtime: ManagedRuntime.ManagedRuntime<Services, unknown>
  /** The strategy and its options, as `Conversation.withMemory` takes them. */
  private readonly strategy: Conversation.StrategyOptions

  constructor(options: ConversationsOptions) {
    const { store: _store, summarize: _summarize, tokenCounter: _tokenCounter, ...strategy } = options
    this.strategy = strategy
    const store = options.store === "memory"
      ? ConversationStore.layerMemory
      : ConversationStore.layerSqlite({ filename: options.store.sqlite })
    this.runtime = ManagedRuntime.make(
      Layer.mergeAll(
        store,
        options.summarize === undefined
          ? Layer.empty
          : Layer.succeed(Summarizer.Summarizer, Summarizer.fromPromise(options.summarize)),
        options.tokenCounter === undefined
          ? TokenCounter.layerWordCount
          : TokenCounter.layerFunction(options.tokenCounter)
      ) as Layer.Layer<Services, unknown>
    )
  }

  /**
   * Loads conversation `id` (empty when absent), runs `fn` on its memory and
   * saves what `fn` added or cleared. Resolves with `fn`'s result.
   */
  async use<A>(id: string, fn: (memory: ConversationMemory) => Promise<A>): Promise<A> {
    return squash(
      await this.runtime.runPromiseExit(
        Conversation.withMemory(id, this.strategy, (memory) =>
          Effect.tryPromise({
            try: () => fn(new ConversationMemory(memory)),
            catch: (error) => error
          }))
      )
    )
  }

  /** The stored state of conversation `id` in the wire format, or `undefined`. */
  async load(id: string): Promise<MemoryState.Encoded | undefined> {
    return squash(
      await this.runtime.runPromiseExit(
        Effect.flatMap(ConversationStore.ConversationStore, (store) => store.load(id)).pipe(
          Effect.map(Option.match({ onNone: () => undefined, onSome: (stored) => MemoryState.toJSON(stored.state) }))
        )
      )
    )
  }

  /** Deletes conversation `id` (nothing when absent). */
  async delete(id: string): Promise<void> {
    squash(
      await this.runtime.runPromiseExit(
        Effect.flatMap(ConversationStore.ConversationStore, (store) => store.delete(id))
      )
    )
  }

  /** Closes the store (the SQLite connection). */
  dispose(): Promise<void> {
    return this.runtime.dispose()
  }
}
