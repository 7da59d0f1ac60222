/**
 * Section 3: per-add cost with 10, 1,000 and 20,000 buffered messages.
 *
 * A memory is brought to a steady state where its budget holds about N
 * messages (budget = N x the mean message size), then fed the next real
 * messages; each add evicts about one message, so a fold (lock + summarizer
 * call) is part of the cost. The stream cycles through the data set with the
 * tool call ids of each cycle renamed, so a reused id never joins two cycles
 * into one unit. Two counters: o200k_base (the real cost) and a precounted
 * lookup (what is left is rollmem's own bookkeeping). Every size adds the
 * same messages in the same order (the buffer is primed from a separate
 * stream), so the columns compare the same work. The Python baseline,
 * which recounts its buffer on every add, is shown for contrast.
 */
import { Effect, Layer, ManagedRuntime } from "effect"
import { MemoryState, Message, RollingMemory, Summarizer, TokenCounter } from "../../../dist/index.js"
import { layerO200kBase } from "../../../dist/tokenizers.js"
import type { Conversation } from "../data.js"
import { measure, type RunOptions, type Timing } from "../harness.js"
import { PythonRollingMemory } from "../python.js"
import { countO200k, instantSummary, makeRuntime } from "../rollmem.js"

export const SIZES = [10, 1_000, 20_000] as const

const PRIME_CYCLE = 1_000

export interface ScalingRow {
  readonly buffered: number
  /** Mean buffer length observed between batches. */
  readonly meanBuffered: number
  readonly budget: number
  /** µs per add: rollmem with o200k_base, rollmem with precounted counts, the Python baseline (o200k_base). */
  readonly o200k: Timing
  readonly precounted: Timing
  /** µs per add, precounted, no summarizer (evicted turns dropped inline). */
  readonly drop: Timing
  readonly baseline: Timing
  readonly batch: { readonly rollmem: number; readonly baseline: number }
  /** Summarizer calls per add during the rollmem runs that have a summarizer. */
  readonly foldsPerAdd: number
}

/** Per-add cost under one context-policy mode (docs/contract.md section 10), precounted, at 10 and 20,000 messages. */
export interface ModeRow {
  readonly mode: string
  readonly small: Timing
  readonly large: Timing
  /** Median at 20,000 over median at 10 (goal: at most 1.2). */
  readonly ratio: number
  readonly foldsPerAdd: number
}

/** The context-policy modes measured: the options given to RollingMemory beside `maxTokens`. */
const MODES: ReadonlyArray<{ readonly mode: string; readonly options: (budget: number) => RollingMemory.Options }> = [
  { mode: "boundary turn", options: () => ({ boundary: "turn" }) },
  { mode: "turn + pinSystem", options: () => ({ boundary: "turn", pinSystem: true }) },
  { mode: "target 50%", options: (budget) => ({ targetTokens: Math.max(1, Math.floor(budget / 2)) }) },
  { mode: "clearToolResults keep 3", options: () => ({ clearToolResults: { keep: 3 } }) },
  {
    mode: "every option on",
    options: (budget) => ({
      boundary: "turn",
      pinSystem: true,
      targetTokens: Math.max(1, Math.floor(budget / 2)),
      clearToolResults: { keep: 3 },
      summaryRole: "user"
    })
  }
]

export interface ScalingFigures {
  readonly rows: ReadonlyArray<ScalingRow>
  /** The same measure (precounted, with a summarizer) under each context-policy mode, at 10 and 20,000. */
  readonly modes: ReadonlyArray<ModeRow>
  /** Largest over smallest per-add median. */
  readonly flatness: Flatness
  /** Per-add median at the largest N over the smallest (20,000 / 10). */
  readonly growth: Flatness
}

export interface Flatness {
  readonly o200k: number
  readonly precounted: number
  readonly drop: number
  readonly baseline: number
}

