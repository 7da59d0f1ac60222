/**
 * How each strategy builds a memory from its services, options and an
 * optional restored state. Each builder returns the memory with its
 * synchronous add steps (`Built`): the public constructors hand out the
 * memory and read the services from the context; the Promise facade passes
 * its own services and keeps the steps. Each builder returns an `Exit` when
 * nothing suspends (a synchronous counter, see `mapNow`), so the facade
 * builds a memory without running an effect.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Context from "../../core/context.js"
import type { Entry, Plan } from "../../core/eviction.js"
import { entryOf } from "../../core/message.js"
import * as Rules from "../../core/options.js"
import * as Usage from "../../core/usage.js"
import {
  type AddError,
  ConfigError,
  ContextWindowError,
  type StateDecodeError,
  type TokenCountError
} from "../../Errors.js"
import type * as MemoryState from "../../schema/MemoryState.js"
import type { Message } from "../../schema/Message.js"
import type * as Archive from "../../services/Archive.js"
import { summarizeSyncOf } from "../../services/internal/summarizing.js"
import * as Summarizer from "../../services/Summarizer.js"
import type { BufferMemory } from "../BufferMemory.js"
import type * as Memory from "../Memory.js"
import type { RollingMemory } from "../RollingMemory.js"
import type { SummaryMemory } from "../SummaryMemory.js"
import type { WindowMemory } from "../WindowMemory.js"
import { type Background, backgroundFolder } from "./background.js"
import {
  adding,
  type Built,
  type Core,
  done,
  dropArchived,
  type Fill,
  fillWith,
  flatMapNow,
  fold,
  foldNow,
  frame,
  leadTokens,
  type LedgerOptions,
  makeCore,
  makeMemory,
  mapNow,
  memoryOf,
  type Services,
  shortenSummary,
  type Step,
  type SummaryMode,
  type SummaryRole,
  withCounter,
  withServices,
  withSummarizer
} from "./core.js"
import { recountOf } from "./drive.js"
import { observeDrop } from "./observe.js"
import { indexConfig, type PolicyOptions, pruningOf, startPrune } from "./policy.js"

/** The default token budget of a RollingMemory: 2000 tokens. @internal */
export const DEFAULT_MAX_TOKENS = Rules.DEFAULT_MAX_TOKENS

/**
 * What runs once an add must prune, for a summarizer: a synchronous one
 * folds in the add's own step (nothing can interleave, so no lock); any
 * other folds under the prune lock, one prune at a time, each starting (re-
 * checking its trigger, clearing, planning) once it holds the lock.
 */
const folder = (
  core: Core,
  summarizer: Summarizer.Service,
  start: () => Effect.Effect<Plan<Message> | undefined, TokenCountError>,
  semaphore: Effect.Semaphore = Effect.unsafeMakeSemaphore(1)
): () => Step => {
  // an archive that needs I/O makes every fold a locked one (its write may suspend)
  const summarizeSync = core.archive?.sync === false ? undefined : summarizeSyncOf(summarizer)
  if (summarizeSync !== undefined) {
    const then = (plan: Plan<Message> | undefined): Step =>
      plan === undefined ? done : foldNow(core, summarizeSync, plan)
    return () => {
      const started = start()
      if (!Exit.isExit(started)) return Effect.flatMap(started, then)
      const exit = started as Exit.Exit<Plan<Message> | undefined, TokenCountError>
      return Exit.isSuccess(exit) ? then(exit.value) : exit
    }
  }
  const locked = semaphore.withPermits(1)(
    Effect.suspend(() =>
      Effect.flatMap(start(), (plan) => plan === undefined ? Effect.void : fold(core, summarizer, plan))
    )
  )
  return () => locked
}

/**
 * Summary segments need a summarizer that honours `request.mode`
 * (docs/contract.md section 10.9); dropping (no summarizer) needs none. A
 * compacting summarizer (section 15.7) takes neither segments nor folds in
 * chunks.
 */
