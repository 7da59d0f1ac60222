/**
 * Concurrency (contract section 5): 1,000 fibers adding to one memory while folds
 * are in flight with random latencies (TestClock-driven), `clear` racing
 * folds, `compact` (section 16.2) racing adds and folds and interrupted at
 * random moments, and the facade's async classes under `Promise.all`. At every clock
 * step: the accounting invariant, with the order of turns the order of their
 * appends; prunes never overlap; and once all adds are done, nothing is left
 * to prune.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, TestClock } from "effect"
import type { Memory } from "../../src/index.js"
import { Message, Summarizer, TokenCounter } from "../../src/index.js"
import * as Facade from "../../src/promise/index.js"
import * as Model from "../support/specModel.js"
import {
  type Accounting,
  accountingHolds,
  assertAccounting,
  encodeFold,
  encodeFoldIn,
  foldedIds,
  idsOf,
  prng,
  range
} from "./support/harness.js"
import { build } from "./support/strategies.js"

/**
 * Turn `n`: mostly user and assistant turns of one to three words, with a
 * tool call every 10th turn and its result the turn after (appends are
 * reordered by the latencies, so results also land before their calls).
 */
const turnOf = (n: number): Message.Message => {
  const id = `t${n}`
  const words = `w${n}` + " x".repeat(n % 3)
  if (n % 10 === 3) return Message.assistant("", { id, toolCalls: [{ id: `c${n}`, name: `f${n}`, arguments: "{}" }] })
  if (n % 10 === 4) return Message.tool(words, { id, toolCallId: `c${n - 1}` })
  return Message.make(n % 2 === 0 ? Message.USER : Message.ASSISTANT, words, { id })
}

interface Harness {
  /** The log of appends (turn ids, in the order they happened) and clears ("CLEAR"). */
  readonly log: Array<string>
  readonly counter: TokenCounter.Service
  readonly summarizer: Summarizer.Service
  /** The most summarizer calls seen in flight at once. */
  readonly maxInFlight: () => number
  readonly calls: () => number
  /** The summarizer calls interrupted before they returned. */
  readonly interrupted: () => number
}

/**
 * A counter that logs each turn as it counts it (the append follows in the
 * same step, so the log is the order of appends), and a summarizer that
 * takes 0 to `maxLatency` ms (a TestClock sleep).
 */
const harness = (seed: number, maxLatency: number): Harness => {
  const random = prng(seed)
  const log: Array<string> = []
  let inFlight = 0
  let maxInFlight = 0
  let calls = 0
  let interrupted = 0
  const counter: TokenCounter.Service = {
    count: (text) =>
      Effect.sync(() => {
        log.push(text)
        return TokenCounter.wordCount(text)
      })
  }
  // it honours request.mode (summary segments, docs/contract.md section 10.9)
  const summarizer = Summarizer.honouringMode(
    Summarizer.fromEffect((summary, messages, request) =>
      Effect.suspend(() => {
        calls++
        maxInFlight = Math.max(maxInFlight, ++inFlight)
        return Effect.sleep(`${random(maxLatency)} millis`).pipe(
          Effect.as(encodeFoldIn(summary, messages, request)),
          Effect.onInterrupt(() => Effect.sync(() => interrupted++)),
          Effect.ensuring(Effect.sync(() => inFlight--))
        )
      })
    )
  )
  return {
    log,
    counter,
    summarizer,
    maxInFlight: () => maxInFlight,
    calls: () => calls,
    interrupted: () => interrupted
  }
}

/**
 * The turn ids appended since the last clear, in order (the counter logs token text: map it back;
 * it also counts each committed summary once, docs/contract.md section 10.4: those are not turns).
 */
const appendedSinceClear = (log: ReadonlyArray<string>, byText: ReadonlyMap<string, string>): Array<string> => {
  const last = log.lastIndexOf("CLEAR")
  return log.slice(last + 1).filter((text) => byText.has(text)).map((text) => byText.get(text)!)
}

