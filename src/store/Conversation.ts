/**
 * Using a stored conversation: load its memory, run your effect on it, save,
 * without losing a turn when two requests (or two processes) write the same
 * conversation at once.
 *
 * {@link withMemory} loads the conversation from the `ConversationStore`,
 * hands your effect a memory of the strategy you name, records what your
 * effect does to it (adds, clears, compactions and recorded usages, in the
 * order they were called), and saves with the revision it loaded. When another writer saved first, your
 * effect is **not** run again (its model calls must not repeat): the newer
 * state is loaded, the recorded operations are re-applied to it in order
 * (pruning and summarizing as usual), and the save is tried again, up to the
 * bounds of the retry `Schedule`. Every turn of both writers ends up stored
 * once.
 *
 * Failure modes:
 *
 * - your effect fails or is interrupted: nothing is saved;
 * - the process crashes between load and save: nothing is saved (each save
 *   writes one whole record); your effect's turns are lost with its result;
 * - the retries run out (heavy contention): fails with
 *   `ConversationConflictError`; nothing of this call is saved, though your
 *   effect ran;
 * - a summarizer that fails while operations are re-applied leaves the turn
 *   in the buffer, as an add does (docs/contract.md section 5): the next add folds it;
 * - the stored value does not decode: fails with `ConversationDecodeError`
 *   before your effect runs.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message, Summarizer } from "rollmem"
 * import { Conversation, ConversationStore } from "rollmem/store"
 *
 * declare const callMyModel: (messages: ReadonlyArray<Message.Message>) => Effect.Effect<string>
 * const turn = (id: string, text: string) =>
 *   Conversation.withMemory(id, { strategy: "rolling", maxTokens: 2000 }, (memory) =>
 *     Effect.gen(function*() {
 *       yield* memory.add(Message.user(text))
 *       const reply = yield* callMyModel(yield* memory.messages)
 *       yield* memory.add(Message.assistant(reply))
 *       return reply
 *     })
 *   )
 *
 * turn("chat-42", "Book me a flight to Rome").pipe(
 *   Effect.provide(ConversationStore.layerSqlite({ filename: "conversations.db" })),
 *   Effect.provide(Summarizer.layerFunction((summary, turns) => `${summary} (${turns.length} turns)`))
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import type * as Schema from "effect/Schema"
import * as ArchiveCore from "../core/archive.js"
import * as Rules from "../core/options.js"
import { type AddError, ConfigError, type StateDecodeError, type TokenCountError, type UsageError } from "../Errors.js"
import * as MemoryState from "../schema/MemoryState.js"
import type { Message } from "../schema/Message.js"
import * as OptionsSchema from "../schema/Options.js"
import * as Archive from "../services/Archive.js"
import * as Summarizer from "../services/Summarizer.js"
import { buildStrategy, type CompactOptions } from "../strategies/internal/builders.js"
import { samplerOf } from "../strategies/internal/core.js"
import * as Memory from "../strategies/Memory.js"
import {
  type ConversationConflictError,
  type ConversationDecodeError,
  ConversationStore,
  type ConversationStoreError,
  NO_REVISION,
  type Service
} from "./ConversationStore.js"

/**
 * Which strategy holds a stored conversation, with its options. The stored
 * state is the same for every strategy (docs/contract.md section 2), so a conversation
 * may be used with another strategy later.
 *
 * - `rolling`: RollingMemory, `maxTokens` default 2000 and the other
 *   `RollingMemory.Options` (context policies: `targetTokens`, `boundary`,
 *   `pinSystem`, `clearToolResults`, `summaryRole`, `maxSummaryTokens`); folds
 *   with the `Summarizer` in context (`Summarizer.layerDrop` drops);
 * - `buffer`: BufferMemory (`summaryRole`);
 * - `window`: WindowMemory, `maxMessages` required, and the other
 *   `WindowMemory.Options` (`targetMessages`, `boundary`, `pinSystem`,
 *   `summaryRole`);
 * - `summary`: SummaryMemory (`summaryRole`, `maxSummaryTokens`); a
 *   `Summarizer` must be in context.
 *
 * @since 0.1.0
 * @category models
 */
