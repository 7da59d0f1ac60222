/**
 * The memory state every strategy writes and reads (docs/contract.md section 2):
 * `{"version": 2, "summary": <string>, "buffer": [<message>...]}`.
 *
 * Writers always write version 2; readers accept 1 and 2. A missing `summary`
 * reads as `""`, a missing `buffer` as empty; a missing or unknown version is
 * an error. Unknown keys are ignored. Configuration (budgets, summarizer,
 * token counter) is never part of the state.
 *
 * @example
 * ```ts
 * import { MemoryState } from "rollmem"
 * import { Effect } from "effect"
 *
 * const state = await Effect.runPromise(
 *   MemoryState.fromJSON({ version: 1, summary: "", buffer: [{ role: "user", content: "hi" }] })
 * )
 * MemoryState.toJSON(state) // { version: 2, summary: "", buffer: [{ role: "user", content: "hi" }] }
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { StateDecodeError } from "../Errors.js"
import { Message } from "./Message.js"
import { formatValue } from "./ParseIssue.js"

/**
 * The version writers put in every state.
 *
 * @since 0.1.0
 * @category constants
 */
export const CURRENT_VERSION = 2

const Wire = Schema.Struct({
  version: Schema.Literal(1, 2).annotations({
    message: (issue) => ({
      // bounded: a version may be a 10 MB string
      message: `unsupported version ${formatValue(issue.actual)}, expected 1 or 2`,
      override: true
    })
  }),
  summary: Schema.optionalWith(Schema.String, { default: () => "", nullable: true }),
  buffer: Schema.optionalWith(Schema.Array(Message), { default: () => [], nullable: true })
})

const State = Schema.Struct({
  summary: Schema.String,
  buffer: Schema.Array(Schema.typeSchema(Message))
})

/**
 * A memory's state: the running summary (`""` when none) and the buffer of
 * messages, oldest first.
 *
 * @since 0.1.0
 * @category models
 */
export interface MemoryState {
  readonly summary: string
  readonly buffer: ReadonlyArray<Message>
}

/**
 * The wire-format JSON shape of a {@link MemoryState}.
 *
 * @since 0.1.0
 * @category models
 */
export interface Encoded {
  readonly version: 1 | 2
  readonly summary?: string | null | undefined
  readonly buffer?: ReadonlyArray<typeof Message.Encoded> | null | undefined
}

/**
 * The schema between the wire format (encoded side) and {@link MemoryState}.
 * Encoding always writes version 2.
 *
 * @since 0.1.0
 * @category schemas
 */
export const MemoryStateSchema: Schema.Schema<MemoryState, Encoded> = Schema.transform(Wire, State, {
  strict: true,
  decode: ({ buffer, summary }) => ({ summary, buffer }),
  encode: ({ buffer, summary }) => ({ version: CURRENT_VERSION as 1 | 2, summary, buffer })
})

/**
 * Reads a state from a parsed JSON value (`unknown`, as `JSON.parse` gives it).
 *
 * Fails with {@link StateDecodeError} naming what is wrong: wrong types, a
 * missing or unknown version, a tool call without an id, metadata nested
 * deeper than 100 levels. The description is at most 2,000 characters
 * whatever the input: a huge wrong value is printed cut to 80 characters
 * with its size (`[array of 1000000 items]`), and past the first issues the
 * rest are counted (`; and 4936 more issues`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromJSON = (input: unknown): Effect.Effect<MemoryState, StateDecodeError> =>
  Effect.mapError(
    Schema.decodeUnknown(MemoryStateSchema)(input, { errors: "all" }),
    (error) => StateDecodeError.fromParseError({ error, input })
  )

/**
 * Reads a state from a JSON string. Fails with {@link StateDecodeError} on
 * malformed JSON as well as on a malformed state.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromString = (json: string): Effect.Effect<MemoryState, StateDecodeError> =>
  Effect.flatMap(
    Effect.try({
      try: (): unknown => JSON.parse(json),
      catch: (cause) => new StateDecodeError({ description: `malformed JSON: ${String(cause)}`, cause })
    }),
    fromJSON
  )

const encodeState = Schema.encodeSync(MemoryStateSchema)

/**
 * Writes a state in the wire format (version 2, defaults omitted), ready for
 * `JSON.stringify`.
 *
 * @since 0.1.0
 * @category combinators
 */
export const toJSON = (state: MemoryState): Encoded => encodeState(state)

/**
 * The empty state: no summary, no buffer.
 *
 * @since 0.1.0
 * @category constructors
 */
export const empty: MemoryState = { summary: "", buffer: [] }

/**
 * Builds a state from a summary and a buffer.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (summary: string, buffer: ReadonlyArray<Message>): MemoryState => ({ summary, buffer })
