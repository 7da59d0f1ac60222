/**
 * Background folding's decisions (docs/contract.md section 5.1), pure, once
 * for both lines: which adds go in at once and which are held back by the
 * hard cap, in arrival order; when a held-back add goes in, and with what
 * outcome; whether the fold loop starts, goes on or stops; the target of the
 * fold that makes room under the cap when the budget's trigger does not hold.
 * Each line's `strategies/internal/background.ts` drives it: it runs the
 * folds in a fiber of the memory's scope, settles a held-back add's
 * `Deferred` when this module says so, and asks it after every attempt.
 *
 * @internal
 */
import type { EvictionIndex, Policy } from "./eviction.js"

/** What the decisions read of the eviction index: the buffer's measure and the budget's trigger. */
type Measured = Pick<EvictionIndex<never>, "measure" | "needsPrune">

/** How a held-back add ends: appended and succeeded (`undefined`), or appended and failed with the fold's error. */
export type Outcome<E> = undefined | { readonly error: E }

/** An add held back by the hard cap: its weight, what appends it, and what settles its caller. */
export interface Held<E> {
  readonly weight: number
  readonly append: () => void
  readonly settle: (outcome: Outcome<E>) => void
}

/**
 * The state of a memory's background folding: whether a fold loop runs,
 * whether the memory's scope closed, the last failure, and the held-back
 * adds (oldest first). Every method runs in the step of the shell's fiber
 * that calls it.
 *
 * @internal
 */
export class Folding<E> {
  /** A fold loop runs (set by {@link launch}, cleared in the step of its last check). */
  running = false
  /** The memory's scope closed: no fold starts, nothing is held back. */
  closed = false
  /** The error of the last fold that failed after its retries, until a fold commits. */
  failure: E | undefined = undefined
  private readonly queue: Array<Held<E>> = []

  constructor(
    private readonly index: Measured,
    private readonly policy: Policy,
    /** The hard cap, in the budget's measure. */
    private readonly hardMax: number
  ) {}

  /** Would `weight` more pass the cap, where a fold could make room? (Not when the unit alone is over it.) */
  wouldPass(weight: number): boolean {
    const measure = this.index.measure(this.policy.measure)
    return weight > 0 && measure > 0 && measure + weight > this.hardMax && weight <= this.hardMax
  }

  /** Whether an add of `weight` is appended at once: the scope closed, or none waits and it would not pass the cap. */
  admitsNow(weight: number): boolean {
    return this.closed || (this.queue.length === 0 && !this.wouldPass(weight))
  }

  /** Holds an add back, after the ones already waiting. */
  hold(held: Held<E>): void {
    this.queue.push(held)
  }

  /** Forgets a held-back add (its caller was interrupted: it appended nothing). */
  release(held: Held<E>): void {
    const at = this.queue.indexOf(held)
    if (at >= 0) this.queue.splice(at, 1)
  }

  /**
   * Appends the held-back adds that now fit, oldest first, each settled as
   * succeeded; with `all`, every one, each settled with `all.outcome` (the
   * folds can do no more: nothing is lost).
   */
  admit(all?: { readonly outcome: Outcome<E> }): void {
    while (this.queue.length > 0 && (all !== undefined || !this.wouldPass(this.queue[0].weight))) {
      const next = this.queue.shift()!
      next.append()
      next.settle(all?.outcome)
    }
  }

  /** Whether a fold loop should start now: after an append, the budget's trigger holds and none runs. */
  due(): boolean {
    return !this.closed && !this.running && this.index.needsPrune(this.policy)
  }

  /** Marks the loop running; `false` (start nothing) when one runs or the scope closed. */
  launch(): boolean {
    if (this.running || this.closed) return false
    this.running = true
    return true
  }

  /**
   * The target of the fold that makes room under the cap for the oldest
   * held-back add when the budget's trigger does not hold: the policy's
   * target, or lower so that the add fits; `undefined` when no add waits
   * for room.
   */
  roomTarget(): number | undefined {
    return this.queue.length > 0 && this.wouldPass(this.queue[0].weight)
      ? Math.min(this.policy.target, this.hardMax - this.queue[0].weight)
      : undefined
  }

  /**
   * After an attempt that succeeded (`folded`: a fold committed; otherwise
   * there was nothing to fold): lets in what fits, and says whether the loop
   * goes on (`true`) or stops (`running` cleared). When nothing more can be
   * folded now, the held-back adds go in anyway, and the loop goes on only
   * if that brought the trigger back.
   */
  afterFold(folded: boolean): boolean {
    if (folded) this.failure = undefined
    this.admit()
    if (!this.closed && folded && (this.index.needsPrune(this.policy) || this.roomTarget() !== undefined)) return true
    if (this.queue.length > 0) {
      this.admit({ outcome: undefined })
      if (!this.closed && this.index.needsPrune(this.policy)) return true
    }
    this.running = false
    return false
  }

  /**
   * After an attempt that failed after its retries (`error`, or `undefined`
   * for a defect or an interruption of the attempt): the loop stops, the
   * error is kept as the last failure, and the held-back adds are appended
   * and fail with it.
   */
  afterFailure(error: E | undefined): void {
    this.running = false
    if (error !== undefined) this.failure = error
    this.admit({ outcome: error === undefined ? undefined : { error } })
  }

  /** The loop was interrupted: it stops and the held-back adds go in. */
  interrupted(): void {
    this.running = false
    this.admit({ outcome: undefined })
  }

  /** The memory's scope closed: no fold starts after, the held-back adds go in. */
  close(): void {
    this.closed = true
    this.running = false
    this.admit({ outcome: undefined })
  }
}
