/**
 * The memory state every strategy writes and reads (docs/contract.md section 2):
 * `{"version": 2, "summary": <string>, "buffer": [<message>...]}`.
 *
 * Writers write version 2 unless the state carries a field of version 3
 * (summary segments, a provider's compaction item, a conversation id and
 * message positions, a usage ratio): then version 3. Readers accept 1, 2 and
 * 3. A missing `summary` reads as `""`, a missing `buffer` as empty; a missing
 * or unknown version is an error, and so is an unknown top-level key (a
 * version 3 field in a version 1 or 2 state included: it would be dropped);
 * unknown keys inside a message are ignored. Configuration (budgets,
 * summarizer, token counter) is never part of the state.
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
import { compactionFields } from "../core/context.js"
import * as StateRules from "../core/state.js"
import * as UsageRatio from "../core/usage.js"
import { StateDecodeError } from "../Errors.js"
import { type JsonObject, JsonObjectSchema } from "./Json.js"
import { make as makeMessage, Message } from "./Message.js"
import { formatValue } from "./ParseIssue.js"

/**
 * The version writers put in a state that uses none of version 3's fields
 * (docs/contract.md section 2): the Python package reads it.
 *
 * @example
 * ```ts
 * import { MemoryState } from "rollmem"
 *
 * MemoryState.toJSON(MemoryState.empty).version === MemoryState.CURRENT_VERSION // true: 2
 * ```
 *
 * @since 0.1.0
 * @category constants
 */
export const CURRENT_VERSION = StateRules.CURRENT_VERSION

/**
 * The version written when a state carries one of version 3's fields
 * (`segments`, `compaction`, `conversationId`, `nextPosition` with
 * `positions`, `usageRatio`; docs/contract.md section 2).
 *
 * @example
 * ```ts
 * import { MemoryState } from "rollmem"
 *
 * MemoryState.VERSION_3 // 3: written only when a state has one of version 3's fields
 * ```
 *
 * @since 0.3.0
 * @category constants
 */
export const VERSION_3 = StateRules.VERSION_3

/**
 * A provider's own compaction item, kept verbatim (docs/contract.md section 2):
 * `format` names the provider format it was read from, `item` is the item
 * exactly as the provider returned it (never edited), `content` its readable
 * text (`""` when the provider gives none), which counters and readers see.
 *
 * @since 0.3.0
 * @category models
 */
export interface Compaction {
  readonly format: "anthropic" | "openai-responses"
  readonly item: JsonObject
  readonly content: string
}