/** Token texts are unique per turn here; map each back to its turn id. */
const textIndex = (turns: ReadonlyArray<Message.Message>): Map<string, string> => {
  const index = new Map<string, string>()
  for (const m of turns) {
    assert.isFalse(index.has(m.tokenText), `token text ${m.tokenText} must be unique`)
    index.set(m.tokenText, m.id!)
  }
  return index
}

/** The accounting check run at every clock step (cheap; explains itself only on failure). */
const accounting = (memory: Memory.Memory, expected: () => ReadonlyArray<string>, mode: Accounting) => () =>
  Effect.map(memory.state, (state) => {
    if (!accountingHolds(state, expected(), mode)) assertAccounting(state, expected(), mode)
  })

/** Asserts nothing is left to prune: the final buffer is what the spec's cutoff leaves alone. */
const assertSettled = (buffer: ReadonlyArray<Message.Message>, maxTokens: number): void => {
  const weights = buffer.map((m) => Model.wordCount(Model.tokenText(m)))
  assert.strictEqual(Model.cutoff(buffer, weights, maxTokens), 0)
}

/**
 * Adds `turns` to `memory`, each in its own fiber forked at a random 5 ms
 * step of the first `spread` steps (so adds arrive while folds are in
 * flight), advancing the clock 5 ms per step until every add is done and
 * running `check` after every step (and `actions` before the numbered steps).
 * Asserts every add completed normally; returns the steps taken.
 */
const drive = (
  memory: Memory.Memory,
  turns: ReadonlyArray<Message.Message>,
  seed: number,
  check: () => Effect.Effect<void>,
  actions: ReadonlyMap<number, Effect.Effect<void>> = new Map(),
  spread = 100
) =>
  Effect.gen(function*() {
    const random = prng(seed * 31 + 7)
    const arrivals = new Map<number, Array<Message.Message>>()
    for (const m of turns) {
      const step = random(spread)
      arrivals.set(step, [...(arrivals.get(step) ?? []), m])
    }
    const fibers: Array<Fiber.RuntimeFiber<void, unknown>> = []
    let done = 0
    let steps = 0
    while (steps < spread || done < fibers.length) {
      const action = actions.get(steps)
      if (action !== undefined) yield* action
      for (const m of arrivals.get(steps) ?? []) {
        fibers.push(yield* Effect.fork(Effect.ensuring(memory.add(m), Effect.sync(() => done++))))
      }
      yield* TestClock.adjust("5 millis")
      yield* check()
      steps++
      if (steps > 100_000) assert.fail("the adds never finished")
    }
    const exits = yield* Effect.forEach(fibers, Fiber.await)
    assert.strictEqual(exits.length, turns.length)
    const failures = exits.filter(Exit.isFailure)
    assert.deepStrictEqual(failures, [], "every add completed normally")
    return { steps }
  })

/**
 * RollingMemory and SummaryMemory run in both summary modes (docs/contract.md
 * section 10.9): segments with a summary budget of 3 words, so that
 * consolidations (one word each) run among the folds.
 */
const summaryModes = [
  { name: "", options: {} },
  { name: ", summary segments", options: { summary: "segments", maxSummaryTokens: 3 } }
] as const

