/**
 * Checking a `rollmem` command line before @effect/cli runs it, so that
 * every refusal names the option at fault:
 *
 * - an option the command does not know, wherever it stands (@effect/cli
 *   reads it as a positional argument, or leaves it over): `rollmem: unknown
 *   option --max-token; did you mean --max-tokens?` (see `UnknownOption.ts`);
 * - a value @effect/cli refuses, which it describes without the option
 *   ("'abc' is not a integer", "Expected one of the following cases: ..."):
 *   `rollmem: --max-tokens: 'abc' is not an integer`, `rollmem: --strategy:
 *   'lru' is not one of rolling, buffer, window, summary`;
 * - an option given under two of its names, which @effect/cli takes for
 *   one given twice: `rollmem: --summary-tokens is another name of
 *   --max-summary-tokens: give one`.
 *
 * - any other command line @effect/cli does not parse, in its words after
 *   `rollmem:` (`rollmem: Missing argument <files>`, `rollmem: Invalid
 *   subcommand for rollmem - use one of 'replay', 'show'`).
 *
 * Each is one line on stderr, and the command fails with @effect/cli's
 * `ValidationError`.
 *
 * @example
 * ```sh
 * $ rollmem replay chat.jsonl --max-tokens abc
 * rollmem: --max-tokens: 'abc' is not an integer
 * ```
 *
 * @since 0.2.0
 */
import * as BuiltInOptions from "@effect/cli/BuiltInOptions"
import type * as CliApp from "@effect/cli/CliApp"
import * as CliConfig from "@effect/cli/CliConfig"
import * as Command from "@effect/cli/Command"
import * as Descriptor from "@effect/cli/CommandDescriptor"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as CliOptions from "@effect/cli/Options"
import * as Usage from "@effect/cli/Usage"
import * as ValidationError from "@effect/cli/ValidationError"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import * as Compare from "./Compare.js"
import * as UnknownOption from "./UnknownOption.js"

/**
 * Every option a command knows, as its usage names them: its own, then
 * @effect/cli's built-in ones (`--help`, `--version`...).
 *
 * @since 0.2.0
 * @category combinators
 */
export const knownOptions = <A>(descriptor: Descriptor.Command<A>): Array<string> => [
  ...UnknownOption.optionNames(Descriptor.getUsage(descriptor)),
  ...UnknownOption.optionNames(
    CliOptions.getUsage(BuiltInOptions.builtInOptions(descriptor, Usage.empty, HelpDoc.empty))
  )
]

/**
 * A check of positional values (`<files>`, `<id>`), which @effect/cli may
 * have taken from a mistyped option: the first value shaped like an option
 * (see `UnknownOption.isOptionLike`) that `isValue` does not accept fails the
 * parse, naming the unknown option and the closest one `command` knows.
 *
 * @since 0.2.0
 * @category combinators
 */
export const refuseOptions = (
  command: string,
  known: () => ReadonlyArray<string>,
  isValue: (value: string) => Effect.Effect<boolean, never, FileSystem.FileSystem>
) =>
(values: ReadonlyArray<string>): Effect.Effect<void, HelpDoc.HelpDoc, FileSystem.FileSystem> =>
  Effect.forEach(values, (value) =>
    UnknownOption.isOptionLike(value)
      ? Effect.flatMap(
        isValue(value),
        (accepted) => accepted ? Effect.void : Effect.fail(HelpDoc.p(UnknownOption.message(value, known(), command)))
      )
      : Effect.void, { discard: true })

/** The value given to an option named `names` in `args` (`--name value` or `--name=value`), if any. */
const valueOf = (args: ReadonlyArray<string>, names: ReadonlyArray<string>): string | undefined => {
  for (let i = 0; i < args.length; i++) {
    const name = UnknownOption.nameOf(args[i])
    if (!names.includes(name)) continue
    return name === args[i] ? args[i + 1] : args[i].slice(name.length + 1)
  }
  return undefined
}

const cases = /^Expected one of the following cases: (.*)$/

/**
 * @effect/cli's description of a refused value, with the option named:
 * `--max-tokens: 'abc' is not an integer`, `--strategy: 'lru' is not one of
 * rolling, buffer, window, summary`, `--max-tokens: '1e30' is out of range:
 * the largest accepted value is 9007199254740991`, else `--name: <its text>`.
 *
 * @since 0.2.0
 * @category combinators
 */
export const describeValue = (option: string, value: string | undefined, text: string): string => {
  const choices = cases.exec(text)
  if (choices !== null && value !== undefined) return `${option}: '${value}' is not one of ${choices[1]}`
  // a whole number past the safe range is out of range, naming the largest value taken (`1e30`)
  if (/ is not a integer$/.test(text) && value !== undefined) {
    const problem = Compare.integerProblem(value)
    if (problem !== undefined) return `${option}: ${problem}`
  }
  return `${option}: ${text.replace(/ is not a integer$/, " is not an integer")}`
}

const textOf = (error: ValidationError.ValidationError): string | undefined =>
  ValidationError.isInvalidValue(error) ? HelpDoc.toAnsiText(error.error).trim() : undefined