/**
 * How a state's {@link Compaction} reads back (docs/contract.md section
 * 15.6): an `assistant` message holding its readable `content`, the item kept
 * under the metadata key `"rollmem.provider"` as its provider's reader keeps
 * it (an Anthropic assistant message whose one block is the compaction
 * block; the OpenAI Responses item itself), so that provider's writer
 * (`toAnthropic`, `toOpenAIResponses`) writes it verbatim.
 *
 * @example
 * ```ts
 * import { MemoryState } from "rollmem"
 *
 * const m = MemoryState.compactionMessage({
 *   format: "openai-responses",
 *   item: { type: "compaction", encrypted_content: "gAAA" },
 *   content: ""
 * })
 * m.role // "assistant"
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const compactionMessage = (compaction: Compaction): Message => {
  const fields = compactionFields(compaction)
  return makeMessage(fields.role, fields.content, { metadata: fields.metadata as Message["metadata"] })
}

const CompactionSchema = Schema.Struct({
  format: Schema.Literal("anthropic", "openai-responses"),
  item: JsonObjectSchema,
  content: Schema.String
})

const NonNegativeInt = Schema.Int.pipe(Schema.nonNegative())

const v3Fields = StateRules.VERSION_3_FIELDS

const Wire = Schema.Struct({
  version: Schema.Literal(1, 2, 3).annotations({
    message: (issue) => ({
      // bounded: a version may be a 10 MB string
      message: StateRules.unsupportedVersion(formatValue(issue.actual)),
      override: true
    })
  }),
  summary: Schema.optionalWith(Schema.String, { default: () => "", nullable: true }),
  // unknown keys inside a message are ignored, as the Python package does (contract section 2)
  buffer: Schema.optionalWith(
    Schema.Array(Message.annotations({ parseOptions: { onExcessProperty: "ignore" } })),
    { default: () => [], nullable: true }
  ),
  segments: Schema.optional(Schema.Array(Schema.String.pipe(Schema.minLength(1))).pipe(Schema.minItems(1))),
  compaction: Schema.optional(CompactionSchema),
  conversationId: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  nextPosition: Schema.optional(NonNegativeInt),
  positions: Schema.optional(Schema.Array(NonNegativeInt)),
  unarchived: Schema.optional(
    Schema.Array(Schema.Struct({
      position: NonNegativeInt,
      message: Message.annotations({ parseOptions: { onExcessProperty: "ignore" } })
    })).pipe(Schema.minItems(1))
  ),
  // the bounds of the usage ratio (docs/contract.md section 16.4): a state cannot switch the budget off
  usageRatio: Schema.optional(Schema.Number.pipe(Schema.between(UsageRatio.MIN_RATIO, UsageRatio.MAX_RATIO)))
}).annotations({ parseOptions: { onExcessProperty: "error" } }).pipe(
  Schema.filter((wire) => StateRules.wireIssues(wire))
)

const State = Schema.Struct({
  summary: Schema.String,
  buffer: Schema.Array(Schema.typeSchema(Message)),
  segments: Schema.optional(Schema.Array(Schema.String)),
  compaction: Schema.optional(CompactionSchema),
  conversationId: Schema.optional(Schema.String),
  nextPosition: Schema.optional(Schema.Number),
  positions: Schema.optional(Schema.Array(Schema.Number)),
  unarchived: Schema.optional(
    Schema.Array(Schema.Struct({ position: Schema.Number, message: Schema.typeSchema(Message) }))
  ),
  usageRatio: Schema.optional(Schema.Number)
})

/**
 * What joins summary segments into the summary they read back as: a blank
 * line (docs/contract.md section 2).
 *
 * @example
 * ```ts
 * import { MemoryState } from "rollmem"
 *
 * // the summary a memory with segments sends: its segments joined
 * const summary = ["Flight to Rome booked.", "Hotel near Termini."].join(MemoryState.SEGMENT_SEPARATOR)
 * ```
 *
 * @since 0.3.0
 * @category constants
 */
export const SEGMENT_SEPARATOR = StateRules.SEGMENT_SEPARATOR

/**
 * A memory's state: the running summary (`""` when none) and the buffer of
 * messages, oldest first; and, from version 3 of the wire format, the fields
 * that some options add (each absent when unused):
 *
 * - `segments`: the summary as append-only segments, oldest first (then
 *   `summary` is their join with {@link SEGMENT_SEPARATOR});
 * - `compaction`: a provider's compaction item, kept verbatim, read back
 *   before the summary;
 * - `conversationId`, and `nextPosition` (the position the next added message
 *   gets: messages ever added) with `positions` (each buffer message's
 *   position, increasing);
 * - `unarchived`: originals of tool results cut at the door whose archive
 *   write has not succeeded yet (`{ position, message }`, increasing), written
 *   with the memory's next archive write after a restore;
 * - `usageRatio`: the correction learnt from the provider's usage figures.
 *
 * @since 0.1.0
 * @category models
 */
export interface MemoryState extends Version3Fields {
  readonly summary: string
  readonly buffer: ReadonlyArray<Message>
}

/**
 * The wire-format JSON shape of a {@link MemoryState}.
 *
 * @since 0.1.0
 * @category models
 */
export interface Encoded extends Omit<Version3Fields, "unarchived"> {
  readonly unarchived?:
    | ReadonlyArray<{ readonly position: number; readonly message: typeof Message.Encoded }>
    | undefined
  readonly version: 1 | 2 | 3
  readonly summary?: string | null | undefined
  readonly buffer?: ReadonlyArray<typeof Message.Encoded> | null | undefined
}

/**
 * The optional fields version 3 adds (docs/contract.md section 2.1), the
 * same in a {@link MemoryState} and in its wire format.
 *
 * @since 0.3.0
 * @category models
 */