describe("1,000 concurrent adds while folds are in flight", () => {
  for (const [seed, mode] of [1, 2, 3].flatMap((seed) => summaryModes.map((mode) => [seed, mode] as const))) {
    it.effect(`RollingMemory, random latencies 0-20 ms (seed ${seed}${mode.name})`, () =>
      Effect.gen(function*() {
        const turns = range(1, 1_000).map(turnOf)
        const byText = textIndex(turns)
        const h = harness(seed, 21)
        const maxTokens = 30
        const memory: Memory.Memory = yield* build("rolling", { summarizer: h.summarizer, counter: h.counter }, {
          maxTokens,
          ...mode.options
        })
        const check = accounting(memory, () => appendedSinceClear(h.log, byText), "summarize")
        const { steps } = yield* drive(memory, turns, seed, check)
        const state = yield* memory.state
        // Every turn, once, in the order of its append: folded or buffered.
        const order = appendedSinceClear(h.log, byText)
        assert.strictEqual(order.length, 1_000)
        assert.deepStrictEqual([...order].sort(), turns.map((m) => m.id!).sort())
        assertAccounting(state, order, "summarize")
        // The appends really were reordered by the latencies.
        assert.notDeepEqual(order, turns.map((m) => m.id!))
        // Prunes never overlapped, and there were many of them.
        assert.strictEqual(h.maxInFlight(), 1)
        assert.isAbove(h.calls(), 20)
        assert.isAtLeast(steps, 100)
        assertSettled(state.buffer, maxTokens)
      }), 120_000)
  }

  for (const mode of summaryModes) {
    it.effect(
      `SummaryMemory, random latencies 0-20 ms: every turn folded exactly once, in append order${mode.name}`,
      () =>
        Effect.gen(function*() {
          const turns = range(1, 1_000).map(turnOf)
          const byText = textIndex(turns)
          const seed = 7
          const h = harness(seed, 21)
          const memory = yield* build("summary", { summarizer: h.summarizer, counter: h.counter }, mode.options)
          const check = accounting(memory, () => appendedSinceClear(h.log, byText), "summarize")
          yield* drive(memory, turns, seed, check)
          const state = yield* memory.state
          assert.deepStrictEqual(state.buffer, [])
          assert.deepStrictEqual(foldedIds(state.summary), appendedSinceClear(h.log, byText))
          assert.strictEqual(h.maxInFlight(), 1)
        }),
      120_000
    )
  }

  for (const strategy of ["rolling-drop", "window", "buffer"] as const) {
    it.effect(`${strategy}: 1,000 concurrent adds keep the append order`, () =>
      Effect.gen(function*() {
        const turns = range(1, 1_000).map(turnOf)
        const byText = textIndex(turns)
        const seed = 11
        const h = harness(seed, 21)
        const memory = yield* build(strategy, { counter: h.counter }, { maxTokens: 30, maxMessages: 25 })
        const mode: Accounting = strategy === "buffer" ? "keep" : "drop"
        const check = accounting(memory, () => appendedSinceClear(h.log, byText), mode)
        yield* drive(memory, turns, seed, check)
        const buffer = yield* memory.buffer
        assert.strictEqual(buffer.length, strategy === "buffer" ? 1_000 : buffer.length)
        if (strategy !== "buffer") assert.isBelow(buffer.length, 1_000)
      }), 120_000)
  }
})

describe("clear racing folds", () => {
  for (const [seed, mode] of [4, 5].flatMap((seed) => summaryModes.map((mode) => [seed, mode] as const))) {
    it.effect(
      `RollingMemory: clears at random moments discard the folds in flight (seed ${seed}${mode.name})`,
      () =>
        Effect.gen(function*() {
          const turns = range(1, 1_000).map(turnOf)
          const byText = textIndex(turns)
          const h = harness(seed, 21)
          const maxTokens = 30
          const memory = yield* build("rolling", { summarizer: h.summarizer, counter: h.counter }, {
            maxTokens,
            ...mode.options
          })
          const random = prng(seed * 97)
          const clear = Effect.zipRight(memory.clear, Effect.sync(() => h.log.push("CLEAR")))
          const actions = new Map(range(0, 8).map((i) => [5 + i * 12 + random(8), clear] as const))
          const check = accounting(memory, () => appendedSinceClear(h.log, byText), "summarize")
          const { steps } = yield* drive(memory, turns, seed, check, actions)
          // Every add completed normally, the ones whose fold was discarded too.
          assert.strictEqual(
            h.log.filter((e) => e === "CLEAR").length,
            [...actions.keys()].filter((k) => k < steps).length
          )
          assert.isAtLeast(h.log.filter((e) => e === "CLEAR").length, 3)
          const state = yield* memory.state
          assertAccounting(state, appendedSinceClear(h.log, byText), "summarize")
          assert.strictEqual(h.maxInFlight(), 1)
          assertSettled(state.buffer, maxTokens)
        }),
      120_000
    )
  }

  for (const mode of summaryModes) {
    it.effect(
      `SummaryMemory: a clear during a fold discards it; turns added after the clear are folded${mode.name}`,
      () =>
        Effect.gen(function*() {
          const turns = range(1, 400).map(turnOf)
          const byText = textIndex(turns)
          const seed = 9
          const h = harness(seed, 15)
          const memory = yield* build("summary", { summarizer: h.summarizer, counter: h.counter }, mode.options)
          const clear = Effect.zipRight(memory.clear, Effect.sync(() => h.log.push("CLEAR")))
          const actions = new Map([[3, clear], [30, clear], [60, clear]] as const)
          const check = accounting(memory, () => appendedSinceClear(h.log, byText), "summarize")
          yield* drive(memory, turns, seed, check, actions)
          const state = yield* memory.state
          assert.deepStrictEqual(idsOf(state.buffer), [])
          assert.deepStrictEqual(foldedIds(state.summary), appendedSinceClear(h.log, byText))
        }),
      120_000
    )
  }
})

