/**
 * The typed errors of rollmem (docs/contract.md section 9). Each is a `Schema.TaggedError`,
 * so callers can `Effect.catchTag("SummarizerError", ...)`. None of them
 * changes a memory's state, except that a failed summarizer call keeps the
 * turn that was appended before the fold (docs/contract.md section 5).
 *
 * @since 0.1.0
 */
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { describeParseError } from "./schema/Json.js"

/**
 * Bad configuration: a budget that is not a positive integer, or a missing
 * summarizer where one is required. `option` names the option.
 *
 * @since 0.1.0
 * @category errors
 */
export class ConfigError extends Schema.TaggedError<ConfigError>("rollmem/ConfigError")("ConfigError", {
  option: Schema.String,
  description: Schema.String
}) {
  override get message(): string {
    return `invalid option ${this.option}: ${this.description}`
  }
}

/**
 * A memory state (or a message) that cannot be read: wrong types, a missing
 * field, an unknown or missing version, metadata nested too deep. `description`
 * names the path of what is wrong.
 *
 * @since 0.1.0
 * @category errors
 */
export class StateDecodeError extends Schema.TaggedError<StateDecodeError>("rollmem/StateDecodeError")(
  "StateDecodeError",
  {
    description: Schema.String,
    cause: Schema.optional(Schema.Defect)
  }
) {
  /**
   * The error for a state that did not decode: `input` is what was decoded
   * (a parsed JSON value), `error` the Schema's. The description names the
   * wrong paths, bounded as `Json.describeParseError` bounds it (a circular
   * or too deep value named by its path, a huge wrong value cut to 80
   * characters, at most 2,000 characters in all).
   *
   * @since 0.2.0
   */
  static fromParseError({ error, input }: {
    readonly error: ParseResult.ParseError
    readonly input: unknown
  }): StateDecodeError {
    return new StateDecodeError(describeParseError(error, input, { messageLevel: 3, name: "state" }))
  }

  override get message(): string {
    return `cannot read memory state: ${this.description}`
  }
}

/**
 * A message that cannot be built from what was given (wrong field types,
 * metadata that is not JSON or nested too deep). `description` names the path.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidMessageError extends Schema.TaggedError<InvalidMessageError>("rollmem/InvalidMessageError")(
  "InvalidMessageError",
  {
    description: Schema.String,
    cause: Schema.optional(Schema.Defect)
  }
) {
  /**
   * The error for message fields that did not decode: `input` is the wire
   * object decoded (`{ role, content, tool_calls?, ... }`), `error` the
   * Schema's. The description names the wrong fields, bounded as
   * `Json.describeParseError` bounds it (`metadata: nested deeper than 100
   * levels`, a huge wrong value cut to 80 characters, at most 2,000
   * characters in all).
   *
   * @since 0.2.0
   */
  static fromParseError({ error, input }: {
    readonly error: ParseResult.ParseError
    readonly input: unknown
  }): InvalidMessageError {
    return new InvalidMessageError(describeParseError(error, input, { messageLevel: 1, name: "message" }))
  }

  override get message(): string {
    return `invalid message: ${this.description}`
  }
}

/**
 * A token counter that failed, or returned something other than a
 * non-negative integer (NaN, a negative or fractional number, a non-number).
 * The message being counted is not added.
 *
 * @since 0.1.0
 * @category errors
 */
export class TokenCountError extends Schema.TaggedError<TokenCountError>("rollmem/TokenCountError")(
  "TokenCountError",
  {
    description: Schema.String,
    cause: Schema.optional(Schema.Defect)
  }
) {
  override get message(): string {
    return `token counter failed: ${this.description}`
  }
}

/**
 * A summarizer call that failed, returned something other than a string,
 * or timed out. `cause` holds the summarizer's own error. The memory keeps
 * its summary and buffer as they were right after the new turn was appended.
 *
 * @since 0.1.0
 * @category errors
 */
export class SummarizerError extends Schema.TaggedError<SummarizerError>("rollmem/SummarizerError")(
  "SummarizerError",
  {
    description: Schema.optional(Schema.String),
    cause: Schema.optional(Schema.Defect)
  }
) {
  override get message(): string {
    return `summarizer failed${this.description === undefined ? "" : `: ${this.description}`}`
  }
}

/**
 * A summary over the memory's summary budget (`maxSummaryTokens`,
 * docs/contract.md section 10.4): the summarizer returned a summary of
 * `tokens` tokens, counted with the memory's own token counter, when at most
 * `maxSummaryTokens` were allowed. The fold commits nothing, as any summarizer
 * failure: summary and buffer stay as right after the new turn was appended.
 * The summarizers rollmem ships never return one; a summarizer of your own
 * that ignores its request's `maxSummaryTokens` can.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message, RollingMemory } from "rollmem"
 *
 * const add = (memory: RollingMemory.RollingMemory) =>
 *   memory.add(Message.user("hi")).pipe(
 *     Effect.catchTag("SummaryBudgetError", (e) => Effect.logWarning(`summary of ${e.tokens} tokens refused`))
 *   )
 * ```
 *
 * @since 0.2.0
 * @category errors
 */
export class SummaryBudgetError extends Schema.TaggedError<SummaryBudgetError>("rollmem/SummaryBudgetError")(
  "SummaryBudgetError",
  {
    /** Tokens in the summary the summarizer returned. */
    tokens: Schema.Number,
    /** The summary budget it exceeded. */
    maxSummaryTokens: Schema.Number
  }
) {
  override get message(): string {
    return `summary of ${this.tokens} tokens is over maxSummaryTokens ${this.maxSummaryTokens}`
  }
}

/**
 * Any error an add can fail with.
 *
 * @since 0.1.0
 * @category errors
 */
export type AddError = TokenCountError | SummarizerError | SummaryBudgetError

/**
 * Every error of rollmem.
 *
 * @since 0.1.0
 * @category errors
 */
export type RollmemError =
  | ConfigError
  | StateDecodeError
  | InvalidMessageError
  | TokenCountError
  | SummarizerError
  | SummaryBudgetError
