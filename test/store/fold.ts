/**
 * The turns and the folding summarizer of the load tests, free of test-runner
 * imports so that the writer processes can load them too.
 */
import * as Effect from "effect/Effect"
import type * as Message from "../../src/schema/Message.js"
import * as Summarizer from "../../src/services/Summarizer.js"

/** The content of writer `writer`'s turn `i`: one word. */
export const turn = (writer: string, i: number): string => `${writer}:${i}`

/** Appends the folded turns to the summary as one bracketed group. */
export const fold = (summary: string, messages: ReadonlyArray<Message.Message>): string =>
  `${summary}[${messages.map((m) => m.content).join(",")}]`

/** The folding summarizer, yielding once per call so that writers interleave. */
export const layerFold = Summarizer.layerEffect((summary, messages) =>
  Effect.as(Effect.yieldNow(), fold(summary, messages))
)
