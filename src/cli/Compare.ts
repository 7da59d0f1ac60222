/**
 * Option sets for `rollmem replay --compare` and the bench: a set is written
 * with the command line's own option names, without dashes, comma-separated:
 * `max-tokens=2000,target-tokens=1000,clear-tool-results=3,boundary=turn,pin-system`
 * (`clear-until=budget` with `clear-tool-results`).
 * A set changes the replay's options (the command line's, or the bench's
 * base) and leaves the others as they are; a flag without a value (such as
 * `pin-system`) is set to true.
 *
 * The keys are those of {@link keys}: the strategy, the summarizer, and
 * every memory option's flag of `rollmem replay` (`Options.flags`; the
 * tokenizer is one per run).
 * An unknown key, a key given twice, or a value that is not of the option's
 * kind is a `ConfigError` naming the set and the key (with the closest known
 * key when one is close). So is an option of the set that the set's
 * strategy does not take (`StrategyOptions.ts`); the options given outside
 * the sets are the base column's, kept by a set whose strategy takes them.
 * The two budgets replace each other: a set giving `max-tokens` (without
 * `context-window`) drops the base's `--context-window` and `--reserve`, one
 * giving `context-window` (without `max-tokens`) the base's `--max-tokens`.
 *
 * @example
 * ```sh
 * rollmem replay chat.jsonl --compare "max-tokens=1000" --compare "max-tokens=4000,summary-tokens=200"
 * ```
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Rules from "../core/options.js"
import { type AddError, ConfigError } from "../Errors.js"
import * as Flags from "../schema/Options.js"
import type * as TokenCounter from "../services/TokenCounter.js"
import type { Conversation } from "./Input.js"
import {
  type Config,
  type Figures,
  keyOf,
  makeConfig,
  type Options,
  replay,
  replayConversation,
  type Report,
  totalsOf
} from "./Replay.js"
import * as UnknownOption from "./UnknownOption.js"

/**
 * How one key of a set changes the replay's {@link Options}.
 *
 * @since 0.2.0
 * @category models
 */
export interface Key {
  /** The option's name on the command line, without dashes. */
  readonly name: string
  /** `integer`: a value that parses as an integer (checked further by `makeConfig`); `text`: any text (a choice is checked by `makeConfig`); `flag`: no value, or `true`/`false`. */
  readonly kind: "integer" | "text" | "flag"
  readonly apply: (options: Options, value: string) => Options
  /** The key this one is another name of (`summary-tokens`: `max-summary-tokens`); a set gives one of them. */
  readonly aliasOf?: string | undefined
}

const textKey = (name: string, apply: (options: Options, value: string) => Options): Key => ({
  name,
  kind: "text",
  apply
})

/** The key of a memory option's flag (a row of `Options.flags`), under its name or an older one. */
const flagKey = (row: Flags.Flag, name: string): Key => ({
  name,
  kind: row.kind === "choice" ? "text" : row.kind,
  apply: (options, value) => ({
    ...options,
    [keyOf(row)]: row.kind === "integer" ? Number(value) : row.kind === "flag" ? value === "true" : value
  }),
  aliasOf: name === row.flag ? undefined : row.flag
})

const flagKeys = (row: Flags.Flag): Array<Key> => [row.flag, ...(row.aliases ?? [])].map((name) => flagKey(row, name))

/**
 * The keys a set may use, in the order `--help` lists them: `strategy`, the
 * budgets, the summarizer just before the summary budget, then every other
 * row of `Options.flags`, each under its name and its older names.
 *
 * @since 0.2.0
 * @category constants
 */
export const keys: ReadonlyArray<Key> = [
  textKey("strategy", (o, strategy) => ({ ...o, strategy })),
  ...Flags.flags.filter((row) => row.budget === true).flatMap((row) =>
    row.option === "maxSummaryTokens"
      ? [textKey("summarizer", (o, summarizer) => ({ ...o, summarizer })), ...flagKeys(row)]
      : flagKeys(row)
  ),
  ...Flags.flags.filter((row) => row.budget !== true).flatMap(flagKeys)
]

