/**
 * SPEC 10 in the pure eviction module: the low-water mark (10.1), turn
 * boundaries and their repairs (10.2), pinned system messages (10.3) and
 * tool-result clearing (10.5), against the naive spec model on random
 * sequences and on the exact cases the contract names.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, FastCheck as fc, Layer } from "effect"
import * as Message from "../src/schema/Message.js"
import * as Summarizer from "../src/services/Summarizer.js"
import * as TokenCounter from "../src/services/TokenCounter.js"
import * as RollingMemory from "../src/strategies/RollingMemory.js"
import * as WindowMemory from "../src/strategies/WindowMemory.js"
import * as Arb from "./support/arbitraries.js"
import { absent, conversations } from "./support/conversations.js"
import { a, call, result, u } from "./support/harness.js"
import { driven, type DriverOptions, withContent } from "./support/policyDriver.js"
import * as SpecModel from "./support/specModel.js"

const RUNS = Number(process.env.ROLLMEM_RUNS ?? 300)

const show = (messages: ReadonlyArray<Message.Message>): Array<string> => messages.map(String)

/** The word counter, memoized by text (the model recounts the whole buffer on every add). */
const counts = new Map<string, number>()
const count = (text: string): number => {
  let n = counts.get(text)
  if (n === undefined) {
    n = SpecModel.wordCount(text)
    counts.set(text, n)
  }
  return n
}

const modelOf = (options: DriverOptions, summarize?: SpecModel.Summarize) =>
  SpecModel.policy({ ...options, count, withContent, summarize: summarize ?? ((s, ms) => `${s}|${ms.length}`) })

/** Random SPEC 10 options, by tokens or by messages. */
const policyOptions: fc.Arbitrary<DriverOptions> = fc.tuple(
  fc.constantFrom<"tokens" | "messages">("tokens", "messages"),
  fc.integer({ min: 1, max: 30 }),
  fc.integer({ min: 0, max: 100 }),
  fc.constantFrom<"aligned" | "turn">("aligned", "turn"),
  fc.boolean(),
  fc.option(fc.nat({ max: 4 }), { nil: undefined }),
  fc.constantFrom<"target" | "budget" | undefined>(undefined, "target", "budget")
).map(([measure, budget0, targetPct, boundary, pinSystem, keep, until]) => {
  const budget = measure === "messages" ? Math.max(1, Math.round(budget0 / 5)) : budget0
  const target = Math.max(1, Math.round((budget * targetPct) / 100))
  return {
    measure,
    budget,
    target,
    boundary,
    pinSystem,
    clear: keep === undefined || measure === "messages"
      ? undefined
      : { keep, placeholder: "[gone]", ...(until === undefined ? {} : { until }) }
  }
})

/** Messages weighted toward agent shapes: user turns, system prompts, calls and their results. */
const message = fc.oneof(
  { weight: 6, arbitrary: Arb.message },
  { weight: 2, arbitrary: fc.constantFrom(u("q"), Message.user("go on please")) },
  { weight: 1, arbitrary: fc.constantFrom(Message.system("be brief"), Message.make("developer", "rules here")) },
  { weight: 2, arbitrary: fc.constantFrom("c0", "c1", "c2").map((id) => call(id)) },
  { weight: 2, arbitrary: fc.constantFrom("c0", "c1", "c2").map((id) => result(id, "a long tool output here")) }
)

