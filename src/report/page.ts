/**
 * The script of the HTML report `rollmem replay --report` writes: it reads
 * the {@link ReportDocument} embedded in the page (a `<script
 * type="application/json" id="rollmem-data">`) and draws the totals, the
 * `--compare` trade-off, the list of conversations and, for the chosen one,
 * its timeline and final context. Built with Chart.js into one browser
 * script (`dist/report-page.js`), inlined into each report: the page needs
 * no network.
 *
 * Every text from the transcripts (ids, contents, tool calls) reaches the
 * page through `textContent` only, never as HTML.
 *
 * The page marks `performance.mark("rollmem:first-chart")` and sets
 * `data-first-chart` on `<html>` once its first chart is drawn, `data-ready`
 * once everything is drawn, and exposes Chart.js as `window.Chart` (so a test
 * can read a canvas's chart with `Chart.getChart(canvas)`).
 *
 * @since 0.2.0
 */
import {
  Chart,
  type ChartDataset,
  type ChartOptions,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  type Plugin,
  PointElement,
  ScatterController,
  Tooltip
} from "chart.js"
import type { CompareReport, ConversationReport, ReportDocument, WireMessage } from "./Data.js"

Chart.register(LineController, ScatterController, LineElement, PointElement, LinearScale, Tooltip, Legend)
;(window as unknown as { Chart: typeof Chart }).Chart = Chart

const COLORS = {
  context: "#1f5fa8",
  buffer: "#2e8b3a",
  summary: "#e07b00",
  budget: "#444",
  target: "#888",
  fold: "#7b3fb5",
  invalid: "#d0021b",
  retention: "#17becf"
}

const data = JSON.parse(document.getElementById("rollmem-data")?.textContent ?? "null") as ReportDocument

type Child = Node | string | null | undefined | false

/** An element with attributes and children; strings become text nodes, never HTML. */
const el = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: Array<Child>
): HTMLElementTagNameMap[K] => {
  const node = document.createElement(tag)
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value)
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    node.append(typeof child === "string" ? document.createTextNode(child) : child)
  }
  return node
}

const ID_WIDTH = 30
/** A long id cut in the middle, so its head and its distinctive tail both show (the full id is the cell's title). */
const fitId = (id: string): string =>
  id.length <= ID_WIDTH ? id : `${id.slice(0, 13)}…${id.slice(id.length - (ID_WIDTH - 14))}`

const number = (n: number): string => n.toLocaleString("en-US")
const plural = (n: number, one: string, many = `${one}s`): string => `${number(n)} ${n === 1 ? one : many}`

let firstChartMarked = false
/** Marks the first chart drawn (see the module's docs). */
const firstChart: Plugin = {
  id: "rollmemFirstChart",
  afterRender: () => {
    if (firstChartMarked) return
    firstChartMarked = true
    performance.mark("rollmem:first-chart")
    document.documentElement.dataset.firstChart = String(Math.round(performance.now()))
  }
}

interface FoldPoint {
  readonly x: number
  readonly y: number
  readonly evicted: number
}

/** Writes each fold's evicted count above its marker, skipping labels that would overlap. */
const foldLabels: Plugin<"line"> = {
  id: "rollmemFoldLabels",
  afterDatasetsDraw: (chart) => {
    const index = chart.data.datasets.findIndex((d) => (d as { id?: string }).id === "folds")
    if (index < 0 || !chart.isDatasetVisible(index)) return
    const meta = chart.getDatasetMeta(index)
    const points = chart.data.datasets[index].data as unknown as ReadonlyArray<FoldPoint>
    const ctx = chart.ctx
    ctx.save()
    ctx.font = "11px system-ui, sans-serif"
    ctx.fillStyle = COLORS.fold
    ctx.textAlign = "center"
    let lastRight = -Infinity
    meta.data.forEach((element, i) => {
      const text = `−${points[i].evicted}`
      const width = ctx.measureText(text).width
      if (element.x - width / 2 < lastRight + 2) return
      ctx.fillText(text, element.x, element.y - 10)
      lastRight = element.x + width / 2
    })
    ctx.restore()
  }
}

const unit = data.unit

// ---------------------------------------------------------------- header and totals

