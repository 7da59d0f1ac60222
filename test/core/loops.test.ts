/**
 * The count-driven loops of the pure core (`src/core/loops.ts`), driven
 * with a plain counter: what each asks to count, in order, and what it
 * decides. Both lines' shells drive these same generators.
 */
import { assert, describe, it } from "@effect/vitest"
import { EvictionIndex } from "../../src/core/eviction.js"
import * as Fold from "../../src/core/fold.js"
import * as Loops from "../../src/core/loops.js"
import { entryOf } from "../../src/core/message.js"
import { pruningOf } from "../../src/core/policy.js"
import * as Message from "../../src/schema/Message.js"
import { wordCount } from "../../src/services/TokenCounter.js"
import { withContent } from "../../src/strategies/internal/policy.js"
import { a, call, result, u } from "../support/harness.js"

/** Runs a counting with the word count, recording each text it asks for. */
const recorded = <R>(counting: Loops.Counting<R>) => {
  const asked: Array<string> = []
  const value = Loops.runCounting(counting, (text) => {
    asked.push(text)
    return wordCount(text)
  })
  return { asked, value }
}

const indexOf = (messages: ReadonlyArray<Message.Message>, clearing = false) => {
  const index = new EvictionIndex<Message.Message>({ clearing })
  for (const m of messages) index.append(m, entryOf(m, wordCount(m.tokenText)))
  return index
}

const words = (n: number): string => Array.from({ length: n }, (_, i) => `w${i}`).join(" ")

describe("cutToolResult (contract 10.8)", () => {
  it("keeps a message that is not a tool result, or is within the limit, asking nothing", () => {
    assert.deepStrictEqual(recorded(Loops.cutToolResult(u("u1"), 5, 2, withContent)), { asked: [], value: undefined })
    const small = result("c1", "a b")
    assert.deepStrictEqual(recorded(Loops.cutToolResult(small, 3, 3, withContent)), { asked: [], value: undefined })
    assert.isFalse(Loops.needsCut(small, 3, 3))
    assert.isFalse(Loops.needsCut(small, 4, undefined))
    assert.isTrue(Loops.needsCut(small, 4, 3))
  })

  it("counts each attempt once and keeps the first within the limit", () => {
    // 40 words and the id: 41 tokens; the first attempt keeps 10 tokens' worth
    const big = result("c1", words(40))
    const { asked, value } = recorded(Loops.cutToolResult(big, 41, 10, withContent))
    assert.strictEqual(asked.length, 2)
    assert.strictEqual(wordCount(asked[0]), 17)
    assert.strictEqual(wordCount(asked[1]), 10)
    assert.strictEqual(value?.tokens, 10)
    assert.strictEqual(value?.item.toolCallId, "c1")
    // the second attempt keeps 10 - (17 - 10) = 3 tokens' worth: 10 of the 149 code units, cut inside a word
    assert.strictEqual(value?.item.content, "w0 w1\n[... 38 tokens cut ...]\n8 w39")
  })

  it("keeps the original when no attempt counts below it", () => {
    const big = result("c1", words(4))
    const value = Loops.runCounting(Loops.cutToolResult(big, 5, 1, withContent), () => 9)
    assert.strictEqual(value, undefined)
  })
})

describe("fitSummary (contract 14.2)", () => {
  it("without entries: the result counted once, over the budget refused", () => {
    assert.deepStrictEqual(recorded(Loops.fitSummary("a b c", [], 0, 5)), {
      asked: ["a b c"],
      value: { fits: true, summary: "a b c", tokens: 3 }
    })
    assert.deepStrictEqual(recorded(Loops.fitSummary("a b c", [], 0, 2)).value, { fits: false, tokens: 3 })
    assert.deepStrictEqual(recorded(Loops.fitSummary("", [], 0, 2)), {
      asked: [],
      value: { fits: true, summary: "", tokens: 0 }
    })
  })

  it("the most entries within the ledger's budget, then within maxSummaryTokens", () => {
    const entries = ["a.ts", "b.ts", "c.ts"]
    // a section of n entries is n + 2 words (its open and close lines)
    const { asked, value } = recorded(Loops.fitSummary("body", entries, 4, 4))
    // the search: 2 entries (4 words) fit, 3 (5) do not; the summary with 2 is 5 words, with 1 it is 4
    assert.deepStrictEqual(asked.map(wordCount), [4, 5, 5, 4])
    assert.deepStrictEqual(value, { fits: true, summary: "body\n\n<artifacts>\na.ts\n</artifacts>", tokens: 4 })
    const none = recorded(Loops.fitSummary("one two three four", entries, 4, 4))
    assert.deepStrictEqual(none.value, { fits: true, summary: "one two three four", tokens: 4 })
    assert.deepStrictEqual(recorded(Loops.fitSummary("one two three four five", entries, 4, 4)).value, {
      fits: false,
      tokens: 5
    })
  })
})

