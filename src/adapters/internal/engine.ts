/**
 * The conversion engine every provider adapter runs on: the Effect 3 shell
 * of `core/formats/engine.ts` (the pure conversions, shared with the Effect 4
 * line). Here are what needs Effect's Schema: reading a format's items
 * (lenient: a key or part type the format does not model kept; strict:
 * refused), a request with several parts, and the `AdapterError` and
 * `Effect` forms of the core's outcomes.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"
import * as Core from "../../core/formats/engine.js"
import type * as Validity from "../../core/validity.js"
import * as Message from "../../schema/Message.js"
import { formatParseError } from "../../schema/ParseIssue.js"
import { AdapterError, type CheckOptions, type DecodeOptions } from "../AdapterError.js"

export {
  ANY,
  type DeriveContext,
  type Draft,
  type DraftCall,
  joinText,
  type Json,
  leadingSystem,
  madeUpCall,
  madeUpResult,
  markerOf,
  MEDIA_TOKENS,
  messageLabel,
  METADATA_KEY,
  parseJson,
  parseObject,
  plain,
  stringify,
  textEstimate
} from "../../core/formats/engine.js"

/** Any JSON value, checked (no function, no undefined inside, no cycle is expected from decoded JSON). @internal */
export const JsonSchema: Schema.Schema<Core.Json> = Schema.declare(
  (u: unknown): u is Core.Json => Core.isJson(u, 0),
  { identifier: "JSON value", description: "a JSON value" }
)

/** A JSON object with JSON values. @internal */
export const JsonRecord = Schema.Record({ key: Schema.String, value: JsonSchema })

/** A mutable array schema: the SDKs' request types take `Array<T>`, not `ReadonlyArray<T>`. @internal */
export const Arr = <A, I, R>(item: Schema.Schema<A, I, R>) => Schema.mutable(Schema.Array(item))

/**
 * An optional field that, when present, holds a value (never `undefined`):
 * the SDKs' types are `name?: string`, which a `string | undefined` does not
 * satisfy under `exactOptionalPropertyTypes`.
 *
 * @internal
 */
export const Opt = <A, I, R>(schema: Schema.Schema<A, I, R>) => Schema.optionalWith(schema, { exact: true })

/** A message to render, with the name of the call its tool call id answers (`""` when unknown). @internal */
export type Rendered = Core.Rendered<Message.Message>

/** A provider format: the core's conversions with the Schema of its items. @internal */
export interface Format<Item> extends Core.Format<Item, Message.Message> {
  // the encoded side varies per format and is never used here (Schema is invariant in it)
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly item: Schema.Schema<Item, any>
}

const parseOptions = { errors: "first", onExcessProperty: "error" } as const
const lenientOptions = { errors: "first", onExcessProperty: "preserve" } as const

const OPEN: unique symbol = Symbol.for("rollmem/adapters/open")

/**
 * Marks a union of typed parts (structs with a literal `type`) as open: a
 * lenient reader also takes a part of another `type`, kept verbatim.
 *
 * @internal
 */
export const open = <S extends Schema.Schema.Any>(union: S): S => union.annotations({ [OPEN]: true }) as S

// A part's `type` as a literal, or as a pattern (`tool-${string}`, `data-${string}`).
const literalsOf = (ast: AST.AST): Array<string | RegExp> =>
  AST.isLiteral(ast) && typeof ast.literal === "string"
    ? [ast.literal]
    : AST.isTemplateLiteral(ast)
    ? [AST.getTemplateLiteralRegExp(ast)]
    : AST.isUnion(ast)
    ? ast.types.flatMap(literalsOf)
    : []

const typesOf = (ast: AST.AST): Array<string | RegExp> => {
  if (AST.isUnion(ast)) return ast.types.flatMap(typesOf)
  if (!AST.isTypeLiteral(ast)) return []
  const type = ast.propertySignatures.find((p) => p.name === "type")
  return type === undefined ? [] : literalsOf(type.type)
}