/** An endless stream of the real messages; cycles after the first get renamed tool call ids. */
class Stream {
  private k: number
  private readonly cycles = new Map<number, ReadonlyArray<Message.Message>>()
  constructor(
    private readonly base: ReadonlyArray<Message.Message>,
    private readonly counts: Map<string, number>,
    /** Cycles to skip: a priming stream starts far away, so its ids never meet the measured stream's. */
    firstCycle = 0
  ) {
    this.k = firstCycle * base.length
  }

  private cycle(c: number): ReadonlyArray<Message.Message> {
    let messages = this.cycles.get(c)
    if (messages === undefined) {
      messages = c === 0 ? this.base : this.base.map((m) => {
        if (m.toolCalls.length === 0 && m.toolCallId === undefined) return m
        const renamed = Message.make(m.role, m.content, {
          toolCalls: m.toolCalls.map((call) => ({ id: `${call.id}~${c}`, name: call.name, arguments: call.arguments })),
          ...(m.toolCallId === undefined ? {} : { toolCallId: `${m.toolCallId}~${c}` })
        })
        if (!this.counts.has(renamed.tokenText)) this.counts.set(renamed.tokenText, countO200k(renamed.tokenText))
        return renamed
      })
      this.cycles.set(c, messages)
      this.cycles.delete(c - 3)
    }
    return messages
  }

  next(n: number): Array<Message.Message> {
    const out: Array<Message.Message> = []
    for (let i = 0; i < n; i++, this.k++) {
      out.push(this.cycle(Math.floor(this.k / this.base.length))[this.k % this.base.length])
    }
    return out
  }
}

const perAdd = (t: Timing, batch: number): Timing => ({
  ...t,
  median: t.median / batch,
  mad: t.mad / batch,
  min: t.min / batch,
  max: t.max / batch
})

