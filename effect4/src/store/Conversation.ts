/**
 * Using a stored conversation on the Effect 4 line (docs/contract.md
 * section 12.2): load its memory, run your effect on it, save, without
 * losing a turn when two requests (or two processes) write the same
 * conversation at once; the Effect 3 line's `Conversation` with the same
 * semantics.
 *
 * {@link withMemory} loads the conversation from the `ConversationStore`,
 * hands your effect a memory of the strategy you name, records what your
 * effect does to it (adds, clears, compactions and recorded usages, in
 * call order), and saves with the revision it loaded. When another writer
 * saved first, your effect is **not** run again: the newer state is loaded,
 * the recorded operations are re-applied to it in order (pruning and
 * summarizing as usual), and the save is tried again, up to the bounds of
 * the retry `Schedule`.
 *
 * @since 1.0.0
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schedule from "effect/Schedule"
import * as ArchiveCore from "../../../src/core/archive.js"
import * as Rules from "../../../src/core/options.js"
import type { AddError, StateDecodeError, TokenCountError, UsageError } from "../Errors.js"
import { ConfigError } from "../Errors.js"
import * as MemoryState from "../schema/MemoryState.js"
import type { Message } from "../schema/Message.js"
import * as OptionsSchema from "../schema/Options.js"
import type * as Archive from "../services/Archive.js"
import type * as Summarizer from "../services/Summarizer.js"
import { type CompactOptions, samplerOf } from "../strategies/internal/engine.js"
import * as Memory from "../strategies/Memory.js"
import {
  type ConversationConflictError,
  type ConversationDecodeError,
  ConversationStore,
  type ConversationStoreError,
  NO_REVISION,
  type Service
} from "./Service.js"

/**
 * Which strategy holds a stored conversation, with its options
 * (`Memory.Options`: `{ strategy: "rolling", maxTokens: 2000 }`, ...). The
 * stored state is the same for every strategy, so a conversation may be used
 * with another strategy later.
 *
 * @since 1.0.0
 */
export type StrategyOptions = Memory.Options

/** The retry of {@link withMemory} after a conflict: a bounded `Schedule`. @since 1.0.0 */
export type Retry = Schedule.Schedule<unknown, ConversationConflictError>

/**
 * Options of {@link withMemory}: the strategy, and `retry`, when to re-apply
 * after a conflict (default {@link defaultRetry}; it must be bounded; its
 * delays use Effect's `Clock`).
 *
 * @since 1.0.0
 */
export type Options =
  & (StrategyOptions extends infer O ? O extends StrategyOptions ? Omit<O, "archive"> : never : never)
  & {
    readonly retry?: Retry | undefined
    /**
     * Archive what leaves the buffer in the store's archive, written with the
     * state (docs/contract.md section 17.2); `recall` then searches it. The
     * conversation id is the call's. Default `false`. A store without an
     * archive, or a `Writer` in context (the conversation entity), refuses
     * `true` with `ConfigError` (option `archive`).
     */
    readonly archive?: boolean | undefined
  }

/**
 * The default retry of {@link withMemory}: up to 40 re-applies after the
 * first conflict, waiting an exponential backoff from 10 milliseconds,
 * doubling, capped at 250 milliseconds, each delay jittered: about 9
 * seconds in all before `ConversationConflictError`.
 *
 * @since 1.0.0
 */
export const defaultRetry: Retry = Schedule.max([
  Schedule.jittered(Schedule.min([Schedule.exponential("10 millis"), Schedule.spaced("250 millis")])),
  Schedule.recurs(40)
])

/**
 * Any error of {@link withMemory} besides the caller's own.
 *
 * @since 1.0.0
 */
export type WithMemoryError =
  | ConversationConflictError
  | ConversationDecodeError
  | ConversationStoreError
  | ConfigError
  | TokenCountError

/**
 * What a {@link withMemory} call did to its memory, one entry per call, in
 * call order: `add` (the messages of one `add`/`addMessages`), `clear`,
 * `compact` (one that succeeded, with its options), `usage` (a
 * `recordUsage` that moved the usage ratio, as its sample: re-applied to a
 * newer state it moves that state's ratio by the same sample).
 *
 * @since 1.0.0
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
 * `compact` (recorded like an add); the buffer and window strategies have
 * nothing to fold and fail with `ConfigError` (option `strategy`).
 *
 * @since 1.0.0
 */
export interface StoredMemory extends Memory.Memory {
  readonly compact: (options?: CompactOptions) => Effect.Effect<void, AddError | ConfigError>
}

/**
 * One {@link withMemory} call's writes, as a {@link Writer} receives them:
 * a fresh `requestId` per call, the strategy options (without `retry`) and
 * the operations, never empty.
 *
 * @since 1.0.0
 */
