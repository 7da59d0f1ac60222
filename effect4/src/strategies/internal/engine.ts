/**
 * The shell of every strategy on the Effect 4 line: the mutable core
 * (summary, generation, eviction index), an add (count once, append, prune),
 * folds under a one-permit `Semaphore`, and the read side. Every decision is
 * the pure core's (`src/core/`: the eviction index and its plans, the
 * policies' configuration, tool-result cutting, the ledger, a fold's rules,
 * usage); this module runs its counts and summarizer calls as effects and
 * commits or aborts the plans, as `src/strategies/internal/core.ts` does on
 * the Effect 3 line.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Semaphore from "effect/Semaphore"
import * as Lead from "../../../../src/core/context.js"
import { type Config, EvictionIndex, type Plan, type Policy } from "../../../../src/core/eviction.js"
import * as Fold from "../../../../src/core/fold.js"
import * as Ledger from "../../../../src/core/ledger.js"
import * as LedgerRecorder from "../../../../src/core/ledgerRecorder.js"
import * as Loops from "../../../../src/core/loops.js"
import * as MessageCore from "../../../../src/core/message.js"
import * as Rules from "../../../../src/core/options.js"
import type { Pruning } from "../../../../src/core/policy.js"
import * as Segments from "../../../../src/core/segments.js"
import * as Tokens from "../../../../src/core/tokens.js"
import * as UsageRatio from "../../../../src/core/usage.js"
import {
  type AddError,
  type ArchiveError,
  ConfigError,
  ContextWindowError,
  SummarizerError,
  SummaryBudgetError,
  TokenCountError,
  UsageError
} from "../../Errors.js"
import * as MemoryState from "../../schema/MemoryState.js"
import * as Message from "../../schema/Message.js"
import type { LedgerOptions } from "../../schema/Options.js"
import type * as Archive from "../../services/Archive.js"
import { type SummarizeNow, summarizeNowOf } from "../../services/internal/summarizing.js"
import type * as Summarizer from "../../services/Summarizer.js"
import * as TokenCounter from "../../services/TokenCounter.js"
import { observeDrop, observeFold, observeFoldNow, observeUsageRatio } from "./observe.js"

type M = Message.Message

/** The role the summary reads back as. @internal */
export type SummaryRole = "system" | "user"

/** How the summary is kept: one text rewritten by each fold (default), or append-only segments. @internal */
export type SummaryMode = "single" | "segments"

/** A provider's usage figures for the last request (docs/contract.md section 16.4). @internal */
export interface Usage {
  readonly inputTokens: number
  readonly overheadTokens?: number | undefined
}

/** @internal */
export interface Core {
  summary: string
  generation: number
  readonly index: EvictionIndex<M>
  readonly counter: TokenCounter.Service
  /**
   * The summary's tokens (docs/contract.md section 10.4), `undefined` while
   * the summary is not counted: a fold counts the summary it commits only
   * when {@link countsAtFold}; otherwise the first read counts it
   * ({@link summaryTokensOf}) and keeps the count until the summary changes.
   */
  summaryTokens: number | undefined
  /** Whether each fold counts the summary it commits (`src/core/fold.ts` `countsSummaryAtFold`). */
  readonly countsAtFold: boolean
  /**
   * Summary segments (`summary: "segments"`, docs/contract.md section 10.9,
   * `src/core/segments.ts`), `undefined` with the single summary. `summary`
   * is then their join and `summaryTokens` the sum of their counts.
   */
  segments: Segments.Segments<M> | undefined
  /**
   * A provider's own compaction item (version 3 `compaction`, docs/contract.md
   * section 15.6): read back before the summary, kept until `clear`.
   */
  compaction: MemoryState.Compaction | undefined
  /** The tokens of the compaction's readable content, counted once when it is restored. */
  compactionTokens: number
  readonly maxSummaryTokens: number | undefined
  readonly maxToolResultTokens: number | undefined
  readonly ledger: LedgerOf | undefined
  readonly maxSummarizerInputTokens: number | undefined
  readonly request: Summarizer.Request
  readonly summaryRole: SummaryRole
  /** The line read back before the summary (`summaryFraming`, docs/contract.md section 10.10), if any. */
  readonly framing: string | undefined
  /** The framing line's tokens with its blank line, counted once by {@link fill}. */
  framingTokens: number
  /** The summary a summary-only fold could not bring within its room: not asked again until it changes. */
  unshortened: string | undefined
  usageRatio: number | undefined
  /** The count of the context last read back; without the summary's when that was not counted ({@link lastReadSummary}). */
  lastReadTokens: number | undefined
  /** The summary the last read context held while uncounted: counted (once) when a usage is recorded against it. */
  lastReadSummary: string | undefined
  reserveTokens: number
  compactRequest: Summarizer.Request | undefined
  /** The strategy whose core this is, set by {@link makeMemory}: the telemetry's label (section 11). */
  strategy: string
  /** The archive (docs/contract.md section 17), if any. */
  readonly archive: Archive.Service | undefined
  /** The conversation the state belongs to (version 3 `conversationId`), if any. */
  conversationId: string | undefined
  /** The position the next added message gets, when positions are kept (an archive, or restored positions). */
  nextPosition: number | undefined
  /** Originals of tool results cut at the door not yet archived: written with the next write. */
  pendingOriginals: Array<Archive.Entry>
  /** What a `clear` does after emptying the buffer (background folds: let the held-back adds in). */
  afterClear: (() => void) | undefined
}

type LedgerOf = LedgerRecorder.Recorder<M>

const ledgerOf = (options: LedgerOptions): LedgerOf => LedgerRecorder.recorder<M>(options)

/** What a core is built with beside its counter. @internal */
export interface CoreOptions {
  readonly index?: Config<M> | undefined
  readonly maxSummaryTokens?: number | undefined
  readonly summaryRole?: SummaryRole | undefined
  readonly summaryFraming?: boolean | string | undefined
  readonly ledger?: LedgerOptions | undefined
  readonly maxToolResultTokens?: number | undefined
  readonly maxSummarizerInputTokens?: number | undefined
  readonly archive?: Archive.Service | undefined
  readonly conversationId?: string | undefined
  /** `"segments"`: the summary as append-only segments (docs/contract.md section 10.9). */
  readonly summary?: SummaryMode | undefined
  /** A context window (docs/contract.md section 16.1): its budget reads the summary's count at every add. */
  readonly contextWindow?: boolean | undefined
}

