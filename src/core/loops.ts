/**
 * The count-driven loops of a memory, once for both lines (pure, no
 * `effect` import): the clearing pass of a prune (docs/contract.md section
 * 10.5), a tool result's cut at the door (section 10.8), the ledger's fit
 * (section 14.2) and a fold in chunks (section 5, `maxSummarizerInputTokens`).
 *
 * Each loop needs what only a shell can do (count a text with the memory's
 * counter, call the summarizer), so it is written as a generator that asks
 * for it: a {@link Counting} yields the text to count and is resumed with
 * its count; {@link foldChunks} yields the chunk to fold and is resumed with
 * the fold's new state (or `undefined` when the chunk failed). The Effect 3
 * shell drives them in one synchronous step while every answer is at hand
 * (its `Exit` fast path), the Effect 4 shell in `Effect.gen`; neither holds
 * a decision of its own. Every loop asks for each text once: a cleared or
 * cut result is counted once per attempt, the buffer never again.
 *
 * @since 0.4.0
 */
import { type Chunk, clearingGoesOn, clearingStands, type EvictionIndex, type Plan, plannedTokens } from "./eviction.js"
import * as Ledger from "./ledger.js"
import type { Pruning } from "./policy.js"
import * as ToolResults from "./toolResults.js"

/**
 * A pure computation that needs texts counted: it yields each text to count
 * and is resumed with the count (a non-negative integer), until it returns
 * its result `R`.
 *
 * @example
 * ```ts no-check
 * const gen: Counting<number> = (function*() { return (yield "a b") + (yield "c") })()
 * runCounting(gen, (text) => text.split(" ").length) // 3
 * ```
 *
 * @since 0.4.0
 */
export type Counting<R> = Generator<string, R, number>

/**
 * Runs a {@link Counting} with a plain counting function (tests, or a
 * caller whose counts are at hand).
 *
 * @since 0.4.0
 */
export const runCounting = <R>(counting: Counting<R>, count: (text: string) => number): R => {
  let step = counting.next()
  while (step.done !== true) step = counting.next(count(step.value))
  return step.value
}

/**
 * What a loop needs of a message: its content, its token text (what the
 * counter counts), and the same message with another content (every other
 * field kept): each line's `Message` class gives them.
 *
 * @since 0.4.0
 */
export interface Rewritable {
  readonly content: string
  readonly tokenText: string
}

/**
 * A prune's start (docs/contract.md section 10): `undefined` when the
 * trigger does not hold (nothing to run: the hot path allocates nothing),
 * else the {@link Counting} that clears tool results when the prune starts
 * over the budget with `clearToolResults` (each rewritten result counted
 * once, oldest first, while over the target or short of `atLeast`; a pass
 * short of `atLeast` is undone) and returns the pending plan, or
 * `undefined` when nothing is to be evicted (the clearings stand). With
 * `until: "budget"`, a prune that clearing brings within the budget evicts
 * only what a turn-mode repair needs. With `archiving` (section 17),
 * clearings that stand without a fold are a pending plan that evicts
 * nothing (`EvictionIndex.planClearings`). When the counting fails or is
 * abandoned, the caller undoes the pass (`EvictionIndex.undoClearings`).
 *
 * @since 0.4.0
 */
export const startPrune = <A extends Rewritable>(
  index: EvictionIndex<A>,
  pruning: Pruning,
  withContent: (item: A, content: string) => A,
  archiving: boolean
): Counting<Plan<A> | undefined> | undefined =>
  index.needsPrune(pruning.policy) ? clearingPass(index, pruning, withContent, archiving) : undefined

function* clearingPass<A extends Rewritable>(
  index: EvictionIndex<A>,
  pruning: Pruning,
  withContent: (item: A, content: string) => A,
  archiving: boolean
): Counting<Plan<A> | undefined> {
  const policy = pruning.policy
  const over = index.measure(policy.measure) > policy.budget
  const clearing = pruning.clearing
  if (over && clearing !== undefined) {
    const atLeast = clearing.atLeast
    while (clearingGoesOn(index.measure(policy.measure), policy.target, index.clearedTokens, atLeast)) {
      const slot = index.nextClearable(clearing.keep)
      if (slot === undefined) break
      if (slot.item.content === clearing.placeholder) {
        index.passClearable(slot)
        continue
      }
      const item = withContent(slot.item, clearing.placeholder)
      const tokens: number = yield item.tokenText
      if (tokens < slot.tokens) index.passClearable(slot, item, tokens)
      else index.passClearable(slot)
    }
    // the pass stands when it freed at least atLeast tokens, else it is undone (nothing cleared)
    if (!clearingStands(index.clearedTokens, atLeast)) index.undoClearings()
  }
  // cleared to within the budget with until "budget": step 1 does not run (turn-mode repairs only)
  const toBudget = clearing !== undefined && clearing.until === "budget"
  const planned = index.plan(policy, over && !(toBudget && index.measure(policy.measure) <= policy.budget))
  if (planned !== undefined) return planned
  if (archiving) return index.planClearings()
  index.keepClearings()
  return undefined
}

/**
 * A tool result's cut at the door (docs/contract.md section 10.8,
 * `toolResults.ts`): `undefined` when `item` is kept as it is (not a tool
 * result, within `max`, or no attempt counted below `tokens`), else the cut
 * message with its count. Each attempt's token text is counted once (at
 * most `ToolResults.MAX_ATTEMPTS`).
 *
 * @since 0.4.0
 */
