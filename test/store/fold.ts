/**
 * The turns, the folding summarizer and the save-counting store of the load
 * tests, free of test-runner imports so that the writer processes can load
 * them too.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Message from "../../src/schema/Message.js"
import * as Summarizer from "../../src/services/Summarizer.js"
import * as ConversationStore from "../../src/store/ConversationStore.js"

/** The content of writer `writer`'s turn `i`: one word. */
export const turn = (writer: string, i: number): string => `${writer}:${i}`

/** Appends the folded turns to the summary as one bracketed group. */
export const fold = (summary: string, messages: ReadonlyArray<Message.Message>): string =>
  `${summary}[${messages.map((m) => m.content).join(",")}]`

/** The folding summarizer, yielding once per call so that writers interleave. */
export const layerFold = Summarizer.layerEffect((summary, messages) =>
  Effect.as(Effect.yieldNow(), fold(summary, messages))
)

/** The store `base`, with every call to `save` counted, and the conflicts among them. */
export const countingSaves = <E>(base: Layer.Layer<ConversationStore.ConversationStore, E>) => {
  const Store = ConversationStore.ConversationStore
  const counts = { saves: 0, conflicts: 0 }
  const layer = Layer.effect(
    Store,
    Effect.map(Store, (store) =>
      Store.of({
        ...store,
        save: (id, state, revision) =>
          Effect.suspend(() => {
            counts.saves++
            return Effect.tapErrorTag(store.save(id, state, revision), "ConversationConflictError", () =>
              Effect.sync(() => {
                counts.conflicts++
              }))
          })
      }))
  ).pipe(Layer.provide(base))
  return { counts, layer }
}
