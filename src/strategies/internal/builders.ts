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
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import { type AddError, ConfigError, type TokenCountError } from "../../Errors.js"
import { describeValue } from "../../internal/options.js"
import type { Message } from "../../schema/Message.js"
import { countNow, countSyncOf } from "../../services/internal/counting.js"
import { summarizeSyncOf } from "../../services/internal/summarizing.js"
import type * as Summarizer from "../../services/Summarizer.js"
import type { BufferMemory } from "../BufferMemory.js"
import type { RollingMemory } from "../RollingMemory.js"
import type { SummaryMemory } from "../SummaryMemory.js"
import type { WindowMemory } from "../WindowMemory.js"
import { type Background, backgroundFolder } from "./background.js"
import {
  adding,
  type Built,
  checkPositiveInteger,
  type Core,
  done,
  type Fill,
  fold,
  foldNow,
  makeCore,
  makeMemory,
  mapNow,
  type Services,
  type Step,
  type SummaryRole
} from "./core.js"
import type { Entry, Plan } from "./eviction.js"
import { observeDrop } from "./observe.js"
import {
  checkMaxSummaryTokens,
  checkPruning,
  checkSummaryRole,
  indexConfig,
  type PolicyOptions,
  type Pruning,
  type Recount,
  startPrune
} from "./policy.js"

/**
 * The options a strategy with a buffer budget checks first, in this order:
 * the budget `budgetName` (a positive integer), the pruning options (see
 * `checkPruning`) and `summaryRole`.
 */
const checkBuffered = (
  options: (PolicyOptions & { readonly summaryRole?: SummaryRole | undefined }) | undefined,
  measure: "tokens" | "messages",
  budgetName: string,
  budget: unknown,
  targetName: string
): ConfigError | { readonly pruning: Pruning; readonly summaryRole: SummaryRole } => {
  const invalid = checkPositiveInteger(budgetName, budget)
  if (invalid !== undefined) return invalid
  const pruning = checkPruning(options, measure, budgetName, budget as number, targetName)
  if (pruning instanceof ConfigError) return pruning
  const summaryRole = checkSummaryRole(options?.summaryRole)
  return summaryRole instanceof ConfigError ? summaryRole : { pruning, summaryRole }
}

/** How a prune recounts a message it rewrites (a cleared tool result): synchronously when the counter can. */
const recountOf = (counter: Services["counter"]): Recount => ({
  sync: countSyncOf(counter),
  effect: (text) => countNow(counter, text)
})

/** The default token budget of a RollingMemory: 2000 tokens. @internal */
export const DEFAULT_MAX_TOKENS = 2000

/**
 * What runs once an add must prune, for a summarizer: a synchronous one
 * folds in the add's own step (nothing can interleave, so no lock); any
 * other folds under the prune lock, one prune at a time, each starting (re-
 * checking its trigger, clearing, planning) once it holds the lock.
 */
const folder = (
  core: Core,
  summarizer: Summarizer.Service,
  start: () => Effect.Effect<Plan<Message> | undefined, TokenCountError>
): () => Step => {
  const summarizeSync = summarizeSyncOf(summarizer)
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
  const semaphore = Effect.unsafeMakeSemaphore(1)
  const locked = semaphore.withPermits(1)(
    Effect.suspend(() =>
      Effect.flatMap(start(), (plan) => plan === undefined ? Effect.void : fold(core, summarizer, plan))
    )
  )
  return () => locked
}

/** What prunes a memory without a summarizer: the evicted turns are dropped at once. */
const dropper = (
  core: Core,
  start: () => Effect.Effect<Plan<Message> | undefined, TokenCountError>
): () => Step => {
  const then = (plan: Plan<Message> | undefined): Step => {
    return plan !== undefined && core.index.commit(plan) ? observeDrop(core, plan.messages.length) : done
  }
  return () => {
    const started = start()
    if (!Exit.isExit(started)) return Effect.flatMap(started, then)
    const exit = started as Exit.Exit<Plan<Message> | undefined, TokenCountError>
    return Exit.isSuccess(exit) ? then(exit.value) : exit
  }
}

