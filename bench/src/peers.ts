/**
 * Every contender of the peer comparison, in two forms: a plain replay for
 * timing, and an instrumented replay that fills a `Checks` record.
 */
import type { BaseMessage } from "@langchain/core/messages"
import { Effect, Layer } from "effect"
import type { Message } from "../../dist/index.js"
import { RollingMemory, Summarizer, TokenCounter } from "../../dist/index.js"
import { layerO200kBase } from "../../dist/tokenizers.js"
import { type Checks, emptyChecks, Tracker } from "./checks.js"
import type { Conversation } from "./data.js"
import { summaryBufferMemory, type SummaryLog, toLangChain, trimmedHistory } from "./langchain.js"
import { PythonRollingMemory } from "./python.js"
import { countO200k, instantSummary, makeRuntime } from "./rollmem.js"

/** A conversation in LangChain messages, with the map back to rollmem's. */
export interface LangChainConversation {
  readonly messages: ReadonlyArray<BaseMessage>
  readonly byId: ReadonlyMap<string, Message.Message>
}

export const toLangChainConversations = (
  conversations: ReadonlyArray<Conversation>
): Array<LangChainConversation> =>
  conversations.map((c, ci) => {
    const byId = new Map<string, Message.Message>()
    const messages = c.wire.map((w, mi) => {
      const id = `${ci}:${mi}`
      byId.set(id, c.messages[mi])
      return toLangChain(w, id)
    })
    return { messages, byId }
  })

/** Token counts of every message, counted once (for the checks and the trimMessages counter). */
export const countsOf = (conversations: ReadonlyArray<Conversation>): Map<Message.Message, number> => {
  const counts = new Map<Message.Message, number>()
  for (const c of conversations) for (const m of c.messages) counts.set(m, countO200k(m.tokenText))
  return counts
}

// ---------------------------------------------------------------------------
// Timed replays

export const pythonReplay = (conversations: ReadonlyArray<Conversation>, maxTokens: number): void => {
  for (const c of conversations) {
    const memory = new PythonRollingMemory(maxTokens, countO200k, instantSummary)
    for (const m of c.messages) memory.add(m)
  }
}

export const summaryBufferReplay = async (
  conversations: ReadonlyArray<LangChainConversation>,
  maxTokens: number
): Promise<void> => {
  for (const c of conversations) {
    const memory = summaryBufferMemory(maxTokens, countO200k)
    for (const m of c.messages) await memory.add(m)
  }
}

export const trimReplay = async (
  conversations: ReadonlyArray<LangChainConversation>,
  maxTokens: number
): Promise<void> => {
  for (const c of conversations) {
    const memory = trimmedHistory(maxTokens, countO200k, (id) => c.byId.get(id)!.tokenText)
    for (const m of c.messages) await memory.add(m)
  }
}

// ---------------------------------------------------------------------------
// Instrumented replays

const fromLangChain = (c: LangChainConversation, messages: ReadonlyArray<BaseMessage>): Array<Message.Message> => {
  const out: Array<Message.Message> = []
  for (const m of messages) {
    const original = m.id === undefined ? undefined : c.byId.get(m.id)
    if (original !== undefined) out.push(original)
  }
  return out
}

export interface RollmemChecks {
  readonly checks: Checks
  /** TokenCounter calls per added message. */
  readonly counterCallsPerMessage: number
}

/** rollmem's Effect API, checked after every turn, in lockstep with the Python baseline. */
export const checkRollmem = async (
  conversations: ReadonlyArray<Conversation>,
  maxTokens: number,
  counts: ReadonlyMap<Message.Message, number>
): Promise<RollmemChecks> => {
  const checks: Checks = { ...emptyChecks(), differsFromBaseline: 0 }
  let tracker: Tracker | undefined
  let counterCalls = 0
  const counting = Layer.effect(
    TokenCounter.TokenCounter,
    Effect.map(TokenCounter.TokenCounter, (inner) => ({
      count: (text: string) => {
        counterCalls++
        return inner.count(text)
      }
    }))
  ).pipe(Layer.provide(layerO200kBase))
  const recording = Summarizer.layerFunction((_summary, messages) => {
    tracker!.summarized(messages)
    return instantSummary()
  })
  const runtime = await makeRuntime(counting, recording)
  let messages = 0
  for (const c of conversations) {
    tracker = new Tracker(checks, maxTokens, (m) => counts.get(m)!)
    const baseline = new PythonRollingMemory(maxTokens, countO200k, instantSummary)
    const t = tracker
    runtime.runSync(Effect.gen(function*() {
      const memory = yield* RollingMemory.make({ maxTokens })
      for (const m of c.messages) {
        yield* memory.add(m)
        baseline.add(m)
        messages++
        const buffer = yield* memory.buffer
        t.turn(m, buffer)
        if (buffer.length !== baseline.buffer.length || buffer.some((x, i) => x !== baseline.buffer[i])) {
          checks.differsFromBaseline!++
        }
      }
      t.finish(yield* memory.buffer)
    }))
  }
  await runtime.dispose()
  return { checks, counterCallsPerMessage: counterCalls / messages }
}

export const checkPython = (
  conversations: ReadonlyArray<Conversation>,
  maxTokens: number,
  counts: ReadonlyMap<Message.Message, number>
): Checks => {
  const checks = emptyChecks()
  for (const c of conversations) {
    const tracker = new Tracker(checks, maxTokens, (m) => counts.get(m)!)
    const memory = new PythonRollingMemory(maxTokens, countO200k, (_summary, messages) => {
      tracker.summarized(messages)
      return instantSummary()
    })
    for (const m of c.messages) {
      memory.add(m)
      tracker.turn(m, memory.buffer)
    }
    tracker.finish(memory.buffer)
  }
  return checks
}

export const checkSummaryBuffer = async (
  conversations: ReadonlyArray<LangChainConversation>,
  maxTokens: number,
  counts: ReadonlyMap<Message.Message, number>
): Promise<Checks> => {
  const checks = emptyChecks()
  for (const c of conversations) {
    const tracker = new Tracker(checks, maxTokens, (m) => counts.get(m)!)
    const log: SummaryLog = { calls: [] }
    const memory = summaryBufferMemory(maxTokens, countO200k, log)
    let seen = 0
    for (const m of c.messages) {
      await memory.add(m)
      for (; seen < log.calls.length; seen++) tracker.summarized(fromLangChain(c, log.calls[seen]))
      tracker.turn(c.byId.get(m.id!)!, fromLangChain(c, await memory.history()))
    }
    tracker.finish(fromLangChain(c, await memory.history()))
  }
  return checks
}

export const checkTrim = async (
  conversations: ReadonlyArray<LangChainConversation>,
  maxTokens: number,
  counts: ReadonlyMap<Message.Message, number>
): Promise<Checks> => {
  const checks = emptyChecks()
  for (const c of conversations) {
    const tracker = new Tracker(checks, maxTokens, (m) => counts.get(m)!)
    const memory = trimmedHistory(maxTokens, countO200k, (id) => c.byId.get(id)!.tokenText)
    for (const m of c.messages) {
      await memory.add(m)
      tracker.turn(c.byId.get(m.id!)!, fromLangChain(c, memory.history()))
    }
    tracker.finish(fromLangChain(c, memory.history()))
  }
  return checks
}
