/**
 * The eviction algorithm of docs/contract.md sections 4 and 10, in one pure module (no
 * Effect): units, the step-1 cut with its low-water mark, alignment, turn
 * boundaries with their repairs, pinned messages and tool-result clearing,
 * kept incrementally so that an append costs O(1) amortized in the buffer's
 * size and a prune costs O(1) amortized per message it evicts or clears.
 *
 * The rules remove messages that are not a prefix (the kept user message of
 * a long agent turn, pinned messages left in place, orphaned tool results
 * wherever they are), so nothing here is a prefix sum over positions:
 * - the live messages form a doubly linked list (`Node`), each carrying its
 *   current token count; an eviction unlinks nodes in O(1) each;
 * - the units form a second linked list (`Unit`), each carrying the totals
 *   of its members (tokens, messages, and the part that is orphaned). An
 *   appended tool result whose call is live merges every unit from the
 *   call's to the tail into the call's unit (popped off the tail, so each
 *   unit is merged away at most once); a message finds its unit through
 *   union-find (`parent` links, compressed on the way), so clearing a tool
 *   result recounts only it and adjusts one unit's total;
 * - the units that open on a turn start, and those that open on a message
 *   that is not response-like, are two more linked lists, so the turn rules
 *   and alignment find their target without scanning;
 * - a cursor walks the tool results forward for clearing: each result is
 *   visited once, cleared or skipped for good.
 *
 * A prune is a {@link Plan}: computed under the prune lock, handed to the
 * summarizer, then committed (the planned messages go, and only they) or
 * aborted (nothing changes; clearings made for it are undone). While a plan
 * is pending, a tool result whose merge would reach into a planned unit is
 * deferred (kept as a unit of its own): on commit its call is gone and it is
 * an orphan, as section 4 says; on abort the merge it missed is made by
 * rebuilding the index (O(n), only after a failed or interrupted fold that a
 * late tool result crossed, counted in {@link EvictionIndex.rebuilds}).
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
  /** Role `user` and no tool call id: a turn start when it opens a unit (section 10.2). */
  readonly userTurn: boolean
  /** Role `system` or `developer` and no tool fields: pinned under `pinSystem` (section 10.3). */
  readonly systemLike: boolean
  /** The message's position in the conversation, when positions are kept (the archive, section 17). */
  readonly position?: number | undefined
}

/**
 * How the buffer's size is measured against the budget: in tokens
 * (RollingMemory) or in messages (WindowMemory).
 *
 * @internal
 */
export type Measure = "tokens" | "messages"

/**
 * Where a cut may fall: `"aligned"` is section 4 (the original's alignment),
 * `"turn"` is section 10.2 (turn boundaries, with repairs).
 *
 * @internal
 */
export type Boundary = "aligned" | "turn"

/**
 * What the index is built for; fixed for its life.
 *
 * @internal
 */
export interface Config<A = unknown> {
  /** section 10.3: system and developer messages are pinned. Default `false`. */
  readonly pinSystem?: boolean | undefined
  /** section 10.2. Default `"aligned"`. */
  readonly boundary?: Boundary | undefined
  /** section 10.5: tool results are tracked for clearing. Default `false`. */
  readonly clearing?: boolean | undefined
  /**
   * section 10.5 `exclude`: whether the result of the call `id` made by
   * `caller` (the latest live message calling that id, when the result is
   * appended) is never cleared. Default: none is.
   */
  readonly excluded?: ((caller: A, id: string) => boolean) | undefined
}

/**
 * An eviction policy: a prune starts when the measure of the unpinned
 * messages is over `budget`; step 1 evicts units while it is over `target`
 * (section 10.1; `target` = `budget` is the original's rule).
 *
 * @internal
 */
export interface Policy {
  readonly measure: Measure
  /** The budget, in the policy's measure (a positive integer). */
  readonly budget: number
  /** The low-water mark, at most `budget`. */
  readonly target: number
}

/** A live message. @internal */
export interface Slot<A> {
  /** The message (its cleared version once cleared). */
  readonly item: A
  /** Its current token count. */
  readonly tokens: number
}

interface Node<A> extends Slot<A> {
  item: A
  tokens: number
  readonly seq: number
  /** The message's position in the conversation (section 17), -1 when positions are not kept. */
  readonly position: number
  readonly pinned: boolean
  readonly responseLike: boolean
  readonly userTurn: boolean
  readonly callIds: ReadonlyArray<string>
  readonly resultId: string | undefined
  prev: Node<A> | undefined
  next: Node<A> | undefined
  /** The unit it joined (follow `parent` to the live one); undefined when pinned. */
  unit: Unit<A> | undefined
  live: boolean
  /** A tool result whose call is not before it (tracked in turn mode only). */
  orphan: boolean
  /** Passed by the clearing cursor (cleared, or not worth clearing). */
  visited: boolean
  /** A tool result appended while a plan was pending whose merge was deferred. */
  deferred: boolean
  /** A tool result clearing may clear (tracked in `results`): not excluded (section 10.5). */
  clearable: boolean
}

