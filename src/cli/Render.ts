/**
 * How `rollmem replay` prints its report: a plain-text table, or one JSON
 * document `{ "conversations": [...], "totals": {...} }` (plus `"show"` when a
 * final context was asked for). Pure functions returning strings.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as Message from "../schema/Message.js"
import type { Figures, FinalContext, Outcome, Totals } from "./Replay.js"
import type { Shown } from "./Store.js"

const ID_WIDTH = 48

/** Cuts a long id in the middle, so both its head and its distinctive tail stay visible. */
const fitId = (id: string): string => {
  if (id.length <= ID_WIDTH) return id
  const head = Math.ceil((ID_WIDTH - 1) / 2)
  return `${id.slice(0, head)}…${id.slice(id.length - (ID_WIDTH - 1 - head))}`
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
 * The table's column titles (after `conversation`) and its totals row, cell
 * for cell as {@link table} prints them (the first cell names the count of
 * conversations).
 *
 * @since 0.2.0
 * @category combinators
 */
export const totalsCells = (totals: Totals): { readonly columns: Array<string>; readonly row: Array<string> } => ({
  columns: ["conversation", ...COLUMNS.map((c) => c.title)],
  row: [
    `total (${totals.conversations} conversation${totals.conversations === 1 ? "" : "s"})`,
    ...COLUMNS.map((c) => c.total(totals))
  ]
})

/**
 * The table's legend lines, naming the unit (`tokens` or `words`).
 *
 * @since 0.2.0
 * @category combinators
 */
export const legend = (unit: string): Array<string> => [
  `prunes: adds that evicted or folded turns; calls: summarizer calls; evicted: messages removed from the buffer.`,
  `peak, final: buffer ${unit} (largest after an add, at the end); summary, context: ${unit} of the summary, and of`,
  `summary + final buffer; user-first: the final context's first non-system message is a user turn.`
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
  const { columns: first, row: last } = totalsCells(totals)
  const rows = conversations.map((f) => [fitId(f.id), ...COLUMNS.map((c) => c.row(f))])
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
    ...legend(unit)
  ].join("\n")
}

/**
 * A final context under a header line: its messages as `memory.context`
 * gives them.
 *
 * @since 0.1.0
 * @category combinators
 */
export const finalContext = (shown: FinalContext, figures: Figures | undefined, unit: string): string => {
  const size = figures === undefined
    ? ""
    : `, ${figures.contextTokens} ${unit} (summary ${figures.summaryTokens} + buffer ${figures.finalBufferTokens})`
  const header = `Final context of ${shown.id}: ${shown.messages.length} message${
    shown.messages.length === 1 ? "" : "s"
  }${size}`
  return [header, "=".repeat(Math.min(header.length, 120)), shown.context].join("\n")
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
 * holds): its context as `memory.context` gives it.
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
  return [header, "=".repeat(Math.min(header.length, 120)), shown.context].join("\n")
}