/** Builds an empty core. @internal */
export const makeCore = (counter: TokenCounter.Service, options?: CoreOptions): Core => {
  const max = options?.maxSummaryTokens
  const ledger = options?.ledger === undefined ? undefined : ledgerOf(options.ledger)
  return {
    summary: "",
    generation: 0,
    index: new EvictionIndex<M>(options?.index),
    counter,
    summaryTokens: 0,
    countsAtFold: Fold.countsSummaryAtFold({
      maxSummaryTokens: max,
      contextWindow: options?.contextWindow === true,
      segments: options?.summary === "segments"
    }),
    segments: options?.summary === "segments" ? Segments.noSegments : undefined,
    compaction: undefined,
    compactionTokens: 0,
    maxSummaryTokens: max,
    maxToolResultTokens: options?.maxToolResultTokens,
    ledger,
    maxSummarizerInputTokens: options?.maxSummarizerInputTokens,
    request: { maxSummaryTokens: Fold.requestBudget(max, ledger?.maxTokens), counter },
    summaryRole: options?.summaryRole ?? "system",
    framing: Rules.framingLine(options?.summaryFraming),
    framingTokens: 0,
    unshortened: undefined,
    usageRatio: undefined,
    lastReadTokens: undefined,
    lastReadSummary: undefined,
    reserveTokens: 0,
    compactRequest: undefined,
    strategy: "rolling",
    archive: options?.archive,
    conversationId: options?.conversationId,
    nextPosition: options?.archive === undefined ? undefined : 0,
    pendingOriginals: [],
    afterClear: undefined
  }
}

/**
 * A core's framing line counted once (docs/contract.md section 10.10), then
 * a restored state: the summary and each message counted once, never pruned.
 * A counter that cannot count the framing line is a `ConfigError` on
 * `summaryFraming`. @internal
 */
export const fill = (
  core: Core,
  state: MemoryState.MemoryState | undefined
): Effect.Effect<Core, TokenCountError | ConfigError> => Effect.flatMap(frame(core), (core) => fillState(core, state))

const frame = (core: Core): Effect.Effect<Core, ConfigError> =>
  core.framing === undefined ? Effect.succeed(core) : TokenCounter.countText(
    core.counter,
    `${core.framing}${Rules.FRAMING_SEPARATOR}`
  ).pipe(
    Effect.mapError((error) =>
      new ConfigError({ option: "summaryFraming", description: `could not be counted: ${error.message}` })
    ),
    Effect.map((tokens) => {
      core.framingTokens = tokens
      return core
    })
  )

/**
 * What the context holds besides the buffer, in tokens: the provider's
 * compaction item, the summary and, with a summary, its framing line
 * (docs/contract.md sections 10.10, 15.6; `core/context.ts`). Only where
 * the summary's count is kept at every fold (`countsAtFold`: a context
 * window's checks); reads go through {@link summaryTokensOf}.
 *
 * @internal
 */
export const leadTokens = (core: Core): number => besideSummary(core) + (core.summaryTokens ?? 0)

/** What the context holds besides the buffer and the summary's own count: the compaction item and the framing line. */
const besideSummary = (core: Core): number => Lead.besideSummary(core)

/**
 * The summary's count (docs/contract.md section 10.4): the kept count, or,
 * for a summary a fold committed uncounted, a count made now and kept until
 * the summary changes (a failed count keeps nothing). An `Exit` when the
 * counter counts at once.
 *
 * @internal
 */
export const summaryTokensOf = (core: Core): Effect.Effect<number, TokenCountError> => {
  const known = core.summaryTokens
  if (known !== undefined) return Exit.succeed(known)
  const summary = core.summary
  return flatMapNow(countTextNow(core.counter, summary), (tokens) => {
    // the same text has the same count: kept unless the summary changed meanwhile
    if (core.summaryTokens === undefined && core.summary === summary) core.summaryTokens = tokens
    return Exit.succeed(tokens)
  })
}

const fillState = (core: Core, state: MemoryState.MemoryState | undefined): Effect.Effect<Core, TokenCountError> =>
  state === undefined
    ? Effect.sync(() => {
      // an archive needs a conversation: a new one when none is given (docs/contract.md section 17)
      if (core.archive !== undefined) core.conversationId ??= newConversationId()
      return core
    })
    : Effect.gen(function*() {
      core.summary = state.summary
      core.usageRatio = state.usageRatio
      // docs/contract.md section 17: the option's conversation id wins; an archive without one makes one
      core.conversationId ??= state.conversationId
      if (core.archive !== undefined) core.conversationId ??= newConversationId()
      const positions = state.positions
      if (state.nextPosition !== undefined) core.nextPosition = state.nextPosition
      else if (core.nextPosition !== undefined) core.nextPosition = state.buffer.length
      // a provider's compaction item (docs/contract.md section 15.6): its content counted once
      core.compaction = state.compaction
      if (state.compaction !== undefined && state.compaction.content !== "") {
        core.compactionTokens = yield* TokenCounter.countText(core.counter, state.compaction.content)
      }
      if (core.segments === undefined) {
        core.summaryTokens = yield* TokenCounter.countText(core.counter, core.summary)
      } else {
        // segments mode (docs/contract.md section 10.9): the state's segments, or its summary as one, each counted once
        const texts = Segments.restoredTexts(state)
        const tokens: Array<number> = []
        for (const text of texts) tokens.push(yield* TokenCounter.countText(core.counter, text))
        core.segments = Segments.segmentsOf(texts, tokens, core.summaryRole, makeSummary)
        core.summary = Segments.join(texts)
        core.summaryTokens = Segments.totalOf(tokens)
      }
      for (let k = 0; k < state.buffer.length; k++) {
        const message = state.buffer[k]
        const tokens = yield* TokenCounter.checkedCount(core.counter, message.tokenText)
        // a state without positions restored with an archive: the buffer takes 0, 1, ...
        const position = positions !== undefined ? positions[k] : core.nextPosition === undefined ? undefined : k
        core.index.append(message, MessageCore.entryOf(message, tokens, position))
      }
      return core
    })