interface Unit<A> {
  first: Node<A>
  last: Node<A>
  tokens: number
  count: number
  orphanTokens: number
  orphanCount: number
  /** Set once the unit has been merged into another. */
  parent: Unit<A> | undefined
  prev: Unit<A> | undefined
  next: Unit<A> | undefined
  /** Opens on a turn start; linked in the turn-start list. */
  readonly turn: boolean
  tPrev: Unit<A> | undefined
  tNext: Unit<A> | undefined
  /** Opens on a message that is not response-like; linked in the opener list. */
  readonly opener: boolean
  oPrev: Unit<A> | undefined
  oNext: Unit<A> | undefined
  /** The id of the plan that evicts it, 0 when none. */
  plan: number
}

/**
 * A planned eviction: the messages to hand the summarizer, in buffer order.
 *
 * @internal
 */
export interface Plan<A> {
  /** The evicted messages, oldest first (in case 2 of section 10.2 not contiguous). */
  readonly messages: ReadonlyArray<A>
  /** @internal */
  readonly id: number
  /** @internal */
  readonly units: ReadonlyArray<Unit<A>>
  /** @internal orphans outside the planned units */
  readonly orphans: ReadonlyArray<Node<A>>
  /** @internal the seq of the last planned unit's first message */
  readonly reach: number
}

/**
 * A chunk of a plan's messages (see `EvictionIndex.chunks`).
 *
 * @internal
 */
export interface Chunk<A> {
  /** The chunk's messages, oldest first. */
  readonly messages: ReadonlyArray<A>
  /** How many of the plan's units this chunk and those before it hold. */
  readonly units: number
}

/**
 * The tokens a plan evicts (its units' and the orphans' outside them, as
 * counted now): what the summarizer is handed, in the buffer's measure.
 * O(planned units + orphans).
 *
 * @internal
 */
export const plannedTokens = <A>(plan: Plan<A>): number => {
  let tokens = 0
  for (let i = 0; i < plan.units.length; i++) tokens += plan.units[i].tokens
  for (let i = 0; i < plan.orphans.length; i++) tokens += plan.orphans[i].tokens
  return tokens
}

interface Cleared<A> {
  readonly node: Node<A>
  readonly item: A
  readonly tokens: number
}

const COMPACT_MIN = 64

/**
 * The live buffer plus everything eviction needs, maintained incrementally.
 *
 * @internal
 */
export class EvictionIndex<A> {
  private readonly pinSystem: boolean
  private readonly turnMode: boolean
  private readonly clearing: boolean
  private readonly excluded: ((caller: A, id: string) => boolean) | undefined
  private seq = 0
  private head: Node<A> | undefined
  private tail: Node<A> | undefined
  private uHead: Unit<A> | undefined
  private uTail: Unit<A> | undefined
  private tHead: Unit<A> | undefined
  private tTail: Unit<A> | undefined
  private oHead: Unit<A> | undefined
  private oTail: Unit<A> | undefined
  private units = 0
  private liveCount = 0
  private liveTokens = 0
  private pinnedCount = 0
  private pinnedTokens_ = 0
  private orphanTokens = 0
  private orphanCount = 0
  /** Tool call id -> live callers (turn mode: not orphaned), oldest first. */
  private readonly calls = new Map<string, Array<Node<A>>>()
  /** Live orphans, oldest first, with dead entries dropped lazily. */
  private orphans: Array<Node<A>> = []
  /** Tool results, oldest first, from the clearing cursor on. */
  private results: Array<Node<A>> = []
  private cursor = 0
  private liveResults = 0
  private liveVisited = 0
  private journal: Array<Cleared<A>> = []
  /** Tokens freed by the clearings in the journal (the pass of the prune not yet settled). */
  private freed = 0
  private journalCursor = 0
  private pending: Plan<A> | undefined
  private deferred: Array<Node<A>> = []
  private planIds = 0
  /** How many times the index was rebuilt from its messages (the O(n) fallback). */
  rebuilds = 0
  /** The id of the last plan {@link commit} evicted, 0 before any. */
  lastCommitted = 0

  constructor(config?: Config<A>) {
    this.pinSystem = config?.pinSystem === true
    this.turnMode = config?.boundary === "turn"
    this.clearing = config?.clearing === true
    this.excluded = config?.excluded
  }

  /** Number of live messages, pinned ones included. */
  get size(): number {
    return this.liveCount + this.pinnedCount
  }