/** A part of a `type` none of `known`: any JSON object with a string `type`, kept whole. */
const other = (known: ReadonlyArray<string | RegExp>): AST.AST =>
  Schema.Struct(
    {
      type: Schema.String.pipe(
        Schema.filter((t) => !known.some((k) => typeof k === "string" ? k === t : k.test(t)), {
          message: (issue) =>
            `${JSON.stringify((issue as ParseResult.Type).actual)} is a known type: its fields are as above`
        })
      )
    },
    Schema.Record({ key: Schema.String, value: JsonSchema })
  ).annotations({
    identifier: `a part of another type than ${
      known.map((t) => typeof t === "string" ? JSON.stringify(t) : String(t)).join(", ")
    }`
  }).ast

/** `ast` with every union marked {@link open} taking parts of other types too (unchanged nodes kept). */
const opened = (ast: AST.AST): AST.AST => {
  switch (ast._tag) {
    case "Union": {
      const types = ast.types.map(opened)
      if (ast.annotations[OPEN] === true) {
        return AST.Union.make([...types, other(types.flatMap(typesOf))], ast.annotations)
      }
      return types.some((t, i) => t !== ast.types[i]) ? AST.Union.make(types, ast.annotations) : ast
    }
    case "TypeLiteral": {
      const props = ast.propertySignatures.map((p) => {
        const type = opened(p.type)
        return type === p.type ? p : new AST.PropertySignature(p.name, type, p.isOptional, p.isReadonly, p.annotations)
      })
      const indexes = ast.indexSignatures.map((s) => {
        const type = opened(s.type)
        return type === s.type ? s : new AST.IndexSignature(s.parameter, type, s.isReadonly)
      })
      return props.some((p, i) => p !== ast.propertySignatures[i]) ||
          indexes.some((s, i) => s !== ast.indexSignatures[i])
        ? new AST.TypeLiteral(props, indexes, ast.annotations)
        : ast
    }
    case "TupleType": {
      const elements = ast.elements.map((e) => {
        const type = opened(e.type)
        return type === e.type ? e : new AST.OptionalType(type, e.isOptional, e.annotations)
      })
      const rest = ast.rest.map((r) => {
        const type = opened(r.type)
        return type === r.type ? r : new AST.Type(type, r.annotations)
      })
      return elements.some((e, i) => e !== ast.elements[i]) || rest.some((r, i) => r !== ast.rest[i])
        ? new AST.TupleType(elements, rest, ast.isReadonly, ast.annotations)
        : ast
    }
    case "Refinement": {
      const from = opened(ast.from)
      return from === ast.from ? ast : new AST.Refinement(from, ast.filter, ast.annotations)
    }
    case "Transformation": {
      const from = opened(ast.from)
      const to = opened(ast.to)
      return from === ast.from && to === ast.to
        ? ast
        : new AST.Transformation(from, to, ast.transformation, ast.annotations)
    }
    default:
      return ast
  }
}

const lenientCache = new WeakMap<AST.AST, AST.AST>()

/** The array of `item` as a lenient reader decodes it (see the module docs). */
const lenientArray = <Item>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  item: Schema.Schema<Item, any>
): Schema.Schema<ReadonlyArray<Item>, unknown> => {
  let ast = lenientCache.get(item.ast)
  if (ast === undefined) {
    ast = opened(Schema.Array(item).ast)
    lenientCache.set(item.ast, ast)
  }
  return Schema.make<ReadonlyArray<Item>, unknown, never>(ast)
}

