/**
 * The options of every strategy as Effect Schemas, decoded once by every
 * entry point (the Effect constructors, `Memory.make`, the Promise facade,
 * stored conversations, the cluster entity, the command line), and the one
 * mapping of a failed decode to `ConfigError`. The rules themselves
 * (ranges, cross-field rules) are the plain functions of `core/options.ts`;
 * the schemas call them, so a message reads the same whichever entry point
 * refused the value (`invalid option targetTokens: must be at most
 * maxTokens (100), got 101`).
 *
 * Adding an option: one field in the strategy's fields below (its rule in
 * `core/options.ts`), its policy code in the builder, and, when the command
 * line sets it, one row of {@link flags}. See docs/architecture.md, "How to
 * add an option".
 *
 * @example
 * ```ts
 * import { Either } from "effect"
 * import { Options } from "rollmem"
 *
 * const checked = Options.decode(Options.RollingOptions, { maxTokens: 100, targetTokens: 101 })
 * // Either.left(ConfigError: invalid option targetTokens: must be at most maxTokens (100), got 101)
 * Either.isLeft(checked)
 * ```
 *
 * @since 0.4.0
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as AST from "effect/SchemaAST"
import * as Rules from "../core/options.js"
import { type AddError, ConfigError } from "../Errors.js"
import { isDecoded, markDecoded } from "../internal/decoded.js"
import type * as Archive from "../services/Archive.js"

/** A schema whose values pass `check` (or are `undefined`): the message is the rule's. */
const checked = <A>(check: Rules.Check): Schema.Schema<A | undefined> =>
  Schema.declare((u: unknown): u is A | undefined => u === undefined || check(u) === undefined, {
    message: (issue) => check((issue as ParseResult.Type).actual) ?? "is invalid"
  })

/**
 * An optional field of an options schema, checked by the rule `check`
 * (`core/options.ts`), whose description is the message; `undefined` stands
 * for absent.
 *
 * @example
 * ```ts
 * import { Either } from "effect"
 * import { Options } from "rollmem"
 *
 * const label = (u: unknown) => typeof u === "string" ? undefined : `must be a string, got ${typeof u}`
 * const Tagged = Options.struct({ tag: Options.optional<string>(label) }, undefined)
 * Options.decode(Tagged, {}) // Either.right({})
 * Options.decode(Tagged, { tag: 1 }) // Either.left(ConfigError: invalid option tag: must be a string, got number)
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const optional = <A>(check: Rules.Check) => Schema.optionalWith(checked<A>(check), { exact: true })

/**
 * A required field of an options schema, checked by the rule `check`: absent
 * reads as the rule describes `undefined` (`must be a positive integer, got
 * undefined`).
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 *
 * const positive = (u: unknown) => typeof u === "number" && u > 0 ? undefined : `must be positive, got ${String(u)}`
 * const Budget = Options.struct({ budget: Options.required<number>(positive) }, undefined)
 * Options.decode(Budget, {}) // Either.left(ConfigError: invalid option budget: must be positive, got undefined)
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const required = <A>(check: Rules.Check) =>
  Schema.propertySignature(
    Schema.declare((u: unknown): u is A => check(u) === undefined, {
      message: (issue) => check((issue as ParseResult.Type).actual) ?? "is invalid"
    })
  ).annotations({ missingMessage: () => check(undefined) ?? "is missing" })

const choice = <A extends string>(choices: ReadonlyArray<A>) => optional<A>(Rules.oneOf(choices))

/**
 * Tool-result clearing (docs/contract.md section 10.5): `keep` (the most
 * recent results spared, a non-negative integer), `placeholder` (default
 * `"[tool result cleared]"`), `until` (`"budget"`, default, or `"target"`),
 * `atLeast` (a pass of clearing stands only when it frees at least this many
 * tokens, a positive integer; default none), `exclude` (the names of tools
 * whose results are never cleared; default none).
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 *
 * Options.decode(Options.ClearToolResults, { keep: 3, until: "target" }) // Either.right({ keep: 3, until: "target" })
 * Options.decode(Options.ClearToolResults, { keep: -1 }) // Either.left(ConfigError: invalid option keep: must be a non-negative integer, got -1)
 * ```
 *
 * @since 0.4.0
 * @category schemas
 */
export const ClearToolResults = Schema.Struct({
  keep: required<number>(Rules.nonNegativeInteger),
  placeholder: optional<string>(Rules.string),
  until: choice(Rules.clearUntils),
  atLeast: optional<number>(Rules.positiveInteger),
  exclude: optional<ReadonlyArray<string>>(Rules.toolNames)
}).annotations({ message: (issue) => Rules.clearToolResults((issue as ParseResult.Type).actual) ?? "is invalid" })

/**
 * The artifact ledger (docs/contract.md section 14.2): on each fold the
 * artifacts of the evicted turns (file paths, URLs, e-mail addresses,
 * identifiers: `Retention`) are merged into a section at the end of the
 * summary, newest first, within `maxTokens` (a positive integer, counted
 * with the memory's counter; below `maxSummaryTokens` when that is given:
 * the summarizer gets the rest). `patterns` replaces the default patterns
 * (`Retention.defaultPatterns`; extend them by spreading them first).
 *
 * @example
 * ```ts
 * import { Options, Retention } from "rollmem"
 *
 * Options.decode(Options.LedgerOptions, { maxTokens: 1000 }) // Either.right({ maxTokens: 1000 })
 * // the default patterns and one more kind of artifact
 * Options.decode(Options.LedgerOptions, {
 *   maxTokens: 500,
 *   patterns: [...Retention.defaultPatterns, { kind: "ticket", regex: /\bJIRA-\d+\b/g }]
 * })
 * ```
 *
 * @since 0.4.0
 * @category schemas
 */
