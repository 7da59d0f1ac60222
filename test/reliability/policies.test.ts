/**
 * The reliability suite with every context policy on (contract section 10):
 * a RollingMemory with a low-water mark, turn boundaries, a pinned system
 * prompt and tool-result clearing (until the target, and until the budget),
 * under 1,000 concurrent adds with folds in flight (TestClock-driven
 * latencies), summarizer failures, `clear` at random
 * moments and interrupted adds. At every clock step the accounting invariant
 * holds with its two new cases: the pinned prompt never leaves the buffer, and
 * a cleared tool result keeps its place and every field but its content.
 * Prunes never overlap. Once the adds are done and a last fold succeeds, the
 * buffer is within the budget and turn-valid.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, TestClock } from "effect"
import type { Memory } from "../../src/index.js"
import { Message, RollingMemory, Summarizer, SummarizerError, TokenCounter } from "../../src/index.js"
import * as SpecModel from "../support/specModel.js"
import { encodeFold, foldedIds, idsOf, prng, range } from "./support/harness.js"

const PLACEHOLDER = "[gone]"
const SYSTEM = Message.system("You are a booking agent. Follow the airline policy.", { id: "sys" })
const LAST = Message.user("thanks, that is all", { id: "last" })

/**
 * Turn `n` of an agent log: a user request every 8th turn, an assistant call
 * with a long result after it (so clearing has something to clear), and
 * assistant answers; every token text is unique.
 */
const turnOf = (n: number): Message.Message => {
  const id = `t${n}`
  switch (n % 8) {
    case 0:
      return Message.user(`please w${n}`, { id })
    case 2:
      return Message.assistant("", { id, toolCalls: [{ id: `c${n}`, name: `f${n}`, arguments: "{}" }] })
    case 3:
      return Message.tool(`w${n} ${"row ".repeat(6)}`.trim(), { id, toolCallId: `c${n - 1}` })
    default:
      return Message.assistant(`w${n} x`, { id })
  }
}

const OPTIONS = {
  maxTokens: 40,
  targetTokens: 20,
  boundary: "turn",
  pinSystem: true,
  clearToolResults: { keep: 2, placeholder: PLACEHOLDER }
} as const

interface Harness {
  /** Turn ids in the order they were counted (= appended), and "CLEAR" marks. */
  readonly log: Array<string>
  readonly counter: TokenCounter.Service
  readonly summarizer: Summarizer.Service
  readonly maxInFlight: () => number
  readonly calls: () => number
  readonly failures: () => number
  /** Stops injecting failures (for the final, settling fold). */
  readonly heal: () => void
}

/**
 * A counter that logs each turn as it counts it (the append follows in the
 * same step), and a summarizer that takes 0 to 20 ms (TestClock) and fails
 * on about one call in `failEvery`.
 */
const harness = (seed: number, byText: ReadonlyMap<string, string>, failEvery: number): Harness => {
  const random = prng(seed)
  const log: Array<string> = []
  let inFlight = 0
  let maxInFlight = 0
  let calls = 0
  let failures = 0
  let healed = false
  const counter: TokenCounter.Service = {
    count: (text) =>
      Effect.sync(() => {
        const id = byText.get(text)
        if (id !== undefined) log.push(id)
        return TokenCounter.wordCount(text)
      })
  }
  const summarizer = Summarizer.fromEffect((summary: string, messages: ReadonlyArray<Message.Message>) =>
    Effect.suspend(() => {
      calls++
      maxInFlight = Math.max(maxInFlight, ++inFlight)
      const fail = !healed && random(failEvery) === 0
      return Effect.sleep(`${random(21)} millis`).pipe(
        Effect.zipRight(
          fail ? Effect.sync(() => failures++).pipe(Effect.zipRight(Effect.fail("overloaded"))) : Effect.void
        ),
        Effect.as(encodeFold(summary, messages)),
        Effect.ensuring(Effect.sync(() => inFlight--))
      )
    })
  )
  return {
    log,
    counter,
    summarizer,
    maxInFlight: () => maxInFlight,
    calls: () => calls,
    failures: () => failures,
    heal: () => {
      healed = true
    }
  }
}

/** The ids counted since the last clear, in order. */
const sinceClear = (log: ReadonlyArray<string>): Array<string> => log.slice(log.lastIndexOf("CLEAR") + 1)

/** Tool results seen cleared in a buffer, by id. */
const clearedSeen = new Set<string>()

