/**
 * Summary segments (`summary: "segments"`, docs/contract.md section 10.9),
 * once for both lines (pure, no `effect` import): the summary as
 * append-only segments. A fold asks the summarizer for the new segment
 * alone (`request.mode: "segment"`, the earlier segments as context) and
 * appends it; when the segments together pass `maxSummaryTokens`, one more
 * call (`"consolidate"`) replaces them all with one. Each segment is
 * counted once, when it is made (or restored); nothing is committed unless
 * every call of the fold succeeded.
 *
 * A fold is written as a generator ({@link foldSegments}) that asks its
 * shell for each summarizer call and each count ({@link Ask}) and returns
 * what to commit or how the fold fails ({@link Outcome}); the Effect 3 shell
 * drives it in one synchronous step while every answer is at hand, the
 * Effect 4 shell in `Effect.gen`. The decisions (budgets, which texts, when
 * to consolidate, which results are refused) are this module's.
 *
 * @since 0.4.0
 */
import type { Chunk, EvictionIndex, Plan } from "./eviction.js"
import { hasContent } from "./fold.js"
import { foldChunks } from "./loops.js"
import { SEGMENT_SEPARATOR } from "./state.js"

/**
 * A memory's segments, replaced whole by each commit (so a fold that fails
 * changes nothing): their texts, oldest first, each one's count, and the
 * messages `A` (the line's `Message`) they read back as.
 *
 * @since 0.4.0
 */
export interface Segments<A> {
  readonly texts: ReadonlyArray<string>
  readonly tokens: ReadonlyArray<number>
  /** One `system` message per segment, or one `user` message holding them all (`summaryRole: "user"`). */
  readonly messages: ReadonlyArray<A>
}

/** No segment yet. @since 0.4.0 */
export const noSegments: Segments<never> = { texts: [], tokens: [], messages: [] }

/**
 * The summary segments read back as (and the state's `summary`): their
 * texts joined with a blank line (`SEGMENT_SEPARATOR`), `""` without any.
 *
 * @since 0.4.0
 */
export const join = (texts: ReadonlyArray<string>): string => texts.join(SEGMENT_SEPARATOR)

/**
 * The segments of `texts` with their counts, read back with `role` (one
 * message per segment made by `make`, or one `user` message holding their
 * join); the messages of `previous` that hold the same leading texts are
 * kept (the same objects from one fold to the next).
 *
 * @since 0.4.0
 */
export const segmentsOf = <A>(
  texts: ReadonlyArray<string>,
  tokens: ReadonlyArray<number>,
  role: "system" | "user",
  make: (role: "system" | "user", text: string) => A,
  previous: Segments<A> = noSegments
): Segments<A> => {
  if (texts.length === 0) return noSegments
  if (role === "user") return { texts, tokens, messages: [make("user", join(texts))] }
  const messages: Array<A> = []
  for (let i = 0; i < texts.length; i++) {
    const kept = previous.texts[i] === texts[i] && i < previous.messages.length ? previous.messages[i] : undefined
    messages.push(kept ?? make("system", texts[i]))
  }
  return { texts, tokens, messages }
}

/** The sum of segment counts: a memory's `summaryTokens` with segments. @since 0.4.0 */
export const totalOf = (tokens: ReadonlyArray<number>): number => {
  let total = 0
  for (let i = 0; i < tokens.length; i++) total += tokens[i]
  return total
}

/**
 * The budget a segment call is given: the room the earlier segments leave
 * in `maxSummaryTokens`, at least half of it (so a segment is never asked
 * for nothing; the consolidation then brings the whole back within it).
 *
 * @since 0.4.0
 */
export const segmentBudget = (max: number | undefined, used: number): number | undefined =>
  max === undefined ? undefined : Math.max(max - used, Math.ceil(max / 2))

/**
 * The budget a consolidation is given: half of `maxSummaryTokens`, so that
 * the next segments have room before the next consolidation (one that
 * filled the budget would be followed by another at the next fold).
 *
 * @since 0.4.0
 */
export const consolidationBudget = (max: number): number => Math.ceil(max / 2)

/**
 * The segments a restored state gives a memory in segments mode: its
 * `segments`, or its summary as one segment (a state written without
 * segments); the shell counts each once.
 *
 * @since 0.4.0
 */
export const restoredTexts = (
  state: { readonly summary: string; readonly segments?: ReadonlyArray<string> | undefined }
): ReadonlyArray<string> => state.segments ?? (state.summary === "" ? [] : [state.summary])

/** The refusal of an empty segment for evicted turns with content (docs/contract.md section 10.9). @since 0.4.0 */
export const emptySegment = "summarizer returned an empty segment for evicted turns with content: nothing committed"

/** The refusal of an empty consolidation (docs/contract.md section 10.9). @since 0.4.0 */
export const emptyConsolidation =
  "summarizer returned an empty consolidation of segments that were not empty: nothing committed"

/**
 * What a fold in segments asks its shell: a summarizer call (the summary
 * argument, the messages, and the request's `mode`, `segments` and
 * `maxSummaryTokens`, the rest of the request the memory's), answered with
 * the result (a string) or `undefined` when the call failed or returned a
 * non-string; or a count, answered with the text's count or `undefined`
 * when the count failed. The shell keeps the error of the last answer that
 * failed ({@link Failure} `"Answer"`).
 *
 * @since 0.4.0
 */
export type Ask<A> =
  | {
    readonly _tag: "Summarize"
    readonly summary: string
    readonly messages: ReadonlyArray<A>
    readonly mode: "segment" | "consolidate"
    readonly segments: ReadonlyArray<string>
    readonly maxSummaryTokens: number | undefined
  }
  | { readonly _tag: "Count"; readonly text: string }

