/**
 * The synchronous path (docs/architecture.md): with a counter and a
 * summarizer that both have a synchronous form, an add is one step that
 * returns an `Exit`, folds included (the new summary counted, the fold
 * committed and observed), so the Promise facade runs no fiber for it.
 * An `Exit` that became a general effect on the way costs a fiber per fold
 * (about 3 µs): this test keeps it an `Exit`.
 */
import { Exit } from "effect"
import { assert, describe, it } from "vitest"
import * as Message from "../src/schema/Message.js"
import * as Summarizer from "../src/services/Summarizer.js"
import * as TokenCounter from "../src/services/TokenCounter.js"
import { buildRolling, buildSummary, buildWindow } from "../src/strategies/internal/builders.js"
import { fillEmpty } from "../src/strategies/internal/core.js"

const counter = TokenCounter.fromFunction(TokenCounter.wordCount)
const summarizer = Summarizer.fromFunction((summary, messages) => `${summary}+${messages.length}`)
const turns = Array.from({ length: 12 }, (_, i) => i % 2 === 0 ? Message.user(`u${i} a`) : Message.assistant(`a${i} b`))

const built = <A>(effect: unknown): A => {
  assert.isTrue(Exit.isExit(effect), "built at once")
  const exit = effect as Exit.Exit<A, unknown>
  assert.isTrue(Exit.isSuccess(exit))
  return (exit as Exit.Success<A, unknown>).value
}

const stepsAreExits = (step: (message: Message.Message) => unknown): Array<boolean> =>
  turns.map((turn) => {
    const result = step(turn)
    return Exit.isExit(result) && Exit.isSuccess(result)
  })

describe("an add with a synchronous counter and summarizer is one step, folds included", () => {
  it("RollingMemory, every add over the budget folds", () => {
    const { step } = built<{ step: (m: Message.Message) => unknown }>(
      buildRolling({ counter, summarizer }, { maxTokens: 4 }, fillEmpty)
    )
    assert.deepStrictEqual(stepsAreExits(step), turns.map(() => true))
  })

  it("RollingMemory with a target, clearing, turn mode and a summary budget", () => {
    const { step } = built<{ step: (m: Message.Message) => unknown }>(
      buildRolling({ counter, summarizer }, {
        maxTokens: 4,
        targetTokens: 2,
        boundary: "turn",
        pinSystem: true,
        maxSummaryTokens: 50,
        clearToolResults: { keep: 1 }
      }, fillEmpty)
    )
    assert.deepStrictEqual(stepsAreExits(step), turns.map(() => true))
  })

  it("SummaryMemory (every add folds) and WindowMemory (drops)", () => {
    const summary = built<{ step: (m: Message.Message) => unknown }>(
      buildSummary({ counter, summarizer }, fillEmpty)
    )
    assert.deepStrictEqual(stepsAreExits(summary.step), turns.map(() => true))
    const window = built<{ step: (m: Message.Message) => unknown }>(
      buildWindow({ counter, summarizer: undefined }, { maxMessages: 3 }, fillEmpty)
    )
    assert.deepStrictEqual(stepsAreExits(window.step), turns.map(() => true))
  })
})
