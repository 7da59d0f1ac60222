import { assert, describe, it } from "@effect/vitest"
import * as Measure from "../src/cli/Measure.js"
import * as Message from "../src/schema/Message.js"

const call = (id: string) => ({ id, name: "f", arguments: "{}" })
const u = (content: string) => Message.user(content)
const a = (content: string, ...ids: ReadonlyArray<string>) =>
  Message.assistant(content, ids.length === 0 ? undefined : { toolCalls: ids.map(call) })
const t = (id: string) => Message.tool(`result ${id}`, { toolCallId: id })
const s = (content: string) => Message.system(content)

describe("Measure.commonPrefix", () => {
  it("counts leading whole messages equal by value, not by identity", () => {
    assert.strictEqual(Measure.commonPrefix([], [u("a")]), 0)
    assert.strictEqual(Measure.commonPrefix([s("sum"), u("a"), a("b")], [s("sum"), u("a"), a("b"), u("c")]), 3)
    assert.strictEqual(Measure.commonPrefix([s("sum 1"), u("a")], [s("sum 2"), u("a")]), 0)
    assert.strictEqual(Measure.commonPrefix([u("a"), a("b")], [u("a")]), 1)
  })
})

describe("Measure.newestUnitStart", () => {
  it("finds where the newest unit starts (a call spans to its last result; spans merge)", () => {
    assert.strictEqual(Measure.newestUnitStart([]), 0)
    assert.strictEqual(Measure.newestUnitStart([u("a"), a("b")]), 1)
    assert.strictEqual(Measure.newestUnitStart([u("a"), a("", "c1"), t("c1")]), 1)
    // an unrelated message between a call and its result belongs to the call's unit
    assert.strictEqual(Measure.newestUnitStart([u("a"), a("", "c1"), u("x"), t("c1")]), 1)
    // overlapping spans merge
    assert.strictEqual(Measure.newestUnitStart([u("a"), a("", "c1"), a("", "c2"), t("c1"), t("c2")]), 1)
    // a result before its call extends nothing
    assert.strictEqual(Measure.newestUnitStart([t("c1"), u("a"), a("", "c1")]), 2)
  })
})

const limits: Measure.Limits = { maxTokens: 100, maxSummaryTokens: 20, pinSystem: false }

