/**
 * A state's provider compaction in the memory (docs/contract.md sections 2.1
 * and 15.6), on both lines: each case restores a state JSON text holding a
 * `compaction` with one strategy and its options, adds messages (the
 * summarizer {@link summarize}), maybe clears, then reads back the messages
 * (wire form), the counts and the state JSON text. Each line's test runs
 * them through its own `MemoryState.fromJSON` and `Memory.make`
 * ({@link runCompactionCases}).
 */

/** The summarizer of every case: the summary and the turns' contents joined with `" / "` (a segment: the turns only). */
export const summarize = (
  summary: string,
  messages: ReadonlyArray<{ readonly content: string }>,
  request: { readonly mode?: "segment" | "consolidate" | undefined }
): string =>
  [request.mode === "segment" ? "" : summary, ...messages.map((m) => m.content)].filter((s) => s !== "").join(
    " / "
  )

const ITEM = { type: "compaction", id: "cmp_1", encrypted_content: "gAAAA-opaque" }
const OPENAI = { format: "openai-responses", item: ITEM, content: "" }
const BLOCK = {
  type: "compaction",
  content: "The user plans a trip to Rome in May.",
  encrypted_content: null,
  signature: "sig-1",
  tool_changes: []
}
const ANTHROPIC = { format: "anthropic", item: BLOCK, content: "The user plans a trip to Rome in May." }

/** The message a compaction reads back as, in wire form. */
const readBack = (compaction: typeof OPENAI | typeof ANTHROPIC) => ({
  role: "assistant",
  content: compaction.content,
  metadata: {
    "rollmem.provider": {
      format: compaction.format,
      items: compaction.format === "anthropic"
        ? [{ role: "assistant", content: [compaction.item] }]
        : [compaction.item],
      messages: 1
    }
  }
})

const text = (u: unknown): string => JSON.stringify(u)

const next = { role: "user", content: "Next?" }
const brief = { role: "system", content: "Be brief." }
const morning = { role: "user", content: "Yes, the morning one." }

/** One case: what is restored and done, and what reads back. */
export interface CompactionCase {
  readonly name: string
  readonly strategy: "rolling" | "buffer" | "window" | "summary"
  readonly options: Readonly<Record<string, unknown>>
  /** The state JSON text restored. */
  readonly state: string
  /** Added in order, each with `Message.make(role, content)`. */
  readonly adds: ReadonlyArray<readonly ["system" | "user" | "assistant", string]>
  readonly clear?: boolean
  readonly expected: Outcome
}

/** What a case reads back. */
export interface Outcome {
  /** The messages read back, in wire form (`MemoryState.toJSON`'s buffer). */
  readonly messages: ReadonlyArray<unknown>
  /** `bufferTokens`, `pinnedTokens`, `summaryTokens`, `contextTokens`. */
  readonly tokens: readonly [number, number, number, number]
  /** `JSON.stringify` of `toJSON`. */
  readonly state: string
}

const openAIState = text({ version: 3, summary: "", buffer: [next], compaction: OPENAI })
const anthropicState = text({ version: 3, summary: "", buffer: [brief, morning], compaction: ANTHROPIC })
const framedState = text({ version: 3, summary: "Rome in May.", buffer: [next], compaction: ANTHROPIC })
const segmentsState = text({
  version: 3,
  summary: "Rome.\n\nMay.",
  buffer: [next],
  segments: ["Rome.", "May."],
  compaction: OPENAI
})

