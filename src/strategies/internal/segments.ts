/**
 * Summary segments (`summary: "segments"`, docs/contract.md section 10.9):
 * the summary as append-only segments. A fold asks the summarizer for the
 * new segment alone (`request.mode: "segment"`, the earlier segments as
 * context) and appends it; when the segments together pass
 * `maxSummaryTokens`, one more call (`"consolidate"`) replaces them all with
 * one. Each segment is counted once, when it is made (or restored); nothing
 * is committed unless every call of the fold succeeded.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { Plan } from "../../core/eviction.js"
import { hasContent } from "../../core/fold.js"
import * as Loops from "../../core/loops.js"
import { type AddError, SummarizerError, SummaryBudgetError } from "../../Errors.js"
import { SEGMENT_SEPARATOR } from "../../schema/MemoryState.js"
import * as Message from "../../schema/Message.js"
import type * as Summarizer from "../../services/Summarizer.js"
import { archiveThen, chunksOf, type Core, countText, flatMapNow, mapNow, type SummaryRole } from "./core.js"
import { driveChunks } from "./drive.js"

/**
 * A memory's segments, replaced whole by each commit (so a fold that fails
 * changes nothing): their texts, oldest first, each one's count, and the
 * messages they read back as.
 *
 * @internal
 */
export interface Segments {
  readonly texts: ReadonlyArray<string>
  readonly tokens: ReadonlyArray<number>
  /** One `system` message per segment, or one `user` message holding them all (`summaryRole: "user"`). */
  readonly messages: ReadonlyArray<Message.Message>
}

/** No segment yet. @internal */
export const noSegments: Segments = { texts: [], tokens: [], messages: [] }

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
): Segments => {
  if (texts.length === 0) return noSegments
  if (role === "user") return { texts, tokens, messages: [Message.user(texts.join(SEGMENT_SEPARATOR))] }
  const messages: Array<Message.Message> = []
  for (let i = 0; i < texts.length; i++) {
    const kept = previous.texts[i] === texts[i] && i < previous.messages.length ? previous.messages[i] : undefined
    messages.push(kept ?? Message.system(texts[i]))
  }
  return { texts, tokens, messages }
}

const sum = (tokens: ReadonlyArray<number>): number => {
  let total = 0
  for (let i = 0; i < tokens.length; i++) total += tokens[i]
  return total
}

/**
 * The budget a segment call is given: the room the earlier segments leave
 * in `maxSummaryTokens`, at least half of it (so a segment is never asked
 * for nothing; the consolidation then brings the whole back within it).
 *
 * @internal
 */
export const segmentBudget = (max: number | undefined, used: number): number | undefined =>
  max === undefined ? undefined : Math.max(max - used, Math.ceil(max / 2))

/**
 * The budget a consolidation is given: half of `maxSummaryTokens`, so that
 * the next segments have room before the next consolidation (one that
 * filled the budget would be followed by another at the next fold).
 *
 * @internal
 */
export const consolidationBudget = (max: number): number => Math.ceil(max / 2)

/** A summarizer call as a fold makes it: an `Exit` when the summarizer answers at once. */
type Call = (
  summary: string,
  messages: ReadonlyArray<Message.Message>,
  request: Summarizer.Request
) => Effect.Effect<string, SummarizerError>

const nonString = (): SummarizerError => new SummarizerError({ description: "summarizer returned a non-string" })

interface Made {
  readonly text: string
  readonly tokens: number
}

/**
 * A fold in segments mode (docs/contract.md section 10.9), under the prune
 * lock or in the add's step: one segment call per chunk (one without
 * `maxSummarizerInputTokens`), each given the segments before it; then, when
 * the segments pass `maxSummaryTokens`, one consolidation; then the commit
 * (unless `clear` or another fold came first). A failure commits nothing;
 * when a later chunk fails, the chunks before it commit as one fold
 * (`narrowed` is told the plan now pending), and the add fails with the
 * chunk's error. The caller aborts the pending plan on failure.
 *
 * @internal
 */
