/**
 * The options of each strategy on the Effect 4 line: the same keys, checks
 * and cross-field rules as the Effect 3 line's (every rule is
 * `core/options.ts`'s; only this declaration of which keys each strategy
 * takes exists twice), decoded once into a `ConfigError` naming the first
 * wrong option.
 *
 * @since 1.0.0
 */
import * as Result from "effect/Result"
import * as Schedule from "effect/Schedule"
import type { Pattern } from "../../../src/core/artifacts.js"
import type { Boundary } from "../../../src/core/eviction.js"
import * as Rules from "../../../src/core/options.js"
import type { ClearUntil } from "../../../src/core/policy.js"
import { type AddError, ConfigError } from "../Errors.js"
import type * as Archive from "../services/Archive.js"

/** One option: its rule, whether it is required, and the fields of an object option. */
interface Field {
  readonly check: Rules.Check
  readonly required?: true
  readonly fields?: Fields
}

type Fields = { readonly [key: string]: Field }

const optional = (check: Rules.Check): Field => ({ check })
const required = (check: Rules.Check): Field => ({ check, required: true })

const clearToolResults: Field = {
  check: Rules.clearToolResults,
  fields: {
    keep: required(Rules.nonNegativeInteger),
    placeholder: optional(Rules.string),
    until: optional(Rules.oneOf(Rules.clearUntils)),
    atLeast: optional(Rules.positiveInteger),
    exclude: optional(Rules.toolNames)
  }
}

const ledger: Field = {
  check: Rules.ledger,
  fields: { maxTokens: required(Rules.positiveInteger), patterns: optional(Rules.ledgerPatterns) }
}

const contextWindow: Field = {
  check: Rules.contextWindow,
  fields: { tokens: required(Rules.positiveInteger), reserveTokens: optional(Rules.nonNegativeInteger) }
}

const boundary = optional(Rules.oneOf(Rules.boundaries))
const pinSystem = optional(Rules.boolean)
const summaryRole = optional(Rules.oneOf(Rules.summaryRoles))
const summaryFraming = optional(Rules.summaryFraming)
/** How the summary is kept (docs/contract.md section 10.9): RollingMemory, SummaryMemory. */
const summary = optional(Rules.oneOf(Rules.summaryModes))
/** The archive's options (docs/contract.md section 17): RollingMemory, WindowMemory, SummaryMemory. */
const archive = optional(Rules.archive)
const conversationId = optional(Rules.conversationId)

/** RollingMemory's options (docs/contract.md section 10) besides the archive's. */
const rollingPolicyFields: Fields = {
  maxTokens: optional(Rules.positiveInteger),
  contextWindow,
  targetTokens: optional(Rules.positiveInteger),
  boundary,
  pinSystem,
  clearToolResults,
  maxToolResultTokens: optional(Rules.positiveInteger),
  summaryRole,
  summaryFraming,
  summary,
  maxSummaryTokens: optional(Rules.positiveInteger),
  maxSummarizerInputTokens: optional(Rules.positiveInteger),
  ledger
}

/** RollingMemory's options that name no strategy's context (what a stored conversation takes). */
const rollingFields: Fields = { ...rollingPolicyFields, archive, conversationId }

/**
 * Background folds (docs/contract.md section 5.1): `RollingMemory`'s
 * constructors take them (`makeScoped` runs them); options naming their
 * strategy (`Memory.make`, a stored conversation) do not, as on the Effect 3
 * line, whose save must hold every fold.
 */
const backgroundFields: Fields = {
  fold: optional(Rules.oneOf(Rules.foldModes)),
  hardMaxTokens: optional(Rules.positiveInteger),
  foldRetry: optional((u) => Schedule.isSchedule(u) ? undefined : "must be a Schedule")
}

/**
 * Each strategy's options, in the order the Effect 3 line lists them.
 *
 * @since 1.0.0
 */
export const fieldsOf: { readonly [S in Rules.Strategy]: Fields } = {
  rolling: rollingFields,
  buffer: { summaryRole, summaryFraming },
  window: {
    maxMessages: required(Rules.positiveInteger),
    targetMessages: optional(Rules.positiveInteger),
    boundary,
    pinSystem,
    summaryRole,
    summaryFraming,
    archive,
    conversationId
  },
  summary: {
    summaryRole,
    summaryFraming,
    summary,
    maxSummaryTokens: rollingFields.maxSummaryTokens,
    maxSummarizerInputTokens: rollingFields.maxSummarizerInputTokens,
    ledger,
    archive,
    conversationId
  }
}

/** What each strategy's constructors take: its options, and RollingMemory's background folds. */
const constructorFieldsOf: { readonly [S in Rules.Strategy]: Fields } = {
  ...fieldsOf,
  rolling: { ...rollingPolicyFields, ...backgroundFields, archive, conversationId }
}

const rulesOf: { readonly [S in Rules.Strategy]: Rules.CrossRule | undefined } = {
  rolling: Rules.rollingRule,
  buffer: undefined,
  window: Rules.windowRule,
  summary: Rules.summaryRule
}