describe("fitSummary with count false (contract 10.4)", () => {
  it("without maxSummaryTokens the summary is not counted; a ledger's section still is", () => {
    assert.deepStrictEqual(recorded(Loops.fitSummary("a b c", [], 0, undefined, false)), {
      asked: [],
      value: { fits: true, summary: "a b c", tokens: undefined }
    })
    assert.deepStrictEqual(recorded(Loops.fitSummary("", [], 0, undefined, false)), {
      asked: [],
      value: { fits: true, summary: "", tokens: 0 }
    })
    const { asked, value } = recorded(Loops.fitSummary("body", ["a.ts", "b.ts", "c.ts"], 4, undefined, false))
    // the search alone: 2 entries (4 words) fit, 3 (5) do not
    assert.deepStrictEqual(asked.map(wordCount), [4, 5])
    assert.deepStrictEqual(value, {
      fits: true,
      summary: "body\n\n<artifacts>\na.ts b.ts\n</artifacts>",
      tokens: undefined
    })
  })

  it("with maxSummaryTokens the summary is counted whatever the flag", () => {
    assert.deepStrictEqual(recorded(Loops.fitSummary("a b c", [], 0, 5, false)), {
      asked: ["a b c"],
      value: { fits: true, summary: "a b c", tokens: 3 }
    })
  })
})

describe("Fold.countsSummaryAtFold (contract 10.4)", () => {
  it("a summary budget, a context window or segments: counted at the fold; otherwise not", () => {
    const cases: Array<[number | undefined, boolean, boolean, boolean]> = [
      [undefined, false, false, false],
      [400, false, false, true],
      [undefined, true, false, true],
      [undefined, false, true, true]
    ]
    for (const [maxSummaryTokens, contextWindow, segments, expected] of cases) {
      assert.strictEqual(Fold.countsSummaryAtFold({ maxSummaryTokens, contextWindow, segments }), expected)
    }
  })
})

describe("foldChunks (contract 5)", () => {
  const buffer = [u("u1"), a("a1"), u("u2"), a("a2"), u("u3"), a("a3"), u("u4")]
  const planOf = (index: EvictionIndex<Message.Message>) =>
    index.plan({ measure: "tokens", budget: 5, target: 5 }, true)!

  it("chunksOf: none within maxSummarizerInputTokens, else whole units per chunk", () => {
    const index = indexOf(buffer)
    const plan = planOf(index)
    assert.strictEqual(Loops.chunksOf(index, plan, undefined), undefined)
    assert.strictEqual(Loops.chunksOf(index, plan, 30), undefined)
    const chunks = Loops.chunksOf(index, plan, 10)!
    assert.deepStrictEqual(chunks.map((c) => c.messages.map((m) => m.content.split(" ")[0])), [
      ["u1", "a1"],
      ["u2", "a2"],
      ["u3", "a3"]
    ])
  })

  it("each chunk gets the state of the ones before it; a later failure commits the chunks before it", () => {
    const index = indexOf(buffer)
    const plan = planOf(index)
    const chunks = Loops.chunksOf(index, plan, 10)!
    const folding = Loops.foldChunks(index, plan, chunks, "s")
    const first = folding.next()
    assert.deepStrictEqual(first.done !== true && first.value.state, "s")
    const second = folding.next({ state: "s1" })
    assert.deepStrictEqual(second.done !== true && second.value.state, "s1")
    const end = folding.next(undefined)
    assert.isTrue(end.done)
    const value = end.value as Loops.ChunksEnd<Message.Message, string>
    assert.strictEqual(value?.state, "s1")
    assert.strictEqual(value?.failed, true)
    assert.deepStrictEqual(value?.plan.messages.map((m) => m.content.split(" ")[0]), ["u1", "a1"])
    assert.isTrue(index.commit(value!.plan))
    assert.strictEqual(index.size, 5)
  })

  it("a failed first chunk ends with nothing; every chunk folded ends with the whole plan", () => {
    const index = indexOf(buffer)
    const plan = planOf(index)
    const chunks = Loops.chunksOf(index, plan, 10)!
    const failed = Loops.foldChunks(index, plan, chunks, "s")
    failed.next()
    assert.deepStrictEqual(failed.next(undefined), { done: true, value: undefined })
    const whole = Loops.foldChunks(index, plan, chunks, "")
    let step = whole.next()
    let n = 0
    while (step.done !== true) step = whole.next({ state: `${step.value.state}${++n}` })
    assert.deepStrictEqual(step.value, { plan, state: "123", failed: false })
  })
})

describe("startPrune (contract 10.5)", () => {
  const pruning = (atLeast = 0) =>
    pruningOf({ clearToolResults: { keep: 1, placeholder: "gone", atLeast } }, "tokens", 22, 22)

  const session = () => [
    u("u1"),
    call("c1"),
    result("c1", words(6)),
    call("c2"),
    result("c2", words(6)),
    a("a1")
  ]

  it("nothing to run within the budget", () => {
    const index = indexOf([u("u1")], true)
    assert.strictEqual(Loops.startPrune(index, pruning(), withContent, false), undefined)
  })

  it("clears the oldest results but the kept one, each placeholder counted once, and plans nothing when that fits", () => {
    const index = indexOf(session(), true)
    // 5 + 1 + 7 + 1 + 7 + 5: over the budget of 22
    assert.strictEqual(index.tokens, 26)
    const { asked, value } = recorded(Loops.startPrune(index, pruning(), withContent, false)!)
    assert.deepStrictEqual(asked, ["gone\nc1"])
    assert.strictEqual(value, undefined)
    assert.strictEqual(index.tokens, 21)
    assert.deepStrictEqual(index.toArray().map((m) => m.content)[2], "gone")
  })

  it("a pass short of atLeast is undone", () => {
    const index = indexOf(session(), true)
    const { asked } = recorded(Loops.startPrune(index, pruning(100), withContent, false)!)
    assert.deepStrictEqual(asked, ["gone\nc1"])
    assert.strictEqual(index.toArray()[2].content, words(6))
  })
})