describe("SPEC 10 index against the model", () => {
  it.prop(
    "every add (single or batch, some folds failing) equals the model: buffer, evicted messages, guarantee",
    [
      policyOptions,
      fc.array(fc.tuple(fc.array(message, { minLength: 1, maxLength: 3 }), fc.boolean()), { maxLength: 40 })
    ],
    ([options, adds]) => {
      const lib = driven(options)
      const model = modelOf(options)
      let state: SpecModel.ModelState<Message.Message> = SpecModel.empty
      for (const [messages, fail] of adds) {
        const evicted = lib.add(messages, fail)
        const step = model.addMany(state, messages)
        const expected = step.calls.length === 0 ? undefined : step.calls[0].messages
        if (expected === undefined) {
          // no summarizer call: either nothing evicted, or only clearings
          assert.strictEqual(evicted, undefined)
          state = step.state
        } else {
          assert.deepStrictEqual(show(evicted ?? []), show(expected))
          state = fail ? { summary: state.summary, buffer: [...state.buffer, ...messages] } : step.state
        }
        assert.deepStrictEqual(show(lib.index.toArray()), show(state.buffer))
        const weights = state.buffer.map((m) => SpecModel.wordCount(SpecModel.tokenText(m)))
        const pinned = (m: Message.Message) => options.pinSystem === true && SpecModel.isSystemLike(m)
        assert.strictEqual(lib.index.tokens, weights.reduce((x, y) => x + y, 0))
        assert.strictEqual(
          lib.index.measure(options.measure),
          state.buffer.filter((m) => !pinned(m)).reduce(
            (s, m) => s + (options.measure === "messages" ? 1 : SpecModel.wordCount(SpecModel.tokenText(m))),
            0
          )
        )
        if (options.boundary === "turn" && !fail) {
          assert.deepStrictEqual(SpecModel.turnViolations(state.buffer, options.pinSystem === true), [])
        }
      }
      // a rebuild happens only after a failed fold crossed by a late result: never in sequential adds
      assert.strictEqual(lib.index.rebuilds, 0)
    },
    { fastCheck: { numRuns: RUNS } }
  )

  it.prop(
    "a plan committed after later appends (a fold in flight) equals the model's prune of the earlier buffer",
    [
      policyOptions,
      fc.array(
        fc.tuple(fc.array(message, { minLength: 1, maxLength: 3 }), fc.array(message, { maxLength: 3 }), fc.boolean()),
        { maxLength: 20 }
      )
    ],
    ([options, rounds]) => {
      const lib = driven(options)
      const model = modelOf(options)
      let state: SpecModel.ModelState<Message.Message> = SpecModel.empty
      for (const [before, during, fail] of rounds) {
        for (const m of before) lib.append(m)
        const plan = lib.start()
        for (const m of during) lib.append(m)
        const step = model.addMany(state, before)
        if (plan === undefined) assert.strictEqual(step.calls.length, 0)
        else {
          assert.deepStrictEqual(show(plan.messages), show(step.calls[0].messages))
          if (fail) lib.index.abort(plan)
          else assert.isTrue(lib.index.commit(plan))
        }
        const after = plan !== undefined && fail
          ? { summary: state.summary, buffer: [...state.buffer, ...before] }
          : step.state
        state = { summary: after.summary, buffer: [...after.buffer, ...during] }
        assert.deepStrictEqual(show(lib.index.toArray()), show(state.buffer))
        // the late messages' own prune (pending after the fold) restores the guarantee
        const next = lib.start()
        const repair = model.addMany(state, [])
        if (next === undefined) assert.strictEqual(repair.calls.length, 0)
        else {
          assert.deepStrictEqual(show(next.messages), show(repair.calls[0].messages))
          lib.index.commit(next)
        }
        state = repair.state
        assert.deepStrictEqual(show(lib.index.toArray()), show(state.buffer))
        if (options.boundary === "turn") {
          assert.deepStrictEqual(SpecModel.turnViolations(state.buffer, options.pinSystem === true), [])
        }
      }
    },
    { fastCheck: { numRuns: RUNS } }
  )
})

/** Runs `adds` through the driven index and the model; asserts they agree at every step; returns the driver. */
const both = (options: DriverOptions, adds: ReadonlyArray<ReadonlyArray<Message.Message>>) => {
  const lib = driven(options)
  const model = modelOf(options)
  let state: SpecModel.ModelState<Message.Message> = SpecModel.empty
  const calls: Array<Array<string>> = []
  for (const messages of adds) {
    const evicted = lib.add(messages)
    const step = model.addMany(state, messages)
    state = step.state
    assert.deepStrictEqual(show(evicted ?? []), show(step.calls[0]?.messages ?? []))
    if (evicted !== undefined) calls.push(show(evicted))
    assert.deepStrictEqual(show(lib.index.toArray()), show(state.buffer))
  }
  return { lib, calls, buffer: show(lib.index.toArray()) }
}