export const foldSegments = (
  core: Core,
  call: Call,
  plan: Plan<Message.Message>,
  narrowed: (plan: Plan<Message.Message>) => void
): Effect.Effect<void, AddError> => {
  const generation = core.generation
  const start = core.segments ?? noSegments
  const request = core.compactRequest ?? core.request
  const max = core.maxSummaryTokens
  const count = countText(core.counter)
  const chunks = chunksOf(core, plan)
  const parts = chunks ?? [{ messages: plan.messages, units: plan.units.length }]

  const segment = (
    texts: ReadonlyArray<string>,
    tokens: ReadonlyArray<number>,
    messages: ReadonlyArray<Message.Message>
  ): Effect.Effect<Made | undefined, AddError> =>
    flatMapNow(
      call(texts.join(SEGMENT_SEPARATOR), messages, {
        ...request,
        mode: "segment",
        segments: texts,
        maxSummaryTokens: segmentBudget(max, sum(tokens))
      }),
      (text): Effect.Effect<Made | undefined, AddError> => {
        if (typeof text !== "string") return Exit.fail(nonString())
        // an empty segment adds nothing: refused for turns with content (docs/contract.md section 5)
        if (text.trim() === "") {
          return messages.some(hasContent)
            ? Exit.fail(
              new SummarizerError({
                description: "summarizer returned an empty segment for evicted turns with content: nothing committed"
              })
            )
            : Exit.succeed(undefined)
        }
        return mapNow(count(text), (n) => ({ text, tokens: n }))
      }
    )

  const finish = (
    folded: Plan<Message.Message>,
    texts: ReadonlyArray<string>,
    tokens: ReadonlyArray<number>
  ): Effect.Effect<void, AddError> => {
    if (max === undefined || sum(tokens) <= max) {
      return archiveThen(core, generation, folded, () => commitSegments(core, generation, folded, texts, tokens))
    }
    return flatMapNow(
      call(texts.join(SEGMENT_SEPARATOR), noMessages, {
        ...request,
        mode: "consolidate",
        segments: texts,
        maxSummaryTokens: consolidationBudget(max)
      }),
      (text): Effect.Effect<void, AddError> => {
        if (typeof text !== "string") return Exit.fail(nonString())
        if (text.trim() === "") {
          return Exit.fail(
            new SummarizerError({
              description:
                "summarizer returned an empty consolidation of segments that were not empty: nothing committed"
            })
          )
        }
        return flatMapNow(count(text), (n): Effect.Effect<void, AddError> => {
          if (n > max) return Exit.fail(new SummaryBudgetError({ tokens: n, maxSummaryTokens: max }))
          return archiveThen(core, generation, folded, () => commitSegments(core, generation, folded, [text], [n]))
        })
      }
    )
  }

  interface Folded {
    readonly texts: ReadonlyArray<string>
    readonly tokens: ReadonlyArray<number>
  }
  return driveChunks(
    Loops.foldChunks<Message.Message, Folded>(core.index, plan, parts, { texts: start.texts, tokens: start.tokens }),
    (ask) =>
      mapNow(
        segment(ask.state.texts, ask.state.tokens, ask.messages),
        (made): Folded =>
          made === undefined
            ? ask.state
            : { texts: [...ask.state.texts, made.text], tokens: [...ask.state.tokens, made.tokens] }
      ),
    (end, error): Effect.Effect<void, AddError> => {
      if (end === undefined) return Exit.fail(error!)
      if (!end.failed) return finish(end.plan, end.state.texts, end.state.tokens)
      narrowed(end.plan)
      return flatMapNow(finish(end.plan, end.state.texts, end.state.tokens), () => Exit.fail(error!))
    }
  )
}

const noMessages: ReadonlyArray<Message.Message> = []

/**
 * Stores a fold's segments unless `clear` or another fold committed since it
 * started: the segments, the summary (their join) and its count (their
 * counts' sum; nothing is counted again). Run through `core.ts`
 * `archiveThen`: what the commit takes out of the buffer is archived first
 * (docs/contract.md section 17).
 */
const commitSegments = (
  core: Core,
  generation: number,
  plan: Plan<Message.Message>,
  texts: ReadonlyArray<string>,
  tokens: ReadonlyArray<number>
): void => {
  if (core.generation === generation && core.index.commit(plan)) {
    core.generation++
    core.segments = segmentsOf(texts, tokens, core.summaryRole, core.segments)
    core.summary = texts.join(SEGMENT_SEPARATOR)
    core.summaryTokens = sum(tokens)
  }
}

/**
 * The segments a restored state gives a memory in segments mode: its
 * `segments`, or its summary as one segment (a state written without
 * segments), each counted once.
 *
 * @internal
 */
export const restoredTexts = (
  state: { readonly summary: string; readonly segments?: ReadonlyArray<string> | undefined }
): ReadonlyArray<string> => state.segments ?? (state.summary === "" ? [] : [state.summary])

/** The sum of a restored state's segment counts. @internal */
export const totalOf = sum
