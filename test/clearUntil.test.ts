/**
 * `clearToolResults.until` (docs/contract.md section 10.5) as a user meets it:
 * the same hand-built transcript through the Effect API, the Promise facade,
 * `Conversation.withMemory` and the command line. Clearing until the target
 * folds when clearing cannot reach the target; with `until: "budget"` (the
 * default) the same clearing spares the fold, which happens (down to the
 * target) only once clearing cannot get within the budget.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Facade from "../src/promise/index.js"
import * as Message from "../src/schema/Message.js"
import * as Summarizer from "../src/services/Summarizer.js"
import * as TokenCounter from "../src/services/TokenCounter.js"
import * as Conversation from "../src/store/Conversation.js"
import * as ConversationStore from "../src/store/ConversationStore.js"
import * as RollingMemory from "../src/strategies/RollingMemory.js"
import { failureOf, runCli } from "./support/cli.js"
import { call, result, u, wire } from "./support/harness.js"

const big = (id: string) => result(id, "a b c d e f g h i j")
const long = Message.user(Array.from({ length: 20 }, (_, i) => `w${i}`).join(" "))

/**
 * u1 (5 words), three exchanges of a call (1) and a 10-word result (11 with
 * its id): 41 words, over the budget of 35 at r3; then a 20-word request.
 */
const adds: ReadonlyArray<ReadonlyArray<Message.Message>> = [
  [u("u1")],
  [call("r1"), big("r1")],
  [call("r2"), big("r2")],
  [call("r3"), big("r3")],
  [long]
]

const CALL = "assistant:  [tool calls: f({})]"
const CLEARED = "tool: [tool result cleared]"
const FULL = "tool: a b c d e f g h i j"

/** The summarizer calls and buffers after each add, for each `until`. */
const expected: {
  readonly [U in "target" | "budget"]: { readonly calls: Array<Array<string>>; readonly buffers: Array<Array<string>> }
} = {
  // at r3: r1 and r2 cleared (41 -> 27), still over the target 15: u1, r1 and r2 folded; then 12 + 20 <= 35
  target: {
    calls: [["user: u1 w w w w", CALL, CLEARED, CALL, CLEARED]],
    buffers: [
      ["user: u1 w w w w"],
      ["user: u1 w w w w", CALL, FULL],
      ["user: u1 w w w w", CALL, FULL, CALL, FULL],
      [CALL, FULL],
      [CALL, FULL, String(long)]
    ]
  },
  // at r3: r1 and r2 cleared as with "target" (41 -> 27), over the target but within the budget: no fold; at
  // the request: 47, nothing left to clear (r3 spared), over the budget: folded down to the target (the newest
  // unit alone stays)
  budget: {
    calls: [["user: u1 w w w w", CALL, CLEARED, CALL, CLEARED, CALL, FULL]],
    buffers: [
      ["user: u1 w w w w"],
      ["user: u1 w w w w", CALL, FULL],
      ["user: u1 w w w w", CALL, FULL, CALL, FULL],
      ["user: u1 w w w w", CALL, CLEARED, CALL, CLEARED, CALL, FULL],
      [String(long)]
    ]
  }
}

const options = (until: "target" | "budget" | undefined) => ({
  maxTokens: 35,
  targetTokens: 15,
  clearToolResults: { keep: 1, ...(until === undefined ? {} : { until }) }
})

const recorder = () => {
  const calls: Array<Array<string>> = []
  const summarize = (summary: string, messages: ReadonlyArray<Message.Message>) => {
    calls.push(messages.map(String))
    return `${summary}+${messages.length}`
  }
  return { calls, summarize }
}

const counter = Layer.succeed(TokenCounter.TokenCounter, TokenCounter.fromFunction(TokenCounter.wordCount))

describe("clearToolResults.until through the Effect API", () => {
  for (const until of [undefined, "target", "budget"] as const) {
    it.effect(`until ${until ?? "absent (budget)"}`, () =>
      Effect.gen(function*() {
        const { calls, summarize } = recorder()
        const memory = yield* RollingMemory.make(options(until)).pipe(
          Effect.provide(counter),
          Effect.provide(Summarizer.layerFunction(summarize))
        )
        const want = expected[until ?? "budget"]
        const buffers: Array<Array<string>> = []
        for (const messages of adds) {
          yield* memory.addMessages(messages)
          buffers.push((yield* memory.buffer).map(String))
        }
        assert.deepStrictEqual(calls, want.calls)
        assert.deepStrictEqual(buffers, want.buffers)
        assert.strictEqual(yield* memory.summary, `+${want.calls[0].length}`)
      }))
  }

  it.effect("within the budget after clearing, the turn-mode repair still happens (one call, the repair)", () =>
    Effect.gen(function*() {
      const { calls, summarize } = recorder()
      const memory = yield* RollingMemory.make({
        maxTokens: 30,
        targetTokens: 10,
        boundary: "turn",
        clearToolResults: { keep: 1, until: "budget" }
      }).pipe(Effect.provide(counter), Effect.provide(Summarizer.layerFunction(summarize)))
      yield* memory.add(Message.assistant("hello w w w w"))
      for (const messages of [[call("r1"), big("r1")], [call("r2"), big("r2")]]) yield* memory.addMessages(messages)
      // 34 > 30: r1 cleared (27): within the budget, so nothing is folded to the target, but the buffer does not
      // open on the user turn: what precedes it is evicted
      yield* memory.add(u("u1"))
      assert.deepStrictEqual(calls, [["assistant: hello w w w w", CALL, CLEARED, CALL, FULL]])
      assert.deepStrictEqual((yield* memory.buffer).map(String), ["user: u1 w w w w"])
    }))
})