const tokens = (budget: number, more: Partial<DriverOptions> = {}): DriverOptions => ({
  measure: "tokens",
  budget,
  ...more
})

/** A tool exchange: a call (1 word: `f({})`, plus its id) and its result (`ok`, plus its id). */
const exchange = (id: string) => [call(id), result(id)]

describe("SPEC 10.2 turn boundaries: exact cases", () => {
  it("a long agent turn keeps the user's request and folds the oldest exchanges after it", () => {
    const request = u("fix")
    const adds = [[request], ...Array.from({ length: 12 }, (_, i) => exchange(`t${i}`))]
    // each exchange weighs 3 words (`f({})` | `ok t0`); budget 20: the request (5) and the newest exchanges stay
    const turn = both(tokens(20, { boundary: "turn" }), adds)
    assert.strictEqual(turn.buffer[0], "user: fix w w w w")
    assert.strictEqual(turn.lib.index.measure("tokens"), 20)
    assert.deepStrictEqual(turn.buffer.slice(1), show(["t7", "t8", "t9", "t10", "t11"].flatMap(exchange)))
    // the first fold: over 20 at the sixth exchange (5 + 6 * 3 = 23): t0 goes, the request stays; one fold per exchange after
    assert.deepStrictEqual(turn.calls[0], show(exchange("t0")))
    assert.strictEqual(turn.calls.length, 7)
    // the original's rule folds the request away and opens on a call
    const aligned = both(tokens(20), adds)
    assert.notInclude(aligned.buffer, "user: fix w w w w")
    assert.strictEqual(aligned.buffer[0], "assistant:  [tool calls: f({})]")
  })

  it("with several turn starts before the cut, the cut goes to the last of them (the live turn)", () => {
    // u1 a1 u2 a2 u3 [call result]x3: over 30; step 1 cuts inside u3's agent turn
    const adds = [[u("u1")], [a("a1")], [u("u2")], [a("a2")], [u("u3")], exchange("x"), exchange("y"), exchange("z")]
    const turn = both(tokens(30, { boundary: "turn", target: 10 }), adds)
    // at y (31 > 30) step 1 cuts after u3 (25 words go, 6 stay); u3 is the last turn start before the cut:
    // u1 a1 u2 a2 go, u3 stays, then x goes (u3 + x + y = 11 > 10)
    assert.deepStrictEqual(turn.calls, [
      ["user: u1 w w w w", "assistant: a1 w w w w", "user: u2 w w w w", "assistant: a2 w w w w", ...show(exchange("x"))]
    ])
    assert.deepStrictEqual(turn.buffer, show([u("u3"), ...exchange("y"), ...exchange("z")]))
  })

  it("a tool result arriving while its call is inside a fold in flight is evicted by the prune after that fold", () => {
    const lib = driven(tokens(10, { boundary: "turn" }))
    for (const m of [u("u1"), call("job1"), u("u2"), a("a2")]) lib.append(m)
    const plan = lib.start()!
    assert.deepStrictEqual(show(plan.messages), ["user: u1 w w w w", "assistant:  [tool calls: f({})]"])
    lib.append(result("job1", "done"))
    // the add of the result must prune (after the fold): its call is in the cut
    assert.isTrue(lib.index.needsPrune({ measure: "tokens", budget: 10, target: 10 }))
    assert.isTrue(lib.index.commit(plan))
    assert.deepStrictEqual(show(lib.index.toArray()), ["user: u2 w w w w", "assistant: a2 w w w w", "tool: done"])
    const repair = lib.start()!
    assert.deepStrictEqual(show(repair.messages), ["tool: done"])
    lib.index.commit(repair)
    assert.deepStrictEqual(show(lib.index.toArray()), ["user: u2 w w w w", "assistant: a2 w w w w"])
    assert.strictEqual(lib.index.rebuilds, 0)
  })

  it("an orphan as the newest message is evicted (the issue's example: user, call job1, user, assistant, result job1)", () => {
    const adds = [[Message.user("please start the job now")], [call("job1")], [Message.user("is it done yet")], [
      Message.assistant("not yet still running")
    ], [result("job1", "the job finished with exit code zero")]]
    const turn = both(tokens(8, { boundary: "turn" }), adds)
    assert.deepStrictEqual(turn.calls, [
      ["user: please start the job now", "assistant:  [tool calls: f({})]"],
      ["tool: the job finished with exit code zero"]
    ])
    assert.deepStrictEqual(turn.buffer, ["user: is it done yet", "assistant: not yet still running"])
    // the original's rule: the context is just the orphaned result
    const aligned = both(tokens(8), adds)
    assert.deepStrictEqual(aligned.buffer, ["tool: the job finished with exit code zero"])
  })

  it("a buffer opening on an assistant greeting is repaired when the first user turn arrives", () => {
    const turn = both(tokens(100, { boundary: "turn" }), [[Message.assistant("Hello! How can I help?")], [
      Message.user("book a flight")
    ]])
    assert.deepStrictEqual(turn.calls, [["assistant: Hello! How can I help?"]])
    assert.deepStrictEqual(turn.buffer, ["user: book a flight"])
    // the original's rule never prunes within the budget
    assert.deepStrictEqual(both(tokens(100), [[Message.assistant("Hello!")], [Message.user("hi")]]).calls, [])
  })

  it("pinned messages inside an evicted span stay where they are, outside the budget", () => {
    const system = Message.system("You are a travel agent w w w w w w w w w w")
    const adds = [[system], [u("u1")], [a("a1")], [Message.make("developer", "mid-conversation rule")], [u("u2")], [
      a("a2")
    ], [u("u3")]]
    const pinned = both(tokens(10, { boundary: "turn", pinSystem: true }), adds)
    assert.deepStrictEqual(pinned.calls, [
      ["user: u1 w w w w", "assistant: a1 w w w w"],
      ["user: u2 w w w w", "assistant: a2 w w w w"]
    ])
    assert.deepStrictEqual(pinned.buffer, [
      "system: You are a travel agent w w w w w w w w w w",
      "developer: mid-conversation rule",
      "user: u3 w w w w"
    ])
    assert.strictEqual(pinned.lib.index.pinnedTokens, 17)
    assert.strictEqual(pinned.lib.index.leadingPinned(), 2)
    // without pinning the system prompt is folded at the first prune
    const unpinned = both(tokens(24, { boundary: "turn" }), adds)
    assert.strictEqual(unpinned.calls[0][0], "system: You are a travel agent w w w w w w w w w w")
  })

  it("a buffer with no user turn falls back to the original's alignment", () => {
    const adds = [[a("a1")], [Message.system("note w w w w")], [a("a2")], [a("a3")]]
    const turn = both(tokens(10, { boundary: "turn" }), adds)
    const aligned = both(tokens(10), adds)
    assert.deepStrictEqual(turn.calls, aligned.calls)
    assert.deepStrictEqual(turn.buffer, ["assistant: a2 w w w w", "assistant: a3 w w w w"])
  })

  it("WindowMemory by count: the window opens on a user turn", () => {
    const adds = [[u("u1")], [a("a1")], ...exchange("x").map((m) => [m]), [a("a2")], [u("u2")], [a("a3")]]
    // at a2 (5 messages) the turn rule keeps u1 and drops a1; the original drops u1 and opens on a1
    const turn = both({ measure: "messages", budget: 4, boundary: "turn" }, adds)
    assert.deepStrictEqual(turn.calls[0], ["assistant: a1 w w w w"])
    assert.deepStrictEqual(turn.buffer, ["user: u2 w w w w", "assistant: a3 w w w w"])
    const aligned = both({ measure: "messages", budget: 4 }, adds)
    assert.deepStrictEqual(aligned.calls[0], ["user: u1 w w w w"])
    assert.deepStrictEqual(aligned.buffer, ["user: u2 w w w w", "assistant: a3 w w w w"])
  })

  it("a queued prune that finds its buffer within budget and needing no repair does nothing", () => {
    const lib = driven(tokens(10, { boundary: "turn" }))
    for (const m of [u("u1"), a("a1"), u("u2")]) lib.append(m)
    const policy = { measure: "tokens", budget: 10, target: 10 } as const
    // two adds queued their prunes; the first folds; the second re-checks under the lock
    assert.isTrue(lib.index.needsPrune(policy))
    const first = lib.start()!
    lib.index.commit(first)
    assert.isFalse(lib.index.needsPrune(policy))
    assert.strictEqual(lib.start(), undefined)
    assert.deepStrictEqual(show(lib.index.toArray()), ["user: u2 w w w w"])
  })
})

