/**
 * How `rollmem replay` prints its report: a plain-text table, or one JSON
 * document `{ "conversations": [...], "totals": {...} }` (plus `"show"` when a
 * final context was asked for). Pure functions returning strings.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { prefix, suffix } from "../internal/text.js"
import * as Message from "../schema/Message.js"
import type { Figures, FinalContext, Outcome, Strategy, Totals } from "./Replay.js"
import type { Shown } from "./Store.js"

const ID_WIDTH = 48

/**
 * Cuts a long id in the middle, so both its head and its distinctive tail
 * stay visible; both cuts fall between graphemes.
 */
const fitId = (id: string): string => {
  if (id.length <= ID_WIDTH) return id
  const head = Math.ceil((ID_WIDTH - 1) / 2)
  return `${prefix(id, head)}…${suffix(id, ID_WIDTH - 1 - head)}`
}

const opens = (value: boolean | null): string => value === null ? "-" : value ? "yes" : "no"

const COLUMNS: ReadonlyArray<{
  readonly title: string
  readonly row: (f: Figures) => string
  readonly total: (t: Totals) => string
}> = [
  { title: "messages", row: (f) => String(f.messages), total: (t) => String(t.messages) },
  { title: "prunes", row: (f) => String(f.prunes), total: (t) => String(t.prunes) },
  { title: "calls", row: (f) => String(f.summarizerCalls), total: (t) => String(t.summarizerCalls) },
  { title: "evicted", row: (f) => String(f.evictedMessages), total: (t) => String(t.evictedMessages) },
  { title: "peak", row: (f) => String(f.peakBufferTokens), total: (t) => `max ${t.peakBufferTokens}` },
  { title: "final", row: (f) => String(f.finalBufferTokens), total: (t) => String(t.finalBufferTokens) },
  { title: "summary", row: (f) => String(f.summaryTokens), total: (t) => String(t.summaryTokens) },
  { title: "context", row: (f) => String(f.contextTokens), total: (t) => String(t.contextTokens) },
  {
    title: "user-first",
    row: (f) => opens(f.opensOnUserTurn),
    total: (t) => `${t.opensOnUserTurn}/${t.conversations}`
  }
]

/**
 * The report as a table: a title line, one row per conversation, a totals
 * row, and a legend naming the units.
 *
 * @since 0.1.0
 * @category combinators
 */
export const table = (outcome: Outcome, title: string, unit: string): string => {
  const { conversations, totals } = outcome.report
  const first = ["conversation", ...COLUMNS.map((c) => c.title)]
  const rows = conversations.map((f) => [fitId(f.id), ...COLUMNS.map((c) => c.row(f))])
  const last = [
    `total (${totals.conversations} conversation${totals.conversations === 1 ? "" : "s"})`,
    ...COLUMNS.map((c) => c.total(totals))
  ]
  const all = [first, ...rows, last]
  const widths = first.map((_, i) => Math.max(...all.map((row) => row[i].length)))
  const line = (row: ReadonlyArray<string>): string =>
    row.map((cell, i) => i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])).join("  ").trimEnd()
  const rule = "-".repeat(widths.reduce((n, w) => n + w, 0) + 2 * (widths.length - 1))
  return [
    title,
    "",
    line(first),
    rule,
    ...rows.map(line),
    rule,
    line(last),
    "",
    `prunes: adds that evicted or folded turns; calls: summarizer calls; evicted: messages removed from the buffer.`,
    `peak, final: buffer ${unit} (largest after an add, at the end); summary, context: ${unit} of the summary, and of`,
    `summary + final buffer; user-first: the final context's first non-system message is a user turn.`
  ].join("\n")
}

/**
 * What bounds a replayed memory, as its options gave it: the strategy, its
 * budgets, and the extractive summarizer's `--summary-tokens` (`undefined`
 * with `--summarizer none`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Budget {
  readonly strategy: Strategy
  readonly maxTokens: number
  readonly maxMessages: number
  readonly summaryTokens: number | undefined
}

/**
 * One line saying what the budget bounds: the buffer only, the summary being
 * counted apart, so that a context larger than `--max-tokens` reads as
 * expected rather than as a bug.
 *
 * @example
 * ```ts
 * budgetNote({ strategy: "rolling", maxTokens: 2000, maxMessages: 20, summaryTokens: 400 })
 * // "--max-tokens 2000 bounds the buffer only; the summary is counted apart (at most --summary-tokens 400), so the context can exceed 2000."
 * ```
 *
 * @since 0.1.0
 * @category combinators
 */