export const runScaling = async (
  conversations: ReadonlyArray<Conversation>,
  options: RunOptions
): Promise<ScalingFigures> => {
  const base = conversations.flatMap((c) => c.messages)
  const counts = new Map<string, number>()
  for (const m of base) if (!counts.has(m.tokenText)) counts.set(m.tokenText, countO200k(m.tokenText))
  let total = 0
  for (const m of base) total += counts.get(m.tokenText)!
  const mean = total / base.length
  let folds = 0
  const counting = Summarizer.layerFunction(() => {
    folds++
    return instantSummary()
  })
  const o200kRuntime = await makeRuntime(layerO200kBase, counting)
  // A lookup; a text the data does not hold (the summary, counted once per
  // fold) is counted once with o200k_base and remembered.
  const lookup = (text: string): number => {
    let n = counts.get(text)
    if (n === undefined) {
      n = countO200k(text)
      counts.set(text, n)
    }
    return n
  }
  // Built as a user builds a counter from a function: it has a synchronous form, so adds and folds
  // take the memory's synchronous path, as with o200k_base.
  const precounted = Layer.succeed(TokenCounter.TokenCounter, TokenCounter.fromFunction(lookup))
  const precountedRuntime = await makeRuntime(precounted, counting)
  // No summarizer: evicted turns are dropped inline (no lock, no call).
  const dropRuntime = ManagedRuntime.make(Layer.merge(precounted, Summarizer.layerDrop))
  await dropRuntime.runtime()
  const rows: Array<ScalingRow> = []
  for (const size of SIZES) {
    const budget = Math.round(size * mean)
    const batch = 1000
    const baselineBatch = Math.max(2, Math.round(2000 / size))
    const timings: Record<string, Timing> = {}
    let observed = 0
    let observations = 0
    let adds = 0
    folds = 0
    for (
      const [name, runtime] of [
        ["o200k", o200kRuntime],
        ["precounted", precountedRuntime],
        ["drop", dropRuntime]
      ] as const
    ) {
      const stream = new Stream(base, counts)
      const primer = new Stream(base, counts, PRIME_CYCLE)
      const prime: Array<Message.Message> = []
      for (let tokens = 0; tokens < budget;) {
        const [m] = primer.next(1)
        prime.push(m)
        tokens += counts.get(m.tokenText)!
      }
      const memory = runtime.runSync(RollingMemory.fromState(MemoryState.make("", prime), { maxTokens: budget }))
      let program: Effect.Effect<void, unknown> = Effect.void
      const [timing] = await measure(`scaling ${size} ${name}`, [{
        name,
        fn: () => runtime.runSync(program),
        beforeEach: () => {
          const length = runtime.runSync(memory.buffer).length
          observed += length
          observations++
          const messages = stream.next(batch)
          if (name !== "drop") adds += batch
          program = Effect.forEach(messages, (m) => memory.add(m), { discard: true })
        }
      }], options)
      timings[name] = perAdd(timing, batch)
    }
    {
      const stream = new Stream(base, counts)
      const primer = new Stream(base, counts, PRIME_CYCLE)
      const memory = new PythonRollingMemory(budget, countO200k, instantSummary)
      for (let tokens = 0; tokens < budget;) {
        const [m] = primer.next(1)
        memory.buffer.push(m)
        tokens += counts.get(m.tokenText)!
      }
      let messages: Array<Message.Message> = []
      const [timing] = await measure(`scaling ${size} baseline`, [{
        name: "baseline",
        fn: () => {
          for (const m of messages) memory.add(m)
        },
        beforeEach: () => {
          messages = stream.next(baselineBatch)
        }
      }], { ...options, iterations: Math.min(options.iterations, 10), time: Math.min(options.time, 1500) })
      timings.baseline = perAdd(timing, baselineBatch)
    }
    rows.push({
      buffered: size,
      meanBuffered: Math.round(observed / observations),
      budget,
      o200k: timings.o200k,
      precounted: timings.precounted,
      drop: timings.drop,
      baseline: timings.baseline,
      batch: { rollmem: batch, baseline: baselineBatch },
      foldsPerAdd: folds / adds
    })
  }
  const modes: Array<ModeRow> = []
  for (const { mode, options: modeOptions } of MODES) {
    const timings: Array<Timing> = []
    folds = 0
    let adds = 0
    for (const size of [10, 20_000]) {
      const budget = Math.round(size * mean)
      const batch = 1000
      const stream = new Stream(base, counts)
      const primer = new Stream(base, counts, PRIME_CYCLE)
      const prime: Array<Message.Message> = []
      for (let tokens = 0; tokens < budget;) {
        const [m] = primer.next(1)
        prime.push(m)
        tokens += counts.get(m.tokenText)!
      }
      const memory = precountedRuntime.runSync(
        RollingMemory.fromState(MemoryState.make("", prime), { maxTokens: budget, ...modeOptions(budget) })
      )
      let program: Effect.Effect<void, unknown> = Effect.void
      const [timing] = await measure(`scaling ${size} ${mode}`, [{
        name: mode,
        fn: () => precountedRuntime.runSync(program),
        beforeEach: () => {
          const messages = stream.next(batch)
          adds += batch
          program = Effect.forEach(messages, (m) => memory.add(m), { discard: true })
        }
      }], options)
      timings.push(perAdd(timing, batch))
    }
    modes.push({
      mode,
      small: timings[0],
      large: timings[1],
      ratio: timings[1].median / timings[0].median,
      foldsPerAdd: folds / adds
    })
  }
  await precountedRuntime.dispose()
  await o200kRuntime.dispose()
  await dropRuntime.dispose()
  const columns = ["o200k", "precounted", "drop", "baseline"] as const
  const byColumn = (f: (medians: ReadonlyArray<number>) => number): Flatness => {
    const out = { o200k: 0, precounted: 0, drop: 0, baseline: 0 }
    for (const key of columns) out[key] = f(rows.map((r) => r[key].median))
    return out
  }
  return {
    rows,
    modes,
    flatness: byColumn((medians) => Math.max(...medians) / Math.min(...medians)),
    growth: byColumn((medians) => medians[medians.length - 1] / medians[0])
  }
}