const modeRefused = (
  summary: SummaryMode | undefined,
  summarizer: Summarizer.Service | undefined,
  maxSummarizerInputTokens: number | undefined
): Rules.Problem | undefined =>
  summarizer !== undefined && Summarizer.compacts(summarizer)
    ? Rules.compactingRefused(summary, maxSummarizerInputTokens)
    : summary === "segments" && summarizer !== undefined && !Summarizer.honoursMode(summarizer)
    ? Rules.segmentsNeedMode
    : undefined

/**
 * What prunes a memory without a summarizer: the evicted turns are dropped at
 * once (archived first, docs/contract.md section 17; under a lock when the
 * archive's write may suspend).
 */
const dropper = (
  core: Core,
  start: () => Effect.Effect<Plan<Message> | undefined, TokenCountError>
): () => Step => {
  const then = core.archive === undefined
    ? (plan: Plan<Message> | undefined): Step =>
      plan !== undefined && core.index.commit(plan) ? observeDrop(core, plan.messages.length) : done
    : (plan: Plan<Message> | undefined): Step => plan === undefined ? done : dropArchived(core, plan)
  const prune = (): Step => {
    const started = start()
    if (!Exit.isExit(started)) return Effect.flatMap(started, then)
    const exit = started as Exit.Exit<Plan<Message> | undefined, TokenCountError>
    return Exit.isSuccess(exit) ? then(exit.value) : exit
  }
  if (core.archive?.sync !== false) return prune
  const locked = Effect.unsafeMakeSemaphore(1).withPermits(1)(Effect.suspend(prune))
  return () => locked
}

/** The options of a RollingMemory a builder reads, decoded (`schema/Options.ts`). @internal */
export interface RollingBuildOptions extends PolicyOptions {
  readonly maxTokens?: number | undefined
  readonly contextWindow?: { readonly tokens: number; readonly reserveTokens?: number | undefined } | undefined
  readonly targetTokens?: number | undefined
  readonly summaryRole?: SummaryRole | undefined
  readonly summaryFraming?: boolean | string | undefined
  readonly maxSummaryTokens?: number | undefined
  readonly ledger?: LedgerOptions | undefined
  readonly maxToolResultTokens?: number | undefined
  readonly maxSummarizerInputTokens?: number | undefined
  readonly summary?: SummaryMode | undefined
  readonly fold?: "blocking" | "background" | undefined
  readonly hardMaxTokens?: number | undefined
  readonly foldRetry?: Schedule.Schedule<unknown, AddError> | undefined
  readonly archive?: Archive.Service | undefined
  readonly conversationId?: string | undefined
}