/** The options of a RollingMemory a builder reads (checked here). @internal */
export interface RollingBuildOptions extends PolicyOptions {
  readonly maxTokens?: number | undefined
  readonly targetTokens?: number | undefined
  readonly summaryRole?: SummaryRole | undefined
  readonly maxSummaryTokens?: number | undefined
  readonly fold?: "blocking" | "background" | undefined
  readonly hardMaxTokens?: number | undefined
  readonly foldRetry?: Schedule.Schedule<unknown, AddError> | undefined
}

/**
 * Checks the background-folding options (docs/contract.md section 5.1):
 * `undefined` for blocking folds, else the settings. `scope` is the one a
 * scoped constructor gives; `fold: "background"` without one, or without a
 * summarizer, is a `ConfigError`.
 */
const checkBackground = (
  options: RollingBuildOptions | undefined,
  maxTokens: number,
  hasSummarizer: boolean,
  scope: Scope.Scope | undefined
): ConfigError | Background | undefined => {
  const fold: unknown = options?.fold
  const hard: unknown = options?.hardMaxTokens
  const retry: unknown = options?.foldRetry
  if (fold !== undefined && fold !== "blocking" && fold !== "background") {
    return new ConfigError({
      option: "fold",
      description: `must be "blocking" or "background", got ${describeValue(fold)}`
    })
  }
  if (fold !== "background") {
    if (hard !== undefined) {
      return new ConfigError({ option: "hardMaxTokens", description: "needs fold: \"background\"" })
    }
    if (retry !== undefined) return new ConfigError({ option: "foldRetry", description: "needs fold: \"background\"" })
    return undefined
  }
  if (scope === undefined) {
    return new ConfigError({
      option: "fold",
      description: "\"background\" needs a scope that owns the folds: use RollingMemory.makeScoped"
    })
  }
  if (!hasSummarizer) {
    return new ConfigError({
      option: "fold",
      description: "\"background\" needs a real Summarizer: with Summarizer.drop, evicted turns are dropped at once"
    })
  }
  const hardMax = hard === undefined ? 2 * maxTokens : hard
  const invalid = checkPositiveInteger("hardMaxTokens", hardMax)
  if (invalid !== undefined) return invalid
  if ((hardMax as number) < maxTokens) {
    return new ConfigError({
      option: "hardMaxTokens",
      description: `must be at least maxTokens (${maxTokens}), got ${hardMax}`
    })
  }
  if (retry !== undefined && !Schedule.isSchedule(retry)) {
    return new ConfigError({ option: "foldRetry", description: "must be a Schedule" })
  }
  return { scope, hardMax: hardMax as number, retry: retry as Schedule.Schedule<unknown, AddError> | undefined }
}

/** @internal */
export const buildRolling = <E>(
  services: Services,
  options: RollingBuildOptions | undefined,
  fill: Fill<E>,
  scope?: Scope.Scope
): Effect.Effect<Built<RollingMemory>, ConfigError | E> => {
  const maxTokens = options?.maxTokens === undefined ? DEFAULT_MAX_TOKENS : options.maxTokens
  const checked = checkBuffered(options, "tokens", "maxTokens", maxTokens, "targetTokens")
  if (checked instanceof ConfigError) return Effect.fail(checked)
  const { pruning, summaryRole } = checked
  const maxSummaryTokens = checkMaxSummaryTokens(options?.maxSummaryTokens)
  if (maxSummaryTokens instanceof ConfigError) return Effect.fail(maxSummaryTokens)
  const { counter, summarizer } = services
  const background = checkBackground(options, maxTokens, summarizer !== undefined, scope)
  if (background instanceof ConfigError) return Effect.fail(background)
  const coreOptions = { index: indexConfig(pruning), summaryRole, maxSummaryTokens }
  const fields = (policy: { readonly target: number }) => ({
    strategy: "rolling" as const,
    maxTokens,
    targetTokens: policy.target,
    fold: background === undefined ? "blocking" as const : "background" as const
  })
  if (background !== undefined && summarizer !== undefined) {
    return Effect.flatMap(fill(makeCore(counter, coreOptions)), (core) => {
      const recount = recountOf(counter)
      const start = () => startPrune(core.index, pruning, recount)
      const pinned = (entry: Entry) => pruning.pinSystem && entry.systemLike
      const folder = backgroundFolder(core, summarizer, pruning.policy, start, pinned, background)
      const built = makeMemory<RollingMemory>(core, folder.step, folder.stepMany, {
        ...fields(pruning.policy),
        lastFoldFailure: folder.lastFailure
      })
      return Effect.as(folder.register, built)
    })
  }
  return mapNow(fill(makeCore(counter, coreOptions)), (core) => {
    const index = core.index
    const policy = pruning.policy
    const recount = recountOf(counter)
    // every prune re-checks its trigger once it holds the lock
    const start = () => startPrune(index, pruning, recount)
    // Without a summarizer the evicted turns are dropped. With one, the buffer
    // may change before a locked prune runs (a fold in flight can leave a
    // result orphaned): the prune starts when it holds the lock.
    const prune = summarizer === undefined ? dropper(core, start) : folder(core, summarizer, start)
    const { step, stepMany } = adding(core, () => index.needsPrune(policy) ? prune() : done)
    return makeMemory<RollingMemory>(core, step, stepMany, { ...fields(policy), lastFoldFailure: noFailure })
  })
}

