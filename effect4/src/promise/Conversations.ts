/**
 * Stored conversations for the Promise facade on the Effect 4 line: a thin
 * shell over `Conversation.withMemory` of `rollmem/store`, the Effect 3
 * line's `Conversations` with the same options, locations, errors and
 * messages (their rules `core/location.ts`'s and `core/options.ts`'s).
 *
 * `conversations.use(id, fn)` loads the conversation, hands `fn` a memory
 * whose adds return Promises, and saves once `fn` resolves. When another
 * request (or process, with SQLite, PostgreSQL or Redis) saved the same
 * conversation meanwhile, `fn` is not run again: the adds and clears it made
 * are re-applied to the newer state, so no turn of either writer is lost and
 * none is applied twice. A store's driver is loaded when the store is
 * opened (on first use), never when `rollmem/promise` is imported.
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
 * @since 1.0.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Locations from "../../../src/core/location.js"
import * as Rules from "../../../src/core/options.js"
import { ConfigError } from "../Errors.js"
import * as MemoryState from "../schema/MemoryState.js"
import type * as Message from "../schema/Message.js"
import * as OptionsSchema from "../schema/Options.js"
import type * as Archive from "../services/Archive.js"
import * as Summarizer from "../services/Summarizer.js"
import * as TokenCounter from "../services/TokenCounter.js"
import * as Conversation from "../store/Conversation.js"
import { layerLocation } from "../store/Location.js"
import { ConversationStore } from "../store/Service.js"
import type { CompactOptions, Usage } from "../strategies/internal/engine.js"
import {
  AsyncMemory,
  type AsyncSummarize,
  bounded,
  check,
  type CountTokens,
  DisposedError,
  squash
} from "./internal.js"

/**
 * Where conversations are stored:
 *
 * - `"memory"`: this process only, lost on exit;
 * - `"sqlite:PATH"` or `{ sqlite: PATH }`: an SQLite file through Node's
 *   own `node:sqlite` (Node 22.13 or later), safe across the processes of
 *   one host;
 * - `"postgres://user@host:5432/db"` (or `postgresql://`): PostgreSQL, safe
 *   across hosts (optional peer `@effect/sql-pg` 4);
 * - `"redis://host:6379"` (or `rediss://`): Redis, safe across hosts
 *   (optional peer `ioredis`);
 * - a `Layer` providing a `ConversationStore` of `rollmem/store`.
 *
 * The tables, keys and records are the Effect 3 line's: both lines may use
 * one store.
 *
 * @since 1.0.0
 */
export type StoreOption =
  | "memory"
  | { readonly sqlite: string }
  | `sqlite:${string}`
  | `postgres://${string}`
  | `postgresql://${string}`
  | `redis://${string}`
  | `rediss://${string}`
  | Layer.Layer<ConversationStore, unknown>

/**
 * The `summarize` a strategy's {@link ConversationsOptions} take: the rolling
 * strategy requires a function or `"drop"` (evicted turns dropped on
 * purpose), the summary strategy a function; the others need none.
 *
 * @since 1.0.0
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
 * Options of {@link Conversations}: the store, the strategy with its budget
 * (`Memory.Options` but the archive's), the summarizer (required by the
 * rolling strategy: a function or `"drop"`; by the summary strategy: a
 * function) and the token counter the memories use.
 *
 * @since 1.0.0
 */