export function* cutToolResult<A extends Rewritable & { readonly toolCallId?: string | undefined }>(
  item: A,
  tokens: number,
  max: number,
  withContent: (item: A, content: string) => A
): Counting<{ readonly item: A; readonly tokens: number } | undefined> {
  if (item.toolCallId === undefined || tokens <= max) return undefined
  const content = item.content
  let current: ToolResults.Attempt | undefined = ToolResults.start(content, tokens, max)
  for (;;) {
    const candidate = withContent(item, current.content)
    const counted: number = yield candidate.tokenText
    current = ToolResults.next(content, tokens, max, current, counted)
    if (current === undefined) return counted < tokens ? { item: candidate, tokens: counted } : undefined
  }
}

/**
 * Whether {@link cutToolResult} may cut `item` counted `tokens`: what a
 * shell checks before it builds the generator (most messages are not cut).
 *
 * @since 0.4.0
 */
export const needsCut = (
  item: { readonly toolCallId?: string | undefined },
  tokens: number,
  max: number | undefined
): max is number => max !== undefined && item.toolCallId !== undefined && tokens > max

/**
 * A fold's summary as committed (docs/contract.md sections 5, 10.4, 14.2):
 * `fits` with its text and count, or over `maxSummaryTokens` with its count
 * (`SummaryBudgetError`, nothing committed).
 *
 * @since 0.4.0
 */
export type Fit =
  | { readonly fits: true; readonly summary: string; readonly tokens: number | undefined }
  | { readonly fits: false; readonly tokens: number }

/**
 * The summary a fold commits from the summarizer's `result` and the
 * ledger's merged `entries` (none without a ledger): the most entries whose
 * section fits `ledgerTokens` (a binary search: sections grow with their
 * entries), then as many of them as keep the whole summary within
 * `maxSummaryTokens` (the join may count a token more than its parts). An
 * empty summary is 0 tokens without a count. Without `maxSummaryTokens` the
 * summary is counted only when `count` is true (`fold.ts`
 * `countsSummaryAtFold`); otherwise its `tokens` is `undefined`, counted
 * when first read (docs/contract.md section 10.4).
 *
 * @since 0.4.0
 */
export function* fitSummary(
  result: string,
  entries: ReadonlyArray<string>,
  ledgerTokens: number,
  maxSummaryTokens: number | undefined,
  count: boolean = true
): Counting<Fit> {
  let lo = 0
  let hi = entries.length
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2)
    const tokens: number = yield Ledger.render(entries, mid)
    if (tokens <= ledgerTokens) lo = mid
    else hi = mid - 1
  }
  for (let n = lo;; n--) {
    const summary = entries.length === 0 ? result : Ledger.join(result, Ledger.render(entries, n))
    if (maxSummaryTokens === undefined && !count) return { fits: true, summary, tokens: summary === "" ? 0 : undefined }
    const tokens: number = summary === "" ? 0 : yield summary
    if (maxSummaryTokens === undefined || tokens <= maxSummaryTokens) return { fits: true, summary, tokens }
    if (n <= 0) return { fits: false, tokens }
  }
}

/**
 * The chunks a fold hands the summarizer (docs/contract.md section 5):
 * `undefined` (one call with every evicted message) without
 * `maxSummarizerInputTokens` or when the plan fits it.
 *
 * @since 0.4.0
 */
export const chunksOf = <A>(
  index: EvictionIndex<A>,
  plan: Plan<A>,
  maxSummarizerInputTokens: number | undefined
): ReadonlyArray<Chunk<A>> | undefined => {
  if (maxSummarizerInputTokens === undefined || plannedTokens(plan) <= maxSummarizerInputTokens) return undefined
  const chunks = index.chunks(plan, maxSummarizerInputTokens)
  return chunks.length <= 1 ? undefined : chunks
}

/**
 * One chunk to fold: its messages and the fold's state so far (the running
 * summary, or the segments).
 *
 * @since 0.4.0
 */
export interface ChunkAsk<A, S> {
  readonly messages: ReadonlyArray<A>
  readonly state: S
}

/**
 * How a fold in chunks ends: `commit` the plan it folded (the whole plan,
 * or narrowed to the chunks folded before one failed: the caller commits it
 * with `state`, then fails with the chunk's error) or nothing (`undefined`:
 * the first chunk failed).
 *
 * @since 0.4.0
 */
export type ChunksEnd<A, S> =
  | { readonly plan: Plan<A>; readonly state: S; readonly failed: boolean }
  | undefined

/**
 * A fold in chunks (docs/contract.md section 5): yields each chunk with the
 * state the chunks before it made, oldest first, and is resumed with the
 * new state, or with `undefined` when the chunk failed (its call failed or
 * its result was refused): then the chunks before it are committed as one
 * fold (the plan narrowed with `EvictionIndex.narrow`, now pending) and
 * the fold fails. `parts` is the plan's chunks ({@link chunksOf}, or the
 * whole plan as one).
 *
 * @since 0.4.0
 */
export function* foldChunks<A, S>(
  index: EvictionIndex<A>,
  plan: Plan<A>,
  parts: ReadonlyArray<Chunk<A>>,
  initial: S
): Generator<ChunkAsk<A, S>, ChunksEnd<A, S>, { readonly state: S } | undefined> {
  let state = initial
  for (let i = 0; i < parts.length; i++) {
    const answer: { readonly state: S } | undefined = yield { messages: parts[i].messages, state }
    if (answer === undefined) {
      const folded = i === 0 ? undefined : index.narrow(plan, parts[i - 1].units)
      return folded === undefined ? undefined : { plan: folded, state, failed: true }
    }
    state = answer.state
  }
  return { plan, state, failed: false }
}