describe("SPEC 10.1 low-water mark: exact cases", () => {
  it("one fold frees room for several turns", () => {
    const adds = Array.from({ length: 12 }, (_, i) => [i % 2 === 0 ? u(`u${i}`) : a(`a${i}`)])
    const target = both(tokens(20, { target: 10 }), adds)
    const original = both(tokens(20), adds)
    assert.strictEqual(target.calls.length, 2)
    assert.strictEqual(original.calls.length, 4)
    // over 20 at u4: evict to 10 (u0 a1 u2), align past a3 to u4
    assert.deepStrictEqual(target.calls[0], [
      "user: u0 w w w w",
      "assistant: a1 w w w w",
      "user: u2 w w w w",
      "assistant: a3 w w w w"
    ])
    assert.deepStrictEqual(target.buffer, [
      "user: u8 w w w w",
      "assistant: a9 w w w w",
      "user: u10 w w w w",
      "assistant: a11 w w w w"
    ])
  })

  it("a target equal to the budget is the original's rule", () => {
    const adds = Array.from({ length: 9 }, (_, i) => [i % 3 === 0 ? u(`u${i}`) : a(`a${i}`)])
    assert.deepStrictEqual(both(tokens(12, { target: 12 }), adds).calls, both(tokens(12), adds).calls)
  })
})

