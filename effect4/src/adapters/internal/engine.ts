/**
 * The conversion engine every provider adapter runs on: the Effect 4 shell
 * of `core/formats/engine.ts` (the pure conversions, shared with the Effect 3
 * line). Here are what needs Effect 4's Schema: reading a format's items
 * (lenient: a key the format does not model kept, an open union also taking
 * a part of another `type`; strict: both refused), building `Message`s for
 * the core, and the `AdapterError` and `Effect` forms of its outcomes.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import { formatValue } from "../../../../src/core/format.js"
import * as Core from "../../../../src/core/formats/engine.js"
import type * as Validity from "../../../../src/core/validity.js"
import { describe, under } from "../../schema/Issue.js"
import * as Message from "../../schema/Message.js"
import { AdapterError, type CheckOptions, type DecodeOptions } from "../AdapterError.js"

/** Any JSON value. @internal */
export const JsonSchema = Schema.declare((u: unknown): u is Core.Json => Core.isJson(u, 0), {
  identifier: "JSON value",
  description: "a JSON value"
})

/** A JSON object with JSON values. @internal */
export const JsonRecord = Schema.Record(Schema.String, JsonSchema)

/** A mutable array schema: the SDKs' request types take `Array<T>`, not `ReadonlyArray<T>`. @internal */
export const Arr = <S extends Schema.Top>(item: S) => Schema.mutable(Schema.Array(item))

/** An optional field that, when present, holds a value (never `undefined`). @internal */
export const Opt = <S extends Schema.Top>(schema: S) => Schema.optionalKey(schema)

/**
 * How a format's Schema declares a union of typed parts (structs with a
 * literal `type`, listed in `types`) that a lenient reader keeps open: also
 * taking a part of another `type`, any JSON object, kept whole.
 *
 * @internal
 */
export type Open = <const Members extends ReadonlyArray<Schema.Top>>(
  members: Members,
  types: ReadonlyArray<string | RegExp>
) => Schema.Union<Members>

/** A part type as a Schema's identifier names it: a literal quoted, a pattern (`/^tool-/`) as written. */
const typeName = (t: string | RegExp): string => typeof t === "string" ? JSON.stringify(t) : String(t)

/** Whether part type `t` is one of `types` (a literal, or a pattern: `tool-<name>`, `data-<name>`). */
const known = (types: ReadonlyArray<string | RegExp>, t: string): boolean =>
  types.some((k) => typeof k === "string" ? k === t : k.test(t))

/** The strict reader's {@link Open}: only the listed part types. @internal */
export const closed: Open = (members, types) =>
  Schema.Union(members).annotate({ identifier: `a part of type ${types.map(typeName).join(" | ")}` })

const opened: Open = (members, types) =>
  Schema.Union([
    ...members,
    Schema.StructWithRest(
      Schema.Struct({
        type: Schema.String.check(
          Schema.makeFilter((t: string) =>
            known(types, t) ? `${JSON.stringify(t)} is a known type: its fields are as above` : true
          )
        )
      }),
      [JsonRecord]
    ).annotate({ identifier: `a part of another type than ${types.map(typeName).join(", ")}` })
  ]) as unknown as Schema.Union<typeof members>

/** A message to render, with the name of the call its tool call id answers. @internal */
export type Rendered = Core.Rendered<Message.Message>

/**
 * A provider format on this line: the core's conversions, the Schema of one
 * item made with an {@link Open} (so both readers come from one
 * declaration), and the key and values that tell its items apart (`role`),
 * named when an item has none of them.
 *
 * @internal
 */
export interface Format<Item> extends Core.Format<Item, Message.Message> {
  readonly item: (open: Open) => Schema.Codec<Item, unknown>
  readonly tag?: { readonly key: string; readonly values: ReadonlyArray<string> }
}

interface Readers {
  readonly lenient: Schema.Codec<unknown, unknown>
  readonly strict: Schema.Codec<unknown, unknown>
}

const readers = new WeakMap<object, Readers>()

const readersOf = <Item>(format: Format<Item>): Readers => {
  let found = readers.get(format)
  if (found === undefined) {
    found = {
      lenient: format.item(opened) as Schema.Codec<unknown, unknown>,
      strict: format.item(closed) as Schema.Codec<unknown, unknown>
    }
    readers.set(format, found)
  }
  return found
}