export const LedgerOptions = Schema.Struct({
  maxTokens: required<number>(Rules.positiveInteger),
  patterns: optional<ReadonlyArray<{ readonly kind: string; readonly regex: RegExp }>>(Rules.ledgerPatterns)
}).annotations({ message: (issue) => Rules.ledger((issue as ParseResult.Type).actual) ?? "is invalid" })

/**
 * A whole-request budget (docs/contract.md section 16.1): `tokens`, the
 * model's context window (a positive integer), and `reserveTokens`, the room
 * kept for what the memory does not hold (tool definitions, instructions
 * sent apart, the answer; a non-negative integer below `tokens`; default 0,
 * as the command line's `--reserve`).
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 *
 * // the window's rules hold where it is used: the reserve is below the window
 * Options.decode(Options.RollingOptions, { contextWindow: { tokens: 128000, reserveTokens: 200000 } })
 * // Either.left(ConfigError: invalid option contextWindow.reserveTokens:
 * //   must be less than contextWindow.tokens (128000), got 200000)
 * ```
 *
 * @since 0.3.0
 * @category schemas
 */
export const ContextWindow = Schema.Struct({
  tokens: required<number>(Rules.positiveInteger),
  reserveTokens: optional<number>(Rules.nonNegativeInteger)
}).annotations({ message: (issue) => Rules.contextWindow((issue as ParseResult.Type).actual) ?? "is invalid" })

/**
 * The fields of a RollingMemory that a stored conversation takes too (every
 * one but the background-folding ones), each documented on
 * {@link RollingOptions}.
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 *
 * Object.keys(Options.rollingFields).length // 13: maxTokens, contextWindow, targetTokens, ..., ledger
 * ```
 *
 * @since 0.4.0
 * @category schemas
 */
export const rollingFields = {
  /** Token budget of the buffer: a positive integer, default 2000. */
  maxTokens: optional<number>(Rules.positiveInteger),
  /**
   * The whole request's budget instead of `maxTokens` (docs/contract.md
   * section 16.1), see {@link ContextWindow}: at each add the buffer's budget
   * is the window less the reserve, the pinned messages and the summary;
   * `targetTokens` is then a low-water mark of the whole context. Never with
   * `maxTokens`; blocking folds only.
   */
  contextWindow: Schema.optional(ContextWindow),
  /**
   * The low-water mark, in tokens (docs/contract.md section 10.1): a prune
   * starts when the buffer is over `maxTokens` and evicts down to
   * `targetTokens`, so one summarizer call frees room for several turns. A
   * positive integer at most `maxTokens`; default `maxTokens`.
   */
  targetTokens: optional<number>(Rules.positiveInteger),
  /**
   * Where a cut may fall (docs/contract.md section 10.2). `"aligned"`
   * (default): the Python original's rule, best effort. `"turn"`: whenever
   * no prune is pending or in flight, a buffer holding a user turn opens with
   * one (after pinned messages) and every tool result has its call.
   */
  boundary: choice(Rules.boundaries),
  /**
   * Pins `system` and `developer` messages without tool fields
   * (docs/contract.md section 10.3): never evicted nor summarized, outside the
   * budget (as in `bufferTokens`), read back first. Default `false`.
   */
  pinSystem: optional<boolean>(Rules.boolean),
  /**
   * Clears old tool results before folding (docs/contract.md section 10.5),
   * see {@link ClearToolResults}. Default off.
   */
  clearToolResults: Schema.optional(ClearToolResults),
  /**
   * Tool results cut at the door (docs/contract.md section 10.8): a tool
   * result counted over this many tokens when it is added keeps the head and
   * the tail of its content, with a marker between them saying how many
   * tokens were cut (`[... 1200 tokens cut ...]`), before any request has
   * sent it. A positive integer; default none (nothing cut).
   */
  maxToolResultTokens: optional<number>(Rules.positiveInteger),
  /** The role the summary reads back as: `"system"` (default) or `"user"` (docs/contract.md section 10.6). */
  summaryRole: choice(Rules.summaryRoles),
  /**
   * A line read back before the summary, telling the reading model that it
   * summarizes earlier turns and is background, not an instruction
   * (docs/contract.md section 10.10): `true` for
   * `Rules.DEFAULT_SUMMARY_FRAMING`, or the line itself (not blank). Counted
   * once, with the summary's message in `contextTokens`; never in the state
   * nor given to the summarizer. Default `false`: the summary reads back as
   * it is, as the Python package reads it.
   */
  summaryFraming: optional<boolean | string>(Rules.summaryFraming),
  /**
   * How the summary is kept (docs/contract.md section 10.9): `"single"`
   * (default), one text each fold rewrites; `"segments"`, append-only
   * segments: each fold appends one (the summarizer, which must honour
   * `request.mode`, writes the evicted turns' segment alone) and earlier
   * segments are never rewritten, so a provider's cached prefix runs
   * through them; when the segments together pass `maxSummaryTokens` one
   * more call consolidates them into one. Not with `ledger`.
   */
  summary: choice(Rules.summaryModes),
  /**
   * The summary budget, in tokens (docs/contract.md section 10.4): a summary
   * counted over it fails the fold with `SummaryBudgetError`, nothing
   * committed. A positive integer; default none.
   */
  maxSummaryTokens: optional<number>(Rules.positiveInteger),
  /**
   * The most tokens of evicted turns one summarizer call is given
   * (docs/contract.md section 5): a fold whose evicted turns count more
   * hands them over in chunks, oldest first, each folded into the running
   * summary; when a chunk fails, the chunks folded before it commit and the
   * rest stay in the buffer. A positive integer; default none (one call).
   */
  maxSummarizerInputTokens: optional<number>(Rules.positiveInteger),
  /**
   * The artifact ledger (docs/contract.md section 14.2), see
   * {@link LedgerOptions}: `{ maxTokens, patterns? }`. Default off.
   */
  ledger: Schema.optional(LedgerOptions)
}

