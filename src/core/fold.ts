/**
 * A fold's pure rules (docs/contract.md sections 5 and 14.2), no `effect`
 * import: which empty results a memory refuses, and the budget a summarizer
 * is asked for when a ledger takes part of the summary. Both Effect lines'
 * folds call them.
 *
 * @since 0.4.0
 */

/**
 * Whether a message gives a summarizer something to keep: content that is
 * not only whitespace, or a tool call.
 *
 * @since 0.4.0
 */
export const hasContent = (
  message: { readonly content: string; readonly toolCalls: ReadonlyArray<unknown> }
): boolean => message.toolCalls.length > 0 || message.content.trim() !== ""

/**
 * The description of a refused empty result (docs/contract.md section 5):
 * the result is empty or whitespace while the summary it updates was not
 * empty or an evicted turn had content; `undefined` when the result stands.
 *
 * @since 0.4.0
 */
export const emptyResult = (
  previous: string,
  messages: ReadonlyArray<{ readonly content: string; readonly toolCalls: ReadonlyArray<unknown> }>,
  result: string
): string | undefined => {
  if (result.trim() !== "") return undefined
  if (previous.trim() !== "") {
    return "summarizer returned an empty summary for a summary that was not empty: nothing committed"
  }
  return messages.some(hasContent)
    ? "summarizer returned an empty summary for evicted turns with content: nothing committed"
    : undefined
}

/**
 * The summary budget a fold passes the summarizer (docs/contract.md section
 * 10.4): `maxSummaryTokens`, less the ledger's room when there is a ledger
 * (the rules keep the ledger's budget below the summary's); `undefined`
 * without `maxSummaryTokens`.
 *
 * @since 0.4.0
 */
export const requestBudget = (
  maxSummaryTokens: number | undefined,
  ledgerTokens: number | undefined
): number | undefined =>
  maxSummaryTokens === undefined || ledgerTokens === undefined ? maxSummaryTokens : maxSummaryTokens - ledgerTokens

/**
 * The budget of a summary-only fold (docs/contract.md section 16.1): the
 * body's share of `room` (the tokens the summary may take beside the rest of
 * the context; less the ledger's budget with a ledger), capped by the
 * request's own budget; `undefined` when no such fold is due: an empty
 * summary, one already within `room`, one a summary-only fold could not
 * shorten before (`unshortened`), a memory holding a provider's compaction
 * item (`compacted`, section 15.6), or no room for a body.
 *
 * @since 0.4.0
 */
export const shortenBudget = (options: {
  readonly compacted?: boolean | undefined
  readonly summary: string
  readonly summaryTokens: number
  readonly room: number
  readonly ledgerTokens: number | undefined
  readonly requestBudget: number | undefined
  readonly unshortened: string | undefined
}): number | undefined => {
  const { room, summary } = options
  if (
    options.compacted === true || summary === "" || room >= options.summaryTokens || options.unshortened === summary
  ) {
    return undefined
  }
  const body = room - (options.ledgerTokens ?? 0)
  return body < 1 ? undefined : Math.min(body, options.requestBudget ?? body)
}

/**
 * Whether a fold counts the summary it commits (docs/contract.md section
 * 10.4): only when something needs the count at that moment: a summary
 * budget (`maxSummaryTokens`, checked at every fold), a context window (the
 * buffer's budget is the window less the reserve, the pinned messages and the
 * summary, read at every add), or summary segments (each segment's count
 * decides their consolidation). Otherwise the summary is committed
 * uncounted, and counted once when its count is first read
 * (`summaryTokens`, `contextTokens`, a usage against the context last read),
 * the count kept until the summary changes. A restored summary is counted
 * when it is restored, as before. Both Effect lines' folds call it.
 *
 * @since 0.4.0
 */
export const countsSummaryAtFold = (options: {
  readonly maxSummaryTokens: number | undefined
  readonly contextWindow: boolean
  readonly segments: boolean
}): boolean => options.maxSummaryTokens !== undefined || options.contextWindow || options.segments
