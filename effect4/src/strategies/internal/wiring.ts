/**
 * One builder per strategy over decoded options, as the Effect 3 line's
 * `src/strategies/internal/builders.ts`: each decides once what runs when the
 * buffer is over budget (a drop, or a fold under a one-permit `Semaphore`)
 * and wires the steps.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Context from "../../../../src/core/context.js"
import * as MessageCore from "../../../../src/core/message.js"
import * as Rules from "../../../../src/core/options.js"
import { indexConfig, pruningOf } from "../../../../src/core/policy.js"
import * as Usage from "../../../../src/core/usage.js"
import { type AddError, ConfigError, type TokenCountError } from "../../Errors.js"
import type * as MemoryState from "../../schema/MemoryState.js"
import type { Message } from "../../schema/Message.js"
import type { BufferOptions, RollingOptions, SummaryOptions, WindowOptions } from "../../schema/Options.js"
import * as Summarizer from "../../services/Summarizer.js"
import type * as TokenCounter from "../../services/TokenCounter.js"
import { type Background, backgroundFolder } from "./background.js"
import {
  adding,
  type Admit,
  type CompactOptions,
  compactProblem,
  drop,
  fill,
  fold,
  leadTokens,
  makeCore,
  makeMemory,
  type Memory,
  pruneLock,
  pruner,
  shortenSummary,
  startPrune,
  startPruneNow,
  windowError
} from "./engine.js"

/** A RollingMemory (docs/contract.md sections 4, 5, 10, 16). @internal */
export interface RollingMemory extends Memory {
  readonly strategy: "rolling"
  readonly maxTokens: number
  readonly targetTokens: number
  readonly contextWindow: { readonly tokens: number; readonly reserveTokens: number } | undefined
  /** When folds run: `"blocking"` or `"background"` (docs/contract.md section 5.1). */
  readonly fold: "blocking" | "background"
  /**
   * With background folds: the error of the last fold that failed after its
   * retries, until a fold commits; always none with blocking folds.
   */
  readonly lastFoldFailure: Effect.Effect<Option.Option<AddError>>
  /** Folds now (docs/contract.md section 16.2); a `ConfigError` with background folds. */
  readonly compact: (options?: CompactOptions) => Effect.Effect<void, AddError | ConfigError>
}

const noFailure: Effect.Effect<Option.Option<AddError>> = Effect.succeed(Option.none())

/** A BufferMemory: every turn kept. @internal */
export interface BufferMemory extends Memory {
  readonly strategy: "buffer"
}

/** A WindowMemory: the last `maxMessages` messages, evicted turns dropped. @internal */
export interface WindowMemory extends Memory {
  readonly strategy: "window"
  readonly maxMessages: number
  readonly targetMessages: number
}

/** A SummaryMemory: every turn folded into the summary at once. @internal */
export interface SummaryMemory extends Memory {
  readonly strategy: "summary"
  readonly compact: (options?: CompactOptions) => Effect.Effect<void, AddError | ConfigError>
}

/** The services a memory is built with; `summarizer` `undefined`: evicted turns are dropped. @internal */
export interface Services {
  readonly counter: TokenCounter.Service
  readonly summarizer: Summarizer.Service | undefined
}

/**
 * Summary segments need a summarizer that honours `request.mode`
 * (docs/contract.md section 10.9); dropping (no summarizer) needs none.
 */
const modeRefused = (
  summary: "single" | "segments" | undefined,
  summarizer: Summarizer.Service | undefined
): ConfigError | undefined =>
  summary === "segments" && summarizer !== undefined && !Summarizer.honoursMode(summarizer)
    ? new ConfigError(Rules.segmentsNeedMode)
    : undefined

