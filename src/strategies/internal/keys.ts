/**
 * The option keys of each strategy: what `Memory.optionKeys` lists and what
 * every constructor checks options against (`internal/options.ts`). A new
 * strategy option is added here (and in the strategy's `Options`).
 *
 * @internal
 */

/** RollingMemory's options that a stored conversation takes too. @internal */
export const rolling: ReadonlyArray<string> = [
  "maxTokens",
  "targetTokens",
  "boundary",
  "pinSystem",
  "clearToolResults",
  "summaryRole",
  "maxSummaryTokens"
]

/** RollingMemory's background-folding options (`makeScoped` only, docs/contract.md section 5.1). @internal */
export const background: ReadonlyArray<string> = ["fold", "hardMaxTokens", "foldRetry"]

/** @internal */
export const buffer: ReadonlyArray<string> = ["summaryRole"]

/** @internal */
export const window: ReadonlyArray<string> = ["maxMessages", "targetMessages", "boundary", "pinSystem", "summaryRole"]

/** @internal */
export const summary: ReadonlyArray<string> = ["summaryRole", "maxSummaryTokens"]
