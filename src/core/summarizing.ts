/**
 * What the model summarizers of both lines share (pure, no `effect`
 * import): the summary budget of a fold, the last-resort cut of a reply
 * still over it (docs/contract.md section 10.4), and which HTTP statuses
 * are worth a second try (`SummarizerPolicy.isTransient`).
 *
 * @since 0.4.0
 */
import type { Counting } from "./loops.js"
import { prefix } from "./text.js"

/** The mark a cut summary ends with. @internal */
export const ELLIPSIS = "…"

/**
 * The budget of one fold: the summarizer's own `own`, or the request's
 * `requested` (the memory's `maxSummaryTokens`) when smaller.
 *
 * @internal
 */
export const budgetOf = (own: number, requested: number | undefined): number =>
  requested === undefined ? own : Math.min(own, requested)

/**
 * `text` when it counts within `maxTokens`; otherwise its longest prefix,
 * cut between two graphemes and ending with `…`, that fits (`""` when none
 * does): O(log n) counts, each text asked for in turn (a {@link Counting}).
 *
 * @internal
 */
export function* fitToBudget(text: string, maxTokens: number): Counting<string> {
  if ((yield text) <= maxTokens) return text
  let keep = 0
  let longest = text.length - 1
  while (keep < longest) {
    const mid = Math.ceil((keep + longest) / 2)
    if ((yield `${prefix(text, mid).trimEnd()}${ELLIPSIS}`) <= maxTokens) keep = mid
    else longest = mid - 1
  }
  const part = prefix(text, keep).trimEnd()
  return part === "" ? "" : `${part}${ELLIPSIS}`
}

/**
 * Whether an HTTP status may go away on a second try: 408, 409, 425, 429
 * or 5xx.
 *
 * @internal
 */
export const isTransientStatus = (status: number): boolean =>
  status === 408 || status === 409 || status === 425 || status === 429 || status >= 500
