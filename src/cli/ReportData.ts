/**
 * What `rollmem replay --report` records while it replays: per conversation,
 * the buffer, summary and context after every add, each prune with the
 * messages it evicted, the request points whose context a strict provider
 * would reject, and the final context; then the {@link ReportDocument} the
 * page shows. Recording reads the memory after each add (an `OnAdd`
 * observer of the replay): it adds nothing and counts the summary only when
 * it changed.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import type { TokenCountError } from "../Errors.js"
import type { ConversationReport, ReportDocument, WireMessage } from "../report/Data.js"
import type * as Message from "../schema/Message.js"
import * as TokenCounter from "../services/TokenCounter.js"
import type { Conversation } from "./Input.js"
import * as Render from "./Render.js"
import type { OnAdd, Outcome } from "./Replay.js"

/**
 * A validity check of a context: one line per reason a strict chat API
 * rejects `messages`, none when it accepts them.
 *
 * @since 0.2.0
 * @category models
 */
export type Check = (messages: ReadonlyArray<Message.Message>) => ReadonlyArray<string>

/**
 * Records a replay for its report: pass {@link Recorder.onAdd} to `replay`,
 * then build the page's data with {@link Recorder.document}.
 *
 * @since 0.2.0
 * @category models
 */
export interface Recorder {
  readonly onAdd: OnAdd
  /**
   * The report of the replayed `conversations` (in input order, as given to
   * `replay`) and its outcome. `title` and `unit` are the table output's.
   */
  readonly document: (
    conversations: ReadonlyArray<Conversation>,
    outcome: Outcome,
    settings: {
      readonly title: string
      readonly unit: string
      readonly maxTokens: number | undefined
      readonly targetTokens: number | undefined
    }
  ) => ReportDocument
}

interface Recording {
  readonly buffer: Array<number>
  readonly summary: Array<number>
  readonly context: Array<number>
  readonly folds: Array<readonly [number, number]>
  readonly invalid: Array<readonly [number, ReadonlyArray<string>]>
  requestPoints: number
  lastSummary: string
  lastSummaryTokens: number
  final: ReadonlyArray<WireMessage>
  summaryIndex: number
}

const empty = (): Recording => ({
  buffer: [],
  summary: [],
  context: [],
  folds: [],
  invalid: [],
  requestPoints: 0,
  lastSummary: "",
  lastSummaryTokens: 0,
  final: [],
  summaryIndex: -1
})

const ASSISTANT = "assistant"

/**
 * A {@link Recorder} counting the summary with `counter` (the replay's) and
 * checking each request point's context with `check` (none: no request point
 * is marked invalid, and the page says validity was not checked).
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeRecorder = (counter: TokenCounter.Service, check: Check | undefined): Recorder => {
  const recordings = new Map<Conversation, Recording>()
  const onAdd: OnAdd = (conversation, memory, step) =>
    Effect.gen(function*() {
      let recording = recordings.get(conversation)
      if (recording === undefined) {
        recording = empty()
        recordings.set(conversation, recording)
      }
      const turn = step.index + 1
      const summary = yield* memory.summary
      if (summary !== recording.lastSummary) {
        recording.lastSummary = summary
        recording.lastSummaryTokens = yield* countText(counter, summary)
      }
      recording.buffer.push(step.bufferTokens)
      recording.summary.push(recording.lastSummaryTokens)
      recording.context.push(recording.lastSummaryTokens + step.bufferTokens)
      if (step.evicted > 0) recording.folds.push([turn, step.evicted])
      const next = conversation.messages[step.index + 1]
      const last = step.index === conversation.messages.length - 1
      if ((next !== undefined && next.role === ASSISTANT) || last) {
        const messages = yield* memory.messages
        if (next !== undefined) {
          recording.requestPoints++
          const why = check === undefined ? [] : check(messages)
          if (why.length > 0) recording.invalid.push([turn, why])
        }
        if (last) {
          const buffered = new Set<Message.Message>(yield* memory.buffer)
          recording.final = messages.map((m) => m.toJSON() as WireMessage)
          recording.summaryIndex = summary === "" ? -1 : messages.findIndex((m) => !buffered.has(m))
        }
      }
    })
  const document: Recorder["document"] = (conversations, outcome, settings) => {
    const cells = Render.totalsCells(outcome.report.totals)
    return {
      title: settings.title,
      unit: settings.unit,
      maxTokens: settings.maxTokens,
      targetTokens: settings.targetTokens,
      validityChecked: check !== undefined,
      totals: { columns: cells.columns, row: cells.row, legend: Render.legend(settings.unit) },
      conversations: conversations.map((conversation, i): ConversationReport => {
        const figures = outcome.report.conversations[i]
        const r = recordings.get(conversation) ?? empty()
        return {
          id: conversation.id,
          messages: figures.messages,
          prunes: figures.prunes,
          summarizerCalls: figures.summarizerCalls,
          evictedMessages: figures.evictedMessages,
          peakContextTokens: r.context.reduce((a, b) => Math.max(a, b), 0),
          requestPoints: r.requestPoints,
          timeline: { buffer: r.buffer, summary: r.summary, context: r.context },
          folds: r.folds,
          invalid: r.invalid,
          final: r.final,
          summaryIndex: r.summaryIndex
        }
      }),
      compare: undefined
    }
  }
  return { onAdd, document }
}

const countText = (counter: TokenCounter.Service, text: string): Effect.Effect<number, TokenCountError> =>
  text === "" ? Effect.succeed(0) : TokenCounter.checkedCount(counter, text)
