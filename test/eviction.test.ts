import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { EvictionIndex, type Measure } from "../src/core/eviction.js"
import * as Message from "../src/schema/Message.js"
import { wordCount } from "../src/services/TokenCounter.js"
import { entryOf } from "../src/strategies/internal/core.js"
import * as Arb from "./support/arbitraries.js"
import { a, call, result, u } from "./support/harness.js"
import * as SpecModel from "./support/specModel.js"

/** An index holding `messages`, each weighing its word count (or `weights[i]`). */
const indexOf = (messages: ReadonlyArray<Message.Message>, weights?: ReadonlyArray<number>) => {
  const index = new EvictionIndex<Message.Message>()
  messages.forEach((m, i) => index.append(m, entryOf(m, weights?.[i] ?? wordCount(m.tokenText))))
  return index
}

interface Budget {
  readonly budget: number
  readonly measure: Measure
}
const tokens = (budget: number): Budget => ({ budget, measure: "tokens" })
const count = (budget: number): Budget => ({ budget, measure: "messages" })

/** The original's cutoff through a plan (target = budget): how many oldest messages go; nothing changes. */
const cutoffOf = (index: EvictionIndex<Message.Message>, { budget, measure }: Budget): number => {
  const policy = { budget, measure, target: budget }
  if (!index.needsPrune(policy)) return 0
  const plan = index.plan(policy, true)
  if (plan === undefined) return 0
  index.abort(plan)
  return plan.messages.length
}

/** Plans and commits the original's prune at once; returns how many messages went. */
const pruneNow = (index: EvictionIndex<Message.Message>, { budget, measure }: Budget): number => {
  const policy = { budget, measure, target: budget }
  if (!index.needsPrune(policy)) return 0
  const plan = index.plan(policy, true)
  if (plan === undefined) return 0
  assert.isTrue(index.commit(plan))
  return plan.messages.length
}

/** Units as `[start, end)` pairs, from the model. */
const modelUnits = (messages: ReadonlyArray<Message.Message>) =>
  SpecModel.units(messages).map(({ end, start }) => [start, end])

describe("units (contract 4)", () => {
  it("makes a unit of one of every message without tool links", () => {
    const buffer = [u("u1"), a("a1"), Message.system("s"), Message.make("critic", "c")]
    assert.deepStrictEqual(modelUnits(buffer), [[0, 1], [1, 2], [2, 3], [3, 4]])
    assert.strictEqual(indexOf(buffer).unitCount, 4)
  })

  it("spans parallel calls to their last result, with interleaved messages", () => {
    const buffer = [u("u0"), call("c1", "c2"), u("u2"), result("c2"), a("a4"), result("c1"), u("u6")]
    assert.deepStrictEqual(modelUnits(buffer), [[0, 1], [1, 6], [6, 7]])
    assert.strictEqual(indexOf(buffer).unitCount, 3)
  })

  it("spans both calls when an id is reused", () => {
    const buffer = [u("u0"), call("x"), result("x"), a("a3"), call("x"), result("x"), u("u6")]
    assert.deepStrictEqual(modelUnits(buffer), [[0, 1], [1, 6], [6, 7]])
    assert.strictEqual(indexOf(buffer).unitCount, 3)
    // The first call reaches the last result with its id, even past the second call.
    const open = [call("x"), result("x"), u("u2"), call("x"), u("u4")]
    assert.deepStrictEqual(modelUnits(open), [[0, 2], [2, 3], [3, 4], [4, 5]])
    assert.strictEqual(indexOf(open).unitCount, 4)
    assert.deepStrictEqual(modelUnits([...open, result("x")]), [[0, 6]])
    assert.strictEqual(indexOf([...open, result("x")]).unitCount, 1)
  })

  it("lets a result before its call extend nothing", () => {
    assert.deepStrictEqual(modelUnits([result("x"), call("x"), u("u2")]), [[0, 1], [1, 2], [2, 3]])
    assert.strictEqual(indexOf([result("x"), call("x"), u("u2")]).unitCount, 3)
    assert.deepStrictEqual(modelUnits([result("x"), call("x"), result("x")]), [[0, 1], [1, 3]])
    assert.strictEqual(indexOf([result("x"), call("x"), result("x")]).unitCount, 2)
  })

  it("keeps orphans and unanswered calls as units of one", () => {
    const buffer = [result("z"), u("u1"), call("y"), a("a3"), result("")]
    assert.deepStrictEqual(modelUnits(buffer), [[0, 1], [1, 2], [2, 3], [3, 4], [4, 5]])
    assert.strictEqual(indexOf(buffer).unitCount, 5)
  })

  it("treats an empty id as an id", () => {
    const buffer = [call(""), u("u1"), result("")]
    assert.deepStrictEqual(modelUnits(buffer), [[0, 3]])
    assert.strictEqual(indexOf(buffer).unitCount, 1)
  })

  it("merges overlapping spans, but not adjacent ones", () => {
    const overlapping = [u("u0"), call("x"), u("u2"), call("y"), result("x"), u("u5"), result("y"), a("a7")]
    assert.deepStrictEqual(modelUnits(overlapping), [[0, 1], [1, 7], [7, 8]])
    assert.strictEqual(indexOf(overlapping).unitCount, 3)
    const adjacent = [call("x"), result("x"), call("y"), result("y")]
    assert.deepStrictEqual(modelUnits(adjacent), [[0, 2], [2, 4]])
    assert.strictEqual(indexOf(adjacent).unitCount, 2)
  })

  it("merges through a message that is both a result and a call", () => {
    const relay = Message.make("user", "relay", { toolCallId: "x", toolCalls: [{ id: "y", name: "g", arguments: "" }] })
    const buffer = [u("u0"), call("x"), relay, a("a3"), result("y"), u("u5")]
    assert.deepStrictEqual(modelUnits(buffer), [[0, 1], [1, 5], [5, 6]])
    assert.strictEqual(indexOf(buffer).unitCount, 3)
  })
})

