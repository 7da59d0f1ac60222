/**
 * An add made now on the Effect 4 line (`strategies/internal/engine.ts`
 * `stepOf`, `foldNow`): with a counter and a summarizer from plain
 * functions, an add and its fold are one step, an `Exit` the Promise facade
 * reads without running a fiber; any other summarizer runs as an effect
 * under the prune lock. Either way the memory ends in the same state, and
 * `memory.add` stays an effect that adds each time it runs.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { Message, RollingMemory, Summarizer, TokenCounter } from "../src/index.js"
import { stepOf } from "../src/strategies/internal/engine.js"

const words = (text: string): number => text.split(/\s+/).filter((w) => w !== "").length
const joined = (summary: string, messages: ReadonlyArray<Message.Message>): string =>
  [summary, ...messages.map((m) => m.content)].filter((s) => s !== "").join(" / ")

const turns = ["one two three", "four five six", "seven eight nine", "ten eleven twelve", "thirteen fourteen"]

const replay = (summarizer: Summarizer.Service) => {
  const memory = Effect.runSync(
    RollingMemory.make({ maxTokens: 7, targetTokens: 4 }).pipe(
      Effect.provideService(Summarizer.Summarizer, summarizer),
      Effect.provideService(TokenCounter.TokenCounter, TokenCounter.fromFunction(words))
    )
  )
  const step = stepOf(memory)
  const exits = turns.map((t) => {
    const made = step(Message.user(t))
    return Exit.isExit(made) ? "exit" : Exit.isSuccess(Effect.runSyncExit(made)) ? "effect" : "failed"
  })
  return { exits, state: JSON.stringify(Effect.runSync(memory.toJSON)) }
}

describe("an add made now on Effect 4", () => {
  it("folds in the add's step with function services, as an effect otherwise, to the same state", () => {
    const now = replay(Summarizer.fromFunction(joined))
    const later = replay(Summarizer.fromEffect((summary, messages) => Effect.succeed(joined(summary, messages))))
    assert.deepStrictEqual(now.exits, ["exit", "exit", "exit", "exit", "exit"])
    assert.deepStrictEqual(later.exits, ["exit", "exit", "effect", "exit", "effect"])
    assert.strictEqual(now.state, later.state)
    assert.strictEqual(
      now.state,
      JSON.stringify({
        version: 2,
        summary: "one two three / four five six / seven eight nine / ten eleven twelve",
        buffer: [{ role: "user", content: "thirteen fourteen" }]
      })
    )
  })

  it("a summarizer failure made now commits nothing and is the add's typed error", () => {
    const memory = Effect.runSync(
      RollingMemory.make({ maxTokens: 5 }).pipe(
        Effect.provideService(
          Summarizer.Summarizer,
          Summarizer.fromFunction(() => {
            throw new Error("down")
          })
        ),
        Effect.provideService(TokenCounter.TokenCounter, TokenCounter.fromFunction(words))
      )
    )
    const step = stepOf(memory)
    assert.isTrue(Exit.isSuccess(step(Message.user("a b c")) as Exit.Exit<void, unknown>))
    const failed = step(Message.user("d e f"))
    assert.isTrue(Exit.isExit(failed))
    const exit = failed as unknown as Exit.Exit<void, { readonly _tag: string; readonly description: string }>
    assert.isTrue(Exit.isFailure(exit))
    if (Exit.isFailure(exit)) {
      const error = exit.cause.reasons[0]
      assert.strictEqual(error._tag, "Fail")
      if (error._tag === "Fail") assert.strictEqual(error.error._tag, "SummarizerError")
    }
    // the turn is kept, the plan aborted: nothing folded
    assert.strictEqual(Effect.runSync(memory.summary), "")
    assert.deepStrictEqual(Effect.runSync(memory.buffer).map((m) => m.content), ["a b c", "d e f"])
  })

  it("memory.add is an effect: built once, it adds each time it runs", () => {
    const memory = Effect.runSync(
      RollingMemory.make({ maxTokens: 100 }).pipe(Effect.provideService(Summarizer.Summarizer, Summarizer.drop))
    )
    const add = memory.add(Message.user("hello"))
    assert.deepStrictEqual(Effect.runSync(memory.buffer), [])
    Effect.runSync(add)
    Effect.runSync(add)
    assert.deepStrictEqual(Effect.runSync(memory.buffer).map((m) => m.content), ["hello", "hello"])
  })
})