/**
 * The accounting invariant with the policies' cases (contract sections 5,
 * 10.2, 10.3, 10.5): every turn added since the last clear is either in the
 * buffer or folded into the summary, exactly once; the buffer keeps the order
 * of the appends (turn mode may evict an orphaned result that stands after
 * kept turns, so the summary's order is not the appends'); the pinned prompt
 * opens the buffer and is never folded; a buffered message whose content
 * changed is a tool result holding the placeholder, every other field kept.
 */
const checkAccounting = (
  state: { readonly summary: string; readonly buffer: ReadonlyArray<Message.Message> },
  added: ReadonlyArray<string>,
  pinned: boolean,
  originals: ReadonlyMap<string, Message.Message>
): void => {
  const buffer = idsOf(state.buffer)
  const folded = foldedIds(state.summary)
  if (pinned && buffer[0] !== "sys") assert.fail(`the pinned prompt left the head: ${buffer.join(",")}`)
  if (folded.includes("sys")) assert.fail("the pinned prompt was summarized")
  const all = [...folded, ...buffer].sort().join(",")
  if (all !== [...added].sort().join(",")) assert.deepStrictEqual([...folded, ...buffer].sort(), [...added].sort())
  const position = new Map(added.map((id, i) => [id, i] as const))
  for (let i = 1; i < buffer.length; i++) {
    if (position.get(buffer[i - 1])! > position.get(buffer[i])!) {
      assert.fail(`the buffer is out of append order at ${i}: ${buffer.join(",")}`)
    }
  }
  for (const m of state.buffer) {
    const original = originals.get(m.id!)!
    if (m.content === original.content) continue
    clearedSeen.add(m.id!)
    assert.strictEqual(m.content, PLACEHOLDER, `${m.id} changed content`)
    assert.strictEqual(m.toolCallId, original.toolCallId, `${m.id} is a tool result that kept its call id`)
    assert.strictEqual(m.role, original.role)
  }
}

/**
 * Forks each add at a random 5 ms step of the first 100, advancing the clock
 * until all are done, running `actions` before numbered steps and `check`
 * after every step. Returns the adds' exits.
 */
const drive = (
  memory: Memory.Memory,
  turns: ReadonlyArray<Message.Message>,
  seed: number,
  check: () => Effect.Effect<void>,
  actions: ReadonlyMap<number, (fibers: ReadonlyArray<Fiber.RuntimeFiber<void, unknown>>) => Effect.Effect<void>>
) =>
  Effect.gen(function*() {
    const random = prng(seed * 31 + 7)
    const arrivals = new Map<number, Array<Message.Message>>()
    for (const m of turns) {
      const step = random(100)
      arrivals.set(step, [...(arrivals.get(step) ?? []), m])
    }
    const fibers: Array<Fiber.RuntimeFiber<void, unknown>> = []
    let steps = 0
    while (steps < 100 || fibers.some((f) => f.unsafePoll() === null)) {
      const action = actions.get(steps)
      if (action !== undefined) yield* action(fibers)
      for (const m of arrivals.get(steps) ?? []) fibers.push(yield* Effect.fork(memory.add(m)))
      yield* TestClock.adjust("5 millis")
      yield* check()
      steps++
      if (steps > 100_000) assert.fail("the adds never finished")
    }
    return yield* Effect.forEach(fibers, Fiber.await)
  })

/** The options with clearing stopping within the budget rather than the target (`until: "budget"`). */
const UNTIL_BUDGET = { ...OPTIONS, clearToolResults: { ...OPTIONS.clearToolResults, until: "budget" } } as const

const setup = (seed: number, failEvery: number, options: RollingMemory.Options = OPTIONS) =>
  Effect.gen(function*() {
    const turns = range(1, 1_000).map(turnOf)
    const byText = new Map([SYSTEM, ...turns].map((m) => [m.tokenText, m.id!] as const))
    assert.strictEqual(byText.size, 1_001, "token texts are unique")
    const originals = new Map([SYSTEM, LAST, ...turns].map((m) => [m.id!, m] as const))
    const h = harness(seed, byText, failEvery)
    const memory: Memory.Memory = yield* RollingMemory.make(options).pipe(
      Effect.provideService(Summarizer.Summarizer, h.summarizer),
      Effect.provideService(TokenCounter.TokenCounter, h.counter)
    )
    yield* memory.add(SYSTEM)
    return { turns, originals, h, memory }
  })