/** @internal */
export const buildRolling = <E>(
  services: Services,
  options: RollingBuildOptions,
  fill: Fill<E>,
  scope?: Scope.Scope
): Effect.Effect<Built<RollingMemory>, ConfigError | E> => {
  // the reserve defaults to 0 (docs/contract.md section 16.1)
  const window = options.contextWindow === undefined
    ? undefined
    : { tokens: options.contextWindow.tokens, reserveTokens: options.contextWindow.reserveTokens ?? 0 }
  // with a context window, the whole request's budget (the window less the reserve)
  const maxTokens = window === undefined
    ? options.maxTokens ?? DEFAULT_MAX_TOKENS
    : window.tokens - window.reserveTokens
  const pruning = pruningOf(options, "tokens", maxTokens, options.targetTokens)
  const { counter, summarizer } = services
  const refused = Rules.foldContext(options.fold, scope !== undefined, summarizer !== undefined) ??
    modeRefused(options.summary, summarizer, options.maxSummarizerInputTokens) ??
    (options.ledger !== undefined && summarizer === undefined ? Rules.ledgerNeedsSummarizer : undefined)
  if (refused !== undefined) return Effect.fail(new ConfigError(refused))
  const background: Background | undefined = options.fold === "background" && scope !== undefined
    ? { scope, hardMax: Rules.hardMaxOf(maxTokens, options.hardMaxTokens), retry: options.foldRetry }
    : undefined
  const coreOptions = {
    index: indexConfig(pruning),
    summaryRole: options.summaryRole ?? "system",
    summaryFraming: options.summaryFraming,
    maxSummaryTokens: options.maxSummaryTokens,
    ledger: options.ledger,
    maxToolResultTokens: options.maxToolResultTokens,
    maxSummarizerInputTokens: options.maxSummarizerInputTokens,
    archive: options.archive,
    conversationId: options.conversationId,
    summary: options.summary,
    contextWindow: window !== undefined
  }
  const fields = (policy: { readonly target: number }) => ({
    strategy: "rolling" as const,
    maxTokens,
    targetTokens: policy.target,
    contextWindow: window,
    fold: background === undefined ? "blocking" as const : "background" as const
  })
  if (background !== undefined && summarizer !== undefined) {
    return Effect.flatMap(frame(fill)(makeCore(counter, coreOptions)), (core) => {
      const recount = recountOf(counter)
      const start = () => startPrune(core.index, pruning, recount, core.archive !== undefined)
      const pinned = (entry: Entry) => pruning.pinSystem && entry.systemLike
      const room = (target: number) => core.index.plan({ ...pruning.policy, target }, true)
      const folder = backgroundFolder(core, summarizer, pruning.policy, start, pinned, background, room)
      const built = makeMemory<RollingMemory>(core, folder.step, folder.stepMany, {
        ...fields(pruning.policy),
        lastFoldFailure: folder.lastFailure,
        compact: () => Effect.fail(new ConfigError({ option: "fold", description: "compact needs fold: \"blocking\"" }))
      })
      return Effect.as(folder.register, built)
    })
  }
  return mapNow(frame(fill)(makeCore(counter, coreOptions)), (core) => {
    const index = core.index
    core.reserveTokens = window?.reserveTokens ?? 0
    // The policy the budget checks read: the options' own, or, with a context
    // window or a usage ratio, recomputed in O(1) before each check
    // (docs/contract.md sections 13.1 and 13.4).
    const live: { measure: "tokens"; budget: number; target: number } = { ...pruning.policy, measure: "tokens" }
    const livePruning = { ...pruning, policy: live }
    const refresh = (): void => {
      const ratio = core.usageRatio
      if (window === undefined && ratio === undefined) return
      const whole = Usage.inCounterTokens(maxTokens, ratio)
      const low = Usage.inCounterTokens(pruning.policy.target, ratio)
      if (window === undefined) {
        live.budget = whole
        live.target = Math.min(whole, low)
        return
      }
      const fixed = index.pinnedTokens + leadTokens(core)
      live.budget = Math.max(1, whole - fixed)
      live.target = Math.max(1, Math.min(live.budget, low - fixed))
    }
    const recount = recountOf(counter)
    // every prune re-checks its trigger once it holds the lock
    const archiving = core.archive !== undefined
    const start = () => {
      refresh()
      return startPrune(index, livePruning, recount, archiving)
    }
    const semaphore = Effect.unsafeMakeSemaphore(1)
    // Without a summarizer the evicted turns are dropped. With one, the buffer
    // may change before a locked prune runs (a fold in flight can leave a
    // result orphaned): the prune starts when it holds the lock.
    const prune = summarizer === undefined ? dropper(core, start) : folder(core, summarizer, start, semaphore)
    // with a window: the room the summary has beside the rest of the context (section 16.1)
    const summaryRoom = () =>
      Usage.inCounterTokens(maxTokens, core.usageRatio) - index.tokens - core.compactionTokens - core.framingTokens
    const shorten = shortener(core, summarizer, semaphore, summaryRoom)
    const windowError = (extra?: { readonly messageTokens: number; readonly compactionTokens: number }) =>
      new ContextWindowError({
        windowTokens: window!.tokens,
        reserveTokens: window!.reserveTokens,
        pinnedTokens: index.pinnedTokens,
        summaryTokens: leadTokens(core),
        ...extra,
        ...(core.usageRatio === undefined || core.usageRatio === 1 ? {} : { usageRatio: core.usageRatio })
      })
    // with a window: the pinned messages (and a compaction item) alone must fit, checked
    // before the add appends (section 16.1): no prune evicts them
    const refuse = (messages: ReadonlyArray<Message>, tokens: ReadonlyArray<number>): Step | undefined => {
      let incomingPinned = 0
      if (pruning.pinSystem) {
        for (let i = 0; i < messages.length; i++) {
          if (entryOf(messages[i], tokens[i]).systemLike) incomingPinned += tokens[i]
        }
      }
      const verdict = Context.pinnedOverflow({
        whole: Usage.inCounterTokens(maxTokens, core.usageRatio),
        pinnedTokens: index.pinnedTokens,
        compactionTokens: core.compactionTokens,
        incomingPinned
      })
      return verdict === "refuse"
        ? Exit.fail(windowError({ messageTokens: incomingPinned, compactionTokens: core.compactionTokens }))
        : undefined
    }
    // with a window: pinned messages and summary alone must leave room (section 16.1)
    const overflow = (): Step => {
      const whole = Usage.inCounterTokens(maxTokens, core.usageRatio)
      const pinnedTokens = index.pinnedTokens
      const lead = leadTokens(core)
      if (window === undefined) return done
      // nothing left to evict and still over: a summary-only fold, when a summarizer can shorten it
      if (pinnedTokens + lead <= whole) return lead + index.tokens > whole ? shorten() : done
      return Exit.fail(windowError())
    }
    // With a window, the summary a fold commits takes room too: while the
    // context is still over and the last prune shrank the buffer, prune again.
    const pruneWithin = (): Step => {
      const before = index.size
      return flatMapNow(prune(), () => {
        refresh()
        return index.size < before && index.needsPrune(live) ? pruneWithin() : overflow()
      })
    }
    const afterAppend = window === undefined
      ? () => {
        refresh()
        return index.needsPrune(live) ? prune() : done
      }
      : () => {
        // pinned messages over the window already (a state restored into a smaller one):
        // the turn stays appended, no prune folds turns for nothing (section 16.1)
        if (
          Context.pinnedOverflow({
            whole: Usage.inCounterTokens(maxTokens, core.usageRatio),
            pinnedTokens: index.pinnedTokens,
            compactionTokens: core.compactionTokens,
            incomingPinned: 0
          }) === "over"
        ) return Exit.fail(windowError())
        refresh()
        return index.needsPrune(live) ? pruneWithin() : overflow()
      }
    const { step, stepMany } = adding(core, afterAppend, window === undefined ? undefined : refuse)
    const compact = compacting(core, summarizer, semaphore, live, pruning.policy.target < maxTokens, refresh)
    return makeMemory<RollingMemory>(core, step, stepMany, {
      ...fields(pruning.policy),
      lastFoldFailure: noFailure,
      compact
    })
  })
}

