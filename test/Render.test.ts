/**
 * How `rollmem replay` and `rollmem show` print (src/cli/Render.ts): the
 * summary set apart from the verbatim turns, what the budget bounds, ids cut
 * between characters.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Measure from "../src/cli/Measure.js"
import * as Render from "../src/cli/Render.js"
import type { Figures, Outcome } from "../src/cli/Replay.js"
import { MemoryState, Message } from "../src/index.js"

const rolling: Render.Budget = { strategy: "rolling", maxTokens: 2000, maxMessages: 20, summaryTokens: 400 }

const noRequests = Measure.sum([])

const figures = (id: string, over: Partial<Figures> = {}): Figures => ({
  ...noRequests,
  ...Measure.derive(noRequests, 4, 1),
  id,
  messages: 4,
  prunes: 1,
  summarizerCalls: 1,
  consolidations: 0,
  evictedMessages: 2,
  peakBufferTokens: 9,
  finalBufferTokens: 5,
  summaryTokens: 3,
  contextTokens: 8,
  opensOnUserTurn: true,
  artifacts: { named: 4, kept: 3, byKind: { path: { named: 4, kept: 3 } } },
  retention: 0.75,
  usageSamples: 0,
  usageRatio: null,
  ...over
})

describe("Render.budgetNote", () => {
  it("says what the budget bounds, for every strategy", () => {
    assert.strictEqual(
      Render.budgetNote(rolling),
      "--max-tokens 2000 bounds the buffer only; the summary is counted apart (at most --summary-tokens 400), " +
        "so the context can exceed 2000."
    )
    assert.strictEqual(
      Render.budgetNote({ ...rolling, summaryTokens: undefined }),
      "--max-tokens 2000 bounds the buffer; evicted turns were dropped (--summarizer none)."
    )
    assert.strictEqual(
      Render.budgetNote({ ...rolling, strategy: "window" }),
      "--max-messages 20 bounds the buffer's messages; evicted turns were dropped."
    )
    assert.strictEqual(
      Render.budgetNote({ ...rolling, strategy: "buffer" }),
      "--strategy buffer keeps every turn: nothing bounds the buffer."
    )
    assert.strictEqual(
      Render.budgetNote({ ...rolling, strategy: "summary", summaryTokens: 120 }),
      "--strategy summary folds every turn into the summary (at most --summary-tokens 120); " +
        "the buffer holds only turns not folded yet."
    )
  })
})

describe("Render.finalContext", () => {
  it("sets the summary apart from the verbatim turns; no 'system: system:'", () => {
    const summary = "system: You are a support assistant.\nuser: my tent is damaged"
    const buffer = [Message.user("Can I get a replacement?"), Message.assistant("Yes.")]
    const messages = [Message.system(summary), ...buffer]
    const shown = { id: "chat", messages, context: messages.map(String).join("\n"), summary, buffer, summaryIndex: 0 }
    assert.strictEqual(
      Render.finalContext(shown, figures("chat"), "tokens", { ...rolling, maxTokens: 6, summaryTokens: 4 }),
      [
        "Final context of chat: 3 messages, 8 tokens (summary 3 + buffer 5)",
        "--max-tokens 6 bounds the buffer only; the summary is counted apart (at most --summary-tokens 4), " +
        "so the context can exceed 6.",
        "=".repeat("Final context of chat: 3 messages, 8 tokens (summary 3 + buffer 5)".length),
        "",
        "Summary (sent first, as one system message; 3 tokens):",
        "  system: You are a support assistant.",
        "  user: my tent is damaged",
        "",
        "Buffer (the recent turns, verbatim: 2 messages, 5 tokens):",
        "user: Can I get a replacement?",
        "assistant: Yes."
      ].join("\n")
    )
  })

  it("says when there is no summary, in words when counting words", () => {
    const buffer = [Message.user("hi")]
    const shown = { id: "c", messages: buffer, context: "user: hi", summary: "", buffer, summaryIndex: -1 }
    const one = figures("c", { summaryTokens: 0, finalBufferTokens: 1, contextTokens: 1 })
    assert.strictEqual(
      Render.finalContext(shown, one, "words", { ...rolling, strategy: "window", maxMessages: 3 }),
      [
        "Final context of c: 1 message, 1 words (summary 0 + buffer 1)",
        "--max-messages 3 bounds the buffer's messages; evicted turns were dropped.",
        "=".repeat("Final context of c: 1 message, 1 words (summary 0 + buffer 1)".length),
        "",
        "Summary: none",
        "",
        "Buffer (the recent turns, verbatim: 1 message, 1 words):",
        "user: hi"
      ].join("\n")
    )
  })
})

describe("Render.storedContext", () => {
  it("sets the stored summary apart from the buffered turns", () => {
    const state = MemoryState.make("user: asked about a refund", [Message.assistant("Refund approved.")])
    assert.strictEqual(
      Render.storedContext({ id: "chat-42", revision: 3, state, messages: 2, context: "" }),
      [
        "Stored conversation chat-42 (revision 3): a summary and 1 buffered message",
        "=".repeat("Stored conversation chat-42 (revision 3): a summary and 1 buffered message".length),
        "",
        "Summary (sent first, as one system message):",
        "  user: asked about a refund",
        "",
        "Buffer (the recent turns, verbatim: 1 message):",
        "assistant: Refund approved."
      ].join("\n")
    )
  })
})

describe("Render.table", () => {
  it("cuts a long id in the middle between characters: never half an emoji", () => {
    // cut to 24 + 23 code units: the old cut split a surrogate pair at both ends
    const id = `x${"🏕️".repeat(20)}${"😀".repeat(20)}yz`
    const outcome: Outcome = {
      report: {
        conversations: [figures(id)],
        totals: { ...figures(id), conversations: 1, opensOnUserTurn: 1 }
      },
      shown: undefined,
      timelines: [],
      finals: []
    }
    const row = Render.table(outcome, "title", "tokens").split("\n")[4]
    const cell = row.split("  ")[0]
    assert.strictEqual(cell, `x${"🏕️".repeat(7)}…${"😀".repeat(10)}yz`)
    assert.strictEqual(Buffer.from(row, "utf8").toString("utf8"), row)
  })
})
