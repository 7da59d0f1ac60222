import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ConfigError } from "../src/Errors.js"
import * as MemoryState from "../src/schema/MemoryState.js"
import * as Message from "../src/schema/Message.js"
import * as Summarizer from "../src/services/Summarizer.js"
import * as BufferMemory from "../src/strategies/BufferMemory.js"
import * as Memory from "../src/strategies/Memory.js"
import * as RollingMemory from "../src/strategies/RollingMemory.js"
import * as SummaryMemory from "../src/strategies/SummaryMemory.js"
import * as WindowMemory from "../src/strategies/WindowMemory.js"

const turns = [
  Message.user("one two three"),
  Message.assistant("four five six"),
  Message.user("seven eight nine"),
  Message.assistant("ten eleven twelve")
]

const summarizer = Summarizer.layerFunction((summary, messages) => `${summary}[${messages.length}]`)

const run = (memory: Memory.Memory) =>
  Effect.gen(function*() {
    for (const turn of turns) yield* memory.add(turn)
    return { strategy: memory.strategy, context: yield* memory.context }
  })

describe("Memory.make: one constructor over the four strategies", () => {
  it.effect("each strategy is built by its own constructor, with its options", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* Effect.flatMap(Memory.make({ strategy: "rolling", maxTokens: 7 }), run), {
        strategy: "rolling",
        context: "system: [2]\nuser: seven eight nine\nassistant: ten eleven twelve"
      })
      assert.deepStrictEqual(yield* Effect.flatMap(Memory.make({ strategy: "buffer" }), run), {
        strategy: "buffer",
        context: turns.map(String).join("\n")
      })
      assert.deepStrictEqual(yield* Effect.flatMap(Memory.make({ strategy: "window", maxMessages: 2 }), run), {
        strategy: "window",
        context: "user: seven eight nine\nassistant: ten eleven twelve"
      })
      assert.deepStrictEqual(yield* Effect.flatMap(Memory.make({ strategy: "summary" }), run), {
        strategy: "summary",
        context: "system: [1][1][1][1]"
      })
    }).pipe(Effect.provide(summarizer)))

  it.effect("a rolling memory without a summarizer in context drops evicted turns", () =>
    Effect.gen(function*() {
      const result = yield* Effect.flatMap(Memory.make({ strategy: "rolling", maxTokens: 7 }), run)
      assert.strictEqual(result.context, "user: seven eight nine\nassistant: ten eleven twelve")
    }).pipe(Effect.provide(Summarizer.layerDrop)))

  it.effect("a state is restored verbatim, not pruned", () =>
    Effect.gen(function*() {
      const state = MemoryState.make("earlier", turns)
      const memory = yield* Memory.make({ strategy: "window", maxMessages: 1 }, state)
      assert.deepStrictEqual(yield* memory.state, state)
      assert.strictEqual(yield* memory.bufferTokens, 12)
    }))

  it.effect("an unknown strategy, the dropping summarizer for the summary strategy and a bad option are ConfigErrors", () =>
    Effect.gen(function*() {
      const unknown = yield* Effect.flip(Memory.make({ strategy: "lru" } as unknown as Memory.Options))
      assert.instanceOf(unknown, ConfigError)
      assert.strictEqual(
        unknown.message,
        "invalid option strategy: must be one of rolling, buffer, window, summary, got \"lru\""
      )
      const summary = yield* Effect.flip(Memory.make({ strategy: "summary" }))
      assert.strictEqual(
        summary.message,
        "invalid option summarizer: SummaryMemory needs a summarizer that summarizes: Summarizer.drop would drop every turn"
      )
      const budget = yield* Effect.flip(Memory.make({ strategy: "window", maxMessages: 0 }))
      assert.strictEqual(budget.option, "maxMessages")
    }).pipe(Effect.provide(Summarizer.layerDrop)))
})

