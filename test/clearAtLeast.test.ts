/**
 * Cache-aware clearing (docs/contract.md section 10.5): `atLeast`, a
 * clearing pass goes on until it has freed that many tokens and stands only
 * if it did (else nothing is cleared and the prune goes on as without
 * clearing); `exclude`, the tools whose results are never cleared (and that
 * `keep` does not count). Exact buffers and summarizer calls on hand-built
 * transcripts (word counts), then properties over random transcripts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, FastCheck as fc, Layer } from "effect"
import * as Facade from "../src/promise/index.js"
import * as Message from "../src/schema/Message.js"
import * as Summarizer from "../src/services/Summarizer.js"
import * as TokenCounter from "../src/services/TokenCounter.js"
import * as RollingMemory from "../src/strategies/RollingMemory.js"
import { runCli } from "./support/cli.js"
import { call, result, u } from "./support/harness.js"

/** A 10-word result: 11 words of token text with its id; cleared: 4 (`[tool result cleared]` and the id), 7 freed. */
const big = (id: string) => result(id, "a b c d e f g h i j")
const lookup = (id: string) => Message.assistant("", { toolCalls: [{ id, name: "lookup", arguments: "{}" }] })

const CALL = "assistant:  [tool calls: f({})]"
const LOOKUP = "assistant:  [tool calls: lookup({})]"
const CLEARED = "tool: [tool result cleared]"
const FULL = "tool: a b c d e f g h i j"
const U1 = "user: u1 w w w w"

/** u1 (5) and three exchanges of a call (1) and a 10-word result (11): 41 words, over 35 at the third. */
const adds: ReadonlyArray<ReadonlyArray<Message.Message>> = [
  [u("u1")],
  [call("r1"), big("r1")],
  [call("r2"), big("r2")],
  [call("r3"), big("r3")]
]

const counter = Layer.succeed(TokenCounter.TokenCounter, TokenCounter.fromFunction(TokenCounter.wordCount))

const replay = (options: RollingMemory.Options, messages = adds) =>
  Effect.gen(function*() {
    const calls: Array<Array<string>> = []
    const memory = yield* RollingMemory.make(options).pipe(
      Effect.provide(counter),
      Effect.provide(Summarizer.layerFunction((summary, evicted) => {
        calls.push(evicted.map(String))
        return `${summary}+${evicted.length}`
      }))
    )
    for (const batch of messages) yield* memory.addMessages(batch)
    return { calls, buffer: (yield* memory.buffer).map(String), tokens: yield* memory.bufferTokens }
  })

describe("clearToolResults.atLeast", () => {
  it.effect("a pass that frees exactly atLeast stands; one token short, it is undone and the prune folds", () =>
    Effect.gen(function*() {
      const options = (atLeast: number): RollingMemory.Options => ({
        maxTokens: 35,
        targetTokens: 15,
        clearToolResults: { keep: 1, until: "budget", atLeast }
      })
      // r1 and r2 cleared: 7 + 7 = 14 freed, 41 -> 27, within the budget: no fold
      const stands = yield* replay(options(14))
      assert.deepStrictEqual(stands.calls, [])
      assert.deepStrictEqual(stands.buffer, [U1, CALL, CLEARED, CALL, CLEARED, CALL, FULL])
      assert.strictEqual(stands.tokens, 27)
      // 14 < 15: both clearings undone (41 again), over the budget: folded down to the target, contents whole
      const undone = yield* replay(options(15))
      assert.deepStrictEqual(undone.calls, [[U1, CALL, FULL, CALL, FULL]])
      assert.deepStrictEqual(undone.buffer, [CALL, FULL])
      assert.strictEqual(undone.tokens, 12)
    }))

  it.effect("the pass goes on past the target until it has freed atLeast", () =>
    Effect.gen(function*() {
      const options = (atLeast: number | undefined): RollingMemory.Options => ({
        maxTokens: 35,
        targetTokens: 30,
        clearToolResults: { keep: 0, ...(atLeast === undefined ? {} : { atLeast }) }
      })
      // without atLeast: r1 (34), r2 (27): within the target 30, the pass stops
      const plain = yield* replay(options(undefined))
      assert.deepStrictEqual(plain.calls, [])
      assert.deepStrictEqual(plain.buffer, [U1, CALL, CLEARED, CALL, CLEARED, CALL, FULL])
      // atLeast 20: within the target after r2 (14 freed), it goes on: r3, 21 freed, stands
      const more = yield* replay(options(20))
      assert.deepStrictEqual(more.calls, [])
      assert.deepStrictEqual(more.buffer, [U1, CALL, CLEARED, CALL, CLEARED, CALL, CLEARED])
      assert.strictEqual(more.tokens, 20)
      // atLeast 22: all three give 21, undone; 41 over the target: step 1 evicts u1 and r1 (24 <= 30)
      const short = yield* replay(options(22))
      assert.deepStrictEqual(short.calls, [[U1, CALL, FULL]])
      assert.deepStrictEqual(short.buffer, [CALL, FULL, CALL, FULL])
    }))

  it("the Promise facade and the command line take it", async () => {
    const memory = new Facade.RollingMemory({
      maxTokens: 35,
      targetTokens: 15,
      clearToolResults: { keep: 1, until: "budget", atLeast: 15 },
      summarize: (summary, messages) => `${summary}+${messages.length}`
    })
    for (const batch of adds) memory.addMessages(batch)
    assert.deepStrictEqual(memory.buffer.map(String), [CALL, FULL])
    const refused = await Effect.runPromise(runCli(["replay", "x.jsonl", "--clear-at-least", "5"]))
    assert.isTrue(Exit.isFailure(refused.exit))
    assert.strictEqual(
      refused.stderr,
      "rollmem: invalid option --clear-at-least: needs --clear-tool-results (it says how much a clearing pass must free)"
    )
  })
})