/**
 * The summary-only fold of a memory with a context window (docs/contract.md
 * section 16.1, `core.ts` `shortenSummary`): in the add's step with a
 * synchronous summarizer, else under the prune lock, the room re-read once
 * it is held. Nothing without a summarizer.
 */
const shortener = (
  core: Core,
  summarizer: Summarizer.Service | undefined,
  semaphore: Effect.Semaphore,
  room: () => number
): () => Step => {
  if (summarizer === undefined) return () => done
  const summarizeSync = core.archive?.sync === false ? undefined : summarizeSyncOf(summarizer)
  if (summarizeSync !== undefined) return () => shortenSummary(core, summarizeSync, room())
  const locked = semaphore.withPermits(1)(
    Effect.suspend(() => shortenSummary(core, (s, m, r) => summarizer.summarize(s, m, r), room()))
  )
  return () => locked
}

/**
 * `compact` (docs/contract.md section 16.2): under the prune lock (or in one
 * step with a synchronous summarizer), plans a fold down to the target
 * whatever the buffer's size, and folds it with the request's `focus`; a
 * memory without a summarizer drops. A failure or interruption commits
 * nothing.
 */
const compacting = (
  core: Core,
  summarizer: Summarizer.Service | undefined,
  semaphore: Effect.Semaphore,
  live: { readonly budget: number; readonly target: number },
  hasLowWaterMark: boolean,
  refresh: () => void
) =>
(options?: CompactOptions): Effect.Effect<void, AddError | ConfigError> => {
  const problem = Rules.compactOptions(options)
  if (problem !== undefined) return Effect.fail(new ConfigError(problem))
  const index = core.index
  const summarizeSync = summarizer === undefined || core.archive?.sync === false
    ? undefined
    : summarizeSyncOf(summarizer)
  const run = (): Step => {
    refresh()
    const target = options?.targetTokens ?? (hasLowWaterMark ? live.target : Math.max(1, Math.floor(live.budget / 2)))
    const plan = index.plan({ measure: "tokens", budget: live.budget, target }, true)
    if (plan === undefined) return done
    if (summarizer === undefined) {
      if (core.archive !== undefined) return dropArchived(core, plan)
      if (index.commit(plan)) observeDrop(core, plan.messages.length)
      return done
    }
    const focus = options?.focus
    core.compactRequest = focus === undefined ? undefined : { ...core.request, focus }
    if (summarizeSync !== undefined) {
      const folded = foldNow(core, summarizeSync, plan)
      if (Exit.isExit(folded)) {
        core.compactRequest = undefined
        return folded
      }
      return Effect.ensuring(folded, Effect.sync(() => core.compactRequest = undefined))
    }
    return Effect.ensuring(fold(core, summarizer, plan), Effect.sync(() => core.compactRequest = undefined))
  }
  if ((summarizer === undefined && core.archive?.sync !== false) || summarizeSync !== undefined) {
    return Effect.suspend(run)
  }
  return semaphore.withPermits(1)(Effect.suspend(run))
}