/** The context-policy options, decoded. @since 1.0.0 */
export interface PolicyOptions {
  readonly boundary?: Boundary | undefined
  readonly pinSystem?: boolean | undefined
  readonly clearToolResults?: {
    readonly keep: number
    readonly placeholder?: string | undefined
    readonly until?: ClearUntil | undefined
    readonly atLeast?: number | undefined
    readonly exclude?: ReadonlyArray<string> | undefined
  } | undefined
}

/**
 * How the summary is kept (docs/contract.md section 10.9): `"single"`, one
 * text each fold rewrites, or `"segments"`, append-only summary segments.
 *
 * @example
 * ```ts
 * import type { Options } from "rollmem"
 * const mode: Options.SummaryMode = "segments"
 * ```
 *
 * @since 1.0.0
 */
export type SummaryMode = "single" | "segments"

/** The artifact ledger's options (docs/contract.md section 14.2). @since 1.0.0 */
export interface LedgerOptions {
  readonly maxTokens: number
  readonly patterns?: ReadonlyArray<Pattern> | undefined
}

/**
 * RollingMemory's options (docs/contract.md section 10): a token budget
 * (`maxTokens`, default 2000, or `contextWindow`), its low-water mark, the
 * context policies, the summary's role and budget, chunked folds, the ledger.
 *
 * @since 1.0.0
 */
export interface RollingOptions extends PolicyOptions, ArchiveOptions {
  readonly maxTokens?: number | undefined
  readonly contextWindow?: { readonly tokens: number; readonly reserveTokens?: number | undefined } | undefined
  readonly targetTokens?: number | undefined
  readonly maxToolResultTokens?: number | undefined
  readonly summaryRole?: "system" | "user" | undefined
  /** A line read back before the summary (docs/contract.md section 10.10): `true` for the default line, or the line. */
  readonly summaryFraming?: boolean | string | undefined
  /**
   * How the summary is kept (docs/contract.md section 10.9): `"single"`
   * (default), one text each fold rewrites; `"segments"`, append-only
   * segments (each fold appends one, written by a summarizer that honours
   * `request.mode`; one consolidation when they pass `maxSummaryTokens`).
   * Not with `ledger`.
   */
  readonly summary?: SummaryMode | undefined
  readonly maxSummaryTokens?: number | undefined
  readonly maxSummarizerInputTokens?: number | undefined
  readonly ledger?: LedgerOptions | undefined
  /**
   * When folds run (docs/contract.md section 5.1): `"blocking"` (default),
   * or `"background"` (`RollingMemory.makeScoped` only, with a summarizer):
   * an add completes once its turn is appended, folds run one at a time in a
   * fiber of the memory's scope.
   */
  readonly fold?: "blocking" | "background" | undefined
  /** With `fold: "background"`: the buffer's hard cap in tokens (at least `maxTokens`, default twice it). */
  readonly hardMaxTokens?: number | undefined
  /** With `fold: "background"`: how a failed fold is retried (each attempt plans again). Default: not retried. */
  readonly foldRetry?: Schedule.Schedule<unknown, AddError> | undefined
}

/**
 * The archive's options (docs/contract.md section 17): `archive`, where
 * every message that leaves the buffer is written (`Archive.makeMemory()`),
 * and `conversationId`, the conversation it is archived under (default:
 * the restored state's, else a new random UUID).
 *
 * @since 1.0.0
 */
export interface ArchiveOptions {
  readonly archive?: Archive.Service | undefined
  readonly conversationId?: string | undefined
}

/** BufferMemory's options: the summary's role. @since 1.0.0 */
export interface BufferOptions {
  readonly summaryRole?: "system" | "user" | undefined
  readonly summaryFraming?: boolean | string | undefined
}

/** WindowMemory's options: a message budget and its low-water mark, the context policies. @since 1.0.0 */
export interface WindowOptions extends PolicyOptions, ArchiveOptions {
  readonly maxMessages: number
  readonly targetMessages?: number | undefined
  readonly summaryRole?: "system" | "user" | undefined
  readonly summaryFraming?: boolean | string | undefined
}

/** SummaryMemory's options: the summary's role and budget, chunked folds, the ledger. @since 1.0.0 */
export interface SummaryOptions extends ArchiveOptions {
  readonly summaryRole?: "system" | "user" | undefined
  readonly summaryFraming?: boolean | string | undefined
  /** How the summary is kept (docs/contract.md section 10.9): `"single"` (default) or `"segments"`; not with `ledger`. */
  readonly summary?: SummaryMode | undefined
  readonly maxSummaryTokens?: number | undefined
  readonly maxSummarizerInputTokens?: number | undefined
  readonly ledger?: LedgerOptions | undefined
}

/** Each strategy's decoded options. @since 1.0.0 */
export interface OptionsOf {
  readonly rolling: RollingOptions
  readonly buffer: BufferOptions
  readonly window: WindowOptions
  readonly summary: SummaryOptions
}