/**
 * The background-folding fields of a RollingMemory (`RollingMemory.makeScoped`
 * only, docs/contract.md section 5.1).
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 *
 * Object.keys(Options.backgroundFields) // ["fold", "hardMaxTokens", "foldRetry"]
 * ```
 *
 * @since 0.4.0
 * @category schemas
 */
export const backgroundFields = {
  /**
   * When folds run. `"blocking"` (default): an add that must prune
   * completes after its fold. `"background"`: an add completes once its turn
   * is counted and appended; the folds run one at a time in a fiber owned by
   * the memory's scope (`makeScoped` only), with a `Summarizer`.
   */
  fold: choice(Rules.foldModes),
  /**
   * With `fold: "background"`: the hard cap of the buffer, in tokens
   * (pinned messages aside, like `maxTokens`), a positive integer at least
   * `maxTokens`; default twice `maxTokens` (docs/contract.md section 5.1).
   */
  hardMaxTokens: optional<number>(Rules.positiveInteger),
  /** With `fold: "background"`: how a failed fold is retried (each attempt re-plans its cutoff). Default: not retried. */
  foldRetry: optional<Schedule.Schedule<unknown, AddError>>((u) =>
    Schedule.isSchedule(u) ? undefined : "must be a Schedule"
  )
}

/**
 * The archive's fields (docs/contract.md section 17), taken by RollingMemory,
 * WindowMemory and SummaryMemory.
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 *
 * Object.keys(Options.archiveFields) // ["archive", "conversationId"]
 * ```
 *
 * @since 0.4.0
 * @category schemas
 */
export const archiveFields = {
  /**
   * Where the messages that leave the buffer go (folded, dropped, evicted by
   * the window, a tool result's content cleared or cut: its original
   * content), each once, with the conversation id and its position; what
   * `recall` searches. An `Archive.Service` (`Archive.makeMemory()`, or the
   * `Archive` of a layer). Default none: nothing is archived and the state
   * keeps no positions.
   */
  archive: optional<Archive.Service>(Rules.archive),
  /**
   * The conversation the memory's state belongs to (a non-empty string),
   * written in the state (version 3 `conversationId`) and naming its
   * archived messages. Default: the restored state's, else, with an
   * archive, a new random id.
   */
  conversationId: optional<string>(Rules.conversationId)
}

/**
 * The fields of a WindowMemory, each documented on {@link WindowOptions}.
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 *
 * Object.keys(Options.windowFields)
 * // ["maxMessages", "targetMessages", "boundary", "pinSystem", "summaryRole", "summaryFraming"]
 * ```
 *
 * @since 0.4.0
 * @category schemas
 */
export const windowFields = {
  /** Most messages kept: a positive integer (required). */
  maxMessages: required<number>(Rules.positiveInteger),
  /** The low-water mark, in messages (docs/contract.md section 10.1): a positive integer at most `maxMessages`. */
  targetMessages: optional<number>(Rules.positiveInteger),
  boundary: rollingFields.boundary,
  pinSystem: rollingFields.pinSystem,
  summaryRole: rollingFields.summaryRole,
  summaryFraming: rollingFields.summaryFraming
}

/**
 * The fields of a BufferMemory.
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 *
 * Object.keys(Options.bufferFields) // ["summaryRole", "summaryFraming"]
 * ```
 *
 * @since 0.4.0
 * @category schemas
 */
export const bufferFields = {
  summaryRole: rollingFields.summaryRole,
  summaryFraming: rollingFields.summaryFraming
}

/**
 * The fields of a SummaryMemory.
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 *
 * Object.keys(Options.summaryFields)
 * // ["summaryRole", "summaryFraming", "summary", "maxSummaryTokens", "maxSummarizerInputTokens", "ledger"]
 * ```
 *
 * @since 0.4.0
 * @category schemas
 */
export const summaryFields = {
  summaryRole: rollingFields.summaryRole,
  summaryFraming: rollingFields.summaryFraming,
  summary: rollingFields.summary,
  maxSummaryTokens: rollingFields.maxSummaryTokens,
  maxSummarizerInputTokens: rollingFields.maxSummarizerInputTokens,
  ledger: rollingFields.ledger
}

