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
import * as Context from "./core/context.js"
import * as Usage from "./core/usage.js"
import { describeParseError } from "./schema/Json.js"

/**
 * Bad configuration: a budget that is not a positive integer, or a missing
 * summarizer where one is required. `option` names the option.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { RollingMemory, Summarizer } from "rollmem"
 *
 * const refused = RollingMemory.make({ maxTokens: 0 }).pipe(
 *   Effect.catchTag("ConfigError", (e) => Effect.succeed(`${e.option}: ${e.description}`)), // "maxTokens: must be a positive integer, got 0"
 *   Effect.provide(Summarizer.layerDrop)
 * )
 * ```
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
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { MemoryState } from "rollmem"
 *
 * const loaded = MemoryState.fromString("{\"version\": 9}").pipe(
 *   Effect.catchTag("StateDecodeError", (e) => Effect.succeed(MemoryState.empty))
 * )
 * ```
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
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message } from "rollmem"
 *
 * const built = Effect.try({ try: () => Message.make("user", "hi", { metadata: JSON.parse("{\"n\": {}}") }), catch: (e) => e })
 * // Message.make throws InvalidMessageError for what it cannot build (metadata that is not JSON, ...)
 * ```
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
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message, type RollingMemory } from "rollmem"
 *
 * const add = (memory: RollingMemory.RollingMemory) =>
 *   memory.add(Message.user("hi")).pipe(
 *     Effect.catchTag("TokenCountError", (e) => Effect.logError(e.description)) // the turn was not added
 *   )
 * ```
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
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message, type RollingMemory } from "rollmem"
 *
 * const add = (memory: RollingMemory.RollingMemory) =>
 *   memory.add(Message.user("hi")).pipe(
 *     // the turn stays appended; the next add folds again
 *     Effect.catchTag("SummarizerError", (e) => Effect.logWarning(e.message, e.cause))
 *   )
 * ```
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
 * The pinned messages and the summary alone leave no room in a memory's
 * context window (`contextWindow`, docs/contract.md section 16.1): after the
 * add's fold (the buffer is down to its newest unit), pinned + summary are
 * still over the window less the reserve, so no request built from this
 * memory would fit. The add's turn stays appended, as when a fold fails.
 * With `messageTokens`, the add's pinned message would take the pinned
 * messages (with a provider's compaction item) alone over it: the add
 * failed before it changed anything (not appended, no prune, no summarizer
 * call). When the pinned messages are over already (a state restored into
 * a smaller window), the add's turn is appended and it fails before any prune.
 * Counts are the memory's own tokens, corrected by its usage ratio.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message, RollingMemory } from "rollmem"
 *
 * const add = (memory: RollingMemory.RollingMemory) =>
 *   memory.add(Message.user("hi")).pipe(
 *     Effect.catchTag("ContextWindowError", (e) => Effect.logWarning(e.message))
 *   )
 * ```
 *
 * @since 0.3.0
 * @category errors
 */
export class ContextWindowError extends Schema.TaggedError<ContextWindowError>("rollmem/ContextWindowError")(
  "ContextWindowError",
  {
    /** The window's size (`contextWindow.tokens`). */
    windowTokens: Schema.Number,
    /** The room kept for what the memory does not hold (`contextWindow.reserveTokens`). */
    reserveTokens: Schema.Number,
    /** Tokens of the pinned messages. */
    pinnedTokens: Schema.Number,
    /** Tokens of the summary, with its framing line (`summaryFraming`) and a provider's compaction item. */
    summaryTokens: Schema.Number,
    /** Tokens of the pinned message(s) the add refused, when it refused one (nothing changed). */
    messageTokens: Schema.optional(Schema.Number),
    /** Tokens of a provider's compaction item held, beside a refused pinned message. */
    compactionTokens: Schema.optional(Schema.Number),
    /**
     * The usage ratio the budget was divided by (`recordUsage`, section
     * 16.4), when one was learnt and is not 1: the room in the memory's own
     * tokens is then `floor((windowTokens - reserveTokens) / usageRatio)`.
     */
    usageRatio: Schema.optional(Schema.Number)
  }
) {
  override get message(): string {
    return Context.contextWindowMessage({
      ...this,
      room: Usage.inCounterTokens(this.windowTokens - this.reserveTokens, this.usageRatio)
    })
  }
}

