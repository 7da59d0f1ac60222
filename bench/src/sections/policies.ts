/**
 * Section "context policies" (`--only=policies`): every data file replayed
 * through a RollingMemory (o200k_base, the extractive summarizer with a
 * 400-token summary budget) at budgets of 500, 2,000, 8,000 and 32,000
 * tokens, under the original's rule and the option sets of SPEC section 10,
 * with the command line's own replay engine (`src/cli/Compare.ts` and
 * `Replay.ts`: `rollmem replay --compare` measures exactly this). The goals
 * of the context-policy issues are checked against the original's rule of
 * the same run.
 *
 * An option set whose options this build does not have yet is listed as
 * unavailable rather than replayed. The "until budget" sets are contract
 * 10.5's `clearToolResults.until: "budget"`.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Compare from "../../../src/cli/Compare.js"
import * as Input from "../../../src/cli/Input.js"
import type { Options, Totals } from "../../../src/cli/Replay.js"
import * as Retention from "../../../src/core/artifacts.js"
import * as TokenCounter from "../../../src/services/TokenCounter.js"
import { dataDir } from "../data.js"
import { countO200k } from "../rollmem.js"

export const POLICY_BUDGETS = [500, 2_000, 8_000, 32_000] as const

/** The summary budget of every replay (the command line's default). */
export const SUMMARY_TOKENS = 400

/** The ledger budgets of the retention curve (long file, 8,000 tokens). */
export const LEDGER_CURVE = [250, 500, 1_000, 1_500, 2_000] as const

/** A ledger set: turn mode, pinned system, the summary budget raised by the ledger's (the summarizer keeps 400). */
const ledgerSet = (tokens: number) => ({
  name: `turn + pinned + ledger ${tokens}`,
  set: `boundary=turn,pin-system,max-summary-tokens=${SUMMARY_TOKENS + tokens},ledger-tokens=${tokens}`
})

/**
 * The artifact-ledger sets of a file at a budget (issue goals): the curve on
 * the long file at 8,000 tokens, a 1,000-token ledger on the agentic file at
 * 2,000.
 */
const ledgerSets = (
  b: number,
  file: string | undefined
): ReadonlyArray<{ readonly name: string; readonly set: string }> =>
  file === "conversations-long.jsonl" && b === 8_000
    ? LEDGER_CURVE.map(ledgerSet)
    : file === "conversations-agentic.jsonl" && b === 2_000
    ? [ledgerSet(1_000)]
    : []

/** The files and budgets of the prompt-cache goals (issue 28), with their goals: calls, reuse, cost vs the original. */
const CACHE_ROWS = [
  ["conversations-long.jsonl", 32_000, 0.10, 0.96, 0.35],
  ["conversations-long.jsonl", 8_000, 0.25, 0.92, 0.45],
  ["conversations-agentic.jsonl", 2_000, 0.20, 0.91, 0.45]
] as const

/** The prompt-cache goals' option set at budget `b`, with summary segments when `segments` (contract 10.9). */
const cacheSet = (b: number, segments: boolean): string =>
  `pin-system,target-tokens=${b / 2},clear-tool-results=3${segments ? ",summary=segments" : ""}`

/**
 * The cache-friendly settings at budget `b` (bench/README.md, "Prompt-cache
 * goals"): pinned system, a deep low-water mark (an eighth of the budget: a
 * fold re-sends little after the summary, and the next fold is far), clearing
 * keep 3, tool results cut at the door to a quarter of the budget (content no
 * cache holds yet), with summary segments when `segments`.
 */
const friendlySet = (b: number, segments: boolean): string =>
  `pin-system,target-tokens=${b / 8},clear-tool-results=3,max-tool-result-tokens=${b / 4}${
    segments ? ",summary=segments" : ""
  }`

const friendlyName = (segments: boolean): string =>
  `pinned + target 12.5% + clearing 3 + cut 25%${segments ? " + segments" : ""}`

/**
 * The summary-segments and cache-friendly sets of a file at a budget: the
 * prompt-cache goals' set with `summary=segments`, and the cache-friendly
 * settings with and without segments, on the goals' files and budgets only.
 */