  /** Sum of the live messages' token counts, pinned ones included. */
  get tokens(): number {
    return this.liveTokens + this.pinnedTokens_
  }

  /** Sum of the pinned messages' token counts. */
  get pinnedTokens(): number {
    return this.pinnedTokens_
  }

  /** The measure the budget bounds: the unpinned messages, in tokens or messages. */
  measure(measure: Measure): number {
    return measure === "tokens" ? this.liveTokens : this.liveCount
  }

  /** The newest unit's measure (0 when there is none): what no prune evicts. O(1). */
  newestUnit(measure: Measure): number {
    return this.uTail === undefined ? 0 : this.measureOf(this.uTail, measure)
  }

  /** Number of units (pinned messages are in none). */
  get unitCount(): number {
    return this.units
  }

  /** The live messages, oldest first (a copy). */
  toArray(): Array<A> {
    const out: Array<A> = []
    for (let n = this.head; n !== undefined; n = n.next) out.push(n.item)
    return out
  }

  /** The live messages' positions (section 17), oldest first: -1 where none was given. */
  positions(): Array<number> {
    const out: Array<number> = []
    for (let n = this.head; n !== undefined; n = n.next) out.push(n.position)
    return out
  }

  /**
   * The positions of a plan's messages, in the order of `plan.messages`
   * (section 17): O(planned messages).
   */
  planPositions(plan: Plan<A>): Array<number> {
    const out: Array<number> = []
    const orphans = plan.orphans
    let k = 0
    for (let i = 0; i < plan.units.length; i++) {
      const unit = plan.units[i]
      for (let n: Node<A> | undefined = unit.first; n !== undefined; n = n.next) {
        if (n.pinned) continue
        while (k < orphans.length && orphans[k].seq < n.seq) out.push(orphans[k++].position)
        out.push(n.position)
        if (n === unit.last) break
      }
    }
    while (k < orphans.length) out.push(orphans[k++].position)
    return out
  }

  /**
   * The live messages the pending prune's clearings rewrote, as they were
   * before (section 17: their original content is archived), with their
   * positions, oldest clearing first.
   */
  clearedOriginals(): Array<{ readonly item: A; readonly position: number }> {
    const out: Array<{ readonly item: A; readonly position: number }> = []
    for (let i = 0; i < this.journal.length; i++) {
      const { item, node } = this.journal[i]
      if (node.live && node.item !== item) out.push({ item, position: node.position })
    }
    return out
  }

  /**
   * A pending plan that evicts nothing, for a prune whose clearings stand
   * without a fold (section 17: they are archived before they stand):
   * {@link commit} keeps them, {@link abort} undoes them. `undefined` (the
   * clearings kept at once) when no clearing rewrote a message.
   */
  planClearings(): Plan<A> | undefined {
    let rewrote = false
    for (let i = 0; i < this.journal.length && !rewrote; i++) {
      rewrote = this.journal[i].node.live && this.journal[i].node.item !== this.journal[i].item
    }
    if (!rewrote) {
      this.keepClearings()
      return undefined
    }
    if (this.pending !== undefined) this.void(this.pending)
    const plan: Plan<A> = { id: ++this.planIds, units: [], orphans: [], reach: 0, messages: [] }
    this.pending = plan
    return plan
  }

  /** Whether `plan` is still the pending one (no clear nor newer plan voided it). */
  isPending(plan: Plan<A>): boolean {
    return this.pending === plan
  }

  /** How many pinned messages come before every unpinned one. */
  leadingPinned(): number {
    let k = 0
    for (let n = this.head; n !== undefined && n.pinned; n = n.next) k++
    return k
  }

  /** Appends one message: O(1) amortized. */
  append(item: A, entry: Entry): void {
    const node: Node<A> = {
      item,
      tokens: entry.tokens,
      seq: ++this.seq,
      position: entry.position ?? -1,
      pinned: this.pinSystem && entry.systemLike,
      responseLike: entry.responseLike,
      userTurn: entry.userTurn,
      callIds: entry.callIds,
      resultId: entry.resultId,
      prev: this.tail,
      next: undefined,
      unit: undefined,
      live: true,
      orphan: false,
      visited: false,
      deferred: false,
      clearable: false
    }
    this.attach(node)
  }

  /** Links `node` (its `prev` already the tail) after the tail and counts it: O(1) amortized. */
  private attach(node: Node<A>): void {
    if (this.tail === undefined) this.head = node
    else this.tail.next = node
    this.tail = node
    if (node.pinned) {
      this.pinnedCount++
      this.pinnedTokens_ += node.tokens
      return
    }
    this.liveCount++
    this.liveTokens += node.tokens
    node.clearable = node.resultId !== undefined && this.clearing && !this.isExcluded(node.resultId)
    if (node.clearable) {
      this.results.push(node)
      this.liveResults++
      if (node.visited) this.liveVisited++
    }
    this.link(node)
  }

