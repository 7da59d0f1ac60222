/**
 * How `rollmem replay` prints its report: a plain-text table, or one JSON
 * document `{ "conversations": [...], "totals": {...} }` (plus `"show"` when a
 * final context was asked for). Pure functions returning strings.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import type * as Retention from "../core/artifacts.js"
import { prefix, suffix } from "../internal/text.js"
import * as Message from "../schema/Message.js"
import type { Match as ArchiveMatch } from "../services/Archive.js"
import type { Figures, FinalContext, Outcome, Report, Strategy, Totals } from "./Replay.js"
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

const fixed = (x: number): string => x.toFixed(1)
const percent = (x: number): string => `${(100 * x).toFixed(1)}%`
const rounded = (x: number): string => String(Math.round(x))

/** A retention figure: `kept/named` with its share (`-` when nothing was named). */
const retained = (figure: { readonly named: number; readonly kept: number }): string =>
  figure.named === 0 ? "-" : `${figure.kept}/${figure.named} (${percent(figure.kept / figure.named)})`

/** A retention figure as its share alone (`-` when nothing was named). */
const share0 = (figure: { readonly named: number; readonly kept: number }): string =>
  figure.named === 0 ? "-" : percent(figure.kept / figure.named)

/** The retention of the file paths alone. */
const paths = (figure: Retention.Figure): string => retained(figure.byKind.path ?? { named: 0, kept: 0 })

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
  { title: "summary", row: (f) => String(f.summaryTokens), total: (t) => String(t.summaryTokens) },
  { title: "context", row: (f) => String(f.contextTokens), total: (t) => String(t.contextTokens) },
  {
    title: "valid",
    row: (f) => `${f.validRequestPoints}/${f.requestPoints}`,
    total: (t) => `${t.validRequestPoints}/${t.requestPoints}`
  },
  {
    title: "calls/1k",
    row: (f) => fixed(f.summarizerCallsPer1000Turns),
    total: (t) => fixed(t.summarizerCallsPer1000Turns)
  },
  { title: "sum-in", row: (f) => String(f.summarizerInputTokens), total: (t) => String(t.summarizerInputTokens) },
  { title: "sum-out", row: (f) => String(f.summarizerOutputTokens), total: (t) => String(t.summarizerOutputTokens) },
  { title: "mean-sent", row: (f) => rounded(f.meanRequestTokens), total: (t) => rounded(t.meanRequestTokens) },
  { title: "max-sent", row: (f) => String(f.maxRequestTokens), total: (t) => `max ${t.maxRequestTokens}` },
  { title: "reuse", row: (f) => percent(f.prefixReuse), total: (t) => percent(t.prefixReuse) },
  { title: "cost", row: (f) => rounded(f.cost), total: (t) => rounded(t.cost) },
  { title: "retained", row: (f) => share0(f.artifacts), total: (t) => share0(t.artifacts) }
]

/** A usage ratio with its samples (`-` when no message carried usage). */
const usageCell = (value: number | null, samples: number): string =>
  value === null ? "-" : `${value.toFixed(3)} (${samples})`

/** The usage column, shown only when some message carried the provider's usage. */
const USAGE_COLUMN: (typeof COLUMNS)[number] = {
  title: "usage",
  row: (f) => usageCell(f.usageRatio, f.usageSamples),
  total: (t) => usageCell(t.usageRatio, t.usageSamples)
}

const columnsFor = (totals: Totals): ReadonlyArray<(typeof COLUMNS)[number]> =>
  totals.usageSamples > 0 ? [...COLUMNS, USAGE_COLUMN] : COLUMNS

/**
 * The table's column titles and its totals row, cell for cell as
 * {@link table} prints them (the first cell names the count of
 * conversations). The `usage` column is there only when some message
 * carried the provider's usage.
 *
 * @since 0.2.0
 * @category combinators
 */
export const totalsCells = (totals: Totals): { readonly columns: Array<string>; readonly row: Array<string> } => ({
  columns: ["conversation", ...columnsFor(totals).map((c) => c.title)],
  row: [
    `total (${totals.conversations} conversation${totals.conversations === 1 ? "" : "s"})`,
    ...columnsFor(totals).map((c) => c.total(totals))
  ]
})

/**
 * The table's legend lines, naming the unit (`tokens` or `words`).
 *
 * @since 0.2.0
 * @category combinators
 */
export const legend = (unit: string): Array<string> => [
  `prunes: adds that evicted or folded turns; calls: summarizer calls; evicted: messages removed from the buffer;`,
  `peak: largest buffer after an add (${unit}); summary, context: ${unit} of the final summary and final context.`,
  `At each request point (before an assistant turn): valid: contexts a strict chat API accepts / request points;`,
  `mean-sent, max-sent: context ${unit}; reuse: ${unit} of the prefix of whole messages shared with the previous`,
  `request, over ${unit} sent. calls/1k: summarizer calls per 1,000 messages; sum-in, sum-out: summarizer ${unit} in`,
  `and out; cost: uncached input x1 + cached input (a shared prefix of 1,024 ${unit} or more) x0.1 + sum-in x1 +`,
  `sum-out x4, in input-${unit.replace(/s$/, "")} units. retained: at the last request point, the distinct artifacts`,
  `(file paths, URLs, e-mail addresses, identifiers) the context still names / those named so far.`
]