const segmentSets = (
  b: number,
  file: string | undefined
): ReadonlyArray<{ readonly name: string; readonly set: string }> =>
  CACHE_ROWS.some(([f, budget]) => f === file && budget === b)
    ? [
      { name: "pinned + target 50% + clearing 3 + segments", set: cacheSet(b, true) },
      { name: friendlyName(false), set: friendlySet(b, false) },
      { name: friendlyName(true), set: friendlySet(b, true) }
    ]
    : []

/** The option sets at budget `b` (and, for `file`, its ledger sets), in the flags' own names ("" = the original's rule). */
export const optionSets = (
  b: number,
  file?: string
): ReadonlyArray<{ readonly name: string; readonly set: string }> => {
  const target = `target-tokens=${b / 2}`
  const clear = "clear-tool-results=3"
  return [
    { name: "original's rule (aligned)", set: "" },
    { name: "target 50%", set: target },
    { name: "clearing keep 3", set: clear },
    { name: "target 50% + clearing 3", set: `${target},${clear}` },
    { name: "turn", set: "boundary=turn" },
    { name: "turn + pinned system", set: "boundary=turn,pin-system" },
    { name: "turn + user-role summary", set: "boundary=turn,summary-role=user" },
    { name: "turn + pinned + target 50%", set: `boundary=turn,pin-system,${target}` },
    { name: "turn + pinned + clearing 3", set: `boundary=turn,pin-system,${clear}` },
    { name: "turn + pinned + target 50% + clearing 3", set: `boundary=turn,pin-system,${target},${clear}` },
    { name: "pinned + target 50% + clearing 3", set: `pin-system,${target},${clear}` },
    { name: "pinned + target 50% + clearing 3 until budget", set: `pin-system,${target},${clear},clear-until=budget` },
    { name: "pinned + target 50% + clearing 3 until target", set: `pin-system,${target},${clear},clear-until=target` },
    {
      name: "turn + pinned + target 50% + clearing 3 until budget",
      set: `boundary=turn,pin-system,${target},${clear},clear-until=budget`
    },
    ...ledgerSets(b, file),
    ...segmentSets(b, file)
  ]
}

export interface PolicyRow {
  readonly file: string
  readonly budget: number
  readonly name: string
  readonly set: string
  /** Totals over the file's conversations; undefined when the set is unavailable in this build. */
  readonly totals: Totals | undefined
  readonly unavailable?: string
}

export interface Goal {
  readonly goal: string
  /** null: not measurable in this build (an option missing). */
  readonly met: boolean | null
  readonly detail: string
}

export interface PoliciesResults {
  readonly summaryTokens: number
  readonly rows: ReadonlyArray<PolicyRow>
  readonly goals: ReadonlyArray<Goal>
}

const base = (budget: number): Options => ({
  strategy: "rolling",
  maxTokens: budget,
  maxMessages: 20,
  summarizer: "extractive",
  maxSummaryTokens: SUMMARY_TOKENS
})

const pct = (x: number) => `${(100 * x).toFixed(1)}%`

const find = (rows: ReadonlyArray<PolicyRow>, file: string, budget: number, set: string) =>
  rows.find((r) => r.file === file && r.budget === budget && r.set === set)

/** A goal against the original's rule of the same file and budget. */
const versus = (
  rows: ReadonlyArray<PolicyRow>,
  goal: string,
  file: string,
  budget: number,
  set: string,
  check: (t: Totals, original: Totals) => { readonly met: boolean; readonly detail: string }
): Goal => {
  const row = find(rows, file, budget, set)
  const original = find(rows, file, budget, "")
  if (row?.totals === undefined || original?.totals === undefined) {
    return { goal, met: null, detail: `not measured: ${row?.unavailable ?? "no data"}` }
  }
  return { goal, ...check(row.totals, original.totals) }
}

const callsRatio = (t: Totals, o: Totals) => o.summarizerCalls === 0 ? 0 : t.summarizerCalls / o.summarizerCalls