const header = el(
  "header",
  {},
  el("h1", {}, "rollmem replay report"),
  el("p", { class: "config", id: "config" }, data.title),
  el(
    "p",
    { class: "lead" },
    "What a model would have been sent at each turn of these conversations, under the settings above. " +
      `All sizes are in ${unit}. Choose a conversation in the list to see its timeline and its final context.`
  )
)

const totalsTable = el(
  "table",
  { class: "totals", id: "totals-table" },
  el("thead", {}, el("tr", {}, ...data.totals.columns.map((c) => el("th", {}, c)))),
  el("tbody", {}, el("tr", {}, ...data.totals.row.map((c, i) => el(i === 0 ? "th" : "td", {}, c))))
)
const totals = el(
  "section",
  { id: "totals" },
  el("h2", {}, "Totals"),
  el("div", { class: "scroll-x" }, totalsTable),
  el("div", { class: "legend" }, ...data.totals.legend.map((line) => el("span", {}, `${line} `)))
)

// ---------------------------------------------------------------- compare

const compareSection = (sets: ReadonlyArray<CompareReport>): HTMLElement => {
  const canvas = el("canvas", { id: "compare-chart", role: "img", "aria-label": "summarizer calls against context" })
  const palette = ["#1f5fa8", "#e07b00", "#2e8b3a", "#d0021b", "#7b3fb5", "#8c564b", "#e377c2", "#17becf"]
  const section = el(
    "section",
    { id: "compare" },
    el("h2", {}, "Compared settings"),
    el(
      "p",
      { class: "lead" },
      "Each point is one option set replayed over the same conversations: to the left, smaller contexts " +
        "(cheaper requests); lower down, fewer summarizer calls (fewer LLM calls to pay for and wait on). " +
        "Cost is in input-token units: what the requests and the summarizer would cost, counted in input tokens."
    ),
    el("div", { class: "chart compare-chart" }, canvas),
    el(
      "div",
      { class: "scroll-x" },
      el(
        "table",
        { class: "compare", id: "compare-table" },
        el(
          "thead",
          {},
          el(
            "tr",
            {},
            el("th", {}, "option set"),
            el("th", {}, "summarizer calls / 1,000 turns"),
            el("th", {}, `mean context sent (${unit})`),
            el("th", {}, "cost (input-token units)"),
            el("th", {}, "artifacts retained")
          )
        ),
        el(
          "tbody",
          {},
          ...sets.map((s, i) =>
            el(
              "tr",
              {},
              el(
                "th",
                {},
                el("span", { class: "swatch", style: `background:${palette[i % palette.length]}` }),
                s.label
              ),
              el("td", {}, s.summarizerCallsPer1000Turns.toFixed(1)),
              el("td", {}, number(Math.round(s.meanContextTokens))),
              el("td", {}, s.cost === undefined ? "–" : number(Math.round(s.cost))),
              el("td", {}, `${(100 * s.retention).toFixed(1)}%`)
            )
          )
        )
      )
    )
  )
  const options: ChartOptions<"scatter"> = {
    animation: false,
    maintainAspectRatio: false,
    layout: { padding: { top: 12, right: 16 } },
    scales: {
      x: {
        type: "linear",
        beginAtZero: true,
        grace: "10%",
        title: { display: true, text: `mean context sent per request (${unit})` }
      },
      y: {
        type: "linear",
        beginAtZero: true,
        grace: "10%",
        title: { display: true, text: "summarizer calls per 1,000 turns" }
      }
    },
    plugins: {
      legend: { position: "bottom", labels: { usePointStyle: true } },
      tooltip: {
        callbacks: {
          label: (item) =>
            `${item.dataset.label}: ${(item.raw as { y: number }).y.toFixed(1)} calls / 1,000 turns, ` +
            `mean context ${number(Math.round((item.raw as { x: number }).x))} ${unit}`
        }
      }
    }
  }
  queueMicrotask(() => {
    new Chart(canvas, {
      type: "scatter",
      data: {
        datasets: sets.map((s, i) => ({
          label: s.label,
          data: [{ x: s.meanContextTokens, y: s.summarizerCallsPer1000Turns }],
          backgroundColor: palette[i % palette.length],
          borderColor: palette[i % palette.length],
          pointRadius: 7,
          pointHoverRadius: 9
        }))
      },
      options,
      plugins: [firstChart]
    })
  })
  return section
}