/** A new conversation id (docs/contract.md section 17): a random UUID. @internal */
export const newConversationId = (): string => globalThis.crypto.randomUUID()

interface Counted {
  readonly message: M
  readonly tokens: number
  /** The message as given, when `message` is its cut (docs/contract.md section 10.8). */
  readonly original?: M | undefined
}

/**
 * Counts a message once; a tool result over `maxToolResultTokens` is cut
 * at the door (docs/contract.md section 10.8, `core/toolResults.ts`), each
 * attempt counted once.
 */
const counted = (core: Core, message: M): Effect.Effect<Counted, TokenCountError> =>
  flatMapNow(countNow(core.counter, message.tokenText), (tokens) => {
    const max = core.maxToolResultTokens
    if (!Loops.needsCut(message, tokens, max)) return Exit.succeed({ message, tokens })
    return Effect.map(
      driveCounting(
        Loops.cutToolResult(message, tokens, max, Message.withContent),
        (text) => TokenCounter.countText(core.counter, text)
      ),
      (cut): Counted =>
        cut === undefined ? { message, tokens } : { message: cut.item, tokens: cut.tokens, original: message }
    )
  })

/**
 * `Effect.flatMap`, applied at once when `self` is already an `Exit` (an
 * `Exit` is an `Effect`; `Effect.succeed` and `Effect.fail` make one), so
 * the result is `f`'s: an add whose counts and fold answer at once stays one
 * step, an `Exit` the Promise facade reads without running a fiber (as the
 * Effect 3 line's `flatMapNow`).
 *
 * @internal
 */
export const flatMapNow = <A, B, E, E2>(
  self: Effect.Effect<A, E>,
  f: (a: A) => Effect.Effect<B, E2>
): Effect.Effect<B, E | E2> => {
  if (!Exit.isExit(self)) return Effect.flatMap(self, f)
  const exit = self as Exit.Exit<A, E>
  return Exit.isSuccess(exit) ? f(exit.value) : exit as Exit.Exit<never, E>
}

/**
 * {@link TokenCounter.checkedCount} made now: an `Exit` with a counter that
 * counts at once (`countSync`), else the counter's effect. Call it inside a
 * step (an add's, a suspended effect's), never when building an effect.
 *
 * @internal
 */
export const countNow = (counter: TokenCounter.Service, text: string): Effect.Effect<number, TokenCountError> => {
  const countSync = counter.countSync
  if (countSync === undefined) return TokenCounter.checkedCount(counter, text)
  const n: unknown = countSync(text)
  return Tokens.isCount(n) ? Exit.succeed(n) : Exit.fail(n instanceof TokenCountError ? n : invalidCount(n))
}

const invalidCount = (n: unknown): TokenCountError => new TokenCountError({ description: Tokens.invalidCount(n) })

/** {@link countNow} of a text that may be empty: `""` is 0 tokens without calling the counter. @internal */
const countTextNow = (counter: TokenCounter.Service, text: string): Effect.Effect<number, TokenCountError> =>
  text === "" ? Exit.succeed(0) : countNow(counter, text)

/**
 * Runs a core {@link Loops.Counting} now with `count` (one of
 * {@link countNow}, `countTextNow`): an `Exit` while every count is one,
 * else the effect that counts the rest.
 */
const driveCountingNow = <R>(
  counting: Loops.Counting<R>,
  count: (text: string) => Effect.Effect<number, TokenCountError>
): Effect.Effect<R, TokenCountError> => {
  const from = (step: IteratorResult<string, R>): Effect.Effect<R, TokenCountError> => {
    while (step.done !== true) {
      const n = count(step.value)
      if (!Exit.isExit(n)) return Effect.flatMap(n, (n) => from(counting.next(n)))
      const exit = n as Exit.Exit<number, TokenCountError>
      if (Exit.isFailure(exit)) return exit as Exit.Exit<never, TokenCountError>
      step = counting.next(exit.value)
    }
    return Exit.succeed(step.value)
  }
  return from(counting.next())
}

/**
 * Runs a core {@link Loops.Counting} (`src/core/loops.ts`), each text it
 * asks for counted with `count`.
 *
 * @internal
 */
export const driveCounting = <R>(
  counting: Loops.Counting<R>,
  count: (text: string) => Effect.Effect<number, TokenCountError>
): Effect.Effect<R, TokenCountError> =>
  Effect.gen(function*() {
    let step = counting.next()
    while (step.done !== true) step = counting.next(yield* count(step.value))
    return step.value
  })

/**
 * How an add's counted messages go in: `append` them, then run `then` (the
 * archive's pending writes, then `afterAppend`); background folds may hold
 * them back first (docs/contract.md section 5.1).
 *
 * @internal
 */
export type Admit = (
  counted: ReadonlyArray<{ readonly message: M; readonly tokens: number }>,
  append: () => void,
  then: () => Effect.Effect<void, AddError>
) => Effect.Effect<void, AddError>

const appendNow: Admit = (_counted, append, then) => {
  append()
  return then()
}

/** An add's steps, single and batched: count every message, append them, then `afterAppend` once. @internal */
export const adding = (core: Core, afterAppend: () => Effect.Effect<void, AddError>, admit: Admit = appendNow) => {
  // positions kept (docs/contract.md section 17): each message takes the next; a tool result cut at
  // the door has its original archived right after it is appended
  const append = (c: Counted): void => {
    const position = core.nextPosition
    if (position === undefined) {
      core.index.append(c.message, MessageCore.entryOf(c.message, c.tokens))
      return
    }
    core.nextPosition = position + 1
    core.index.append(c.message, MessageCore.entryOf(c.message, c.tokens, position))
    if (c.original !== undefined && core.archive !== undefined) {
      core.pendingOriginals.push({ position, message: c.original })
    }
  }
  const then = (): Effect.Effect<void, AddError> =>
    core.pendingOriginals.length === 0 ? afterAppend() : Effect.flatMap(flushOriginals(core), afterAppend)
  const step = (message: M): Effect.Effect<void, AddError> =>
    flatMapNow(counted(core, message), (c) => admit([c], () => append(c), then))
  return {
    step,
    add: (message: M): Effect.Effect<void, AddError> => Effect.suspend(() => step(message)),
    addMessages: (messages: ReadonlyArray<M>): Effect.Effect<void, AddError> =>
      messages.length === 0 ? Effect.void : Effect.flatMap(
        Effect.forEach(messages, (message) => counted(core, message)),
        (all) =>
          admit(all, () => {
            for (const c of all) append(c)
          }, then)
      )
  }
}