const check = (fields: Fields, value: { readonly [key: string]: unknown }, path: string): ConfigError | undefined => {
  const known = Object.keys(fields)
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(fields, key)) {
      return new ConfigError({
        option: path === "" ? key : `${path}.${key}`,
        description: Rules.unknownOption(known)
      })
    }
  }
  for (const key of known) {
    const field = fields[key]
    const option = path === "" ? key : `${path}.${key}`
    const v = value[key]
    if (v === undefined) {
      if (field.required) return new ConfigError({ option, description: field.check(undefined) ?? "is missing" })
      continue
    }
    const problem = field.check(v)
    if (problem !== undefined) return new ConfigError({ option, description: problem })
    if (field.fields !== undefined) {
      const nested = check(field.fields, v as { readonly [key: string]: unknown }, option)
      if (nested !== undefined) return nested
    }
  }
  return undefined
}

/**
 * Decodes a strategy's options: the options as given (`undefined` as `{}`),
 * or the `ConfigError` naming the first wrong one (an unknown key listing
 * the known ones, a value its rule refuses, then the cross-field rules).
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 * Options.decode("window", { maxMessages: 0 }) // a failure: invalid option maxMessages: must be a positive integer, got 0
 * ```
 *
 * @since 1.0.0
 */
export const decode = <S extends Rules.Strategy>(
  strategy: S,
  input: unknown
): Result.Result<OptionsOf[S], ConfigError> => {
  const value = input === undefined ? {} : input
  const notObject = Rules.options(value)
  if (notObject !== undefined) return Result.fail(new ConfigError({ option: "options", description: notObject }))
  const options = value as { readonly [key: string]: unknown }
  const problem = check(constructorFieldsOf[strategy], options, "")
  if (problem !== undefined) return Result.fail(problem)
  const rule = rulesOf[strategy]
  const crossed = rule === undefined ? undefined : rule(options, Rules.camel)
  if (crossed !== undefined) return Result.fail(new ConfigError(crossed))
  return Result.succeed(options as unknown as OptionsOf[S])
}

/**
 * Options naming their strategy (what `Memory.make` and a stored
 * conversation take): `{ strategy: "rolling", maxTokens: 500 }`, ...
 *
 * @since 1.0.0
 */
export type StrategyOptions =
  | ({ readonly strategy: "rolling" } & RollingOptions)
  | ({ readonly strategy: "buffer" } & BufferOptions)
  | ({ readonly strategy: "window" } & WindowOptions)
  | ({ readonly strategy: "summary" } & SummaryOptions)

/**
 * The option keys of each strategy besides `strategy`, in the order the
 * Effect 3 line lists them.
 *
 * @since 1.0.0
 */
export const keysOf: { readonly [S in Rules.Strategy]: ReadonlyArray<string> } = {
  rolling: Object.keys(fieldsOf.rolling),
  buffer: Object.keys(fieldsOf.buffer),
  window: Object.keys(fieldsOf.window),
  summary: Object.keys(fieldsOf.summary)
}

/**
 * Decodes options naming their strategy: an object, a known `strategy`
 * (`ConfigError` on `strategy`, listing the known ones), then the strategy's
 * own options as {@link decode} checks them, an unknown key naming the
 * strategy (`unknown option for the rolling strategy (known: ...)`). `extra`
 * are keys a caller takes beside them (a stored conversation's `retry`):
 * they are left for the caller to check and kept in the result.
 *
 * @example
 * ```ts
 * import { Options } from "rollmem"
 * Options.decodeStrategy({ strategy: "lru" }) // a failure: invalid option strategy: must be one of rolling, buffer, window, summary, got "lru"
 * ```
 *
 * @since 1.0.0
 */
export const decodeStrategy = (
  input: unknown,
  extra: ReadonlyArray<string> = []
): Result.Result<StrategyOptions, ConfigError> => {
  const notObject = Rules.options(input)
  if (notObject !== undefined) return Result.fail(new ConfigError({ option: "options", description: notObject }))
  const { strategy, ...rest } = input as { readonly [key: string]: unknown }
  const wrong = Rules.strategy(strategy)
  if (wrong !== undefined) return Result.fail(new ConfigError({ option: "strategy", description: wrong }))
  const s = strategy as Rules.Strategy
  const own: { [key: string]: unknown } = {}
  for (const key of Object.keys(rest)) {
    if (extra.includes(key)) continue
    if (!Object.hasOwn(fieldsOf[s], key)) {
      return Result.fail(
        new ConfigError({
          option: key,
          description: Rules.unknownOption(["strategy", ...keysOf[s], ...extra], `the ${s} strategy`)
        })
      )
    }
    own[key] = rest[key]
  }
  const decoded = decode(s, own)
  return Result.isFailure(decoded) ? Result.fail(decoded.failure) : Result.succeed(input as StrategyOptions)
}
