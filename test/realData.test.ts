/**
 * Every real conversation in the shared data folder, run through the
 * strategies and compared with the spec model after every add; the
 * invariants of contract 4 and 5 are checked on the way.
 *
 * The folder is `$ROLLMEM_DATA`, else `../shared/data` from the repository
 * root. The data is read in place, never copied.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Equal, Exit } from "effect"
import { SummarizerError } from "../src/Errors.js"
import type * as Message from "../src/schema/Message.js"
import * as Summarizer from "../src/services/Summarizer.js"
import * as BufferMemory from "../src/strategies/BufferMemory.js"
import type { Memory } from "../src/strategies/Memory.js"
import * as RollingMemory from "../src/strategies/RollingMemory.js"
import * as SummaryMemory from "../src/strategies/SummaryMemory.js"
import * as WindowMemory from "../src/strategies/WindowMemory.js"
import { absent, type Conversation, conversations } from "./support/conversations.js"
import * as SpecModel from "./support/specModel.js"

/** Whether a conversation calls the same tool-call id more than once. */
const reusesIds = (messages: ReadonlyArray<Message.Message>): boolean => {
  const seen = new Set<string>()
  for (const m of messages) {
    for (const c of m.toolCalls) {
      if (seen.has(c.id)) return true
      seen.add(c.id)
    }
  }
  return false
}

/** The word counter, memoized by text for the model (which recounts the whole buffer on every add). */
const counts = new Map<string, number>()
const count = (text: string): number => {
  let n = counts.get(text)
  if (n === undefined) {
    n = SpecModel.wordCount(text)
    counts.set(text, n)
  }
  return n
}

/** A summarizer failing every `failEvery`-th call (never when 0); the model gets its own instance. */
const summarizerOf = (failEvery: number) => {
  let k = 0
  return (summary: string, messages: ReadonlyArray<SpecModel.ModelMessage>): string | undefined =>
    failEvery > 0 && ++k % failEvery === 0 ? undefined : `${summary}|${messages.length}`
}

interface Run {
  readonly name: string
  /** Whether evicted turns go to a summarizer (else they are dropped, or never evicted). */
  readonly summarizes: boolean
  readonly failEvery: number
  readonly make: (summarizer: Summarizer.Service) => Effect.Effect<Memory, unknown>
  readonly restore: (json: unknown, summarizer: Summarizer.Service) => Effect.Effect<Memory, unknown>
  readonly model: (summarize: SpecModel.Summarize) => SpecModel.Strategy
  /** Whether the newest unit must survive every add. */
  readonly prunes: boolean
}

const runs: ReadonlyArray<Run> = [
  ...[60, 400, 2000].map((maxTokens): Run => ({
    name: `RollingMemory maxTokens ${maxTokens}, word counter, summarizer`,
    summarizes: true,
    failEvery: maxTokens === 400 ? 7 : 0,
    make: (s) => Effect.provideService(RollingMemory.make({ maxTokens }), Summarizer.Summarizer, s),
    restore: (json, s) => Effect.provideService(RollingMemory.fromJSON(json, { maxTokens }), Summarizer.Summarizer, s),
    model: (summarize) => SpecModel.rolling({ maxTokens, count, summarize }),
    prunes: true
  })),
  {
    name: "RollingMemory maxTokens 300, word counter, no summarizer",
    summarizes: false,
    failEvery: 0,
    make: () => RollingMemory.make({ maxTokens: 300 }).pipe(Effect.provide(Summarizer.layerDrop)),
    restore: (json) => RollingMemory.fromJSON(json, { maxTokens: 300 }).pipe(Effect.provide(Summarizer.layerDrop)),
    model: () => SpecModel.rolling({ maxTokens: 300, count }),
    prunes: true
  },
  ...[4, 12].map((maxMessages): Run => ({
    name: `WindowMemory maxMessages ${maxMessages}`,
    summarizes: false,
    failEvery: 0,
    make: () => WindowMemory.make({ maxMessages }),
    restore: (json) => WindowMemory.fromJSON(json, { maxMessages }),
    model: () => SpecModel.window({ maxMessages }),
    prunes: true
  })),
  {
    name: "SummaryMemory",
    summarizes: true,
    failEvery: 5,
    make: (s) => Effect.provideService(SummaryMemory.make(), Summarizer.Summarizer, s),
    restore: (json, s) => Effect.provideService(SummaryMemory.fromJSON(json), Summarizer.Summarizer, s),
    model: (summarize) => SpecModel.summary({ summarize }),
    prunes: false
  },
  {
    name: "BufferMemory",
    summarizes: false,
    failEvery: 0,
    make: () => BufferMemory.make(),
    restore: (json) => BufferMemory.fromJSON(json),
    model: () => SpecModel.buffer,
    prunes: false
  }
]

interface Recorded {
  readonly summary: string
  readonly messages: ReadonlyArray<Message.Message>
  readonly result: string | undefined
}