export const budgetNote = (budget: Budget): string => {
  switch (budget.strategy) {
    case "rolling":
      return budget.summaryTokens === undefined
        ? `--max-tokens ${budget.maxTokens} bounds the buffer; evicted turns were dropped (--summarizer none).`
        : `--max-tokens ${budget.maxTokens} bounds the buffer only; the summary is counted apart ` +
          `(at most --summary-tokens ${budget.summaryTokens}), so the context can exceed ${budget.maxTokens}.`
    case "window":
      return `--max-messages ${budget.maxMessages} bounds the buffer's messages; evicted turns were dropped.`
    case "buffer":
      return "--strategy buffer keeps every turn: nothing bounds the buffer."
    case "summary":
      return `--strategy summary folds every turn into the summary (at most --summary-tokens ${budget.summaryTokens}); ` +
        "the buffer holds only turns not folded yet."
  }
}

const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? "" : "s"}`

/**
 * The summary set apart from the verbatim turns: a `Summary` section (its
 * lines indented: the model reads them as one system message) and a
 * `Buffer` section (each message's string form, as the model gets it).
 */
const sections = (
  summary: string,
  buffer: ReadonlyArray<Message.Message>,
  sizes: { readonly summary: string; readonly buffer: string } | undefined
): Array<string> => [
  summary === ""
    ? "Summary: none"
    : `Summary (sent first, as one system message${sizes === undefined ? "" : `; ${sizes.summary}`}):`,
  ...(summary === "" ? [] : summary.split("\n").map((line) => `  ${line}`)),
  "",
  `Buffer (the recent turns, verbatim: ${plural(buffer.length, "message")}${
    sizes === undefined ? "" : `, ${sizes.buffer}`
  }):`,
  ...buffer.map(String)
]

/**
 * A final context under a header line (its messages and tokens, summary and
 * buffer apart) and a line saying what the budget bounds (see
 * {@link budgetNote}); then the summary, set apart, and the buffer's turns
 * verbatim.
 *
 * @since 0.1.0
 * @category combinators
 */
export const finalContext = (
  shown: FinalContext,
  figures: Figures | undefined,
  unit: string,
  budget: Budget
): string => {
  const size = figures === undefined
    ? ""
    : `, ${figures.contextTokens} ${unit} (summary ${figures.summaryTokens} + buffer ${figures.finalBufferTokens})`
  const header = `Final context of ${shown.id}: ${plural(shown.messages.length, "message")}${size}`
  const sizes = figures === undefined
    ? undefined
    : { summary: `${figures.summaryTokens} ${unit}`, buffer: `${figures.finalBufferTokens} ${unit}` }
  return [
    header,
    budgetNote(budget),
    "=".repeat(Math.min(header.length, 120)),
    "",
    ...sections(shown.summary, shown.buffer, sizes)
  ].join("\n")
}

const encodeMessages = Schema.encodeSync(Schema.Array(Message.Message))

/**
 * The report as one JSON document (2-space indent): `conversations` (each
 * with `id` and the figures' camelCase keys), `totals`, and, when a final
 * context was asked for, `show`: `{ id, context, messages }` with the
 * messages in the wire format.
 *
 * @since 0.1.0
 * @category combinators
 */
export const json = (outcome: Outcome): string =>
  JSON.stringify(
    {
      conversations: outcome.report.conversations,
      totals: outcome.report.totals,
      ...(outcome.shown === undefined ? {} : {
        show: {
          id: outcome.shown.id,
          context: outcome.shown.context,
          messages: encodeMessages(outcome.shown.messages)
        }
      })
    },
    null,
    2
  )

/**
 * A stored conversation under a header line (id, revision, what its context
 * holds): its summary, set apart, then its buffered turns verbatim.
 *
 * @since 0.1.0
 * @category combinators
 */
export const storedContext = (shown: Shown): string => {
  const buffered = shown.state.buffer.length
  const parts = [
    ...(shown.state.summary === "" ? [] : ["a summary"]),
    `${buffered} buffered message${buffered === 1 ? "" : "s"}`
  ]
  const header = `Stored conversation ${shown.id} (revision ${shown.revision}): ${parts.join(" and ")}`
  return [
    header,
    "=".repeat(Math.min(header.length, 120)),
    "",
    ...sections(shown.state.summary, shown.state.buffer, undefined)
  ].join("\n")
}