/** Writes the originals of the tool results cut at the door not yet archived (docs/contract.md section 17). */
const flushOriginals = (core: Core): Effect.Effect<void, ArchiveError> =>
  Effect.suspend(() => {
    const flushed = core.pendingOriginals.length
    return Effect.map(core.archive!.append(core.conversationId!, core.pendingOriginals), () => {
      core.pendingOriginals = core.pendingOriginals.slice(flushed)
    })
  })

/**
 * Writes what a commit of `plan` takes out of the buffer to the archive
 * (docs/contract.md section 17), then runs `then` (the commit): at once
 * without an archive, or when a `clear` or a newer plan has voided the plan.
 * A failed write fails with its `ArchiveError` and `then` does not run; the
 * caller aborts the plan.
 *
 * @internal
 */
export const archiveThen = (
  core: Core,
  generation: number,
  plan: Plan<M>,
  then: () => void
): Effect.Effect<void, ArchiveError> =>
  Effect.suspend(() => {
    const archive = core.archive
    if (archive === undefined || core.generation !== generation || !core.index.isPending(plan)) {
      then()
      return Effect.void
    }
    const entries = entriesOf(core, plan)
    if (entries.length === 0) {
      then()
      return Effect.void
    }
    const flushed = core.pendingOriginals.length
    return Effect.map(archive.append(core.conversationId!, entries), () => {
      core.pendingOriginals = core.pendingOriginals.slice(flushed)
      then()
    })
  })

/**
 * What a commit of `plan` takes out of the buffer, by position: the
 * originals of tool results cut at the door not yet archived, the originals
 * of the results the prune's clearings rewrote, then the planned messages.
 */
const entriesOf = (core: Core, plan: Plan<M>): Array<Archive.Entry> => {
  const byPosition = new Map<number, M>()
  for (const { message, position } of core.pendingOriginals) byPosition.set(position, message)
  for (const { item, position } of core.index.clearedOriginals()) {
    if (!byPosition.has(position)) byPosition.set(position, item)
  }
  const positions = core.index.planPositions(plan)
  for (let i = 0; i < positions.length; i++) {
    if (!byPosition.has(positions[i])) byPosition.set(positions[i], plan.messages[i])
  }
  const entries: Array<Archive.Entry> = []
  for (const [position, message] of byPosition) entries.push({ position, message })
  return entries.sort((a, b) => a.position - b.position)
}

/**
 * Starts a prune (docs/contract.md section 10): `undefined` when the trigger
 * no longer holds or nothing is to be evicted, else the pending plan.
 * Clearing (over the budget, with `clearToolResults`) recounts each cleared
 * result once; a failed count undoes the pass's clearings.
 *
 * @internal
 */
export const startPrune = (
  core: Core,
  pruning: Pruning
): Effect.Effect<Plan<M> | undefined, TokenCountError> => Effect.suspend(() => startPruneNow(core, pruning))

/**
 * {@link startPrune} made now (call it inside a step): an `Exit` when the
 * counter counts at once.
 *
 * @internal
 */
export const startPruneNow = (
  core: Core,
  pruning: Pruning
): Effect.Effect<Plan<M> | undefined, TokenCountError> => {
  const index = core.index
  const pass = Loops.startPrune(index, pruning, Message.withContent, core.archive !== undefined)
  if (pass === undefined) return Exit.succeed(undefined)
  const counting = driveCountingNow(pass, (text) => countNow(core.counter, text))
  if (!Exit.isExit(counting)) {
    return Effect.onExit(
      counting,
      (exit) => Exit.isSuccess(exit) ? Effect.void : Effect.sync(() => index.undoClearings())
    )
  }
  if (Exit.isFailure(counting as Exit.Exit<Plan<M> | undefined, TokenCountError>)) index.undoClearings()
  return counting
}

const nonString = (): SummarizerError => new SummarizerError({ description: "summarizer returned a non-string" })

const refuseEmpty = (previous: string, messages: ReadonlyArray<M>, result: string): SummarizerError | undefined => {
  const description = Fold.emptyResult(previous, messages, result)
  return description === undefined ? undefined : new SummarizerError({ description })
}

const bodyOf = (core: Core): Ledger.Parsed =>
  core.ledger === undefined ? { body: core.summary, entries: [] } : Ledger.parse(core.summary)

const commit = (core: Core, generation: number, plan: Plan<M>, summary: string, tokens: number | undefined): void => {
  if (core.generation === generation && core.index.commit(plan)) {
    core.generation++
    core.summary = summary
    core.summaryTokens = tokens
  }
}

/**
 * A fold's result made the new summary and committed (docs/contract.md
 * sections 5 and 14.2): refused when empty where the contract says so; with
 * a ledger, the evicted turns' artifacts merged in, as many entries as fit.
 */
const complete = (
  core: Core,
  generation: number,
  plan: Plan<M>,
  previous: Ledger.Parsed,
  result: string
): Effect.Effect<void, AddError> =>
  Effect.gen(function*() {
    const empty = refuseEmpty(previous.body, plan.messages, result)
    if (empty !== undefined) return yield* empty
    const ledger = core.ledger
    const entries = ledger === undefined ? [] : Ledger.merge(previous.entries, ledger.mentioned(plan.messages))
    const max = core.maxSummaryTokens
    const fit = yield* driveCounting(
      Loops.fitSummary(result, entries, ledger === undefined ? 0 : ledger.maxTokens, max, core.countsAtFold),
      (text) => TokenCounter.countText(core.counter, text)
    )
    if (!fit.fits) return yield* new SummaryBudgetError({ tokens: fit.tokens, maxSummaryTokens: max! })
    yield* archiveThen(core, generation, plan, () => commit(core, generation, plan, fit.summary, fit.tokens))
  })