/**
 * A titled grid: `head`, a rule, `rows`, and, with `foot`, a rule and `foot`;
 * the first column left-aligned, the others right-aligned.
 */
const grid = (
  title: string,
  head: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<string>>,
  foot?: ReadonlyArray<string>
): Array<string> => {
  const all = foot === undefined ? [head, ...rows] : [head, ...rows, foot]
  const widths = head.map((_, i) => Math.max(...all.map((row) => row[i].length)))
  const line = (row: ReadonlyArray<string>): string =>
    row.map((cell, i) => i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])).join("  ").trimEnd()
  const rule = "-".repeat(widths.reduce((n, w) => n + w, 0) + 2 * (widths.length - 1))
  const lines = [title, "", line(head), rule, ...rows.map(line)]
  return foot === undefined ? lines : [...lines, rule, line(foot)]
}

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
  const rows = conversations.map((f) => [fitId(f.id), ...columnsFor(totals).map((c) => c.row(f))])
  const usage = totals.usageSamples > 0
    ? [
      `usage: the memory's usage ratio at the end (the provider's count of the context over the memory's own,`,
      `learnt from the assistant messages that carry the provider's usage; their number in brackets).`
    ]
    : []
  return [...grid(title, first, rows, last), "", ...legend(unit), ...usage].join("\n")
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
 * messages in the wire format, and with `--output-format` the same context
 * in that provider's shape, `request: { format, body }`.
 *
 * @since 0.1.0
 * @category combinators
 */