describe("options are checked alike in every constructor (one rule with the Promise facade)", () => {
  const rollingKnown =
    "maxTokens, contextWindow, targetTokens, boundary, pinSystem, clearToolResults, maxToolResultTokens, summaryRole, summaryFraming, summary, maxSummaryTokens, maxSummarizerInputTokens, ledger, fold, hardMaxTokens, foldRetry, archive, conversationId"
  const fields = (error: { readonly _tag: string }) =>
    error instanceof ConfigError ? [error.option, error.description] : [error._tag]

  it.effect("a misspelt key is a ConfigError naming it and the known keys, not a silent default", () =>
    Effect.gen(function*() {
      const misspelt = { maxToken: 100 } as RollingMemory.Options
      assert.deepStrictEqual(fields(yield* Effect.flip(RollingMemory.make(misspelt))), [
        "maxToken",
        `unknown option (known: ${rollingKnown})`
      ])
      assert.deepStrictEqual(
        fields(yield* Effect.flip(RollingMemory.fromState(MemoryState.empty, misspelt))),
        ["maxToken", `unknown option (known: ${rollingKnown})`]
      )
      assert.deepStrictEqual(
        fields(yield* Effect.flip(Effect.scoped(RollingMemory.makeScoped(misspelt)))),
        ["maxToken", `unknown option (known: ${rollingKnown})`]
      )
      assert.deepStrictEqual(
        fields(yield* Effect.flip(RollingMemory.fromJSON(MemoryState.toJSON(MemoryState.empty), misspelt))),
        ["maxToken", `unknown option (known: ${rollingKnown})`]
      )
      assert.deepStrictEqual(
        fields(yield* Effect.flip(BufferMemory.make({ role: "user" } as BufferMemory.Options))),
        ["role", "unknown option (known: summaryRole, summaryFraming)"]
      )
      assert.deepStrictEqual(
        fields(yield* Effect.flip(WindowMemory.make({ maxMessages: 2, max: 3 } as WindowMemory.Options))),
        [
          "max",
          "unknown option (known: maxMessages, targetMessages, boundary, pinSystem, summaryRole, summaryFraming, archive, conversationId)"
        ]
      )
      assert.deepStrictEqual(
        fields(
          yield* Effect.flip(
            SummaryMemory.make({ maxSummaryToken: 9 } as SummaryMemory.Options).pipe(Effect.provide(summarizer))
          )
        ),
        [
          "maxSummaryToken",
          "unknown option (known: summaryRole, summaryFraming, summary, maxSummaryTokens, maxSummarizerInputTokens, ledger, archive, conversationId)"
        ]
      )
      assert.deepStrictEqual(
        fields(yield* Effect.flip(Memory.make({ strategy: "rolling", maxToken: 100 } as Memory.Options))),
        [
          "maxToken",
          "unknown option for the rolling strategy (known: strategy, maxTokens, contextWindow, targetTokens, boundary, pinSystem, clearToolResults, maxToolResultTokens, summaryRole, summaryFraming, summary, maxSummaryTokens, maxSummarizerInputTokens, ledger)"
        ]
      )
    }).pipe(Effect.provide(Summarizer.layerDrop)))

  it.effect("null or a non-object is a ConfigError on option \"options\"", () =>
    Effect.gen(function*() {
      for (const [value, got] of [[null, "null"], [5, "number"], ["x", "string"], [[], "array"]] as const) {
        const expected = ["options", `must be an object, got ${got}`]
        assert.deepStrictEqual(fields(yield* Effect.flip(RollingMemory.make(value as never))), expected)
        assert.deepStrictEqual(fields(yield* Effect.flip(BufferMemory.make(value as never))), expected)
        assert.deepStrictEqual(fields(yield* Effect.flip(WindowMemory.make(value as never))), expected)
        assert.deepStrictEqual(
          fields(yield* Effect.flip(SummaryMemory.make(value as never).pipe(Effect.provide(summarizer)))),
          expected
        )
        assert.deepStrictEqual(fields(yield* Effect.flip(Memory.make(value as never))), expected)
      }
    }).pipe(Effect.provide(Summarizer.layerDrop)))
})