/**
 * The fields a memory of each strategy takes, besides `strategy` (what
 * `Memory.make` and a stored conversation take: RollingMemory's without the
 * background-folding ones).
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 *
 * Object.keys(Options.fieldsOf.buffer) // ["summaryRole", "summaryFraming"]
 * ```
 *
 * @since 0.4.0
 * @category schemas
 */
export const fieldsOf = {
  rolling: rollingFields,
  buffer: bufferFields,
  window: windowFields,
  summary: summaryFields
} as const

/**
 * The cross-field rules of a strategy's options (`core/options.ts`), the
 * descriptions naming other options with `name`.
 *
 * @since 0.4.0
 * @category models
 */
export type CrossRule = (options: { readonly [key: string]: unknown }, name: Rules.Naming) => Rules.Problem | undefined

const rollingRule: CrossRule = Rules.rollingRule

const windowRule: CrossRule = Rules.windowRule

const summaryRule: CrossRule = Rules.summaryRule

/**
 * The cross-field rules of each strategy.
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 *
 * Options.rulesOf.window?.({ maxMessages: 10, targetMessages: 20 }, (option) => option)
 * // { option: "targetMessages", description: "must be at most maxMessages (10), got 20" }
 * Options.rulesOf.buffer // undefined: a BufferMemory's options have no cross-field rule
 * ```
 *
 * @since 0.4.0
 * @category constants
 */
export const rulesOf: { readonly [S in Rules.Strategy]: CrossRule | undefined } = {
  rolling: rollingRule,
  buffer: undefined,
  window: windowRule,
  summary: summaryRule
}

/**
 * A struct of `fields` refined by `rule` (its problem reported on the
 * option it names), the descriptions naming options with `name`.
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 *
 * const positive = (u: unknown) => typeof u === "number" && u > 0 ? undefined : `must be positive, got ${String(u)}`
 * const Range = Options.struct(
 *   { low: Options.required<number>(positive), high: Options.required<number>(positive) },
 *   (o) => (o.low as number) <= (o.high as number) ? undefined : { option: "low", description: "must be at most high" }
 * )
 * Options.decode(Range, { low: 5, high: 2 }) // Either.left(ConfigError: invalid option low: must be at most high)
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const struct = <F extends Schema.Struct.Fields>(
  fields: F,
  rule: CrossRule | undefined,
  name: Rules.Naming = Rules.camel
): Schema.Schema<Schema.Struct<F>["Type"], Schema.Struct<F>["Encoded"]> => {
  // every field of an options schema is context-free (its checks are plain functions)
  const base = Schema.Struct(fields) as unknown as Schema.Schema<Schema.Struct<F>["Type"], Schema.Struct<F>["Encoded"]>
  if (rule === undefined) return base
  return base.pipe(Schema.filter((o) => {
    const problem = rule(o as { readonly [key: string]: unknown }, name)
    return problem === undefined ? undefined : { path: [problem.option], message: problem.description }
  }))
}

/**
 * The options of `RollingMemory.make`, `makeScoped`, `fromState`,
 * `fromJSON`: {@link rollingFields} and {@link backgroundFields}, with the
 * rules `targetTokens <= maxTokens`, `hardMaxTokens >= maxTokens`, and the
 * background options needing `fold: "background"`.
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 *
 * Options.decode(Options.RollingOptions, { maxTokens: 4000, targetTokens: 2000 })
 * // Either.right({ maxTokens: 4000, targetTokens: 2000 })
 * Options.decode(Options.RollingOptions, { maxTokens: 1000, targetTokens: 2000 })
 * // Either.left(ConfigError: invalid option targetTokens: must be at most maxTokens (1000), got 2000)
 * ```
 *
 * @since 0.4.0
 * @category schemas
 */
export const RollingOptions = struct({ ...rollingFields, ...backgroundFields, ...archiveFields }, rollingRule)

/**
 * The options of a BufferMemory: `summaryRole`.
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 *
 * Options.decode(Options.BufferOptions, { summaryRole: "tool" })
 * // Either.left(ConfigError: invalid option summaryRole: must be "system" or "user", got "tool")
 * ```
 *
 * @since 0.4.0
 * @category schemas
 */
export const BufferOptions = struct(bufferFields, undefined)

/**
 * The options of a WindowMemory, with the rule `targetMessages <= maxMessages`.
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 *
 * Options.decode(Options.WindowOptions, { maxMessages: 10, targetMessages: 20 })
 * // Either.left(ConfigError: invalid option targetMessages: must be at most maxMessages (10), got 20)
 * ```
 *
 * @since 0.4.0
 * @category schemas
 */
export const WindowOptions = struct({ ...windowFields, ...archiveFields }, windowRule)

/**
 * The options of a SummaryMemory: `summaryRole`, `summary`,
 * `maxSummaryTokens`, `maxSummarizerInputTokens`, `ledger`.
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 *
 * Options.decode(Options.SummaryOptions, { maxSummaryTokens: 0 })
 * // Either.left(ConfigError: invalid option maxSummaryTokens: must be a positive integer, got 0)
 * ```
 *
 * @since 0.4.0
 * @category schemas
 */
export const SummaryOptions = struct({ ...summaryFields, ...archiveFields }, summaryRule)

const decoders = new WeakMap<Schema.Schema.Any, (u: unknown) => Either.Either<unknown, ParseResult.ParseError>>()

