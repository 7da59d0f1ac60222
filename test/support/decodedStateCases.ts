/**
 * What a constructor taking a decoded state (`fromState`, `Memory.make`'s
 * state, `makeScoped`'s) refuses, on both lines (docs/contract.md section 2,
 * `core/state.ts` `decodedStateProblem`): each input and the exact
 * description of its `StateDecodeError`. Each line's test runs them through
 * its own constructors.
 */

/** A saved state document, as `JSON.parse` gives it (typed `any`, so it type-checks as a state). */
const document = (): unknown =>
  JSON.parse(
    "{\"version\":2,\"summary\":\"s\",\"buffer\":[{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"id\":\"c1\",\"name\":\"f\",\"arguments\":\"{}\"}]},{\"role\":\"tool\",\"content\":\"r\",\"tool_call_id\":\"c1\"}]}"
  )

export interface DecodedStateCase {
  readonly name: string
  readonly input: () => unknown
  readonly description: string
}

const messageHint =
  ": build messages with Message.make (or user, assistant, ...), or decode a saved state with MemoryState.fromJSON"

export const decodedStateCases: ReadonlyArray<DecodedStateCase> = [
  {
    name: "a parsed state document",
    input: document,
    description:
      "expected a decoded MemoryState and got a state document (version 2): restore it with fromJSON, or decode it with MemoryState.fromJSON first"
  },
  {
    name: "a buffer of plain objects",
    input: () => ({ summary: "", buffer: [{ role: "user", content: "hi" }] }),
    description: `buffer[0]: expected a Message value, got object${messageHint}`
  },
  {
    name: "a buffer entry that is null",
    input: () => ({ summary: "", buffer: [null] }),
    description: `buffer[0]: expected a Message value, got null${messageHint}`
  },
  { name: "no summary", input: () => ({ buffer: [] }), description: "summary: expected a string" },
  {
    name: "a buffer that is not an array",
    input: () => ({ summary: "", buffer: "hi" }),
    description: "buffer: expected an array of Message values"
  },
  {
    name: "null",
    input: () => null,
    description: "expected a decoded MemoryState (summary and buffer of Message values), got null"
  }
]

/** What {@link runDecodedStateCases} needs of a line's test tooling. */
export interface Vitest {
  readonly describe: (name: string, body: () => void) => void
  readonly it: (name: string, body: () => void) => void
  readonly assert: {
    strictEqual: (actual: unknown, expected: unknown, message?: string) => void
    deepStrictEqual: (actual: unknown, expected: unknown, message?: string) => void
  }
}

/** A line's side of the cases: its constructors and how it reads their outcome. */
export interface Line {
  readonly name: string
  /**
   * For a state: the description of the `StateDecodeError` each constructor
   * that takes one fails with (`fromState` of RollingMemory, BufferMemory and
   * WindowMemory, `Memory.make`, `RollingMemory.makeScoped`), in that order;
   * `undefined` for a constructor that succeeded or failed otherwise.
   */
  readonly refusals: (state: unknown) => ReadonlyArray<string | undefined>
  /** The state JSON of a RollingMemory restored from `MemoryState.make("s", [user "hi"])`. */
  readonly restored: () => unknown
}

/** Runs {@link decodedStateCases} against one line. */
export const runDecodedStateCases = (line: Line, { assert, describe, it }: Vitest): void => {
  describe(`a state that is not decoded is refused with StateDecodeError (${line.name})`, () => {
    for (const c of decodedStateCases) {
      it(c.name, () => {
        assert.deepStrictEqual(line.refusals(c.input()), [
          c.description,
          c.description,
          c.description,
          c.description,
          c.description
        ])
      })
    }
    it("a decoded state restores as before", () => {
      assert.deepStrictEqual(line.restored(), { version: 2, summary: "s", buffer: [{ role: "user", content: "hi" }] })
    })
  })
}