/**
 * A parsed option set: its text as given, and the changes it makes.
 *
 * @since 0.2.0
 * @category models
 */
export interface OptionSet {
  readonly text: string
  readonly changes: ReadonlyArray<{ readonly key: Key; readonly value: string }>
}

const INTEGER = /^[+-]?\d+$/

/**
 * Whether `text` is an integer as the command line writes one: decimal
 * digits (an optional sign), within the safe integer range (what
 * `--max-tokens` takes too; `0x10`, `1e3` and ` 7` are not).
 *
 * @since 0.3.0
 * @category predicates
 */
export const isInteger = (text: string): boolean => INTEGER.test(text) && Number.isSafeInteger(Number(text))

/** A number written in digits with an exponent (`1e30`, `2.5E+40`). */
const EXPONENT = /^[+-]?(?:\d+\.?\d*|\.\d+)e[+-]?\d+$/i

/**
 * For a whole number past the safe integer range, written in decimal digits
 * or with an exponent (`99999999999999999999`, `1e30`), the bound it passes:
 * `the largest accepted value is 9007199254740991` (below the range: `no
 * option takes a negative value`); `undefined` for any other text.
 *
 * @since 0.4.0
 * @category predicates
 */
export const outOfRange = (text: string): string | undefined => {
  if (isInteger(text)) return undefined
  const value = Number(text)
  const whole = INTEGER.test(text) || (EXPONENT.test(text) && (Number.isInteger(value) || !Number.isFinite(value)))
  if (!whole || Math.abs(value) <= Rules.MAX_COUNT) return undefined
  return value < 0 ? "no option takes a negative value" : `the largest accepted value is ${Rules.MAX_COUNT}`
}

/**
 * Why `text` is not an integer {@link isInteger} takes, as the command line
 * says it after the option's name: out of range for a whole number past the
 * safe range (see {@link outOfRange}), else not an integer; `undefined` when
 * it is one.
 *
 * @example
 * ```ts
 * integerProblem("1e30") // "'1e30' is out of range: the largest accepted value is 9007199254740991"
 * integerProblem("1.5") // "'1.5' is not an integer"
 * integerProblem("500") // undefined
 * ```
 *
 * @since 0.4.0
 * @category predicates
 */
export const integerProblem = (text: string): string | undefined => {
  if (isInteger(text)) return undefined
  const bound = outOfRange(text)
  return bound === undefined ? `'${text}' is not an integer` : `'${text}' is out of range: ${bound}`
}

/**
 * Parses one option set (see the module docs). Fails with `ConfigError`
 * (option `--compare`) for an empty set or entry, an unknown key, a key
 * given twice (or under two of its names: `summary-tokens is another name
 * of max-summary-tokens: give one`), or a value that does not fit its key.
 *
 * @since 0.2.0
 * @category constructors
 */
