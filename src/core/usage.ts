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
 * @example
 * ```ts
 * import { Usage } from "rollmem"
 *
 * Usage.nextRatio(undefined, 100, 1000) // 0.5: a measured 0.1 is clamped to MIN_RATIO
 * ```
 *
 * @since 0.3.0
 * @category constants
 */
export const MIN_RATIO = 0.5

/**
 * The largest correction ratio kept: a counter may undercount by at most 2x.
 *
 * @example
 * ```ts
 * import { Usage } from "rollmem"
 *
 * Usage.nextRatio(undefined, 5000, 1000) // 2: a measured 5 is clamped to MAX_RATIO
 * ```
 *
 * @since 0.3.0
 * @category constants
 */
export const MAX_RATIO = 2

/**
 * The weight of a new sample in the ratio's exponential average.
 *
 * @example
 * ```ts
 * import { Usage } from "rollmem"
 *
 * Usage.nextRatio(1, 1200, 1000) // 1.1: halfway (SMOOTHING 0.5) from 1 to the measured 1.2
 * ```
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
 * @example
 * ```ts
 * import { Usage } from "rollmem"
 *
 * Usage.inCounterTokens(8000, 1.25) // 6400: a budget of 8,000 provider tokens in the counter's tokens
 * Usage.inCounterTokens(8000, undefined) // 8000
 * ```
 *
 * @since 0.3.0
 * @category combinators
 */
export const inCounterTokens = (budget: number, ratio: number | undefined): number =>
  ratio === undefined || ratio === 1 ? budget : Math.max(1, Math.floor(budget / ratio))

const count = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined

const record = (value: unknown): Readonly<Record<string, unknown>> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Readonly<Record<string, unknown>>
    : undefined

/** What reading a usage gave: the prompt count, a problem (a malformed figure), or nothing to read. */
type Read = { readonly tokens: number; readonly problem?: undefined } | { readonly problem: string }

/** The fields of a usage object that give the whole prompt's count, in the order they are tried. */
const PROMPT_FIELDS = ["inputTokens", "input_tokens", "prompt_tokens", "promptTokenCount"] as const

/** The fields added to Anthropic's `input_tokens`. */
const CACHE_FIELDS = ["cache_read_input_tokens", "cache_creation_input_tokens"] as const

const present = (value: unknown): boolean => value !== undefined && value !== null

/** A figure as a warning shows it: JSON, `NaN` and the infinities by name. */
const show = (value: unknown): string => {
  if (typeof value === "number" && !Number.isFinite(value)) return String(value)
  const json = JSON.stringify(value)
  return json === undefined ? String(value) : json.length > 80 ? `${json.slice(0, 77)}...` : json
}

const notCount = (field: string, value: unknown): Read => ({
  problem: `${field} is ${show(value)}, not a non-negative integer`
})

/**
 * The whole prompt's size from one usage object as a provider reports it
 * (docs/contract.md section 16.4): the first of {@link PROMPT_FIELDS}
 * present (neither `undefined` nor `null`): `inputTokens` (rollmem's own
 * and the AI SDK's), `input_tokens` (Anthropic, with
 * `cache_read_input_tokens` and `cache_creation_input_tokens` added; OpenAI
 * Responses), `prompt_tokens` (OpenAI chat), `promptTokenCount` (Gemini).
 * A figure read that is not a non-negative safe integer is a problem, as is
 * an object with none of them.
 */
const readPrompt = (usage: Readonly<Record<string, unknown>>): Read => {
  const field = PROMPT_FIELDS.find((f) => present(usage[f]))
  if (field === undefined) return { problem: `it holds no prompt count (${PROMPT_FIELDS.join(", ")})` }
  const value = count(usage[field])
  if (value === undefined) return notCount(field, usage[field])
  if (field !== "input_tokens") return { tokens: value }
  let total = value
  for (const cache of CACHE_FIELDS) {
    if (!present(usage[cache])) continue
    const n = count(usage[cache])
    if (n === undefined) return notCount(cache, usage[cache])
    total += n
  }
  return Number.isSafeInteger(total)
    ? { tokens: total }
    : { problem: `its prompt count ${total} is not a safe integer` }
}

const promptTokens = (usage: Readonly<Record<string, unknown>>): number | undefined => {
  const read = readPrompt(usage)
  return read.problem === undefined ? read.tokens : undefined
}

/**
 * A transcript's prompt count as a `recordUsage` sample: a request always has
 * input tokens, so a count of 0 is a usage read wrong (docs/contract.md
 * section 16.4), a problem.
 */
const readSample = (usage: Readonly<Record<string, unknown>>): Read => {
  const read = readPrompt(usage)
  return read.problem === undefined && read.tokens === 0
    ? { problem: "its prompt count is 0, not a positive integer" }
    : read
}

/** A message's usage read from its metadata (see {@link reportedInputTokens}); `undefined` when it carries none. */
const readReported = (metadata: Readonly<Record<string, unknown>>): Read | undefined => {
  if (metadata.usage !== undefined) {
    const own = record(metadata.usage)
    return own === undefined ? { problem: `usage is ${show(metadata.usage)}, not an object` } : readSample(own)
  }
  const items = record(metadata["rollmem.provider"])?.items
  if (!Array.isArray(items)) return undefined
  for (const item of items) {
    const fields = record(item)
    if (fields === undefined) continue
    const key = fields.usage !== undefined ? "usage" : fields.usageMetadata !== undefined ? "usageMetadata" : undefined
    if (key === undefined) continue
    const usage = record(fields[key])
    return usage === undefined ? { problem: `${key} is ${show(fields[key])}, not an object` } : readSample(usage)
  }
  return undefined
}

