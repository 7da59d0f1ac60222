/**
 * The accounting check of the load tests: writers add turns named
 * `{writer}:{i}`; a summarizer folds turns into the summary as `[t1,t2,...]`;
 * at the end every turn must be in the buffer or in exactly one fold, and
 * each writer's turns must appear in the order it added them.
 */
import { assert } from "@effect/vitest"
import type * as MemoryState from "../../src/schema/MemoryState.js"
import { turn } from "./fold.js"

/** The folds of a summary written by {@link fold}, oldest first. */
export const foldsOf = (summary: string): Array<Array<string>> => {
  const folds = Array.from(summary.matchAll(/\[([^\]]*)\]/g), (m) => m[1] === "" ? [] : m[1].split(","))
  assert.strictEqual(folds.map((f) => `[${f.join(",")}]`).join(""), summary, "the summary is folds only")
  return folds
}

/**
 * Asserts that each of `writers` added turns 0 to `perWriter - 1`, each
 * present once (in a fold or the buffer), in the writer's order.
 */
export const assertAccounting = (
  state: MemoryState.MemoryState,
  writers: ReadonlyArray<string>,
  perWriter: number
): void => {
  const folded = foldsOf(state.summary).flat()
  const all = [...folded, ...state.buffer.map((m) => m.content)]
  const seen = new Map<string, number>()
  for (const t of all) seen.set(t, (seen.get(t) ?? 0) + 1)
  const twice = [...seen].filter(([, n]) => n > 1).map(([t]) => t)
  assert.deepStrictEqual(twice, [], "no turn applied twice")
  for (const writer of writers) {
    const expected = Array.from({ length: perWriter }, (_, i) => turn(writer, i))
    assert.deepStrictEqual(all.filter((t) => t.startsWith(`${writer}:`)), expected, `writer ${writer}`)
  }
  assert.strictEqual(all.length, writers.length * perWriter, "no other turn")
}