export interface Request {
  readonly requestId: string
  readonly options: StrategyOptions
  readonly operations: ReadonlyArray<Operation>
}

/**
 * Where {@link withMemory} sends its writes instead of saving them itself,
 * when one is in context. `apply` must apply the request's operations to the
 * newest state, in order, once, and succeed only once they are stored.
 *
 * @since 1.0.0
 */
export class Writer extends Context.Service<Writer, {
  readonly apply: (id: string, request: Request) => Effect.Effect<void, WithMemoryError>
}>()("rollmem/Conversation/Writer") {}

/**
 * The option keys of each strategy besides `strategy` (and `retry`, which
 * {@link withMemory} takes for every strategy).
 *
 * @since 1.0.0
 */
export const strategyKeys: { readonly [S in StrategyOptions["strategy"]]: ReadonlyArray<string> } = Memory.optionKeys

/**
 * Checks options of {@link withMemory}: an object, a known strategy, no key
 * this strategy does not take (`retry` aside), values the strategy accepts,
 * and `retry` a `Schedule`. Fails with `ConfigError` naming the option.
 * Builds no memory.
 *
 * @since 1.0.0
 */
export const checkOptions = (options: unknown): Effect.Effect<Options, ConfigError> =>
  Effect.suspend(() => {
    const archive = Rules.options(options) === undefined
      ? (options as { readonly archive?: unknown }).archive
      : undefined
    const wrongArchive = archive === undefined ? undefined : Rules.boolean(archive)
    if (wrongArchive !== undefined) {
      return Effect.fail(new ConfigError({ option: "archive", description: wrongArchive }))
    }
    const decoded = OptionsSchema.decodeStrategy(
      archive === undefined ? options : { ...(options as object), archive: undefined },
      ["retry"]
    )
    if (Result.isFailure(decoded)) return Effect.fail(decoded.failure)
    const retry = (options as { readonly retry?: unknown }).retry
    if (retry !== undefined && !Schedule.isSchedule(retry)) {
      return Effect.fail(new ConfigError({ option: "retry", description: "must be a Schedule" }))
    }
    return Effect.succeed(options as Options)
  })

/**
 * A memory of the strategy `options` name, restored from `state` (counted
 * once, not pruned), with the `Summarizer` and `TokenCounter` in context:
 * what {@link withMemory} hands its callback.
 *
 * @since 1.0.0
 */
export const restoreMemory = (
  options: StrategyOptions,
  state: MemoryState.MemoryState
): Effect.Effect<Memory.Memory, ConfigError | StateDecodeError | TokenCountError, Summarizer.Summarizer> =>
  Memory.make(options, state)

const emptyState = MemoryState.empty

const unrecord = (log: Array<Operation>, operation: Operation): void => {
  const i = log.indexOf(operation)
  if (i >= 0) log.splice(i, 1)
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

// Wraps a memory so that every add, clear, compaction and recorded usage is appended to `log` in call
// order. An add that appended nothing (a TokenCountError, or an interruption before the append) is taken
// out again; an add whose summarizer failed stays (its turn was appended). A failed compaction is taken out.
const recording = (memory: Memory.Memory, log: Array<Operation>): StoredMemory => {
  const add = (messages: ReadonlyArray<Message>, run: Effect.Effect<void, AddError>) =>
    Effect.suspend(() => {
      const operation: Operation = { _tag: "add", messages }
      log.push(operation)
      return Effect.onExit(run, (exit) => {
        if (Exit.isSuccess(exit)) return Effect.void
        const failure = Cause.findErrorOption(exit.cause)
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
          (exit) => Exit.isSuccess(exit) ? Effect.void : Effect.sync(() => unrecord(log, operation))
        )
      }),
    recordUsage: (usage) =>
      sampler === undefined ? memory.recordUsage(usage) : Effect.map(sampler(usage, undefined), (sample) => {
        if (sample !== undefined) log.push({ _tag: "usage", ...sample })
      })
  }
}

// One recorded operation, applied again. A fold that fails leaves the turns where they are, as in any add.
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

// Loads the newest state, re-applies the log to it and saves (the archive's writes held and saved with it).
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
    const memory = yield* Memory.build(
      withArchive(options, id, staged),
      Option.match(loaded, { onNone: () => emptyState, onSome: (s) => s.state })
    )
    for (const operation of log) yield* reapplyOne(memory, operation)
    return yield* store.save(id, yield* memory.state, revisionOf(loaded), saveOptions(staged))
  })

/**
 * An archive that holds a call's writes until its save (docs/contract.md
 * section 17.2); `search` and `messages` read the store's archive and the
 * writes held (`core/archive.ts` `withHeld`, `searchWithHeld`), which the
 * save writes with the state.
 */
