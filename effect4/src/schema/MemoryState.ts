/**
 * The state file (docs/contract.md sections 2 and 2.1) in Effect 4's Schema:
 * `{version, summary, buffer}` and version 3's optional fields, read from
 * versions 1 to 3 and written as version 2 unless a version 3 field is set,
 * byte for byte as the Effect 3 line writes it. The cross-field rules are
 * `core/state.ts`'s.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { formatKey, formatValue } from "../../../src/core/format.js"
import { copyJson, isPlainObject, type JsonObject } from "../../../src/core/json.js"
import * as StateRules from "../../../src/core/state.js"
import * as UsageRatio from "../../../src/core/usage.js"
import { StateDecodeError } from "../Errors.js"
import { describeInput, under } from "./Issue.js"
import * as Message from "./Message.js"

/** A provider's compaction item kept with the state (docs/contract.md section 2.1). @since 1.0.0 */
export interface Compaction {
  readonly format: "anthropic" | "openai-responses"
  readonly item: JsonObject
  readonly content: string
}

/** The fields only a version 3 state carries (docs/contract.md section 2.1). @since 1.0.0 */
export interface Version3Fields {
  readonly segments?: ReadonlyArray<string> | undefined
  readonly compaction?: Compaction | undefined
  readonly conversationId?: string | undefined
  readonly nextPosition?: number | undefined
  readonly positions?: ReadonlyArray<number> | undefined
  readonly usageRatio?: number | undefined
}

/**
 * A memory's state: its summary and buffered messages, with version 3's fields when set.
 *
 * @since 1.0.0
 */
export interface MemoryState extends Version3Fields {
  readonly summary: string
  readonly buffer: ReadonlyArray<Message.Message>
}

/** A state as its file holds it (docs/contract.md section 2). @since 1.0.0 */
export interface Encoded extends Version3Fields {
  readonly version: 1 | 2 | 3
  readonly summary: string
  readonly buffer: ReadonlyArray<Message.Encoded>
}

const JsonItem = Schema.Unknown.check(
  Schema.makeFilter((u) => isPlainObject(u) && typeof copyJson(u, 0, "item") !== "string" ? true : "a JSON object")
)

const NonNegativeInt = Schema.Number.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(0))

const KNOWN_KEYS = new Set<string>(StateRules.STATE_KEYS)

const COMPACTION_KEYS = new Set<string>(StateRules.COMPACTION_KEYS)

/**
 * The state file's schema: the fields of every version, then
 * `core/state.ts`'s cross-field rules.
 *
 * @since 1.0.0
 */
export const Wire = Schema.Struct({
  version: Schema.Literals([1, 2, 3]),
  summary: Schema.optionalKey(Schema.NullOr(Schema.String)),
  buffer: Schema.optionalKey(Schema.NullOr(Schema.Array(Message.Wire))),
  segments: Schema.optionalKey(
    Schema.Array(Schema.String.check(Schema.isMinLength(1))).check(Schema.isMinLength(1))
  ),
  compaction: Schema.optionalKey(Schema.Struct({
    format: Schema.Literals(["anthropic", "openai-responses"]),
    item: JsonItem,
    content: Schema.String
  })),
  conversationId: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1))),
  nextPosition: Schema.optionalKey(NonNegativeInt),
  positions: Schema.optionalKey(Schema.Array(NonNegativeInt)),
  usageRatio: Schema.optionalKey(
    Schema.Number.check(Schema.isBetween({ minimum: UsageRatio.MIN_RATIO, maximum: UsageRatio.MAX_RATIO }))
  )
}).check(Schema.makeFilter((wire) => {
  const issues = StateRules.wireIssues({
    ...wire,
    summary: wire.summary ?? "",
    buffer: wire.buffer ?? []
  } as StateRules.Wire)
  return issues.length === 0 ? true : issues.map(({ message, path }) => ({ path, issue: message }))
}))

const decodeWire = Schema.decodeUnknownResult(Wire)

/**
 * Decodes a state, each path of a failure under `prefix` (a stored record's
 * `state`).
 *
 * @internal
 */
