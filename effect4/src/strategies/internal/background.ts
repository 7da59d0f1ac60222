/**
 * Background folding on the Effect 4 line (docs/contract.md section 5.1), as
 * `src/strategies/internal/background.ts` on the Effect 3 line: an add
 * returns once its turn is counted and appended; folds run one at a time in
 * a fiber owned by the memory's `Scope`, each starting (re-checking its
 * trigger, clearing, planning) when it runs, as a locked fold does. The
 * buffer may pass the budget meanwhile, never the hard cap: an add that
 * would pass it is held back, counted but not appended, until a fold makes
 * room (when no fold is due by the budget, one starts to make that room);
 * held-back adds are appended in arrival order. An add whose turn alone is
 * over the cap is not held back. When the folds fail after their retries, or
 * can evict nothing more, the held-back turns are appended anyway and their
 * adds get the fold's error. A `clear` lets in at once the held-back adds
 * that then fit.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import { Folding, type Held } from "../../../../src/core/background.js"
import type { Plan, Policy } from "../../../../src/core/eviction.js"
import type { AddError, TokenCountError } from "../../Errors.js"
import type { Message } from "../../schema/Message.js"
import type * as Summarizer from "../../services/Summarizer.js"
import { type Admit, type Core, fold } from "./engine.js"
import { linkedToCaller } from "./observe.js"

/** The checked background settings of a memory. @internal */
export interface Background {
  readonly scope: Scope.Scope
  /** The hard cap, in tokens (default twice the budget). */
  readonly hardMax: number
  /** How a failed fold is retried before it is given up (default: not retried). */
  readonly retry: Schedule.Schedule<unknown, AddError> | undefined
}

/** What a background folder gives its memory. @internal */
export interface BackgroundFolder {
  /** How an add's counted turns go in: at once, or held back while they would pass the hard cap. */
  readonly admit: Admit
  /** After an append: a fold loop started when the buffer is over the budget and none runs. */
  readonly afterAppend: () => Effect.Effect<void>
  /** The error of the last background fold that failed after its retries, until a fold commits. */
  readonly lastFailure: Effect.Effect<Option.Option<AddError>>
  /** Registers, on the memory's scope, what its closing does: no fold starts after. */
  readonly register: Effect.Effect<void>
  /** What a `clear` does besides emptying the buffer: the held-back adds that now fit go in. */
  readonly afterClear: () => void
}

/**
 * Builds the background folder of a RollingMemory whose trigger is
 * `index.needsPrune(policy)`, whose prune begins with `start` (a plan, or
 * `undefined` when the trigger no longer holds or nothing is evicted), whose
 * pinned messages weigh nothing against the budget (`weightOf`), and whose
 * room-making plan down to a target is `room`. Its decisions are
 * `src/core/background.ts`'s, shared with the Effect 3 line; this shell runs
 * the folds and settles the held-back adds.
 *
 * @internal
 */
export const backgroundFolder = (
  core: Core,
  summarizer: Summarizer.Service,
  policy: Policy,
  start: () => Effect.Effect<Plan<Message> | undefined, TokenCountError>,
  weightOf: (message: Message, tokens: number) => number,
  settings: Background,
  room: (target: number) => Plan<Message> | undefined
): BackgroundFolder => {
  const state = new Folding<AddError>(core.index, policy, settings.hardMax)

  // One prune: start (re-checking the trigger), or else the fold that makes room under the cap for the
  // oldest held-back add (section 5.1), then fold; a failure aborts the plan (fold's own onExit).
  const once: Effect.Effect<boolean, AddError> = Effect.suspend(() =>
    Effect.flatMap(start(), (started) => {
      const target = started === undefined ? state.roomTarget() : undefined
      const plan = started ?? (target === undefined ? undefined : room(target))
      return plan === undefined ? Effect.succeed(false) : Effect.as(fold(core, summarizer, plan), true)
    })
  )
  const attempt = settings.retry === undefined ? once : Effect.retry(once, settings.retry)

  // Folds while the core says so; `running` turns false in the step of the last check.
  const loop: Effect.Effect<void> = Effect.suspend(function next(): Effect.Effect<void> {
    return Effect.flatMap(Effect.exit(attempt), (exit) => {
      if (Exit.isFailure(exit)) {
        state.afterFailure(Option.getOrUndefined(Cause.findErrorOption(exit.cause)))
        return Effect.void
      }
      return state.afterFold(exit.value) ? next() : Effect.void
    })
  }).pipe(Effect.onInterrupt(() => Effect.sync(() => state.interrupted())))

  // Started when it runs: an add interrupted before that leaves no loop marked running.
  const launch: Effect.Effect<void> = Effect.suspend(() =>
    // its folds' spans are roots linked to this add's span (docs/contract.md section 11)
    state.launch() ? Effect.asVoid(Effect.forkIn(linkedToCaller(loop), settings.scope)) : Effect.void
  )

  const afterAppend = (): Effect.Effect<void> => state.due() ? launch : Effect.void

  // Appends at once unless held back (others already wait, or it would pass the cap while a fold can help).
  const admit: Admit = (counted, append, then) => {
    let weight = 0
    for (const c of counted) weight += weightOf(c.message, c.tokens)
    if (state.admitsNow(weight)) {
      append()
      return then()
    }
    const waited = Deferred.makeUnsafe<void, AddError>()
    const held: Held<AddError> = {
      weight,
      append,
      settle: (outcome) => Deferred.doneUnsafe(waited, outcome === undefined ? Exit.void : Exit.fail(outcome.error))
    }
    state.hold(held)
    // an add interrupted while held back appended nothing
    const waiting = Effect.onInterrupt(Deferred.await(waited), () => Effect.sync(() => state.release(held)))
    return state.running ? waiting : Effect.andThen(launch, waiting)
  }

  return {
    admit,
    afterAppend,
    lastFailure: Effect.sync(() => Option.fromNullishOr(state.failure)),
    register: Scope.addFinalizer(settings.scope, Effect.sync(() => state.close())),
    // a clear empties the buffer: the held-back adds that now fit go in at once, oldest first (the fold
    // in flight is discarded when it returns)
    afterClear: () => state.admit()
  }
}