/**
 * The options of `compact` (docs/contract.md section 16.2): the buffer's
 * target in tokens (default the low-water mark, or half the budget without
 * one), and what the summarizer should keep (passed in its request).
 *
 * @internal
 */
export interface CompactOptions {
  readonly targetTokens?: number | undefined
  readonly focus?: string | undefined
}

const noFailure: Effect.Effect<Option.Option<AddError>> = Effect.succeed(Option.none())

/** @internal */
export const buildBuffer = <E>(
  services: Services,
  fill: Fill<E>,
  options?: { readonly summaryRole?: SummaryRole | undefined; readonly summaryFraming?: boolean | string | undefined }
): Effect.Effect<Built<BufferMemory>, E | ConfigError> =>
  mapNow(frame(fill)(makeCore(services.counter, options)), (core) => {
    const { step, stepMany } = adding(core, () => done)
    return makeMemory<BufferMemory>(core, step, stepMany, { strategy: "buffer" })
  })

/** The options of a WindowMemory a builder reads, decoded (`schema/Options.ts`). @internal */
export interface WindowBuildOptions extends PolicyOptions {
  readonly maxMessages: number
  readonly targetMessages?: number | undefined
  readonly summaryRole?: SummaryRole | undefined
  readonly summaryFraming?: boolean | string | undefined
  readonly archive?: Archive.Service | undefined
  readonly conversationId?: string | undefined
}