describe("SPEC 10.5 tool-result clearing: exact cases", () => {
  const big = (id: string) => result(id, "a b c d e f g h i j")
  // u1 (5 words), then three exchanges of a call (1) and a 10-word result (11 with its id): 41 words at r3
  const clearingAdds = [[u("u1")], [call("r1"), big("r1")], [call("r2"), big("r2")], [call("r3"), big("r3")]]

  it("clears the oldest results in place, spares the newest `keep`, and calls no summarizer when that suffices", () => {
    // 5 + 3 * (1 + 11) = 41 > 40: clearing r1 (11 -> 4 words: "[tool result cleared]" has 3, plus the id) suffices
    const cleared = both(tokens(40, { clear: { keep: 1 } }), clearingAdds)
    assert.deepStrictEqual(cleared.calls, [])
    assert.deepStrictEqual(cleared.buffer, [
      "user: u1 w w w w",
      "assistant:  [tool calls: f({})]",
      "tool: [tool result cleared]",
      "assistant:  [tool calls: f({})]",
      "tool: a b c d e f g h i j",
      "assistant:  [tool calls: f({})]",
      "tool: a b c d e f g h i j"
    ])
    assert.strictEqual(cleared.lib.index.tokens, 34)
  })

  it("spares the newest `keep`, skips results whose count would not drop, then folds as usual", () => {
    const adds = [[u("u1")], [call("r1"), result("r1", "ok")], [call("r2"), big("r2")], [call("r3"), big("r3")], [
      u("u2")
    ]]
    const cleared = both(tokens(30, { target: 20, clear: { keep: 1, placeholder: "[gone]", until: "target" } }), adds)
    // at r3 (32 > 30): r1 ("ok r1", 2 words) would not drop; r2 is cleared (11 -> 2); r3 is kept;
    // 23 is still over 20: u1 is folded (alignment finds no opener after it)
    assert.deepStrictEqual(cleared.calls, [["user: u1 w w w w"]])
    assert.deepStrictEqual(cleared.buffer, [
      "assistant:  [tool calls: f({})]",
      "tool: ok",
      "assistant:  [tool calls: f({})]",
      "tool: [gone]",
      "assistant:  [tool calls: f({})]",
      "tool: a b c d e f g h i j",
      "user: u2 w w w w"
    ])
  })

  it("until target folds when clearing cannot reach the target; until budget (default) spares the fold within the budget", () => {
    const target = both(tokens(35, { target: 15, clear: { keep: 1, until: "target" } }), clearingAdds)
    // r1 and r2 cleared (41 -> 27), still over 15: u1, r1 and r2 folded (27 -> 12)
    assert.deepStrictEqual(target.calls, [[
      "user: u1 w w w w",
      "assistant:  [tool calls: f({})]",
      "tool: [tool result cleared]",
      "assistant:  [tool calls: f({})]",
      "tool: [tool result cleared]"
    ]])
    assert.deepStrictEqual(target.buffer, ["assistant:  [tool calls: f({})]", "tool: a b c d e f g h i j"])
    assert.strictEqual(target.lib.index.tokens, 12)
    // without until: budget, the default
    const absent = both(tokens(35, { target: 15, clear: { keep: 1 } }), clearingAdds)
    assert.deepStrictEqual(absent.calls, [])
    // until budget: the same clearing (41 -> 27), within the budget 35: no fold
    const budget = both(tokens(35, { target: 15, clear: { keep: 1, until: "budget" } }), clearingAdds)
    assert.deepStrictEqual(budget.calls, [])
    assert.deepStrictEqual(budget.buffer, [
      "user: u1 w w w w",
      "assistant:  [tool calls: f({})]",
      "tool: [tool result cleared]",
      "assistant:  [tool calls: f({})]",
      "tool: [tool result cleared]",
      "assistant:  [tool calls: f({})]",
      "tool: a b c d e f g h i j"
    ])
    assert.strictEqual(budget.lib.index.tokens, 27)
  })

  it("until budget still folds down to the target when clearing cannot get within the budget", () => {
    const long = Message.user(Array.from({ length: 20 }, (_, i) => `w${i}`).join(" "))
    const budget = both(tokens(35, { target: 15, clear: { keep: 1, until: "budget" } }), [...clearingAdds, [long]])
    // 27 + 20 = 47: nothing left to clear (r3 spared): over 35, so everything but the newest unit is folded (to 20)
    assert.deepStrictEqual(budget.calls, [[
      "user: u1 w w w w",
      "assistant:  [tool calls: f({})]",
      "tool: [tool result cleared]",
      "assistant:  [tool calls: f({})]",
      "tool: [tool result cleared]",
      "assistant:  [tool calls: f({})]",
      "tool: a b c d e f g h i j"
    ]])
    assert.deepStrictEqual(budget.buffer, [String(long)])
    assert.strictEqual(budget.lib.index.tokens, 20)
  })

  it("until budget in turn mode: a prune cleared within the budget still repairs", () => {
    // an assistant greeting, then a user turn: the turn-mode repair evicts the greeting in the same prune
    const adds = [[a("hello")], [call("r1"), big("r1")], [call("r2"), big("r2")], [u("u1")]]
    // 5 + 12 + 12 + 5 = 34 > 30: r1 cleared (27 <= 30); the buffer does not open on the user turn
    const budget = both(tokens(30, { target: 10, boundary: "turn", clear: { keep: 1, until: "budget" } }), adds)
    assert.deepStrictEqual(budget.calls, [[
      "assistant: hello w w w w",
      "assistant:  [tool calls: f({})]",
      "tool: [tool result cleared]",
      "assistant:  [tool calls: f({})]",
      "tool: a b c d e f g h i j"
    ]])
    assert.deepStrictEqual(budget.buffer, ["user: u1 w w w w"])
  })

  it("an aborted prune undoes its clearings", () => {
    const lib = driven(tokens(12, { clear: { keep: 0 } }))
    for (const m of [u("u1"), call("r1"), big("r1"), u("u2")]) lib.append(m)
    const plan = lib.start()!
    assert.deepStrictEqual(show(plan.messages), [
      "user: u1 w w w w",
      "assistant:  [tool calls: f({})]",
      "tool: [tool result cleared]"
    ])
    lib.index.abort(plan)
    assert.deepStrictEqual(show(lib.index.toArray()), [
      "user: u1 w w w w",
      "assistant:  [tool calls: f({})]",
      "tool: a b c d e f g h i j",
      "user: u2 w w w w"
    ])
    assert.strictEqual(lib.index.tokens, 22)
    // the next prune clears again
    const again = lib.start()!
    assert.deepStrictEqual(show(again.messages), show(plan.messages))
  })
})