export type StrategyOptions = Memory.Options extends infer O ?
  O extends Memory.Options ? Omit<O, "archive" | "conversationId">
  : never
  : never

/**
 * Options of {@link withMemory}: the strategy, and how to retry on a
 * conflict.
 *
 * @since 0.1.0
 * @category models
 */
export type Options = StrategyOptions & {
  /**
   * When to re-apply after a conflict; it must be bounded. Default
   * {@link defaultRetry}. The schedule's delays use Effect's `Clock`.
   */
  readonly retry?: Schedule.Schedule<unknown, ConversationConflictError> | undefined
  /**
   * Archive what leaves the buffer beside the conversation, in the same
   * store (docs/contract.md section 17.2): every message a fold, a drop, a
   * window's eviction, a clearing or a cut takes out, saved with the state
   * (one transaction in the SQL stores, one script in Redis, the rows
   * before the state in the key-value stores), searched by the memory's
   * `recall` and the store's `archive`. The conversation id is the
   * memory's. Default `false`. A store without an archive (the
   * conversation entity's client) refuses it with `ConfigError`.
   */
  readonly archive?: boolean | undefined
}

/**
 * The default retry of {@link withMemory}: up to 40 re-applies after the
 * first conflict, waiting between them an exponential backoff from 10
 * milliseconds, doubling, capped at 250 milliseconds, each delay jittered
 * between 80% and 120%: about 9 seconds in all before
 * `ConversationConflictError`. Many short waits rather than a few long ones:
 * a writer that keeps losing needs attempts, not time.
 *
 * @example
 * ```ts
 * import { Effect, Schedule } from "effect"
 * import { Message } from "rollmem"
 * import { Conversation } from "rollmem/store"
 *
 * // fewer re-applies than the default before ConversationConflictError
 * const retry = Conversation.defaultRetry.pipe(Schedule.intersect(Schedule.recurs(5)))
 * const turn = Conversation.withMemory("chat-42", { strategy: "buffer", retry }, (memory) => memory.add(Message.user("hi")))
 * ```
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultRetry: Schedule.Schedule<unknown, ConversationConflictError> = Schedule.exponential("10 millis")
  .pipe(
    Schedule.union(Schedule.spaced("250 millis")),
    Schedule.jittered,
    Schedule.intersect(Schedule.recurs(40))
  )

/**
 * Any error of {@link withMemory} besides the caller's own.
 *
 * @since 0.1.0
 * @category errors
 */
export type WithMemoryError =
  | ConversationConflictError
  | ConversationDecodeError
  | ConversationStoreError
  | ConfigError
  | TokenCountError

const emptyState = MemoryState.make("", [])

/**
 * What a {@link withMemory} call did to its memory, one entry per call, in
 * call order (docs/contract.md section 12.2):
 *
 * - `add`: the messages of one `add`/`addMessages`;
 * - `clear`;
 * - `compact`: a `compact` that succeeded, with its options (`targetTokens`,
 *   `focus`, each absent when not given);
 * - `usage`: a `recordUsage` that moved the usage ratio, as its sample:
 *   the provider's `inputTokens`, the `overheadTokens` outside the memory's
 *   context (its default resolved) and `contextTokens`, the memory's own
 *   count of the context the request carried (docs/contract.md section 16.4).
 *   Applied again to a newer state, it moves that state's ratio by the same
 *   sample.
 *
 * @since 0.3.0
 * @category models
 */
export type Operation =
  | { readonly _tag: "add"; readonly messages: ReadonlyArray<Message> }
  | { readonly _tag: "clear" }
  | { readonly _tag: "compact"; readonly targetTokens?: number | undefined; readonly focus?: string | undefined }
  | {
    readonly _tag: "usage"
    readonly inputTokens: number
    readonly overheadTokens: number
    readonly contextTokens: number
  }