describe("clearToolResults.exclude", () => {
  it.effect("an excluded tool's result is never cleared, and keep counts only the results that may be", () =>
    Effect.gen(function*() {
      const transcript = [[u("u1")], [lookup("r1"), big("r1")], [call("r2"), big("r2")], [call("r3"), big("r3")]]
      // keep 1 spares r3 (r1 is not counted): r2 cleared, 41 -> 34, within the budget
      const kept = yield* replay({
        maxTokens: 35,
        targetTokens: 15,
        clearToolResults: { keep: 1, until: "budget", exclude: ["lookup"] }
      }, transcript)
      assert.deepStrictEqual(kept.calls, [])
      assert.deepStrictEqual(kept.buffer, [U1, LOOKUP, FULL, CALL, CLEARED, CALL, FULL])
      // keep 0: r2 and r3 cleared (27), r1 whole
      const all = yield* replay({
        maxTokens: 35,
        targetTokens: 15,
        clearToolResults: { keep: 0, until: "budget", exclude: ["lookup"] }
      }, transcript)
      assert.deepStrictEqual(all.buffer, [U1, LOOKUP, FULL, CALL, CLEARED, CALL, CLEARED])
      // without exclude, r1 goes first
      const none = yield* replay(
        { maxTokens: 35, targetTokens: 15, clearToolResults: { keep: 1, until: "budget" } },
        transcript
      )
      assert.deepStrictEqual(none.buffer, [U1, LOOKUP, CLEARED, CALL, CLEARED, CALL, FULL])
    }))
})

/** A random transcript: user turns and exchanges of one call (tool a, b or c) with its result, ids unique. */
const transcript = fc.array(
  fc.oneof(
    fc.integer({ min: 1, max: 12 }).map((n) => ({ kind: "user" as const, words: n })),
    fc.record({
      tool: fc.constantFrom("a", "b", "c"),
      words: fc.integer({ min: 1, max: 30 })
    }).map((r) => ({ kind: "tool" as const, ...r }))
  ),
  { minLength: 1, maxLength: 40 }
)

const words = (n: number, w: string) => Array.from({ length: n }, () => w).join(" ")

describe("clearing properties", () => {
  it("excluded results are never cleared; every pass that clears frees at least atLeast", () => {
    fc.assert(
      fc.property(
        transcript,
        fc.integer({ min: 10, max: 60 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 3 }),
        fc.constantFrom<"target" | "budget">("target", "budget"),
        (steps, budget, atLeast, keep, until) => {
          const folded: Array<Message.Message> = []
          const memory = new Facade.RollingMemory({
            maxTokens: budget,
            targetTokens: Math.ceil(budget / 2),
            clearToolResults: { keep, until, atLeast, exclude: ["a"] },
            summarize: (summary, messages) => {
              folded.push(...(messages as ReadonlyArray<Message.Message>))
              return `${summary}+${messages.length}`
            }
          })
          const original = new Map<string, { readonly content: string; readonly tool: string }>()
          const clearedSeen = new Set<string>()
          steps.forEach((step, i) => {
            const id = `t${i}`
            const seen = folded.length
            if (step.kind === "user") memory.addMessages([Message.user(words(step.words, "w"))])
            else {
              const content = words(step.words, "x")
              original.set(id, { content, tool: step.tool })
              memory.addMessages([
                Message.assistant("", { toolCalls: [{ id, name: step.tool, arguments: "{}" }] }),
                Message.tool(content, { toolCallId: id })
              ])
            }
            // what this add cleared: results cleared now (in the buffer or folded by this add) not cleared before
            let freed = 0
            for (const m of [...memory.buffer, ...folded.slice(seen)]) {
              if (m.toolCallId === undefined || m.content !== "[tool result cleared]") continue
              const was = original.get(m.toolCallId)!
              assert.notStrictEqual(was.tool, "a", `excluded result ${m.toolCallId} cleared`)
              if (clearedSeen.has(m.toolCallId)) continue
              clearedSeen.add(m.toolCallId)
              // the word counter: the result's words and its id, cleared: 3 words and its id
              freed += was.content.split(" ").length - 3
            }
            assert.isTrue(freed === 0 || freed >= atLeast, `a pass freed ${freed} < ${atLeast}`)
          })
        }
      ),
      { numRuns: 300 }
    )
  })
})