const decoderOf = (schema: Schema.Schema.Any) => {
  let decoder = decoders.get(schema)
  if (decoder === undefined) {
    decoder = Schema.decodeUnknownEither(schema as Schema.Schema<unknown, unknown, never>, {
      onExcessProperty: "error"
    })
    decoders.set(schema, decoder)
  }
  return decoder
}

/** The property names of the struct at `path` of `ast`, in declaration order. */
const knownAt = (ast: AST.AST, path: ReadonlyArray<PropertyKey>): ReadonlyArray<string> => {
  let node: AST.AST | undefined = ast
  for (let i = 0; i <= path.length && node !== undefined; i++) {
    while (node._tag === "Refinement" || node._tag === "Transformation") {
      node = node._tag === "Refinement" ? node.from : node.to
    }
    if (node._tag === "Union") node = node.types.find((t) => t._tag === "TypeLiteral")
    if (node === undefined || node._tag !== "TypeLiteral") return []
    if (i === path.length) return node.propertySignatures.map((p) => String(p.name))
    node = node.propertySignatures.find((p) => p.name === path[i])?.type
  }
  return []
}

/**
 * How {@link decode} names what it refuses: `name` names options (in the
 * `ConfigError`'s `option` and in descriptions that mention another one;
 * default as the Effect API writes them), `owner` names whose options they
 * are in an unknown-key description (`for the rolling strategy`).
 *
 * @since 0.4.0
 * @category models
 */
export interface DecodeOptions {
  readonly name?: Rules.Naming | undefined
  readonly owner?: string | undefined
}

/**
 * The `ConfigError` of a failed decode of options: the first issue, named
 * by its path (`clearToolResults.keep`), described by the rule that refused
 * it; an unknown key lists the keys known where it was given.
 *
 * @example
 * ```ts
 * import { Either, Schema } from "effect"
 * import { Options } from "rollmem"
 *
 * const decoded = Schema.decodeUnknownEither(Options.RollingOptions)({ maxTokens: 10, targetTokens: 20 })
 * if (Either.isLeft(decoded)) {
 *   const error = Options.toConfigError(Options.RollingOptions, decoded.left)
 *   error.option // "targetTokens"
 *   error.description // "must be at most maxTokens (10), got 20"
 * }
 * ```
 *
 * @since 0.4.0
 * @category combinators
 */
export const toConfigError = (
  schema: Schema.Schema.Any,
  error: ParseResult.ParseError,
  options?: DecodeOptions
): ConfigError => {
  const name = options?.name ?? Rules.camel
  const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  const path = issue.path.map(String)
  const option = path.length === 0 ? "options" : name(path.join("."))
  if (issue._tag === "Unexpected") {
    const known = knownAt(schema.ast, issue.path.slice(0, -1))
    return new ConfigError({
      option,
      description: Rules.unknownOption(known.map((key) => name(key)), path.length === 1 ? options?.owner : undefined)
    })
  }
  return new ConfigError({ option, description: issue.message })
}

/**
 * Decodes options with `schema`, once: the options as given (keys absent
 * stay absent), or the `ConfigError` naming the first wrong one (`options`
 * for a value that is not an object: `must be an object, got null`; an
 * unknown key, listing the known ones; a value or a cross-field rule the
 * schema refuses). `undefined` decodes as `{}`. Options this decoded
 * already (the result of an earlier decode) are not decoded again.
 *
 * @example
 * ```ts
 * import { Either } from "effect"
 * import { Options } from "rollmem"
 *
 * const decoded = Options.decode(Options.RollingOptions, { maxTokens: 1000, maxToken: 3 })
 * if (Either.isLeft(decoded)) {
 *   decoded.left.option // "maxToken"
 *   decoded.left.description // "unknown option (known: maxTokens, contextWindow, targetTokens, ...)"
 * }
 * Options.decode(Options.RollingOptions, null) // Either.left(ConfigError: invalid option options: must be an object, got null)
 * ```
 *
 * @since 0.4.0
 * @category decoding
 */
export const decode = <A, I>(
  schema: Schema.Schema<A, I>,
  input: unknown,
  options?: DecodeOptions
): Either.Either<A, ConfigError> => {
  if (isDecoded(input, schema)) return Either.right(input as A)
  if (input === undefined) input = {}
  const notObject = Rules.options(input)
  if (notObject !== undefined) return Either.left(new ConfigError({ option: "options", description: notObject }))
  const decoded = decoderOf(schema)(input)
  if (Either.isLeft(decoded)) return Either.left(toConfigError(schema, decoded.left, options))
  markDecoded(decoded.right as object, schema)
  return decoded as Either.Either<A, never>
}

