/**
 * Summary segments (`summary: "segments"`, docs/contract.md section 10.9) on
 * the Effect 3 line: the shell of the pure core's fold in segments
 * (`core/segments.ts`), which makes every decision (budgets, texts,
 * consolidation, refusals). This module answers its summarizer calls and
 * counts (at once while each answer is an `Exit`, so a synchronous fold
 * stays one step) and commits what it says.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { Plan } from "../../core/eviction.js"
import * as Core from "../../core/segments.js"
import { type AddError, SummarizerError, SummaryBudgetError } from "../../Errors.js"
import * as Message from "../../schema/Message.js"
import type * as Summarizer from "../../services/Summarizer.js"
import { archiveThen, chunksOf, type Core as MemoryCore, countText, flatMapNow, type SummaryRole } from "./core.js"
import { matchNow } from "./drive.js"

/**
 * A memory's segments (`core/segments.ts` `Segments`), read back as this
 * line's messages.
 *
 * @internal
 */
export type Segments = Core.Segments<Message.Message>

/** No segment yet. @internal */
export const noSegments: Segments = Core.noSegments

const make = (role: SummaryRole, text: string): Message.Message =>
  role === "user" ? Message.user(text) : Message.system(text)

/**
 * The segments of `texts` with their counts, read back with `role`; the
 * messages of `previous` that hold the same leading texts are kept (the same
 * objects from one fold to the next).
 *
 * @internal
 */
export const segmentsOf = (
  texts: ReadonlyArray<string>,
  tokens: ReadonlyArray<number>,
  role: SummaryRole,
  previous: Segments = noSegments
): Segments => Core.segmentsOf(texts, tokens, role, make, previous)

/** A summarizer call as a fold makes it: an `Exit` when the summarizer answers at once. */
type Call = (
  summary: string,
  messages: ReadonlyArray<Message.Message>,
  request: Summarizer.Request
) => Effect.Effect<string, SummarizerError>

const nonString = (): SummarizerError => new SummarizerError({ description: "summarizer returned a non-string" })

const checkString = (text: string): Effect.Effect<string, SummarizerError> =>
  typeof text !== "string" ? Exit.fail(nonString()) : Exit.succeed(text)

/**
 * A fold in segments mode (docs/contract.md section 10.9, `core/segments.ts`
 * `foldSegments`), under the prune lock or in the add's step: each call and
 * count the core asks for answered with `call` and the memory's counter;
 * then the commit (unless `clear` or another fold came first). A failure
 * commits nothing; when a later chunk fails, the chunks before it commit as
 * one fold (`narrowed` is told the plan now pending), and the add fails
 * with the chunk's error. The caller aborts the pending plan on failure.
 *
 * @internal
 */
export const foldSegments = (
  core: MemoryCore,
  call: Call,
  plan: Plan<Message.Message>,
  narrowed: (plan: Plan<Message.Message>) => void
): Effect.Effect<void, AddError> => {
  const generation = core.generation
  const start = core.segments ?? noSegments
  const request = core.compactRequest ?? core.request
  const count = countText(core.counter)
  const parts = chunksOf(core, plan) ?? [{ messages: plan.messages, units: plan.units.length }]
  const folding = Core.foldSegments(core.index, plan, parts, start, core.maxSummaryTokens, narrowed)
  // the error of the last answer that failed: the core's Failure "Answer"
  let failed: AddError | undefined
  const errorOf = (failure: Core.Failure): AddError =>
    failure._tag === "Answer"
      ? failed!
      : failure._tag === "Refused"
      ? new SummarizerError({ description: failure.description })
      : new SummaryBudgetError({ tokens: failure.tokens, maxSummaryTokens: failure.maxSummaryTokens })
  const answer = (ask: Core.Ask<Message.Message>): Effect.Effect<string | number, AddError> =>
    ask._tag === "Count" ? count(ask.text) : flatMapNow(
      call(ask.summary, ask.messages, {
        ...request,
        mode: ask.mode,
        segments: ask.segments,
        maxSummaryTokens: ask.maxSummaryTokens
      }),
      checkString
    )
  const end = (outcome: Core.Outcome<Message.Message>): Effect.Effect<void, AddError> => {
    if (outcome._tag === "Fail") return Exit.fail(errorOf(outcome.failure))
    const then = outcome.then === undefined ? undefined : errorOf(outcome.then)
    const committed = archiveThen(
      core,
      generation,
      outcome.plan,
      () => commitSegments(core, generation, outcome.plan, outcome.texts, outcome.tokens)
    )
    return then === undefined ? committed : flatMapNow(committed, () => Exit.fail(then))
  }
  const from = (
    step: IteratorResult<Core.Ask<Message.Message>, Core.Outcome<Message.Message>>
  ): Effect.Effect<void, AddError> =>
    step.done === true ? end(step.value) : matchNow(
      answer(step.value),
      (error) => {
        failed = error
        return from(folding.next(undefined))
      },
      (value) => from(folding.next(value))
    )
  return from(folding.next())
}

/**
 * Stores a fold's segments unless `clear` or another fold committed since it
 * started: the segments, the summary (their join) and its count (their
 * counts' sum; nothing is counted again). Run through `core.ts`
 * `archiveThen`: what the commit takes out of the buffer is archived first
 * (docs/contract.md section 17).
 */
const commitSegments = (
  core: MemoryCore,
  generation: number,
  plan: Plan<Message.Message>,
  texts: ReadonlyArray<string>,
  tokens: ReadonlyArray<number>
): void => {
  if (core.generation === generation && core.index.commit(plan)) {
    core.generation++
    core.segments = segmentsOf(texts, tokens, core.summaryRole, core.segments)
    core.summary = Core.join(texts)
    core.summaryTokens = Core.totalOf(tokens)
  }
}

/**
 * The segments a restored state gives a memory in segments mode
 * (`core/segments.ts` `restoredTexts`).
 *
 * @internal
 */
export const restoredTexts = Core.restoredTexts

/** The sum of a restored state's segment counts. @internal */
export const totalOf = Core.totalOf