export const parse = (text: string): Effect.Effect<OptionSet, ConfigError> =>
  Effect.gen(function*() {
    const refuse = (description: string) =>
      new ConfigError({ option: "--compare", description: `"${text}": ${description}` })
    const entries = text.split(",").map((entry) => entry.trim())
    if (text.trim() === "") return yield* refuse("an option set is empty")
    const changes: Array<{ readonly key: Key; readonly value: string }> = []
    for (const entry of entries) {
      if (entry === "") return yield* refuse("an entry is empty (two commas, or one at an end)")
      const at = entry.indexOf("=")
      const name = (at < 0 ? entry : entry.slice(0, at)).trim().replace(/^--/, "")
      const given = at < 0 ? undefined : entry.slice(at + 1).trim()
      const key = keys.find((k) => k.name === name)
      if (key === undefined) {
        const names = keys.map((k) => k.name)
        const near = UnknownOption.closest(name, names)
        return yield* refuse(
          `unknown option ${name}${near === undefined ? "" : `; did you mean ${near}?`} (known: ${names.join(", ")})`
        )
      }
      if (changes.some((c) => c.key === key)) return yield* refuse(`${name} is given twice`)
      const other = changes.find((c) => (c.key.aliasOf ?? c.key.name) === (key.aliasOf ?? key.name))
      if (other !== undefined) {
        const alias = key.aliasOf === undefined ? other.key : key
        return yield* refuse(`${alias.name} is another name of ${alias.aliasOf}: give one`)
      }
      let value: string
      if (key.kind === "flag") {
        if (given !== undefined && given !== "true" && given !== "false") {
          return yield* refuse(`${name} takes no value, or true or false, got "${given}"`)
        }
        value = given ?? "true"
      } else if (given === undefined || given === "") {
        return yield* refuse(`${name} needs a value (${name}=...)`)
      } else if (key.kind === "integer" && !isInteger(given)) {
        const bound = outOfRange(given)
        return yield* refuse(
          bound === undefined
            ? `${name} must be an integer, got "${given}"`
            : `${name} ${JSON.stringify(given)} is out of range: ${bound}`
        )
      } else {
        value = given
      }
      changes.push({ key, value })
    }
    return { text: entries.join(","), changes }
  })

/**
 * The options with a set's changes made, in the set's order.
 *
 * @since 0.2.0
 * @category combinators
 */
export const apply = (options: Options, set: OptionSet): Options =>
  set.changes.reduce((o, change) => change.key.apply(o, change.value), options)

/**
 * One column of a comparison: the option set (`undefined` for the base
 * options, as given) and its replay's report.
 *
 * @since 0.2.0
 * @category models
 */
export interface Column {
  /** The set as written; `undefined` for the base options. */
  readonly set: string | undefined
  readonly options: Options
  readonly report: Report
}

/**
 * The budgets that replace each other (docs/contract.md section 13): a set
 * giving one of them without the other replaces the base's, so
 * `--max-tokens 8000 --compare context-window=10000,reserve=2000` compares
 * a buffer of 8,000 tokens with a window of 10,000, and the other way round.
 */
const ALTERNATIVES: ReadonlyArray<
  { readonly gives: string; readonly without: string; readonly drops: ReadonlyArray<string> }
> = [
  { gives: "max-tokens", without: "context-window", drops: ["contextWindow", "reserve"] },
  { gives: "context-window", without: "max-tokens", drops: ["maxTokens"] }
]

/** The base options without the budget a set replaces by giving its alternative. */
const instead = (base: Options, set: OptionSet): Options => {
  const gives = (name: string) => set.changes.some((change) => (change.key.aliasOf ?? change.key.name) === name)
  const dropped = ALTERNATIVES.flatMap((a) => gives(a.gives) && !gives(a.without) ? a.drops : [])
  return dropped.length === 0 ? base : Object.fromEntries(
    Object.entries(base).filter(([key]) => !dropped.includes(key))
  ) as Options
}

/** The options a column ran with (which were given is how they were checked, not an option). */
const withoutGiven = ({ given: _, ...options }: Options): Options => options

/**
 * Checks every set against the base options: the columns to replay, the
 * base options first. Fails with `ConfigError` for a set {@link parse} or
 * `makeConfig` refuses, or one giving an option its strategy does not
 * take, naming the set (options given outside the sets apply to the sets
 * whose strategy takes them).
 *
 * @since 0.2.0
 * @category constructors
 */
export const columnsOf = (
  base: Options,
  sets: ReadonlyArray<string>
): Effect.Effect<
  Array<{ readonly set: string | undefined; readonly options: Options; readonly config: Config }>,
  ConfigError,
  TokenCounter.TokenCounter
