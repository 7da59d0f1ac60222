/**
 * The context policies of docs/contract.md section 10 as a RollingMemory or
 * WindowMemory applies them: the checked options, and the start of a prune
 * (re-check the trigger under the lock, clear tool results, plan). The
 * eviction itself is the pure module `eviction.ts`.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { ConfigError, type TokenCountError } from "../../Errors.js"
import { describeValue } from "../../internal/options.js"
import * as Message from "../../schema/Message.js"
import type { SummaryRole } from "./core.js"
import type { Boundary, Config, EvictionIndex, Plan, Policy } from "./eviction.js"

/** The placeholder of a cleared tool result by default (docs/contract.md section 10.5). @internal */
export const DEFAULT_PLACEHOLDER = "[tool result cleared]"

/**
 * When clearing spares the fold (docs/contract.md section 10.5): clearing
 * always runs until the buffer is within the target; with `"target"`
 * (default) the prune folds when clearing did not get there, with
 * `"budget"` only when clearing did not bring the buffer within the budget
 * (the fold then goes down to the target).
 *
 * @internal
 */
export type ClearUntil = "target" | "budget"

/** Tool-result clearing, checked (docs/contract.md section 10.5). @internal */
export interface Clearing {
  /** The most recent tool results spared. */
  readonly keep: number
  readonly placeholder: string
  readonly until: ClearUntil
}

/** A memory's pruning configuration, checked. @internal */
export interface Pruning {
  readonly policy: Policy
  readonly boundary: Boundary
  readonly pinSystem: boolean
  readonly clearing: Clearing | undefined
}

/** The index configuration of a pruning configuration. @internal */
export const indexConfig = (pruning: Pruning | undefined): Config | undefined =>
  pruning === undefined ? undefined : {
    boundary: pruning.boundary,
    pinSystem: pruning.pinSystem,
    clearing: pruning.clearing !== undefined
  }

/** How a prune counts a cleared result: at once, or through the counter's effect. @internal */
export interface Recount {
  readonly sync: ((text: string) => number | TokenCountError) | undefined
  readonly effect: (text: string) => Effect.Effect<number, TokenCountError>
}

/** A tool result with its content replaced (every other field kept). */
const cleared = (message: Message.Message, placeholder: string): Message.Message =>
  Message.make(message.role, placeholder, {
    ...(message.id === undefined ? {} : { id: message.id }),
    ...(message.toolCallId === undefined ? {} : { toolCallId: message.toolCallId }),
    toolCalls: message.toolCalls,
    ...(Object.keys(message.metadata).length === 0 ? {} : { metadata: message.metadata })
  })

/**
 * Starts a prune once it holds the lock (or in the add's own step when
 * nothing can interleave): `undefined` when the trigger no longer holds or
 * nothing is to be evicted (clearings stand), else the pending {@link Plan}
 * to fold and then commit or abort. Clearing (a prune started over the
 * budget, with `clearToolResults`) recounts each cleared result once; with a
 * synchronous counter the whole start is one step (an `Exit`). With
 * `until: "budget"`, a prune that clearing brings within the budget evicts
 * only what a turn-mode repair needs (as one started within the budget).
 *
 * @internal
 */
export const startPrune = (
  index: EvictionIndex<Message.Message>,
  pruning: Pruning,
  recount: Recount
): Effect.Effect<Plan<Message.Message> | undefined, TokenCountError> => {
  const policy = pruning.policy
  if (!index.needsPrune(policy)) return Exit.succeed(undefined)
  const over = index.measure(policy.measure) > policy.budget
  const clearing = pruning.clearing
  // a prune cleared within the target (default) or within the budget calls no summarizer
  const toBudget = clearing !== undefined && clearing.until === "budget"
  const plan = () => {
    // cleared to within the budget: step 1 does not run (turn-mode repairs only)
    const planned = index.plan(policy, over && !(toBudget && index.measure(policy.measure) <= policy.budget))
    if (planned === undefined) index.keepClearings()
    return planned
  }
  if (!over || clearing === undefined) return Exit.succeed(plan())
  const sync = recount.sync
  // one clearing at a time, oldest first, while over the target
  const next = (): Effect.Effect<Plan<Message.Message> | undefined, TokenCountError> => {
    while (index.measure(policy.measure) > policy.target) {
      const slot = index.nextClearable(clearing.keep)
      if (slot === undefined) break
      if (slot.item.content === clearing.placeholder) {
        index.passClearable(slot)
        continue
      }
      const message = cleared(slot.item, clearing.placeholder)
      if (sync === undefined) {
        return Effect.flatMap(recount.effect(message.tokenText), (tokens) => {
          if (tokens < slot.tokens) index.passClearable(slot, message, tokens)
          else index.passClearable(slot)
          return next()
        })
      }
      const tokens = sync(message.tokenText)
      if (typeof tokens !== "number") {
        index.undoClearings()
        return Exit.fail(tokens)
      }
      if (tokens < slot.tokens) index.passClearable(slot, message, tokens)
      else index.passClearable(slot)
    }
    return Exit.succeed(plan())
  }
  const started = next()
  if (Exit.isExit(started)) return started
  // a failed or interrupted count undoes this prune's clearings
  return Effect.onExit(started, (exit) => Exit.isSuccess(exit) ? Effect.void : Effect.sync(() => index.undoClearings()))
}