  /** Whether a result of the call `id` is excluded from clearing: its latest live caller says so. O(1). */
  private isExcluded(id: string): boolean {
    if (this.excluded === undefined) return false
    const callers = this.calls.get(id)
    return callers !== undefined && this.excluded(callers[callers.length - 1].item, id)
  }

  /** Unit and tool-call bookkeeping for an appended unpinned node. */
  private link(node: Node<A>): void {
    let target: Unit<A> | undefined
    if (node.resultId !== undefined) {
      const callers = this.calls.get(node.resultId)
      if (callers === undefined) {
        if (this.turnMode) node.orphan = true
      } else {
        const unit = find(callers[0].unit!)
        const plan = this.pending
        if (plan !== undefined && unit.first.seq <= plan.reach) {
          // the merge would reach into a planned unit: settled on commit or abort
          node.deferred = true
          this.deferred.push(node)
        } else {
          target = unit
        }
      }
    }
    if (target !== undefined) {
      while (this.uTail !== target) {
        const popped = this.uTail!
        this.unlinkUnit(popped)
        popped.parent = target
        target.tokens += popped.tokens
        target.count += popped.count
        target.orphanTokens += popped.orphanTokens
        target.orphanCount += popped.orphanCount
      }
      target.last = node
      node.unit = target
      target.tokens += node.tokens
      target.count++
    } else {
      const unit: Unit<A> = {
        first: node,
        last: node,
        tokens: node.tokens,
        count: 1,
        orphanTokens: 0,
        orphanCount: 0,
        parent: undefined,
        prev: undefined,
        next: undefined,
        turn: node.userTurn,
        tPrev: undefined,
        tNext: undefined,
        opener: !node.responseLike,
        oPrev: undefined,
        oNext: undefined,
        plan: 0
      }
      node.unit = unit
      this.pushUnit(unit)
    }
    if (node.orphan) this.markOrphan(node)
    else this.registerCalls(node)
  }

  private markOrphan(node: Node<A>): void {
    node.orphan = true
    const unit = find(node.unit!)
    unit.orphanTokens += node.tokens
    unit.orphanCount++
    this.orphanTokens += node.tokens
    this.orphanCount++
    this.orphans.push(node)
  }

  private registerCalls(node: Node<A>): void {
    const ids = node.callIds
    for (let i = 0; i < ids.length; i++) {
      const callers = this.calls.get(ids[i])
      if (callers === undefined) this.calls.set(ids[i], [node])
      else if (callers[callers.length - 1] !== node) callers.push(node)
    }
  }

  private unregisterCalls(node: Node<A>): void {
    const ids = node.callIds
    for (let i = 0; i < ids.length; i++) {
      const callers = this.calls.get(ids[i])
      if (callers === undefined) continue
      const at = callers[0] === node ? 0 : callers.indexOf(node)
      if (at === 0) callers.shift()
      else if (at > 0) callers.splice(at, 1)
      if (callers.length === 0) this.calls.delete(ids[i])
    }
  }

  private pushUnit(unit: Unit<A>): void {
    this.units++
    unit.prev = this.uTail
    if (this.uTail === undefined) this.uHead = unit
    else this.uTail.next = unit
    this.uTail = unit
    if (unit.turn) {
      unit.tPrev = this.tTail
      if (this.tTail === undefined) this.tHead = unit
      else this.tTail.tNext = unit
      this.tTail = unit
    }
    if (unit.opener) {
      unit.oPrev = this.oTail
      if (this.oTail === undefined) this.oHead = unit
      else this.oTail.oNext = unit
      this.oTail = unit
    }
  }

  private unlinkUnit(unit: Unit<A>): void {
    this.units--
    if (unit.prev === undefined) this.uHead = unit.next
    else unit.prev.next = unit.next
    if (unit.next === undefined) this.uTail = unit.prev
    else unit.next.prev = unit.prev
    if (unit.turn) {
      if (unit.tPrev === undefined) this.tHead = unit.tNext
      else unit.tPrev.tNext = unit.tNext
      if (unit.tNext === undefined) this.tTail = unit.tPrev
      else unit.tNext.tPrev = unit.tPrev
    }
    if (unit.opener) {
      if (unit.oPrev === undefined) this.oHead = unit.oNext
      else unit.oPrev.oNext = unit.oNext
      if (unit.oNext === undefined) this.oTail = unit.oPrev
      else unit.oNext.oPrev = unit.oPrev
    }
  }

