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
import { Cause, Deferred, Effect, Exit, Option, type Schedule, Scope } from "effect"
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

/** An add held back by the hard cap: its weight, what appends it, and what it awaits. */
interface Queued {
  readonly weight: number
  readonly append: () => void
  readonly done: Deferred.Deferred<void, AddError>
}

/**
 * Builds the background folder of a RollingMemory whose trigger is
 * `index.needsPrune(policy)`, whose prune begins with `start` (a plan, or
 * `undefined` when the trigger no longer holds or nothing is evicted), whose
 * pinned messages weigh nothing against the budget (`weightOf`), and whose
 * room-making plan down to a target is `room`.
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
  const index = core.index
  let running = false
  let closed = false
  let failure: AddError | undefined
  // Adds held back by the hard cap, in arrival order: admitted oldest first.
  const queue: Array<Queued> = []

  // Would `weight` more pass the cap, where a fold could make room? (Not when the unit alone is over it.)
  const wouldPass = (weight: number): boolean => {
    const measure = index.measure(policy.measure)
    return weight > 0 && measure > 0 && measure + weight > settings.hardMax && weight <= settings.hardMax
  }

  // Appends the queued adds that now fit, oldest first; with `all`, every one (the folds can do no more).
  const admitQueued = (all: Exit.Exit<void, AddError> | undefined): void => {
    while (queue.length > 0 && (all !== undefined || !wouldPass(queue[0].weight))) {
      const next = queue.shift()!
      next.append()
      Deferred.doneUnsafe(next.done, all ?? Exit.void)
    }
  }

  // The fold that makes room under the cap for the oldest held-back add when the budget's trigger does not
  // hold: down to the target, or lower so that the add fits; never the newest unit (section 5.1).
  const roomPlan = (): Plan<Message> | undefined =>
    queue.length > 0 && wouldPass(queue[0].weight)
      ? room(Math.min(policy.target, settings.hardMax - queue[0].weight))
      : undefined

  // One prune: start (re-checking the trigger), then fold; a failure aborts the plan (fold's own onExit).
  const once: Effect.Effect<boolean, AddError> = Effect.suspend(() =>
    Effect.flatMap(start(), (started) => {
      const plan = started ?? roomPlan()
      return plan === undefined ? Effect.succeed(false) : Effect.as(fold(core, summarizer, plan), true)
    })
  )
  const attempt = settings.retry === undefined ? once : Effect.retry(once, settings.retry)

  // Folds while the trigger holds; `running` turns false in the step of the last check.
  const loop: Effect.Effect<void> = Effect.suspend(function next(): Effect.Effect<void> {
    return Effect.flatMap(Effect.exit(attempt), (exit) => {
      if (Exit.isFailure(exit)) {
        running = false
        const error = Cause.findErrorOption(exit.cause)
        if (Option.isSome(error)) failure = error.value
        // the held-back turns are appended (nothing is lost) and their adds fail with the fold's error
        admitQueued(Option.isSome(error) ? Exit.fail(error.value) : Exit.void)
        return Effect.void
      }
      if (exit.value) failure = undefined
      admitQueued(undefined)
      if (!closed && exit.value && (index.needsPrune(policy) || (queue.length > 0 && wouldPass(queue[0].weight)))) {
        return next()
      }
      // nothing more to fold now: the held-back adds go in (and may start another round)
      if (queue.length > 0) {
        admitQueued(Exit.void)
        if (!closed && index.needsPrune(policy)) return next()
      }
      running = false
      return Effect.void
    })
  }).pipe(Effect.onInterrupt(() =>
    Effect.sync(() => {
      running = false
      admitQueued(Exit.void)
    })
  ))

  // Started when it runs: an add interrupted before that leaves no loop marked running.
  const launch: Effect.Effect<void> = Effect.suspend(() => {
    if (running || closed) return Effect.void
    running = true
    // its folds' spans are roots linked to this add's span (docs/contract.md section 11)
    return Effect.asVoid(Effect.forkIn(linkedToCaller(loop), settings.scope))
  })

  const afterAppend = (): Effect.Effect<void> => !closed && !running && index.needsPrune(policy) ? launch : Effect.void

  // Appends at once unless held back (others already wait, or it would pass the cap while a fold can help).
  const admit: Admit = (counted, append, then) => {
    let weight = 0
    for (const c of counted) weight += weightOf(c.message, c.tokens)
    if (closed || (queue.length === 0 && !wouldPass(weight))) {
      append()
      return then()
    }
    const entry: Queued = { weight, append, done: Deferred.makeUnsafe<void, AddError>() }
    queue.push(entry)
    const waiting = Effect.onInterrupt(Deferred.await(entry.done), () =>
      Effect.sync(() => {
        // an add interrupted while held back appended nothing
        const at = queue.indexOf(entry)
        if (at >= 0) queue.splice(at, 1)
      }))
    return running ? waiting : Effect.andThen(launch, waiting)
  }

  return {
    admit,
    afterAppend,
    lastFailure: Effect.sync(() => Option.fromNullishOr(failure)),
    register: Scope.addFinalizer(
      settings.scope,
      Effect.sync(() => {
        closed = true
        running = false
        admitQueued(Exit.void)
      })
    ),
    // a clear empties the buffer: the held-back adds that now fit go in at once, oldest first (the fold
    // in flight is discarded when it returns)
    afterClear: () => admitQueued(undefined)
  }
}