// ---------------------------------------------------------------- conversation list

type SortKey = "order" | "id" | "messages" | "prunes" | "summarizerCalls" | "peakContextTokens" | "invalid"

const columns: ReadonlyArray<{ readonly key: SortKey; readonly title: string; readonly numeric: boolean }> = [
  { key: "id", title: "conversation", numeric: false },
  { key: "messages", title: "messages", numeric: true },
  { key: "prunes", title: "prunes", numeric: true },
  { key: "summarizerCalls", title: "calls", numeric: true },
  { key: "peakContextTokens", title: "peak context", numeric: true },
  ...(data.validityChecked ? [{ key: "invalid" as const, title: "rejected", numeric: true }] : [])
]

const indexed = data.conversations.map((c, order) => ({ c, order }))
const sortValue = (entry: { c: ConversationReport; order: number }, key: SortKey): number | string => {
  switch (key) {
    case "order":
      return entry.order
    case "id":
      return entry.c.id
    case "invalid":
      return entry.c.invalid.length
    default:
      return entry.c[key]
  }
}

let sort: { key: SortKey; descending: boolean } = { key: "order", descending: false }
let selected = -1

const listBody = el("tbody", {})
const headRow = el("tr", {})
const filter = el("input", {
  type: "search",
  id: "filter",
  placeholder: "Filter by id",
  "aria-label": "Filter conversations by id"
})

const invalidCell = (c: ConversationReport): string =>
  data.validityChecked ? `${number(c.invalid.length)} / ${number(c.requestPoints)}` : "–"

const renderList = (): void => {
  headRow.replaceChildren(
    ...columns.map((column) => {
      const active = sort.key === column.key
      const arrow = active ? (sort.descending ? " ▼" : " ▲") : " ⇅"
      const button = el(
        "button",
        { type: "button", "data-sort": column.key },
        column.title,
        el("span", {
          class: "arrow"
        }, arrow)
      )
      button.addEventListener("click", () => {
        sort = active
          ? { key: column.key, descending: !sort.descending }
          : { key: column.key, descending: column.numeric }
        renderList()
      })
      return el("th", {
        class: column.numeric ? "num" : "",
        "aria-sort": active ? (sort.descending ? "descending" : "ascending") : "none"
      }, button)
    })
  )
  const needle = filter.value.trim().toLowerCase()
  const rows = indexed.filter((e) => needle === "" || e.c.id.toLowerCase().includes(needle))
  rows.sort((a, b) => {
    const x = sortValue(a, sort.key)
    const y = sortValue(b, sort.key)
    const order = typeof x === "number" && typeof y === "number"
      ? x - y
      : String(x).localeCompare(String(y))
    return (sort.descending ? -order : order) || a.order - b.order
  })
  listBody.replaceChildren(
    ...rows.map(({ c, order }) => {
      const row = el(
        "tr",
        { tabindex: "0", "data-index": String(order), class: order === selected ? "selected" : "" },
        el("td", { class: "id", title: c.id }, fitId(c.id)),
        el("td", { class: "num" }, number(c.messages)),
        el("td", { class: "num" }, number(c.prunes)),
        el("td", { class: "num" }, number(c.summarizerCalls)),
        el("td", { class: "num" }, number(c.peakContextTokens)),
        data.validityChecked ? el("td", { class: c.invalid.length > 0 ? "num bad" : "num" }, invalidCell(c)) : null
      )
      row.addEventListener("click", () => select(order))
      row.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault()
          select(order)
        }
      })
      return row
    })
  )
}
filter.addEventListener("input", renderList)

const list = el(
  "div",
  { class: "list" },
  filter,
  el(
    "div",
    { class: "list-scroll" },
    el("table", { id: "conversation-list" }, el("thead", {}, headRow), listBody)
  )
)

// ---------------------------------------------------------------- one conversation

const detail = el("div", { class: "detail", id: "detail" })
let timeline: Chart | undefined

