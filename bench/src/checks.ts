/**
 * Correctness of a memory on a replay, checked after every turn against
 * contract section 4 and 5, in rollmem's own terms (token text counted with the
 * same o200k_base counter): how big the buffer is, whether it breaks the
 * budget, opens on an orphaned tool result, lost the turn just added, and
 * whether every turn that left the buffer went to the summarizer exactly once.
 */
import type { Message } from "../../dist/index.js"

export interface Checks {
  turns: number
  /** Turns after which the buffer is over budget though it holds more than one unit. */
  overBudget: number
  /** Largest buffer after a turn, tokens. */
  maxBufferTokens: number
  /** Mean buffer after a turn, tokens. */
  meanBufferTokens: number
  /** Turns after which the buffer opens on a tool result whose call is not in the buffer. */
  orphanHead: number
  /** Turns after which the turn just added is not in the buffer. */
  newestMissing: number
  /** Turns that left the buffer and never reached the summarizer. */
  lost: number
  /** Turns given to the summarizer more than once. */
  summarizedTwice: number
  summarizerCalls: number
  /** Turns after which the buffer differs from the Python baseline's (rollmem only). */
  differsFromBaseline?: number
  /** Running sum of buffer sizes, for the mean. */
  sumBufferTokens: number
}

export const emptyChecks = (): Checks => ({
  turns: 0,
  overBudget: 0,
  maxBufferTokens: 0,
  meanBufferTokens: 0,
  orphanHead: 0,
  newestMissing: 0,
  lost: 0,
  summarizedTwice: 0,
  summarizerCalls: 0,
  sumBufferTokens: 0
})

/** Number of units of a buffer (contract 4), from scratch. */
export const unitCount = (buffer: ReadonlyArray<Message.Message>): number => {
  const lastResult = new Map<string, number>()
  for (let i = 0; i < buffer.length; i++) {
    const id = buffer[i].toolCallId
    if (id !== undefined) lastResult.set(id, i)
  }
  let units = 0
  let end = -1
  for (let i = 0; i < buffer.length; i++) {
    if (i > end) units++
    for (const call of buffer[i].toolCalls) {
      const j = lastResult.get(call.id)
      if (j !== undefined && j > end) end = j
    }
    if (i > end) end = i
  }
  return units
}

/**
 * Tracks one conversation: call `turn` after each add with the buffer, and
 * `summarized` with what each summarizer call was given; `finish` with the
 * final buffer folds it into the totals.
 */
export class Tracker {
  private readonly summarizedCount = new Map<Message.Message, number>()
  private readonly everAdded: Array<Message.Message> = []
  constructor(
    readonly checks: Checks,
    readonly budget: number,
    readonly tokensOf: (m: Message.Message) => number
  ) {}

  summarized(messages: ReadonlyArray<Message.Message>): void {
    this.checks.summarizerCalls++
    for (const m of messages) this.summarizedCount.set(m, (this.summarizedCount.get(m) ?? 0) + 1)
  }

  turn(added: Message.Message, buffer: ReadonlyArray<Message.Message>): void {
    const c = this.checks
    this.everAdded.push(added)
    c.turns++
    let tokens = 0
    for (const m of buffer) tokens += this.tokensOf(m)
    c.sumBufferTokens += tokens
    c.meanBufferTokens = Math.round(c.sumBufferTokens / c.turns)
    c.maxBufferTokens = Math.max(c.maxBufferTokens, tokens)
    if (tokens > this.budget && unitCount(buffer) > 1) c.overBudget++
    if (!buffer.includes(added)) c.newestMissing++
    const head = buffer[0]
    if (head !== undefined && head.toolCallId !== undefined) {
      const id = head.toolCallId
      if (!buffer.some((m) => m.toolCalls.some((call) => call.id === id))) c.orphanHead++
    }
  }

  finish(buffer: ReadonlyArray<Message.Message>): void {
    const c = this.checks
    const kept = new Set(buffer)
    for (const m of this.everAdded) {
      const n = this.summarizedCount.get(m) ?? 0
      if (n === 0 && !kept.has(m)) c.lost++
      if (n > 1) c.summarizedTwice++
    }
  }
}