/** The goal "at most `maxRatio` times the original's calls, at least `minReuse` prefix reuse". */
const callsAndReuse = (maxRatio: number, minReuse: number) => (t: Totals, o: Totals) => {
  const ratio = callsRatio(t, o)
  return {
    met: ratio <= maxRatio && t.prefixReuse >= minReuse,
    detail: `${ratio.toFixed(3)}x calls (${t.summarizerCalls} vs ${o.summarizerCalls}), reuse ${pct(t.prefixReuse)}`
  }
}

/**
 * The prompt-cache goals (issue 28): pinned system + target half the budget
 * + clearing keep 3 (until: the default), and the cache-friendly settings,
 * each with and without summary segments, against the original's rule of
 * the same run: calls, prefix reuse (with the reachable reuse and the
 * no-fold ceiling beside it) and cost.
 */
const cacheGoals = (rows: ReadonlyArray<PolicyRow>): Array<Goal> =>
  CACHE_ROWS.flatMap(([file, budget, calls, reuse, cost]) =>
    [false, true].flatMap((friendly) =>
      [false, true].map((segments) => {
        const setOf = friendly ? friendlySet : cacheSet
        const settings = friendly
          ? `${friendlyName(segments)} (the cache-friendly settings)`
          : `pinned + target ${(budget / 2).toLocaleString("en-US")} + clearing 3${
            segments ? " + summary segments" : ""
          }`
        return versus(
          rows,
          `${file.replace("conversations-", "").replace(".jsonl", "")} ${budget.toLocaleString("en-US")}, ` +
            `${settings}: <= ${calls}x calls, >= ${100 * reuse}% reuse, <= ${cost}x cost`,
          file,
          budget,
          setOf(budget, segments),
          (t, o) => {
            const ratio = callsRatio(t, o)
            const costRatio = o.cost === 0 ? 0 : t.cost / o.cost
            // with segments, retention beside the same settings' without them (issue 28: no lower)
            const single = segments ? find(rows, file, budget, setOf(budget, false))?.totals : undefined
            return {
              met: ratio <= calls && t.prefixReuse >= reuse && costRatio <= cost,
              detail: `${ratio.toFixed(3)}x calls (${t.summarizerCalls} vs ${o.summarizerCalls}) ${
                ratio <= calls ? "met" : "missed"
              }; reuse ${pct(t.prefixReuse)} (reachable ${pct(t.reachableReuse)}, ceiling ${pct(t.ceilingReuse)}) ${
                t.prefixReuse >= reuse ? "met" : "missed"
              }; cost ${costRatio.toFixed(3)}x ${costRatio <= cost ? "met" : "missed"} (OpenAI's rule ${
                (t.costOpenAI / o.costOpenAI).toFixed(3)
              }x, Anthropic's ${
                (t.costAnthropic / o.costAnthropic).toFixed(3)
              }x); folds that broke the cache ${t.foldsBreakingCache}/${t.foldsFollowed}, ${
                Math.round(t.cacheWriteTokensPerFold)
              } cache writes per fold${
                single === undefined
                  ? ""
                  : `; retained ${pct(t.retention)} vs ${pct(single.retention)} without segments`
              }`
            }
          }
        )
      })
    )
  )