/**
 * Compactions forked at random steps (a random target, or the default) and,
 * at other random steps, one still running interrupted, wherever it is then:
 * waiting for the prune lock or in the summarizer call.
 */
const compactions = (memory: Memory.Compactable, seed: number, count: number, spread: number) => {
  const random = prng(seed * 131 + 3)
  const fibers: Array<Fiber.RuntimeFiber<void, unknown>> = []
  const actions = new Map<number, Effect.Effect<void>>()
  for (let i = 0; i < count; i++) {
    const target = random(3) === 0 ? undefined : 1 + random(20)
    actions.set(
      random(spread),
      Effect.asVoid(Effect.tap(Effect.fork(memory.compact({ targetTokens: target })), (f) => fibers.push(f)))
    )
  }
  for (let i = 0; i < count; i++) {
    const step = random(spread + 20)
    if (!actions.has(step)) {
      actions.set(
        step,
        Effect.suspend(() => {
          const running = fibers.filter((f) => f.unsafePoll() === null)
          return running.length === 0 ? Effect.void : Fiber.interrupt(running[random(running.length)])
        })
      )
    }
  }
  return { actions, fibers }
}

// In segments mode the folds run at other moments: a seed whose interruptions land in a summarizer call.
const SEGMENTS_SEED = 23