/**
 * The memory {@link withMemory} hands its callback: a `Memory` that can also
 * `compact` (docs/contract.md section 16.2), so that `Memory.withOverflowRetry`
 * works on a stored conversation. The rolling and summary strategies
 * compact as their memories do; the buffer and window strategies have
 * nothing to fold and fail with `ConfigError` (option `strategy`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message } from "rollmem"
 * import { Conversation } from "rollmem/store"
 *
 * const turn = Conversation.withMemory("chat-42", { strategy: "rolling", maxTokens: 2000 }, (memory) =>
 *   Effect.gen(function*() {
 *     yield* memory.add(Message.user("Let us move on to the release notes"))
 *     yield* memory.compact({ focus: "the open bug in the parser" }) // stored, re-applied after a conflict
 *   })
 * )
 * ```
 *
 * @since 0.3.0
 * @category models
 */
export interface StoredMemory extends Memory.Memory {
  /**
   * Folds now (docs/contract.md section 16.2), recorded like an add: after a
   * conflict it is applied again to the newer state. Fails as the
   * strategy's `compact`; `ConfigError` (option `strategy`) for the buffer
   * and window strategies.
   */
  readonly compact: (options?: CompactOptions) => Effect.Effect<void, AddError | ConfigError>
}

/**
 * One {@link withMemory} call's writes, as a {@link Writer} receives them.
 *
 * @since 0.3.0
 * @category models
 */
export interface Request {
  /** A fresh id (a random UUID) per call: a writer applies each request once, however often it is delivered. */
  readonly requestId: string
  /** The strategy and its options, as given to `withMemory` (without `retry`). */
  readonly options: StrategyOptions
  /** The adds, clears, compactions and recorded usages, in the order the call made them; never empty. */
  readonly operations: ReadonlyArray<Operation>
}

/**
 * Where {@link withMemory} sends its writes instead of saving them itself,
 * when one is in context: the conversation entity's client of
 * `rollmem/cluster` provides one (with a `ConversationStore` whose `load`
 * reads through the entity). Without a `Writer`, `withMemory` saves with the
 * store's compare-and-set and re-applies on a conflict.
 *
 * `apply` must apply the request's operations to the newest state, in order,
 * once, and succeed only once they are stored.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { Conversation } from "rollmem/store"
 *
 * // a Writer that forwards every request to a service of your own
 * declare const forward: (id: string, request: Conversation.Request) => Effect.Effect<void>
 * const WriterLive = Layer.succeed(Conversation.Writer, { apply: forward })
 * ```
 *
 * @since 0.3.0
 * @category tags
 */
export class Writer extends Context.Tag("rollmem/Conversation/Writer")<Writer, {
  readonly apply: (id: string, request: Request) => Effect.Effect<void, WithMemoryError>
}>() {}

/**
 * A memory of the strategy `options` name, restored from `state` (counted
 * once, not pruned), with the `Summarizer` and `TokenCounter` in context:
 * what {@link withMemory} hands its callback. Fails with `ConfigError` for
 * the summary strategy without a `Summarizer`, or an option the strategy
 * refuses, and `TokenCountError` when the counter fails on a stored turn.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { MemoryState, Message, Summarizer } from "rollmem"
 * import { Conversation } from "rollmem/store"
 *
 * const memory = Conversation.restoreMemory(
 *   { strategy: "window", maxMessages: 20 },
 *   MemoryState.make("", [Message.user("hi")])
 * ).pipe(Effect.provide(Summarizer.layerDrop))
 * ```
 *
 * @since 0.3.0
 * @category constructors
 */
export const restoreMemory = (
  options: StrategyOptions,
  state: MemoryState.MemoryState
): Effect.Effect<Memory.Memory, ConfigError | TokenCountError | StateDecodeError, Summarizer.Summarizer> =>
  Memory.make(options, state)

// A memory of options already decoded (by `checkOptions`), holding `state`.
const restore = (
  options: StrategyOptions,
  state: MemoryState.MemoryState
): Effect.Effect<Memory.Memory, ConfigError | TokenCountError | StateDecodeError, Summarizer.Summarizer> =>
  buildStrategy(options, state)