const summarizeChecked = (
  summarizer: Summarizer.Service,
  summary: string,
  messages: ReadonlyArray<M>,
  request: Summarizer.Request
): Effect.Effect<string, SummarizerError> =>
  Effect.flatMap(
    summarizer.summarize(summary, messages, request),
    (result) => typeof result !== "string" ? Effect.fail(nonString()) : Effect.succeed(result)
  )

/**
 * Calls the summarizer on the plan's messages and commits the result unless
 * `clear` or another fold committed meanwhile. Run it under the prune lock.
 * A failure or interruption commits nothing (the plan is aborted). With
 * `maxSummarizerInputTokens` the messages go in chunks; when a chunk fails,
 * the chunks before it commit as one fold.
 *
 * @internal
 */
export const fold = (core: Core, summarizer: Summarizer.Service, plan: Plan<M>): Effect.Effect<void, AddError> => {
  // clearings that stand without a fold (docs/contract.md section 17): archived, then kept
  if (plan.messages.length === 0) return drop(core, plan)
  const generation = core.generation
  let pending = plan
  const run = Effect.gen(function*() {
    if (core.segments !== undefined) {
      return yield* foldSegments(core, summarizer, plan, (narrowed) => {
        pending = narrowed
      })
    }
    const previous = bodyOf(core)
    const request = core.compactRequest ?? core.request
    const chunks = Loops.chunksOf(core.index, plan, core.maxSummarizerInputTokens)
    if (chunks === undefined) {
      const summary = yield* summarizeChecked(summarizer, previous.body, plan.messages, request)
      return yield* complete(core, generation, plan, previous, summary)
    }
    const folding = Loops.foldChunks(core.index, plan, chunks, previous.body)
    let step = folding.next()
    while (step.done !== true) {
      const { messages, state: running } = step.value
      const result = yield* Effect.result(
        Effect.flatMap(summarizeChecked(summarizer, running, messages, request), (summary) => {
          const empty = refuseEmpty(running, messages, summary)
          return empty === undefined ? Effect.succeed(summary) : Effect.fail(empty)
        })
      )
      if (result._tag === "Failure") {
        const end = folding.next(undefined)
        const folded = end.done === true ? end.value : undefined
        if (folded === undefined) return yield* result.failure
        pending = folded.plan
        yield* complete(core, generation, folded.plan, previous, folded.state)
        return yield* result.failure
      }
      step = folding.next({ state: result.success })
    }
    const end = step.value!
    return yield* complete(core, generation, end.plan, previous, end.state)
  })
  return observeFold(
    core,
    plan,
    Effect.onExit(run, (exit) => Exit.isSuccess(exit) ? Effect.void : Effect.sync(() => core.index.abort(pending)))
  )
}

/**
 * A fold made in the add's own step (docs/contract.md section 5): for a
 * summarizer that answers at once (`Summarizer.fromFunction`) and a counter
 * that counts at once, with no archive and no summary segments. `undefined`
 * when it cannot be (then {@link fold} runs under the prune lock): the
 * summarizer or counter answers as an effect, an archive writes, segments,
 * `maxSummarizerInputTokens` asks for chunks, or a tracer records the fold's
 * span. Otherwise the fold's `Exit`, observed as {@link fold} is (its
 * metrics, outcome), the plan aborted on failure. Its steps are `fold`'s:
 * the summarizer's call, `complete`'s refusal, ledger and fit, the commit.
 *
 * @internal
 */
export const foldNow = (
  core: Core,
  summarize: SummarizeNow,
  plan: Plan<M>
): Exit.Exit<void, AddError> | undefined => {
  if (plan.messages.length === 0 || core.segments !== undefined || core.archive !== undefined) return undefined
  if (core.counter.countSync === undefined) return undefined
  if (Loops.chunksOf(core.index, plan, core.maxSummarizerInputTokens) !== undefined) return undefined
  return observeFoldNow(core, plan, (): Exit.Exit<void, AddError> => {
    const generation = core.generation
    const previous = bodyOf(core)
    const result = summarize(previous.body, plan.messages, core.compactRequest ?? core.request)
    if (typeof result !== "string") return Exit.fail(result)
    const empty = refuseEmpty(previous.body, plan.messages, result)
    if (empty !== undefined) return Exit.fail(empty)
    const ledger = core.ledger
    const entries = ledger === undefined ? [] : Ledger.merge(previous.entries, ledger.mentioned(plan.messages))
    const max = core.maxSummaryTokens
    const fitted = driveCountingNow(
      Loops.fitSummary(result, entries, ledger === undefined ? 0 : ledger.maxTokens, max, core.countsAtFold),
      (text) => countTextNow(core.counter, text)
    ) as Exit.Exit<Loops.Fit, TokenCountError>
    if (Exit.isFailure(fitted)) return fitted as Exit.Exit<never, TokenCountError>
    const fit = fitted.value
    if (!fit.fits) return Exit.fail(new SummaryBudgetError({ tokens: fit.tokens, maxSummaryTokens: max! }))
    commit(core, generation, plan, fit.summary, fit.tokens)
    return Exit.void
  }, () => core.index.abort(plan))
}

/**
 * What prunes in an add's step for a summarizer that answers at once: the
 * prune started now, then {@link foldNow} when it can, else {@link fold}
 * under the prune lock (`locked`). With `lock.held` (a locked fold, compact
 * or summary-only fold in flight on another fiber) the whole prune waits for
 * the lock, as any other.
 *
 * @internal
 */
export const prunerNow = (
  core: Core,
  summarizer: Summarizer.Service,
  start: () => Effect.Effect<Plan<M> | undefined, TokenCountError>,
  lock: PruneLock
): (() => Effect.Effect<void, AddError>) | undefined => {
  const now = summarizeNowOf(summarizer)
  if (now === undefined || core.archive !== undefined || core.segments !== undefined) return undefined
  const locked = lock.locked(
    Effect.flatMap(Effect.suspend(start), (plan) => plan === undefined ? Effect.void : fold(core, summarizer, plan))
  )
  return () => {
    if (lock.held > 0) return locked
    return flatMapNow(start(), (plan) => {
      if (plan === undefined) return Exit.void
      return foldNow(core, now, plan) ?? lock.locked(fold(core, summarizer, plan))
    })
  }
}