const timelineChart = (c: ConversationReport, canvas: HTMLCanvasElement): Chart => {
  const n = c.messages
  const series = (values: ReadonlyArray<number>) => values.map((y, i) => ({ x: i + 1, y }))
  const line = (
    label: string,
    values: ReadonlyArray<number>,
    color: string,
    width: number
  ): ChartDataset<"line", Array<{ x: number; y: number }>> => ({
    label,
    data: series(values),
    borderColor: color,
    backgroundColor: color,
    borderWidth: width,
    pointRadius: n <= 60 ? 2 : 0,
    pointHoverRadius: 4,
    stepped: false,
    tension: 0
  })
  const level = (label: string, y: number, color: string, dash: Array<number>) => ({
    label,
    data: [{ x: 1, y }, { x: Math.max(n, 1), y }],
    borderColor: color,
    backgroundColor: color,
    borderWidth: 1.5,
    borderDash: dash,
    pointRadius: 0,
    pointHoverRadius: 0
  })
  const datasets: Array<ChartDataset<"line" | "scatter", Array<{ x: number; y: number }>> & { id?: string }> = [
    { ...line(`context (summary + buffer)`, c.timeline.context, COLORS.context, 2.5), id: "context" },
    { ...line("buffer (recent turns, verbatim)", c.timeline.buffer, COLORS.buffer, 1.5), id: "buffer" },
    { ...line("summary (folded turns)", c.timeline.summary, COLORS.summary, 1.5), id: "summary" }
  ]
  if (data.maxTokens !== undefined) {
    datasets.push({
      ...level(`budget: ${number(data.maxTokens)}`, data.maxTokens, COLORS.budget, [6, 4]),
      id: "budget"
    })
  }
  if (data.targetTokens !== undefined) {
    datasets.push({
      ...level(`target: ${number(data.targetTokens)}`, data.targetTokens, COLORS.target, [2, 3]),
      id: "target"
    })
  }
  datasets.push({
    type: "scatter",
    id: "folds",
    label: `fold: −N messages evicted${data.archived === true ? " and archived" : ""} (${c.folds.length})`,
    data: c.folds.map(([turn, evicted]) => ({ x: turn, y: c.timeline.context[turn - 1], evicted })),
    pointStyle: "triangle",
    pointRotation: 180,
    pointRadius: 6,
    pointHoverRadius: 8,
    backgroundColor: COLORS.fold,
    borderColor: COLORS.fold
  })
  if (data.validityChecked) {
    datasets.push({
      type: "scatter",
      id: "invalid",
      label: `request a strict provider rejects (${c.invalid.length} of ${c.requestPoints})`,
      data: c.invalid.map(([turn]) => ({ x: turn, y: 0 })),
      pointStyle: "crossRot",
      pointRadius: 7,
      pointHoverRadius: 9,
      borderWidth: 2.5,
      backgroundColor: COLORS.invalid,
      borderColor: COLORS.invalid,
      clip: false
    })
  }
  if (c.retention.length > 0) {
    datasets.push({
      ...line(
        "artifacts retained (% of those named so far, right axis)",
        [],
        COLORS.retention,
        1.5
      ),
      id: "retention",
      yAxisID: "share",
      borderDash: [4, 2],
      data: c.retention.map(([turn, kept, named]) => ({ x: turn, y: named === 0 ? 100 : (100 * kept) / named }))
    })
  }
  const retentionAt = new Map(c.retention.map(([turn, kept, named]) => [turn, [kept, named] as const]))
  const invalidAt = new Map(c.invalid.map(([turn, why]) => [turn, why]))
  const foldAt = new Map(c.folds.map(([turn, evicted]) => [turn, evicted]))
  return new Chart(canvas, {
    type: "line",
    data: { datasets: datasets as Array<ChartDataset<"line", Array<{ x: number; y: number }>>> },
    options: {
      animation: false,
      maintainAspectRatio: false,
      parsing: false,
      normalized: true,
      layout: { padding: { top: 16, right: 10 } },
      interaction: { mode: "nearest", axis: "x", intersect: false },
      scales: {
        x: {
          type: "linear",
          min: 1,
          max: Math.max(n, 2),
          title: { display: true, text: "turn (message number)" },
          ticks: { precision: 0 }
        },
        y: { type: "linear", beginAtZero: true, title: { display: true, text: unit } },
        share: {
          type: "linear",
          position: "right",
          min: 0,
          max: 100,
          display: c.retention.length > 0,
          grid: { drawOnChartArea: false },
          title: { display: true, text: "artifacts retained (%)" }
        }
      },
      plugins: {
        legend: { position: "bottom", labels: { usePointStyle: true, boxWidth: 10 } },
        tooltip: {
          filter: (item) => {
            const id = (item.dataset as { id?: string }).id
            return id !== "budget" && id !== "target"
          },
          callbacks: {
            title: (items) => items.length === 0 ? "" : `turn ${items[0].parsed.x ?? ""}`,
            label: (item) => {
              const id = (item.dataset as { id?: string }).id
              const turn = item.parsed.x ?? 0
              if (id === "folds") {
                return `fold: ${plural(foldAt.get(turn) ?? 0, "message")} evicted${
                  data.archived === true ? " and archived (rollmem recall finds them)" : ""
                }`
              }
              if (id === "invalid") return `rejected: ${(invalidAt.get(turn) ?? []).join("; ")}`
              if (id === "retention") {
                const [kept, named] = retentionAt.get(turn) ?? [0, 0]
                return `artifacts retained: ${number(kept)} of ${number(named)} named so far`
              }
              return `${id}: ${number(item.parsed.y ?? 0)} ${unit}`
            }
          }
        }
      }
    },
    plugins: [firstChart, foldLabels as Plugin]
  })
}

