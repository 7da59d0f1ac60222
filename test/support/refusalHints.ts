/**
 * The refusals of the provider formats' `to…` that a memory's option avoids
 * (docs/contract.md section 15.2): an orphaned tool result, a first turn
 * that is not the user's. Their description ends with the fix
 * (`core/formats/engine.ts` `memoryHint`). The case data is here once; each
 * line runs it with its own `to…` functions, messages and memory class
 * (test/adapters/refusalHints.test.ts, effect4/test/adapters/refusalHints.test.ts).
 */
import type { CaseMessage, Vitest } from "./adapterCases.js"

/** The `to…` functions a case names. */
export type Writer = "toOpenAIChat" | "toOpenAIResponses" | "toAnthropic" | "toGemini" | "toAiSdk"

/** A context refused, and the exact `AdapterError` message (`format: description`). */
export interface HintCase {
  readonly name: string
  readonly to: Writer
  readonly messages: ReadonlyArray<CaseMessage>
  readonly message: string
}

const ORPHAN_HINT = " (a memory with boundary: \"turn\" never gives an orphaned tool result: " +
  "docs/guides/context-policies.md)"
const FIRST_HINT = " (a memory with boundary: \"turn\" opens on a user turn when it holds one, with " +
  "summaryRole: \"user\" when it holds none: docs/guides/context-policies.md)"
const BOTH_HINT = " (a memory with boundary: \"turn\" never gives an orphaned tool result and opens on a user " +
  "turn when it holds one, with summaryRole: \"user\" when it holds none: docs/guides/context-policies.md)"

const REFUSE = "the provider would refuse this context: "
const ORPHAN = "message 1: tool result \"c9\" does not follow its call"

/** A context opening on a tool result whose call was folded away. */
const orphaned: ReadonlyArray<CaseMessage> = [
  { role: "user", content: "and the weather?" },
  { role: "tool", content: "sunny", options: { toolCallId: "c9" } },
  { role: "assistant", content: "It is sunny." }
]

/** A context opening on an assistant turn (the user's turn folded). */
const assistantFirst: ReadonlyArray<CaseMessage> = [
  { role: "assistant", content: "Hello again." },
  { role: "user", content: "hi" }
]

/** Both: a tool result first. */
const toolFirst: ReadonlyArray<CaseMessage> = [
  { role: "tool", content: "sunny", options: { toolCallId: "c9" } },
  { role: "user", content: "and?" }
]

/** Every case, both lines. */
export const hintCases: ReadonlyArray<HintCase> = [
  ...(["toOpenAIChat", "toOpenAIResponses", "toAiSdk"] as const).map((to): HintCase => ({
    name: `${to}: an orphaned tool result`,
    to,
    messages: orphaned,
    message: `${
      { toOpenAIChat: "openai-chat", toOpenAIResponses: "openai-responses", toAiSdk: "ai-sdk" }[to]
    }: ${REFUSE}${ORPHAN}${ORPHAN_HINT}`
  })),
  ...(["toAnthropic", "toGemini"] as const).flatMap((to): ReadonlyArray<HintCase> => {
    const format = to === "toAnthropic" ? "anthropic" : "gemini"
    return [
      {
        name: `${to}: an orphaned tool result`,
        to,
        messages: orphaned,
        message: `${format}: ${REFUSE}${ORPHAN}${ORPHAN_HINT}`
      },
      {
        name: `${to}: an assistant turn first`,
        to,
        messages: assistantFirst,
        message: `${format}: ${REFUSE}message 0: the first turn is an assistant message, not a user turn${FIRST_HINT}`
      },
      {
        name: `${to}: a tool result first`,
        to,
        messages: toolFirst,
        message: `${format}: ${REFUSE}message 0: the first turn is a tool message, not a user turn; ` +
          `message 0: tool result "c9" does not follow its call${BOTH_HINT}`
      }
    ]
  }),
  {
    name: "toAnthropic: a system message after the first turn (no memory option avoids it: no hint)",
    to: "toAnthropic",
    messages: [{ role: "user", content: "hi" }, { role: "system", content: "late rule" }],
    message: `anthropic: ${REFUSE}message 1: a system message after the first turn`
  }
]

/** What a memory of the default boundary gives (an assistant turn first), refused with the hint; `boundary: "turn"` accepted. */
export const memoryCase = {
  options: { maxTokens: 12, summarize: "drop" as const },
  turns: [
    { role: "user", content: "check the weather in Rome please" },
    { role: "assistant", content: "", options: { toolCalls: [{ id: "c1", name: "weather", arguments: "{}" }] } },
    { role: "tool", content: "sunny and warm today in Rome", options: { toolCallId: "c1" } },
    { role: "assistant", content: "It is sunny." }
  ] satisfies ReadonlyArray<CaseMessage>,
  /** The context's roles under each boundary. */
  aligned: ["assistant", "tool", "assistant"],
  turn: ["user", "assistant"],
  refused: {
    toAnthropic: `anthropic: ${REFUSE}message 0: the first turn is an assistant message, not a user turn${FIRST_HINT}`,
    toGemini: `gemini: ${REFUSE}message 0: the first turn is an assistant message, not a user turn${FIRST_HINT}`
  }
}

/** How one line runs the cases. */
export interface HintLine<M> {
  readonly name: "effect3" | "effect4"
  readonly make: (message: CaseMessage) => M
  readonly to: { readonly [K in Writer]: (messages: ReadonlyArray<M>) => unknown }
  /** The context of a rolling memory with `options` after `turns` were added. */
  readonly context: (
    options: { readonly maxTokens: number; readonly summarize: "drop"; readonly boundary?: "turn" },
    turns: ReadonlyArray<CaseMessage>
  ) => ReadonlyArray<M>
  readonly role: (message: M) => string
}

const thrown = (f: () => unknown): string => {
  try {
    f()
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
  return "accepted"
}

/** Registers the cases on `line`. */
export const runHintCases = <M>(line: HintLine<M>, { assert, describe, it }: Vitest): void => {
  describe(`a refusal a memory option avoids names it (${line.name})`, () => {
    for (const c of hintCases) {
      it(c.name, () => {
        assert.strictEqual(thrown(() => line.to[c.to](c.messages.map(line.make))), c.message)
      })
    }
    it("a rolling memory of the default boundary opens on an assistant turn: refused, naming boundary: \"turn\"", () => {
      const aligned = line.context(memoryCase.options, memoryCase.turns)
      assert.deepStrictEqual(aligned.map(line.role), memoryCase.aligned)
      assert.strictEqual(thrown(() => line.to.toAnthropic(aligned)), memoryCase.refused.toAnthropic)
      assert.strictEqual(thrown(() => line.to.toGemini(aligned)), memoryCase.refused.toGemini)
      const turn = line.context({ ...memoryCase.options, boundary: "turn" }, memoryCase.turns)
      assert.deepStrictEqual(turn.map(line.role), memoryCase.turn)
      assert.strictEqual(thrown(() => line.to.toAnthropic(turn)), "accepted")
      assert.strictEqual(thrown(() => line.to.toGemini(turn)), "accepted")
    })
  })
}