/** A summary message as it reads back: `system`, or `user` with `summaryRole: "user"`. */
const makeSummary = (role: SummaryRole, text: string): M => role === "user" ? Message.user(text) : Message.system(text)

/**
 * A fold in segments mode (docs/contract.md section 10.9): the pure core's
 * fold (`src/core/segments.ts` `foldSegments`), each summarizer call and
 * count it asks for run here, then its outcome committed through the
 * archive unless `clear` or another fold came first; a failure commits
 * nothing. When a later chunk fails, the chunks before it commit as one
 * fold (`narrowed` is told the plan now pending) and the fold fails with
 * the chunk's error. The caller aborts the pending plan on failure.
 */
const foldSegments = (
  core: Core,
  summarizer: Summarizer.Service,
  plan: Plan<M>,
  narrowed: (plan: Plan<M>) => void
): Effect.Effect<void, AddError> =>
  Effect.gen(function*() {
    const generation = core.generation
    const request = core.compactRequest ?? core.request
    const parts = Loops.chunksOf(core.index, plan, core.maxSummarizerInputTokens) ??
      [{ messages: plan.messages, units: plan.units.length }]
    const folding = Segments.foldSegments(
      core.index,
      plan,
      parts,
      core.segments ?? Segments.noSegments,
      core.maxSummaryTokens,
      narrowed
    )
    // the error of the last answer that failed: the core's Failure "Answer"
    let failed: AddError | undefined
    let step = folding.next()
    while (step.done !== true) {
      const ask = step.value
      const asked: Effect.Effect<string | number, AddError> = ask._tag === "Count"
        ? TokenCounter.countText(core.counter, ask.text)
        : summarizeChecked(summarizer, ask.summary, ask.messages, {
          ...request,
          mode: ask.mode,
          segments: ask.segments,
          maxSummaryTokens: ask.maxSummaryTokens
        })
      const answer = yield* Effect.result(asked)
      if (answer._tag === "Failure") {
        failed = answer.failure
        step = folding.next(undefined)
      } else {
        step = folding.next(answer.success)
      }
    }
    const errorOf = (failure: Segments.Failure): AddError =>
      failure._tag === "Answer"
        ? failed!
        : failure._tag === "Refused"
        ? new SummarizerError({ description: failure.description })
        : new SummaryBudgetError({ tokens: failure.tokens, maxSummaryTokens: failure.maxSummaryTokens })
    const outcome = step.value
    if (outcome._tag === "Fail") return yield* Effect.fail(errorOf(outcome.failure))
    const then = outcome.then === undefined ? undefined : errorOf(outcome.then)
    yield* archiveThen(core, generation, outcome.plan, () => {
      if (core.generation === generation && core.index.commit(outcome.plan)) {
        core.generation++
        core.segments = Segments.segmentsOf(outcome.texts, outcome.tokens, core.summaryRole, makeSummary, core.segments)
        core.summary = Segments.join(outcome.texts)
        core.summaryTokens = Segments.totalOf(outcome.tokens)
      }
    })
    if (then !== undefined) return yield* Effect.fail(then)
  })

/**
 * Commits a plan with no summarizer (a drop): the dropped messages counted
 * in the telemetry (docs/contract.md section 11, `outcome: "dropped"`).
 *
 * @internal
 */
export const drop = (core: Core, plan: Plan<M>): Effect.Effect<void, ArchiveError> =>
  Effect.suspend(() => {
    let committed = false
    return Effect.onExit(
      archiveThen(core, core.generation, plan, () => {
        committed = core.index.commit(plan)
      }),
      (exit) =>
        Exit.isSuccess(exit)
          ? committed && plan.messages.length > 0 ? observeDrop(core.strategy, plan.messages.length) : Effect.void
          : Effect.sync(() => core.index.abort(plan))
    )
  })

/**
 * A summary-only fold (docs/contract.md section 16.1): with a context
 * window, when the add's prunes leave the context over it and nothing more
 * can be evicted, the summarizer is asked once, with no turns, for the
 * summary within `room` tokens; it commits when it counts within `room`
 * (the ledger's section re-fitted), else the summary is remembered as
 * unshortened. A failure commits nothing and is the add's error. Run it
 * under the prune lock.
 *
 * @internal
 */
export const shortenSummary = (
  core: Core,
  summarizer: Summarizer.Service,
  room: number
): Effect.Effect<void, AddError> =>
  Effect.gen(function*() {
    // not with segments: a consolidation is their way to shrink (docs/contract.md section 16.1)
    if (core.segments !== undefined) return
    const ledger = core.ledger
    // a context window keeps the count at every fold (countsAtFold); counted here should it not be
    const summaryTokens = yield* summaryTokensOf(core)
    const budget = Fold.shortenBudget({
      compacted: core.compaction !== undefined,
      summary: core.summary,
      summaryTokens,
      room,
      ledgerTokens: ledger?.maxTokens,
      requestBudget: core.request.maxSummaryTokens,
      unshortened: core.unshortened
    })
    if (budget === undefined) return
    const generation = core.generation
    const previous = bodyOf(core)
    const result = yield* summarizeChecked(summarizer, previous.body, [], { ...core.request, maxSummaryTokens: budget })
    // an empty result says the summary cannot be shortened into the room: nothing changes
    if (result.trim() === "") {
      if (core.generation === generation) core.unshortened = core.summary
      return
    }
    const fitted = yield* driveCounting(
      Loops.fitSummary(result, previous.entries, ledger === undefined ? 0 : ledger.maxTokens, room),
      (text) => TokenCounter.countText(core.counter, text)
    )
    if (core.generation !== generation) return
    if (fitted.fits && fitted.tokens !== undefined && fitted.tokens < summaryTokens) {
      core.generation++
      core.summary = fitted.summary
      core.summaryTokens = fitted.tokens
    } else {
      core.unshortened = core.summary
    }
  })

