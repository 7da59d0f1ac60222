/**
 * The data of `rollmem replay --report`: the {@link ReportDocument} the page
 * shows, built from a replay's outcome (its figures, its timelines and every
 * conversation's final context: `replay(..., { finals: true })`) and, with
 * `--compare`, the totals of each option set. Pure.
 *
 * @since 0.2.0
 */
import type { CompareReport, ConversationReport, ReportDocument, WireMessage } from "../report/Data.js"
import type { Column } from "./Compare.js"
import * as Render from "./Render.js"
import type { Outcome } from "./Replay.js"

/**
 * What the page says about the replay beside its figures: the table
 * output's title line and unit, and the budget lines of the timelines.
 *
 * @since 0.2.0
 * @category models
 */
export interface Settings {
  readonly title: string
  /** `"tokens"` or `"words"`. */
  readonly unit: string
  readonly maxTokens: number | undefined
  readonly targetTokens: number | undefined
  /** Whether the replay archived what left the buffer (`--store S --archive`); default `false`. */
  readonly archived?: boolean | undefined
}

/**
 * The report of a replay. `outcome` must hold every final context
 * (`finals: true`); `columns` are `--compare`'s (the base options first),
 * undefined without it. Turns are 1-based: the request point before the
 * assistant turn at transcript position `i` (0-based) is turn `i`, the
 * message added just before it; a fold made by the add of position `i` is at
 * turn `i + 1`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const reportDocument = (
  outcome: Outcome,
  settings: Settings,
  columns: ReadonlyArray<Column> | undefined
): ReportDocument => {
  const cells = Render.totalsCells(outcome.report.totals)
  return {
    title: settings.title,
    unit: settings.unit,
    maxTokens: settings.maxTokens,
    targetTokens: settings.targetTokens,
    validityChecked: true,
    archived: settings.archived === true,
    totals: { columns: cells.columns, row: cells.row, legend: Render.legend(settings.unit) },
    conversations: outcome.report.conversations.map((figures, i): ConversationReport => {
      const timeline = outcome.timelines[i]
      const final = outcome.finals[i]
      const context = timeline.turns.map((t) => t.contextTokens)
      return {
        id: figures.id,
        messages: figures.messages,
        prunes: figures.prunes,
        summarizerCalls: figures.summarizerCalls,
        evictedMessages: figures.evictedMessages,
        peakContextTokens: context.reduce((a, b) => Math.max(a, b), 0),
        requestPoints: timeline.requests.length,
        timeline: {
          buffer: timeline.turns.map((t) => t.bufferTokens),
          summary: timeline.turns.map((t) => t.summaryTokens),
          context
        },
        folds: timeline.folds.map((f) => [f.index + 1, f.evictedMessages] as const),
        invalid: timeline.requests.filter((r) => r.violations.length > 0).map((r) =>
          [r.index, r.violations.map((v) => v.description)] as const
        ),
        final: final.messages.map((m) => m.toJSON() as WireMessage),
        summaryIndex: final.summaryIndex,
        retention: timeline.requests.map((r) => [r.index, r.artifactsKept, r.artifactsNamed] as const)
      }
    }),
    compare: columns?.map((column): CompareReport => ({
      label: column.set ?? "base (the command line's own options)",
      summarizerCallsPer1000Turns: column.report.totals.summarizerCallsPer1000Turns,
      meanContextTokens: column.report.totals.meanRequestTokens,
      cost: column.report.totals.cost,
      retention: column.report.totals.retention
    }))
  }
}
