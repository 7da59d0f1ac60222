/**
 * The option keys of each strategy: what `Memory.optionKeys` lists and what
 * every constructor checks options against (`internal/options.ts`). A new
 * strategy option is added here (and in the strategy's `Options`).
 *
 * @internal
 */
import { ConfigError } from "../../Errors.js"
import { checkObject, checkOptionKeys, describeValue } from "../../internal/options.js"

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

/** The keys of each strategy, by its name. @internal */
export const byStrategy: { readonly [S in "rolling" | "buffer" | "window" | "summary"]: ReadonlyArray<string> } = {
  rolling,
  buffer,
  window,
  summary
}

/**
 * The one check of options that name their strategy (`Memory.make`, stored
 * conversations): an object, a known `strategy` (else a `ConfigError` on
 * `strategy` listing the known ones), no key beyond `strategy`, that
 * strategy's keys and `extraKeys`. `undefined` when they pass.
 *
 * @internal
 */
export const checkStrategyOptions = (
  options: unknown,
  extraKeys: ReadonlyArray<string> = []
): ConfigError | undefined => {
  const notObject = checkObject(options)
  if (notObject !== undefined) return notObject
  const strategy = (options as { readonly strategy?: unknown }).strategy
  if (typeof strategy !== "string" || !Object.hasOwn(byStrategy, strategy)) {
    return new ConfigError({
      option: "strategy",
      description: `must be one of ${Object.keys(byStrategy).join(", ")}, got ${describeValue(strategy)}`
    })
  }
  const known = ["strategy", ...byStrategy[strategy as keyof typeof byStrategy], ...extraKeys]
  return checkOptionKeys(options, known, `the ${strategy} strategy`)
}