/** @internal */
export const buildWindow = <E>(
  services: Services,
  options: WindowBuildOptions,
  fill: Fill<E>
): Effect.Effect<Built<WindowMemory>, E | ConfigError> => {
  const maxMessages = options.maxMessages
  const pruning = pruningOf(options, "messages", maxMessages, options.targetMessages)
  const counter = services.counter
  const coreOptions = {
    index: indexConfig(pruning),
    summaryRole: options.summaryRole,
    summaryFraming: options.summaryFraming,
    archive: options.archive,
    conversationId: options.conversationId
  }
  return mapNow(frame(fill)(makeCore(counter, coreOptions)), (core) => {
    const index = core.index
    const policy = pruning.policy
    const recount = recountOf(counter)
    const prune = dropper(core, () => startPrune(index, pruning, recount, core.archive !== undefined))
    const { step, stepMany } = adding(core, () => index.needsPrune(policy) ? prune() : done)
    return makeMemory<WindowMemory>(core, step, stepMany, {
      strategy: "window",
      maxMessages,
      targetMessages: policy.target
    })
  })
}

/** @internal */
export const buildSummary = <E>(
  services: Services & { readonly summarizer: Summarizer.Service },
  fill: Fill<E>,
  options?: {
    readonly summaryRole?: SummaryRole | undefined
    readonly summaryFraming?: boolean | string | undefined
    readonly maxSummaryTokens?: number | undefined
    readonly ledger?: LedgerOptions | undefined
    readonly maxSummarizerInputTokens?: number | undefined
    readonly archive?: Archive.Service | undefined
    readonly conversationId?: string | undefined
    readonly summary?: SummaryMode | undefined
  }
): Effect.Effect<Built<SummaryMemory>, E | ConfigError> => {
  const refused = modeRefused(options?.summary, services.summarizer, options?.maxSummarizerInputTokens)
  if (refused !== undefined) return Effect.fail(new ConfigError(refused))
  return mapNow(frame(fill)(makeCore(services.counter, options)), (core) => {
    const index = core.index
    // every pending turn, folded at once
    const semaphore = Effect.unsafeMakeSemaphore(1)
    const foldPending = folder(core, services.summarizer, () => Exit.succeed(index.planAll()), semaphore)
    const { step, stepMany } = adding(core, foldPending)
    // compact: every pending turn, folded now with the request's focus (docs/contract.md section 16.2)
    const compact = (options?: CompactOptions): Effect.Effect<void, AddError | ConfigError> => {
      const problem = Rules.compactOptions(options)
      if (problem !== undefined) return Effect.fail(new ConfigError(problem))
      const focus = options?.focus
      return Effect.suspend(() => {
        core.compactRequest = focus === undefined ? undefined : { ...core.request, focus }
        return Effect.ensuring(foldPending(), Effect.sync(() => core.compactRequest = undefined))
      })
    }
    return makeMemory<SummaryMemory>(core, step, stepMany, { strategy: "summary", compact })
  })
}

/**
 * Builds a memory of the strategy `options.strategy` from options already
 * decoded (`Options.decodeStrategy`), empty or holding `state`: what
 * `Memory.make` and a stored conversation build, with the services in
 * context as each strategy's own constructors read them.
 *
 * @internal
 */
export const buildStrategy = (
  options: Memory.Options,
  state: MemoryState.MemoryState | undefined
): Effect.Effect<Memory.Memory, ConfigError | TokenCountError | StateDecodeError, Summarizer.Summarizer> => {
  const fill = fillWith(state)
  switch (options.strategy) {
    case "rolling": {
      const { strategy: _, ...rest } = options
      return withServices((services) => Effect.map(buildRolling(services, rest, fill), memoryOf))
    }
    case "buffer": {
      const { strategy: _, ...rest } = options
      return withCounter((counter) => Effect.map(buildBuffer({ counter, summarizer: undefined }, fill, rest), memoryOf))
    }
    case "window": {
      const { strategy: _, ...rest } = options
      return withCounter((counter) => Effect.map(buildWindow({ counter, summarizer: undefined }, rest, fill), memoryOf))
    }
    case "summary": {
      const { strategy: _, ...rest } = options
      return withSummarizer((services) => Effect.map(buildSummary(services, fill, rest), memoryOf))
    }
  }
}