export interface Version3Fields {
  readonly segments?: ReadonlyArray<string> | undefined
  readonly compaction?: Compaction | undefined
  readonly conversationId?: string | undefined
  readonly nextPosition?: number | undefined
  readonly positions?: ReadonlyArray<number> | undefined
  readonly unarchived?: ReadonlyArray<{ readonly position: number; readonly message: Message }> | undefined
  readonly usageRatio?: number | undefined
}

/**
 * Whether a state carries a field of version 3 (and so is written as
 * version 3).
 *
 * @example
 * ```ts
 * import { MemoryState, Message } from "rollmem"
 *
 * MemoryState.usesVersion3(MemoryState.make("", [Message.user("hi")])) // false: written as version 2
 * ```
 *
 * @since 0.3.0
 * @category predicates
 */
export const usesVersion3 = (state: MemoryState): boolean => StateRules.usesVersion3(state)

/**
 * The schema between the wire format (encoded side) and {@link MemoryState}.
 * Encoding writes version 2 (`{version, summary, buffer}`, exactly as before)
 * unless the state carries a version 3 field; then version 3 with those
 * fields (`summary` is then the segments' join, written for readers that
 * know no segments).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { MemoryState } from "rollmem"
 *
 * const state = Schema.decodeUnknownSync(MemoryState.MemoryStateSchema)({ version: 2, summary: "", buffer: [] })
 * Schema.encodeSync(MemoryState.MemoryStateSchema)(state) // { version: 2, summary: "", buffer: [] }
 * ```
 *
 * @since 0.1.0
 * @category schemas
 */
export const MemoryStateSchema: Schema.Schema<MemoryState, Encoded> = Schema.transform(Wire, State, {
  strict: true,
  decode: ({ version: _version, segments, summary, ...rest }) => ({
    ...rest,
    ...(segments === undefined ? { summary } : { summary: segments.join(SEGMENT_SEPARATOR), segments })
  }),
  encode: (state) => {
    if (!usesVersion3(state)) {
      return { version: CURRENT_VERSION as 1 | 2 | 3, summary: state.summary, buffer: state.buffer }
    }
    const out: { -readonly [K in keyof typeof Wire.Type]?: (typeof Wire.Type)[K] } = { version: VERSION_3 }
    out.summary = state.summary
    out.buffer = state.buffer
    for (const key of v3Fields) {
      const value = state[key]
      if (value !== undefined) (out as Record<string, unknown>)[key] = value
    }
    return out as typeof Wire.Type
  }
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
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { MemoryState } from "rollmem"
 *
 * const state = Effect.runSync(MemoryState.fromJSON({ version: 2, summary: "Rome", buffer: [] }))
 * state.summary // "Rome"
 * // MemoryState.fromJSON({ version: 9 }) fails with StateDecodeError naming the field
 * ```
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
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { MemoryState } from "rollmem"
 *
 * const state = Effect.runSync(MemoryState.fromString("{\"version\":2,\"summary\":\"\",\"buffer\":[]}"))
 * // MemoryState.fromString("{") fails with StateDecodeError (not JSON)
 * ```
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
 * @example
 * ```ts
 * import { MemoryState, Message } from "rollmem"
 *
 * JSON.stringify(MemoryState.toJSON(MemoryState.make("", [Message.user("hi")])))
 * // {"version":2,"summary":"","buffer":[{"role":"user","content":"hi"}]}
 * ```
 *
 * @since 0.1.0
 * @category combinators
 */
export const toJSON = (state: MemoryState): Encoded => encodeState(state)

/**
 * The empty state: no summary, no buffer.
 *
 * @example
 * ```ts
 * import { MemoryState } from "rollmem"
 *
 * MemoryState.toJSON(MemoryState.empty) // { version: 2, summary: "", buffer: [] }
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const empty: MemoryState = { summary: "", buffer: [] }

/**
 * Builds a state from a summary and a buffer.
 *
 * @example
 * ```ts
 * import { MemoryState, Message } from "rollmem"
 *
 * const state = MemoryState.make("The user flies to Rome.", [Message.user("On May 3")])
 * state.buffer.length // 1
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (summary: string, buffer: ReadonlyArray<Message>): MemoryState => ({ summary, buffer })
