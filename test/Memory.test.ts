import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { ConfigError } from "../src/Errors.js"
import * as MemoryState from "../src/schema/MemoryState.js"
import * as Message from "../src/schema/Message.js"
import * as Summarizer from "../src/services/Summarizer.js"
import * as Memory from "../src/strategies/Memory.js"

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
    }))

  it.effect("a state is restored verbatim, not pruned", () =>
    Effect.gen(function*() {
      const state = MemoryState.make("earlier", turns)
      const memory = yield* Memory.make({ strategy: "window", maxMessages: 1 }, state)
      assert.deepStrictEqual(yield* memory.state, state)
      assert.strictEqual(yield* memory.bufferTokens, 12)
    }))

  it.effect("an unknown strategy, a missing summarizer and a bad option are ConfigErrors", () =>
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
        "invalid option summarizer: the summary strategy needs a Summarizer in context"
      )
      const budget = yield* Effect.flip(Memory.make({ strategy: "window", maxMessages: 0 }))
      assert.strictEqual(budget.option, "maxMessages")
    }))
})