describe("clearToolResults.until through the Promise facade", () => {
  for (const until of ["target", "budget"] as const) {
    it(`until ${until}`, () => {
      const { calls, summarize } = recorder()
      const memory = new Facade.RollingMemory({ ...options(until), summarize })
      const buffers: Array<Array<string>> = []
      for (const messages of adds) {
        memory.addMessages(messages)
        buffers.push(memory.buffer.map(String))
      }
      assert.deepStrictEqual(calls, expected[until].calls)
      assert.deepStrictEqual(buffers, expected[until].buffers)
    })
  }

  it("a bad value is a ConfigError naming clearToolResults.until", () => {
    assert.throws(
      () =>
        new Facade.RollingMemory({
          maxTokens: 10,
          clearToolResults: { keep: 1, until: "max" as "budget" },
          summarize: "drop"
        }),
      Facade.ConfigError,
      "invalid option clearToolResults.until: must be \"target\" or \"budget\", got \"max\""
    )
  })
})

describe("clearToolResults.until through Conversation.withMemory", () => {
  it.effect("until budget: no fold at r3, one at the request", () =>
    Effect.gen(function*() {
      const { calls, summarize } = recorder()
      const buffer = yield* Conversation.withMemory(
        "c1",
        { strategy: "rolling", ...options("budget") },
        (memory) =>
          Effect.gen(function*() {
            const buffers: Array<Array<string>> = []
            for (const messages of adds) {
              yield* memory.addMessages(messages)
              buffers.push((yield* memory.buffer).map(String))
            }
            return buffers
          })
      ).pipe(
        Effect.provide(ConversationStore.layerMemory),
        Effect.provide(counter),
        Effect.provide(Summarizer.layerFunction(summarize))
      )
      assert.deepStrictEqual(calls, expected.budget.calls)
      assert.deepStrictEqual(buffer, expected.budget.buffers)
    }))
})

describe("rollmem replay --clear-until", () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rollmem-clear-until-"))
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }))
  const file = path.join(tmp, "clearing.jsonl")
  fs.writeFileSync(file, JSON.stringify({ id: "c1", messages: wire(adds.slice(0, 4).flat()) }) + "\n")
  const base = ["replay", file, "--tokenizer", "words", "--input-format", "rollmem", "--format", "json"]
  const flags = ["--max-tokens", "35", "--target-tokens", "15", "--clear-tool-results", "1"]
  const callsOf = (stdout: string): number =>
    (JSON.parse(stdout) as { readonly totals: { readonly summarizerCalls: number } }).totals.summarizerCalls

  it.effect("target folds once; budget (default) never", () =>
    Effect.gen(function*() {
      const plain = yield* runCli([...base, ...flags])
      assert.isTrue(Exit.isSuccess(plain.exit), plain.stderr)
      assert.strictEqual(callsOf(plain.stdout), 0)
      const target = yield* runCli([...base, ...flags, "--clear-until", "target"])
      assert.strictEqual(callsOf(target.stdout), 1)
      const budget = yield* runCli([...base, ...flags, "--clear-until", "budget"])
      assert.isTrue(Exit.isSuccess(budget.exit), budget.stderr)
      assert.strictEqual(callsOf(budget.stdout), 0)
    }))

  it.effect("--compare takes clear-until=target", () =>
    Effect.gen(function*() {
      const r = yield* runCli([...base, ...flags, "--compare", "clear-until=target"])
      assert.isTrue(Exit.isSuccess(r.exit), r.stderr)
      const columns = (JSON.parse(r.stdout) as {
        readonly compare: ReadonlyArray<
          { readonly set: string | null; readonly totals: { readonly summarizerCalls: number } }
        >
      }).compare
      assert.deepStrictEqual(columns.map((c) => [c.set, c.totals.summarizerCalls]), [[null, 0], [
        "clear-until=target",
        1
      ]])
    }))

  it.effect("refuses --clear-until without --clear-tool-results, and a value not target or budget", () =>
    Effect.gen(function*() {
      const alone = yield* runCli([...base, "--max-tokens", "35", "--clear-until", "budget"])
      assert.isTrue(Exit.isFailure(alone.exit))
      assert.strictEqual(
        alone.stderr.trim(),
        "rollmem: invalid option --clear-until: needs --clear-tool-results (it says when tool-result clearing spares the fold)"
      )
      const bad = yield* runCli([...base, ...flags, "--clear-until", "max"])
      assert.isTrue(Exit.isFailure(bad.exit))
      assert.strictEqual(bad.stderr.trim(), "rollmem: --clear-until: 'max' is not one of target, budget")
      const set = yield* runCli([...base, ...flags, "--compare", "clear-until=max"])
      assert.isDefined(failureOf(set))
      assert.strictEqual(
        set.stderr.trim(),
        "rollmem: invalid option --compare: \"clear-until=max\": clear-until unknown value \"max\", expected one of " +
          "target, budget"
      )
    }))
})