/** Runs one conversation through the library and the model, asserting after every add; returns the summarizer calls. */
const check = (run: Run, conversation: Conversation): { readonly calls: number; readonly evicted: number } => {
  const calls: Array<Recorded> = []
  const library = summarizerOf(run.failEvery)
  const service = Summarizer.fromFunction((summary, messages) => {
    const out = library(summary, messages)
    calls.push({ summary, messages, result: out })
    if (out === undefined) throw new Error("summarizer failed")
    return out
  })
  const model = run.model(summarizerOf(run.failEvery))
  const memory = Effect.runSync(run.make(service))
  const where = (i: number) => `${run.name}: ${conversation.id} add #${i}`
  let state: SpecModel.ModelState<Message.Message> = SpecModel.empty
  let seen = 0
  let evicted = 0
  const added: Array<Message.Message> = []
  for (let i = 0; i < conversation.messages.length; i++) {
    const message = conversation.messages[i]
    added.push(message)
    const appended = [...state.buffer, message]
    const exit = Effect.runSyncExit(memory.add(message))
    const step = model.add(state, message)
    state = step.state
    if (Exit.isFailure(exit) !== step.failed) {
      assert.fail(`${where(i)}: failed ${Exit.isFailure(exit)}, model ${step.failed}`)
    }
    if (Exit.isFailure(exit) && exit.cause._tag === "Fail") assert.instanceOf(exit.cause.error, SummarizerError)
    const buffer = Effect.runSync(memory.buffer)
    const summary = Effect.runSync(memory.summary)
    // Exactly the model's state (the very same message objects).
    if (buffer.length !== state.buffer.length || buffer.some((m, k) => m !== state.buffer[k])) {
      assert.deepStrictEqual(buffer.map(String), state.buffer.map(String), `${where(i)}: buffer`)
      assert.fail(`${where(i)}: buffer holds other objects than the model's`)
    }
    if (summary !== state.summary) assert.strictEqual(summary, state.summary, `${where(i)}: summary`)
    const made = calls.slice(seen)
    seen = calls.length
    if (made.length !== step.calls.length) assert.fail(`${where(i)}: ${made.length} calls, model ${step.calls.length}`)
    for (let k = 0; k < made.length; k++) {
      const expected = step.calls[k]
      if (
        made[k].summary !== expected.summary || made[k].result !== expected.result ||
        made[k].messages.length !== expected.messages.length ||
        made[k].messages.some((m, j) => m !== expected.messages[j])
      ) assert.fail(`${where(i)}: call ${k} differs from the model's`)
    }
    // The newest unit is never evicted.
    if (run.prunes) {
      const newest = SpecModel.units(appended).at(-1)!
      const kept = appended.slice(newest.start)
      if (buffer.length < kept.length || kept.some((m, k) => buffer[buffer.length - kept.length + k] !== m)) {
        assert.fail(`${where(i)}: newest unit evicted`)
      }
    }
    evicted = added.length - buffer.length
    // Accounting: every turn is in the buffer or in exactly one committed call, in order; or dropped (a prefix).
    const rest = added.slice(added.length - buffer.length)
    if (rest.some((m, k) => m !== buffer[k])) assert.fail(`${where(i)}: buffer is not the newest turns`)
    if (run.summarizes) {
      const folded = calls.filter((c) => c.result !== undefined).flatMap((c) => c.messages)
      if (folded.length !== evicted || folded.some((m, k) => m !== added[k])) {
        assert.fail(`${where(i)}: committed calls do not account for the evicted turns`)
      }
    }
  }
  // JSON round-trip of the final state: toJSON -> stringify -> parse -> fromJSON -> toJSON.
  const json = Effect.runSync(memory.toJSON)
  const restored = Effect.runSync(run.restore(JSON.parse(JSON.stringify(json)), service))
  assert.deepStrictEqual(Effect.runSync(restored.toJSON), json, `${run.name}: ${conversation.id} round-trip`)
  const back = Effect.runSync(restored.buffer)
  if (back.some((m, k) => !Equal.equals(m, state.buffer[k]))) assert.fail(`${run.name}: ${conversation.id} round-trip`)
  return { calls: calls.length, evicted }
}

describe("real conversations", () => {
  it.skipIf(absent)(`load: every conversation decodes; 50 agentic conversations reuse tool-call ids`, () => {
    assert.isAbove(conversations.length, 0)
    const agentic = conversations.filter((c) => c.file === "conversations-agentic.jsonl")
    // Reused ids make units that span both calls (contract 4): the data exercises that rule.
    const spanning = agentic.filter((c) =>
      SpecModel.units(c.messages).some((unit) => {
        const ids = c.messages.slice(unit.start, unit.end).flatMap((m) => m.toolCalls.map((t) => t.id))
        return new Set(ids).size < ids.length
      })
    )
    if (agentic.length > 0) {
      assert.strictEqual(agentic.filter((c) => reusesIds(c.messages)).length, 50)
      assert.strictEqual(spanning.length, 50)
    }
  })

  for (const run of runs) {
    it.skipIf(absent)(`${run.name}: equals the model after every add, invariants hold`, () => {
      let calls = 0
      let evicted = 0
      for (const conversation of conversations) {
        const outcome = check(run, conversation)
        calls += outcome.calls
        evicted += outcome.evicted
      }
      // The run did evict and summarize (a test that cannot fail is a defect).
      if (run.prunes) assert.isAbove(evicted, 0)
      if (run.summarizes) assert.isAbove(calls, 0)
    })
  }
})