describe("Measure.makeRecorder", () => {
  it("reuse, the cache minimum, validity, eligibility and the cost", () => {
    const recorder = Measure.makeRecorder("c", limits)
    const first = recorder.request({
      index: 1,
      context: [u("q")],
      tokens: [1500],
      summaryAt: -1,
      transcriptValid: true
    })
    assert.deepStrictEqual(first, {
      index: 1,
      contextMessages: 1,
      contextTokens: 1500,
      reusedTokens: 0,
      cachedTokens: 0,
      violations: [],
      eligible: true,
      overBound: false, // the newest unit alone (1,500) is larger than the budget
      artifactsNamed: 0,
      artifactsKept: 0
    })
    // shares 1,500 tokens with the previous request: cached
    const second = recorder.request({
      index: 3,
      context: [u("q"), a("x"), u("r")],
      tokens: [1500, 10, 5],
      summaryAt: -1,
      transcriptValid: true
    })
    assert.strictEqual(second.reusedTokens, 1500)
    assert.strictEqual(second.cachedTokens, 1500)
    // a summary opens the context and an assistant turn follows it: 0 reuse, invalid, over the bound
    const third = recorder.request({
      index: 5,
      context: [s("summary"), a("x"), u("r"), u("s")],
      tokens: [30, 60, 50, 1],
      summaryAt: 0,
      transcriptValid: false
    })
    assert.strictEqual(third.reusedTokens, 0)
    assert.deepStrictEqual(third.violations.map((v) => v._tag), ["FirstTurnNotUser"])
    assert.isFalse(third.eligible)
    // 141 > 20 (summary budget) + max(100, 1)
    assert.isTrue(third.overBound)
    // 500 reused tokens: below the cache minimum, so not cached
    const fourth = recorder.request({
      index: 7,
      context: [s("summary"), a("x"), u("t")],
      tokens: [400, 100, 3],
      summaryAt: 0,
      transcriptValid: true
    })
    assert.strictEqual(fourth.reusedTokens, 500)
    assert.strictEqual(fourth.cachedTokens, 0)
    recorder.fold({ index: 4, evictedMessages: 2, summarized: true, inputTokens: 70, outputTokens: 30 })
    recorder.turn({
      index: 0,
      role: "user",
      bufferMessages: 1,
      bufferTokens: 1500,
      summaryTokens: 0,
      contextTokens: 1500
    })
    const { sums, timeline } = recorder.done()
    assert.deepStrictEqual(sums, {
      requestPoints: 4,
      validRequestPoints: 2,
      eligibleRequestPoints: 3,
      validEligibleRequestPoints: 2,
      // the second (1,515), third (141) and fourth (503) exceed 20 + max(100, their newest unit)
      overBoundRequestPoints: 3,
      requestTokens: 1500 + 1515 + 141 + 503,
      maxRequestTokens: 1515,
      reusedTokens: 2000,
      cachedTokens: 1500,
      summarizerInputTokens: 70,
      summarizerOutputTokens: 30,
      // the second request's 1,500 reused: OpenAI 1,024 + 3 x 128; Anthropic the first request's last breakpoint
      openAICachedTokens: 1408,
      anthropicCachedTokens: 1500,
      ceilingRequestTokens: 0,
      ceilingReusedTokens: 0,
      // the third does not extend the second
      cacheBreaks: 1,
      // the fold came after the last request point
      foldsFollowed: 0,
      foldsBreakingCache: 0,
      foldCacheWriteTokens: 0,
      // q 1,500; x and r (second); the summary and s (third); t (fourth): x and r again in the third are not new
      firstSentTokens: 1500 + 15 + 31 + 3
    })
    assert.deepStrictEqual(timeline.requests.map((r) => r.index), [1, 3, 5, 7])
    assert.strictEqual(timeline.folds.length, 1)
    assert.strictEqual(timeline.turns.length, 1)
    assert.deepStrictEqual(Measure.derive(sums, 8, 1), {
      summarizerCallsPer1000Turns: 125,
      meanRequestTokens: 3659 / 4,
      prefixReuse: 2000 / 3659,
      // uncached (3,659 - 1,500) + cached 1,500 x 0.1 + 70 + 30 x 4
      cost: 2159 + 150 + 70 + 120,
      costOpenAI: 2251 + 1408 * 0.1 + 70 + 120,
      costAnthropic: 2159 + 150 + 70 + 120,
      ceilingReuse: 0,
      cacheWriteTokensPerFold: 0,
      reachableReuse: 1 - 1549 / 3659,
      // the third request sends x (60) and r (50) again, uncached
      resentTokens: 110
    })
  })

  it("the providers' rules, the no-fold ceiling, cache breaks and the cache writes of a fold", () => {
    const recorder = Measure.makeRecorder("c", { ...limits, maxTokens: undefined, pinSystem: true })
    const system = s("you are an agent")
    const request = (context: ReadonlyArray<Message.Message>, tokens: ReadonlyArray<number>, ceiling: number) =>
      recorder.request({
        index: 0,
        context,
        tokens,
        summaryAt: context.length > 2 || context[1]?.content === "s1" ? 1 : -1,
        transcriptValid: true,
        ceilingTokens: ceiling
      })
    request([system, u("u1")], [1100, 100], 1200)
    recorder.fold({ index: 2, evictedMessages: 2, summarized: true, inputTokens: 100, outputTokens: 50 })
    // the summary after the pinned prompt: 1,100 reused of the previous 1,200, a break; the fold writes 80
    const second = request([system, s("s1"), u("u2")], [1100, 50, 30], 1300)
    assert.strictEqual(second.reusedTokens, 1100)
    // extends the second: 1,180 reused, no break
    request([system, s("s1"), u("u2"), a("a2"), u("u3")], [1100, 50, 30, 20, 10], 1400)
    const { sums } = recorder.done()
    assert.deepStrictEqual(
      [
        sums.reusedTokens,
        sums.cachedTokens,
        sums.openAICachedTokens,
        sums.anthropicCachedTokens,
        sums.cacheBreaks,
        sums.foldsFollowed,
        sums.foldsBreakingCache,
        sums.foldCacheWriteTokens
      ],
      // OpenAI: 1,100 -> 1,024; 1,180 -> 1,152. Anthropic: the first request's breakpoint after the pinned
      // prompt (1,100), then the second's after its last message (1,180)
      [2280, 2280, 1024 + 1152, 1100 + 1180, 1, 1, 1, 80]
    )
    assert.deepStrictEqual([sums.ceilingRequestTokens, sums.ceilingReusedTokens], [3900, 2500])
    const derived = Measure.derive(sums, 6, 1)
    assert.strictEqual(derived.ceilingReuse, 2500 / 3900)
    assert.strictEqual(derived.cacheWriteTokensPerFold, 80)
  })

  it("first-sent and re-sent tokens: what a fold's cache break costs beyond new content", () => {
    const recorder = Measure.makeRecorder("c", { ...limits, maxTokens: undefined, pinSystem: true })
    const system = s("you are an agent")
    const request = (context: ReadonlyArray<Message.Message>, tokens: ReadonlyArray<number>) =>
      recorder.request({ index: 0, context, tokens, summaryAt: 1, transcriptValid: true })
    request([system, u("u1"), a("a1"), u("u2")], [1100, 100, 40, 30])
    // a fold of u1 and a1 keeps u2 after the new summary: u2 is sent again, uncached
    request([system, s("s1"), u("u2"), a("a2"), u("u3")], [1100, 50, 30, 20, 10])
    // a second fold: the summary rewritten, u3 kept; a3 and u4 new
    request([system, s("s2"), u("u3"), a("a3"), u("u4")], [1100, 60, 10, 25, 5])
    // an equal message again (s1 is back): not first-sent
    request([system, s("s1"), u("u3"), a("a3"), u("u4"), a("a4")], [1100, 50, 10, 25, 5, 7])
    const { sums } = recorder.done()
    assert.deepStrictEqual(
      [sums.requestTokens, sums.reusedTokens, sums.firstSentTokens],
      // first-sent: 1,270; then s1, a2, u3 (80); s2, a3, u4 (90); a4 (7)
      [1270 + 1210 + 1200 + 1197, 3300, 1270 + 80 + 90 + 7]
    )
    const derived = Measure.derive(sums, 8, 2)
    assert.strictEqual(derived.reachableReuse, 1 - 1447 / 4877)
    // u2 (30), u3 (10), then s1, u3, a3, u4 (90)
    assert.strictEqual(derived.resentTokens, 130)
  })

  it("breakpointsOf and the providers' cached tokens", () => {
    assert.strictEqual(Measure.openAICached(1023), 0)
    assert.strictEqual(Measure.openAICached(1024), 1024)
    assert.strictEqual(Measure.openAICached(1151), 1024)
    assert.strictEqual(Measure.openAICached(1152), 1152)
    assert.deepStrictEqual(Measure.breakpointsOf([s("p"), s("sum"), u("a"), a("b")], [10, 20, 30, 40], 1), [
      { messages: 1, tokens: 10 },
      { messages: 2, tokens: 30 },
      { messages: 4, tokens: 100 }
    ])
    // no summary: after the leading system messages, and at the end
    // summary segments (contract 10.9): after the last segment
    assert.deepStrictEqual(
      Measure.breakpointsOf([s("p"), s("s1"), s("s2"), u("a"), a("b")], [10, 20, 5, 30, 40], 1, 2),
      [{ messages: 1, tokens: 10 }, { messages: 3, tokens: 35 }, { messages: 5, tokens: 105 }]
    )
    assert.deepStrictEqual(Measure.breakpointsOf([s("p"), u("a")], [10, 30], -1), [
      { messages: 1, tokens: 10 },
      { messages: 2, tokens: 40 }
    ])
    assert.strictEqual(Measure.anthropicCached([{ messages: 1, tokens: 1500 }, { messages: 4, tokens: 3000 }], 3), 1500)
    assert.strictEqual(Measure.anthropicCached([{ messages: 1, tokens: 900 }], 3), 0)
  })

  it("retention: the artifacts observed before a request point that its context names, the last point's figure", () => {
    const recorder = Measure.makeRecorder("c", limits)
    const first = u("open src/app.ts and lib/util.ts")
    recorder.observe(first)
    const point = recorder.request({ index: 1, context: [first], tokens: [10], summaryAt: -1, transcriptValid: true })
    assert.deepStrictEqual([point.artifactsNamed, point.artifactsKept], [2, 2])
    const answer = a("done: see https://example.com/run and ticket ABC-123")
    recorder.observe(answer)
    const second = u("thanks")
    recorder.observe(second)
    // the first message is gone (summarized to nothing): only the answer's URL and code are still named
    const later = recorder.request({
      index: 3,
      context: [answer, second],
      tokens: [10, 1],
      summaryAt: -1,
      transcriptValid: true
    })
    assert.deepStrictEqual([later.artifactsNamed, later.artifactsKept], [4, 2])
    assert.deepStrictEqual(recorder.done().artifacts, {
      named: 4,
      kept: 2,
      byKind: { code: { named: 1, kept: 1 }, path: { named: 2, kept: 0 }, url: { named: 1, kept: 1 } }
    })
  })

  it("pinned messages sit outside the budget and do not count as the buffer's user turn", () => {
    const recorder = Measure.makeRecorder("c", { ...limits, pinSystem: true })
    const point = recorder.request({
      index: 3,
      context: [s("prompt"), s("summary"), u("q"), a("x"), u("r")],
      tokens: [1000, 20, 40, 40, 20],
      summaryAt: 1,
      transcriptValid: true
    })
    // 1,120 = pinned 1,000 + summary budget 20 + budget 100: within
    assert.isFalse(point.overBound)
    const alone = Measure.makeRecorder("c", { ...limits, pinSystem: true }).request({
      index: 1,
      context: [s("prompt"), a("x")],
      tokens: [10, 5],
      summaryAt: -1,
      transcriptValid: true
    })
    assert.isFalse(alone.eligible)
  })
})