  private unlinkNode(node: Node<A>): void {
    node.live = false
    if (node.prev === undefined) this.head = node.next
    else node.prev.next = node.next
    if (node.next === undefined) this.tail = node.prev
    else node.next.prev = node.prev
  }

  /** Removes an unpinned node's bookkeeping (its unit's totals are the caller's). */
  private dropNode(node: Node<A>): void {
    this.unlinkNode(node)
    this.liveCount--
    this.liveTokens -= node.tokens
    if (node.orphan) {
      this.orphanCount--
      this.orphanTokens -= node.tokens
    } else {
      this.unregisterCalls(node)
    }
    if (node.clearable) {
      this.liveResults--
      if (node.visited) this.liveVisited--
    }
  }

  /** The measure without the orphans (0 outside turn mode): what the turn rules bound. */
  private effective(measure: Measure): number {
    return measure === "tokens" ? this.liveTokens - this.orphanTokens : this.liveCount - this.orphanCount
  }

  private measureOf(unit: Unit<A>, measure: Measure): number {
    return measure === "tokens" ? unit.tokens - unit.orphanTokens : unit.count - unit.orphanCount
  }

  /** A unit made of orphans only (set aside in turn mode). */
  private static pureOrphan<A>(unit: Unit<A>): boolean {
    return unit.orphanCount === unit.count
  }

  /**
   * Whether an add must prune: the unpinned messages are over the budget,
   * or, in turn mode, a repair is due (an orphaned tool result, a tool
   * result whose merge waits on a pending plan, or a buffer that holds a
   * turn start but does not open with one). O(1).
   */
  needsPrune(policy: Policy): boolean {
    if (this.measure(policy.measure) > policy.budget) return true
    return this.turnMode && this.needsRepair()
  }

  private needsRepair(): boolean {
    return this.orphanCount > 0 || this.deferred.length > 0 || (this.tHead !== undefined && this.uHead !== this.tHead)
  }

  /**
   * Computes a prune (section 4, 10.1, 10.2; pinned messages are in no unit and
   * stay): `undefined` when it evicts nothing. `over` says whether the prune
   * started over the budget (step 1 and clearing run only then). The plan
   * stays pending until {@link commit} or {@link abort}. Cost: O(1) plus
   * O(1) amortized per planned message.
   */
  plan(policy: Policy, over: boolean): Plan<A> | undefined {
    // only a synchronous summarizer that adds to its own memory plans again
    // while a plan is pending: the older plan is void (its commit does nothing)
    if (this.pending !== undefined) this.void(this.pending)
    const measure = policy.measure
    const target = policy.target
    const turn = this.turnMode
    // the newest unit that is not orphans only: never evicted by step 1 or case 2
    let newest = this.uTail
    while (newest !== undefined && turn && EvictionIndex.pureOrphan(newest)) newest = newest.prev
    let remaining = this.effective(measure)
    const evict: Array<Unit<A>> = []
    // Step 1: whole units, oldest first, never the newest, while over the target.
    let cut = this.uHead
    if (over) {
      while (cut !== undefined && cut !== newest && remaining > target) {
        if (!(turn && EvictionIndex.pureOrphan(cut))) {
          remaining -= this.measureOf(cut, measure)
          evict.push(cut)
        }
        cut = cut.next
      }
    }
    const stepOne = evict.length > 0
    const cutSeq = cut === undefined ? Infinity : cut.first.seq
    if (turn && this.tHead !== undefined) {
      let t = this.tHead
      while (t.tNext !== undefined && t.first.seq < cutSeq) t = t.tNext
      if (t.first.seq >= cutSeq) {
        // Case 1: the cut moves to the first turn start at or after it.
        for (let u = cut; u !== undefined && u !== t; u = u.next) {
          if (!EvictionIndex.pureOrphan(u)) evict.push(u)
        }
      } else {
        // Case 2: keep the last turn start before the cut; evict the units
        // before it, then those after it while over the target.
        evict.length = 0
        remaining = this.effective(measure)
        for (let u = this.uHead; u !== undefined && u !== t; u = u.next) {
          if (EvictionIndex.pureOrphan(u)) continue
          remaining -= this.measureOf(u, measure)
          evict.push(u)
        }
        // remaining is now T plus everything after it: evict the oldest after T
        for (let u = t.next; u !== undefined && u !== newest && remaining > target; u = u.next) {
          if (EvictionIndex.pureOrphan(u)) continue
          remaining -= this.measureOf(u, measure)
          evict.push(u)
        }
      }
    } else if (stepOne) {
      // Alignment (section 4 step 3; case 3 of section 10.2): the first unit at or
      // after the cut that opens on a message that is not response-like.
      let o = this.oHead
      while (o !== undefined && o.first.seq < cutSeq) o = o.oNext
      if (o !== undefined) {
        for (let u = cut; u !== undefined && u !== o; u = u.next) {
          if (!(turn && EvictionIndex.pureOrphan(u))) evict.push(u)
        }
      }
    }
    const orphans = turn ? this.liveOrphans() : []
    if (evict.length === 0 && orphans.length === 0) return undefined
    const id = ++this.planIds
    let reach = 0
    for (let i = 0; i < evict.length; i++) {
      evict[i].plan = id
      if (evict[i].first.seq > reach) reach = evict[i].first.seq
    }
    const outside = orphans.filter((n) => find(n.unit!).plan !== id)
    const plan: Plan<A> = { id, units: evict, orphans: outside, reach, messages: this.collect(evict, outside) }
    this.pending = plan
    return plan
  }