/** The artifact ledger's goals (retention at the last request points, all conversations together). */
const ledgerGoals = (rows: ReadonlyArray<PolicyRow>): Array<Goal> => {
  const long = "conversations-long.jsonl"
  const agentic = "conversations-agentic.jsonl"
  const plain = "boundary=turn,pin-system"
  const goals: Array<Goal> = []
  const curve = LEDGER_CURVE.map((tokens) => ({ tokens, row: find(rows, long, 8_000, ledgerSet(tokens).set) }))
  const base = find(rows, long, 8_000, plain)
  const at1000 = curve.find((c) => c.tokens === 1_000)?.row
  if (at1000?.totals === undefined || base?.totals === undefined) {
    goals.push({
      goal: "long 8,000, turn + pinned + ledger 1,000: file-path retention >= 90%",
      met: null,
      detail: "not measured"
    })
  } else {
    const paths = (t: Totals) => kinds(t, ["path"])
    const reached = curve.find((c) => c.row?.totals !== undefined && paths(c.row.totals) >= 0.9)
    goals.push({
      goal: "long 8,000, turn + pinned + ledger 1,000: file-path retention >= 90% at the last request point",
      met: paths(at1000.totals) >= 0.9,
      detail:
        `${pct(paths(at1000.totals))} (${Retention.ofKinds(at1000.totals.artifacts, ["path"]).kept}/${
          Retention.ofKinds(at1000.totals.artifacts, ["path"]).named
        }; without the ledger ${pct(paths(base.totals))}); ` +
        `curve: ${
          curve.map((c) => `${c.tokens}: ${c.row?.totals === undefined ? "n/a" : pct(paths(c.row.totals))}`).join(", ")
        }` +
        `; 90% ${reached === undefined ? "not reached up to 2,000" : `reached at ${reached.tokens}`}`
    })
    const ratio = base.totals.summarizerCalls === 0 ? 0 : at1000.totals.summarizerCalls / base.totals.summarizerCalls
    goals.push({
      goal: "long 8,000, ledger 1,000: summarizer calls per 1,000 turns <= +5% vs no ledger",
      met: ratio <= 1.05,
      detail: `${at1000.totals.summarizerCallsPer1000Turns.toFixed(1)} vs ${
        base.totals.summarizerCallsPer1000Turns.toFixed(1)
      } (${ratio.toFixed(3)}x)`
    })
  }
  const withLedger = find(rows, agentic, 2_000, ledgerSet(1_000).set)
  const without = find(rows, agentic, 2_000, plain)
  if (withLedger?.totals === undefined || without?.totals === undefined) {
    goals.push({
      goal: "agentic 2,000, ledger 1,000: user ids and e-mail addresses kept 100%",
      met: null,
      detail: "not measured"
    })
  } else {
    const ids = Retention.ofKinds(withLedger.totals.artifacts, ["id", "email"])
    goals.push({
      goal:
        "agentic 2,000, turn + pinned + ledger 1,000: user ids and e-mail addresses kept 100% at the last request point",
      met: ids.kept === ids.named,
      detail: `${pct(Retention.ratio(ids))} (${ids.kept}/${ids.named}; without the ledger ${
        pct(kinds(without.totals, ["id", "email"]))
      })`
    })
    const ratio = without.totals.summarizerCalls === 0
      ? 0
      : withLedger.totals.summarizerCalls / without.totals.summarizerCalls
    goals.push({
      goal: "agentic 2,000, ledger 1,000: summarizer calls per 1,000 turns <= +5% vs no ledger",
      met: ratio <= 1.05,
      detail: `${withLedger.totals.summarizerCallsPer1000Turns.toFixed(1)} vs ${
        without.totals.summarizerCallsPer1000Turns.toFixed(1)
      } (${ratio.toFixed(3)}x)`
    })
  }
  return goals
}

