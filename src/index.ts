/**
 * rollmem: conversation memory for LLM applications, on Effect.
 *
 * @since 0.1.0
 */

/** @since 0.4.0 */
export * as Archive from "./services/Archive.js"
/** @since 0.1.0 */
export * as BufferMemory from "./strategies/BufferMemory.js"
/** @since 0.4.0 */
export * as ConversationSearch from "./core/conversationSearch.js"
/** @since 0.1.0 */
export * as Errors from "./Errors.js"
/** @since 0.1.0 */
export * as ExtractiveSummarizer from "./layers/ExtractiveSummarizer.js"
/** @since 0.1.0 */
export * as Json from "./schema/Json.js"
/** @since 0.1.0 */
export * as Memory from "./strategies/Memory.js"
/** @since 0.1.0 */
export * as MemoryState from "./schema/MemoryState.js"
/** @since 0.1.0 */
export * as Message from "./schema/Message.js"
/** @since 0.4.0 */
export * as Options from "./schema/Options.js"
/** @since 0.3.0 */
export * as Overflow from "./core/overflow.js"
/** @since 0.4.0 */
export * as Retention from "./core/artifacts.js"
/** @since 0.4.0 */
export * as Recall from "./core/recall.js"
/** @since 0.1.0 */
export * as RollingMemory from "./strategies/RollingMemory.js"
/** @since 0.1.0 */
export * as Summarizer from "./services/Summarizer.js"
/** @since 0.1.0 */
export * as SummaryMemory from "./strategies/SummaryMemory.js"
/** @since 0.2.0 */
export * as Telemetry from "./Telemetry.js"
/** @since 0.1.0 */
export * as TokenCounter from "./services/TokenCounter.js"
/** @since 0.4.0 */
export * as ToolResults from "./core/toolResults.js"
/** @since 0.3.0 */
export * as Usage from "./core/usage.js"
/** @since 0.2.0 */
export * as Validity from "./Validity.js"
/** @since 0.5.0 */
export * as ValiditySchema from "./schema/Violation.js"
/** @since 0.1.0 */
export * as WindowMemory from "./strategies/WindowMemory.js"
/** @since 0.1.0 */
export {
  ArchiveError,
  ConfigError,
  ContextOverflowError,
  ContextWindowError,
  InvalidMessageError,
  StateDecodeError,
  SummarizerError,
  SummaryBudgetError,
  TokenCountError,
  UsageError
} from "./Errors.js"