describe("cutoff (contract 4)", () => {
  it("the contract's example: u1 a1 a2 u3, budget 10, 5 words each, evicts three", () => {
    const buffer = [u("u1"), a("a1"), a("a2"), u("u3")]
    assert.strictEqual(cutoffOf(indexOf(buffer), tokens(10)), 3)
    assert.strictEqual(SpecModel.cutoff(buffer, [5, 5, 5, 5], 10), 3)
  })

  it("evicts nothing within budget, even when the buffer opens on an assistant turn", () => {
    const buffer = [a("a1"), u("u2")]
    assert.strictEqual(cutoffOf(indexOf(buffer), tokens(10)), 0)
    assert.strictEqual(SpecModel.cutoff(buffer, [5, 5], 10), 0)
  })

  it("always keeps the newest unit, even alone over budget", () => {
    assert.strictEqual(cutoffOf(indexOf([u("u1")]), tokens(1)), 0)
    const buffer = [u("u1"), a("a1"), call("x"), u("u3"), result("x")]
    // units: u1 | a1 | call..result (5, 5 and 1 + 5 + 2 words): only the last unit stays.
    assert.strictEqual(cutoffOf(indexOf(buffer), tokens(1)), 2)
    assert.strictEqual(SpecModel.cutoff(buffer, buffer.map((m) => wordCount(m.tokenText)), 1), 2)
  })

  it("evicts a tool call with all its results and the messages between", () => {
    const buffer = [u("u0"), call("c1", "c2"), u("u2"), result("c2"), a("a4"), result("c1"), u("u6")]
    const weights = [5, 2, 5, 2, 5, 2, 5]
    // Over by 1: step 1 evicts u0 (26 -> 21), then the whole call unit (21 -> 5).
    assert.strictEqual(cutoffOf(indexOf(buffer, weights), tokens(20)), 6)
    assert.strictEqual(SpecModel.cutoff(buffer, weights, 20), 6)
    // Within 21 after u0: the call opens the buffer; it is response-like (assistant), so alignment goes on to u6.
    assert.strictEqual(cutoffOf(indexOf(buffer, weights), tokens(21)), 6)
  })

  it("cascades alignment over several response-like units", () => {
    const buffer = [u("u1"), a("a1"), a("a2"), result("zz"), u("u4"), a("a5")]
    const weights = [5, 5, 5, 5, 5, 5]
    assert.strictEqual(cutoffOf(indexOf(buffer, weights), tokens(25)), 4)
    assert.strictEqual(SpecModel.cutoff(buffer, weights, 25), 4)
  })

  it("keeps the step-1 cut when every remaining unit, the last included, is response-like", () => {
    const buffer = [u("u1"), a("a1"), a("a2"), a("a3")]
    assert.strictEqual(cutoffOf(indexOf(buffer, [5, 5, 5, 5]), tokens(10)), 2)
    assert.strictEqual(SpecModel.cutoff(buffer, [5, 5, 5, 5], 10), 2)
    const tools = [u("u1"), call("x"), result("x"), result("y")]
    // step 1 evicts u1 and the call unit; the orphan result y is response-like and last: cut stays at 3.
    assert.strictEqual(cutoffOf(indexOf(tools, [5, 5, 5, 5]), tokens(5)), 3)
    assert.strictEqual(SpecModel.cutoff(tools, [5, 5, 5, 5], 5), 3)
  })

  it("lets the last unit's first message open the buffer", () => {
    const buffer = [u("u1"), a("a1"), a("a2"), u("u3"), a("a4")]
    // step 1 evicts u1 (25 -> 20 <= 20); a1, a2 respond; u3 opens: cut 3, the last unit a4 stays.
    assert.strictEqual(cutoffOf(indexOf(buffer, [5, 5, 5, 5, 5]), tokens(20)), 3)
    const lastIsCall = [u("u1"), a("a1"), a("a2"), Message.user("go", { toolCalls: [{ id: "k", name: "f" }] })]
    assert.strictEqual(cutoffOf(indexOf(lastIsCall, [5, 5, 5, 5]), tokens(10)), 3)
    assert.strictEqual(SpecModel.cutoff(lastIsCall, [5, 5, 5, 5], 10), 3)
  })

  it("never makes system or custom roles response-like", () => {
    for (const role of ["system", "critic", "developer", "Assistant", "TOOL"]) {
      const buffer = [u("u1"), a("a1"), Message.make(role, "x w w w w"), a("a2")]
      assert.strictEqual(cutoffOf(indexOf(buffer, [5, 5, 5, 5]), tokens(10)), 2, role)
      assert.strictEqual(SpecModel.cutoff(buffer, [5, 5, 5, 5], 10), 2, role)
    }
  })

  it("makes any role with a tool call id response-like", () => {
    const buffer = [u("u1"), a("a1"), Message.user("r", { toolCallId: "q" }), u("u3"), a("a4")]
    assert.strictEqual(cutoffOf(indexOf(buffer, [5, 5, 5, 5, 5]), tokens(15)), 3)
    assert.strictEqual(SpecModel.cutoff(buffer, [5, 5, 5, 5, 5], 15), 3)
    const empty = [u("u1"), a("a1"), Message.make("critic", "r", { toolCallId: "" }), u("u3"), a("a4")]
    assert.strictEqual(cutoffOf(indexOf(empty, [5, 5, 5, 5, 5]), tokens(15)), 3)
  })

  it("counts messages under the messages measure", () => {
    const buffer = [u("u1"), a("a1"), u("u2"), a("a2"), u("u3")]
    assert.strictEqual(cutoffOf(indexOf(buffer), count(5)), 0)
    assert.strictEqual(cutoffOf(indexOf(buffer), count(4)), 2)
    assert.strictEqual(cutoffOf(indexOf(buffer), count(3)), 2)
    assert.strictEqual(cutoffOf(indexOf(buffer), count(2)), 4)
    assert.strictEqual(cutoffOf(indexOf(buffer), count(1)), 4)
  })
})