export const json = (
  outcome: Outcome,
  request?: { readonly format: string; readonly body: unknown } | undefined
): string =>
  JSON.stringify(
    {
      conversations: outcome.report.conversations,
      totals: outcome.report.totals,
      ...(outcome.shown === undefined ? {} : {
        show: {
          id: outcome.shown.id,
          context: outcome.shown.context,
          messages: encodeMessages(outcome.shown.messages),
          ...(request === undefined ? {} : { request })
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

const share = (part: number, whole: number): string =>
  whole === 0 ? `${part}/0` : `${part}/${whole} (${percent(part / whole)})`

const ratio = (part: number, whole: number): string => whole === 0 ? "-" : `${(part / whole).toFixed(2)}x`

// The cost a user pays is the headline: first, with what drives it (reuse against its ceiling, folds that
// broke the cache and what each one writes again), then the other figures.
const COMPARE_ROWS: ReadonlyArray<{ readonly title: string; readonly cell: (t: Totals, base: Totals) => string }> = [
  { title: "cost", cell: (t) => rounded(t.cost) },
  { title: "  vs the base", cell: (t, base) => ratio(t.cost, base.cost) },
  { title: "  by OpenAI's rule (128-token steps)", cell: (t) => rounded(t.costOpenAI) },
  { title: "  by Anthropic's rule (breakpoints)", cell: (t) => rounded(t.costAnthropic) },
  { title: "prefix reuse", cell: (t) => percent(t.prefixReuse) },
  { title: "  no-fold ceiling", cell: (t) => percent(t.ceilingReuse) },
  { title: "  reachable (nothing re-sent)", cell: (t) => percent(t.reachableReuse) },
  { title: "  re-sent uncached", cell: (t) => String(t.resentTokens) },
  { title: "folds that broke the cache", cell: (t) => share(t.foldsBreakingCache, t.foldsFollowed) },
  { title: "  cache writes per fold", cell: (t) => rounded(t.cacheWriteTokensPerFold) },
  { title: "summarizer calls", cell: (t) => String(t.summarizerCalls) },
  { title: "  per 1,000 turns", cell: (t) => fixed(t.summarizerCallsPer1000Turns) },
  { title: "  vs the base", cell: (t, base) => ratio(t.summarizerCalls, base.summarizerCalls) },
  { title: "  of which consolidations", cell: (t) => String(t.consolidations) },
  { title: "summarizer input", cell: (t) => String(t.summarizerInputTokens) },
  { title: "summarizer output", cell: (t) => String(t.summarizerOutputTokens) },
  { title: "valid request points", cell: (t) => share(t.validRequestPoints, t.requestPoints) },
  {
    title: "  of eligible (valid transcript, buffer with a user turn)",
    cell: (t) => share(t.validEligibleRequestPoints, t.eligibleRequestPoints)
  },
  { title: "contexts over their bound", cell: (t) => String(t.overBoundRequestPoints) },
  { title: "mean context sent", cell: (t) => rounded(t.meanRequestTokens) },
  { title: "max context sent", cell: (t) => String(t.maxRequestTokens) },
  { title: "artifacts retained (last request)", cell: (t) => retained(t.artifacts) },
  { title: "  file paths", cell: (t) => paths(t.artifacts) }
]

/**
 * A comparison as a table: one row per figure (totals over every
 * conversation), one column per option set, the base options first; a
 * legend under it spells out each numbered set.
 *
 * @since 0.2.0
 * @category combinators
 */
export const compareTable = (
  columns: ReadonlyArray<{ readonly set: string | undefined; readonly report: { readonly totals: Totals } }>,
  title: string,
  unit: string
): string => {
  const base = columns[0].report.totals
  const heads = columns.map((c, i) => c.set === undefined ? "base" : `[${i}]`)
  const first = [`figure (${unit})`, ...heads]
  const rows = COMPARE_ROWS.map((row) => [row.title, ...columns.map((c) => row.cell(c.report.totals, base))])
  return [
    ...grid(title, first, rows),
    "",
    "base: the command line's own options.",
    ...columns.flatMap((c, i) => c.set === undefined ? [] : [`[${i}] ${c.set}`]),
    `Request points: before each assistant turn. Cost: uncached input x1 + cached input (a prefix of 1,024 ${unit} or`,
    `more shared with the previous request) x0.1 + summarizer input x1 + summarizer output x4; by OpenAI's rule the`,
    `cached prefix counts from 1,024 in steps of 128, by Anthropic's it ends at a cache breakpoint of the previous`,
    `request (after the leading system messages, after the summary, after its last message). No-fold ceiling: the`,
    `reuse of the transcript itself. Reachable: the reuse of the same contexts if every message an earlier request`,
    `sent were cached (only first-sent content uncached); re-sent: the uncached ${unit} an earlier request had sent.`,
    `A fold broke the cache when the next request does not extend the previous one;`,
    `cache writes per fold: the ${unit} past the reused prefix at the first request after a fold.`,
    `Artifacts retained: at each conversation's last request point, the distinct artifacts named so far that the`,
    `context still names, all conversations together.`
  ].join("\n")
}

/**
 * A comparison as one JSON document (2-space indent): `{ "compare": [...] }`,
 * one entry per column, the base options first: `set` (the set as written,
 * `null` for the base), `options` (the replay options it ran with),
 * `conversations` and `totals` as in {@link json}.
 *
 * @since 0.2.0
 * @category combinators
 */
export const compareJson = (
  columns: ReadonlyArray<{ readonly set: string | undefined; readonly options: unknown; readonly report: Report }>
): string =>
  JSON.stringify(
    {
      compare: columns.map((c) => ({
        set: c.set ?? null,
        options: c.options,
        conversations: c.report.conversations,
        totals: c.report.totals
      }))
    },
    null,
    2
  )

const encodeMessage = Schema.encodeSync(Message.Message)

/** A match's text on one line: its content then its tool calls, line breaks as spaces, cut at 300 characters. */
const matchText = (message: Message.Message): string => {
  const calls = message.toolCalls.map((call) => `${call.name}(${call.arguments})`)
  const text = [message.content, ...calls].filter((part) => part !== "").join(" ").replace(/\s+/g, " ").trim()
  return text.length <= 300 ? text : `${prefix(text, 299)}…`
}

/**
 * `rollmem recall`'s table: a header naming the query, the conversation and
 * the store, then each match, best first, as its rank, position, role,
 * fold, exact artifacts and score, and its text on the next line (content
 * then tool calls, at most 300 characters). No match: one line saying so.
 *
 * @since 0.4.0
 * @category combinators
 */
export const recallTable = (
  id: string,
  query: string,
  store: string,
  matches: ReadonlyArray<ArchiveMatch>
): string => {
  if (matches.length === 0) return `No archived turn of ${id} in ${store} matches ${JSON.stringify(query)}.`
  const header = `${matches.length} archived turn${matches.length === 1 ? "" : "s"} of ${id} in ${store} matching ${
    JSON.stringify(query)
  }, best first:`
  return [
    header,
    ...matches.flatMap((match, i) => [
      "",
      `${i + 1}. position ${match.position}, ${match.message.role} (fold ${match.fold}${
        match.exact > 0 ? `, exact ${match.exact}` : ""
      }, score ${match.score.toFixed(2)})`,
      `   ${matchText(match.message)}`
    ])
  ].join("\n")
}

/**
 * `rollmem recall --format json`: `{ conversation, query, matches }`, each
 * match `{ position, fold, role, exact, score, message }` with the message
 * in the wire format (docs/contract.md section 2).
 *
 * @since 0.4.0
 * @category combinators
 */
export const recallJson = (id: string, query: string, matches: ReadonlyArray<ArchiveMatch>): string =>
  JSON.stringify(
    {
      conversation: id,
      query,
      matches: matches.map((match) => ({
        position: match.position,
        fold: match.fold,
        role: match.message.role,
        exact: match.exact,
        score: match.score,
        message: encodeMessage(match.message)
      }))
    },
    null,
    2
  )