interface Staging extends Archive.Service {
  readonly writes: ReadonlyArray<ReadonlyArray<Archive.Entry>>
}

const staging = (stored: Archive.Service): Staging => {
  const writes: Array<ReadonlyArray<Archive.Entry>> = []
  const held = ArchiveCore.makeStore<Message>()
  const positions = new Set<number>()
  return {
    writes,
    append: (conversationId, entries) =>
      Effect.sync(() => {
        const fresh = entries.filter((entry) => !positions.has(entry.position))
        if (fresh.length === 0) return
        for (const entry of fresh) positions.add(entry.position)
        writes.push(fresh)
        held.append(conversationId, fresh)
      }),
    messages: (conversationId) =>
      Effect.map(
        stored.messages(conversationId),
        (saved) => ArchiveCore.withHeld(saved, held.messages(conversationId), positions)
      ),
    search: (conversationId, query, options) =>
      writes.length === 0 ? stored.search(conversationId, query, options) : Effect.map(
        stored.search(conversationId, query, options),
        (saved) =>
          ArchiveCore.searchWithHeld(
            query,
            saved,
            held.search(conversationId, query, options),
            positions,
            options?.limit
          )
      )
  }
}

// The strategy's options with the call's staging archive and the conversation's id (the buffer strategy evicts nothing).
const withArchive = (options: StrategyOptions, id: string, staged: Staging | undefined): StrategyOptions =>
  staged === undefined || options.strategy === "buffer"
    ? options
    : { ...options, archive: staged, conversationId: id } as StrategyOptions

const saveOptions = (staged: Staging | undefined) =>
  staged === undefined || staged.writes.length === 0 ? undefined : { archive: staged.writes.slice() }

const isConflict = (error: unknown): error is ConversationConflictError =>
  typeof error === "object" && error !== null &&
  (error as { readonly _tag?: unknown })._tag === "ConversationConflictError"

// Retries `effect` on a conflict only; any other failure ends at once.
const retryOnConflict = <A, E, R>(
  effect: Effect.Effect<A, E | ConversationConflictError, R>,
  schedule: Retry
): Effect.Effect<A, E | ConversationConflictError, R> => {
  const conflictsOnly: Effect.Effect<Result.Result<A, E>, ConversationConflictError, R> = Effect.catch(
    Effect.map(effect, (a): Result.Result<A, E> => Result.succeed(a)),
    (error) => isConflict(error) ? Effect.fail(error) : Effect.succeed(Result.fail(error as E))
  )
  return Effect.flatMap(Effect.retry(conflictsOnly, schedule), (result) => Effect.fromResult(result))
}

/** What a call of {@link withMemory} with options `O` needs besides the store: a `Summarizer` but for buffer and window. */
type Requirements<O extends Options> = O["strategy"] extends "buffer" | "window" ? never : Summarizer.Summarizer

/**
 * Loads conversation `id` from the `ConversationStore`, runs `f` on its
 * memory, saves it, and returns what `f` returned. An absent conversation
 * starts empty. The save writes only if no other writer saved since the
 * load; on a conflict `f` is not run again: the newer state is loaded, the
 * operations `f` made ({@link Operation}) are re-applied to it in order, and
 * saved, per `options.retry` (default {@link defaultRetry}). When `f` made
 * no operation, nothing is saved. With a {@link Writer} in context the
 * operations are sent to it as one request instead.
 *
 * Fails with `f`'s error (nothing saved), `ConversationDecodeError` (before
 * `f` runs), `ConversationStoreError`, `ConversationConflictError` (retries
 * exhausted), `ConfigError` (bad options, checked before anything is
 * loaded, or the summary strategy without a `Summarizer`) or
 * `TokenCountError`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message, Summarizer } from "rollmem"
 * import { Conversation, ConversationStore } from "rollmem/store"
 *
 * const turn = Conversation.withMemory("chat-42", { strategy: "rolling", maxTokens: 2000 }, (memory) =>
 *   Effect.gen(function*() {
 *     yield* memory.add(Message.user("Book me a flight to Rome"))
 *     return yield* memory.context
 *   })
 * ).pipe(Effect.provide(ConversationStore.layerMemory), Effect.provide(Summarizer.layerDrop))
 * ```
 *
 * @since 1.0.0
 */
export const withMemory = <A, E, R, O extends Options = Options>(
  id: string,
  options: O,
  f: (memory: StoredMemory) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | WithMemoryError, R | ConversationStore | Requirements<O>> =>
  Effect.gen(function*() {
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
    const memory = yield* Memory.build(
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
  }).pipe(Effect.withSpan("Conversation.withMemory")) as Effect.Effect<
    A,
    E | WithMemoryError,
    R | ConversationStore | Requirements<O>
  >