const isRecord = (u: unknown): u is { readonly [key: string]: unknown } =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** Why item `item` is not one of the format's (its tag missing or unknown), or `undefined`. */
const tagProblem = <Item>(format: Format<Item>, item: unknown, at: string): string | undefined => {
  const tag = format.tag
  if (tag === undefined || !isRecord(item)) return undefined
  const path = under(at, tag.key)
  if (!Object.hasOwn(item, tag.key)) return `${path}: Missing key`
  const value = item[tag.key]
  if (typeof value === "string" && tag.values.includes(value)) return undefined
  return `${path}: Expected ${tag.values.map((v) => JSON.stringify(v)).join(" | ")}, actual ${formatValue(value)}`
}

/**
 * Reads `input` as an array of the format's items (lenient unless `strict`),
 * the first wrong item named under the path `at`: its unknown tag, or its
 * issues. A lenient read keeps the keys the Schema does not model
 * (`core/formats/engine.ts` `preserve`).
 *
 * @internal
 */
export const decodeItems = <Item>(
  format: Format<Item>,
  input: unknown,
  strict: boolean,
  at: ReadonlyArray<string>
): Core.Outcome<ReadonlyArray<Item>> => {
  const prefix = at.join(".")
  if (!Array.isArray(input)) {
    return {
      error: { description: `${prefix === "" ? "" : `${prefix}: `}Expected array, actual ${formatValue(input)}` }
    }
  }
  const { lenient, strict: closedReader } = readersOf(format)
  const schema = strict ? closedReader : lenient
  const options = strict ? { onExcessProperty: "error" as const } : {}
  const out: Array<Item> = []
  for (let i = 0; i < input.length; i++) {
    const decoded = Schema.decodeUnknownResult(schema)(input[i], options)
    const at = `${prefix}[${i}]`
    if (Result.isFailure(decoded)) {
      const issue: SchemaIssue.Issue = decoded.failure.issue
      return {
        error: {
          description: tagProblem(format, input[i], at) ?? describe(issue, at, { value: input[i] }),
          cause: decoded.failure
        }
      }
    }
    out.push((strict ? decoded.success : Core.preserve(input[i], decoded.success)) as Item)
  }
  return { ok: out }
}

const build = (role: string, content: string, fields: Core.Fields): Message.Message | string => {
  try {
    return Message.make(role, content, fields)
  } catch (error) {
    return error instanceof Error && "description" in error ? String(error.description) : String(error)
  }
}

/** The core's message constructor on this line: `Message.make`. @internal */
export const make: Core.Make<Message.Message> = (role, content, fields) => Message.make(role, content, fields)

const lines = new WeakMap<object, Core.Line<unknown, Message.Message>>()

const lineOf = <Item>(format: Format<Item>): Core.Line<Item, Message.Message> => {
  let line = lines.get(format)
  if (line === undefined) {
    line = {
      read: (input, strict, at) => decodeItems(format, input, strict, at),
      build
    }
    lines.set(format, line as Core.Line<unknown, Message.Message>)
  }
  return line as Core.Line<Item, Message.Message>
}

/** The core's `read` of `format`'s items (its Schema, lenient unless `strict`). @internal */
export const readOf = <Item>(format: Format<Item>): Core.Line<Item, Message.Message>["read"] => lineOf(format).read

/** The `AdapterError` of a core failure. @internal */
export const adapterError = (format: string, failure: Core.Failure): AdapterError =>
  new AdapterError({
    format,
    description: failure.description,
    ...(failure.violations === undefined ? {} : { violations: failure.violations }),
    ...(failure.cause === undefined ? {} : { cause: failure.cause })
  })

/** A core outcome as a `Result`. @internal */
export const toResult = <A>(format: string, outcome: Core.Outcome<A>): Result.Result<A, AdapterError> =>
  Core.failed(outcome) ? Result.fail(adapterError(format, outcome.error)) : Result.succeed(outcome.ok)

/** {@link decode}'s core outcome (for a request with several parts). @internal */
export const decodeOutcome = <Item>(
  format: Format<Item>,
  input: unknown,
  options?: DecodeOptions,
  at: ReadonlyArray<string> = []
): Core.Outcome<Array<Message.Message>> => Core.decode(format, lineOf(format), input, options?.strict === true, at)