export const decode = (input: unknown, prefix = ""): Result.Result<MemoryState, StateDecodeError> => {
  // unknown keys inside a message are ignored (docs/contract.md section 2), unknown keys of the state refused
  if (isPlainObject(input)) {
    for (const key of Object.keys(input)) {
      if (!KNOWN_KEYS.has(key)) {
        return Result.fail(
          new StateDecodeError({ description: `${under(prefix, key)}: ${StateRules.UNEXPECTED_STATE_KEY}` })
        )
      }
    }
    // unknown keys of the compaction refused too, worded as on the Effect 3 line (core/state.ts)
    const compaction = (input as { readonly compaction?: unknown }).compaction
    if (isPlainObject(compaction)) {
      for (const key of Object.keys(compaction)) {
        if (!COMPACTION_KEYS.has(key)) {
          return Result.fail(
            new StateDecodeError({
              description: `${under(prefix, `compaction.${formatKey(key)}`)}: ${StateRules.UNEXPECTED_COMPACTION_KEY}`
            })
          )
        }
      }
    }
    // the version's refusal worded as on the Effect 3 line (core/state.ts), not as this Schema's literal
    const version = (input as { readonly version?: unknown }).version
    if (Object.hasOwn(input, "version") && version !== 1 && version !== 2 && version !== 3) {
      return Result.fail(
        new StateDecodeError({
          description: `${under(prefix, "version")}: ${StateRules.unsupportedVersion(formatValue(version))}`
        })
      )
    }
  }
  const decoded = decodeWire(input, { errors: "all" })
  if (Result.isFailure(decoded)) {
    return Result.fail(
      new StateDecodeError({
        description: describeInput(decoded.failure.issue, input, { messageLevel: 3, name: "state", prefix })
      })
    )
  }
  const wire = decoded.success
  const state: { -readonly [K in keyof MemoryState]: MemoryState[K] } = {
    summary: wire.segments === undefined ? wire.summary ?? "" : wire.segments.join(StateRules.SEGMENT_SEPARATOR),
    buffer: wire.buffer ?? []
  }
  if (wire.segments !== undefined) state.segments = wire.segments
  if (wire.compaction !== undefined) {
    state.compaction = {
      format: wire.compaction.format,
      item: (copyJson(wire.compaction.item, 0, "item") as { readonly value: JsonObject }).value,
      content: wire.compaction.content
    }
  }
  if (wire.conversationId !== undefined) state.conversationId = wire.conversationId
  if (wire.nextPosition !== undefined) state.nextPosition = wire.nextPosition
  if (wire.positions !== undefined) state.positions = wire.positions
  if (wire.usageRatio !== undefined) state.usageRatio = wire.usageRatio
  return Result.succeed(state)
}

/**
 * Reads a state from parsed JSON (versions 1 to 3), or fails with the
 * `StateDecodeError` naming what is wrong.
 *
 * @since 1.0.0
 */
export const fromJSON = (input: unknown): Effect.Effect<MemoryState, StateDecodeError> =>
  Effect.suspend(() => Effect.fromResult(decode(input)))

/**
 * Reads a state from its JSON text; malformed JSON is a `StateDecodeError`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { MemoryState } from "rollmem"
 * Effect.runSync(MemoryState.fromString("{\"version\": 2, \"summary\": \"s\", \"buffer\": []}")).summary // "s"
 * ```
 *
 * @since 1.0.0
 */
export const fromString = (json: string): Effect.Effect<MemoryState, StateDecodeError> =>
  Effect.suspend(() => {
    let parsed: unknown
    try {
      parsed = JSON.parse(json)
    } catch (cause) {
      return Effect.fail(new StateDecodeError({ description: `malformed JSON: ${String(cause)}`, cause }))
    }
    return fromJSON(parsed)
  })

/**
 * A state's file form (docs/contract.md section 2): version 2 with
 * `summary` and `buffer`, or version 3 followed by its set fields in their
 * order; messages in their wire form.
 *
 * @since 1.0.0
 */
export const toJSON = (state: MemoryState): Encoded => {
  const buffer = state.buffer.map(Message.toWire)
  if (!StateRules.usesVersion3(state)) {
    return { version: StateRules.CURRENT_VERSION, summary: state.summary, buffer }
  }
  const out: Record<string, unknown> = { version: StateRules.VERSION_3, summary: state.summary, buffer }
  for (const key of StateRules.VERSION_3_FIELDS) {
    // a field this line does not keep (`unarchived`) is absent
    const value = (state as { readonly [K in typeof key]?: unknown })[key]
    if (value !== undefined) out[key] = value
  }
  return out as unknown as Encoded
}

/** The empty state. @since 1.0.0 */
export const empty: MemoryState = { summary: "", buffer: [] }

/** A state of a summary and a buffer. @since 1.0.0 */
export const make = (summary: string, buffer: ReadonlyArray<Message.Message>): MemoryState => ({ summary, buffer })
