/**
 * The eviction algorithm of docs/contract.md section 4, in one pure module (no Effect):
 * units, the step-1 cutoff and alignment, kept incrementally so an append and
 * a cutoff cost O(1) amortized in the buffer's size.
 *
 * The index keeps, for the live buffer:
 * - each item with its token count and a prefix sum of counts;
 * - the starts of the units (a stack at the tail, a queue at the head):
 *   an appended tool result whose call is in the buffer merges every unit that
 *   starts after the earliest such call, so the call, the result and
 *   everything between become one unit (reused ids included);
 * - the starts of the units whose first message is not response-like, which
 *   is all that alignment needs;
 * - for each tool call id, the positions of the live messages that call it.
 *
 * Positions are absolute (they never shift on eviction); arrays are compacted
 * once their dead head outgrows their live part.
 *
 * @internal
 */

/**
 * What the index needs to know of one message.
 *
 * @internal
 */
export interface Entry {
  /** Tokens in the message's token text (a non-negative integer). */
  readonly tokens: number
  /** Role `assistant` or `tool`, or a tool call id present. */
  readonly responseLike: boolean
  /** Ids of the message's tool calls (may repeat; may be empty). */
  readonly callIds: ReadonlyArray<string>
  /** The message's tool call id, if present. */
  readonly resultId: string | undefined
}

/**
 * How the buffer's size is measured against the budget: in tokens
 * (RollingMemory) or in messages (WindowMemory).
 *
 * @internal
 */
export type Measure = "tokens" | "messages"

/**
 * An eviction policy. The default (and the only one today) is the Python
 * original's: evict the oldest units while over `budget` and more than one
 * unit remains, then align the cutoff to a turn that is not response-like.
 *
 * @internal
 */
export interface Policy {
  /** The budget, in the policy's measure (a positive integer). */
  readonly budget: number
  readonly measure: Measure
}

const COMPACT_MIN = 1024

/**
 * A growable queue of numbers with a moving head, compacted when its dead
 * part outgrows its live part.
 */
class NumberQueue {
  values: Array<number> = []
  head = 0

  get length(): number {
    return this.values.length - this.head
  }
  first(): number {
    return this.values[this.head]
  }
  last(): number {
    return this.values[this.values.length - 1]
  }
  at(i: number): number {
    return this.values[this.head + i]
  }
  push(v: number): void {
    this.values.push(v)
  }
  pop(): number | undefined {
    return this.values.length > this.head ? this.values.pop() : undefined
  }
  /** Drops leading values below `bound`. */
  dropBelow(bound: number): void {
    while (this.head < this.values.length && this.values[this.head] < bound) this.head++
    if (this.head >= COMPACT_MIN && this.head * 2 >= this.values.length) {
      this.values = this.values.slice(this.head)
      this.head = 0
    }
  }
  clear(): void {
    this.values = []
    this.head = 0
  }
}

/**
 * The live buffer plus everything eviction needs, maintained incrementally.
 *
 * @internal
 */
export class EvictionIndex<A> {
  /** Absolute position of `items[0]`. */
  private base = 0
  /** Array index of the first live item. */
  private head = 0
  private items: Array<A> = []
  private entries: Array<Entry> = []
  /** `cum[i]` = tokens of `items[0..i)`; one longer than `items`. */
  private cum: Array<number> = [0]
  private readonly unitStarts = new NumberQueue()
  /** Unit starts whose first message is not response-like. */
  private readonly openers = new NumberQueue()
  /** Tool call id -> absolute positions of live messages calling it, ascending. */
  private readonly calls = new Map<string, Array<number>>()

  /** Number of live messages. */
  get size(): number {
    return this.items.length - this.head
  }

  /** Sum of the live messages' token counts. */
  get tokens(): number {
    return this.cum[this.items.length] - this.cum[this.head]
  }

  /** Number of units in the live buffer. */
  get unitCount(): number {
    return this.unitStarts.length
  }

  /** The live messages, oldest first (a copy). */
  toArray(): Array<A> {
    return this.items.slice(this.head)
  }

  /** The `count` oldest live messages (a copy). */
  peek(count: number): Array<A> {
    return this.items.slice(this.head, this.head + count)
  }

  /** The oldest live message, if any. */
  first(): A | undefined {
    return this.size === 0 ? undefined : this.items[this.head]
  }

