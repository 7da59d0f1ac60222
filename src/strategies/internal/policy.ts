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
import type { EvictionIndex, Plan } from "../../core/eviction.js"
import * as Loops from "../../core/loops.js"
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
import { driveCounting, type Recount } from "./drive.js"

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
 * to fold and then commit or abort. The decisions (the clearing pass, the
 * plan) are `core/loops.ts` `startPrune`'s; this drives its recounts with
 * `recount` (the whole start one step, an `Exit`, with a synchronous
 * counter). A failed or interrupted count undoes the pass's clearings.
 *
 * @internal
 */
export const startPrune = (
  index: EvictionIndex<Message.Message>,
  pruning: Pruning,
  recount: Recount,
  archiving = false
): Effect.Effect<Plan<Message.Message> | undefined, TokenCountError> => {
  const pass = Loops.startPrune(index, pruning, withContent, archiving)
  if (pass === undefined) return noPlan
  const started = driveCounting(pass, recount)
  if (Exit.isExit(started)) {
    if (Exit.isFailure(started)) index.undoClearings()
    return started
  }
  return Effect.onExit(started, (exit) => Exit.isSuccess(exit) ? Effect.void : Effect.sync(() => index.undoClearings()))
}

const noPlan: Exit.Exit<undefined> = Exit.succeed(undefined)

export { type Clearing, type ClearUntil, indexConfig, type PolicyOptions, type Pruning, pruningOf, type Recount }