export const checkGoals = (rows: ReadonlyArray<PolicyRow>): Array<Goal> => {
  const long = "conversations-long.jsonl"
  const agentic = "conversations-agentic.jsonl"
  const goals: Array<Goal> = [
    versus(
      rows,
      "long 32,000, target 16,000 + clearing 3: <= 0.15x calls, >= 93% reuse, lower cost",
      long,
      32_000,
      "target-tokens=16000,clear-tool-results=3",
      (t, o) => {
        const ratio = callsRatio(t, o)
        return {
          met: ratio <= 0.15 && t.prefixReuse >= 0.93 && t.cost < o.cost,
          detail: `${ratio.toFixed(3)}x calls (${t.summarizerCalls} vs ${o.summarizerCalls}), reuse ${
            pct(t.prefixReuse)
          }, cost ${(t.cost / o.cost).toFixed(3)}x`
        }
      }
    ),
    versus(
      rows,
      "long 8,000, target 4,000 + clearing 3: <= 0.3x calls, >= 82% reuse",
      long,
      8_000,
      "target-tokens=4000,clear-tool-results=3",
      callsAndReuse(0.3, 0.82)
    ),
    versus(
      rows,
      "agentic 2,000, pinSystem + target 1,000 + clearing 3: <= 0.25x calls, >= 88% reuse",
      agentic,
      2_000,
      "pin-system,target-tokens=1000,clear-tool-results=3",
      callsAndReuse(0.25, 0.88)
    ),
    versus(
      rows,
      "agentic 2,000, pinSystem + target 1,000 + clearing 3 until budget: <= 0.25x calls, >= 88% reuse",
      agentic,
      2_000,
      "pin-system,target-tokens=1000,clear-tool-results=3,clear-until=budget",
      callsAndReuse(0.25, 0.88)
    )
  ]
  goals.push(...cacheGoals(rows))
  goals.push(...ledgerGoals(rows))
  const measured = rows.filter((r) => r.totals !== undefined)
  const over = measured.filter((r) => r.totals!.overBoundRequestPoints > 0)
  goals.push({
    goal: "every context within maxTokens + summary budget + pinned (+ the newest unit when alone larger)",
    met: over.length === 0,
    detail: over.length === 0
      ? `0 contexts over their bound in ${measured.length} replays`
      : over.map((r) => `${r.file} ${r.budget} ${r.name}: ${r.totals!.overBoundRequestPoints}`).join("; ")
  })
  const turn = measured.filter((r) => r.set.includes("boundary=turn"))
  const short = turn.filter((r) => r.totals!.validEligibleRequestPoints < r.totals!.eligibleRequestPoints)
  goals.push({
    goal: "turn mode: 100% valid request points (transcript valid, buffer with a user turn), every file and budget",
    met: turn.length === 0 ? null : short.length === 0,
    detail: turn.length === 0
      ? "not measured: boundary is not an option of this build"
      : short.length === 0
      ? `100% in all ${turn.length} turn-mode replays`
      : short.map((r) =>
        `${r.file} ${r.budget} ${r.name}: ${r.totals!.validEligibleRequestPoints}/${r.totals!.eligibleRequestPoints}`
      ).join("; ")
  })
  return goals
}

/** With `--quick`: the first conversations of each file, at the two budgets the goals read. */
const QUICK_CONVERSATIONS = 4
const QUICK_BUDGETS = [2_000, 8_000] as const

export const runPolicies = async (log: (line: string) => void, quick = false): Promise<PoliciesResults> => {
  const files = fs.readdirSync(dataDir).filter((f) => f.endsWith(".jsonl")).sort()
  const rows: Array<PolicyRow> = []
  const program = Effect.gen(function*() {
    for (const file of files) {
      const read = yield* Input.readInputs([path.join(dataDir, file)])
      const inputs = quick ? { ...read, conversations: read.conversations.slice(0, QUICK_CONVERSATIONS) } : read
      for (const budget of quick ? QUICK_BUDGETS : POLICY_BUDGETS) {
        const sets = optionSets(budget, file)
        const available: Array<{ readonly name: string; readonly set: string }> = []
        for (const s of sets.slice(1)) {
          const parsed = yield* Effect.either(Compare.parse(s.set))
          if (parsed._tag === "Right") available.push(s)
          else {rows.push({
              file,
              budget,
              name: s.name,
              set: s.set,
              totals: undefined,
              unavailable: parsed.left.description
            })}
        }
        log(`policies: ${file} at ${budget} tokens, ${available.length + 1} option sets`)
        const columns = yield* Compare.compare(inputs.conversations, base(budget), available.map((s) => s.set))
        rows.push({ file, budget, name: sets[0].name, set: "", totals: columns[0].report.totals })
        columns.slice(1).forEach((column, i) => {
          rows.push({ file, budget, name: available[i].name, set: available[i].set, totals: column.report.totals })
        })
      }
    }
  })
  // o200k_base counts, each distinct text counted once over the whole section (the figures are counts, not
  // times: the same counts as the tokenizer layer, fewer tokenizer calls across the 176 replays)
  const counts = new Map<string, number>()
  const counter = TokenCounter.layerFunction((text) => {
    let n = counts.get(text)
    if (n === undefined) {
      n = countO200k(text)
      counts.set(text, n)
    }
    return n
  })
  await Effect.runPromise(program.pipe(Effect.provide(Layer.merge(NodeContext.layer, counter)), Effect.orDie))
  // in the order of the option sets
  const order = (r: PolicyRow) => optionSets(r.budget, r.file).findIndex((s) => s.set === r.set)
  rows.sort((a, b) => a.file.localeCompare(b.file) || a.budget - b.budget || order(a) - order(b))
  return { summaryTokens: SUMMARY_TOKENS, rows, goals: checkGoals(rows) }
}