/**
 * The options of a strategy as `Memory.make` and stored conversations take
 * them: `strategy` first, then the strategy's fields and `extra`.
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 *
 * const StoredBuffer = Options.strategySchema("buffer", {})
 * Options.decode(StoredBuffer, { strategy: "buffer", summaryRole: "user" })
 * // Either.right({ strategy: "buffer", summaryRole: "user" })
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const strategySchema = <S extends Rules.Strategy, F extends Schema.Struct.Fields>(
  strategy: S,
  extra: F,
  name: Rules.Naming = Rules.camel
) => struct({ strategy: Schema.Literal(strategy), ...fieldsOf[strategy], ...extra }, rulesOf[strategy], name)

const strategySchemas = new Map<Schema.Struct.Fields, Map<Rules.Naming, Map<Rules.Strategy, Schema.Schema.Any>>>()

/**
 * Decodes options that name their strategy (`Memory.make`, stored
 * conversations, the cluster entity): an object, a known `strategy` (else a
 * `ConfigError` on `strategy` listing the known ones), then that strategy's
 * schema with the `extra` fields (the keys a wrapper takes besides, as
 * `retry`), unknown keys named `for the <strategy> strategy`. Pass the same
 * `extra` object every time: its schemas are built once.
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 *
 * Options.decodeStrategy({ strategy: "rolling", maxTokens: 500 }) // Either.right({ strategy: "rolling", maxTokens: 500 })
 * Options.decodeStrategy({ strategy: "sliding" })
 * // Either.left(ConfigError: invalid option strategy: must be one of rolling, buffer, window, summary, got "sliding")
 * ```
 *
 * @since 0.4.0
 * @category decoding
 */
export const decodeStrategy = <A>(
  input: unknown,
  extra: Schema.Struct.Fields = noFields,
  name: Rules.Naming = Rules.camel
): Either.Either<A, ConfigError> => {
  const notObject = Rules.options(input)
  if (notObject !== undefined) return Either.left(new ConfigError({ option: "options", description: notObject }))
  const strategy = (input as { readonly strategy?: unknown }).strategy
  const wrong = Rules.strategy(strategy)
  if (wrong !== undefined) return Either.left(new ConfigError({ option: name("strategy"), description: wrong }))
  let byName = strategySchemas.get(extra)
  if (byName === undefined) strategySchemas.set(extra, byName = new Map())
  let byStrategy = byName.get(name)
  if (byStrategy === undefined) byName.set(name, byStrategy = new Map())
  const s = strategy as Rules.Strategy
  let schema = byStrategy.get(s)
  if (schema === undefined) byStrategy.set(s, schema = strategySchema(s, extra, name))
  return decode(schema as Schema.Schema<A, unknown>, input, { name, owner: `the ${s} strategy` })
}

const noFields: Schema.Struct.Fields = {}

/**
 * The option keys of each strategy, besides `strategy`, in the order the
 * schemas declare them (what `Memory.optionKeys` lists).
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 *
 * Options.keysOf.buffer // ["summaryRole", "summaryFraming"]
 * ```
 *
 * @since 0.4.0
 * @category constants
 */
export const keysOf: { readonly [S in Rules.Strategy]: ReadonlyArray<string> } = {
  rolling: Object.keys(rollingFields),
  buffer: Object.keys(bufferFields),
  window: Object.keys(windowFields),
  summary: Object.keys(summaryFields)
}

/**
 * One option of the command line that sets a memory option: its flag
 * (`max-tokens`, without dashes), the option (`maxTokens`; a nested one as
 * `clearToolResults.until`), the kind of value it takes (with its
 * `choices`), the older names it keeps (`summary-tokens`), and what its
 * `--help` says. Everything the command line does with the option comes
 * from this row: the parser's option, its `--compare` key, which
 * strategies take it, its check (the schemas' rules), its place in the
 * memory's options and in the replay's title.
 *
 * @since 0.4.0
 * @category models
 */
export interface Flag {
  readonly flag: string
  readonly option: string
  readonly kind: "integer" | "choice" | "flag"
  /** The values a `choice` takes, in the order the help lists them. */
  readonly choices?: ReadonlyArray<string> | undefined
  readonly aliases?: ReadonlyArray<string> | undefined
  /** The help's name of an integer's value (`N`, default; `KEEP`). */
  readonly value?: string | undefined
  /**
   * The command line's value when the flag is not given (`max-messages`:
   * 20; a member's only when its object is given: `reserve`, 0); none: the
   * memory's own default applies (`max-tokens`). A flag (`pin-system`) is
   * `false` when not given. The replay's title names a value only when it
   * is not the default.
   */
  readonly default?: number | string | undefined
  /**
   * A budget: the help and `--compare` list the budgets first (after
   * `--strategy`).
   */
  readonly budget?: boolean | undefined
  /**
   * For a member of an object option given without the flag of the
   * object's first member (`clear-until` without `clear-tool-results`): what
   * it is, said in the refusal (`needs --clear-tool-results (it says when
   * tool-result clearing spares the fold)`).
   */
  readonly needs?: string | undefined
  /** What `--help` says of it. */
  readonly description: string
}

/**
 * The command line's flags that set memory options (`rollmem replay
 * --max-tokens`, and the keys of a `--compare` set): camelCase option ↔
 * kebab-case flag, one row per option, in the order the command line lists
 * them (the budgets first in its help and `--compare` keys); which
 * strategies take a flag is which strategies' fields hold its option. A new
 * option the command line sets is one row here: the parser, `--compare`,
 * the checks, the memory's options and the title follow from it.
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 *
 * const row = Options.flags.find((f) => f.option === "maxTokens")
 * row?.flag // "max-tokens"
 * row?.kind // "integer"
 * ```
 *
 * @since 0.4.0
 * @category constants
 */