/** After the adds: one more user turn with a healed summarizer settles the buffer. */
const settle = (memory: Memory.Memory, h: Harness) =>
  Effect.gen(function*() {
    h.heal()
    const fiber = yield* Effect.fork(memory.add(LAST))
    while (fiber.unsafePoll() === null) yield* TestClock.adjust("5 millis")
    assert.isTrue(Exit.isSuccess(yield* Fiber.await(fiber)))
    h.log.push("last")
    const buffer = yield* memory.buffer
    const tokens = yield* memory.bufferTokens
    const pinnedTokens = buffer[0]?.id === "sys" ? TokenCounter.wordCount(SYSTEM.tokenText) : 0
    assert.isAtMost(tokens - pinnedTokens, OPTIONS.maxTokens, "within the budget once settled")
    assert.deepStrictEqual(SpecModel.turnViolations(buffer, true), [], "turn-valid once settled")
    return buffer
  })

describe("every context policy on: target, turn boundaries, pinned prompt, clearing", () => {
  for (const [seed, options] of [[1, OPTIONS], [2, OPTIONS], [4, UNTIL_BUDGET]] as const) {
    it.effect(
      `1,000 concurrent adds, failing folds, clears at random moments (seed ${seed}${
        options === UNTIL_BUDGET ? ", clearing until the budget" : ""
      })`,
      () =>
        Effect.gen(function*() {
          const { h, memory, originals, turns } = yield* setup(seed, 6, options)
          const random = prng(seed * 97)
          const clear = () =>
            Effect.zipRight(
              memory.clear,
              Effect.sync(() => {
                h.log.push("CLEAR")
              })
            )
          const actions = new Map(range(0, 4).map((i) => [10 + i * 20 + random(8), clear] as const))
          let pinned = true
          const check = () =>
            Effect.map(memory.state, (state) => {
              // a clear empties the buffer, the pinned prompt too
              pinned = h.log.lastIndexOf("CLEAR") === -1
              checkAccounting(state, sinceClear(h.log), pinned, originals)
            })
          clearedSeen.clear()
          const exits = yield* drive(memory, turns, seed, check, actions)
          assert.isAbove(clearedSeen.size, 10, "tool results were cleared")
          // Failures reached their adds, typed; every other add completed normally.
          const failed = exits.filter(Exit.isFailure)
          assert.isAbove(h.failures(), 0)
          assert.isAtMost(failed.length, h.failures())
          for (const exit of failed) {
            const error = exit.cause._tag === "Fail" ? exit.cause.error : undefined
            assert.instanceOf(error, SummarizerError)
          }
          assert.strictEqual(h.maxInFlight(), 1, "prunes never overlap")
          assert.isAbove(h.calls(), 10)
          assert.isAtLeast(h.log.filter((e) => e === "CLEAR").length, 3)
          const buffer = yield* settle(memory, h)
          checkAccounting({ summary: yield* memory.summary, buffer }, sinceClear(h.log), false, originals)
        }),
      120_000
    )
  }

  it.effect(
    "interrupted adds lose nothing: their turns stay, their folds commit nothing",
    () =>
      Effect.gen(function*() {
        const seed = 3
        const { h, memory, originals, turns } = yield* setup(seed, 1_000_000)
        const random = prng(seed * 13)
        // every 7th step, interrupt one add still running (most are in a fold or waiting for the lock)
        const interrupt = (fibers: ReadonlyArray<Fiber.RuntimeFiber<void, unknown>>) =>
          Effect.gen(function*() {
            const running = fibers.filter((f) => f.unsafePoll() === null)
            if (running.length > 0) yield* Fiber.interrupt(running[random(running.length)])
          })
        const actions = new Map(range(0, 14).map((i) => [i * 7, interrupt] as const))
        const check = () => Effect.map(memory.state, (state) => checkAccounting(state, h.log, true, originals))
        const exits = yield* drive(memory, turns, seed, check, actions)
        const interrupted = exits.filter((e) => Exit.isFailure(e) && Exit.isInterrupted(e))
        assert.isAbove(interrupted.length, 0)
        assert.strictEqual(exits.filter(Exit.isFailure).length, interrupted.length)
        // every turn was appended once, interrupted or not
        assert.deepStrictEqual([...h.log].sort(), ["sys", ...turns.map((m) => m.id!)].sort())
        assert.strictEqual(h.maxInFlight(), 1)
        const buffer = yield* settle(memory, h)
        checkAccounting({ summary: yield* memory.summary, buffer }, h.log, true, originals)
      }),
    120_000
  )
})
