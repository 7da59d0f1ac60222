/**
 * The turns, the folding summarizer and the save-counting store of the load
 * tests, free of test-runner imports so that the writer processes can load
 * them too.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as MemoryState from "../../src/schema/MemoryState.js"
import type * as Message from "../../src/schema/Message.js"
import * as Summarizer from "../../src/services/Summarizer.js"
import * as ConversationStore from "../../src/store/ConversationStore.js"

/** The content of writer `writer`'s turn `i`: one word. */
export const turn = (writer: string, i: number): string => `${writer}:${i}`

/**
 * The highest turn number of `writer` in `state` (its folds, read from the
 * summary {@link fold} writes, and its buffer), -1 if it holds none.
 */
export const lastTurnOf = (state: MemoryState.MemoryState, writer: string): number => {
  const prefix = `${writer}:`
  let last = -1
  const words = [...state.summary.split(/[[\],]/), ...state.buffer.map((m) => m.content)]
  for (const word of words) if (word.startsWith(prefix)) last = Math.max(last, Number(word.slice(prefix.length)))
  return last
}

/** Appends the folded turns to the summary as one bracketed group. */
export const fold = (summary: string, messages: ReadonlyArray<Message.Message>): string =>
  `${summary}[${messages.map((m) => m.content).join(",")}]`

/** The folding summarizer, yielding once per call so that writers interleave. */
export const layerFold = Summarizer.layerEffect((summary, messages) =>
  Effect.as(Effect.yieldNow(), fold(summary, messages))
)

/**
 * The store `base`, with every call to `save` counted, the conflicts among
 * them, and whether a save is running (`saving`).
 */
export const countingSaves = <E>(base: Layer.Layer<ConversationStore.ConversationStore, E>) => {
  const Store = ConversationStore.ConversationStore
  const counts = { saves: 0, conflicts: 0, saving: false }
  const layer = Layer.effect(
    Store,
    Effect.map(Store, (store) =>
      Store.of({
        ...store,
        save: (id, state, revision, options) =>
          Effect.suspend(() => {
            counts.saves++
            counts.saving = true
            return Effect.tapErrorTag(store.save(id, state, revision, options), "ConversationConflictError", () =>
              Effect.sync(() => {
                counts.conflicts++
              })).pipe(Effect.ensuring(Effect.sync(() => {
                counts.saving = false
              })))
          })
      }))
  ).pipe(Layer.provide(base))
  return { counts, layer }
}
