/**
 * Every typed error of a memory on the Effect 4 line (docs/contract.md
 * section 9), as `Schema.TaggedError` classes with the same tags, fields and
 * messages as the Effect 3 line's.
 *
 * @since 1.0.0
 */
import * as Schema from "effect/Schema"
import * as Context from "../../src/core/context.js"

/**
 * An option refused (docs/contract.md section 9): `option` names it, `description` says what is wrong.
 *
 * @example
 * ```ts
 * import { ConfigError } from "rollmem"
 * new ConfigError({ option: "maxTokens", description: "must be a positive integer, got 0" }).message
 * // "invalid option maxTokens: must be a positive integer, got 0"
 * ```
 *
 * @since 1.0.0
 */
export class ConfigError extends Schema.TaggedError<ConfigError>("rollmem/ConfigError")("ConfigError", {
  option: Schema.String,
  description: Schema.String
}) {
  /** Its tag, as the Effect 3 line names its errors (`error.name`, docs/contract.md section 9). */
  override get name(): string {
    return this._tag
  }
  override get message(): string {
    return `invalid option ${this.option}: ${this.description}`
  }
}

/** A state file that cannot be read (docs/contract.md section 2): what is wrong, naming the path. @since 1.0.0 */
export class StateDecodeError extends Schema.TaggedError<StateDecodeError>("rollmem/StateDecodeError")(
  "StateDecodeError",
  { description: Schema.String, cause: Schema.optional(Schema.Defect()) }
) {
  /** Its tag, as the Effect 3 line names its errors (`error.name`, docs/contract.md section 9). */
  override get name(): string {
    return this._tag
  }
  override get message(): string {
    return `cannot read memory state: ${this.description}`
  }
}

/** A message refused (docs/contract.md section 1): what is wrong, naming the field. @since 1.0.0 */
export class InvalidMessageError extends Schema.TaggedError<InvalidMessageError>("rollmem/InvalidMessageError")(
  "InvalidMessageError",
  { description: Schema.String, cause: Schema.optional(Schema.Defect()) }
) {
  /** Its tag, as the Effect 3 line names its errors (`error.name`, docs/contract.md section 9). */
  override get name(): string {
    return this._tag
  }
  override get message(): string {
    return `invalid message: ${this.description}`
  }
}

/** The token counter failed or returned something other than a non-negative integer (docs/contract.md section 3). @since 1.0.0 */
export class TokenCountError extends Schema.TaggedError<TokenCountError>("rollmem/TokenCountError")(
  "TokenCountError",
  { description: Schema.String, cause: Schema.optional(Schema.Defect()) }
) {
  /** Its tag, as the Effect 3 line names its errors (`error.name`, docs/contract.md section 9). */
  override get name(): string {
    return this._tag
  }
  override get message(): string {
    return `token counter failed: ${this.description}`
  }
}

/** The summarizer failed, or returned an empty summary where one is refused (docs/contract.md section 5). @since 1.0.0 */
export class SummarizerError extends Schema.TaggedError<SummarizerError>("rollmem/SummarizerError")(
  "SummarizerError",
  { description: Schema.optional(Schema.String), cause: Schema.optional(Schema.Defect()) }
) {
  /** Its tag, as the Effect 3 line names its errors (`error.name`, docs/contract.md section 9). */
  override get name(): string {
    return this._tag
  }
  override get message(): string {
    return `summarizer failed${this.description === undefined ? "" : `: ${this.description}`}`
  }
}

/**
 * The archive failed (docs/contract.md section 17): a write (nothing
 * committed, the turns stay in the buffer) or a search.
 *
 * @since 1.0.0
 */
export class ArchiveError extends Schema.TaggedError<ArchiveError>("rollmem/ArchiveError")(
  "ArchiveError",
  { description: Schema.String, cause: Schema.optional(Schema.Defect()) }
) {
  /** Its tag, as the Effect 3 line names its errors (`error.name`, docs/contract.md section 9). */
  override get name(): string {
    return this._tag
  }
  override get message(): string {
    return `archive failed: ${this.description}`
  }
}

/** A fold's summary counted over `maxSummaryTokens` (docs/contract.md section 10.4): nothing committed. @since 1.0.0 */
export class SummaryBudgetError extends Schema.TaggedError<SummaryBudgetError>("rollmem/SummaryBudgetError")(
  "SummaryBudgetError",
  { tokens: Schema.Number, maxSummaryTokens: Schema.Number }
) {
  /** Its tag, as the Effect 3 line names its errors (`error.name`, docs/contract.md section 9). */
  override get name(): string {
    return this._tag
  }
  override get message(): string {
    return `summary of ${this.tokens} tokens is over maxSummaryTokens ${this.maxSummaryTokens}`
  }
}

/** Pinned messages and the summary alone exceed the context window less its reserve (docs/contract.md section 16.1). @since 1.0.0 */
export class ContextWindowError extends Schema.TaggedError<ContextWindowError>("rollmem/ContextWindowError")(
  "ContextWindowError",
  {
    windowTokens: Schema.Number,
    reserveTokens: Schema.Number,
    pinnedTokens: Schema.Number,
    summaryTokens: Schema.Number,
    /** Tokens of the pinned message(s) the add refused, when it refused one (nothing changed). */
    messageTokens: Schema.optional(Schema.Number),
    /** Tokens of a provider's compaction item held, beside a refused pinned message. */
    compactionTokens: Schema.optional(Schema.Number)
  }
) {
  /** Its tag, as the Effect 3 line names its errors (`error.name`, docs/contract.md section 9). */
  override get name(): string {
    return this._tag
  }
  override get message(): string {
    return Context.contextWindowMessage(this)
  }
}

/** A provider usage refused by `recordUsage` (docs/contract.md section 16.4). @since 1.0.0 */
export class UsageError extends Schema.TaggedError<UsageError>("rollmem/UsageError")("UsageError", {
  description: Schema.String
}) {
  /** Its tag, as the Effect 3 line names its errors (`error.name`, docs/contract.md section 9). */
  override get name(): string {
    return this._tag
  }
  override get message(): string {
    return `invalid usage: ${this.description}`
  }
}

/** What an add may fail with (docs/contract.md section 9). @since 1.0.0 */
export type AddError = TokenCountError | SummarizerError | SummaryBudgetError | ContextWindowError | ArchiveError
