/**
 * The replays both Effect lines run on the real transcripts to show they
 * keep identical state (issue 31: the same options give byte-identical
 * state JSON after every conversation): option sets covering every
 * strategy and the context policies, and one deterministic summarizer as a
 * plain function (no `effect` import, so both lines call the same one).
 * `scripts/replayStates.ts` runs them on the Effect 3 line,
 * `effect4/test/identicalState.test.ts` on the Effect 4 line.
 */

/** A replay: a strategy and its options, as both lines' constructors take them. */
export interface ReplaySet {
  readonly name: string
  readonly strategy: "rolling" | "buffer" | "window" | "summary"
  readonly options: { readonly [key: string]: unknown }
}

/** The transcripts replayed (read from the data folder, never copied into the repository). */
export const REPLAY_FILES = [
  "conversations-chat.jsonl",
  "conversations-agentic.jsonl",
  "conversations-tooltalk.jsonl",
  "conversations-long.jsonl"
] as const

/** The option sets, each replayed over every conversation of every file. */
export const REPLAY_SETS: ReadonlyArray<ReplaySet> = [
  { name: "rolling", strategy: "rolling", options: { maxTokens: 400, targetTokens: 250 } },
  {
    name: "rolling-policies",
    strategy: "rolling",
    options: {
      maxTokens: 600,
      boundary: "turn",
      pinSystem: true,
      clearToolResults: { keep: 2, atLeast: 20 },
      maxToolResultTokens: 200,
      summaryRole: "user"
    }
  },
  {
    name: "rolling-ledger",
    strategy: "rolling",
    options: { maxTokens: 500, maxSummaryTokens: 300, ledger: { maxTokens: 80 }, maxSummarizerInputTokens: 150 }
  },
  { name: "window", strategy: "window", options: { maxMessages: 12, targetMessages: 8 } },
  { name: "summary", strategy: "summary", options: { maxSummaryTokens: 300 } },
  { name: "buffer", strategy: "buffer", options: {} },
  {
    name: "rolling-segments",
    strategy: "rolling",
    options: {
      maxTokens: 500,
      targetTokens: 300,
      pinSystem: true,
      summary: "segments",
      maxSummaryTokens: 300,
      maxSummarizerInputTokens: 150
    }
  },
  {
    name: "summary-segments",
    strategy: "summary",
    options: { summary: "segments", maxSummaryTokens: 200, summaryRole: "user" }
  }
]

/** Whether a set keeps summary segments (docs/contract.md section 10.9): its states are also restored across the lines. */
export const keepsSegments = (set: ReplaySet): boolean => set.options.summary === "segments"

const WORDS = /\S+/g

/**
 * The summarizer both lines use: the previous summary, then the first six
 * words of each evicted message (its role first), keeping the last 120
 * words and, when the request carries a budget, words within it.
 */
export const summarize = (
  summary: string,
  messages: ReadonlyArray<{ readonly role: string; readonly content: string }>,
  maxSummaryTokens: number | undefined
): string => {
  const words: Array<string> = [...(summary.match(WORDS) ?? [])]
  for (const message of messages) {
    words.push(`${message.role}:`, ...(message.content.match(WORDS) ?? []).slice(0, 6))
  }
  const keep = Math.min(120, maxSummaryTokens ?? 120)
  return words.slice(-keep).join(" ")
}

/**
 * {@link summarize} honouring `request.mode` (docs/contract.md section
 * 10.9), what both lines mark with `Summarizer.honouringMode`: a segment is
 * the evicted messages' words alone, a consolidation the segments' join
 * shortened to its budget; without a mode, {@link summarize}.
 */
export const summarizeRequest = (
  summary: string,
  messages: ReadonlyArray<{ readonly role: string; readonly content: string }>,
  request: { readonly maxSummaryTokens: number | undefined; readonly mode?: "segment" | "consolidate" | undefined }
): string =>
  request.mode === "segment"
    ? summarize("", messages, request.maxSummaryTokens)
    : request.mode === "consolidate"
    ? summarize(summary, [], request.maxSummaryTokens)
    : summarize(summary, messages, request.maxSummaryTokens)