export const compactionCases: ReadonlyArray<CompactionCase> = [
  {
    name: "rolling: the OpenAI item reads back first; a later fold leaves it first and unedited, the summary after it",
    strategy: "rolling",
    options: { maxTokens: 4 },
    state: openAIState,
    adds: [["assistant", "Book the train."], ["user", "And a hotel near Termini?"]],
    expected: {
      messages: [
        readBack(OPENAI),
        { role: "system", content: "Next? / Book the train." },
        { role: "user", content: "And a hotel near Termini?" }
      ],
      tokens: [5, 0, 5, 10],
      state: text({
        version: 3,
        summary: "Next? / Book the train.",
        buffer: [{ role: "user", content: "And a hotel near Termini?" }],
        compaction: OPENAI
      })
    }
  },
  {
    name: "rolling with pinSystem: after the leading pinned message, its content counted in contextTokens only",
    strategy: "rolling",
    options: { maxTokens: 100, pinSystem: true },
    state: anthropicState,
    adds: [],
    expected: {
      messages: [brief, readBack(ANTHROPIC), morning],
      tokens: [4, 2, 0, 15],
      state: anthropicState
    }
  },
  {
    name: "buffer: read back first, written back byte for byte",
    strategy: "buffer",
    options: {},
    state: openAIState,
    adds: [],
    expected: { messages: [readBack(OPENAI), next], tokens: [1, 0, 0, 1], state: openAIState }
  },
  {
    name: "window: a drop leaves it first (a window drops, no summary)",
    strategy: "window",
    options: { maxMessages: 2 },
    state: anthropicState,
    adds: [["assistant", "Booked."]],
    expected: {
      messages: [readBack(ANTHROPIC), morning, { role: "assistant", content: "Booked." }],
      tokens: [5, 0, 0, 14],
      state: text({
        version: 3,
        summary: "",
        buffer: [morning, { role: "assistant", content: "Booked." }],
        compaction: ANTHROPIC
      })
    }
  },
  {
    name: "summary: read back before the summary",
    strategy: "summary",
    options: {},
    state: openAIState,
    adds: [["assistant", "Book the train."]],
    expected: {
      messages: [readBack(OPENAI), { role: "system", content: "Next? / Book the train." }],
      tokens: [0, 0, 5, 5],
      state: text({ version: 3, summary: "Next? / Book the train.", buffer: [], compaction: OPENAI })
    }
  },
  {
    name: "summaryFraming: the summary framed, the compaction never",
    strategy: "rolling",
    options: { maxTokens: 100, summaryFraming: "Earlier:" },
    state: framedState,
    adds: [],
    expected: {
      messages: [readBack(ANTHROPIC), { role: "system", content: "Earlier:\n\nRome in May." }, next],
      // the compaction's 9, the summary's 3, the framing line's 1, the buffer's 1
      tokens: [1, 0, 3, 14],
      state: framedState
    }
  },
  {
    name: "segments: the compaction, then one message per segment",
    strategy: "rolling",
    options: { maxTokens: 100, summary: "segments" },
    state: segmentsState,
    adds: [],
    expected: {
      messages: [readBack(OPENAI), { role: "system", content: "Rome." }, { role: "system", content: "May." }, next],
      tokens: [1, 0, 2, 3],
      state: segmentsState
    }
  },
  {
    name: "clear removes it: version 2",
    strategy: "rolling",
    options: { maxTokens: 100 },
    state: anthropicState,
    adds: [["user", "Hi."]],
    clear: true,
    expected: { messages: [], tokens: [0, 0, 0, 0], state: text({ version: 2, summary: "", buffer: [] }) }
  }
]

/** What {@link runCompactionCases} needs of a line's test tooling. */
export interface Vitest {
  readonly describe: (name: string, body: () => void) => void
  readonly it: (name: string, body: () => void) => void
  readonly assert: {
    deepStrictEqual: (actual: unknown, expected: unknown, message?: string) => void
  }
}

/** A line's side of the cases: runs one (restore, adds, clear, reads) with its own Effect API. */
export interface Line {
  readonly name: string
  readonly run: (c: CompactionCase) => Outcome
}

/** Runs {@link compactionCases} against one line. */
export const runCompactionCases = (line: Line, { assert, describe, it }: Vitest): void => {
  describe(`a state's provider compaction in the memory (${line.name})`, () => {
    for (const c of compactionCases) {
      it(c.name, () => {
        assert.deepStrictEqual(line.run(c), c.expected)
      })
    }
  })
}