/** {@link encode}'s core outcome (for a request with several parts). @internal */
export const encodeOutcome = <Item>(
  format: Format<Item>,
  messages: ReadonlyArray<Message.Message>,
  offset = 0
): Core.Outcome<Array<Item>> => Core.encode(format, lineOf(format).read, messages, offset)

/**
 * A decoder of a request with several parts (`{ system?, messages }`) from
 * any JSON input: other keys refused, what is wrong an `AdapterError` of
 * `format` naming the path.
 *
 * @internal
 */
export const requestDecoder = <S extends Schema.Codec<unknown, unknown>>(schema: S, format: string) => {
  const decodeUnknown = Schema.decodeUnknownResult(schema)
  return (input: unknown): Result.Result<S["Type"], AdapterError> => {
    const value = Core.plain(input)
    const decoded = decodeUnknown(value, { onExcessProperty: "error" })
    return Result.isFailure(decoded)
      ? Result.fail(
        new AdapterError({
          format,
          description: describe(decoded.failure.issue, "", { value }),
          cause: decoded.failure
        })
      )
      : Result.succeed(decoded.success)
  }
}

/** Reads provider items into rollmem messages (`core/formats/engine.ts` `decode`). @internal */
export const decode = <Item>(
  format: Format<Item>,
  input: unknown,
  options?: DecodeOptions,
  at: ReadonlyArray<string> = []
): Result.Result<Array<Message.Message>, AdapterError> =>
  toResult(format.name, Core.decode(format, lineOf(format), input, options?.strict === true, at))

/** Writes rollmem messages as provider items (`core/formats/engine.ts` `encode`). @internal */
export const encode = <Item>(
  format: Format<Item>,
  messages: ReadonlyArray<Message.Message>,
  offset = 0
): Result.Result<Array<Item>, AdapterError> =>
  toResult(format.name, Core.encode(format, lineOf(format).read, messages, offset))

/** {@link encode} after the checks (`core/formats/engine.ts` `encodeChecked`). @internal */
export const encodeChecked = <Item>(
  format: Format<Item>,
  messages: ReadonlyArray<Message.Message>,
  provider: Validity.Provider,
  options: CheckOptions | undefined
): Result.Result<Array<Item>, AdapterError> =>
  toResult(format.name, Core.encodeChecked(format, lineOf(format).read, make, messages, provider, options))

/** The refusal of what is not rollmem messages. @internal */
export const notMessages = (format: string, messages: unknown): AdapterError | undefined => {
  const refused = Core.notMessages(messages)
  return refused === undefined ? undefined : new AdapterError({ format, description: refused })
}

/** The context with every tool call id used once. @internal */
export const uniqueCallIds = (messages: ReadonlyArray<Message.Message>): ReadonlyArray<Message.Message> =>
  Core.uniqueCallIds(messages, make)

/** A memory's read-back as the target takes it. @internal */
export const arrange = (
  messages: ReadonlyArray<Message.Message>,
  provider: Validity.Provider,
  options: CheckOptions | undefined
): ReadonlyArray<Message.Message> => Core.arrange(messages, provider, options, make)

/** The `AdapterError` for the violations a provider rejects, if any. @internal */
export const check = (
  format: string,
  messages: ReadonlyArray<Message.Message>,
  provider: Validity.Provider,
  options: CheckOptions | undefined
): AdapterError | undefined => {
  const failure = Core.check(format, messages, provider, options)
  return failure === undefined ? undefined : adapterError(format, failure)
}

/** The value of a `Result`, or its `AdapterError` thrown (the plain `to…` / `from…`). @internal */
export const orThrow = <A>(result: Result.Result<A, AdapterError>): A => {
  if (Result.isFailure(result)) throw result.failure
  return result.success
}

/** A `Result` as an effect, suspended (nothing runs until the effect does). @internal */
export const suspended = <A>(run: () => Result.Result<A, AdapterError>): Effect.Effect<A, AdapterError> =>
  Effect.suspend(() => {
    const result = run()
    return Result.isFailure(result) ? Effect.fail(result.failure) : Effect.succeed(result.success)
  })