/** Decodes `input` as an array of `item` (lenient unless `strict`), errors named under the path `at`. */
const decodeItems = <Item>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  item: Schema.Schema<Item, any>,
  input: unknown,
  strict: boolean,
  at: ReadonlyArray<string>
): Either.Either<ReadonlyArray<Item>, ParseResult.ParseError> => {
  const array: Schema.Schema<ReadonlyArray<Item>, unknown> = strict
    ? Schema.Array(item) as Schema.Schema<ReadonlyArray<Item>, unknown>
    : lenientArray(item)
  const options = strict ? parseOptions : lenientOptions
  if (at.length === 0) return Schema.decodeUnknownEither(array)(input, options)
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let schema: Schema.Schema<any, any> = array
  let value: unknown = input
  for (let i = at.length - 1; i >= 0; i--) {
    schema = Schema.Struct({ [at[i]]: schema })
    value = { [at[i]]: value }
  }
  return Either.map(Schema.decodeUnknownEither(schema)(value, options), (decoded) => {
    let out = decoded
    for (const key of at) out = out[key]
    return out as ReadonlyArray<Item>
  })
}

/** The core's `read` of `format`'s items (its Schema, lenient unless `strict`). @internal */
export const readOf = <Item>(format: Format<Item>): Core.Line<Item, Message.Message>["read"] => cachedLine(format).read

/** The core's line for `format`: its items read with its Schema, messages built with `Message.decodeFields`. */
const lineOf = <Item>(format: Format<Item>): Core.Line<Item, Message.Message> => ({
  read: (input, strict, at) => {
    const decoded = decodeItems(format.item, input, strict, at)
    return Either.isLeft(decoded)
      ? { error: { description: formatParseError(decoded.left), cause: decoded.left } }
      : { ok: decoded.right }
  },
  build
})

const build = (role: string, content: string, fields: Core.Fields): Message.Message | string => {
  const built = Message.decodeFields(role, content, fields)
  return Either.isLeft(built) ? built.left.description : built.right
}

/** The core's message constructor on this line: `Message.make`. @internal */
export const make: Core.Make<Message.Message> = (role, content, fields) => Message.make(role, content, fields)

const lines = new WeakMap<Format<unknown>, Core.Line<unknown, Message.Message>>()

const cachedLine = <Item>(format: Format<Item>): Core.Line<Item, Message.Message> => {
  let line = lines.get(format as Format<unknown>)
  if (line === undefined) {
    line = lineOf(format as Format<unknown>)
    lines.set(format as Format<unknown>, line)
  }
  return line as Core.Line<Item, Message.Message>
}

/** A core outcome as an `Either` of `AdapterError`. @internal */
export const toEither = <A>(format: string, outcome: Core.Outcome<A>): Either.Either<A, AdapterError> =>
  Core.failed(outcome) ? Either.left(adapterError(format, outcome.error)) : Either.right(outcome.ok)

/** The `AdapterError` of a core failure. @internal */
export const adapterError = (format: string, failure: Core.Failure): AdapterError =>
  new AdapterError({
    format,
    description: failure.description,
    ...(failure.violations === undefined ? {} : { violations: failure.violations }),
    ...(failure.cause === undefined ? {} : { cause: failure.cause })
  })

/** {@link decode}'s core outcome (for a request with several parts). @internal */
export const decodeOutcome = <Item>(
  format: Format<Item>,
  input: unknown,
  options?: DecodeOptions,
  at: ReadonlyArray<string> = []
): Core.Outcome<Array<Message.Message>> => Core.decode(format, cachedLine(format), input, options?.strict === true, at)

/** {@link encode}'s core outcome (for a request with several parts). @internal */
export const encodeOutcome = <Item>(
  format: Format<Item>,
  messages: ReadonlyArray<Message.Message>,
  offset = 0
): Core.Outcome<Array<Item>> => Core.encode(format, cachedLine(format).read, messages, offset)

/**
 * Reads provider items into rollmem messages (see `core/formats/engine.ts`).
 *
 * @internal
 */
export const decode = <Item>(
  format: Format<Item>,
  input: unknown,
  options?: DecodeOptions,
  at: ReadonlyArray<string> = []
): Either.Either<Array<Message.Message>, AdapterError> =>
  toEither(format.name, Core.decode(format, cachedLine(format), input, options?.strict === true, at))

/**
 * The refusal of what is not rollmem messages (see `core/formats/engine.ts`). @internal
 */