/** @internal `scope` owns background folds (`fold: "background"`, docs/contract.md section 5.1). */
export const buildRolling = (
  services: Services,
  options: RollingOptions,
  state: MemoryState.MemoryState | undefined,
  scope?: Scope.Scope
): Effect.Effect<RollingMemory, TokenCountError | ConfigError> => {
  // the reserve defaults to 0 (docs/contract.md section 16.1)
  const window = options.contextWindow === undefined
    ? undefined
    : { tokens: options.contextWindow.tokens, reserveTokens: options.contextWindow.reserveTokens ?? 0 }
  const maxTokens = window === undefined
    ? options.maxTokens ?? Rules.DEFAULT_MAX_TOKENS
    : window.tokens - window.reserveTokens
  const pruning = pruningOf(options, "tokens", maxTokens, options.targetTokens)
  const { counter, summarizer } = services
  const refused = Rules.foldContext(options.fold, scope !== undefined, summarizer !== undefined)
  if (refused !== undefined) return Effect.fail(new ConfigError(refused))
  const modeless = modeRefused(options.summary, summarizer)
  if (modeless !== undefined) return Effect.fail(modeless)
  const background: Background | undefined = options.fold === "background" && scope !== undefined
    ? { scope, hardMax: Rules.hardMaxOf(maxTokens, options.hardMaxTokens), retry: options.foldRetry }
    : undefined
  const core = makeCore(counter, {
    index: indexConfig<Message>(pruning),
    summaryRole: options.summaryRole ?? "system",
    maxSummaryTokens: options.maxSummaryTokens,
    ledger: options.ledger,
    maxToolResultTokens: options.maxToolResultTokens,
    maxSummarizerInputTokens: options.maxSummarizerInputTokens,
    summaryFraming: options.summaryFraming,
    archive: options.archive,
    conversationId: options.conversationId,
    summary: options.summary,
    contextWindow: window !== undefined
  })
  if (background !== undefined && summarizer !== undefined) {
    return Effect.flatMap(fill(core, state), (core) => {
      const weightOf = (message: Message, tokens: number): number =>
        pruning.pinSystem && MessageCore.entryOf(message, tokens).systemLike ? 0 : tokens
      const room = (target: number) => core.index.plan({ ...pruning.policy, target }, true)
      const folder = backgroundFolder(
        core,
        summarizer,
        pruning.policy,
        () => startPrune(core, pruning),
        weightOf,
        background,
        room
      )
      core.afterClear = folder.afterClear
      const memory = makeMemory<RollingMemory>(core, adding(core, folder.afterAppend, folder.admit), {
        strategy: "rolling",
        maxTokens,
        targetTokens: pruning.policy.target,
        contextWindow: window,
        fold: "background",
        lastFoldFailure: folder.lastFailure,
        compact: () => Effect.fail(new ConfigError({ option: "fold", description: "compact needs fold: \"blocking\"" }))
      })
      return Effect.as(folder.register, memory)
    })
  }
  return Effect.map(fill(core, state), (core) => {
    const index = core.index
    core.reserveTokens = window?.reserveTokens ?? 0
    // the policy the budget checks read, recomputed before each check with a window or a usage ratio
    const live = { ...pruning.policy, measure: "tokens" as const }
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
    const lock = pruneLock()
    const prune = pruner(core, summarizer, () => {
      refresh()
      return startPruneNow(core, livePruning)
    }, lock)
    // nothing left to evict and still over: a summary-only fold into the room the rest leaves (section 16.1)
    const shorten = summarizer === undefined ? Effect.void : lock.locked(
      Effect.suspend(() =>
        shortenSummary(
          core,
          summarizer,
          Usage.inCounterTokens(maxTokens, core.usageRatio) - index.tokens - core.framingTokens
        )
      )
    )
    const pinnedVerdict = (incomingPinned: number) =>
      Context.pinnedOverflow({
        whole: Usage.inCounterTokens(maxTokens, core.usageRatio),
        pinnedTokens: index.pinnedTokens,
        compactionTokens: core.compactionTokens,
        incomingPinned
      })
    // with a window: the pinned messages (and a compaction item) alone must fit, checked
    // before the add appends (section 16.1): no prune evicts them
    const admit: Admit = (counted, append, then) => {
      let incomingPinned = 0
      if (pruning.pinSystem) {
        for (const c of counted) if (MessageCore.entryOf(c.message, c.tokens).systemLike) incomingPinned += c.tokens
      }
      if (window !== undefined && pinnedVerdict(incomingPinned) === "refuse") {
        return Effect.fail(
          windowError(window, core, { messageTokens: incomingPinned, compactionTokens: core.compactionTokens })
        )
      }
      append()
      return then()
    }
    const overflow = (): Effect.Effect<void, AddError> => {
      const whole = Usage.inCounterTokens(maxTokens, core.usageRatio)
      if (window === undefined) return Effect.void
      const lead = leadTokens(core)
      if (index.pinnedTokens + lead <= whole) return lead + index.tokens > whole ? shorten : Effect.void
      return Effect.fail(windowError(window, core))
    }
    const pruneWithin = (): Effect.Effect<void, AddError> => {
      const before = index.size
      return Effect.flatMap(prune(), () => {
        refresh()
        return index.size < before && index.needsPrune(live) ? pruneWithin() : overflow()
      })
    }
    const afterAppend = (): Effect.Effect<void, AddError> => {
      if (window === undefined) {
        refresh()
        return index.needsPrune(live) ? prune() : Effect.void
      }
      // pinned messages over the window already (a state restored into a smaller one):
      // the turn stays appended, no prune folds turns for nothing (section 16.1)
      if (pinnedVerdict(0) === "over") return Effect.fail(windowError(window, core))
      refresh()
      return index.needsPrune(live) ? pruneWithin() : overflow()
    }
    const hasLowWaterMark = pruning.policy.target < maxTokens
    const compact = (options?: CompactOptions): Effect.Effect<void, AddError | ConfigError> => {
      const problem = compactProblem(options)
      if (problem !== undefined) return Effect.fail(problem)
      const run = Effect.suspend((): Effect.Effect<void, AddError> => {
        refresh()
        const target = options?.targetTokens ??
          (hasLowWaterMark ? live.target : Math.max(1, Math.floor(live.budget / 2)))
        const plan = index.plan({ measure: "tokens", budget: live.budget, target }, true)
        if (plan === undefined) return Effect.void
        if (summarizer === undefined) return drop(core, plan)
        const focus = options?.focus
        core.compactRequest = focus === undefined ? undefined : { ...core.request, focus }
        return Effect.ensuring(fold(core, summarizer, plan), Effect.sync(() => core.compactRequest = undefined))
      })
      return summarizer === undefined ? run : lock.locked(run)
    }
    return makeMemory<RollingMemory>(core, adding(core, afterAppend, window === undefined ? undefined : admit), {
      strategy: "rolling",
      maxTokens,
      targetTokens: pruning.policy.target,
      contextWindow: window,
      fold: "blocking",
      lastFoldFailure: noFailure,
      compact
    })
  })
}