/**
 * The option keys of each strategy besides `strategy` (and `retry`, which
 * {@link withMemory} takes for every strategy): `Memory.optionKeys`.
 *
 * @example
 * ```ts
 * import { Conversation } from "rollmem/store"
 *
 * Conversation.strategyKeys.window.includes("maxMessages") // true
 * ```
 *
 * @since 0.2.0
 * @category constants
 */
export const strategyKeys: { readonly [S in StrategyOptions["strategy"]]: ReadonlyArray<string> } = Memory.optionKeys

/**
 * The field {@link withMemory} takes for every strategy besides its own:
 * `retry`, a `Schedule`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Conversation } from "rollmem/store"
 *
 * // a wrapper's own options beside the strategy's: retry and archive, plus a field of its own
 * const extra = { ...Conversation.retryField, ...Conversation.archiveField, tenant: Schema.optional(Schema.String) }
 * const checked = Conversation.checkOptions({ strategy: "buffer", tenant: "acme" }, extra)
 * ```
 *
 * @since 0.4.0
 * @category schemas
 */
export const retryField = {
  retry: OptionsSchema.optional<Schedule.Schedule<unknown, ConversationConflictError>>((u) =>
    Schedule.isSchedule(u) ? undefined : "must be a Schedule"
  )
}

/**
 * The field {@link withMemory} takes for every strategy besides its own and
 * {@link retryField}: `archive`, a boolean (docs/contract.md section 17.2).
 *
 * @example
 * ```ts
 * import { Conversation } from "rollmem/store"
 *
 * Object.keys(Conversation.archiveField) // ["archive"]
 * ```
 *
 * @since 0.4.0
 * @category schemas
 */
export const archiveField = {
  archive: OptionsSchema.optional<boolean>(Rules.boolean)
}

const storedFields = { ...retryField, ...archiveField }

/**
 * Checks options of {@link withMemory} by decoding them once with the
 * strategy's schema (`Options.decodeStrategy`), {@link retryField} and
 * {@link archiveField}, or
 * `extra` (a wrapper's fields besides them, as the Promise facade's
 * `Conversations`, which must include {@link retryField} and
 * {@link archiveField}): an object, a
 * known strategy, no key that this strategy does not take (a misspelt
 * `maxToken` is refused, not left to its default), and values the strategy
 * accepts. Fails with `ConfigError` naming the option; `strategy: "lru"`
 * lists the known strategies. Builds no memory.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Conversation } from "rollmem/store"
 *
 * Effect.runSync(Conversation.checkOptions({ strategy: "rolling", maxTokens: 2000 })) // the decoded options
 * Effect.runSyncExit(Conversation.checkOptions({ strategy: "rolling", maxToken: 2000 })) // fails: ConfigError naming maxToken
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const checkOptions = (
  options: unknown,
  extra: Schema.Struct.Fields = storedFields
): Effect.Effect<Options, ConfigError> => OptionsSchema.decodeStrategy<Options>(options, extra)

/**
 * Wraps a memory so that every add, clear, compaction and recorded usage is
 * appended to `log`, in the order they are called. An add that appended
 * nothing (a `TokenCountError`, or an interruption before the append) is
 * taken out again; an add whose summarizer failed stays: its turn was
 * appended. A compaction that failed or was interrupted committed nothing
 * and is taken out; a usage is logged once recorded, as the sample it
 * applied (none when it changed nothing).
 */