const ROLE_NAMES: Record<string, string> = {
  user: "user",
  assistant: "assistant",
  system: "system",
  tool: "tool result",
  developer: "developer"
}

const messageView = (m: WireMessage, index: number, kind: "summary" | "message" | "result" | "orphan") => {
  const role = m.role
  const tags: Array<Child> = [
    el("span", { class: `role role-${/^[a-z]+$/.test(role) ? role : "other"}` }, ROLE_NAMES[role] ?? role)
  ]
  if (kind === "summary") tags.push(el("span", { class: "tag summary-tag" }, "summary of folded turns"))
  if (m.tool_call_id !== undefined) {
    tags.push(el("span", { class: "tag" }, `answers ${m.tool_call_id}`))
    if (kind === "orphan") tags.push(el("span", { class: "tag bad" }, "its call is not in the context"))
  }
  const calls = m.tool_calls ?? []
  if (calls.length > 0) tags.push(el("span", { class: "tag" }, plural(calls.length, "tool call")))
  const attributes: Record<string, string> = {
    class: `message kind-${kind}`,
    "data-index": String(index),
    "data-role": role
  }
  if (m.tool_call_id !== undefined) attributes["data-tool-call-id"] = m.tool_call_id
  return el(
    "div",
    attributes,
    el("div", { class: "message-head" }, el("span", { class: "position" }, `#${index + 1}`), ...tags),
    el("pre", { class: "content" }, m.content),
    calls.length === 0 ? null : el(
      "ul",
      { class: "calls" },
      ...calls.map((call) =>
        el(
          "li",
          {},
          el("span", { class: "call-id" }, call.id),
          el("code", { class: "call", "data-id": call.id }, `${call.name}(${call.arguments})`)
        )
      )
    )
  )
}

/** The final context: the summary set apart, each tool call grouped with the results right after it. */
const contextView = (c: ConversationReport): HTMLElement => {
  const items: Array<HTMLElement> = []
  const messages = c.final
  let i = 0
  while (i < messages.length) {
    const m = messages[i]
    if (i === c.summaryIndex) {
      items.push(el("li", { class: "item summary" }, messageView(m, i, "summary")))
      i++
      continue
    }
    const calls = m.tool_calls ?? []
    if (calls.length > 0) {
      const ids = new Set(calls.map((call) => call.id))
      const group = [messageView(m, i, "message")]
      let j = i + 1
      while (j < messages.length && j !== c.summaryIndex && messages[j].tool_call_id !== undefined) {
        const id = messages[j].tool_call_id as string
        group.push(messageView(messages[j], j, ids.has(id) ? "result" : "orphan"))
        j++
      }
      items.push(el("li", { class: "item tool-group" }, ...group))
      i = j
      continue
    }
    items.push(
      el(
        "li",
        { class: `item role-item-${/^[a-z]+$/.test(m.role) ? m.role : "other"}` },
        messageView(m, i, m.tool_call_id === undefined ? "message" : "orphan")
      )
    )
    i++
  }
  return el("ol", { class: "context", id: "final-context" }, ...items)
}