const isPositiveInteger = (value: unknown): value is number =>
  typeof value === "number" && Number.isInteger(value) && value > 0

/** The `ConfigError` of an option, if `problem` is not undefined. */
const fail = (option: string, problem: string): ConfigError => new ConfigError({ option, description: problem })

/** The context-policy options of a RollingMemory or a WindowMemory, as given. @internal */
export interface PolicyOptions {
  readonly boundary?: Boundary | undefined
  readonly pinSystem?: boolean | undefined
  readonly clearToolResults?:
    | {
      readonly keep: number
      readonly placeholder?: string | undefined
      readonly until?: ClearUntil | undefined
    }
    | undefined
}

/** Checks `summaryRole`: `"system"` (default) or `"user"`. @internal */
export const checkSummaryRole = (value: unknown): ConfigError | SummaryRole => {
  if (value === undefined) return "system"
  return value === "system" || value === "user"
    ? value
    : fail("summaryRole", `must be "system" or "user", got ${describeValue(value)}`)
}

/** Checks `maxSummaryTokens`: absent, or a positive integer. @internal */
export const checkMaxSummaryTokens = (value: unknown): ConfigError | number | undefined =>
  value === undefined || isPositiveInteger(value)
    ? value
    : fail("maxSummaryTokens", `must be a positive integer, got ${describeValue(value)}`)

/**
 * Checks the pruning options of a memory whose budget is `budget` (already
 * checked) under the name `budgetName`: the low-water mark `targetName`
 * (default the budget; a positive integer at most the budget), `boundary`,
 * `pinSystem` and, where `clearing` is allowed, `clearToolResults`.
 *
 * @internal
 */
export const checkPruning = (
  options: PolicyOptions | undefined,
  measure: "tokens" | "messages",
  budgetName: string,
  budget: number,
  targetName: string
): ConfigError | Pruning => {
  const target: unknown = (options as { readonly [key: string]: unknown } | undefined)?.[targetName]
  if (target !== undefined) {
    if (!isPositiveInteger(target)) return fail(targetName, `must be a positive integer, got ${describeValue(target)}`)
    if (target > budget) return fail(targetName, `must be at most ${budgetName} (${budget}), got ${target}`)
  }
  const boundary: unknown = options?.boundary
  if (boundary !== undefined && boundary !== "aligned" && boundary !== "turn") {
    return fail("boundary", `must be "aligned" or "turn", got ${describeValue(boundary)}`)
  }
  const pinSystem: unknown = options?.pinSystem
  if (pinSystem !== undefined && typeof pinSystem !== "boolean") {
    return fail("pinSystem", `must be a boolean, got ${describeValue(pinSystem)}`)
  }
  let clearing: Clearing | undefined
  const clear: unknown = options?.clearToolResults
  if (clear !== undefined) {
    if (typeof clear !== "object" || clear === null) {
      return fail("clearToolResults", `must be an object { keep, placeholder?, until? }, got ${describeValue(clear)}`)
    }
    for (const key of Object.keys(clear)) {
      if (key !== "keep" && key !== "placeholder" && key !== "until") {
        return fail(`clearToolResults.${key}`, "unknown option (known: keep, placeholder, until)")
      }
    }
    const { keep, placeholder, until } = clear as {
      readonly keep?: unknown
      readonly placeholder?: unknown
      readonly until?: unknown
    }
    if (typeof keep !== "number" || !Number.isInteger(keep) || keep < 0) {
      return fail("clearToolResults.keep", `must be a non-negative integer, got ${describeValue(keep)}`)
    }
    if (placeholder !== undefined && typeof placeholder !== "string") {
      return fail("clearToolResults.placeholder", `must be a string, got ${describeValue(placeholder)}`)
    }
    if (until !== undefined && until !== "target" && until !== "budget") {
      return fail("clearToolResults.until", `must be "target" or "budget", got ${describeValue(until)}`)
    }
    clearing = { keep, placeholder: placeholder ?? DEFAULT_PLACEHOLDER, until: until ?? "target" }
  }
  return {
    policy: { measure, budget, target: (target as number | undefined) ?? budget },
    boundary: boundary ?? "aligned",
    pinSystem: pinSystem === true,
    clearing
  }
}