/** What prunes when over budget: a fold under the lock, or a drop. @internal */
export const pruner = (
  core: Core,
  summarizer: Summarizer.Service | undefined,
  start: () => Effect.Effect<Plan<M> | undefined, TokenCountError>,
  lock: PruneLock
): () => Effect.Effect<void, AddError> => {
  if (summarizer === undefined) {
    const dropping = Effect.flatMap(
      Effect.suspend(start),
      (plan) => plan === undefined ? Effect.void : drop(core, plan)
    )
    // with an archive a drop writes first (an effect that may suspend): under the lock, as a fold
    const guarded = core.archive === undefined ? dropping : lock.locked(dropping)
    return () => guarded
  }
  const now = prunerNow(core, summarizer, start, lock)
  if (now !== undefined) return now
  const locked = lock.locked(
    Effect.flatMap(Effect.suspend(start), (plan) => plan === undefined ? Effect.void : fold(core, summarizer, plan))
  )
  return () => locked
}

/** The options of `compact` (docs/contract.md section 16.2). @internal */
export interface CompactOptions {
  readonly targetTokens?: number | undefined
  readonly focus?: string | undefined
}

/** The reads, `clear`, usage and the add steps every strategy shares. @internal */
export interface Memory {
  readonly strategy: "rolling" | "buffer" | "window" | "summary"
  readonly add: (message: M) => Effect.Effect<void, AddError>
  readonly addMessages: (messages: ReadonlyArray<M>) => Effect.Effect<void, AddError>
  readonly summary: Effect.Effect<string>
  readonly buffer: Effect.Effect<ReadonlyArray<M>>
  readonly bufferTokens: Effect.Effect<number>
  readonly pinnedTokens: Effect.Effect<number>
  readonly summaryTokens: Effect.Effect<number, TokenCountError>
  readonly contextTokens: Effect.Effect<number, TokenCountError>
  readonly messages: Effect.Effect<ReadonlyArray<M>>
  readonly context: Effect.Effect<string>
  readonly clear: Effect.Effect<void>
  readonly state: Effect.Effect<MemoryState.MemoryState>
  readonly toJSON: Effect.Effect<MemoryState.Encoded>
  readonly recordUsage: (usage: Usage) => Effect.Effect<void, UsageError>
  readonly usageRatio: Effect.Effect<number>
  /**
   * Searches the memory's archive in its own conversation (docs/contract.md
   * section 17); a `ConfigError` (option `archive`) without one.
   */
  readonly recall: (
    query: string,
    options?: Archive.SearchOptions
  ) => Effect.Effect<ReadonlyArray<Archive.Match>, ArchiveError | ConfigError>
}

const recall = (
  core: Core,
  query: string,
  options?: Archive.SearchOptions
): Effect.Effect<ReadonlyArray<Archive.Match>, ArchiveError | ConfigError> => {
  const archive = core.archive
  if (archive === undefined) {
    return Effect.fail(
      new ConfigError({ option: "archive", description: "recall needs an archive: build the memory with one" })
    )
  }
  if (typeof query !== "string") {
    return Effect.fail(new ConfigError({ option: "query", description: `must be a string, got ${typeof query}` }))
  }
  return archive.search(core.conversationId!, query, options)
}

/**
 * The context a memory reads back (`core/context.ts` `withLead`): leading
 * pinned messages, a provider's compaction item (docs/contract.md section
 * 15.6), the summary (with segments, one `system` message per segment or
 * one `user` message holding them, section 10.9), then the rest.
 *
 * @internal
 */
export const contextOf = (core: Core): Array<M> => {
  const summary: Array<M> = []
  if (core.segments !== undefined) {
    const messages = core.segments.messages
    for (let i = 0; i < messages.length; i++) {
      // the framing line opens the first segment's message (section 10.10)
      summary.push(
        i === 0 && core.framing !== undefined
          ? makeSummary(
            messages[i].role === "user" ? "user" : "system",
            Rules.framed(core.framing, messages[i].content)
          )
          : messages[i]
      )
    }
  } else if (core.summary !== "") {
    const text = Rules.framed(core.framing, core.summary)
    summary.push(core.summaryRole === "user" ? Message.user(text) : Message.system(text))
  }
  const compaction = core.compaction === undefined ? undefined : compactionMessage(core.compaction)
  return Lead.withLead(core.index.toArray(), core.index.leadingPinned(), compaction, summary)
}

/** How a provider's compaction item reads back (docs/contract.md section 15.6, `core/context.ts`). */
const compactionMessage = (compaction: MemoryState.Compaction): M => {
  const fields = Lead.compactionFields(compaction)
  return Message.make(fields.role, fields.content, { metadata: fields.metadata as Message.Message["metadata"] })
}