const recording = (memory: Memory.Memory, log: Array<Operation>): StoredMemory => {
  // one add of one or several messages (docs/contract.md section 10.7), recorded as one operation
  const add = (messages: ReadonlyArray<Message>, run: Effect.Effect<void, AddError>) =>
    Effect.suspend(() => {
      const operation: Operation = { _tag: "add", messages }
      log.push(operation)
      return Effect.onExit(run, (exit) => {
        if (Exit.isSuccess(exit)) return Effect.void
        const failure = Cause.failureOption(exit.cause)
        if (Option.isSome(failure)) {
          if (failure.value._tag === "TokenCountError") unrecord(log, operation)
          return Effect.void
        }
        return Effect.map(memory.buffer, (buffer) => {
          if (messages.length > 0 && !buffer.includes(messages[0])) unrecord(log, operation)
        })
      })
    })
  const compact = compactOf(memory)
  const sampler = samplerOf(memory)
  return {
    ...memory,
    add: (message) => add([message], memory.add(message)),
    addMessages: (messages) => add(messages, memory.addMessages(messages)),
    clear: Effect.suspend(() => {
      log.push({ _tag: "clear" })
      return memory.clear
    }),
    compact: (options) =>
      Effect.suspend(() => {
        const operation: Operation = {
          _tag: "compact",
          ...(options?.targetTokens === undefined ? {} : { targetTokens: options.targetTokens }),
          ...(options?.focus === undefined ? {} : { focus: options.focus })
        }
        log.push(operation)
        return Effect.onExit(
          compact(options),
          (exit) => Exit.isSuccess(exit) ? Effect.void : unrecordNow(log, operation)
        )
      }),
    recordUsage: (usage) =>
      sampler === undefined ? memory.recordUsage(usage) : Effect.map(sampler(usage, undefined), (sample) => {
        if (sample !== undefined) log.push({ _tag: "usage", ...sample })
      })
  }
}

// The strategy's own compact, or a ConfigError for the strategies that have none.
const compactOf = (memory: Memory.Memory): StoredMemory["compact"] => {
  const own = (memory as Partial<StoredMemory>).compact
  if (own !== undefined) return own
  return () =>
    Effect.fail(
      new ConfigError({
        option: "strategy",
        description: `compact needs the rolling or summary strategy, got ${memory.strategy}: it has nothing to fold`
      })
    )
}

const unrecordNow = (log: Array<Operation>, operation: Operation) => Effect.sync(() => unrecord(log, operation))

const unrecord = (log: Array<Operation>, operation: Operation): void => {
  const i = log.indexOf(operation)
  if (i >= 0) log.splice(i, 1)
}

// Loads the newest state, re-applies the log to it and saves. A summarizer
// failure keeps the turn, as in any add; a token count error is the caller's.
const reapply = (
  store: Service,
  id: string,
  options: StrategyOptions,
  log: ReadonlyArray<Operation>,
  archived: Archive.Service | undefined
) =>
  Effect.gen(function*() {
    const loaded = yield* store.load(id)
    const staged = archived === undefined ? undefined : staging(archived)
    const memory = yield* restore(
      withArchive(options, id, staged),
      Option.match(loaded, { onNone: () => emptyState, onSome: (s) => s.state })
    )
    for (const operation of log) yield* reapplyOne(memory, operation)
    return yield* store.save(id, yield* memory.state, revisionOf(loaded), saveOptions(staged))
  })

/**
 * An archive that holds a call's writes until its save (docs/contract.md
 * section 17.2): `appendSync` keeps each write (a memory's fold stays one
 * step), `search` and `messages` read the store's archive and the writes
 * held, which the save writes with the state.
 */
interface Staging extends Archive.Service {
  readonly writes: ReadonlyArray<ReadonlyArray<Archive.Entry>>
}

const staging = (stored: Archive.Service): Staging => {
  const writes: Array<ReadonlyArray<Archive.Entry>> = []
  const held = Archive.makeMemory()
  const positions = new Set<number>()
  const appendSync = (conversationId: string, entries: ReadonlyArray<Archive.Entry>): undefined => {
    const fresh = entries.filter((entry) => !positions.has(entry.position))
    if (fresh.length === 0) return undefined
    for (const entry of fresh) positions.add(entry.position)
    writes.push(fresh)
    held.appendSync!(conversationId, fresh)
    return undefined
  }
  // a held message is numbered by its save: until then its fold is 0 (core/archive.ts)
  return {
    writes,
    append: (conversationId, entries) => Effect.sync(() => appendSync(conversationId, entries)),
    appendSync,
    messages: (conversationId) =>
      Effect.map(
        Effect.zip(stored.messages(conversationId), held.messages(conversationId)),
        ([saved, pending]) => ArchiveCore.withHeld(saved, pending, positions)
      ),
    search: (conversationId, query, options) =>
      writes.length === 0 ? stored.search(conversationId, query, options) : Effect.map(
        Effect.zip(stored.search(conversationId, query, options), held.search(conversationId, query, options)),
        ([saved, pending]) => ArchiveCore.searchWithHeld(query, saved, pending, positions, options?.limit)
      )
  }
}