/**
 * Why a fold in segments fails: the error of the shell's last failed answer
 * (`"Answer"`), a refused result (`"Refused"`, a `SummarizerError` with the
 * description), or a consolidation over `maxSummaryTokens` (`"OverBudget"`,
 * a `SummaryBudgetError`).
 *
 * @since 0.4.0
 */
export type Failure =
  | { readonly _tag: "Answer" }
  | { readonly _tag: "Refused"; readonly description: string }
  | { readonly _tag: "OverBudget"; readonly tokens: number; readonly maxSummaryTokens: number }

/**
 * How a fold in segments ends: `"Commit"` the pending `plan` with the
 * segments `texts` and their counts (through the archive, unless `clear` or
 * another fold came first), then fail with `then` when a chunk failed after
 * the chunks the plan holds; or `"Fail"` with nothing committed (the shell
 * aborts the plan pending).
 *
 * @since 0.4.0
 */
export type Outcome<A> =
  | {
    readonly _tag: "Commit"
    readonly plan: Plan<A>
    readonly texts: ReadonlyArray<string>
    readonly tokens: ReadonlyArray<number>
    readonly then: Failure | undefined
  }
  | { readonly _tag: "Fail"; readonly failure: Failure }

/** A fold in segments: see {@link foldSegments}. @since 0.4.0 */
export type Folding<A> = Generator<Ask<A>, Outcome<A>, string | number | undefined>

interface Made {
  readonly texts: ReadonlyArray<string>
  readonly tokens: ReadonlyArray<number>
}

const answerFailed: Failure = { _tag: "Answer" }

const isFailure = (made: Made | Failure): made is Failure => "_tag" in made

const noMessages: ReadonlyArray<never> = []

/**
 * A fold in segments mode (docs/contract.md section 10.9): one segment call
 * per part (`parts`: the plan's chunks, `loops.ts` `chunksOf`, or the whole
 * plan as one), each given the segments before it (`start`'s, then the
 * earlier parts'); then, when the segments pass `max` (`maxSummaryTokens`),
 * one consolidation; then the {@link Outcome}. When a later chunk fails,
 * the chunks before it commit as one fold: `narrowed` is told the plan now
 * pending at once (the shell aborts that one if the fold then fails).
 *
 * @since 0.4.0
 */
export function* foldSegments<A extends { readonly content: string; readonly toolCalls: ReadonlyArray<unknown> }>(
  index: EvictionIndex<A>,
  plan: Plan<A>,
  parts: ReadonlyArray<Chunk<A>>,
  start: { readonly texts: ReadonlyArray<string>; readonly tokens: ReadonlyArray<number> },
  max: number | undefined,
  narrowed: (plan: Plan<A>) => void
): Folding<A> {
  const chunks = foldChunks<A, Made>(index, plan, parts, { texts: start.texts, tokens: start.tokens })
  let chunkFailure: Failure | undefined
  let step = chunks.next()
  while (step.done !== true) {
    const made = yield* segment(step.value.messages, step.value.state, max)
    if (isFailure(made)) {
      chunkFailure = made
      step = chunks.next(undefined)
    } else {
      step = chunks.next({ state: made })
    }
  }
  const end = step.value
  if (end === undefined) return { _tag: "Fail", failure: chunkFailure! }
  if (end.failed) narrowed(end.plan)
  const finished = yield* finish(end.state, max)
  if (isFailure(finished)) return { _tag: "Fail", failure: finished }
  return {
    _tag: "Commit",
    plan: end.plan,
    texts: finished.texts,
    tokens: finished.tokens,
    then: end.failed ? chunkFailure : undefined
  }
}

/** One segment call: the segments with the new one appended (none for an empty one for turns without content). */
function* segment<A extends { readonly content: string; readonly toolCalls: ReadonlyArray<unknown> }>(
  messages: ReadonlyArray<A>,
  state: Made,
  max: number | undefined
): Generator<Ask<A>, Made | Failure, string | number | undefined> {
  const text = yield {
    _tag: "Summarize",
    summary: join(state.texts),
    messages,
    mode: "segment",
    segments: state.texts,
    maxSummaryTokens: segmentBudget(max, totalOf(state.tokens))
  }
  if (typeof text !== "string") return answerFailed
  // an empty segment adds nothing: refused for turns with content (docs/contract.md section 5)
  if (text.trim() === "") return messages.some(hasContent) ? { _tag: "Refused", description: emptySegment } : state
  const tokens = yield { _tag: "Count", text }
  if (typeof tokens !== "number") return answerFailed
  return { texts: [...state.texts, text], tokens: [...state.tokens, tokens] }
}

/** The segments a fold commits: as they are within `max`, else one consolidation. */
function* finish<A>(
  made: Made,
  max: number | undefined
): Generator<Ask<A>, Made | Failure, string | number | undefined> {
  if (max === undefined || totalOf(made.tokens) <= max) return made
  const text = yield {
    _tag: "Summarize",
    summary: join(made.texts),
    messages: noMessages,
    mode: "consolidate",
    segments: made.texts,
    maxSummaryTokens: consolidationBudget(max)
  }
  if (typeof text !== "string") return answerFailed
  if (text.trim() === "") return { _tag: "Refused", description: emptyConsolidation }
  const tokens = yield { _tag: "Count", text }
  if (typeof tokens !== "number") return answerFailed
  if (tokens > max) return { _tag: "OverBudget", tokens, maxSummaryTokens: max }
  return { texts: [text], tokens: [tokens] }
}
