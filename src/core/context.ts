/**
 * What a memory reads back beside its buffer (docs/contract.md sections
 * 10.10 and 15.6), pure, once for both lines: a provider's compaction item
 * first, then the summary's messages, after the pinned messages that come
 * first; and the tokens they take.
 *
 * @since 0.4.0
 */
import { METADATA_KEY } from "./formats/engine.js"

/**
 * The fields of the message a state's compaction reads back as
 * (docs/contract.md section 15.6): an `assistant` message holding its
 * readable `content`, the item kept under `"rollmem.provider"` as its
 * provider's reader keeps it (an Anthropic assistant message whose one
 * block is the compaction block; the OpenAI Responses item itself), so that
 * provider's writer writes it verbatim. Each line builds its `Message` of them.
 *
 * @since 0.4.0
 */
export const compactionFields = (compaction: {
  readonly format: "anthropic" | "openai-responses"
  readonly item: unknown
  readonly content: string
}): {
  readonly role: "assistant"
  readonly content: string
  readonly metadata: { readonly [METADATA_KEY]: unknown }
} => ({
  role: "assistant",
  content: compaction.content,
  metadata: {
    [METADATA_KEY]: {
      format: compaction.format,
      items: compaction.format === "anthropic"
        ? [{ role: "assistant", content: [compaction.item] }]
        : [compaction.item],
      messages: 1
    }
  }
})

/**
 * What the context holds besides the buffer, in tokens (docs/contract.md
 * sections 10.10 and 15.6): the compaction's content, the summary and, with
 * a summary, its framing line.
 *
 * @since 0.4.0
 */
export const leadTokens = (lead: {
  readonly compactionTokens: number
  readonly summaryTokens: number
  readonly summary: string
  readonly framingTokens: number
}): number => besideSummary(lead) + lead.summaryTokens

/**
 * What the context holds besides the buffer and the summary's own count
 * (docs/contract.md sections 10.4, 10.10 and 15.6): the compaction's content
 * and, with a summary, its framing line; what a read adds to a summary's
 * count, made when it is first read.
 *
 * @since 0.4.0
 */
export const besideSummary = (lead: {
  readonly compactionTokens: number
  readonly summary: string
  readonly framingTokens: number
}): number => lead.compactionTokens + (lead.summary === "" ? 0 : lead.framingTokens)

/**
 * The context read back (docs/contract.md sections 5, 10.3 and 15.6):
 * `buffer` (a fresh array, changed in place and returned) with, after its
 * `leadingPinned` first messages, the compaction's message (when there is
 * one), then the summary's messages.
 *
 * @since 0.4.0
 */
export const withLead = <M>(
  buffer: Array<M>,
  leadingPinned: number,
  compaction: M | undefined,
  summary: ReadonlyArray<M>
): Array<M> => {
  if (compaction === undefined && summary.length === 0) return buffer
  buffer.splice(leadingPinned, 0, ...(compaction === undefined ? summary : [compaction, ...summary]))
  return buffer
}

/**
 * The context window's rule for the pinned messages (docs/contract.md
 * section 16.1), checked before an add appends anything: no prune can evict
 * a pinned message, so once the pinned messages (with a provider's
 * compaction item) alone are over the budget `whole` (the window less the
 * reserve, in the counter's tokens), no fold can bring the context back.
 * `"refuse"`: the add's pinned messages (`incomingPinned` tokens, 0 when it
 * holds none) would take them over; the add fails before it appends,
 * prunes or calls the summarizer. `"over"`: they are over already (a state
 * restored into a smaller window); the add appends its messages and fails
 * before any prune. `undefined`: today's rules.
 *
 * @since 1.0.0
 */
export const pinnedOverflow = (budget: {
  readonly whole: number
  readonly pinnedTokens: number
  readonly compactionTokens: number
  readonly incomingPinned: number
}): "refuse" | "over" | undefined => {
  const held = budget.pinnedTokens + budget.compactionTokens
  if (budget.incomingPinned > 0 && held + budget.incomingPinned > budget.whole) return "refuse"
  return held > budget.whole ? "over" : undefined
}

/**
 * The message of a `ContextWindowError` (docs/contract.md section 16.1), on
 * both lines: with `messageTokens`, the refused pinned message; else the
 * pinned messages and the summary over the window. `room` is the room in
 * the memory's own tokens at a usage ratio other than 1.
 *
 * @since 1.0.0
 */
export const contextWindowMessage = (error: {
  readonly windowTokens: number
  readonly reserveTokens: number
  readonly pinnedTokens: number
  readonly summaryTokens: number
  readonly messageTokens?: number | undefined
  readonly compactionTokens?: number | undefined
  readonly usageRatio?: number | undefined
  readonly room?: number | undefined
}): string => {
  const whole = error.windowTokens - error.reserveTokens
  const corrected = error.usageRatio === undefined || error.usageRatio === 1 || error.room === undefined
    ? ""
    : `; ${error.room} in the memory's tokens at the usage ratio ${error.usageRatio}`
  const limit =
    `the context window less the reserve (${error.windowTokens} - ${error.reserveTokens} = ${whole}${corrected})`
  if (error.messageTokens === undefined) {
    return `pinned messages (${error.pinnedTokens} tokens) and summary (${error.summaryTokens}) exceed ${limit}`
  }
  const compaction = error.compactionTokens ?? 0
  const beside = compaction === 0 ? "" : ` and the compaction item (${compaction})`
  return `pinned message (${error.messageTokens} tokens) cannot fit: with the pinned messages held (${error.pinnedTokens})${beside} it would exceed ${limit}; not added`
}
