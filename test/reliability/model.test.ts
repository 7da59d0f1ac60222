/**
 * Model-based tests: random sequences of adds (all roles, tool calls with one
 * to three parallel calls, results in and out of order, orphans, empty
 * contents, unicode), clears, JSON round trips with restores and
 * compactions (contract section 16.2, with and without a target), run against
 * every strategy and compared after every step with the reference model of
 * contract sections 4 to 8 (test/support/specModel.ts): summary, buffer, token
 * count, context string, summarizer calls and failures, and the accounting
 * invariant of contract section 5.
 *
 * ROLLMEM_PROP_RUNS sets the sequences per strategy (default 10,000);
 * ROLLMEM_PROP_SEED the seed (default fixed; fast-check prints it with the
 * shrunk counterexample on failure).
 */
import { assert, beforeEach, describe, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import type { Message } from "../../src/index.js"
import * as Model from "../support/specModel.js"
import { sequence } from "./support/commands.js"
import { check, summarize } from "./support/modelCheck.js"
import type { Strategy } from "./support/strategies.js"

const RUNS = Number(process.env.ROLLMEM_PROP_RUNS ?? 10_000)
const SEED = Number(process.env.ROLLMEM_PROP_SEED ?? 20_240_402)
const MAX_COMMANDS = 10

const seeds: Record<Strategy, number> = { rolling: 0, "rolling-drop": 1, window: 2, buffer: 3, summary: 4 }

// Runs are split in chunks of CHUNK sequences, each its own test with its own
// seed: a property that ran for many seconds without a break would starve the
// test worker's messages to the runner (vitest's "Timeout calling onTaskUpdate").
const CHUNK = 1_000

const modes = ["single", "segments"] as const

describe(`model-based sequences (${RUNS} per strategy, seed ${SEED})`, () => {
  // Between chunks, one turn of the event loop lets the worker answer the
  // runner (a run of synchronous chunks would otherwise block it for minutes).
  beforeEach(() => new Promise<void>((resolve) => setImmediate(resolve)))

  // RollingMemory and SummaryMemory in both summary modes (docs/contract.md section 10.9)
  for (const strategy of ["rolling", "rolling-drop", "window", "buffer", "summary"] as const) {
    for (const mode of strategy === "rolling" || strategy === "summary" ? modes : ["single" as const]) {
      for (let from = 0; from < RUNS; from += CHUNK) {
        const runs = Math.min(CHUNK, RUNS - from)
        const seed = SEED + seeds[strategy] * 1_000_003 + from + (mode === "segments" ? 500_001 : 0)
        it.prop(
          `${strategy}${mode === "segments" ? " (summary segments)" : ""}: sequences ${from + 1} to ${
            from + runs
          } equal the model at every step (seed ${seed})`,
          [sequence(MAX_COMMANDS)],
          ([s]) => check(strategy, s, mode),
          { timeout: 300_000, fastCheck: { numRuns: runs, seed } }
        )
      }
    }
  }

  it("the sequences reach the cases that matter", () => {
    // A fixed sample of the generator: failures, folds, clears, round trips,
    // parallel calls, results before and after calls, and evictions all occur.
    const sample = fc.sample(sequence(MAX_COMMANDS), { numRuns: 2_000, seed: SEED })
    const seen = new Set<string>()
    for (const s of sample) {
      let state: Model.ModelState<Message.Message> = Model.empty
      const model = Model.rolling({ maxTokens: s.maxTokens, summarize })
      const callsSeen = new Set<string>()
      for (const c of s.commands) {
        if (c._tag !== "Add") {
          seen.add(c._tag)
          if (c._tag === "Clear") state = Model.empty
          continue
        }
        const m = c.message
        if (m.toolCalls.length > 1) seen.add("parallel calls")
        if (m.toolCallId !== undefined) {
          seen.add(callsSeen.has(m.toolCallId) ? "result after its call" : "orphan result")
        }
        for (const call of m.toolCalls) callsSeen.add(call.id)
        if (m.content === "") seen.add("empty content")
        if (/[^\x00-\x7f]/.test(m.content)) seen.add("unicode")
        const step = model.add(state, m)
        if (step.failed) seen.add("summarizer failure")
        else if (step.calls.length > 0) seen.add("fold")
        if (step.calls.some((call) => call.messages.length > 1)) seen.add("multi-message fold")
        state = step.state
      }
    }
    assert.deepStrictEqual([...seen].sort(), [
      "Clear",
      "Compact",
      "RoundTrip",
      "empty content",
      "fold",
      "multi-message fold",
      "orphan result",
      "parallel calls",
      "result after its call",
      "summarizer failure",
      "unicode"
    ])
  })
})