const noFailure: Effect.Effect<Option.Option<AddError>> = Effect.succeed(Option.none())

/** @internal */
export const buildBuffer = <E>(
  services: Services,
  fill: Fill<E>,
  options?: { readonly summaryRole?: SummaryRole | undefined }
): Effect.Effect<Built<BufferMemory>, ConfigError | E> => {
  const summaryRole = checkSummaryRole(options?.summaryRole)
  if (summaryRole instanceof ConfigError) return Effect.fail(summaryRole)
  return mapNow(fill(makeCore(services.counter, { summaryRole })), (core) => {
    const { step, stepMany } = adding(core, () => done)
    return makeMemory<BufferMemory>(core, step, stepMany, { strategy: "buffer" })
  })
}

/** The options of a WindowMemory a builder reads (checked here). @internal */
export interface WindowBuildOptions extends PolicyOptions {
  readonly maxMessages: number
  readonly targetMessages?: number | undefined
  readonly summaryRole?: SummaryRole | undefined
}

/** @internal */
export const buildWindow = <E>(
  services: Services,
  options: WindowBuildOptions,
  fill: Fill<E>
): Effect.Effect<Built<WindowMemory>, ConfigError | E> => {
  const maxMessages = options?.maxMessages
  const checked = checkBuffered(options, "messages", "maxMessages", maxMessages, "targetMessages")
  if (checked instanceof ConfigError) return Effect.fail(checked)
  const { pruning, summaryRole } = checked
  const counter = services.counter
  return mapNow(fill(makeCore(counter, { index: indexConfig(pruning), summaryRole })), (core) => {
    const index = core.index
    const policy = pruning.policy
    const recount = recountOf(counter)
    const prune = dropper(core, () => startPrune(index, pruning, recount))
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
  options?: { readonly summaryRole?: SummaryRole | undefined; readonly maxSummaryTokens?: number | undefined }
): Effect.Effect<Built<SummaryMemory>, ConfigError | E> => {
  const summaryRole = checkSummaryRole(options?.summaryRole)
  if (summaryRole instanceof ConfigError) return Effect.fail(summaryRole)
  const maxSummaryTokens = checkMaxSummaryTokens(options?.maxSummaryTokens)
  if (maxSummaryTokens instanceof ConfigError) return Effect.fail(maxSummaryTokens)
  return mapNow(fill(makeCore(services.counter, { summaryRole, maxSummaryTokens })), (core) => {
    const index = core.index
    // every pending turn, folded at once
    const foldPending = folder(core, services.summarizer, () => Exit.succeed(index.planAll()))
    const { step, stepMany } = adding(core, foldPending)
    return makeMemory<SummaryMemory>(core, step, stepMany, { strategy: "summary" })
  })
}