// The strategy's options with the call's staging archive and the conversation's id (the buffer strategy evicts nothing).
const withArchive = (options: StrategyOptions, id: string, staged: Staging | undefined): Memory.Options =>
  staged === undefined || options.strategy === "buffer"
    ? options as Memory.Options
    : { ...options, archive: staged, conversationId: id } as Memory.Options

const saveOptions = (staged: Staging | undefined) =>
  staged === undefined || staged.writes.length === 0 ? undefined : { archive: staged.writes.slice() }

// One recorded operation, applied again. A fold that fails (summarizer, summary budget, a context window
// the pinned messages and summary fill, an archive write) leaves the turns where they are, as in any add or compaction.
const reapplyOne = (
  memory: Memory.Memory,
  operation: Operation
): Effect.Effect<void, TokenCountError | ConfigError> => {
  const keep = {
    SummarizerError: () => Effect.void,
    SummaryBudgetError: () => Effect.void,
    ContextWindowError: () => Effect.void,
    ArchiveError: () => Effect.void
  } as const
  switch (operation._tag) {
    case "clear":
      return memory.clear
    case "add":
      return Effect.catchTags(memory.addMessages(operation.messages), keep)
    case "compact": {
      const { _tag: _, ...options } = operation
      return Effect.catchTags(compactOf(memory)(options), keep)
    }
    case "usage": {
      const sampler = samplerOf(memory)
      const usage = { inputTokens: operation.inputTokens, overheadTokens: operation.overheadTokens }
      // the figures were checked when they were recorded
      const applied: Effect.Effect<unknown, UsageError> = sampler === undefined
        ? memory.recordUsage(usage)
        : sampler(usage, operation.contextTokens)
      return Effect.orDie(Effect.asVoid(applied))
    }
  }
}

const revisionOf = (loaded: Option.Option<{ readonly revision: number }>): number =>
  Option.match(loaded, { onNone: () => NO_REVISION, onSome: (s) => s.revision })

// Retries `effect` on a conflict only; any other failure ends at once.
const retryOnConflict = <A, E, R>(
  effect: Effect.Effect<A, E | ConversationConflictError, R>,
  schedule: Schedule.Schedule<unknown, ConversationConflictError>
): Effect.Effect<A, E | ConversationConflictError, R> => {
  const conflictsOnly: Effect.Effect<Either.Either<A, E>, ConversationConflictError, R> = Effect.catchAll(
    Effect.map(effect, Either.right),
    (error) => isConflict(error) ? Effect.fail(error) : Effect.succeed(Either.left(error as E))
  )
  return Effect.flatMap(Effect.retry(conflictsOnly, schedule), (result) => result)
}

const isConflict = (error: unknown): error is ConversationConflictError =>
  typeof error === "object" && error !== null &&
  (error as { readonly _tag?: unknown })._tag === "ConversationConflictError"