describe("SPEC 10 on every real conversation", () => {
  const sets: ReadonlyArray<DriverOptions> = [
    tokens(100, { boundary: "turn" }),
    tokens(100, { boundary: "turn", pinSystem: true, target: 50, clear: { keep: 3 } }),
    tokens(400, { target: 200, clear: { keep: 3 } }),
    tokens(400, { target: 200, clear: { keep: 3, until: "budget" } }),
    tokens(100, { boundary: "turn", pinSystem: true, target: 50, clear: { keep: 3, until: "budget" } }),
    tokens(400, { boundary: "turn", pinSystem: true }),
    { measure: "messages", budget: 6, boundary: "turn", pinSystem: true, target: 3 }
  ]
  for (const options of sets) {
    it.skipIf(absent)(
      `${JSON.stringify(options)}: equals the model after every add; turn mode's guarantee holds`,
      () => {
        let calls = 0
        for (const conversation of conversations) {
          const lib = driven(options, count)
          const model = modelOf(options)
          let state: SpecModel.ModelState<Message.Message> = SpecModel.empty
          conversation.messages.forEach((m, i) => {
            const evicted = lib.add([m])
            const step = model.add(state, m)
            state = step.state
            const where = `${conversation.id} add #${i}`
            const expected = step.calls[0]?.messages
            if (
              (evicted === undefined) !== (expected === undefined) ||
              (evicted !== undefined && evicted.some((x, k) => x !== expected![k]))
            ) {
              assert.deepStrictEqual(show(evicted ?? []), show(expected ?? []), `${where}: evicted`)
            }
            if (evicted !== undefined) calls++
            const buffer = lib.index.toArray()
            if (
              buffer.length !== state.buffer.length ||
              buffer.some((x, k) => x !== state.buffer[k] && String(x) !== String(state.buffer[k]))
            ) {
              assert.deepStrictEqual(show(buffer), show(state.buffer), `${where}: buffer`)
            }
            if (options.boundary === "turn") {
              const problems = SpecModel.turnViolations(buffer, options.pinSystem === true)
              if (problems.length > 0) assert.fail(`${where}: ${problems.join("; ")}`)
            }
          })
          assert.strictEqual(lib.index.rebuilds, 0)
        }
        assert.isAbove(calls, 0)
      }
    )
  }
})

