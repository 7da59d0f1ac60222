/**
 * What every strategy's memory offers on the Effect 4 line: adds, reads,
 * `clear`, state, usage (docs/contract.md sections 5 to 8 and 16.4).
 *
 * @since 1.0.0
 */
import type { CompactOptions, Memory, Usage } from "./internal/engine.js"

export type {
  /** The options of `compact`. @since 1.0.0 */
  CompactOptions,
  /** A memory of any strategy. @since 1.0.0 */
  Memory,
  /** A provider's usage figures. @since 1.0.0 */
  Usage
}