> =>
  Effect.gen(function*() {
    const columns: Array<{ readonly set: string | undefined; readonly options: Options; readonly config: Config }> = [
      { set: undefined, options: withoutGiven(base), config: yield* makeConfig(base) }
    ]
    for (const text of sets) {
      const set = yield* parse(text)
      const options = apply(instead(base, set), set)
      // The set's own options are what it gives, checked against the set's strategy (`StrategyOptions.ts`):
      // options given outside the sets are the base column's, checked against its strategy, and a set that
      // changes the strategy keeps those its strategy takes (`--max-tokens 1000 --compare
      // strategy=window,max-messages=6` compares a rolling memory of 1,000 tokens with a window of 6
      // messages). Its refusals name options as a set writes them.
      const given = { ...options, given: set.changes.map((change) => change.key.name) }
      const config = yield* makeConfig(given, "").pipe(
        Effect.mapError((error) =>
          new ConfigError({
            option: "--compare",
            description: `"${set.text}": ${error.option.replace(/^--/, "")} ${error.description}`
          })
        )
      )
      columns.push({ set: set.text, options: withoutGiven(options), config })
    }
    return columns
  })

/**
 * {@link compare} over a stream: each conversation, as it arrives, is
 * replayed under every column in turn, so no more than one conversation is
 * held at a time besides the figures. `onConversation` runs after each.
 * With `onFailure`, a conversation whose replay fails under a column (the
 * set as written; `undefined`: the base options) is handed to it and left
 * out of every column, so that the columns still compare the same
 * conversations; without it, or when it fails, the comparison stops.
 *
 * @since 0.2.0
 * @category constructors
 */
export const compareStream = <E, R, E3 = never>(
  conversations: Stream.Stream<Conversation, E, R>,
  base: Options,
  sets: ReadonlyArray<string>,
  onConversation: Effect.Effect<void> = Effect.void,
  onFailure?: (
    conversation: Conversation,
    error: ConfigError | AddError,
    set: string | undefined
  ) => Effect.Effect<void, E3>
): Effect.Effect<Array<Column>, ConfigError | AddError | E | E3, TokenCounter.TokenCounter | R> =>
  Effect.gen(function*() {
    const columns = yield* columnsOf(base, sets)
    const figures = columns.map((): Array<Figures> => [])
    yield* Stream.runForEach(conversations, (conversation) =>
      Effect.zipRight(
        Effect.gen(function*() {
          // every column replays the same conversations: one that fails under any set is left out of all
          const results: Array<Figures> = []
          for (const column of columns) {
            const result = yield* Effect.either(replayConversation(conversation, column.config))
            if (result._tag === "Left") {
              if (onFailure === undefined) return yield* Effect.fail(result.left)
              return yield* onFailure(conversation, result.left, column.set)
            }
            results.push(result.right.figures)
          }
          results.forEach((result, i) => figures[i].push(result))
        }),
        onConversation
      ))
    return columns.map(({ options, set }, i): Column => ({
      set,
      options,
      report: { conversations: figures[i], totals: totalsOf(figures[i]) }
    }))
  })

/**
 * Replays `conversations` under the base options, then under each set
 * applied to them, each into fresh memories (the same engine as `rollmem
 * replay`, {@link replay}). Every set is parsed and checked before anything
 * is replayed. Fails with `ConfigError` for a set {@link parse} or
 * `makeConfig` refuses (naming the set), or with what a replay fails with.
 * `onProgress` receives (messages replayed, messages in all) over every
 * column.
 *
 * @since 0.2.0
 * @category constructors
 */
export const compare = (
  conversations: ReadonlyArray<Conversation>,
  base: Options,
  sets: ReadonlyArray<string>,
  onProgress?: (done: number, total: number) => Effect.Effect<void>
): Effect.Effect<Array<Column>, ConfigError | AddError, TokenCounter.TokenCounter> =>
  Effect.gen(function*() {
    const columns = yield* columnsOf(base, sets)
    const each = conversations.reduce((n, c) => n + c.messages.length, 0)
    const total = each * columns.length
    const out: Array<Column> = []
    for (let i = 0; i < columns.length; i++) {
      const { config, options, set } = columns[i]
      const outcome = yield* replay(conversations, config, {
        onProgress: onProgress === undefined ? undefined : (done) => onProgress(i * each + done, total)
      })
      out.push({ set, options, report: outcome.report })
    }
    return out
  })