export type ConversationsOptions = Conversation.StrategyOptions extends infer O
  ? O extends Conversation.StrategyOptions ? Omit<O, "archive" | "conversationId"> & SummarizeOption<O["strategy"]> & {
      readonly store: StoreOption
      /** The table of the conversations in an SQL store; default `rollmem_conversations`. Refused for another store. */
      readonly table?: string | undefined
      /** The table of the archive beside them in an SQL store; default `rollmem_archive`. Refused for another store. */
      readonly archiveTable?: string | undefined
      /** The key prefix of the conversations in a Redis store; default `rollmem-conversation:`. Refused for another store. */
      readonly prefix?: string | undefined
      /**
       * Archive what leaves each conversation's buffer beside it, in the same
       * store (docs/contract.md section 17.2): searched by the memory's
       * `recall` inside `use()` and by {@link Conversations.recall}. Default
       * `false`; every location's store keeps one (`"memory"` included); a
       * store layer without one refuses `true` with `ConfigError` at the
       * first call.
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

type Services = ConversationStore | Summarizer.Summarizer

/**
 * A memory handed to {@link Conversations.use}: adds return Promises, reads
 * are synchronous. What the callback does is saved and, after a conflict,
 * applied again to the newer state (docs/contract.md section 12.2): adds,
 * `clear()`, `compact()` and `recordUsage()`. It is valid only while the
 * `use` callback runs: once the callback's Promise settles, adds and
 * `compact()` reject and `clear()` and `recordUsage()` throw with
 * `DisposedError` (they would never be saved); reads still work.
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
 * @since 1.0.0
 */
export class ConversationMemory extends AsyncMemory {
  /** The conversation this memory belongs to. */
  readonly id: string
  private ended = false
  private readonly stored: Conversation.StoredMemory

  /** @internal */
  constructor(memory: Conversation.StoredMemory, id: string) {
    super(memory, "ConversationMemory")
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

  /** Adds a message (see `AsyncMemory`); rejects with `DisposedError` once its `use()` call has ended. */
  override add(message: Message.Message): Promise<void> {
    const refused = this.refuse()
    return refused === undefined ? super.add(message) : Promise.reject(refused)
  }

  /** Adds several messages, then prunes once (see `AsyncMemory`); rejects with `DisposedError` once its `use()` call has ended. */
  override addMessages(messages: ReadonlyArray<Message.Message>): Promise<void> {
    const refused = this.refuse()
    return refused === undefined ? super.addMessages(messages) : Promise.reject(refused)
  }

  /** Empties summary and buffer; throws `DisposedError` once its `use()` call has ended. */
  override clear(): void {
    const refused = this.refuse()
    if (refused !== undefined) throw refused
    super.clear()
  }

  /**
   * Folds now (docs/contract.md section 16.2: `targetTokens`, the buffer's
   * target; `focus`, passed to the summarizer), saved like an add and
   * applied again after a conflict. Resolves once the fold is committed.
   * Rejects with `ConfigError` for bad options or the buffer and window
   * strategies (nothing to fold), the summarizer's own error (nothing
   * committed), or `DisposedError` once its `use()` call has ended.
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
    const refused = this.refuse()
    return refused === undefined ? this.run(this.stored.compact(options)) : Promise.reject(refused)
  }

  /**
   * Records the provider's usage figures (docs/contract.md section 16.4),
   * saved with the conversation's state (its usage ratio) and applied
   * again, as the same sample, after a conflict. Throws `UsageError` for
   * figures that are not integers as required, `DisposedError` once its
   * `use()` call has ended.
   */
  override recordUsage(usage: Usage): void {
    const refused = this.refuse()
    if (refused !== undefined) throw refused
    super.recordUsage(usage)
  }
}

/** The options checked, in the Effect 3 line's order: the object, the strategy, unknown keys, the values. */
const checkOptions = (options: unknown): void => {
  check("options", Rules.options, options)
  const all = options as { readonly [key: string]: unknown }
  check("strategy", Rules.strategy, all.strategy)
  const strategy = all.strategy as Rules.Strategy
  // a stored conversation's memory takes its archive and id from the call, not from its options
  const own = OptionsSchema.keysOf[strategy].filter((key) => key !== "archive" && key !== "conversationId")
  for (const key of Object.keys(all)) {
    if (key === "strategy" || own.includes(key) || Locations.CONVERSATIONS_KEYS.includes(key)) continue
    throw new ConfigError({
      option: key,
      description: Rules.unknownOption(
        ["strategy", ...own, ...Locations.CONVERSATIONS_KEYS],
        `the ${strategy} strategy`
      )
    })
  }
  const decoded = OptionsSchema.decodeStrategy(options, Locations.CONVERSATIONS_KEYS)
  if (decoded._tag === "Failure") throw decoded.failure
  if (all.retry !== undefined && !Schedule.isSchedule(all.retry)) {
    throw new ConfigError({ option: "retry", description: "must be a Schedule" })
  }
  if (all.archive !== undefined) check("archive", Rules.boolean, all.archive)
  if (all.summarize !== undefined) check("summarize", Rules.summarizeOrDrop, all.summarize)
  if (all.tokenCounter !== undefined) check("tokenCounter", Rules.isFunction, all.tokenCounter)
  if (all.timeout !== undefined) check("timeout", Rules.milliseconds, all.timeout)
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
 * non-empty string (`""`: refused before anything runs), `ConfigError` for
 * a store that cannot be opened, `DisposedError` after `dispose()`, and
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
 * @since 1.0.0
 */
export class Conversations {
  private runtime: ManagedRuntime.ManagedRuntime<Services, unknown>
  private readonly options: Conversation.Options
  private readonly layer: Layer.Layer<Services, unknown>
  private readonly storeName: string
  private disposed = false

  constructor(options: ConversationsOptions) {
    checkOptions(options)
    const { archive, archiveTable, prefix, store, summarize, table, timeout, tokenCounter, ...strategy } = options as
      & ConversationsOptions
      & {
        readonly tokenCounter?: CountTokens | undefined
      }
    const names = { table, archiveTable, prefix }
    let storeLayer: Layer.Layer<ConversationStore, unknown>
    if (Layer.isLayer(store)) {
      const refused = Locations.storeNamesProblem(undefined, names)
      if (refused !== undefined) throw new ConfigError(refused)
      storeLayer = store as Layer.Layer<ConversationStore, unknown>
      this.storeName = Locations.STORE_LAYER
    } else {
      const parsed = Locations.storeLocation(store)
      if (parsed._tag === "Refused") throw new ConfigError(parsed.problem)
      const refused = Locations.storeNamesProblem(parsed.location, names)
      if (refused !== undefined) throw new ConfigError(refused)
      storeLayer = layerLocation(parsed.location, names)
      this.storeName = Locations.describeLocation(parsed.location)
    }
    const problem = Rules.storedSummarize(strategy.strategy, summarize)
    if (problem !== undefined) throw new ConfigError(problem)
    // `timeout` needs a summarize function (not "drop"): without one, no call is made to bound
    const needs = Rules.promiseNeeds({ summarize, timeout }, Rules.camel)
    if (needs !== undefined) throw new ConfigError(needs)
    const summarizer = typeof summarize === "function"
      ? bounded(Summarizer.fromPromise(summarize), timeout)
      : undefined
    // summary segments need a summarizer that honours request.mode: refused here, not at the first call
    const segments = Rules.storedSegments(
      (strategy as { readonly summary?: unknown }).summary,
      summarizer === undefined ? undefined : Summarizer.honoursMode(summarizer)
    )
    if (segments !== undefined) throw new ConfigError(segments)
    this.options = (archive === undefined ? strategy : { ...strategy, archive }) as Conversation.Options
    this.layer = Layer.mergeAll(
      storeLayer,
      // "drop" (or none, for the strategies that fold nothing): evicted turns are dropped, on purpose
      typeof summarize === "function"
        ? Layer.succeed(Summarizer.Summarizer, summarizer!)
        : Summarizer.layerDrop,
      tokenCounter === undefined ? Layer.empty : TokenCounter.layerFunction(tokenCounter)
    ) as Layer.Layer<Services, unknown>
    this.runtime = ManagedRuntime.make(this.layer)
  }

  // Runs `effect` once the store is open; a store that failed to open is
  // opened again on the next call (a ManagedRuntime keeps a failed build).
  private async run<A>(effect: Effect.Effect<A, unknown, Services>): Promise<A> {
    if (this.disposed) {
      throw new DisposedError({ object: "Conversations", description: Locations.CONVERSATIONS_DISPOSED })
    }
    const runtime = this.runtime
    const built = await Effect.runPromiseExit(runtime.contextEffect)
    if (Exit.isFailure(built)) {
      if (this.runtime === runtime && !this.disposed) this.runtime = ManagedRuntime.make(this.layer)
      void runtime.dispose()
      throw new ConfigError(Locations.cannotOpen(this.storeName, Cause.squash(built.cause)))
    }
    return squash(await Effect.runPromiseExit(Effect.provideContext(effect, built.value)))
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
   * 17.2): what left its buffer while a writer with `archive: true` (the
   * Effect 3 line's `Conversations` or `withMemory` on the same store)
   * archived, ranked as `recall` ranks (`limit`, default 5; `before`;
   * `roles`; `neighbours`). Resolves with `[]` for a conversation with
   * nothing archived. Rejects with `ConfigError` for a wrong option or a
   * store layer without an archive, `ArchiveError` when the store
   * fails.
   *
   * @example
   * ```ts
   * import { Conversations } from "rollmem/promise"
   *
   * const conversations = new Conversations({ store: "sqlite:conversations.db", strategy: "window", maxMessages: 20 })
   * const matches = await conversations.recall("chat-42", "src/cli/Measure.ts", { limit: 3 })
   * matches.map((match) => [match.position, match.message.role, match.message.content])
   * ```
   */
  recall(id: string, query: string, options?: Archive.SearchOptions): Promise<ReadonlyArray<Archive.Match>> {
    return this.run(
      Effect.flatMap(Effect.service(ConversationStore), (store) =>
        store.archive === undefined
          ? Effect.fail(new ConfigError(Locations.noArchive))
          : store.archive.search(id, query, options))
    )
  }

  /** The stored state of conversation `id` in the wire format, or `undefined`. */
  load(id: string): Promise<MemoryState.Encoded | undefined> {
    return this.run(
      Effect.map(
        Effect.flatMap(Effect.service(ConversationStore), (store) => store.load(id)),
        Option.match({ onNone: () => undefined, onSome: (stored) => MemoryState.toJSON(stored.state) })
      )
    )
  }

  /** Deletes conversation `id` and what its archive holds (nothing when absent). */
  delete(id: string): Promise<void> {
    return this.run(Effect.flatMap(Effect.service(ConversationStore), (store) => store.delete(id)))
  }

  /** Closes the store (the SQLite file, the PostgreSQL pool, the Redis connection). Later calls reject with `DisposedError`. */
  dispose(): Promise<void> {
    this.disposed = true
    return this.runtime.dispose()
  }
}
