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
 * import { Conversations, type Message } from "rollmem/promise"
 *
 * declare const mySummarize: (summary: string, turns: ReadonlyArray<Message>) => Promise<string>
 * declare const callMyModel: (messages: ReadonlyArray<Message>) => Promise<string>
 * const conversations = new Conversations({
 *   store: "sqlite:conversations.db", // or "memory", "postgres://…", "redis://…"
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
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import * as Locations from "../core/location.js"
import * as Rules from "../core/options.js"
import { ConfigError } from "../Errors.js"
import * as MemoryState from "../schema/MemoryState.js"
import type * as Message from "../schema/Message.js"
import * as OptionsSchema from "../schema/Options.js"
import type * as Archive from "../services/Archive.js"
import * as Summarizer from "../services/Summarizer.js"
import * as TokenCounter from "../services/TokenCounter.js"
import * as Conversation from "../store/Conversation.js"
import * as ConversationStore from "../store/ConversationStore.js"
import type { Usage } from "../strategies/Memory.js"
import type { CompactOptions } from "../strategies/RollingMemory.js"
import {
  AsyncMemory,
  type AsyncSummarize,
  type CountTokens,
  DisposedError,
  type MessageOptions,
  promiseSummarizer,
  squash,
  wrapped
} from "./internal.js"

/**
 * Where conversations are stored:
 *
 * - `"memory"`: this process only, lost on exit;
 * - `"sqlite:PATH"` or `{ sqlite: PATH }`: an SQLite file, safe across the
 *   processes of one host (optional peer `@effect/sql-sqlite-node`);
 * - `"postgres://user@host:5432/db"` (or `postgresql://`): PostgreSQL, safe
 *   across hosts (optional peer `@effect/sql-pg`);
 * - `"redis://host:6379"` (or `rediss://`): Redis, safe across hosts
 *   (optional peer `ioredis`);
 * - a `Layer` providing a `ConversationStore` (and, for the conversation
 *   entity of `rollmem/cluster`, a `Conversation.Writer`): e.g.
 *   `ConversationCluster.layerClient({ url })`, so that every `use()`
 *   writes through the entity.
 *
 * @since 0.1.0
 * @category models
 */
export type StoreOption =
  | "memory"
  | { readonly sqlite: string }
  | `sqlite:${string}`
  | `postgres://${string}`
  | `postgresql://${string}`
  | `redis://${string}`
  | `rediss://${string}`
  | Layer.Layer<ConversationStore.ConversationStore, unknown>

/**
 * The `summarize` a strategy's {@link ConversationsOptions} take: the rolling
 * strategy requires a function or `"drop"` (evicted turns dropped on
 * purpose), the summary strategy a function; the others need none.
 *
 * @since 0.4.0
 * @category models
 */
export type SummarizeOption<S extends Conversation.StrategyOptions["strategy"]> = S extends "rolling" ? {
    /** Folds evicted turns into the summary (may return a Promise), or `"drop"` to drop them on purpose. */
    readonly summarize: AsyncSummarize | "drop"
  }
  : S extends "summary" ? {
      /** Folds every turn into the summary; may return a Promise. */
      readonly summarize: AsyncSummarize
    }
  : { readonly summarize?: AsyncSummarize | "drop" | undefined }

/**
 * Options of {@link Conversations}: the store, the strategy with its budget,
 * the summarizer (required by the rolling strategy: a function or `"drop"`;
 * by the summary strategy: a function) and the token counter the memories
 * use.
 *
 * @since 0.1.0
 * @category models
 */
export type ConversationsOptions = Conversation.StrategyOptions extends infer O
  ? O extends Conversation.StrategyOptions ? O & SummarizeOption<O["strategy"]> & {
      readonly store: StoreOption
      /**
       * The table of the conversations in an SQL store (`sqlite:PATH`,
       * `{ sqlite: PATH }`, `postgres://…`); default
       * `rollmem_conversations`. Created if missing; `schema.table` names a
       * table of another schema. Refused (`ConfigError`) for another store.
       */
      readonly table?: string | undefined
      /**
       * The table of the archive kept beside the conversations in an SQL
       * store (`archive: true`); default `rollmem_archive`. Refused for
       * another store.
       */
      readonly archiveTable?: string | undefined
      /**
       * The key prefix of the conversations in a Redis store
       * (`redis://…`), archive included; default `rollmem-conversation:`.
       * Refused for another store.
       */
      readonly prefix?: string | undefined
      /**
       * Archive what leaves each conversation's buffer beside it, in the same
       * store (docs/contract.md section 17.2): searched by the memory's
       * `recall` inside `use()` and by {@link Conversations.recall}. Default
       * `false`.
       */
      readonly archive?: boolean | undefined
      /** Counts tokens; default: whitespace-separated words. */
      readonly tokenCounter?: CountTokens | undefined
      /**
       * How long one summarizer call may take, in milliseconds (a positive
       * integer; default: no limit; needs a `summarize` function), as the
       * async memory classes' `timeout` (docs/contract.md section 12.2): a
       * call that has not settled by then is abandoned (the `AbortSignal`
       * passed to `summarize` is aborted), the add inside `use()` rejects
       * with a `DOMException` named `"TimeoutError"`, and when the callback
       * lets that rejection out, nothing of the call is saved.
       */
      readonly timeout?: number | undefined
    }
  : never
  : never

type Services = ConversationStore.ConversationStore | Summarizer.Summarizer | TokenCounter.TokenCounter

/**
 * A memory handed to {@link Conversations.use}: adds return Promises, reads
 * are synchronous. What the callback does is saved and, after a conflict,
 * applied again to the newer state (docs/contract.md section 12.2): adds,
 * `clear()`, `compact()` and `recordUsage()`. It is valid only while the
 * `use` callback runs: once the callback's Promise settles, adds and
 * `compact()` reject and `clear()` and `recordUsage()` throw with
 * {@link DisposedError} (they would never be saved); reads still work.
 *
 * @example
 * ```ts
 * import { Conversations } from "rollmem/promise"
 *
 * const conversations = new Conversations({ store: "memory", strategy: "buffer" })
 * await conversations.use("chat-42", async (memory) => {
 *   // memory: a ConversationMemory, valid for this callback
 *   await memory.addUserMessage("hi")
 * })
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export class ConversationMemory extends AsyncMemory {
  /** The conversation this memory belongs to. */
  readonly id: string
  private ended = false
  private readonly stored: Conversation.StoredMemory

  /** @internal */
  constructor(memory: Conversation.StoredMemory, id: string) {
    super(wrapped(memory), "ConversationMemory")
    this.id = id
    this.stored = memory
  }

  /** @internal */
  end(): void {
    this.ended = true
  }

  private refuse(): DisposedError | undefined {
    return this.ended
      ? new DisposedError({ object: "ConversationMemory", description: Locations.memoryAfterUse(this.id) })
      : undefined
  }

  /** Adds a message (see `AsyncMemory`); rejects with {@link DisposedError} once its `use()` call has ended. */
  override addMessage(role: string, content: string, options?: MessageOptions): Promise<void> {
    const refused = this.refuse()
    return refused === undefined ? super.addMessage(role, content, options) : Promise.reject(refused)
  }

  /** Adds several messages, then prunes once (see `AsyncMemory`); rejects with {@link DisposedError} once its `use()` call has ended. */
  override addMessages(messages: ReadonlyArray<Message.Message>): Promise<void> {
    const refused = this.refuse()
    return refused === undefined ? super.addMessages(messages) : Promise.reject(refused)
  }

  /** Empties summary and buffer; throws {@link DisposedError} once its `use()` call has ended. */
  override clear(): void {
    const refused = this.refuse()
    if (refused !== undefined) throw refused
    super.clear()
  }

  /**
   * Folds now (docs/contract.md section 16.2: `targetTokens`, the buffer's
   * target, default the low-water mark or half the budget; `focus`, passed to
   * the summarizer), saved like an add and applied again after a conflict.
   * Resolves once the fold is committed. Rejects with `ConfigError` for bad
   * options or the buffer and window strategies (nothing to fold), the
   * summarizer's own error (nothing committed), or {@link DisposedError}
   * once its `use()` call has ended.
   *
   * @example
   * ```ts
   * import { Conversations } from "rollmem/promise"
   *
   * const conversations = new Conversations({
   *   store: "memory",
   *   strategy: "rolling",
   *   maxTokens: 2000,
   *   summarize: async (summary, turns) => `${summary} ${turns.map((t) => t.content).join(" ")}`
   * })
   * await conversations.use("chat-42", async (memory) => {
   *   await memory.addUserMessage("Let us move on to the release notes")
   *   await memory.compact({ focus: "the open bug in the parser" })
   * })
   * ```
   */
  compact(options?: CompactOptions): Promise<void> {
    const refused = this.refuse() ?? this.refused()
    return refused === undefined ? this.run(this.stored.compact(options)) : Promise.reject(refused)
  }

  /**
   * Records the provider's usage figures (see `recordUsage` of the memory
   * classes, docs/contract.md section 16.4), saved with the conversation's
   * state (its usage ratio) and applied again, as the same sample, after a
   * conflict. Throws `UsageError` for an `inputTokens` that is not a
   * positive integer or an `overheadTokens` that is not a non-negative
   * integer, {@link DisposedError} once its `use()` call has ended.
   */
  override recordUsage(usage: Usage): void {
    const refused = this.refuse()
    if (refused !== undefined) throw refused
    super.recordUsage(usage)
  }
}

// The fields Conversations take besides a stored conversation's (the store is checked by `checkStore`).
const conversationsFields = {
  ...Conversation.retryField,
  ...Conversation.archiveField,
  store: Schema.optional(Schema.Unknown),
  table: Schema.optional(Schema.Unknown),
  archiveTable: Schema.optional(Schema.Unknown),
  prefix: Schema.optional(Schema.Unknown),
  ...OptionsSchema.promiseFields,
  ...OptionsSchema.asyncFields
}

// `{ sqlite: path }` or a location string (`core/location.ts`); anything else is a ConfigError.
const checkStore = (store: unknown): ConversationStore.Location => {
  const parsed = Locations.storeLocation(store)
  if (parsed._tag === "Refused") throw new ConfigError(parsed.problem)
  return parsed.location
}

/**
 * A set of stored conversations.
 *
 * The constructor checks every option as the memory classes do and throws
 * `ConfigError` naming it: a missing or unknown `store` (`"redis"` alone is
 * not a URL), an unknown `strategy`, a key the strategy does not take (a
 * misspelt `maxToken`), a budget that is not a positive integer, a
 * `summarize` or `tokenCounter` that is not a function (`summarize` may be
 * `"drop"`), the rolling strategy without `summarize` (a function, or
 * `"drop"` to drop evicted turns on purpose), the summary strategy without a
 * `summarize` function.
 *
 * The store is opened on first use. When it cannot be opened (a directory
 * that does not exist, a driver that is not installed, a server that does
 * not answer) that call rejects with `ConfigError` (option `store`, naming
 * the location with its password hidden), and the next call tries again.
 *
 * Errors (rejections): `ConversationConflictError` when retries run out
 * under heavy contention (nothing of that call is saved),
 * `ConversationDecodeError` for a stored value that does not decode,
 * `ConversationStoreError` when the backend fails or the id is not a
 * non-empty string (`""`: refused before anything runs), `ConfigError` for a store
 * that cannot be opened, {@link DisposedError} after `dispose()`, and
 * whatever `fn` or the summarizer rejects with.
 *
 * @example
 * ```ts
 * import { Conversations } from "rollmem/promise"
 *
 * const conversations = new Conversations({ store: "memory", strategy: "rolling", maxTokens: 2000, summarize: "drop" })
 * const context = await conversations.use("chat-42", async (memory) => {
 *   await memory.addUserMessage("Book me a flight to Rome")
 *   return memory.getMessages() // saved when the callback returns
 * })
 * await conversations.dispose()
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export class Conversations {
  private runtime: ManagedRuntime.ManagedRuntime<Services, unknown>
  private readonly options: Conversation.Options
  private readonly layer: Layer.Layer<Services, unknown>
  private readonly storeName: string
  private disposed = false

  constructor(options: ConversationsOptions) {
    const checked = squash(Effect.runSyncExit(Conversation.checkOptions(options, conversationsFields)))
    const { archiveTable, prefix, store, summarize, table, timeout, tokenCounter, ...strategy } =
      checked as ConversationsOptions
    const names = { table, archiveTable, prefix }
    let storeLayer: Layer.Layer<ConversationStore.ConversationStore, unknown>
    if (Layer.isLayer(store)) {
      const refused = Locations.storeNamesProblem(undefined, names)
      if (refused !== undefined) throw new ConfigError(refused)
      storeLayer = store as Layer.Layer<ConversationStore.ConversationStore, unknown>
      this.storeName = Locations.STORE_LAYER
    } else {
      const location = checkStore(store)
      const refused = Locations.storeNamesProblem(location, names)
      if (refused !== undefined) throw new ConfigError(refused)
      storeLayer = ConversationStore.layerLocation(location, names)
      this.storeName = ConversationStore.describeLocation(location)
    }
    const problem = Rules.storedSummarize(strategy.strategy, summarize)
    if (problem !== undefined) throw new ConfigError(problem)
    // `timeout` needs a summarize function (not "drop"): without one, no call is made to bound
    const needs = Rules.promiseNeeds({ summarize, timeout }, Rules.camel)
    if (needs !== undefined) throw new ConfigError(needs)
    const summarizer = typeof summarize === "function" ? promiseSummarizer(summarize, timeout) : undefined
    // summary segments need a summarizer that honours request.mode: refused here, not at the first call
    const segments = Rules.storedSegments(
      (strategy as { readonly summary?: unknown }).summary,
      summarizer === undefined ? undefined : Summarizer.honoursMode(summarizer)
    )
    if (segments !== undefined) throw new ConfigError(segments)
    this.options = strategy
    this.layer = Layer.mergeAll(
      storeLayer,
      // "drop" (or none, for the strategies that fold nothing): evicted turns are dropped, on purpose
      typeof summarize === "function"
        ? Layer.succeed(Summarizer.Summarizer, summarizer!)
        : Summarizer.layerDrop,
      tokenCounter === undefined
        ? TokenCounter.layerWordCount
        : TokenCounter.layerFunction(tokenCounter)
    ) as Layer.Layer<Services, unknown>
    this.runtime = ManagedRuntime.make(this.layer)
  }

  // Runs `effect` once the store is open; a store that failed to open is
  // opened again on the next call (ManagedRuntime keeps a failed build).
  private async run<A>(effect: Effect.Effect<A, unknown, Services>): Promise<A> {
    if (this.disposed) {
      throw new DisposedError({ object: "Conversations", description: Locations.CONVERSATIONS_DISPOSED })
    }
    const runtime = this.runtime
    const built = await Effect.runPromiseExit(runtime.runtimeEffect)
    if (Exit.isFailure(built)) {
      if (this.runtime === runtime && !this.disposed) this.runtime = ManagedRuntime.make(this.layer)
      void runtime.dispose()
      throw new ConfigError(Locations.cannotOpen(this.storeName, Cause.squash(built.cause)))
    }
    return squash(await Runtime.runPromiseExit(built.value)(effect))
  }

  /**
   * Loads conversation `id` (empty when absent), runs `fn` on its memory and
   * saves what `fn` added or cleared. Resolves with `fn`'s result. The
   * memory refuses adds once `fn`'s Promise has settled (see
   * {@link ConversationMemory}).
   */
  use<A>(id: string, fn: (memory: ConversationMemory) => Promise<A>): Promise<A> {
    return this.run(
      Conversation.withMemory(id, this.options, (memory) =>
        Effect.tryPromise({
          try: async () => {
            const handed = new ConversationMemory(memory, id)
            try {
              return await fn(handed)
            } finally {
              handed.end()
            }
          },
          catch: (error) => error
        }))
    )
  }

  /**
   * Searches conversation `id`'s archive (docs/contract.md sections 17 and
   * 17.2): what left its buffer while these `Conversations` (or any with
   * `archive: true` on the same store) archived, ranked as `recall` ranks
   * (`limit`, default 5; `before`; `roles`; `neighbours`). Resolves with `[]`
   * for a conversation with nothing archived. Rejects with `ConfigError` for
   * a wrong option or a store without an archive (a store layer of
   * `rollmem/cluster`), `ArchiveError` when the store fails.
   *
   * @example
   * ```ts
   * import { Conversations } from "rollmem/promise"
   *
   * const conversations = new Conversations({
   *   store: "sqlite:conversations.db",
   *   strategy: "window",
   *   maxMessages: 20,
   *   archive: true
   * })
   * const matches = await conversations.recall("chat-42", "src/cli/Measure.ts", { limit: 3 })
   * matches.map((match) => [match.position, match.message.role, match.message.content])
   * ```
   */
  recall(id: string, query: string, options?: Archive.SearchOptions): Promise<ReadonlyArray<Archive.Match>> {
    return this.run(
      Effect.flatMap(ConversationStore.ConversationStore, (store) =>
        store.archive === undefined
          ? Effect.fail(new ConfigError(Locations.noArchive))
          : store.archive.search(id, query, options))
    )
  }

  /** The stored state of conversation `id` in the wire format, or `undefined`. */
  load(id: string): Promise<MemoryState.Encoded | undefined> {
    return this.run(
      Effect.flatMap(ConversationStore.ConversationStore, (store) => store.load(id)).pipe(
        Effect.map(Option.match({ onNone: () => undefined, onSome: (stored) => MemoryState.toJSON(stored.state) }))
      )
    )
  }

  /** Deletes conversation `id` and what its archive holds (nothing when absent). */
  delete(id: string): Promise<void> {
    return this.run(Effect.flatMap(ConversationStore.ConversationStore, (store) => store.delete(id)))
  }

  /** Closes the store (the SQLite file, the PostgreSQL pool, the Redis connection). Later calls reject with {@link DisposedError}. */
  dispose(): Promise<void> {
    this.disposed = true
    return this.runtime.dispose()
  }
}
