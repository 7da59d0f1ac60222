/**
 * The data an HTML report of `rollmem replay --report` carries: written by
 * the command line (`src/cli/Report.ts`) as JSON inside the page, read by
 * the page's script (`src/report/page.ts`). Plain JSON values only (no
 * imports), so the page can share these types without pulling in Effect.
 *
 * Token figures are in the replay's unit (`unit`: tokens of the chosen
 * tokenizer, or words); turns are 1-based message numbers (turn 1 is the
 * conversation's first message).
 *
 * @since 0.2.0
 */

/**
 * A message as the model is sent it, in the wire format of SPEC section 2
 * (snake_case keys, empty fields omitted).
 *
 * @since 0.2.0
 * @category models
 */
export interface WireMessage {
  readonly role: string
  readonly content: string
  readonly id?: string
  readonly tool_calls?: ReadonlyArray<{ readonly id: string; readonly name: string; readonly arguments: string }>
  readonly tool_call_id?: string
  readonly metadata?: unknown
}

/**
 * A conversation's timeline over turns: after each add (and its prune), the
 * buffer, the summary and the whole context (what `memory.messages` sends:
 * pinned messages, summary and buffer) in the replay's unit. The arrays have
 * one entry per message added, turn 1 first.
 *
 * @since 0.2.0
 * @category models
 */
export interface Timeline {
  readonly buffer: ReadonlyArray<number>
  readonly summary: ReadonlyArray<number>
  readonly context: ReadonlyArray<number>
}

/**
 * One conversation of a report.
 *
 * @since 0.2.0
 * @category models
 */
export interface ConversationReport {
  readonly id: string
  /** Messages added (the number of turns on the timeline). */
  readonly messages: number
  /** Adds after which something was evicted or folded (the table's `prunes`). */
  readonly prunes: number
  /** Summarizer calls made (the table's `calls`). */
  readonly summarizerCalls: number
  /** Messages removed from the buffer (the table's `evicted`). */
  readonly evictedMessages: number
  /** The largest context after an add, in the report's unit. */
  readonly peakContextTokens: number
  /** Request points: turns whose next message is an assistant turn (where the model was called). */
  readonly requestPoints: number
  readonly timeline: Timeline
  /** Each prune: `[turn, messages evicted]`, in turn order. */
  readonly folds: ReadonlyArray<readonly [number, number]>
  /**
   * Each request point whose context a strict provider rejects: `[turn, why]`,
   * one line per violation; empty when no validity check ran.
   */
  readonly invalid: ReadonlyArray<readonly [number, ReadonlyArray<string>]>
  /** The final context, exactly as `memory.messages` returns it. */
  readonly final: ReadonlyArray<WireMessage>
  /** The position of the summary message in `final`; -1 when the summary is empty. */
  readonly summaryIndex: number
  /**
   * Retention at each request point (docs/contract.md section 14): `[turn,
   * artifacts the context still names, distinct artifacts named so far]`, in
   * turn order.
   */
  readonly retention: ReadonlyArray<readonly [number, number, number]>
}

/**
 * One option set of `--compare`: a point of the trade-off chart and a row
 * of its table. `cost` is in input-token units (see the command's help).
 *
 * @since 0.2.0
 * @category models
 */
export interface CompareReport {
  readonly label: string
  readonly summarizerCallsPer1000Turns: number
  readonly meanContextTokens: number
  readonly cost: number | undefined
  /** Artifacts retained at the last request points, all conversations together, between 0 and 1. */
  readonly retention: number
}

/**
 * Everything a report page shows.
 *
 * @since 0.2.0
 * @category models
 */
export interface ReportDocument {
  /** The table output's title line: conversations, strategy, budgets, summarizer, tokenizer. */
  readonly title: string
  /** `"tokens"` or `"words"`. */
  readonly unit: string
  /** The token budget of the buffer (a line on every timeline); undefined when the strategy has none. */
  readonly maxTokens: number | undefined
  /** The low-water mark a prune evicts down to; undefined when not set. */
  readonly targetTokens: number | undefined
  /** Whether request points were checked for validity (the invalid markers and column). */
  readonly validityChecked: boolean
  /**
   * Whether every message that left the buffer was archived (`rollmem replay
   * --store S --archive`): the page marks each fold's evicted messages as
   * archived, searchable with `rollmem recall`. Absent in reports written
   * before it: not archived.
   */
  readonly archived?: boolean | undefined
  /** The table output's totals: its column titles and its totals row, cell for cell, then its legend lines. */
  readonly totals: {
    readonly columns: ReadonlyArray<string>
    readonly row: ReadonlyArray<string>
    readonly legend: ReadonlyArray<string>
  }
  readonly conversations: ReadonlyArray<ConversationReport>
  /** With `--compare`: one entry per option set, the replay's own options first. */
  readonly compare: ReadonlyArray<CompareReport> | undefined
}