const select = (index: number): void => {
  selected = index
  const c = data.conversations[index]
  for (const row of Array.from(listBody.rows)) {
    row.classList.toggle("selected", row.dataset.index === String(index))
  }
  timeline?.destroy()
  const canvas = el("canvas", { id: "timeline", role: "img", "aria-label": `timeline of ${c.id}` })
  const last = c.timeline.context.length === 0 ? 0 : c.timeline.context[c.timeline.context.length - 1]
  const facts = [
    plural(c.messages, "message"),
    plural(c.prunes, "prune"),
    plural(c.summarizerCalls, "summarizer call"),
    `${plural(c.evictedMessages, "message")} evicted${data.archived === true ? ", all archived" : ""}`,
    `peak context ${number(c.peakContextTokens)} ${unit}`,
    `final context ${number(last)} ${unit}`,
    data.validityChecked
      ? `${number(c.invalid.length)} of ${plural(c.requestPoints, "request")} rejected by a strict provider`
      : null
  ].filter((f) => f !== null)
  detail.replaceChildren(
    el("h3", { id: "selected-id" }, c.id),
    el("p", { class: "facts" }, facts.join(" · ")),
    el("h4", {}, "Timeline"),
    el(
      "p",
      { class: "explain" },
      `After each message is added: the buffer of recent turns kept verbatim, the summary of older turns, and the ` +
        `context the model is sent (both together); dashed, on the right axis, the share of the artifacts named so ` +
        `far (file paths, URLs, e-mail addresses, identifiers) that the context still names at each request. ` +
        `▼ marks a fold, with the number of messages it evicted` +
        (data.archived === true ? " (each archived: rollmem recall searches them)" : "") +
        (data.validityChecked
          ? "; ✕ on the axis marks a request (the next message is the model's) whose context a strict provider " +
            "(OpenAI, Anthropic, Gemini) rejects: it opens on a non-user turn, or splits a tool call from its result."
          : ".")
    ),
    el("div", { class: "chart timeline-chart" }, canvas),
    el("h4", {}, `Final context (${plural(c.final.length, "message")})`),
    el(
      "p",
      { class: "explain" },
      "What the model would be sent after the last message, in order: the summary of folded turns (highlighted), " +
        "then the recent turns verbatim; an assistant turn that calls tools is boxed with the results that answer it."
    ),
    c.final.length === 0 ? el("p", { class: "explain" }, "(empty)") : contextView(c)
  )
  timeline = timelineChart(c, canvas)
  if (location.protocol !== "about:") history.replaceState(null, "", `#${encodeURIComponent(c.id)}`)
}

// ---------------------------------------------------------------- page

const conversations = el(
  "section",
  { id: "conversations" },
  el("h2", {}, `Conversations (${number(data.conversations.length)})`),
  el(
    "p",
    { class: "lead" },
    "Sort by a column, filter by id, and choose a row. Peak context: the largest context after any message. " +
      (data.validityChecked
        ? "Rejected requests: request points (the next message is the model's) whose context a strict provider " +
          "rejects, of all request points."
        : "Rejected requests: not checked in this replay.")
  ),
  el("div", { class: "layout" }, list, detail)
)

document.body.replaceChildren(
  header,
  el("main", {}, totals, data.compare === undefined ? null : compareSection(data.compare), conversations)
)
renderList()
if (data.conversations.length > 0) {
  const fromHash = decodeURIComponent(location.hash.slice(1))
  const byHash = data.conversations.findIndex((c) => c.id === fromHash)
  select(byHash >= 0 ? byHash : 0)
}
requestAnimationFrame(() => {
  document.documentElement.dataset.ready = "true"
})