/** The memory of a core: the read side, `clear`, usage, with its add steps and own fields. @internal */
export const makeMemory = <X extends Memory>(
  core: Core,
  steps: {
    readonly add: Memory["add"]
    readonly addMessages: Memory["addMessages"]
    readonly step?: Memory["add"] | undefined
  },
  fields: Omit<X, Exclude<keyof Memory, "strategy">>
): X => {
  const state = Effect.sync((): MemoryState.MemoryState => {
    // with at least one segment: version 3's segments beside their join (docs/contract.md section 10.9)
    const made: MemoryState.MemoryState = core.segments === undefined || core.segments.texts.length === 0
      ? MemoryState.make(core.summary, core.index.toArray())
      : { summary: core.summary, buffer: core.index.toArray(), segments: core.segments.texts }
    if (core.conversationId === undefined && core.nextPosition === undefined && core.compaction === undefined) {
      return core.usageRatio === undefined ? made : { ...made, usageRatio: core.usageRatio }
    }
    return {
      ...made,
      ...(core.compaction === undefined ? {} : { compaction: core.compaction }),
      ...(core.conversationId === undefined ? {} : { conversationId: core.conversationId }),
      ...(core.nextPosition === undefined
        ? {}
        : { nextPosition: core.nextPosition, positions: core.index.positions() }),
      ...(core.usageRatio === undefined ? {} : { usageRatio: core.usageRatio })
    }
  })
  const messages = Effect.sync(() => {
    // an uncounted summary is remembered, counted only if a usage is recorded against this read
    const known = core.summaryTokens
    core.lastReadTokens = besideSummary(core) + (known ?? 0) + core.index.tokens
    core.lastReadSummary = known === undefined ? core.summary : undefined
    return contextOf(core)
  })
  core.strategy = fields.strategy
  const memory: Memory = {
    strategy: fields.strategy,
    add: steps.add,
    addMessages: steps.addMessages,
    summary: Effect.sync(() => core.summary),
    buffer: Effect.sync(() => core.index.toArray()),
    bufferTokens: Effect.sync(() => core.index.measure("tokens")),
    pinnedTokens: Effect.sync(() => core.index.pinnedTokens),
    summaryTokens: Effect.suspend(() => summaryTokensOf(core)),
    contextTokens: Effect.suspend(() =>
      flatMapNow(summaryTokensOf(core), (tokens) => Exit.succeed(besideSummary(core) + tokens + core.index.tokens))
    ),
    messages,
    context: Effect.map(messages, (all) => all.map(String).join("\n")),
    clear: Effect.sync(() => {
      core.generation++
      core.summary = ""
      core.summaryTokens = 0
      core.compaction = undefined
      core.compactionTokens = 0
      if (core.segments !== undefined) core.segments = Segments.noSegments
      core.usageRatio = undefined
      core.lastReadTokens = undefined
      core.lastReadSummary = undefined
      core.index.clear()
      core.afterClear?.()
    }),
    state,
    toJSON: Effect.map(state, MemoryState.toJSON),
    recordUsage: (usage) => Effect.asVoid(sample(usage, undefined)),
    usageRatio: Effect.sync(() => core.usageRatio ?? 1),
    recall: (query, options) => recall(core, query, options)
  }
  const sample: Sampler = (usage, contextTokens) =>
    Effect.suspend(() => {
      const problem = Rules.usage(usage)
      if (problem !== undefined) return Effect.fail(new UsageError({ description: problem }))
      if (contextTokens !== undefined) return apply(usage, contextTokens)
      const lastRead = core.lastReadTokens
      const pending = core.lastReadSummary
      if (lastRead !== undefined && pending === undefined) return apply(usage, lastRead)
      // the context last read (or, without a read, the context now) with a summary not counted yet: counted now
      const summaryCount = lastRead === undefined || pending === core.summary
        ? summaryTokensOf(core)
        : countTextNow(core.counter, pending!)
      return Effect.flatMap(
        Effect.mapError(summaryCount, uncountedUsage),
        (tokens) =>
          apply(usage, lastRead === undefined ? besideSummary(core) + tokens + core.index.tokens : lastRead + tokens)
      )
    })
  const apply = (usage: Usage, counted: number): Effect.Effect<UsageSample | undefined> =>
    Effect.suspend(() => {
      const overhead = usage.overheadTokens ?? core.reserveTokens
      const measured = usage.inputTokens - overhead
      // a sample with a size that is not positive changes nothing (docs/contract.md section 16.4)
      if (!(measured > 0 && counted > 0)) return Effect.succeed(undefined)
      core.usageRatio = UsageRatio.nextRatio(core.usageRatio, measured, counted)
      if (core.usageRatio === undefined) return Effect.succeed(undefined)
      return Effect.as(observeUsageRatio(core.strategy, core.usageRatio), {
        inputTokens: usage.inputTokens,
        overheadTokens: overhead,
        contextTokens: counted
      })
    })
  const made = Object.assign(memory, fields) as unknown as X
  samplers.set(made, sample)
  if (steps.step !== undefined) steppers.set(made, steps.step)
  return made
}

/**
 * The `UsageError` of a usage recorded against a context whose summary the
 * counter could not count (docs/contract.md section 16.4): the ratio is not
 * moved.
 */
const uncountedUsage = (error: TokenCountError): UsageError =>
  new UsageError({
    description: `the summary of the context it is compared with could not be counted: ${error.message}`
  })

/**
 * A recorded usage as a stored conversation re-applies it: the provider's
 * input tokens, the overhead outside the memory's context (its default
 * resolved) and the memory's own count of the context the request carried.
 *
 * @internal
 */
export interface UsageSample {
  readonly inputTokens: number
  readonly overheadTokens: number
  readonly contextTokens: number
}

/** Records a usage against `contextTokens` (the memory's last read when undefined): the sample it applied. @internal */
export type Sampler = (
  usage: Usage,
  contextTokens: number | undefined
) => Effect.Effect<UsageSample | undefined, UsageError>

const samplers = new WeakMap<Memory, Sampler>()

const steppers = new WeakMap<Memory, Memory["add"]>()

/**
 * A memory's add made now (`adding`'s step): an `Exit` when the add's counts
 * and fold answer at once, else the effect that runs the rest; `memory.add`
 * when there is none. Call it when the add is to run (the Promise facade's
 * synchronous adds), never to build an effect for later.
 *
 * @internal
 */
export const stepOf = (memory: Memory): Memory["add"] => steppers.get(memory) ?? memory.add

/** The usage recorder of a memory built here. @internal */
export const samplerOf = (memory: Memory): Sampler | undefined => samplers.get(memory)

/** The `ConfigError` of `compact`'s options, if any. @internal */
export const compactProblem = (options: unknown): ConfigError | undefined => {
  const problem = Rules.compactOptions(options)
  return problem === undefined ? undefined : new ConfigError(problem)
}

/**
 * The prune lock: a one-permit semaphore, and how many effects hold it or
 * wait for it (`held`), which a fold made in an add's step
 * ({@link prunerNow}) reads: it folds at once only when none does.
 *
 * @internal
 */
export interface PruneLock {
  readonly locked: <A, E>(effect: Effect.Effect<A, E>) => Effect.Effect<A, E>
  readonly held: number
}

/** A new {@link PruneLock}. @internal */
export const pruneLock = (): PruneLock => {
  const semaphore = Semaphore.makeUnsafe(1)
  const lock = {
    held: 0,
    locked: <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
      Effect.suspend(() => {
        lock.held++
        return Effect.ensuring(
          semaphore.withPermits(1)(effect),
          Effect.sync(() => {
            lock.held--
          })
        )
      })
  }
  return lock
}

/** The context window's overflow check (docs/contract.md section 16.1). @internal */
export const windowError = (
  window: { readonly tokens: number; readonly reserveTokens: number },
  core: Core,
  refused?: { readonly messageTokens: number; readonly compactionTokens: number }
): ContextWindowError =>
  new ContextWindowError({
    windowTokens: window.tokens,
    reserveTokens: window.reserveTokens,
    pinnedTokens: core.index.pinnedTokens,
    summaryTokens: leadTokens(core),
    ...refused
  })

export type { Policy }
