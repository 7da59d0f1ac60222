/**
 * Unknown options on the `rollmem` command line.
 *
 * @effect/cli reads a token it does not know as a positional argument (a file
 * of `rollmem replay`, the id of `rollmem show`), or leaves it over after
 * them; unchecked, `rollmem replay chat.jsonl --max-token 500` would read
 * `--max-token` and `500` as two more files. These helpers name such a token
 * as an unknown option, with the closest option the command knows, measured
 * as @effect/cli's own auto-correction measures it (its Levenshtein distance,
 * at most its default limit of 2).
 *
 * @example
 * ```sh
 * $ rollmem replay chat.jsonl --max-token 500
 * rollmem: unknown option --max-token; did you mean --max-tokens?
 * ```
 *
 * @since 0.1.0
 */
import * as AutoCorrect from "@effect/cli/AutoCorrect"
import * as CliConfig from "@effect/cli/CliConfig"
import type * as Usage from "@effect/cli/Usage"

/**
 * Whether a command-line token is shaped like an option: it starts with `-`
 * and is not `-` alone (which by convention names standard input, a value).
 *
 * @since 0.1.0
 * @category guards
 */
export const isOptionLike = (token: string): boolean => token.length > 1 && token.startsWith("-")

/**
 * The option name a token gives: `--max-token=500` names `--max-token`;
 * any other token is its own name.
 *
 * @since 0.1.0
 * @category combinators
 */
export const nameOf = (token: string): string => {
  const equals = token.indexOf("=")
  return token.startsWith("--") && equals > 2 ? token.slice(0, equals) : token
}

/**
 * The option names in a usage (`--strategy`, `-h`, `--help`...), in the
 * order the usage lists them; positional arguments (`<files>`) are left out.
 *
 * @since 0.1.0
 * @category combinators
 */
export const optionNames = (usage: Usage.Usage): Array<string> => {
  switch (usage._tag) {
    case "Named":
      return usage.names.filter(isOptionLike)
    case "Optional":
    case "Repeated":
      return optionNames(usage.usage)
    case "Alternation":
    case "Concat":
      return [...optionNames(usage.left), ...optionNames(usage.right)]
    case "Empty":
    case "Mixed":
      return []
  }
}

/** @effect/cli's settings for comparing names: case-insensitive, suggestions within distance 2. */
const config = CliConfig.defaultConfig

const normalize = (name: string): string => CliConfig.normalizeCase(config, name)

/**
 * The known option closest to `name`, as @effect/cli suggests one: an edit
 * distance of at most 2, case ignored, and only names of more than 3
 * letters (so `-x` is not taken for `-h`); on a tie, the first in `known`.
 * Undefined when none is that close.
 *
 * @since 0.1.0
 * @category combinators
 */
export const closest = (name: string, known: ReadonlyArray<string>): string | undefined => {
  let best: string | undefined
  let bestDistance = Infinity
  for (const candidate of known) {
    if (candidate.replace(/^-+/, "").length <= config.autoCorrectLimit + 1) continue
    const distance = AutoCorrect.levensteinDistance(name, candidate, config)
    if (distance <= config.autoCorrectLimit && distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  return best
}

/**
 * The one-line error for an option-shaped `token` that `command` (its name
 * as typed, `rollmem replay`) could not take, given the options it knows:
 *
 * - `rollmem: unknown option --max-token; did you mean --max-tokens?`
 * - `rollmem: unknown option --foo; see rollmem replay --help`, when no
 *   known option is close;
 * - `rollmem: option --show given twice, without its value, or out of place`,
 *   when the token is an option the command knows: @effect/cli reads an
 *   option once, and leaves it over when its value is missing, when it comes
 *   after `--`, or after a first argument shaped like an option.
 *
 * @since 0.1.0
 * @category combinators
 */
export const message = (token: string, known: ReadonlyArray<string>, command: string): string => {
  const name = nameOf(token)
  if (known.some((option) => normalize(option) === normalize(name))) {
    return `rollmem: option ${name} given twice, without its value, or out of place`
  }
  const suggestion = closest(name, known)
  return suggestion === undefined
    ? `rollmem: unknown option ${name}; see ${command} --help`
    : `rollmem: unknown option ${name}; did you mean ${suggestion}?`
}