  /**
   * Plans the eviction of every unit (SummaryMemory folds every pending
   * turn): `undefined` when the buffer is empty.
   */
  planAll(): Plan<A> | undefined {
    if (this.pending !== undefined) this.void(this.pending)
    if (this.uHead === undefined) return undefined
    const id = ++this.planIds
    const units: Array<Unit<A>> = []
    for (let u: Unit<A> | undefined = this.uHead; u !== undefined; u = u.next) {
      u.plan = id
      units.push(u)
    }
    const plan: Plan<A> = { id, units, orphans: [], reach: this.uTail!.first.seq, messages: this.collect(units, []) }
    this.pending = plan
    return plan
  }

  /** The live orphans, oldest first; compacts the list on the way. */
  private liveOrphans(): Array<Node<A>> {
    if (this.orphanCount === 0) {
      this.orphans = []
      return this.orphans
    }
    const live = this.orphans.filter((n) => n.live && n.orphan)
    // a deferred result orphaned by a commit joins the list out of order
    for (let i = 1; i < live.length; i++) {
      if (live[i - 1].seq > live[i].seq) {
        live.sort((x, y) => x.seq - y.seq)
        break
      }
    }
    this.orphans = live
    return live
  }

  /** The messages of the planned units and orphans, in buffer order. */
  private collect(units: ReadonlyArray<Unit<A>>, orphans: ReadonlyArray<Node<A>>): Array<A> {
    // the planned units are in buffer order already
    const sorted = units
    const out: Array<A> = []
    let k = 0
    for (let i = 0; i < sorted.length; i++) {
      const unit = sorted[i]
      for (let n: Node<A> | undefined = unit.first; n !== undefined; n = n.next) {
        if (n.pinned) continue
        while (k < orphans.length && orphans[k].seq < n.seq) out.push(orphans[k++].item)
        out.push(n.item)
        if (n === unit.last) break
      }
    }
    while (k < orphans.length) out.push(orphans[k++].item)
    return out
  }

  /**
   * Evicts exactly the planned messages, if the plan is still the pending
   * one (a {@link clear} or a newer plan voids it): returns whether it did.
   * Deferred tool results whose call went become orphans. O(planned messages).
   */
  commit(plan: Plan<A>): boolean {
    if (this.pending !== plan) return false
    this.pending = undefined
    this.lastCommitted = plan.id
    this.settleJournal()
    for (let i = 0; i < plan.units.length; i++) {
      const unit = plan.units[i]
      unit.plan = 0
      this.unlinkUnit(unit)
      for (let n: Node<A> | undefined = unit.first; n !== undefined;) {
        const next: Node<A> | undefined = n === unit.last ? undefined : n.next
        if (!n.pinned) this.dropNode(n)
        n = next
      }
    }
    for (let i = 0; i < plan.orphans.length; i++) this.evictInside(plan.orphans[i])
    this.settleDeferred(true)
    if (this.orphans.length >= COMPACT_MIN && this.orphans.length > 2 * this.orphanCount) this.liveOrphans()
    this.compactResults()
    return true
  }

  /** Evicts one node from wherever it sits in its unit (an orphan: never a unit's first or last of several). */
  private evictInside(node: Node<A>): void {
    const unit = find(node.unit!)
    unit.tokens -= node.tokens
    unit.count--
    if (node.orphan) {
      unit.orphanTokens -= node.tokens
      unit.orphanCount--
    }
    this.dropNode(node)
    if (unit.count === 0) this.unlinkUnit(unit)
    else if (unit.first === node || unit.last === node) this.rebuild()
  }