export const notMessages = (format: string, messages: unknown): AdapterError | undefined => {
  const refused = Core.notMessages(messages)
  return refused === undefined ? undefined : new AdapterError({ format, description: refused })
}

/**
 * Writes rollmem messages as provider items (see `core/formats/engine.ts`).
 * The public writers check their input once with {@link notMessages} first
 * ({@link encodeChecked} does).
 *
 * @internal
 */
export const encode = <Item>(
  format: Format<Item>,
  messages: ReadonlyArray<Message.Message>,
  offset = 0
): Either.Either<Array<Item>, AdapterError> =>
  toEither(format.name, Core.encode(format, cachedLine(format).read, messages, offset))

/** Options every checked `to…` takes (the public {@link CheckOptions}) and every `from…` ({@link DecodeOptions}). @internal */
export type { CheckOptions, DecodeOptions }

/**
 * A decoder of a request with several parts (`{ system?, messages }`,
 * `{ systemInstruction?, contents }`) from any JSON input: other keys
 * refused, the first wrong path an `AdapterError` of `format`.
 *
 * @internal
 */
export const requestDecoder = <A, I>(
  schema: Schema.Schema<A, I>,
  format: string
): (input: unknown) => Either.Either<A, AdapterError> => {
  const decodeEither = Schema.decodeUnknownEither(schema)
  return (input) =>
    Either.mapLeft(
      decodeEither(Core.plain(input), { errors: "first", onExcessProperty: "error" }),
      (error) => new AdapterError({ format, description: formatParseError(error), cause: error })
    )
}

/** The context with every tool call id used once (see `core/formats/engine.ts`). @internal */
export const uniqueCallIds = (messages: ReadonlyArray<Message.Message>): ReadonlyArray<Message.Message> =>
  Core.uniqueCallIds(messages, make)

/** A memory's read-back as the target takes it (see `core/formats/engine.ts`). @internal */
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

/** {@link encode} after {@link check}. @internal */
export const encodeChecked = <Item>(
  format: Format<Item>,
  messages: ReadonlyArray<Message.Message>,
  provider: Validity.Provider,
  options: CheckOptions | undefined
): Either.Either<Array<Item>, AdapterError> =>
  toEither(format.name, Core.encodeChecked(format, cachedLine(format).read, make, messages, provider, options))

/**
 * What an adapter module exports, built from its Either forms: the Effect
 * functions `decode` / `encode`, suspended (nothing runs until the effect
 * does) and never asynchronous (the plain `to…` / `from…` run them at once).
 *
 * @internal
 */
export interface Codec<Request, Options> {
  readonly decode: (input: unknown, options?: DecodeOptions) => Effect.Effect<Array<Message.Message>, AdapterError>
  readonly encode: (
    messages: ReadonlyArray<Message.Message>,
    options?: Options
  ) => Effect.Effect<Request, AdapterError>
}

/** A {@link Codec} from a module's own Either forms (a request with several parts). @internal */
export const codec = <Request, Options>(
  decodeEither: (input: unknown, options?: DecodeOptions) => Either.Either<Array<Message.Message>, AdapterError>,
  encodeEither: (messages: ReadonlyArray<Message.Message>, options?: Options) => Either.Either<Request, AdapterError>
): Codec<Request, Options> => ({
  decode: (input, options) => Effect.suspend(() => decodeEither(input, options)),
  encode: (messages, options) => Effect.suspend(() => encodeEither(messages, options))
})

/**
 * The {@link Codec} of a format whose request is the list of its items,
 * checked with `Validity` before writing unless `check: false`, by the
 * rules of `provider` (the format's target; the options' `provider` wins).
 *
 * @internal
 */
export const listCodec = <Item>(
  format: Format<Item>,
  provider: Validity.Provider = "openai"
): Codec<Array<Item>, CheckOptions> =>
  codec(
    (input, options) => decode(format, input, options),
    (messages, options) => encodeChecked(format, messages, provider, options)
  )