/** Options of the real memories for a driver configuration. */
const memoryOf = (options: DriverOptions, summarize: (s: string, ms: ReadonlyArray<Message.Message>) => string) => {
  const policy = {
    ...(options.boundary === undefined ? {} : { boundary: options.boundary }),
    ...(options.pinSystem === undefined ? {} : { pinSystem: options.pinSystem })
  }
  const counter = Layer.succeed(TokenCounter.TokenCounter, TokenCounter.fromFunction(count))
  if (options.measure === "messages") {
    return Effect.runSync(
      WindowMemory.make({
        maxMessages: options.budget,
        ...(options.target === undefined ? {} : { targetMessages: options.target }),
        ...policy
      }).pipe(Effect.provide(counter))
    )
  }
  return Effect.runSync(
    RollingMemory.make({
      maxTokens: options.budget,
      ...(options.target === undefined ? {} : { targetTokens: options.target }),
      ...(options.clear === undefined ? {} : { clearToolResults: options.clear }),
      ...policy
    }).pipe(Effect.provide(counter), Effect.provide(Summarizer.layerFunction(summarize)))
  )
}

describe("SPEC 10 through RollingMemory and WindowMemory", () => {
  /** Feeds `adds` to a real memory and to the model; asserts equal buffers, calls and guarantee after each add. */
  const compare = (options: DriverOptions, adds: ReadonlyArray<ReadonlyArray<Message.Message>>, where: string) => {
    const calls: Array<ReadonlyArray<Message.Message>> = []
    const memory = memoryOf(options, (s, ms) => {
      calls.push(ms)
      return `${s}|${ms.length}`
    })
    // WindowMemory drops what it evicts
    const model = options.measure === "messages"
      ? SpecModel.policy({ ...options, count, withContent })
      : modelOf(options)
    let state: SpecModel.ModelState<Message.Message> = SpecModel.empty
    adds.forEach((messages, i) => {
      const before = calls.length
      Effect.runSync(messages.length === 1 ? memory.add(messages[0]) : memory.addMessages(messages))
      const step = model.addMany(state, messages)
      state = step.state
      const made = calls.slice(before)
      const expected = options.measure === "messages" ? [] : step.calls.map((c) => c.messages)
      if (
        made.length !== expected.length || made.some((ms, k) => show(ms).join("\n") !== show(expected[k]).join("\n"))
      ) {
        assert.deepStrictEqual(made.map(show), expected.map(show), `${where} add #${i}: summarizer calls`)
      }
      const buffer = Effect.runSync(memory.buffer)
      if (show(buffer).join("\n") !== show(state.buffer).join("\n")) {
        assert.deepStrictEqual(show(buffer), show(state.buffer), `${where} add #${i}: buffer`)
      }
      if (options.measure === "tokens") assert.strictEqual(Effect.runSync(memory.summary), state.summary)
      const context = Effect.runSync(memory.messages)
      assert.deepStrictEqual(
        context.map(SpecModel.stringForm),
        SpecModel.messages10(state, { pinSystem: options.pinSystem }).map(SpecModel.stringForm),
        `${where} add #${i}: messages`
      )
      if (options.boundary === "turn") {
        const problems = SpecModel.turnViolations(buffer, options.pinSystem === true)
        if (problems.length > 0) assert.fail(`${where} add #${i}: ${problems.join("; ")}`)
      }
    })
    return memory
  }

  it.prop(
    "random sequences, single adds and addMessages: the memory equals the model",
    [policyOptions, fc.array(fc.array(message, { minLength: 1, maxLength: 3 }), { maxLength: 30 })],
    ([options, adds]) => {
      compare(options, adds, JSON.stringify(options))
    },
    { fastCheck: { numRuns: RUNS } }
  )

  it.skipIf(absent)("every real conversation, turn mode with pinned system prompt, target and clearing", () => {
    for (
      const options of [
        tokens(300, { boundary: "turn", pinSystem: true, target: 150, clear: { keep: 3 } }),
        tokens(300, { boundary: "turn", pinSystem: true, target: 150, clear: { keep: 3, until: "target" } }),
        tokens(300, { pinSystem: true, target: 150, clear: { keep: 3, until: "budget" } }),
        { measure: "messages", budget: 8, boundary: "turn", pinSystem: true } as const
      ]
    ) {
      for (const conversation of conversations) compare(options, conversation.messages.map((m) => [m]), conversation.id)
    }
  })
})
