/**
 * The context policies of docs/contract.md section 10 as a RollingMemory or
 * WindowMemory applies them: the decoded options with their defaults, and the start of a prune
 * (re-check the trigger under the lock, clear tool results, plan). The
 * eviction itself is the pure module `core/eviction.ts`.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { clearingGoesOn, clearingStands, type EvictionIndex, type Plan } from "../../core/eviction.js"
import {
  type Clearing,
  type ClearUntil,
  indexConfig,
  type PolicyOptions,
  type Pruning,
  pruningOf
} from "../../core/policy.js"
import type { TokenCountError } from "../../Errors.js"
import * as Message from "../../schema/Message.js"

/** How a prune counts a cleared result: at once, or through the counter's effect. @internal */
export interface Recount {
  readonly sync: ((text: string) => number | TokenCountError) | undefined
  readonly effect: (text: string) => Effect.Effect<number, TokenCountError>
}

/**
 * A message with its content replaced, every other field kept: a cleared
 * tool result (section 10.5), a cut one (section 10.8).
 *
 * @internal
 */
export const withContent = (message: Message.Message, content: string): Message.Message =>
  Message.make(message.role, content, {
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
 * With `archiving` (docs/contract.md section 17), clearings that stand
 * without a fold are a pending plan that evicts nothing
 * (`EvictionIndex.planClearings`): the fold path archives their originals
 * before it commits them.
 *
 * @internal
 */
export const startPrune = (
  index: EvictionIndex<Message.Message>,
  pruning: Pruning,
  recount: Recount,
  archiving = false
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
    if (planned !== undefined) return planned
    if (archiving) return index.planClearings()
    index.keepClearings()
    return undefined
  }
  if (!over || clearing === undefined) return Exit.succeed(plan())
  const sync = recount.sync
  const atLeast = clearing.atLeast
  // the pass settled: it stands when it freed at least atLeast tokens, else it is undone (nothing cleared)
  const settle = () => {
    if (!clearingStands(index.clearedTokens, atLeast)) index.undoClearings()
    return Exit.succeed(plan())
  }
  // one clearing at a time, oldest first, while over the target or short of atLeast
  const next = (): Effect.Effect<Plan<Message.Message> | undefined, TokenCountError> => {
    while (clearingGoesOn(index.measure(policy.measure), policy.target, index.clearedTokens, atLeast)) {
      const slot = index.nextClearable(clearing.keep)
      if (slot === undefined) break
      if (slot.item.content === clearing.placeholder) {
        index.passClearable(slot)
        continue
      }
      const message = withContent(slot.item, clearing.placeholder)
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
    return settle()
  }
  const started = next()
  if (Exit.isExit(started)) return started
  // a failed or interrupted count undoes this prune's clearings
  return Effect.onExit(started, (exit) => Exit.isSuccess(exit) ? Effect.void : Effect.sync(() => index.undoClearings()))
}

export { type Clearing, type ClearUntil, indexConfig, type PolicyOptions, type Pruning, pruningOf }
