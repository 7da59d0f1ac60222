/**
 * Which options of `rollmem replay` each strategy takes: an option that sets
 * a memory option (`--max-tokens` sets `maxTokens`) applies to the
 * strategies whose memory takes that option (`Memory.optionKeys`, the lists
 * every constructor checks options against); the summarizer and its budget
 * apply to the strategies that keep a summary (those taking
 * `maxSummaryTokens`: rolling and summary). Every other option (the
 * tokenizer, the formats, `--show`, `--store`...) applies to every strategy.
 *
 * An option given for a strategy that does not take it is refused, never
 * ignored: `rollmem: invalid option --pin-system: does not apply to the
 * buffer strategy (which takes --summary-role)`.
 *
 * @since 0.3.0
 */
import { ConfigError } from "../Errors.js"
import * as Options from "../schema/Options.js"
import * as Memory from "../strategies/Memory.js"
import type { Strategy } from "./Replay.js"

/**
 * The options of `rollmem replay` that some strategy does not take, by
 * their name without dashes (as `--compare` sets write them), each with the
 * memory option whose strategies take it: every row of `Options.flags`
 * under its name and its older names (`summary-tokens` is the older name of
 * `max-summary-tokens`), and `summarizer`, which folds evicted turns into a
 * summary bounded by `maxSummaryTokens`, listed just before that budget.
 *
 * @since 0.3.0
 * @category constants
 */
export const memoryKeys: { readonly [name: string]: string } = Object.fromEntries(
  Options.flags.flatMap((row) => {
    const key = row.option.split(".")[0]
    const names = [row.flag, ...(row.aliases ?? [])].map((name) => [name, key] as const)
    return key === "maxSummaryTokens" ? [["summarizer", key] as const, ...names] : names
  })
)

/** The older names of the flags, which lists of the options taken leave out. */
const aliases = new Set(Options.flags.flatMap((row) => row.aliases ?? []))

/**
 * Whether `strategy` takes the option `name` (without dashes); an option
 * not in {@link memoryKeys} applies to every strategy.
 *
 * @since 0.3.0
 * @category predicates
 */
export const takes = (strategy: Strategy, name: string): boolean => {
  const key = Object.hasOwn(memoryKeys, name) ? memoryKeys[name] : undefined
  return key === undefined || Memory.optionKeys[strategy].includes(key)
}

/**
 * The options of {@link memoryKeys} that `strategy` takes, in the order of
 * `Options.flags` (without the older names, such as `summary-tokens`).
 *
 * @since 0.3.0
 * @category combinators
 */
export const takenBy = (strategy: Strategy): ReadonlyArray<string> =>
  Object.keys(memoryKeys).filter((name) => !aliases.has(name) && takes(strategy, name))

/**
 * The first of `names` (options without dashes) that `strategy` does not
 * take, if any.
 *
 * @since 0.3.0
 * @category combinators
 */
export const firstNotTaken = (strategy: Strategy, names: ReadonlyArray<string>): string | undefined =>
  names.find((name) => !takes(strategy, name))

/**
 * Why an option does not apply: `does not apply to the buffer strategy
 * (which takes --summary-role)`; `dashes` is how the options taken are
 * written (`"--"` on the command line, `""` in a `--compare` set).
 *
 * @since 0.3.0
 * @category combinators
 */
export const doesNotApply = (strategy: Strategy, dashes: "--" | ""): string => {
  const taken = takenBy(strategy)
  return `does not apply to the ${strategy} strategy (${
    taken.length === 0 ? "which takes none of them" : `which takes ${taken.map((n) => dashes + n).join(", ")}`
  })`
}

/**
 * Checks the options given (`given`, without dashes) against `strategy`: a
 * `ConfigError` naming the first one it does not take (`invalid option
 * --pin-system: does not apply to the buffer strategy (which takes
 * --summary-role)`), undefined when it takes them all. `dashes` is how the
 * description writes the options taken (see {@link doesNotApply}).
 *
 * @since 0.3.0
 * @category constructors
 */
export const check = (
  strategy: Strategy,
  given: ReadonlyArray<string>,
  dashes: "--" | "" = "--"
): ConfigError | undefined => {
  const name = firstNotTaken(strategy, given)
  return name === undefined
    ? undefined
    : new ConfigError({ option: `--${name}`, description: doesNotApply(strategy, dashes) })
}