const fixed = (x: number, digits = 1) => x.toFixed(digits)

/** Retention of some kinds of artifact at the last request points, all conversations together. */
const kinds = (t: Totals, names: ReadonlyArray<string>): number =>
  Retention.ratio(Retention.ofKinds(t.artifacts, names))

/** The section as Markdown: one table per data file, then the goals, each met or missed with its number. */
export const renderPolicies = (
  r: PoliciesResults,
  table: (title: string, header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) => string
): string => {
  const out: Array<string> = []
  out.push(
    `\n6. Context policies: RollingMemory, o200k_base, extractive summarizer (summary budget ${r.summaryTokens}); ` +
      "figures at request points (before each assistant turn); valid = contexts a strict chat API accepts, of the " +
      "eligible ones (transcript valid so far, buffer holding a user turn); cost in input-token units " +
      "(uncached x1 + cached x0.1 + summarizer in x1 + out x4; cached = a shared prefix of >= 1,024 tokens); " +
      "retained: at each conversation's last request point, the distinct artifacts named so far (file paths, URLs, " +
      "e-mail addresses, identifiers) the context still names, all conversations together"
  )
  const files = [...new Set(r.rows.map((row) => row.file))]
  for (const file of files) {
    const rows = r.rows.filter((row) => row.file === file)
    out.push(table(
      file,
      [
        "budget",
        "option set",
        "cost",
        "vs original",
        "reuse",
        "ceiling",
        "reachable",
        "folds broke cache",
        "writes/fold",
        "valid (all)",
        "valid (eligible)",
        "calls/1k turns",
        "sum in",
        "sum out",
        "mean ctx",
        "max ctx",
        "over bound",
        "retained",
        "paths retained"
      ],
      rows.map((row) => {
        const t = row.totals
        if (t === undefined) {
          return [String(row.budget), row.name, "n/a", ...Array.from({ length: 16 }, () => "")]
        }
        const original = find(r.rows, row.file, row.budget, "")?.totals
        return [
          String(row.budget),
          row.name,
          fixed(t.cost, 0),
          original === undefined || original.cost === 0 ? "-" : `${(t.cost / original.cost).toFixed(3)}x`,
          pct(t.prefixReuse),
          pct(t.ceilingReuse),
          pct(t.reachableReuse),
          `${t.foldsBreakingCache}/${t.foldsFollowed}`,
          fixed(t.cacheWriteTokensPerFold, 0),
          pct(t.requestPoints === 0 ? 1 : t.validRequestPoints / t.requestPoints),
          pct(t.eligibleRequestPoints === 0 ? 1 : t.validEligibleRequestPoints / t.eligibleRequestPoints),
          fixed(t.summarizerCallsPer1000Turns),
          String(t.summarizerInputTokens),
          String(t.summarizerOutputTokens),
          fixed(t.meanRequestTokens, 0),
          String(t.maxRequestTokens),
          String(t.overBoundRequestPoints),
          pct(t.retention),
          pct(kinds(t, ["path"]))
        ]
      })
    ))
  }
  const unavailable = [...new Set(r.rows.filter((row) => row.unavailable !== undefined).map((row) => row.name))]
  if (unavailable.length > 0) out.push(`n/a: options not in this build (${unavailable.join("; ")})`)
  out.push("\nGoals (against the original's rule in the same run):")
  for (const g of r.goals) {
    out.push(`- ${g.met === null ? "NOT MEASURED" : g.met ? "met" : "MISSED"}: ${g.goal}: ${g.detail}`)
  }
  return out.join("\n")
}