describe("compact racing adds, folds and interruption", () => {
  for (const [seed, mode] of [8, 10].flatMap((seed) => summaryModes.map((mode) => [seed, mode] as const))) {
    it.effect(
      `RollingMemory: compactions at random moments, some interrupted, keep every turn once (seed ${seed}${mode.name})`,
      () =>
        Effect.gen(function*() {
          const turns = range(1, 1_000).map(turnOf)
          const byText = textIndex(turns)
          const h = harness(seed, 21)
          const maxTokens = 30
          const memory = yield* build("rolling", { summarizer: h.summarizer, counter: h.counter }, {
            maxTokens,
            ...mode.options
          })
          const { actions, fibers } = compactions(memory as unknown as Memory.Compactable, seed, 40, 100)
          const check = accounting(memory, () => appendedSinceClear(h.log, byText), "summarize")
          yield* drive(memory, turns, seed, check, actions)
          const exits = yield* Effect.forEach(fibers, Fiber.await)
          // every compaction completed or was interrupted: none failed
          assert.deepStrictEqual(exits.filter((e) => Exit.isFailure(e) && !Exit.isInterrupted(e)), [])
          assert.isAtLeast(exits.filter(Exit.isInterrupted).length, 1, "some compactions were interrupted")
          assert.isAtLeast(h.interrupted(), 1, "some were interrupted in their summarizer call")
          const state = yield* memory.state
          const order = appendedSinceClear(h.log, byText)
          assert.strictEqual(order.length, 1_000)
          assertAccounting(state, order, "summarize")
          // compactions, folds and their interruptions never overlapped
          assert.strictEqual(h.maxInFlight(), 1)
          assertSettled(state.buffer, maxTokens)
        }),
      120_000
    )
  }

  for (const mode of summaryModes) {
    it.effect(
      `SummaryMemory: compactions racing adds, some interrupted: every turn folded exactly once, in append order${mode.name}`,
      () =>
        Effect.gen(function*() {
          const turns = range(1, 400).map(turnOf)
          const byText = textIndex(turns)
          const seed = mode.name === "" ? 12 : SEGMENTS_SEED
          const h = harness(seed, 15)
          const memory = yield* build("summary", { summarizer: h.summarizer, counter: h.counter }, mode.options)
          const { actions, fibers } = compactions(memory as unknown as Memory.Compactable, seed, 30, 100)
          const check = accounting(memory, () => appendedSinceClear(h.log, byText), "summarize")
          yield* drive(memory, turns, seed, check, actions)
          const exits = yield* Effect.forEach(fibers, Fiber.await)
          assert.deepStrictEqual(exits.filter((e) => Exit.isFailure(e) && !Exit.isInterrupted(e)), [])
          assert.isAtLeast(exits.filter(Exit.isInterrupted).length, 1, "some compactions were interrupted")
          assert.isAtLeast(h.interrupted(), 1, "some were interrupted in their summarizer call")
          // a last compaction, uninterrupted, folds whatever an interrupted one left pending
          const last = yield* Effect.fork((memory as unknown as Memory.Compactable).compact())
          while (last.unsafePoll() === null) yield* TestClock.adjust("5 millis")
          assert.isTrue(Exit.isSuccess(yield* Fiber.await(last)))
          const state = yield* memory.state
          assert.deepStrictEqual(idsOf(state.buffer), [])
          assert.deepStrictEqual(foldedIds(state.summary), appendedSinceClear(h.log, byText))
          assert.strictEqual(h.maxInFlight(), 1)
        }),
      120_000
    )
  }
})

// ---------------------------------------------------------------------------
// The facade's async classes under Promise.all
// ---------------------------------------------------------------------------

/** Resolves after `n` microtask turns: a latency without timers. */
const ticks = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await Promise.resolve()
}

