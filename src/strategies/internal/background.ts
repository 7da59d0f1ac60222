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
import { Folding, type Held } from "../../core/background.js"
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

/**
 * Builds the background folder of a RollingMemory whose trigger is
 * `index.needsPrune(policy)`, whose prune begins with `start` (a plan, or
 * `undefined` when the trigger no longer holds or nothing is evicted), and
 * whose pinned messages weigh nothing against the budget (`pinned`). Its
 * decisions are `core/background.ts`'s; this shell runs the folds and
 * settles the held-back adds.
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
  const state = new Folding<AddError>(index, policy, settings.hardMax)

  // One prune: start (re-checking the trigger), or else the fold that makes room under the cap for the
  // oldest held-back add (never the newest unit, docs/contract.md section 5.1), then fold; a failure aborts
  // the plan (fold's own onExit).
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
        state.afterFailure(Option.getOrUndefined(Cause.failureOption(exit.cause)))
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

  const afterAppend = (): Step => state.due() ? launch : done

  // Appends at once unless held back (others already wait, or it would pass the cap while a fold can help).
  const admitted = (weight: number, append: () => void): Step => {
    if (state.admitsNow(weight)) {
      append()
      return afterAppend()
    }
    const waited = Deferred.unsafeMake<void, AddError>(FiberId.none)
    const held: Held<AddError> = {
      weight,
      append,
      settle: (outcome) => Deferred.unsafeDone(waited, outcome === undefined ? Exit.void : Exit.fail(outcome.error))
    }
    state.hold(held)
    // an add interrupted while held back appended nothing
    const waiting = Effect.onInterrupt(Deferred.await(waited), () => Effect.sync(() => state.release(held)))
    return state.running ? waiting : Effect.zipRight(launch, waiting)
  }

  const entryWeight = (message: Message.Message, tokens: number): { entry: Entry; weight: number } => {
    const entry = entryOf(message, tokens)
    return { entry, weight: pinned(entry) ? 0 : tokens }
  }

  // A clear empties the buffer: the held-back adds that now fit go in at once, oldest first (the fold in
  // flight is discarded when it returns).
  core.afterClear = () => state.admit()

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
    lastFailure: Effect.sync(() => Option.fromNullable(state.failure)),
    register: Scope.addFinalizer(settings.scope, Effect.sync(() => state.close()))
  }
}
