/**
 * The Effect 3 shell's drivers of the pure core's loops (`core/loops.ts`):
 * a {@link Counting} answered with the memory's counter, a fold in chunks
 * answered with the summarizer. Each runs in the current step while every
 * answer is an `Exit` (a counter or summarizer that answers at once), so a
 * synchronous add stays one step; it suspends only on an answer that is an
 * effect. The decisions are the core's.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { ChunkAsk, ChunksEnd, Counting } from "../../core/loops.js"
import type { TokenCountError } from "../../Errors.js"
import { countNow, countSyncOf } from "../../services/internal/counting.js"
import type * as TokenCounter from "../../services/TokenCounter.js"

/** How a loop's texts are counted: at once when the counter can, else through its effect. @internal */
export interface Recount {
  readonly sync: ((text: string) => number | TokenCountError) | undefined
  readonly effect: (text: string) => Effect.Effect<number, TokenCountError>
}

/** The {@link Recount} of a counter: its checked `countSync` when it has one. @internal */
export const recountOf = (counter: TokenCounter.Service): Recount => ({
  sync: countSyncOf(counter),
  effect: (text) => countNow(counter, text)
})

/**
 * Runs a core {@link Counting} with `recount`: an `Exit` when every count is
 * made at once, else the effect that counts the rest. A failed count fails
 * with its `TokenCountError` (the loop is left where it was: the caller
 * undoes what it started).
 *
 * @internal
 */
export const driveCounting = <R>(counting: Counting<R>, recount: Recount): Effect.Effect<R, TokenCountError> => {
  const sync = recount.sync
  const from = (step: IteratorResult<string, R>): Effect.Effect<R, TokenCountError> => {
    while (step.done !== true) {
      if (sync === undefined) return Effect.flatMap(recount.effect(step.value), (n) => from(counting.next(n)))
      const n = sync(step.value)
      if (typeof n !== "number") return Exit.fail(n)
      step = counting.next(n)
    }
    return Exit.succeed(step.value)
  }
  return from(counting.next())
}

/** `Effect.matchEffect`, applied at once when `self` is an `Exit` (only a typed failure is matched). @internal */
export const matchNow = <A, E, B, E2>(
  self: Effect.Effect<A, E>,
  onFailure: (error: E) => Effect.Effect<B, E2>,
  onSuccess: (a: A) => Effect.Effect<B, E2>
): Effect.Effect<B, E | E2> => {
  if (!Exit.isExit(self)) return Effect.matchEffect(self, { onFailure, onSuccess })
  const exit = self as Exit.Exit<A, E>
  if (Exit.isSuccess(exit)) return onSuccess(exit.value)
  const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  return failure === undefined ? Exit.failCause(exit.cause) : onFailure(failure)
}

/**
 * Runs a core fold in chunks (`core/loops.ts` `foldChunks`): each chunk
 * folded by `step` (at once when it gives an `Exit`); then `end` with how
 * the fold ended and, when a chunk failed, its error (`end` commits what
 * the core says and fails with the error).
 *
 * @internal
 */
export const driveChunks = <A, S, E, E2>(
  chunks: Generator<ChunkAsk<A, S>, ChunksEnd<A, S>, { readonly state: S } | undefined>,
  step: (ask: ChunkAsk<A, S>) => Effect.Effect<S, E>,
  end: (end: ChunksEnd<A, S>, error: E | undefined) => Effect.Effect<void, E | E2>
): Effect.Effect<void, E | E2> => {
  const from = (next: IteratorResult<ChunkAsk<A, S>, ChunksEnd<A, S>>): Effect.Effect<void, E | E2> => {
    if (next.done === true) return end(next.value, undefined)
    return matchNow(
      step(next.value),
      (error) => {
        const ended = chunks.next(undefined)
        return end(ended.done === true ? ended.value : undefined, error)
      },
      (state) => from(chunks.next({ state }))
    )
  }
  return from(chunks.next())
}