describe("EvictionIndex bookkeeping", () => {
  it("evicts, reads back and clears", () => {
    const index = indexOf([u("u1"), a("a1"), u("u2")])
    assert.strictEqual(index.size, 3)
    assert.strictEqual(index.tokens, 15)
    assert.strictEqual(pruneNow(index, tokens(5)), 2)
    assert.deepStrictEqual(index.toArray().map((m) => m.content), ["u2 w w w w"])
    assert.strictEqual(index.tokens, 5)
    index.clear()
    assert.strictEqual(index.size, 0)
    assert.strictEqual(index.tokens, 0)
    assert.strictEqual(index.unitCount, 0)
    assert.deepStrictEqual(index.toArray(), [])
  })

  it("a result arriving while its call is planned is deferred: an orphan on commit, merged on abort", () => {
    const policy = { budget: 5, measure: "tokens", target: 5 } as const
    const committed = indexOf([call("x"), u("u1"), a("a1"), u("u2")])
    const plan = committed.plan(policy, true)!
    assert.deepStrictEqual(plan.messages.map(String), [
      "assistant:  [tool calls: f({})]",
      "user: u1 w w w w",
      "assistant: a1 w w w w"
    ])
    committed.append(result("x"), entryOf(result("x"), 2))
    assert.isTrue(committed.commit(plan))
    // The call is gone: the result is now an orphan, a unit of its own; no rebuild.
    assert.deepStrictEqual(committed.toArray().map(String), ["user: u2 w w w w", "tool: ok"])
    assert.strictEqual(committed.unitCount, 2)
    assert.strictEqual(committed.tokens, 7)
    assert.strictEqual(committed.rebuilds, 0)
    assert.strictEqual(cutoffOf(committed, tokens(2)), 1)
    // Aborted: the merge the result missed is made; the call spans it again.
    const aborted = indexOf([call("x"), u("u1"), a("a1"), u("u2")])
    const late = aborted.plan(policy, true)!
    aborted.append(result("x"), entryOf(result("x"), 2))
    aborted.abort(late)
    assert.strictEqual(aborted.unitCount, 1)
    assert.strictEqual(aborted.rebuilds, 1)
    assert.isFalse(aborted.commit(late))
  })

  it("a plan voided by clear or by a newer plan commits nothing", () => {
    const policy = { budget: 5, measure: "tokens", target: 5 } as const
    const index = indexOf([u("u1"), a("a1"), u("u2")])
    const plan = index.plan(policy, true)!
    index.clear()
    assert.isFalse(index.commit(plan))
    assert.strictEqual(index.size, 0)
    const again = indexOf([u("u1"), a("a1"), u("u2")])
    const older = again.plan(policy, true)!
    const newer = again.plan(policy, true)!
    assert.isFalse(again.commit(older))
    assert.isTrue(again.commit(newer))
    assert.strictEqual(again.size, 1)
  })

  it("forgets evicted calls: a later result for them is an orphan", () => {
    const index = indexOf([call("x"), result("x"), u("u2")])
    assert.strictEqual(pruneNow(index, count(1)), 2)
    index.append(result("x"), entryOf(result("x"), 1))
    assert.strictEqual(index.unitCount, 2)
  })

  it("stays exact across thousands of appends and evictions", () => {
    const index = new EvictionIndex<Message.Message>()
    const pattern = [u("u"), call("k", "j"), result("j"), a("a"), result("k"), result("j"), a("b"), call("k")]
    let buffer: Array<Message.Message> = []
    for (let i = 0; i < 6000; i++) {
      const m = pattern[i % pattern.length]
      index.append(m, entryOf(m, wordCount(m.tokenText)))
      buffer.push(m)
      const expected = SpecModel.cutoff(buffer, buffer.map((x) => wordCount(x.tokenText)), 12)
      const cut = pruneNow(index, tokens(12))
      if (cut !== expected) assert.fail(`step ${i}: cutoff ${cut}, model ${expected}`)
      buffer = buffer.slice(cut)
      if (index.unitCount !== SpecModel.units(buffer).length) assert.fail(`step ${i}: unit count`)
    }
    assert.deepStrictEqual(index.toArray(), buffer)
    assert.strictEqual(index.rebuilds, 0)
  })
})