/**
 * Loads conversation `id` from the `ConversationStore`, runs `f` on its
 * memory, saves it, and returns what `f` returned.
 *
 * `f` may add turns, clear, and read (context, messages, summary) as with any
 * memory; an absent conversation starts empty. With a {@link Writer} in
 * context (the conversation entity's client), the recorded operations are sent
 * to it as one request instead of being saved here. The save writes only if no
 * other writer saved since the load. On a conflict `f` is not run again: the
 * newer state is loaded and the operations `f` made ({@link Operation}:
 * adds, clears, compactions, recorded usages) are re-applied to
 * it, in the order `f` called them, then saved; this repeats per
 * `options.retry` (default {@link defaultRetry}). When `f` made no operation
 * (no add, clear, compaction, or usage that moved the ratio), nothing is
 * saved.
 *
 * The memory handed to `f` is this call's own. Join every add before `f`
 * returns: an add still running then is saved as appended, without its
 * prune, and operations made after `f` returns are not saved.
 *
 * Fails with `f`'s error (nothing saved), `ConversationDecodeError` (the
 * stored value does not decode), `ConversationStoreError` (the backend
 * failed), `ConversationConflictError` (retries exhausted), `ConfigError`
 * (bad strategy options, checked by {@link checkOptions} before anything is
 * loaded, or the summary strategy without a `Summarizer`) or
 * `TokenCountError` (the token counter failed on a stored or re-applied turn).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message, Summarizer } from "rollmem"
 * import { Conversation, ConversationStore } from "rollmem/store"
 *
 * // load chat-42, add a turn, save it (re-applied to a newer state on a conflict)
 * const turn = Conversation.withMemory("chat-42", { strategy: "rolling", maxTokens: 2000 }, (memory) =>
 *   Effect.gen(function*() {
 *     yield* memory.add(Message.user("Book me a flight to Rome"))
 *     return yield* memory.messages
 *   })
 * ).pipe(
 *   Effect.provide(ConversationStore.layerMemory),
 *   Effect.provide(Summarizer.layerFunction((summary, turns) => `${summary} ${turns.map(String).join(" ")}`.trim()))
 * )
 * ```
 *
 * @since 0.1.0
 * @category combinators
 */
export const withMemory: <A, E, R, O extends Options = Options>(
  id: string,
  options: O,
  f: (memory: StoredMemory) => Effect.Effect<A, E, R>
) => Effect.Effect<A, E | WithMemoryError, R | ConversationStore | Memory.Requirements<O>> = Effect.fn(
  "Conversation.withMemory"
)(
  // Typed for any strategy here (a Summarizer); the signature above narrows it per strategy, as Memory.make does.
  function*<A, E, R>(id: string, options: Options, f: (memory: StoredMemory) => Effect.Effect<A, E, R>) {
    const { archive: archiving, retry, ...checked } = yield* checkOptions(options)
    const strategy = checked as StrategyOptions
    const store = yield* ConversationStore
    const writer = yield* Effect.serviceOption(Writer)
    let archived: Archive.Service | undefined
    if (archiving === true) {
      if (Option.isSome(writer) || store.archive === undefined) {
        return yield* new ConfigError({
          option: "archive",
          description: Option.isSome(writer)
            ? "the conversation entity (rollmem/cluster) does not archive: use a store of rollmem/store"
            : "this store keeps no archive: use a store of rollmem/store"
        })
      }
      archived = store.archive
    }
    const loaded = yield* store.load(id)
    const staged = archived === undefined ? undefined : staging(archived)
    const memory = yield* restore(
      withArchive(strategy, id, staged),
      Option.match(loaded, { onNone: () => emptyState, onSome: (s) => s.state })
    )
    const log: Array<Operation> = []
    const result = yield* f(recording(memory, log))
    if (log.length === 0) return result
    if (Option.isSome(writer)) {
      yield* writer.value.apply(id, { requestId: crypto.randomUUID(), options: strategy, operations: log.slice() })
      return result
    }
    yield* Effect.catchTag(
      store.save(id, yield* memory.state, revisionOf(loaded), saveOptions(staged)),
      "ConversationConflictError",
      () => retryOnConflict(reapply(store, id, strategy, log.slice(), archived), retry ?? defaultRetry)
    )
    return result
  }
) as <A, E, R, O extends Options = Options>(
  id: string,
  options: O,
  f: (memory: StoredMemory) => Effect.Effect<A, E, R>
) => Effect.Effect<A, E | WithMemoryError, R | ConversationStore | Memory.Requirements<O>>
