/**
 * rollmem on Effect 4: conversation memory (a running summary plus a
 * token-bounded buffer of recent turns) with the same options, semantics
 * and state files as the Effect 3 line.
 *
 * @since 1.0.0
 */
export * from "./Errors.js"
export * as MemoryState from "./schema/MemoryState.js"
export * as Message from "./schema/Message.js"
export * as Options from "./schema/Options.js"
export * as Archive from "./services/Archive.js"
export * as Summarizer from "./services/Summarizer.js"
export * as TokenCounter from "./services/TokenCounter.js"
export * as BufferMemory from "./strategies/BufferMemory.js"
export * as Memory from "./strategies/Memory.js"
export * as RollingMemory from "./strategies/RollingMemory.js"
export * as SummaryMemory from "./strategies/SummaryMemory.js"
export * as WindowMemory from "./strategies/WindowMemory.js"
export * as Telemetry from "./Telemetry.js"
/** What a target provider rejects in a context (docs/contract.md section 15.2), pure: the Effect 3 line's module. @since 1.0.0 */
export * as Validity from "../../src/core/validity.js"
