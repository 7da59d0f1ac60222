/**
 * A context window the pinned messages alone would overflow
 * (docs/contract.md section 16.1, `core/context.ts` `pinnedOverflow`), on
 * both lines through the Promise facade: an add of a pinned message that
 * takes the pinned messages over the window less the reserve fails before
 * it changes anything (not appended, no prune, no summarizer call) and the
 * memory goes on; a state restored with its pinned messages over a smaller
 * window keeps each add's turn and fails before any prune or summarizer
 * call. Each line's test gives its facade's constructors.
 */

/** The facade memory the cases drive (sync: `RollingMemory`; async: `AsyncRollingMemory`). */
export interface FacadeMemory {
  readonly addSystemMessage: (content: string) => unknown
  readonly addUserMessage: (content: string) => unknown
  readonly addMessages: (messages: ReadonlyArray<never>) => unknown
  readonly toJSON: () => unknown
}

/** The window options of the cases, with a summarizer recording its calls. */
export interface CaseOptions {
  readonly contextWindow: { readonly tokens: number; readonly reserveTokens: number }
  readonly pinSystem: true
  readonly summarize: (summary: string, turns: ReadonlyArray<unknown>) => string
}

/** A line's side: its facade's constructors, each adding and throwing or rejecting as the facade does. */
export interface Line {
  readonly name: string
  readonly sync: (options: CaseOptions) => FacadeMemory
  readonly async: (options: CaseOptions) => FacadeMemory
  readonly fromJSON: (data: unknown, options: CaseOptions) => FacadeMemory
  /** A Message value of the line (for `addMessages`). */
  readonly message: (role: "system" | "user", content: string) => never
}

/** What {@link runPinnedWindowCases} needs of a line's test tooling. */
export interface Vitest {
  readonly describe: (name: string, body: () => void) => void
  readonly it: (name: string, body: () => Promise<void> | void) => void
  readonly assert: {
    strictEqual: (actual: unknown, expected: unknown, message?: string) => void
    deepStrictEqual: (actual: unknown, expected: unknown, message?: string) => void
  }
}

const twelve = "one two three four five six seven eight nine ten eleven twelve"

const recording = (tokens: number, reserveTokens: number) => {
  const calls: Array<number> = []
  const options: CaseOptions = {
    contextWindow: { tokens, reserveTokens },
    pinSystem: true,
    summarize: (summary, turns) => {
      calls.push(turns.length)
      return `${summary} +${turns.length}`.trim()
    }
  }
  return { calls, options }
}

/** The error an add threw or rejected with, or "none". */
const outcome = async (add: () => unknown): Promise<unknown> => {
  try {
    await add()
    return "none"
  } catch (e) {
    const error = e as {
      name: string
      message: string
      pinnedTokens: number
      summaryTokens: number
      messageTokens?: number
    }
    return {
      name: error.name,
      message: error.message,
      pinned: error.pinnedTokens,
      summary: error.summaryTokens,
      refused: error.messageTokens
    }
  }
}

const refusedTwelve = {
  name: "ContextWindowError",
  message:
    "pinned message (12 tokens) cannot fit: with the pinned messages held (0) it would exceed the context window less the reserve (10 - 2 = 8); not added",
  pinned: 0,
  summary: 0,
  refused: 12
}

const state = (summary: string, buffer: ReadonlyArray<readonly [string, string]>) => ({
  summary,
  buffer: buffer.map(([role, content]) => ({ role, content }))
})

/** Runs the cases against one line. */
export const runPinnedWindowCases = (line: Line, { assert, describe, it }: Vitest): void => {
  describe(`a pinned message over the context window (${line.name}, contract 16.1)`, () => {
    for (const kind of ["sync", "async"] as const) {
      it(`refused before anything changes; the next adds work (${kind})`, async () => {
        const { calls, options } = recording(10, 2)
        const memory = line[kind](options)
        assert.deepStrictEqual(await outcome(() => memory.addSystemMessage(twelve)), refusedTwelve)
        assert.deepStrictEqual(memory.toJSON(), { version: 2, ...state("", []) })
        assert.strictEqual(await outcome(() => memory.addUserMessage("hi")), "none")
        assert.strictEqual(await outcome(() => memory.addUserMessage("again")), "none")
        // a pinned message that fits is taken
        assert.strictEqual(await outcome(() => memory.addSystemMessage("be brief")), "none")
        assert.deepStrictEqual(
          memory.toJSON(),
          { version: 2, ...state("", [["user", "hi"], ["user", "again"], ["system", "be brief"]]) }
        )
        // 2 pinned + 10 over 8: refused again, the pinned held named
        assert.deepStrictEqual(await outcome(() => memory.addSystemMessage("a b c d e f g h i j")), {
          ...refusedTwelve,
          message:
            "pinned message (10 tokens) cannot fit: with the pinned messages held (2) it would exceed the context window less the reserve (10 - 2 = 8); not added",
          pinned: 2,
          refused: 10
        })
        assert.deepStrictEqual(calls, [])
      })
    }

    it("a batch holding the pinned message is refused whole", async () => {
      const { calls, options } = recording(10, 2)
      const memory = line.sync(options)
      memory.addUserMessage("hi")
      const before = memory.toJSON()
      assert.deepStrictEqual(
        await outcome(() => memory.addMessages([line.message("user", "x"), line.message("system", twelve)])),
        refusedTwelve
      )
      assert.deepStrictEqual(memory.toJSON(), before)
      assert.deepStrictEqual(calls, [])
    })

    it("restored with its pinned messages over a smaller window: each turn kept, no fold", async () => {
      const { calls, options } = recording(10, 2)
      const memory = line.fromJSON(
        { version: 2, ...state("", [["system", twelve], ["user", "hi"]]) },
        options
      )
      const over = {
        name: "ContextWindowError",
        message: "pinned messages (12 tokens) and summary (0) exceed the context window less the reserve (10 - 2 = 8)",
        pinned: 12,
        summary: 0,
        refused: undefined
      }
      assert.deepStrictEqual(await outcome(() => memory.addUserMessage("again")), over)
      assert.deepStrictEqual(await outcome(() => memory.addUserMessage("more")), over)
      assert.deepStrictEqual(
        memory.toJSON(),
        { version: 2, ...state("", [["system", twelve], ["user", "hi"], ["user", "again"], ["user", "more"]]) }
      )
      // a pinned message is refused there too: not appended
      assert.deepStrictEqual(await outcome(() => memory.addSystemMessage("be brief")), {
        ...over,
        message:
          "pinned message (2 tokens) cannot fit: with the pinned messages held (12) it would exceed the context window less the reserve (10 - 2 = 8); not added",
        refused: 2
      })
      assert.strictEqual((memory.toJSON() as { buffer: Array<unknown> }).buffer.length, 4)
      assert.deepStrictEqual(calls, [])
    })
  })
}