/** @internal */
export const buildBuffer = (
  services: Services,
  options: BufferOptions,
  state: MemoryState.MemoryState | undefined
): Effect.Effect<BufferMemory, TokenCountError | ConfigError> =>
  Effect.map(
    fill(makeCore(services.counter, options), state),
    (core) => makeMemory<BufferMemory>(core, adding(core, () => Effect.void), { strategy: "buffer" })
  )

/** @internal */
export const buildWindow = (
  services: Services,
  options: WindowOptions,
  state: MemoryState.MemoryState | undefined
): Effect.Effect<WindowMemory, TokenCountError | ConfigError> => {
  const pruning = pruningOf(options, "messages", options.maxMessages, options.targetMessages)
  const core = makeCore(services.counter, {
    index: indexConfig<Message>(pruning),
    summaryRole: options.summaryRole,
    summaryFraming: options.summaryFraming,
    archive: options.archive,
    conversationId: options.conversationId
  })
  return Effect.map(fill(core, state), (core) => {
    const prune = pruner(core, undefined, () => startPrune(core, pruning), pruneLock())
    const afterAppend = () => core.index.needsPrune(pruning.policy) ? prune() : Effect.void
    return makeMemory<WindowMemory>(core, adding(core, afterAppend), {
      strategy: "window",
      maxMessages: options.maxMessages,
      targetMessages: pruning.policy.target
    })
  })
}

/** @internal */
export const buildSummary = (
  services: Services & { readonly summarizer: Summarizer.Service },
  options: SummaryOptions,
  state: MemoryState.MemoryState | undefined
): Effect.Effect<SummaryMemory, TokenCountError | ConfigError> => {
  const modeless = modeRefused(options.summary, services.summarizer)
  if (modeless !== undefined) return Effect.fail(modeless)
  return Effect.map(fill(makeCore(services.counter, options), state), (core) => {
    const foldPending = pruner(
      core,
      services.summarizer,
      () => Exit.succeed(core.index.planAll()),
      pruneLock()
    )
    const compact = (options?: CompactOptions): Effect.Effect<void, AddError | ConfigError> => {
      const problem = compactProblem(options)
      if (problem !== undefined) return Effect.fail(problem)
      const focus = options?.focus
      return Effect.suspend(() => {
        core.compactRequest = focus === undefined ? undefined : { ...core.request, focus }
        return Effect.ensuring(foldPending(), Effect.sync(() => core.compactRequest = undefined))
      })
    }
    return makeMemory<SummaryMemory>(core, adding(core, foldPending), { strategy: "summary", compact })
  })
}