  /** Appends one message: O(1) amortized. */
  append(item: A, entry: Entry): void {
    const pos = this.base + this.items.length
    this.items.push(item)
    this.entries.push(entry)
    this.cum.push(this.cum[this.cum.length - 1] + entry.tokens)
    this.link(pos, entry)
  }

  /** Unit and tool-call bookkeeping for the message at `pos`. */
  private link(pos: number, entry: Entry): void {
    let joined = false
    if (entry.resultId !== undefined) {
      const positions = this.calls.get(entry.resultId)
      if (positions !== undefined) {
        const call = positions[0]
        while (this.unitStarts.length > 0 && this.unitStarts.last() > call) {
          const start = this.unitStarts.pop()!
          if (this.openers.length > 0 && this.openers.last() === start) this.openers.pop()
        }
        joined = true
      }
    }
    if (!joined) {
      this.unitStarts.push(pos)
      if (!entry.responseLike) this.openers.push(pos)
    }
    for (let i = 0; i < entry.callIds.length; i++) {
      const id = entry.callIds[i]
      const positions = this.calls.get(id)
      if (positions === undefined) this.calls.set(id, [pos])
      else if (positions[positions.length - 1] !== pos) positions.push(pos)
    }
  }

  private measureBetween(measure: Measure, from: number, to: number): number {
    return measure === "tokens" ? this.cum[to - this.base] - this.cum[from - this.base] : to - from
  }

  /**
   * The number of oldest messages the policy evicts now (0 when none):
   * step 1 and alignment of docs/contract.md section 4. Cost: proportional to the units
   * evicted, not to the buffer.
   */
  cutoff(policy: Policy): number {
    const units = this.unitStarts.length
    if (units <= 1) return 0
    let remaining = policy.measure === "tokens" ? this.tokens : this.size
    if (remaining <= policy.budget) return 0
    // Step 1: whole units, oldest first, never the last one.
    let u = 0
    while (u < units - 1 && remaining > policy.budget) {
      remaining -= this.measureBetween(policy.measure, this.unitStarts.at(u), this.unitStarts.at(u + 1))
      u++
    }
    if (u === 0) return 0
    const first = this.base + this.head
    let cut = this.unitStarts.at(u)
    // Alignment: the first unit at or after the cut whose first message is
    // not response-like, the last unit included; none keeps the step-1 cut.
    for (let i = 0; i < this.openers.length; i++) {
      const opener = this.openers.at(i)
      if (opener >= cut) {
        cut = opener
        break
      }
    }
    return cut - first
  }

  /**
   * Removes the `count` oldest messages. O(count) amortized when the cut is a
   * unit boundary (always so for a cutoff computed on the current buffer);
   * otherwise (a tool result for an evicted call arrived meanwhile) the index
   * is rebuilt from the remaining messages.
   */
  evict(count: number): void {
    if (count <= 0) return
    const n = Math.min(count, this.size)
    const newFirst = this.base + this.head + n
    for (let k = this.head; k < this.head + n; k++) {
      const ids = this.entries[k].callIds
      for (let i = 0; i < ids.length; i++) {
        const positions = this.calls.get(ids[i])
        if (positions === undefined) continue
        while (positions.length > 0 && positions[0] < newFirst) positions.shift()
        if (positions.length === 0) this.calls.delete(ids[i])
      }
    }
    this.unitStarts.dropBelow(newFirst)
    this.openers.dropBelow(newFirst)
    // The cut is a unit boundary when nothing remains or a unit starts right
    // at it; otherwise the remaining head has lost its unit start.
    const boundary = n === this.size || (this.unitStarts.length > 0 && this.unitStarts.first() === newFirst)
    this.head += n
    if (!boundary) {
      this.rebuild()
      return
    }
    if (this.head >= COMPACT_MIN && this.head * 2 >= this.items.length) this.compact()
  }

  private compact(): void {
    this.items = this.items.slice(this.head)
    this.entries = this.entries.slice(this.head)
    this.cum = this.cum.slice(this.head)
    this.base += this.head
    this.head = 0
  }

  private rebuild(): void {
    const items = this.items.slice(this.head)
    const entries = this.entries.slice(this.head)
    const base = this.base + this.head
    this.clear()
    this.base = base
    for (let i = 0; i < items.length; i++) this.append(items[i], entries[i])
  }

  /** Empties the index. */
  clear(): void {
    this.base += this.items.length
    this.head = 0
    this.items = []
    this.entries = []
    this.cum = [0]
    this.unitStarts.clear()
    this.openers.clear()
    this.calls.clear()
  }
}
