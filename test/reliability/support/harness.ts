/**
 * Shared pieces of the reliability suite: numbered turns, a summarizer whose
 * summary records exactly which turns it folded, and the accounting check of
 * contract section 5 ("never loses a turn").
 *
 * Every turn carries an id (`t1`, `t2`, ...). The recording summarizer returns
 * the summary it was given followed by `<id>` for each folded turn, so a
 * summary is itself the list of turns committed into it, in order. The
 * accounting invariant then reads: the ids folded into the summary followed by
 * the ids of the buffer are exactly the turns added since the last clear or
 * restore, in the order of their adds, each once (strategies that summarize);
 * the buffer is a suffix of them (strategies that drop); the buffer is all of
 * them (BufferMemory).
 */
import { assert } from "@effect/vitest"
import { Deferred, Effect, FiberId, Layer } from "effect"
import type { MemoryState } from "../../../src/index.js"
import { Message, Summarizer } from "../../../src/index.js"

/** A turn with id `t{n}` and a two-word content (`"w{n} x"`), so two tokens with the word counter. */
export const turn = (n: number, role: string = Message.USER): Message.Message =>
  Message.make(role, `w${n} x`, { id: `t${n}` })

/** The ids of some messages (`"?"` for a message without one). */
export const idsOf = (messages: ReadonlyArray<Message.Message>): Array<string> => messages.map((m) => m.id ?? "?")

/** The ids a recording summary holds, in order. */
export const foldedIds = (summary: string): Array<string> => Array.from(summary.matchAll(/<([^<>]*)>/g), (m) => m[1])

/** What the recording summarizer returns: the summary, then `<id>` per folded turn. */
export const encodeFold = (summary: string, messages: ReadonlyArray<Message.Message>): string =>
  summary + messages.map((m) => `<${m.id ?? "?"}>`).join("")

/**
 * {@link encodeFold} honouring `request.mode` (summary segments,
 * docs/contract.md section 10.9): a segment is the evicted turns' ids alone;
 * a consolidation joins the segments' ids into one word (the ids, in order,
 * are read from the segments' join as from a single summary).
 */
export const encodeFoldIn = (
  summary: string,
  messages: ReadonlyArray<Message.Message>,
  request: Summarizer.Request
): string =>
  request.mode === "segment"
    ? encodeFold("", messages)
    : request.mode === "consolidate"
    ? summary.split("\n\n").join("")
    : encodeFold(summary, messages)

/** One call a summarizer received. */
export interface Call {
  readonly summary: string
  readonly ids: ReadonlyArray<string>
}

/** A summarizer that records its calls and folds with {@link encodeFold}. */
export const recording = (): { readonly calls: Array<Call>; readonly service: Summarizer.Service } => {
  const calls: Array<Call> = []
  const service = Summarizer.fromEffect((summary: string, messages: ReadonlyArray<Message.Message>) =>
    Effect.sync(() => {
      calls.push({ summary, ids: idsOf(messages) })
      return encodeFold(summary, messages)
    })
  )
  return { calls, service }
}

/** A layer providing a summarizer service. */
export const summarizerLayer = (service: Summarizer.Service): Layer.Layer<Summarizer.Summarizer> =>
  Layer.succeed(Summarizer.Summarizer, service)

/**
 * A summarizer whose calls each wait until the test releases them: `started`
 * holds one Deferred per call (completed with the ids when the call begins),
 * and `release(i)` lets call `i` finish with the recording fold.
 */
export interface Gated {
  readonly service: Summarizer.Service
  readonly calls: Array<Call>
  /** Completed when call `i` (0-based) has begun. */
  readonly started: (i: number) => Deferred.Deferred<ReadonlyArray<string>>
  /** Lets call `i` return its fold. */
  readonly release: (i: number) => Effect.Effect<void>
  /** How many calls were interrupted while waiting. */
  readonly interrupted: () => number
}

/** Builds a {@link Gated} summarizer. */
export const gated = (): Effect.Effect<Gated> =>
  Effect.sync(() => {
    const calls: Array<Call> = []
    const starts: Array<Deferred.Deferred<ReadonlyArray<string>>> = []
    const gates: Array<Deferred.Deferred<void>> = []
    let interrupted = 0
    const slot = <A>(list: Array<Deferred.Deferred<A>>, i: number): Deferred.Deferred<A> => {
      while (list.length <= i) list.push(Deferred.unsafeMake<A>(FiberId.none))
      return list[i]
    }
    const service = Summarizer.fromEffect((summary: string, messages: ReadonlyArray<Message.Message>) =>
      Effect.suspend(() => {
        const i = calls.length
        const ids = idsOf(messages)
        calls.push({ summary, ids })
        return Deferred.succeed(slot(starts, i), ids).pipe(
          Effect.zipRight(Deferred.await(slot(gates, i))),
          Effect.as(encodeFold(summary, messages)),
          Effect.onInterrupt(() => Effect.sync(() => interrupted++))
        )
      })
    )
    return {
      service,
      calls,
      started: (i) => slot(starts, i),
      release: (i) => Effect.asVoid(Deferred.succeed(slot(gates, i), undefined)),
      interrupted: () => interrupted
    }
  })

/** How a strategy accounts for the turns it no longer buffers. */
export type Accounting = "summarize" | "drop" | "keep"

/**
 * Asserts the accounting invariant of contract section 5 on a state, given the
 * ids of the turns added since the last clear or restore, in order, and the
 * ids the summary held before them (restored summaries).
 */
export const assertAccounting = (
  state: MemoryState.MemoryState,
  added: ReadonlyArray<string>,
  mode: Accounting,
  baseFolded: ReadonlyArray<string> = []
): void => {
  const buffer = idsOf(state.buffer)
  assert.strictEqual(new Set(buffer).size, buffer.length, `a turn is duplicated in the buffer: ${buffer.join(",")}`)
  switch (mode) {
    case "summarize": {
      const folded = foldedIds(state.summary)
      assert.deepStrictEqual([...folded, ...buffer], [...baseFolded, ...added])
      return
    }
    case "drop": {
      assert.deepStrictEqual(buffer, added.slice(added.length - buffer.length))
      assert.deepStrictEqual(foldedIds(state.summary), [...baseFolded])
      return
    }
    case "keep": {
      assert.deepStrictEqual(buffer, [...added])
      assert.deepStrictEqual(foldedIds(state.summary), [...baseFolded])
      return
    }
  }
}

/** Whether the accounting invariant holds (a cheap check; {@link assertAccounting} explains a failure). */
export const accountingHolds = (
  state: MemoryState.MemoryState,
  added: ReadonlyArray<string>,
  mode: Accounting,
  baseFolded: ReadonlyArray<string> = []
): boolean => {
  const buffer = idsOf(state.buffer)
  if (new Set(buffer).size !== buffer.length) return false
  const folded = foldedIds(state.summary)
  switch (mode) {
    case "summarize":
      return [...folded, ...buffer].join(",") === [...baseFolded, ...added].join(",")
    case "drop":
      return buffer.join(",") === added.slice(added.length - buffer.length).join(",") &&
        folded.join(",") === baseFolded.join(",")
    case "keep":
      return buffer.join(",") === added.join(",") && folded.join(",") === baseFolded.join(",")
  }
}

/** `n` consecutive integers from `from`. */
export const range = (from: number, n: number): Array<number> => Array.from({ length: n }, (_, i) => from + i)

/** A seeded pseudo-random generator (mulberry32): the same sequence on every run. */
export const prng = (seed: number) => {
  let a = seed >>> 0
  return (bound: number): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return (((t ^ (t >>> 14)) >>> 0) % bound)
  }
}