/**
 * The provider still refused the request as too long after the last
 * compaction `withOverflowRetry` was allowed (docs/contract.md section
 * 13.3). Carries the provider's numbers where it gave them, the attempts
 * made, and the provider's error as `cause`.
 *
 * @example
 * ```ts
 * import { ContextOverflowError } from "rollmem"
 *
 * const describe = (e: ContextOverflowError) => `${e.provider}: ${e.requestedTokens} > ${e.maxTokens} after ${e.attempts} attempts`
 * ```
 *
 * @since 0.3.0
 * @category errors
 */
export class ContextOverflowError extends Schema.TaggedError<ContextOverflowError>("rollmem/ContextOverflowError")(
  "ContextOverflowError",
  {
    /** The provider that refused (`"openai"`, `"anthropic"`, `"gemini"`, or a recognizer's own name). */
    provider: Schema.String,
    /** The prompt's size as the provider counted it, when it said. */
    requestedTokens: Schema.optional(Schema.Number),
    /** The model's limit, when the provider said. */
    maxTokens: Schema.optional(Schema.Number),
    /** Calls made (the first and each retry after a compaction). */
    attempts: Schema.Number,
    /** The provider's last error. */
    cause: Schema.Unknown
  }
) {
  override get message(): string {
    const numbers = this.requestedTokens === undefined
      ? ""
      : `: ${this.requestedTokens} tokens > ${this.maxTokens ?? "?"}`
    return `${this.provider} refused the request as too long${numbers}, after ${this.attempts} attempts with compaction`
  }
}

/**
 * A usage passed to `recordUsage` that is refused (docs/contract.md section
 * 16.4): `inputTokens` not a positive integer (0 included), `overheadTokens`
 * not a non-negative integer. Nothing is recorded.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { RollingMemory } from "rollmem"
 *
 * const record = (memory: RollingMemory.RollingMemory, inputTokens: number) =>
 *   memory.recordUsage({ inputTokens }).pipe(Effect.catchTag("UsageError", (e) => Effect.logWarning(e.description)))
 * ```
 *
 * @since 0.3.0
 * @category errors
 */
export class UsageError extends Schema.TaggedError<UsageError>("rollmem/UsageError")("UsageError", {
  /** What is wrong, naming the field (`inputTokens: must be a non-negative integer, got NaN`). */
  description: Schema.String
}) {
  override get message(): string {
    return `invalid usage: ${this.description}`
  }
}

/**
 * An archive that failed to store or search (docs/contract.md section 17):
 * its backend's error (`cause`), or a request it cannot serve. A fold whose
 * archive write fails commits nothing: its turns stay in the buffer, as when
 * the summarizer fails.
 *
 * @example
 * ```ts
 * import { ArchiveError } from "rollmem"
 *
 * new ArchiveError({ description: "disk full" }).message // "archive failed: disk full"
 * ```
 *
 * @since 0.4.0
 * @category errors
 */
export class ArchiveError extends Schema.TaggedError<ArchiveError>("rollmem/ArchiveError")("ArchiveError", {
  /** What failed. */
  description: Schema.String,
  /** The backend's own error, when there is one. */
  cause: Schema.optional(Schema.Defect)
}) {
  override get message(): string {
    return `archive failed: ${this.description}`
  }
}

/**
 * Any error an add can fail with.
 *
 * @since 0.1.0
 * @category errors
 */
export type AddError = TokenCountError | SummarizerError | SummaryBudgetError | ContextWindowError | ArchiveError

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
  | ArchiveError