  /**
   * Settles the tool results deferred while a plan was pending: after a
   * commit, one whose call went is an orphan (section 4); any other (its call
   * is still there, or the plan was aborted) needs the merge it missed,
   * made by rebuilding the index.
   */
  private settleDeferred(committed: boolean): void {
    if (this.deferred.length === 0) return
    const deferred = this.deferred
    this.deferred = []
    let rebuild = !committed
    for (let i = 0; i < deferred.length && !rebuild; i++) {
      const node = deferred[i]
      if (!node.live) continue
      node.deferred = false
      const callers = this.calls.get(node.resultId!)
      if (callers !== undefined && callers[0].seq < node.seq) rebuild = true
      else if (this.turnMode) {
        if (node.callIds.length > 0) rebuild = true
        else {
          this.unregisterCalls(node)
          this.markOrphan(node)
        }
      }
    }
    if (rebuild) this.rebuild()
  }

  /**
   * The pending plan's messages in chunks for a summarizer that takes at
   * most `maxTokens` at a time (docs/contract.md section 5,
   * `maxSummarizerInputTokens`), oldest first: whole units, as many as stay
   * within `maxTokens` (at least one), each chunk ending where a fold could
   * end (before a unit that opens a turn in turn mode, on a message that is
   * not response-like otherwise), so a chunk may be over it; the orphans
   * before a unit go with the chunk before it. `units` is how many of the
   * plan's units the chunks up to this one hold (what {@link narrow} takes).
   * One chunk when all fit. O(planned messages).
   */
  chunks(plan: Plan<A>, maxTokens: number): Array<Chunk<A>> {
    const out: Array<Chunk<A>> = []
    const orphans = plan.orphans
    let messages: Array<A> = []
    let tokens = 0
    let k = 0
    for (let i = 0; i < plan.units.length; i++) {
      const unit = plan.units[i]
      while (k < orphans.length && orphans[k].seq < unit.first.seq) {
        messages.push(orphans[k].item)
        tokens += orphans[k++].tokens
      }
      const own: Array<A> = []
      let ownTokens = 0
      for (let n: Node<A> | undefined = unit.first; n !== undefined; n = n.next) {
        if (!n.pinned) {
          while (k < orphans.length && orphans[k].seq < n.seq) {
            own.push(orphans[k].item)
            ownTokens += orphans[k++].tokens
          }
          own.push(n.item)
          ownTokens += n.tokens
        }
        if (n === unit.last) break
      }
      const breaks = this.turnMode ? unit.turn : unit.opener
      if (messages.length > 0 && breaks && tokens + ownTokens > maxTokens) {
        out.push({ messages, units: i })
        messages = []
        tokens = 0
      }
      for (let j = 0; j < own.length; j++) messages.push(own[j])
      tokens += ownTokens
    }
    while (k < orphans.length) messages.push(orphans[k++].item)
    if (messages.length > 0 || out.length === 0) out.push({ messages, units: plan.units.length })
    return out
  }

  /**
   * Narrows the pending plan to its `units` oldest units and the orphans
   * before the first one left out (the chunks a summarizer folded before
   * one failed): the narrowed plan is pending instead, the units left out
   * are no longer planned. `undefined` (nothing changed) when the plan is
   * not pending or `units` is 0; the plan itself when it keeps them all.
   */
  narrow(plan: Plan<A>, units: number): Plan<A> | undefined {
    if (this.pending !== plan || units <= 0) return undefined
    if (units >= plan.units.length) return plan
    const kept = plan.units.slice(0, units)
    const bound = plan.units[units].first.seq
    const orphans = plan.orphans.filter((n) => n.seq < bound)
    for (let i = units; i < plan.units.length; i++) plan.units[i].plan = 0
    // the same reach: a merge into the units left out is still settled on commit
    const narrowed: Plan<A> = {
      id: plan.id,
      units: kept,
      orphans,
      reach: plan.reach,
      messages: this.collect(kept, orphans)
    }
    this.pending = narrowed
    return narrowed
  }

  /** Drops a pending plan: nothing is evicted, and the clearings made for it are undone. */
  abort(plan: Plan<A>): void {
    if (this.pending !== plan) return
    this.undoClearings()
    this.void(plan)
  }

  private void(plan: Plan<A>): void {
    this.pending = undefined
    for (let i = 0; i < plan.units.length; i++) plan.units[i].plan = 0
    this.settleDeferred(false)
  }

  /**
   * Ends a prune that planned nothing (or whose clearings stand without a
   * plan): its clearings are kept.
   */
  keepClearings(): void {
    this.settleJournal()
  }

  /** Undoes the clearings made since the last prune settled. */
  undoClearings(): void {
    const journal = this.journal
    this.settleJournal()
    for (let i = journal.length - 1; i >= 0; i--) {
      const { item, node, tokens } = journal[i]
      if (!node.live) continue
      if (node.item !== item) this.retoken(node, tokens)
      node.item = item
      node.visited = false
      this.liveVisited--
    }
    if (journal.length > 0) this.cursor = Math.min(this.cursor, this.journalCursor)
  }

