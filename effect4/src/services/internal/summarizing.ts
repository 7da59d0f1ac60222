/**
 * What the summarizer constructors and the Promise facade share on the
 * Effect 4 line, as `src/services/internal/summarizing.ts` on the Effect 3
 * line.
 *
 * @internal
 */
import type { SummarizerError } from "../../Errors.js"

/**
 * The `SummarizerError`s a summarizer function threw or rejected with itself,
 * passed on as they are: the Promise facade hands such an error back whole
 * instead of its `cause`, which it hands back for the errors rollmem wraps
 * around what a summarizer threw (docs/contract.md section 9).
 *
 * @internal
 */
export const thrownAsIs = new WeakSet<SummarizerError>()

/**
 * The `SummarizerError`s rollmem raises itself over what a summarizer
 * returned (a result that is not a string): rollmem's refusal, not the
 * summarizer's error, so the Promise facade throws the `SummarizerError`
 * whole rather than its `cause` (docs/contract.md section 9).
 *
 * @internal
 */
export const refusals = new WeakSet<SummarizerError>()