describe("EvictionIndex against the model", () => {
  it.prop(
    "after any sequence of appends and evictions, units and cutoff equal the model's",
    [
      fc.array(fc.tuple(Arb.message, fc.nat({ max: 9 }), fc.boolean()), { maxLength: 40 }),
      fc.integer({ min: 1, max: 30 }),
      fc.integer({ min: 1, max: 6 })
    ],
    ([ops, tokenBudget, messageBudget]) => {
      const index = new EvictionIndex<Message.Message>()
      let buffer: Array<Message.Message> = []
      let weights: Array<number> = []
      for (const [m, weight, byCount] of ops) {
        index.append(m, entryOf(m, weight))
        buffer.push(m)
        weights.push(weight)
        assert.strictEqual(index.unitCount, SpecModel.units(buffer).length)
        assert.strictEqual(cutoffOf(index, tokens(tokenBudget)), SpecModel.cutoff(buffer, weights, tokenBudget))
        assert.strictEqual(
          cutoffOf(index, count(messageBudget)),
          SpecModel.cutoff(buffer, buffer.map(() => 1), messageBudget)
        )
        const cut = pruneNow(index, byCount ? count(messageBudget) : tokens(tokenBudget))
        buffer = buffer.slice(cut)
        weights = weights.slice(cut)
        assert.deepStrictEqual(index.toArray(), buffer)
        assert.strictEqual(index.tokens, weights.reduce((x, y) => x + y, 0))
      }
    }
  )

  it.prop(
    "committing a plan made before later appends (a fold in flight) leaves the model's units",
    [fc.array(fc.tuple(fc.array(Arb.message, { minLength: 1, maxLength: 4 }), fc.nat({ max: 3 })), { maxLength: 15 })],
    ([rounds]) => {
      const index = new EvictionIndex<Message.Message>()
      let buffer: Array<Message.Message> = []
      const policy = { budget: 2, measure: "messages", target: 2 } as const
      for (const [messages, late] of rounds) {
        const early = messages.slice(0, messages.length - Math.min(late, messages.length - 1))
        const after = messages.slice(early.length)
        for (const m of early) {
          index.append(m, entryOf(m, 1))
          buffer.push(m)
        }
        const cut = cutoffOf(index, count(2))
        const plan = cut === 0 ? undefined : index.plan(policy, true)
        for (const m of after) {
          index.append(m, entryOf(m, 1))
          buffer.push(m)
        }
        if (plan !== undefined) assert.isTrue(index.commit(plan))
        buffer = buffer.slice(cut)
        assert.deepStrictEqual(index.toArray(), buffer)
        assert.strictEqual(index.unitCount, SpecModel.units(buffer).length)
        assert.strictEqual(index.tokens, buffer.length)
        assert.strictEqual(cutoffOf(index, count(2)), SpecModel.cutoff(buffer, buffer.map(() => 1), 2))
      }
    }
  )
})