/**
 * The provider's count of the whole prompt that produced a message, when the
 * message carries it (docs/contract.md section 16.4), read from its
 * metadata: rollmem's own `usage: { inputTokens }`, or the provider's object
 * kept verbatim by a forward-compatible reader under `rollmem.provider`
 * (its `usage`, or Gemini's `usageMetadata`) with the fields
 * `recordUsage`'s contract lists per provider (the first present; with
 * `input_tokens`, Anthropic's cache counts added). `undefined` when the
 * message carries none, or one that cannot be read (a figure that is not a
 * non-negative safe integer, a prompt count of 0: {@link reportedUsageProblem}
 * says why). What
 * `rollmem replay` records before adding an assistant message.
 *
 * @example
 * ```ts
 * import { Usage } from "rollmem"
 *
 * Usage.reportedInputTokens({ usage: { inputTokens: 1200 } }) // 1200
 * Usage.reportedInputTokens({
 *   "rollmem.provider": {
 *     format: "anthropic",
 *     items: [{ role: "assistant", usage: { input_tokens: 10, cache_read_input_tokens: 1000, output_tokens: 5 } }]
 *   }
 * }) // 1010
 * Usage.reportedInputTokens({}) // undefined
 * ```
 *
 * @since 0.4.0
 * @category getters
 */
export const reportedInputTokens = (metadata: Readonly<Record<string, unknown>>): number | undefined => {
  const read = readReported(metadata)
  return read === undefined || read.problem !== undefined ? undefined : read.tokens
}

/**
 * Why the usage a message carries cannot be read (docs/contract.md section
 * 13.2), or `undefined` when it carries none or a readable one: the usage
 * is not an object, holds no prompt count, a figure read (a prompt count,
 * Anthropic's cache counts) is not a non-negative safe integer (`NaN`, a
 * negative number, a fraction, a string), or the prompt count is 0 (a
 * request always has input tokens: `recordUsage` refuses it). {@link reportedInputTokens} reads
 * such a usage as none; `rollmem replay` warns naming where it was read.
 *
 * @example
 * ```ts
 * import { Usage } from "rollmem"
 *
 * Usage.reportedUsageProblem({ usage: { prompt_tokens: "812" } }) // 'prompt_tokens is "812", not a non-negative integer'
 * Usage.reportedUsageProblem({ usage: { input_tokens: 10, cache_read_input_tokens: -1 } })
 * // "cache_read_input_tokens is -1, not a non-negative integer"
 * Usage.reportedUsageProblem({ usage: { inputTokens: 1200 } }) // undefined
 * ```
 *
 * @since 0.4.0
 * @category getters
 */
export const reportedUsageProblem = (metadata: Readonly<Record<string, unknown>>): string | undefined =>
  readReported(metadata)?.problem

/**
 * What one provider request cost, as its response reports it
 * (docs/contract.md section 16.5): `inputTokens`, the whole prompt (read as
 * {@link reportedInputTokens} reads it), and `outputTokens`, the tokens
 * generated (`undefined` when the response does not say).
 *
 * @since 0.4.0
 * @category models
 */
export interface RequestUsage {
  readonly inputTokens: number
  readonly outputTokens: number | undefined
}

/**
 * The usage one response reports (docs/contract.md section 16.5), from the
 * provider's usage object as its SDK returns it: the whole prompt as
 * {@link reportedInputTokens} reads it (`inputTokens`; Anthropic's
 * `input_tokens` plus its cache reads and writes; OpenAI's `prompt_tokens`
 * or `input_tokens`; Gemini's `promptTokenCount`) and the output
 * (`outputTokens`, `output_tokens`, `completion_tokens` or
 * `candidatesTokenCount`, the first present). Anthropic's `iterations`
 * entries of type `compaction` (server-side compaction, which the top-level
 * fields leave out) are added to both. `undefined` when the object has no
 * prompt count a non-negative safe integer (a provider that reports none,
 * or a malformed figure).
 *
 * @example
 * ```ts
 * import { Usage } from "rollmem"
 *
 * Usage.requestUsage({ prompt_tokens: 812, completion_tokens: 95, total_tokens: 907 })
 * // { inputTokens: 812, outputTokens: 95 }
 * Usage.requestUsage({ input_tokens: 10, cache_read_input_tokens: 800, output_tokens: 40 })
 * // { inputTokens: 810, outputTokens: 40 }
 * Usage.requestUsage(undefined) // undefined
 * ```
 *
 * @since 0.4.0
 * @category getters
 */
export const requestUsage = (usage: unknown): RequestUsage | undefined => {
  const fields = record(usage)
  if (fields === undefined) return undefined
  let inputTokens = promptTokens(fields)
  if (inputTokens === undefined) return undefined
  let outputTokens = count(fields.outputTokens) ?? count(fields.output_tokens) ?? count(fields.completion_tokens) ??
    count(fields.candidatesTokenCount)
  if (Array.isArray(fields.iterations)) {
    for (const entry of fields.iterations) {
      const iteration = record(entry)
      if (iteration?.type !== "compaction") continue
      const input = promptTokens(iteration)
      if (input !== undefined) inputTokens += input
      const output = count(iteration.output_tokens)
      if (output !== undefined) outputTokens = (outputTokens ?? 0) + output
    }
  }
  return Number.isSafeInteger(inputTokens) && (outputTokens === undefined || Number.isSafeInteger(outputTokens))
    ? { inputTokens, outputTokens }
    : undefined
}