describe("the Summarizer is explicit in the types: dropping is provided on purpose", () => {
  it("RollingMemory's constructors and Memory.make's rolling and summary strategies require a Summarizer", () => {
    // @ts-expect-error -- RollingMemory.make needs a Summarizer (Summarizer.layerDrop to drop)
    const make: Effect.Effect<unknown, unknown, never> = RollingMemory.make()
    // @ts-expect-error -- so does restoring
    const restored: Effect.Effect<unknown, unknown, never> = RollingMemory.fromState(MemoryState.empty)
    // @ts-expect-error -- and the dispatcher with the rolling strategy
    const dispatched: Effect.Effect<unknown, unknown, never> = Memory.make({ strategy: "rolling" })
    // buffer and window never summarize: nothing required
    const buffer: Effect.Effect<unknown, unknown, never> = Memory.make({ strategy: "buffer" })
    const window: Effect.Effect<unknown, unknown, never> = Memory.make({ strategy: "window", maxMessages: 2 })
    assert.deepStrictEqual([make, restored, dispatched, buffer, window].map(Effect.isEffect), [
      true,
      true,
      true,
      true,
      true
    ])
  })

  it.effect("Summarizer.drop is recognised: evicted turns are dropped, no summarizer call", () =>
    Effect.gen(function*() {
      let calls = 0
      // returns the summary unchanged, or "s" for the first fold (an empty result is refused, contract section 5)
      const spy: Summarizer.Service = {
        summarize: (summary) => Effect.sync(() => (calls++, summary === "" ? "s" : summary)),
        summarizeSync: (summary) => (calls++, summary === "" ? "s" : summary)
      }
      const dropping = yield* RollingMemory.make({ maxTokens: 7 }).pipe(Effect.provide(Summarizer.layerDrop))
      const spied = yield* RollingMemory.make({ maxTokens: 7 }).pipe(
        Effect.provideService(Summarizer.Summarizer, spy)
      )
      for (const turn of turns) {
        yield* dropping.add(turn)
        yield* spied.add(turn)
      }
      assert.strictEqual(yield* dropping.context, "user: seven eight nine\nassistant: ten eleven twelve")
      assert.strictEqual(yield* dropping.summary, "")
      // any other summarizer, even one that returns the summary unchanged, is called: once here
      assert.strictEqual(calls, 1)
      assert.strictEqual(yield* spied.context, "system: s\nuser: seven eight nine\nassistant: ten eleven twelve")
      assert.strictEqual(yield* Summarizer.drop.summarize("kept", turns, Summarizer.request()), "kept")
    }))

  it.effect("SummaryMemory refuses the dropping summarizer: ConfigError on option summarizer", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(SummaryMemory.make().pipe(Effect.provide(Summarizer.layerDrop)))
      assert.deepStrictEqual([error.option, error.description], [
        "summarizer",
        "SummaryMemory needs a summarizer that summarizes: Summarizer.drop would drop every turn"
      ])
    }))

  it.effect("Summarizer.drop wrapped by withPolicy still drops: the marker survives, the policy is never run", () =>
    Effect.gen(function*() {
      let policyRuns = 0
      const wrapped = Layer.provide(
        Summarizer.withPolicy((call) => Effect.tap(call, () => Effect.sync(() => policyRuns++))),
        Summarizer.layerDrop
      )
      const service = yield* Effect.provide(Summarizer.Summarizer, wrapped)
      assert.strictEqual(service.drops, true)
      assert.strictEqual(Summarizer.isDrop(service), true)
      const memory = yield* RollingMemory.make({ maxTokens: 7 }).pipe(Effect.provide(wrapped))
      for (const turn of turns) yield* memory.add(turn)
      assert.strictEqual(yield* memory.context, "user: seven eight nine\nassistant: ten eleven twelve")
      assert.strictEqual(yield* memory.summary, "")
      assert.strictEqual(policyRuns, 0)
      const error = yield* Effect.flip(SummaryMemory.make().pipe(Effect.provide(wrapped)))
      assert.strictEqual(error.option, "summarizer")
      // a summarizer written by hand carries no marker: it is called
      assert.strictEqual(Summarizer.isDrop(Summarizer.fromFunction((summary) => summary)), false)
    }))
})