/** A parse error's text on one line (@effect/cli's own errors are one paragraph, or a few). */
const oneLine = (error: ValidationError.ValidationError): string =>
  HelpDoc.toAnsiText(error.error).trim().split(/\s*\n\s*/).join(" ")

/**
 * The option of `options` that refuses its value in `args` with `text`
 * (each option checked alone, as @effect/cli checks it), named with that
 * value: undefined when none does.
 */
const namedValueError = (
  args: ReadonlyArray<string>,
  options: ReadonlyArray<CliOptions.Options<unknown>>,
  text: string,
  config: CliConfig.CliConfig
): Effect.Effect<string | undefined, never, CliApp.CliApp.Environment> =>
  Effect.gen(function*() {
    for (const option of options) {
      const processed = yield* Effect.either(CliOptions.processCommandLine(option, args, config))
      if (Either.isRight(processed) || textOf(processed.left) !== text) continue
      const name = Option.getOrElse(CliOptions.getIdentifier(option), () => "option")
      return `rollmem: ${
        describeValue(name, valueOf(args, UnknownOption.optionNames(CliOptions.getUsage(option))), text)
      }`
    }
    return undefined
  })

/**
 * What is wrong with `argv` (see the module docs), as the one line to
 * print, or undefined when nothing is. `program` is the command's name as typed (`rollmem`);
 * `options` gives each subcommand's options by name.
 *
 * @since 0.2.0
 * @category combinators
 */
export const check = <Name extends string, R, E, A>(
  command: Command.Command<Name, R, E, A>,
  program: string,
  args: ReadonlyArray<string>,
  options: (subcommand: string) => ReadonlyArray<CliOptions.Options<unknown>>,
  config: CliConfig.CliConfig
): Effect.Effect<HelpDoc.HelpDoc | undefined, never, CliApp.CliApp.Environment> =>
  Effect.gen(function*() {
    const subcommands = Command.getSubcommands(command)
    const name = args.find((arg) => HashMap.has(subcommands, arg))
    const twice = name === undefined ? undefined : otherName(args, options(name), config)
    if (twice !== undefined) return HelpDoc.p(twice)
    const parsed = yield* Effect.either(Descriptor.parse(command.descriptor, [program, ...args], config))
    if (Either.isLeft(parsed)) {
      const text = textOf(parsed.left)
      const line = text === undefined || name === undefined
        ? undefined
        : yield* namedValueError(args, options(name), text, config)
      if (line !== undefined) return HelpDoc.p(line)
      // Any other parse error in @effect/cli's words (or an argument check's own), as one line of ours:
      // `rollmem: Missing argument <files>`.
      const own = oneLine(parsed.left)
      return HelpDoc.p(own.startsWith(`${program}: `) ? own : `${program}: ${own}`)
    }
    if (name === undefined || parsed.right._tag !== "UserDefined") return undefined
    const token = parsed.right.leftover.find(UnknownOption.isOptionLike)
    return token === undefined
      ? undefined
      : HelpDoc.p(
        UnknownOption.message(token, knownOptions(HashMap.unsafeGet(subcommands, name)), `${program} ${name}`)
      )
  })

/**
 * An option given under two of its names (`--summary-tokens 100
 * --max-summary-tokens 200`; @effect/cli reads an option once, and takes the
 * other for a file or leaves it over): `rollmem: --summary-tokens is another
 * name of --max-summary-tokens: give one`. Only tokens before `--` are
 * options; undefined when no option is.
 *
 * @since 0.3.0
 * @category combinators
 */
export const otherName = (
  args: ReadonlyArray<string>,
  options: ReadonlyArray<CliOptions.Options<unknown>>,
  config: CliConfig.CliConfig
): string | undefined => {
  const normalize = (name: string) => CliConfig.normalizeCase(config, name)
  const end = args.indexOf("--")
  const given = new Set(
    (end < 0 ? args : args.slice(0, end)).filter(UnknownOption.isOptionLike).map((arg) =>
      normalize(UnknownOption.nameOf(arg))
    )
  )
  for (const option of options) {
    const names = UnknownOption.optionNames(CliOptions.getUsage(option))
    if (names.length < 2) continue
    const primary = Option.getOrElse(CliOptions.getIdentifier(option), () => names[0])
    const used = names.filter((n) => given.has(normalize(n)))
    const alias = used.find((n) => normalize(n) !== normalize(primary))
    if (used.length >= 2 && alias !== undefined) return `rollmem: ${alias} is another name of ${primary}: give one`
  }
  return undefined
}

/**
 * Prints `error` on stderr (no blank line after it) and fails with it, as
 * @effect/cli does with its own parse errors.
 *
 * @since 0.2.0
 * @category constructors
 */
export const refuse = (error: HelpDoc.HelpDoc): Effect.Effect<never, ValidationError.ValidationError> =>
  Effect.zipRight(Console.error(HelpDoc.toAnsiText(error).trimEnd()), Effect.fail(ValidationError.invalidValue(error)))
