/**
 * Background folding (docs/contract.md section 5.1): an add returns once its
 * turn is counted and appended; folds run one at a time in a fiber owned by
 * the memory's `Scope`, each starting (re-checking its trigger, clearing,
 * planning) when it runs, as a locked fold does. The buffer may pass the
 * budget meanwhile, never the hard cap: an add that would pass it is held
 * back, counted but not appended, until a fold makes room (back-pressure;
 * when no fold is due by the budget, one starts to make that room);
 * held-back adds are appended in arrival order. An add whose turn alone is
 * over the cap is not held back (no fold could make room). When the folds
 * fail after their retries, or can evict nothing more, the held-back turns
 * are appended anyway (nothing is lost) and their adds get the fold's error.
 * A `clear` lets in at once the held-back adds that then fit.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import type * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import type { Entry, Plan, Policy } from "../../core/eviction.js"
import type { AddError, TokenCountError } from "../../Errors.js"
import type * as Message from "../../schema/Message.js"
import type * as Summarizer from "../../services/Summarizer.js"
import { type Core, counting, countingMany, done, entryOf, fold, type Step } from "./core.js"
import { linkedToCaller } from "./observe.js"

/** The checked background settings of a memory. @internal */
export interface Background {
  readonly scope: Scope.Scope
  /** The hard cap, in the budget's measure (default twice the budget). */
  readonly hardMax: number
  /** How a failed fold is retried before it is given up (default: not retried). */
  readonly retry: Schedule.Schedule<unknown, AddError> | undefined
}

/** What a background folder gives its memory. @internal */
export interface BackgroundFolder {
  /** An add's step: count, wait for room if it would pass the hard cap, append, start a fold if due. */
  readonly step: (message: Message.Message) => Step
  /** The same for several messages, admitted and appended together. */
  readonly stepMany: (messages: ReadonlyArray<Message.Message>) => Step
  /** The error of the last background fold that failed after its retries, until a fold commits. */
  readonly lastFailure: Effect.Effect<Option.Option<AddError>>
  /** Registers, on the memory's scope, what its closing does: no fold starts after. */
  readonly register: Effect.Effect<void>
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
 * `undefined` when the trigger no longer holds or nothing is evicted), and
 * whose pinned messages weigh nothing against the budget (`pinned`).
 *
 * @internal
 */
export const backgroundFolder = (
  core: Core,
  summarizer: Summarizer.Service,
  policy: Policy,
  start: () => Effect.Effect<Plan<Message.Message> | undefined, TokenCountError>,
  pinned: (entry: Entry) => boolean,
  settings: Background,
  room: (target: number) => Plan<Message.Message> | undefined
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
  const admit = (all: Exit.Exit<void, AddError> | undefined): void => {
    while (queue.length > 0 && (all !== undefined || !wouldPass(queue[0].weight))) {
      const next = queue.shift()!
      next.append()
      Deferred.unsafeDone(next.done, all ?? Exit.void)
    }
  }

  // The fold that makes room under the cap for the oldest held-back add when the budget's trigger does not
  // hold (the buffer within the budget, the add too heavy for what is left under the cap): down to the
  // target, or lower so that the add fits; never the newest unit (docs/contract.md section 5.1).
  const roomPlan = (): Plan<Message.Message> | undefined =>
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
        const error = Cause.failureOption(exit.cause)
        if (Option.isSome(error)) failure = error.value
        // the held-back turns are appended (nothing is lost) and their adds fail with the fold's error
        admit(Option.isSome(error) ? Exit.fail(error.value) : Exit.void)
        return Effect.void
      }
      if (exit.value) failure = undefined
      admit(undefined)
      if (!closed && exit.value && (index.needsPrune(policy) || (queue.length > 0 && wouldPass(queue[0].weight)))) {
        return next()
      }
      // nothing more to fold now: the held-back adds go in (and may start another round)
      if (queue.length > 0) {
        admit(Exit.void)
        if (!closed && index.needsPrune(policy)) return next()
      }
      running = false
      return Effect.void
    })
  }).pipe(Effect.onInterrupt(() =>
    Effect.sync(() => {
      running = false
      admit(Exit.void)
    })
  ))

  // Started when it runs: an add interrupted before that leaves no loop marked running.
  const launch: Effect.Effect<void> = Effect.suspend(() => {
    if (running || closed) return Effect.void
    running = true
    // its folds' spans are roots linked to this add's span (docs/contract.md section 11)
    return Effect.asVoid(Effect.forkIn(linkedToCaller(loop), settings.scope))
  })

  const afterAppend = (): Step => !closed && !running && index.needsPrune(policy) ? launch : done

  // Appends at once unless held back (others already wait, or it would pass the cap while a fold can help).
  const admitted = (weight: number, append: () => void): Step => {
    if (closed || (queue.length === 0 && !wouldPass(weight))) {
      append()
      return afterAppend()
    }
    const entry: Queued = { weight, append, done: Deferred.unsafeMake<void, AddError>(FiberId.none) }
    queue.push(entry)
    const waiting = Effect.onInterrupt(Deferred.await(entry.done), () =>
      Effect.sync(() => {
        // an add interrupted while held back appended nothing
        const at = queue.indexOf(entry)
        if (at >= 0) queue.splice(at, 1)
      }))
    return running ? waiting : Effect.zipRight(launch, waiting)
  }

  const entryWeight = (message: Message.Message, tokens: number): { entry: Entry; weight: number } => {
    const entry = entryOf(message, tokens)
    return { entry, weight: pinned(entry) ? 0 : tokens }
  }

  // A clear empties the buffer: the held-back adds that now fit go in at once, oldest first (the fold in
  // flight is discarded when it returns).
  core.afterClear = () => admit(undefined)

  return {
    step: counting(core.counter, (message, tokens): Step => {
      const { entry, weight } = entryWeight(message, tokens)
      return admitted(weight, () => index.append(message, entry))
    }, core.maxToolResultTokens),
    stepMany: countingMany(core.counter, (messages, tokens): Step => {
      if (messages.length === 0) return done
      const entries = messages.map((m, i) => entryWeight(m, tokens[i]))
      const weight = entries.reduce((sum, e) => sum + e.weight, 0)
      return admitted(weight, () => {
        for (let i = 0; i < messages.length; i++) index.append(messages[i], entries[i].entry)
      })
    }, core.maxToolResultTokens),
    lastFailure: Effect.sync(() => Option.fromNullable(failure)),
    register: Scope.addFinalizer(
      settings.scope,
      Effect.sync(() => {
        closed = true
        running = false
        admit(Exit.void)
      })
    )
  }
}