describe("the facade's async classes under Promise.all", () => {
  it("AsyncRollingMemory: 1,000 concurrent addUserMessage calls, async summarizer with random latencies", async () => {
    const random = prng(21)
    let inFlight = 0
    let maxInFlight = 0
    let calls = 0
    const memory = new Facade.AsyncRollingMemory({
      maxTokens: 30,
      summarize: async (summary, messages) => {
        calls++
        maxInFlight = Math.max(maxInFlight, ++inFlight)
        await ticks(random(50))
        inFlight--
        return encodeFold(summary, messages)
      }
    })
    // Each add starts after a random number of microtask turns, so adds and
    // folds interleave; the append happens within the call, so the order of
    // the calls is the order of the turns.
    const order: Array<string> = []
    await Promise.all(
      range(1, 1_000).map(async (n) => {
        await ticks(random(300))
        const id = `t${n}`
        order.push(id)
        return n % 2 === 0 ? memory.addUserMessage(`${id} x`, { id }) : memory.addAssistantMessage(id, { id })
      })
    )
    assert.strictEqual(order.length, 1_000)
    assert.notDeepEqual(order, range(1, 1_000).map((n) => `t${n}`))
    assertAccounting({ summary: memory.summary, buffer: memory.buffer }, order, "summarize")
    assert.strictEqual(maxInFlight, 1)
    assert.isAtLeast(calls, 5)
    assertSettled(memory.buffer, 30)
    await memory.dispose()
  })

  it("AsyncRollingMemory: all 1,000 adds started at once fold in one call", async () => {
    const calls: Array<number> = []
    const memory = new Facade.AsyncRollingMemory({
      maxTokens: 30,
      summarize: async (summary, messages) => {
        calls.push(messages.length)
        await ticks(5)
        return encodeFold(summary, messages)
      }
    })
    const ids = range(1, 1_000).map((n) => `t${n}`)
    await Promise.all(ids.map((id) => memory.addUserMessage(`${id} x`, { id })))
    assertAccounting({ summary: memory.summary, buffer: memory.buffer }, ids, "summarize")
    assert.deepStrictEqual(idsOf(memory.buffer), ids.slice(985))
    assert.strictEqual(calls.reduce((a, b) => a + b, 0), 985)
    await memory.dispose()
  })

  it("AsyncRollingMemory: a turn is visible to readers while its fold is in flight", async () => {
    let release: (() => void) | undefined
    const memory = new Facade.AsyncRollingMemory({
      maxTokens: 2,
      summarize: (summary, messages) =>
        new Promise<string>((resolve) => {
          release = () => resolve(encodeFold(summary, messages))
        })
    })
    await memory.addUserMessage("a b", { id: "t1" })
    const second = memory.addUserMessage("c d", { id: "t2" })
    const third = memory.addUserMessage("e f", { id: "t3" })
    await ticks(20)
    assert.deepStrictEqual(idsOf(memory.buffer), ["t1", "t2", "t3"])
    assert.strictEqual(memory.summary, "")
    release!()
    await ticks(20)
    release!()
    await Promise.all([second, third])
    assert.strictEqual(memory.summary, "<t1><t2>")
    assert.deepStrictEqual(idsOf(memory.buffer), ["t3"])
    await memory.dispose()
  })

  it("AsyncRollingMemory: failing folds under Promise.allSettled lose nothing", async () => {
    const random = prng(22)
    const memory = new Facade.AsyncRollingMemory({
      maxTokens: 30,
      summarize: async (summary, messages) => {
        await ticks(random(20))
        if (random(4) === 0) throw new Error("model overloaded")
        return encodeFold(summary, messages)
      }
    })
    const ids: Array<string> = []
    const results = await Promise.allSettled(
      range(1, 1_000).map(async (n) => {
        await ticks(random(300))
        const id = `t${n}`
        ids.push(id)
        return memory.addUserMessage(`${id} x`, { id })
      })
    )
    const rejected = results.filter((r) => r.status === "rejected")
    assert.isAbove(rejected.length, 0)
    for (const r of rejected) assert.strictEqual((r.reason as Error).message, "model overloaded")
    assertAccounting({ summary: memory.summary, buffer: memory.buffer }, ids, "summarize")
    await memory.dispose()
  })

  it("AsyncSummaryMemory: 1,000 concurrent adds, every turn folded once in call order", async () => {
    const random = prng(23)
    let inFlight = 0
    let maxInFlight = 0
    const memory = new Facade.AsyncSummaryMemory({
      summarize: async (summary, messages) => {
        maxInFlight = Math.max(maxInFlight, ++inFlight)
        await ticks(random(30))
        inFlight--
        return encodeFold(summary, messages)
      }
    })
    const ids = range(1, 1_000).map((n) => `t${n}`)
    await Promise.all(ids.map((id) => memory.addMessage("critic", id, { id })))
    assert.deepStrictEqual(memory.buffer, [])
    assert.deepStrictEqual(foldedIds(memory.summary), ids)
    assert.strictEqual(maxInFlight, 1)
    await memory.dispose()
  })

  it("AsyncRollingMemory: clear while adds and folds are in flight", async () => {
    const random = prng(24)
    const memory = new Facade.AsyncRollingMemory({
      maxTokens: 30,
      summarize: async (summary, messages) => {
        await ticks(random(40))
        return encodeFold(summary, messages)
      }
    })
    const ids = range(1, 600).map((n) => `t${n}`)
    const first = Promise.all(ids.slice(0, 300).map((id) => memory.addUserMessage(`${id} x`, { id })))
    await ticks(100)
    memory.clear()
    const second = Promise.all(ids.slice(300).map((id) => memory.addUserMessage(`${id} x`, { id })))
    await Promise.all([first, second])
    // Only the turns added after the clear remain, none of those before it.
    assertAccounting({ summary: memory.summary, buffer: memory.buffer }, ids.slice(300), "summarize")
    await memory.dispose()
  })
})
