/**
 * When a memory counts its summary (docs/contract.md section 10.4,
 * `core/fold.ts` `countsSummaryAtFold`), on both lines: a fold commits its
 * summary uncounted unless something needs the count then (here
 * `maxSummaryTokens`); the first read of `summaryTokens` or `contextTokens`
 * counts it once and keeps the count until the summary changes; a counter
 * that fails on it fails that read with `TokenCountError`, and a usage
 * recorded against a context read with it with `UsageError`. Each line's
 * test runs the cases through its Effect API and its Promise facade, with
 * a counter that logs every text it is given.
 */

/** A read's outcome: its value, or the tag and message of its typed error. */
export type Outcome =
  | { readonly value: number }
  | { readonly error: string; readonly message: string }

/** A RollingMemory of one line and API, run synchronously. */
export interface Subject {
  readonly add: (role: "user" | "assistant", content: string) => void
  readonly summary: () => string
  readonly summaryTokens: () => Outcome
  readonly contextTokens: () => Outcome
  /** Reads the context back (`messages` / `getMessages()`), as a request sends it. */
  readonly messages: () => void
  readonly recordUsage: (inputTokens: number) => Outcome | undefined
}

/**
 * How a line builds a subject: a RollingMemory with `maxTokens: 4` and, if
 * given, `maxSummaryTokens`, counting with `count`, summarizing with
 * `summarize` (synchronous).
 */
export type Make = (options: {
  readonly count: (text: string) => number
  readonly summarize: (summary: string, contents: ReadonlyArray<string>) => string
  readonly maxSummaryTokens?: number | undefined
}) => Subject

/** What {@link runLazySummaryCases} needs of a line's test tooling. */
export interface Vitest {
  readonly describe: (name: string, body: () => void) => void
  readonly it: (name: string, body: () => void) => void
  readonly assert: {
    strictEqual: (actual: unknown, expected: unknown, message?: string) => void
    deepStrictEqual: (actual: unknown, expected: unknown, message?: string) => void
  }
}

/** A line's side: its name and a builder per API. */
export interface Line {
  readonly name: string
  /** The message of the line's `TokenCountError` for a counter returning `NaN`. */
  readonly nanMessage: string
  readonly apis: ReadonlyArray<{ readonly name: string; readonly make: Make }>
}

const words = (text: string): number => text.split(/\s+/).filter((w) => w !== "").length

/** A word counter logging each text; `NaN` for a text holding `"!"` (a counter that fails on the summary). */
const logging = (): { readonly log: Array<string>; readonly count: (text: string) => number } => {
  const log: Array<string> = []
  return {
    log,
    count: (text) => {
      log.push(text)
      return text.includes("!") ? Number.NaN : words(text)
    }
  }
}

const joined = (summary: string, contents: ReadonlyArray<string>): string =>
  [summary, ...contents].filter((s) => s !== "").join(" ")

/** Two folds: "a b c d" after the third add, "a b c d e f g h" after the fifth (maxTokens 4, word counts). */
const turns: ReadonlyArray<readonly ["user" | "assistant", string]> = [
  ["user", "a b"],
  ["assistant", "c d"],
  ["user", "e f"],
  ["assistant", "g h"],
  ["user", "i j"]
]

const added = turns.map(([, content]) => content)

/** Runs the cases against one line. */
export const runLazySummaryCases = (line: Line, { assert, describe, it }: Vitest): void => {
  for (const api of line.apis) {
    describe(`a committed summary is counted only when its count is needed (${line.name}, ${api.name})`, () => {
      it("without maxSummaryTokens: no count at a fold; the first read counts once, later reads take the kept count", () => {
        const { count, log } = logging()
        const memory = api.make({ count, summarize: joined })
        for (const [role, content] of turns) memory.add(role, content)
        assert.strictEqual(memory.summary(), "a b c d e f g h")
        // one count per added message, none for the two folds' summaries
        assert.deepStrictEqual(log, added)
        assert.deepStrictEqual(memory.summaryTokens(), { value: 8 })
        assert.deepStrictEqual(log, [...added, "a b c d e f g h"])
        assert.deepStrictEqual(memory.summaryTokens(), { value: 8 })
        assert.deepStrictEqual(memory.contextTokens(), { value: 10 })
        memory.messages()
        assert.strictEqual(memory.recordUsage(20), undefined)
        assert.strictEqual(log.length, added.length + 1)
        // the next fold commits its summary uncounted; the first read counts it once
        memory.add("assistant", "k l")
        assert.strictEqual(memory.summary(), "a b c d e f g h i j")
        assert.deepStrictEqual(log, [...added, "a b c d e f g h", "k l"])
        assert.deepStrictEqual(memory.contextTokens(), { value: 12 })
        assert.deepStrictEqual(memory.summaryTokens(), { value: 10 })
        assert.deepStrictEqual(log, [...added, "a b c d e f g h", "k l", "a b c d e f g h i j"])
      })

      it("with maxSummaryTokens: each fold counts its summary once; reads count nothing", () => {
        const { count, log } = logging()
        const memory = api.make({ count, summarize: joined, maxSummaryTokens: 100 })
        for (const [role, content] of turns) memory.add(role, content)
        assert.deepStrictEqual(log, ["a b", "c d", "e f", "a b c d", "g h", "i j", "a b c d e f g h"])
        assert.deepStrictEqual(memory.summaryTokens(), { value: 8 })
        assert.deepStrictEqual(memory.contextTokens(), { value: 10 })
        assert.strictEqual(log.length, 7)
      })

      it("a counter failing on an uncounted summary fails the read with TokenCountError, and a usage against it with UsageError", () => {
        const { count, log } = logging()
        const memory = api.make({ count, summarize: (summary, contents) => joined(summary, contents) + " !" })
        for (const [role, content] of turns.slice(0, 3)) memory.add(role, content)
        // the fold committed: its summary was not counted, so the counter's failure is not the add's
        assert.strictEqual(memory.summary(), "a b c d !")
        assert.deepStrictEqual(log, ["a b", "c d", "e f"])
        const failed = { error: "TokenCountError", message: line.nanMessage }
        assert.deepStrictEqual(memory.summaryTokens(), failed)
        // a failed count keeps nothing: the next read asks again
        assert.deepStrictEqual(memory.contextTokens(), failed)
        assert.strictEqual(log.length, 5)
        memory.messages()
        assert.deepStrictEqual(memory.recordUsage(20), {
          error: "UsageError",
          message:
            `invalid usage: the summary of the context it is compared with could not be counted: ${failed.message}`
        })
      })
    })
  }
}