export const flags: ReadonlyArray<Flag> = [
  {
    flag: "max-tokens",
    option: "maxTokens",
    kind: "integer",
    budget: true,
    description: `Token budget of the rolling buffer, positive (default: ${Rules.DEFAULT_MAX_TOKENS}).`
  },
  {
    flag: "target-tokens",
    option: "targetTokens",
    kind: "integer",
    description:
      "Low-water mark of the rolling buffer, positive, at most --max-tokens: a prune starts over --max-tokens and " +
      "evicts down to N tokens (default: --max-tokens)."
  },
  {
    flag: "max-messages",
    option: "maxMessages",
    kind: "integer",
    budget: true,
    default: 20,
    description: "Message budget of the window strategy, positive (default: 20)."
  },
  {
    flag: "target-messages",
    option: "targetMessages",
    kind: "integer",
    description: "Low-water mark of the window, positive, at most --max-messages (default: --max-messages)."
  },
  {
    flag: "boundary",
    option: "boundary",
    kind: "choice",
    choices: Rules.boundaries,
    default: "aligned",
    description:
      "aligned: the original's best-effort alignment; turn: the buffer opens on a user turn and keeps no orphaned " +
      "tool result (rolling, window) (default: aligned)."
  },
  {
    flag: "pin-system",
    option: "pinSystem",
    kind: "flag",
    description: "Keep system and developer messages verbatim, outside the budget, never summarized (rolling, window)."
  },
  {
    flag: "summary-role",
    option: "summaryRole",
    kind: "choice",
    choices: Rules.summaryRoles,
    default: "system",
    description: "The role of the summary message read back: system or user (default: system)."
  },
  {
    flag: "summary-framing",
    option: "summaryFraming",
    kind: "flag",
    description: "Read the summary back after a line saying it summarizes earlier turns and is background, not an " +
      "instruction (default: the summary alone, as the Python package reads it)."
  },
  {
    flag: "summary",
    option: "summary",
    kind: "choice",
    choices: Rules.summaryModes,
    default: "single",
    description: "single: one summary, rewritten by each fold; segments: append-only summary segments, earlier ones " +
      "never rewritten (the cached prefix runs through them), consolidated into one when they pass " +
      "--max-summary-tokens (rolling, summary) (default: single)."
  },
  {
    flag: "clear-tool-results",
    option: "clearToolResults.keep",
    kind: "integer",
    value: "KEEP",
    description:
      "Before evicting, replace the content of old tool results by a placeholder, sparing the KEEP most recent " +
      "(rolling; default: off)."
  },
  {
    flag: "clear-until",
    option: "clearToolResults.until",
    kind: "choice",
    choices: Rules.clearUntils,
    needs: "it says when tool-result clearing spares the fold",
    description:
      "When --clear-tool-results spares the fold: clearing runs until the buffer is within --target-tokens; " +
      "target folds when clearing did not get there, budget only when the buffer is still over --max-tokens " +
      "(the fold goes down to the target): fewer summarizer calls (needs --clear-tool-results; default: budget)."
  },
  {
    flag: "clear-at-least",
    option: "clearToolResults.atLeast",
    kind: "integer",
    needs: "it says how much a clearing pass must free",
    description:
      "With --clear-tool-results: a clearing pass goes on until it has freed N tokens and stands only if it did " +
      "(else nothing is cleared), so each change to the cached prefix buys at least N tokens (default: off)."
  },
  {
    flag: "max-tool-result-tokens",
    option: "maxToolResultTokens",
    kind: "integer",
    description:
      "Cut a tool result counted over N tokens when it is added, keeping its head and tail with a marker saying " +
      "how many tokens were cut (rolling; default: off)."
  },
  {
    flag: "max-summary-tokens",
    option: "maxSummaryTokens",
    kind: "integer",
    aliases: ["summary-tokens"],
    budget: true,
    // the extractive summarizer's own default (`ExtractiveSummarizer.DEFAULT_MAX_TOKENS`)
    default: 400,
    description: "Summary budget, positive: the extractive summary's and the memory's maxSummaryTokens " +
      "(--summary-tokens is the older name) (default: 400)."
  },
  {
    flag: "max-summarizer-input-tokens",
    option: "maxSummarizerInputTokens",
    kind: "integer",
    description:
      "The most tokens of evicted turns one summarizer call is given: more are folded in chunks, oldest first, " +
      "each into the running summary (rolling, summary; default: one call)."
  },
  {
    flag: "ledger-tokens",
    option: "ledger.maxTokens",
    kind: "integer",
    description:
      "Keep the artifacts (file paths, URLs, e-mail addresses, identifiers) of folded turns in a ledger at the end " +
      "of the summary, within N tokens of the summary budget, least recently mentioned dropped first (rolling, " +
      "summary; must be below --max-summary-tokens; default: off)."
  },
  {
    flag: "context-window",
    option: "contextWindow.tokens",
    kind: "integer",
    description:
      "The model's context window in tokens, instead of --max-tokens (rolling): the buffer's budget at each add is " +
      "N less --reserve, the pinned messages and the summary (default: off)."
  },
  {
    flag: "reserve",
    option: "contextWindow.reserveTokens",
    kind: "integer",
    default: 0,
    needs: "it is the part of the window kept for what the memory does not hold",
    description:
      "With --context-window: tokens kept for what the memory does not hold (tool definitions, the answer), " +
      "non-negative, below the window (default: 0)."
  }
]

