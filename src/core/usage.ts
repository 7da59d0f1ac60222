/**
 * Correcting a token counter by the provider's usage figures
 * (docs/contract.md section 16.4): after a request, the provider's count of
 * the memory's part of the prompt over the memory's own count of the context
 * it read back is one sample; the correction ratio starts at the first
 * sample and then moves halfway to each new one (an exponential average,
 * weight {@link SMOOTHING}), bounded to [{@link MIN_RATIO}, {@link MAX_RATIO}].
 * Budgets are then checked in the provider's terms: `ratio * counted`.
 *
 * Pure: no Effect import (both Effect lines compile it).
 *
 * @since 0.3.0
 */

/**
 * The smallest correction ratio kept: a counter may overcount by at most 2x.
 *
 * @since 0.3.0
 * @category constants
 */
export const MIN_RATIO = 0.5

/**
 * The largest correction ratio kept: a counter may undercount by at most 2x.
 *
 * @since 0.3.0
 * @category constants
 */
export const MAX_RATIO = 2

/**
 * The weight of a new sample in the ratio's exponential average.
 *
 * @since 0.3.0
 * @category constants
 */
export const SMOOTHING = 0.5

const clamp = (ratio: number): number => Math.min(MAX_RATIO, Math.max(MIN_RATIO, ratio))

/**
 * The ratio after one recorded usage: `measured` is the provider's count of
 * the memory's context (its whole prompt count less the overhead outside the
 * memory), `counted` the memory's own count of the same context. `current`
 * is `undefined` before the first sample. A sample with a count that is not
 * a positive finite number changes nothing.
 *
 * @example
 * ```ts
 * import { Usage } from "rollmem"
 *
 * Usage.nextRatio(undefined, 1250, 1000) // 1.25: the first sample as it is
 * Usage.nextRatio(1.25, 1000, 1000) // 1.125: halfway to the new sample
 * ```
 *
 * @since 0.3.0
 * @category combinators
 */
export const nextRatio = (current: number | undefined, measured: number, counted: number): number | undefined => {
  if (!(Number.isFinite(measured) && measured > 0 && Number.isFinite(counted) && counted > 0)) return current
  const sample = clamp(measured / counted)
  return current === undefined ? sample : clamp(current + SMOOTHING * (sample - current))
}

/**
 * A budget in the provider's tokens expressed in the counter's own tokens:
 * `floor(budget / ratio)`, at least 1 (a budget is a positive integer).
 *
 * @since 0.3.0
 * @category combinators
 */
export const inCounterTokens = (budget: number, ratio: number | undefined): number =>
  ratio === undefined || ratio === 1 ? budget : Math.max(1, Math.floor(budget / ratio))