  /**
   * The oldest tool result the clearing cursor has not passed, if it is not
   * among the `keep` most recent live tool results (section 10.5).
   */
  nextClearable(keep: number): Slot<A> | undefined {
    const results = this.results
    while (this.cursor < results.length && (!results[this.cursor].live || results[this.cursor].visited)) this.cursor++
    if (this.cursor >= results.length) return undefined
    return this.liveResults - this.liveVisited - 1 >= keep ? results[this.cursor] : undefined
  }

  /**
   * Passes the clearing cursor over `slot` (from {@link nextClearable}),
   * replacing its message by `item` counted `tokens` when given (the unit's
   * total and the buffer's change by the difference only). Recorded so that
   * an aborted prune undoes it.
   */
  passClearable(slot: Slot<A>, item?: A, tokens?: number): void {
    const node = slot as Node<A>
    if (this.journal.length === 0) this.journalCursor = this.cursor
    this.journal.push({ node, item: node.item, tokens: node.tokens })
    node.visited = true
    this.liveVisited++
    this.cursor++
    if (item !== undefined && tokens !== undefined) {
      node.item = item
      this.freed += node.tokens - tokens
      this.retoken(node, tokens)
    }
  }

  /** The journal's clearings are settled (kept or undone): a new pass starts. */
  private settleJournal(): void {
    this.journal = []
    this.freed = 0
  }

  /** Tokens freed by the clearings of the prune not yet settled (section 10.5 `atLeast`). O(1). */
  get clearedTokens(): number {
    return this.freed
  }

  private retoken(node: Node<A>, tokens: number): void {
    const delta = tokens - node.tokens
    node.tokens = tokens
    const unit = find(node.unit!)
    unit.tokens += delta
    this.liveTokens += delta
    if (node.orphan) {
      unit.orphanTokens += delta
      this.orphanTokens += delta
    }
  }

  private compactResults(): void {
    if (this.cursor >= COMPACT_MIN && this.cursor * 2 >= this.results.length && this.journal.length === 0) {
      this.results = this.results.slice(this.cursor)
      this.cursor = 0
    }
  }

  /**
   * Rebuilds every structure from the live messages in order: O(n). Only a
   * fold that a late tool result crossed and that then failed, or rarer
   * shapes (an orphaned result that is also a call, in turn mode), need it.
   */
  private rebuild(): void {
    this.rebuilds++
    const nodes: Array<Node<A>> = []
    for (let n = this.head; n !== undefined; n = n.next) nodes.push(n)
    const journal = this.journal
    const freed = this.freed
    this.reset()
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i]
      n.prev = this.tail
      n.next = undefined
      n.unit = undefined
      n.orphan = false
      n.deferred = false
      this.attach(n)
    }
    // the clearing cursor restarts at the first result not yet passed
    this.journal = journal
    this.freed = freed
    this.journalCursor = 0
  }

  private reset(): void {
    this.head = undefined
    this.tail = undefined
    this.uHead = undefined
    this.uTail = undefined
    this.tHead = undefined
    this.tTail = undefined
    this.oHead = undefined
    this.oTail = undefined
    this.units = 0
    this.liveCount = 0
    this.liveTokens = 0
    this.pinnedCount = 0
    this.pinnedTokens_ = 0
    this.orphanTokens = 0
    this.orphanCount = 0
    this.calls.clear()
    this.orphans = []
    this.results = []
    this.cursor = 0
    this.liveResults = 0
    this.liveVisited = 0
    this.settleJournal()
    this.pending = undefined
    this.deferred = []
  }

  /** Empties the index; a pending plan is void. */
  clear(): void {
    for (let n = this.head; n !== undefined; n = n.next) n.live = false
    this.reset()
  }
}

/**
 * Whether a clearing pass goes on (section 10.5): while the buffer's
 * `measure` is over the `target`, or the pass has `freed` fewer tokens than
 * `atLeast` (0 when not given), as long as a result is left to clear.
 *
 * @internal
 */
export const clearingGoesOn = (measure: number, target: number, freed: number, atLeast: number): boolean =>
  measure > target || freed < atLeast

/**
 * Whether a clearing pass stands (section 10.5): it freed at least `atLeast`
 * tokens; otherwise every clearing of the pass is undone before the prune
 * goes on.
 *
 * @internal
 */
export const clearingStands = (freed: number, atLeast: number): boolean => freed >= atLeast

/** The live unit a unit was merged into (itself when live), compressing the path. */
const find = <A>(unit: Unit<A>): Unit<A> => {
  let root = unit
  while (root.parent !== undefined) root = root.parent
  let u = unit
  while (u.parent !== undefined && u.parent !== root) {
    const next: Unit<A> = u.parent
    u.parent = root
    u = next
  }
  return root
}