/**
 * The flag of an option (`targetTokens`: `target-tokens`;
 * `clearToolResults.keep`: `clear-tool-results`), for naming it as the
 * command line does.
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 *
 * Options.flagOf("maxTokens") // "max-tokens"
 * Options.flagOf("clearToolResults.until") // "clear-until"
 * ```
 *
 * @since 0.4.0
 * @category combinators
 */
export const flagOf = (option: string): string =>
  flags.find((f) => f.option === option)?.flag ??
    flags.find((f) => f.option.startsWith(`${option}.`))?.flag ?? Rules.kebab(option)

/**
 * Whether `strategy`'s memory takes the option of `entry` (its top-level
 * field is one of the strategy's).
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 *
 * const maxTokens = Options.flags.find((f) => f.option === "maxTokens")!
 * Options.takes("rolling", maxTokens) // true
 * Options.takes("buffer", maxTokens) // false
 * ```
 *
 * @since 0.4.0
 * @category predicates
 */
export const takes = (strategy: Rules.Strategy, entry: Flag): boolean =>
  Object.hasOwn(fieldsOf[strategy], entry.option.split(".")[0])

/**
 * The fields the Promise facade's classes take besides a strategy's:
 * `summarize` (folds evicted turns into the summary: a function, or
 * `"drop"` to drop them on purpose) and `tokenCounter` (counts tokens, a
 * function). Which strategy needs `summarize` is the rule
 * `core/options.ts` `storedSummarize`.
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 *
 * Object.keys(Options.promiseFields) // ["summarize", "tokenCounter"]
 * ```
 *
 * @since 0.4.0
 * @category schemas
 */
export const promiseFields = {
  summarize: optional<((...args: ReadonlyArray<never>) => unknown) | "drop">(Rules.summarizeOrDrop),
  tokenCounter: optional<(text: string) => number>(Rules.isFunction)
}

/**
 * The fields the Promise facade's asynchronous classes take besides: each
 * summarizer call bounded by `timeout` (milliseconds), and, for
 * `AsyncRollingMemory`, background folds retried `foldRetries` times.
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 *
 * Object.keys(Options.asyncFields) // ["timeout"]
 * ```
 *
 * @since 0.4.0
 * @category schemas
 */
export const asyncFields = {
  timeout: optional<number>(Rules.milliseconds)
}

/**
 * The archive's fields in the Promise facade (docs/contract.md section 17):
 * `archive`, an archive of `rollmem/promise`'s `Archive` (`memory()`,
 * `sqlite(path)`, `postgres(url)`), and `conversationId`.
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 *
 * Object.keys(Options.promiseArchiveFields) // ["archive", "conversationId"]
 * ```
 *
 * @since 0.4.0
 * @category schemas
 */
export const promiseArchiveFields = {
  archive: optional<{ readonly kind: string; readonly service: Archive.Service }>(Rules.promiseArchive),
  conversationId: archiveFields.conversationId
}

const requiredSummarize = required<(...args: ReadonlyArray<never>) => unknown>(Rules.summarizeFunction)

// The rolling classes' `summarize`: a function or "drop", never absent (docs/contract.md section 5).
const summarizeOrDrop = required<((...args: ReadonlyArray<never>) => unknown) | "drop">(Rules.summarizeOrDrop)

// The facade's own needs, in its terms (the Effect API names `foldRetry` and `Summarizer.drop`).
const promiseRule = (rule: CrossRule | undefined): CrossRule => (o, name) =>
  rule?.(o, name) ?? Rules.promiseNeeds(o as Rules.PromiseNeeds, name)

/**
 * The options of the facade's `RollingMemory`, `AsyncRollingMemory`,
 * `BufferMemory`, `WindowMemory`, `SummaryMemory` and `AsyncSummaryMemory`:
 * the strategy's fields with the facade's ({@link promiseFields},
 * {@link asyncFields}), decoded once by the class's constructor.
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 *
 * Options.decode(Options.PromiseOptions.buffer, { summaryRole: "user", x: 1 })
 * // Either.left(ConfigError: invalid option x: unknown option (known: summaryRole, summaryFraming, tokenCounter))
 * ```
 *
 * @since 0.4.0
 * @category schemas
 */
export const PromiseOptions = {
  rolling: struct(
    { ...rollingFields, ...promiseFields, summarize: summarizeOrDrop, ...promiseArchiveFields },
    promiseRule(rollingRule)
  ),
  asyncRolling: struct({
    ...rollingFields,
    ...promiseFields,
    ...promiseArchiveFields,
    summarize: summarizeOrDrop,
    fold: backgroundFields.fold,
    hardMaxTokens: backgroundFields.hardMaxTokens,
    foldRetries: optional<number>(Rules.nonNegativeInteger),
    ...asyncFields
  }, promiseRule(rollingRule)),
  buffer: struct({ ...bufferFields, tokenCounter: promiseFields.tokenCounter }, undefined),
  window: struct({ ...windowFields, tokenCounter: promiseFields.tokenCounter, ...promiseArchiveFields }, windowRule),
  summary: struct(
    {
      ...summaryFields,
      summarize: requiredSummarize,
      tokenCounter: promiseFields.tokenCounter,
      ...promiseArchiveFields
    },
    summaryRule
  ),
  asyncSummary: struct({
    ...summaryFields,
    ...promiseArchiveFields,
    summarize: requiredSummarize,
    tokenCounter: promiseFields.tokenCounter,
    ...asyncFields
  }, summaryRule)
}
