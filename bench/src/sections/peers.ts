/**
 * Section 2: the peers on the same input, tokenizer and budget, with their
 * correctness; and the checks of rollmem itself (counter calls per message,
 * summarizer calls, equality with the Python baseline after every turn).
 *
 * The Python baseline and trimMessages replay the whole data set.
 * ConversationSummaryBufferMemory recounts its whole history after every
 * message it pops (quadratic in the history), which takes minutes per replay
 * of the agentic file, so it replays every 10th conversation, and rollmem is
 * timed on that same subset for its ratio.
 */
import type { Message } from "../../../dist/index.js"
import type { Checks } from "../checks.js"
import type { Conversation } from "../data.js"
import { measure, profiles, type Timing } from "../harness.js"
import {
  checkPython,
  checkRollmem,
  checkSummaryBuffer,
  checkTrim,
  type LangChainConversation,
  pythonReplay,
  summaryBufferReplay,
  toLangChainConversations,
  trimReplay
} from "../peers.js"
import { effectReplay, facadeCounterCalls, type Runtime } from "../rollmem.js"
import { BUDGETS } from "./replay.js"

export const SUBSET_EVERY = 10

export interface PeerTiming {
  readonly timing: Timing
  readonly turns: number
  /** Median time per turn, µs. */
  readonly perTurnUs: number
  /** Median time over rollmem's (Effect API) on the same conversations. */
  readonly ratioToRollmem: number
}

export interface PeerFigures {
  readonly budget: number
  readonly rollmem: PeerTiming
  readonly python: PeerTiming
  readonly trimMessages: PeerTiming
  readonly rollmemSubset: PeerTiming
  readonly summaryBuffer: PeerTiming
}

export interface CheckFigures {
  readonly budget: number
  readonly rollmem: Checks
  readonly counterCallsPerMessage: number
  readonly facadeCounterCallsPerMessage: number
  readonly python: Checks
  readonly trimMessages: Checks
  /** On the subset (every 10th conversation). */
  readonly summaryBuffer: Checks
}

const turnsOf = (conversations: ReadonlyArray<Conversation>): number =>
  conversations.reduce((n, c) => n + c.messages.length, 0)

const peerTiming = (timing: Timing, turns: number, reference: Timing): PeerTiming => ({
  timing,
  turns,
  perTurnUs: (timing.median * 1000) / turns,
  ratioToRollmem: timing.median / reference.median
})

export const subsetOf = <A>(xs: ReadonlyArray<A>): Array<A> => xs.filter((_, i) => i % SUBSET_EVERY === 0)

export const runPeers = async (
  conversations: ReadonlyArray<Conversation>,
  runtime: Runtime
): Promise<Array<PeerFigures>> => {
  const lc: ReadonlyArray<LangChainConversation> = toLangChainConversations(conversations)
  const subset = subsetOf(conversations)
  const lcSubset = subsetOf(lc)
  const turns = turnsOf(conversations)
  const subsetTurns = turnsOf(subset)
  const out: Array<PeerFigures> = []
  for (const budget of BUDGETS) {
    const program = effectReplay(conversations, budget)
    const subsetProgram = effectReplay(subset, budget)
    const [rollmem, python, trim] = await measure(`peers ${budget}`, [
      { name: "rollmem", fn: () => runtime.runSync(program) },
      { name: "python", fn: () => pythonReplay(conversations, budget) },
      { name: "trimMessages", fn: () => trimReplay(lc, budget) }
    ], profiles.slow)
    const [rollmemSubset, summaryBuffer] = await measure(`peers ${budget} (every ${SUBSET_EVERY}th conversation)`, [
      { name: "rollmem", fn: () => runtime.runSync(subsetProgram) },
      { name: "summaryBuffer", fn: () => summaryBufferReplay(lcSubset, budget) }
    ], profiles.slow)
    out.push({
      budget,
      rollmem: peerTiming(rollmem, turns, rollmem),
      python: peerTiming(python, turns, rollmem),
      trimMessages: peerTiming(trim, turns, rollmem),
      rollmemSubset: peerTiming(rollmemSubset, subsetTurns, rollmemSubset),
      summaryBuffer: peerTiming(summaryBuffer, subsetTurns, rollmemSubset)
    })
  }
  return out
}

export const runChecks = async (
  conversations: ReadonlyArray<Conversation>,
  counts: ReadonlyMap<Message.Message, number>
): Promise<Array<CheckFigures>> => {
  const lc = toLangChainConversations(conversations)
  const out: Array<CheckFigures> = []
  for (const budget of BUDGETS) {
    process.stderr.write(`  checks ${budget}\n`)
    const rollmem = await checkRollmem(conversations, budget, counts)
    out.push({
      budget,
      rollmem: rollmem.checks,
      counterCallsPerMessage: rollmem.counterCallsPerMessage,
      facadeCounterCallsPerMessage: facadeCounterCalls(conversations, budget),
      python: checkPython(conversations, budget, counts),
      trimMessages: await checkTrim(lc, budget, counts),
      summaryBuffer: await checkSummaryBuffer(subsetOf(lc), budget, counts)
    })
  }
  return out
}
