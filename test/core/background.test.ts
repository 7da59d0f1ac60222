/**
 * Background folding's decisions in the pure core (`src/core/background.ts`),
 * over a stand-in for the eviction index whose buffer measure the test sets:
 * which adds go in at once, which wait for the hard cap, in what order they
 * go in and how they end, and when the fold loop goes on. Both lines'
 * background folders drive this same class.
 */
import { assert, describe, it } from "@effect/vitest"
import { Folding, type Held, type Outcome } from "../../src/core/background.js"
import type { Policy } from "../../src/core/eviction.js"

const policy: Policy = { measure: "tokens", budget: 100, target: 50 }

/** A buffer measured by `tokens`; the budget's trigger is `tokens > budget`. */
const buffer = () => {
  const b = {
    tokens: 0,
    measure: () => b.tokens,
    needsPrune: (p: Policy) => b.tokens > p.budget
  }
  return b
}

/** A held-back add of `weight` that records its append and its outcome in `log`. */
const add = (log: Array<string>, name: string, weight: number, b: { tokens: number }): Held<string> => ({
  weight,
  append: () => {
    b.tokens += weight
    log.push(`append ${name}`)
  },
  settle: (outcome: Outcome<string>) =>
    log.push(outcome === undefined ? `ok ${name}` : `fail ${name}: ${outcome.error}`)
})

describe("core/background Folding", () => {
  it("admits at once under the cap, holds back what would pass it, never a unit over the cap alone", () => {
    const b = buffer()
    const state = new Folding<string>(b, policy, 200)
    assert.strictEqual(state.admitsNow(150), true) // an empty buffer: no fold could make room
    b.tokens = 150
    assert.strictEqual(state.admitsNow(50), true) // 200 is the cap, not past it
    assert.strictEqual(state.admitsNow(51), false)
    assert.strictEqual(state.admitsNow(201), true) // alone over the cap: holding it back cannot help
    assert.strictEqual(state.admitsNow(0), true)
    const log: Array<string> = []
    state.hold(add(log, "a", 60, b))
    assert.strictEqual(state.admitsNow(1), false) // one waits: later adds queue behind it
    assert.strictEqual(state.roomTarget(), 50) // min(target 50, cap 200 - 60)
  })

  it("a fold lets the held-back adds in oldest first as they fit, then the loop stops", () => {
    const b = buffer()
    b.tokens = 150
    const state = new Folding<string>(b, policy, 200)
    const log: Array<string> = []
    state.hold(add(log, "a", 60, b))
    state.hold(add(log, "b", 30, b))
    assert.strictEqual(state.due(), true)
    assert.strictEqual(state.launch(), true)
    assert.strictEqual(state.launch(), false) // one loop at a time
    assert.strictEqual(state.due(), false)
    b.tokens = 50 // a fold committed
    assert.strictEqual(state.afterFold(true), true) // 50 + 60 + 30 = 140: over the budget, the loop goes on
    assert.deepStrictEqual(log, ["append a", "ok a", "append b", "ok b"])
    assert.strictEqual(b.tokens, 140)
    assert.strictEqual(state.running, true)
    b.tokens = 50
    assert.strictEqual(state.afterFold(true), false) // within the budget, none waits: it stops
    assert.strictEqual(state.running, false)
  })

  it("goes on while the trigger holds after a fold, and when an add still waits for room", () => {
    const b = buffer()
    b.tokens = 190
    const state = new Folding<string>(b, policy, 200)
    const log: Array<string> = []
    state.hold(add(log, "a", 110, b))
    state.launch()
    b.tokens = 120 // folded, still over the budget, and 120 + 110 passes the cap
    assert.strictEqual(state.afterFold(true), true)
    assert.deepStrictEqual(log, [])
    b.tokens = 100
    assert.strictEqual(state.afterFold(true), true) // within the budget, but a goes in only at 90 or less
    assert.strictEqual(state.roomTarget(), 50) // min(target 50, cap 200 - 110)
    assert.strictEqual(state.afterFold(false), true) // nothing more to fold: a goes in anyway, and
    assert.deepStrictEqual(log, ["append a", "ok a"]) // 210 is over the budget, so the loop goes on
    assert.strictEqual(b.tokens, 210)
    assert.strictEqual(state.running, true)
  })

  it("a failed fold stops the loop, is kept as the last failure until a fold commits, and fails the held-back adds after appending them", () => {
    const b = buffer()
    b.tokens = 180
    const state = new Folding<string>(b, policy, 200)
    const log: Array<string> = []
    state.hold(add(log, "a", 40, b))
    state.launch()
    state.afterFailure("summarizer down")
    assert.deepStrictEqual(log, ["append a", "fail a: summarizer down"])
    assert.strictEqual(state.failure, "summarizer down")
    assert.strictEqual(state.running, false)
    state.launch()
    b.tokens = 10
    state.afterFold(false)
    assert.strictEqual(state.failure, "summarizer down") // nothing folded: the failure stands
    state.launch()
    state.afterFold(true)
    assert.strictEqual(state.failure, undefined)
  })

  it("a released add is forgotten; closing lets the rest in and starts nothing after", () => {
    const b = buffer()
    b.tokens = 180
    const state = new Folding<string>(b, policy, 200)
    const log: Array<string> = []
    const a = add(log, "a", 40, b)
    state.hold(a)
    state.hold(add(log, "b", 30, b))
    state.release(a)
    state.close()
    assert.deepStrictEqual(log, ["append b", "ok b"])
    assert.strictEqual(state.launch(), false)
    assert.strictEqual(state.due(), false)
    assert.strictEqual(state.admitsNow(1_000), true)
  })
})
