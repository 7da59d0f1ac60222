/**
 * The `rollmem` command line: `rollmem replay <files...>` replays transcripts
 * through a memory strategy and prints what a model would have been sent
 * (with `--store sqlite:<path>`, `postgres://…` or `redis://…`, it also saves each conversation's final
 * state under its id, and with `--archive` its archive of what left the
 * buffer); `rollmem show <id> --store <store>` prints a stored conversation;
 * `rollmem recall <id> "query" --store <store>` searches its archive.
 *
 * A command line that does not parse (an unknown option, named with the
 * closest known one: `rollmem: unknown option --max-token; did you mean
 * --max-tokens?`; a `--strategy`, `--summarizer` or `--format` that is not
 * one of its choices or a budget that is not an integer, named with its
 * option: `rollmem: --max-tokens: 'abc' is not an integer`, see
 * `Preflight.ts`; an option without its value or a missing file, in
 * @effect/cli's own words: `rollmem: Missing argument <files>`) is refused
 * before anything is read: one line on stderr, and the command fails with
 * @effect/cli's `ValidationError`.
 * Every other expected failure (an unreadable file, a malformed line, an
 * unknown tokenizer, a budget that is not positive, an unknown `--show` id, a
 * `--store` value that is not a store, an id that is not stored)
 * prints one line on stderr, `rollmem: ...`, and the command fails with
 * {@link CliFailure}. Both give exit code 1 (`bin.ts`). A malformed line or
 * an unreadable file is skipped: the others are still replayed and reported.
 *
 * @example
 * ```sh
 * rollmem replay conversations.jsonl --strategy rolling --max-tokens 2000 --tokenizer o200k_base
 * rollmem replay chat-export.json --format json
 * rollmem replay anthropic-logs.jsonl --input-format anthropic --show chat-7 --output-format openai
 * rollmem replay conversations.jsonl --store sqlite:conversations.db
 * rollmem show support-chat --store sqlite:conversations.db
 * rollmem replay conversations.jsonl --store sqlite:conversations.db --archive
 * rollmem recall support-chat "dana.whitfield@example.com" --store sqlite:conversations.db --limit 3
 * ```
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import type * as CliApp from "@effect/cli/CliApp"
import * as CliConfig from "@effect/cli/CliConfig"
import * as Command from "@effect/cli/Command"
import * as Descriptor from "@effect/cli/CommandDescriptor"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Span from "@effect/cli/HelpDoc/Span"
import * as CliOptions from "@effect/cli/Options"
import * as Usage from "@effect/cli/Usage"
import * as ValidationError from "@effect/cli/ValidationError"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import packageJson from "../../package.json" with { type: "json" }
import * as Validity from "../core/validity.js"
import { ConfigError } from "../Errors.js"
import { layerByName } from "../layers/Tokenizers.js"
import * as Flags from "../schema/Options.js"
import { stripColour } from "./Colour.js"
import * as Compare from "./Compare.js"
import { CliFailure, fail, reportFailures } from "./Failure.js"
import * as Formats from "./Formats.js"
import { type Conversation, exists, isDirectory, stream as readStream, totalBytes as totalBytesOf } from "./Input.js"
import * as Preflight from "./Preflight.js"
import * as Progress from "./Progress.js"
import * as Render from "./Render.js"
import {
  type Config,
  type FinalContext,
  keyOf,
  makeConfig,
  type Options,
  type Outcome,
  replayStream,
  strategies,
  type Strategy,
  type SummarizerChoice,
  summarizers,
  valueAt
} from "./Replay.js"
import * as Store from "./Store.js"
import * as StrategyOptions from "./StrategyOptions.js"
import * as UnknownOption from "./UnknownOption.js"

/**
 * The output formats of `rollmem replay` and `rollmem show`.
 *
 * @since 0.1.0
 * @category models
 */
export type Format = "table" | "json"

const formats: ReadonlyArray<Format> = ["table", "json"]

export {
  /** @since 0.1.0 */
  CliFailure
} from "./Failure.js"

/**
 * The defaults of `rollmem replay`'s options that set no memory option
 * (those that do have theirs in `Options.flags`).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults = {
  strategy: "rolling",
  tokenizer: "o200k_base",
  summarizer: "extractive",
  format: "table",
  inputFormat: "auto"
} as const

/** A file named like an option is read when it exists. */
const refuseReplayOptions = Preflight.refuseOptions(
  "rollmem replay",
  () => Preflight.knownOptions(replayCommand.descriptor),
  exists
)

/** Every id shaped like an option is taken for one (ids are not looked up while parsing). */
const refuseShowOptions = Preflight.refuseOptions(
  "rollmem show",
  () => Preflight.knownOptions(showCommand.descriptor),
  () => Effect.succeed(false)
)

const files = Args.text({ name: "files" }).pipe(
  Args.atLeast(1),
  Args.mapEffect((files) => Effect.as(refuseReplayOptions(files), files)),
  Args.withDescription(
    "Transcripts: JSON Lines with one {\"id\", \"messages\"} per line, or a .json file holding an array of messages " +
      "or {\"messages\": [...]} (OpenAI chat format accepted; its id is the file name). Give a file whose name " +
      "starts with - as ./-name (otherwise it is read only if it exists, and it is taken for an unknown option if not)."
  )
)

/** The value a memory option's flag gives: `None` when it is not given (a `flag`: when it is not set). */
type FlagOption = CliOptions.Options<Option.Option<number | string | boolean>>

/** The parser's option of a row of `Options.flags`: its name, older names, value and help. */
const flagOption = (row: Flags.Flag): FlagOption => {
  switch (row.kind) {
    case "integer":
      return (row.aliases ?? []).reduce((o, alias) => CliOptions.withAlias(o, alias), CliOptions.integer(row.flag))
        .pipe(
          CliOptions.withPseudoName(row.value ?? "N"),
          CliOptions.optional,
          CliOptions.withDescription(row.description)
        )
    case "choice":
      return CliOptions.choice(row.flag, row.choices ?? []).pipe(
        CliOptions.optional,
        CliOptions.withDescription(row.description)
      )
    case "flag":
      return CliOptions.boolean(row.flag).pipe(
        CliOptions.map((set) => set ? Option.some(true) : Option.none()),
        CliOptions.withDescription(row.description)
      )
  }
}

/** The memory options' flags, by their key in the replay's options (`maxTokens`). */
const flagOptions = (rows: ReadonlyArray<Flags.Flag>): { readonly [key: string]: FlagOption } =>
  Object.fromEntries(rows.map((row) => [keyOf(row), flagOption(row)]))

const budgets = Flags.flags.filter((row) => row.budget === true)
const summaryBudget = budgets.findIndex((row) => row.option === "maxSummaryTokens")

/**
 * The options of `rollmem replay`, in the order its help lists them:
 * `--strategy`, the budgets (with the tokenizer and the summarizer just
 * before the summary budget), the other memory options' flags (all from
 * `Options.flags`), then the input, the output and the stores.
 */
const options = {
  strategy: CliOptions.choice("strategy", strategies).pipe(
    CliOptions.withDefault(defaults.strategy),
    CliOptions.withDescription("Memory strategy (default: rolling).")
  ),
  ...flagOptions(budgets.slice(0, summaryBudget)),
  tokenizer: CliOptions.text("tokenizer").pipe(
    CliOptions.withPseudoName("NAME"),
    CliOptions.withDefault(defaults.tokenizer),
    CliOptions.withDescription(
      "Token counter: words, o200k_base, cl100k_base, or a model name (gpt-4o, gpt-4.1, gpt-5, gpt-4, " +
        "claude-sonnet-4-5, claude-opus-4-1, gemini-2.5-pro, gemini-2.5-flash...; Claude and Gemini counts are " +
        "estimates). Budgets and the summary are counted with it (default: o200k_base)."
    )
  ),
  summarizer: CliOptions.choice("summarizer", summarizers).pipe(
    CliOptions.optional,
    CliOptions.withDescription(
      "extractive is a deterministic baseline, not a model: it keeps one line of gist per evicted turn " +
        "(first sentence, numbers, names, tool calls and results in short). none drops evicted turns (default: extractive)."
    )
  ),
  ...flagOptions(budgets.slice(summaryBudget)),
  ...flagOptions(Flags.flags.filter((row) => row.budget !== true)),
  format: CliOptions.choice("format", formats).pipe(
    CliOptions.withDefault(defaults.format),
    CliOptions.withDescription("Output: a table, or one JSON document { conversations, totals } (default: table).")
  ),
  inputFormat: CliOptions.choice("input-format", Formats.inputFormats).pipe(
    CliOptions.withDefault(defaults.inputFormat),
    CliOptions.withDescription(
      "The transcripts' format: openai (Chat Completions messages), anthropic ({system, messages}), ai-sdk " +
        "(ModelMessage), gemini ({systemInstruction, contents}), rollmem (its wire format), or auto: detected per " +
        "conversation. A message the format does not define refuses its conversation, naming file:line and the " +
        "field (default: auto)."
    )
  ),
  provider: CliOptions.choice("provider", Validity.providers).pipe(
    CliOptions.optional,
    CliOptions.withDescription(
      "Check each request point's context (the valid column, the report's violations) by this target's rules: " +
        "openai (a system message anywhere, two messages of one role in a row), anthropic and gemini (system text " +
        "only before the first turn), strict-template (strict open-model chat templates: also no two messages of " +
        "one role in a row). Default: a first turn that is not a user turn, an orphaned tool result, an unanswered " +
        "tool call."
    )
  ),
  outputFormat: CliOptions.choice("output-format", Formats.outputFormats).pipe(
    CliOptions.optional,
    CliOptions.withDescription(
      "Print the final context of --show in this provider's request shape (JSON), checked as that provider " +
        "checks it: openai, anthropic, ai-sdk or gemini (default: rollmem's own rendering)."
    )
  ),
  show: CliOptions.text("show").pipe(
    CliOptions.withPseudoName("ID"),
    CliOptions.optional,
    CliOptions.withDescription("Also print the final context of the conversation with this id.")
  ),
  store: CliOptions.text("store").pipe(
    CliOptions.withPseudoName("STORE"),
    CliOptions.optional,
    CliOptions.withDescription(
      "Also save each conversation's final state under its id in this store: sqlite:PATH (a file, created if " +
        "missing), postgres://… or redis://…, replacing what was stored under that id. Read it back with rollmem show."
    )
  ),
  archive: CliOptions.boolean("archive").pipe(
    CliOptions.withDescription(
      "With --store: archive every message that leaves the buffer beside the conversation, replacing its archive " +
        "(search it with rollmem recall)."
    )
  ),
  framing: CliOptions.boolean("framing").pipe(
    CliOptions.withDescription(
      "Count each message with the provider's per-message overhead (role and delimiters), as billed; " +
        "needs a model name as --tokenizer (default: off)."
    )
  ),
  report: CliOptions.text("report").pipe(
    CliOptions.withPseudoName("PATH"),
    CliOptions.optional,
    CliOptions.withDescription(
      "Also write an HTML report to this file (replacing it): the totals, per conversation a timeline of buffer, " +
        "summary and context with the budget and each fold, and its final context. One self-contained file: " +
        "open it in a browser, no network needed."
    )
  ),
  compare: CliOptions.text("compare").pipe(
    CliOptions.withPseudoName("SET"),
    CliOptions.repeated,
    // optional only for the usage line (`[--compare SET...]`): a repeated option already takes none
    CliOptions.optional,
    CliOptions.map(Option.getOrElse((): ReadonlyArray<string> => [])),
    CliOptions.withDescription(
      "Also replay the files under this option set, written with these options' names without dashes, " +
        "comma-separated (\"max-tokens=1000,summary-tokens=200\"), applied to the other options given; " +
        "repeatable. Prints the totals of every set side by side (the other options as given first) " +
        "instead of the per-conversation report."
    )
  )
}

/**
 * The arguments of `rollmem replay` as parsed: choices and integers are
 * checked by @effect/cli, everything else by {@link runReplay}.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReplayArgs {
  readonly files: ReadonlyArray<string>
  readonly strategy: Strategy
  readonly tokenizer: string
  readonly summarizer: SummarizerChoice
  /**
   * The memory options' flags given (rows of `Options.flags`), by their key
   * in the replay's options (`maxTokens`, `clearUntil`; see `Replay.keyOf`):
   * checked by {@link runReplay}; a flag not given is absent (its default
   * applies).
   */
  readonly flags: { readonly [key: string]: number | string | boolean }
  readonly format: Format
  /** The transcripts' format (`--input-format`); default `auto`. */
  readonly inputFormat?: Formats.InputFormat | undefined
  /** The target whose rules check the contexts (`--provider`); `None`: the default rules. */
  readonly provider?: Option.Option<Validity.Provider> | undefined
  /** The provider shape `--show`'s context is printed in (`--output-format`). */
  readonly outputFormat?: Option.Option<Formats.OutputFormat> | undefined
  readonly show: Option.Option<string>
  readonly store: Option.Option<string>
  /** Archive beside each stored conversation (`--archive`, with `--store`); default `false`. */
  readonly archive?: boolean | undefined
  /** Where to write the HTML report, if anywhere. */
  readonly report: Option.Option<string>
  /** Count the provider's per-message overhead (`--framing`); default `false`. */
  readonly framing?: boolean | undefined
  /** Option sets to compare (see `Compare.ts`); empty: the per-conversation report. */
  readonly compare: ReadonlyArray<string>
  /**
   * The options given explicitly, by name without dashes (`max-tokens`):
   * {@link runReplay} refuses one the strategy does not take (see
   * `StrategyOptions.ts`); options left to their defaults are not checked.
   * Default: none.
   */
  readonly given?: ReadonlyArray<string> | undefined
}

/** The options of `rollmem replay` as @effect/cli parses them: those with a default are `None` when not given. */
type ParsedReplay =
  & Command.Command.ParseConfig<Pick<typeof options, FixedOption>>
  & { readonly files: ReadonlyArray<string> }

/** The options of `rollmem replay` that set no memory option. */
type FixedOption =
  | "strategy"
  | "tokenizer"
  | "summarizer"
  | "format"
  | "inputFormat"
  | "outputFormat"
  | "show"
  | "store"
  | "archive"
  | "framing"
  | "report"
  | "compare"

/**
 * The parsed command line with the defaults filled in, and which options
 * were given: an option is given when it has a value (`Some`), or, for a
 * flag, when it is set; in the order `StrategyOptions.takenBy` lists them.
 */
const replayArgsOf = (parsed: ParsedReplay, flags: { readonly [key: string]: unknown }): ReplayArgs => {
  const values: Record<string, number | string | boolean> = {}
  const given: Array<string> = []
  for (const row of Flags.flags) {
    const value = flags[keyOf(row)] as Option.Option<number | string | boolean>
    if (Option.isSome(value)) values[keyOf(row)] = value.value
  }
  for (const name of Object.keys(StrategyOptions.memoryKeys)) {
    const row = Flags.flags.find((r) => r.flag === name)
    if (name === "summarizer" ? Option.isSome(parsed.summarizer) : row !== undefined && keyOf(row) in values) {
      given.push(name)
    }
  }
  return {
    ...parsed,
    summarizer: Option.getOrElse(parsed.summarizer, () => defaults.summarizer),
    flags: values,
    given
  }
}

/**
 * The replay's title: the strategy and its budget, the memory options set
 * off their defaults (as `--flag value`, in the order of `Options.flags`),
 * the summarizer, the tokenizer.
 */
const describeConfig = (args: ReplayArgs, config: Config, count: number): string => {
  const memory = config.memory as { readonly [key: string]: unknown }
  const window = memory.contextWindow as { readonly tokens: number; readonly reserveTokens: number } | undefined
  const budget = config.strategy === "rolling"
    ? window === undefined
      ? ` (max-tokens ${config.maxTokens})`
      : ` (context-window ${window.tokens}, reserve ${window.reserveTokens}: ${config.maxTokens} for the context)`
    : config.strategy === "window"
    ? ` (max-messages ${config.maxMessages})`
    : ""
  const summarizer = config.strategy === "rolling" || config.strategy === "summary"
    ? config.summarizer === undefined
      ? ", summarizer none"
      : `, summarizer extractive (summary-tokens ${config.summaryTokens})`
    : ""
  const policies = Flags.flags.flatMap((row) => {
    const value = valueAt(memory, row.option)
    return row.budget === true || row.option.startsWith("contextWindow.") || value === undefined || value === false ||
        value === row.default
      ? []
      : [row.kind === "flag" ? row.flag : `${row.flag} ${value}`]
  })
  return `rollmem replay: ${count} conversation${count === 1 ? "" : "s"}, strategy ${config.strategy}${budget}` +
    `${policies.length === 0 ? "" : ` (${policies.join(", ")})`}${summarizer}, tokenizer ${args.tokenizer}` +
    `${args.framing === true ? " with message framing" : ""}` +
    `${config.provider === undefined ? "" : `, checked for ${config.provider}`}`
}

/** The replay options the command line gives. */
const optionsOf = (args: ReplayArgs): Options => ({
  ...args.flags,
  strategy: args.strategy,
  summarizer: args.summarizer,
  provider: args.provider === undefined ? undefined : Option.getOrUndefined(args.provider),
  given: args.given
})

const tokenizerLayer = (name: string, framing: boolean) =>
  Layer.mapError(
    layerByName(name, { framing }),
    (error) => new ConfigError({ option: `--${error.option}`, description: error.description })
  )

/**
 * Runs `rollmem replay`: checks the options, reads the files, replays every
 * conversation and prints the report on stdout, each skipped input on stderr.
 *
 * Fails with {@link CliFailure} after printing one line `rollmem: ...` on
 * stderr: for a bad option (named, e.g. `invalid option --max-tokens: must
 * be a positive integer, got 0`; an unknown tokenizer, `--strategy summary`
 * with `--summarizer none`; an option given that the strategy does not take,
 * `invalid option --pin-system: does not apply to the buffer strategy (which
 * takes --summary-role)`, see `StrategyOptions.ts`), an unknown `--show` id, no readable
 * conversation, and, after the report, when any input was skipped or any
 * conversation's memory failed (each named on stderr as it happens,
 * `rollmem: chats.jsonl:2: conversation "big": ...`, and left out of the
 * report; the others are replayed). A store's failure stops the replay,
 * named the same way.
 *
 * @since 0.1.0
 * @category constructors
 */
export const runReplay = (
  args: ReplayArgs
): Effect.Effect<void, CliFailure, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const format = args.format
    const base = optionsOf(args)
    const config = yield* makeConfig(base)
    const store = Option.isSome(args.store) ? yield* Store.parse(args.store.value) : undefined
    if (store !== undefined) yield* Store.requireDirectory(store)
    const archiving = args.archive === true
    if (archiving && store === undefined) {
      return yield* new ConfigError({
        option: "--archive",
        description: "archives beside the stored conversations: give --store"
      })
    }
    const reportPath = Option.getOrUndefined(args.report)
    if (reportPath !== undefined) {
      yield* requireReportElsewhere(reportPath, [
        ...args.files.map((file) => ({ file, what: "an input file" })),
        ...(store?.location._tag === "Sqlite" ? [{ file: store.location.filename, what: "the --store database" }] : [])
      ])
      yield* requireReportDirectory(reportPath)
    }
    const show = Option.getOrUndefined(args.show)
    const outputFormat = args.outputFormat === undefined ? undefined : Option.getOrUndefined(args.outputFormat)
    if (outputFormat !== undefined && show === undefined) {
      return yield* new ConfigError({
        option: "--output-format",
        description: "prints the context of --show ID: give --show"
      })
    }
    // The input is streamed: each conversation is replayed as it is read and then let go, so memory is
    // bounded by the largest conversation (plus each one's figures), not by the input; problems are
    // printed as they are met. Progress is counted in bytes of input.
    const inputFormat = args.inputFormat ?? defaults.inputFormat
    const totalBytes = yield* totalBytesOf(args.files)
    const counts = { conversations: 0, skipped: 0, failed: 0 }
    const failedIds = new Set<string>()
    // Where each conversation with the id of --show was read, and those that failed: with an id read more than
    // once, the first that replayed is shown, and stderr says which.
    const showRead: Array<string> = []
    const showFailed = new Set<string>()
    // A memory's failure is the conversation's (a summary over its budget, pinned messages over the window, a
    // token count or summary that failed): named with where it was read, the conversation is left out and the
    // replay goes on (exit code 1 at the end). Any other failure (a store, an archive) would repeat for every
    // conversation: named the same way, it stops the replay.
    const onFailure = (
      conversation: Conversation,
      error: { readonly _tag: string; readonly message: string },
      set?: string
    ): Effect.Effect<void, CliFailure> => {
      const line = `${
        conversation.where === undefined ? "" : `${conversation.where}: `
      }conversation "${conversation.id}"${set === undefined ? "" : ` (--compare "${set}")`}: ${error.message}`
      return !CONVERSATION_FAILURES.has(error._tag) ? fail(line) : Effect.zipRight(
        Console.error(`rollmem: ${line}`),
        Effect.sync(() => {
          counts.failed++
          failedIds.add(conversation.id)
          if (conversation.id === show && conversation.where !== undefined) showFailed.add(conversation.where)
        })
      )
    }
    const pass = (update: (done: number, total: number) => Effect.Effect<void>, report: boolean) => {
      let read = 0
      return readStream(args.files, inputFormat).pipe(
        Stream.tap((item) =>
          Effect.zipRight(
            !report
              ? Effect.void
              : item._tag === "Problem"
              ? Effect.zipRight(
                Effect.sync(() => counts.skipped++),
                Console.error(`rollmem: ${item.problem}`)
              )
              : item._tag === "Warning"
              ? Console.error(`rollmem: warning: ${item.warning}`)
              : Effect.void,
            Effect.suspend(() => update(read += item.bytes, totalBytes))
          )
        ),
        Stream.filterMap((item) => {
          if (item._tag !== "Conversation") return Option.none()
          if (report) counts.conversations++
          if (report && show !== undefined && item.conversation.id === show) showRead.push(item.where ?? show)
          return Option.some({ ...item.conversation, where: item.where })
        })
      )
    }
    // The problems are already printed: only the exit code is left to set. An input with nothing in it
    // (empty files, blank lines) is said so: an empty table would pass for a replay.
    const nothingRead = Effect.suspend(() =>
      counts.conversations > 0
        ? Effect.void
        : counts.skipped > 0
        ? new CliFailure({ reason: "nothing read" })
        : fail(`nothing to replay: no conversation in ${args.files.join(", ")}`)
    )
    const skippedInputs = Effect.suspend(() => {
      const parts = [
        ...(counts.skipped > 0
          ? [`skipped ${counts.skipped} input${counts.skipped === 1 ? "" : "s"} that could not be read`]
          : []),
        ...(counts.failed > 0
          ? [
            `${counts.failed} conversation${counts.failed === 1 ? "" : "s"} failed and ${
              counts.failed === 1 ? "is" : "are"
            } left out of the report`
          ]
          : [])
      ]
      return parts.length > 0 ? fail(`${parts.join("; ")} (see above)`) : Effect.void
    })
    // every conversation read failed: no report of nothing, only the failures' count
    const allFailed = () => counts.failed > 0 && counts.failed === counts.conversations
    if (args.compare.length > 0) {
      if (store !== undefined || show !== undefined) {
        return yield* new ConfigError({ option: "--compare", description: "cannot be combined with --store or --show" })
      }
      const bar = yield* Progress.make(totalBytes, "bytes")
      const columns = yield* Compare.compareStream(pass(bar.update, true), base, args.compare, Effect.void, onFailure)
        .pipe(Effect.ensuring(bar.done))
      yield* nothingRead
      if (allFailed()) return yield* skippedInputs
      const unit = args.tokenizer === "words" ? "words" : "tokens"
      const title = describeConfig(args, config, counts.conversations)
      yield* Console.log(format === "json" ? Render.compareJson(columns) : Render.compareTable(columns, title, unit))
      if (reportPath !== undefined) {
        // The report also shows each conversation under the base options: the input is read once more,
        // keeping every final context and timeline (the comparison keeps totals only).
        const again = yield* Progress.make(totalBytes, "bytes")
        // the conversations that failed were named in the comparison: left out here again, silently
        const outcome = yield* replayStream(pass(again.update, false), config, {
          finals: true,
          onFailure: () => Effect.void
        }).pipe(Effect.ensuring(again.done))
        yield* writeReport(reportPath, outcome, columns, { title, unit, config, format })
      }
      return yield* skippedInputs
    }
    const bar = yield* Progress.make(totalBytes, "bytes")
    // the report shows every final context and timeline: only then are they kept
    const keep = { show, finals: reportPath !== undefined, timelines: reportPath !== undefined, onFailure }
    const outcome = yield* (store === undefined
      ? replayStream(pass(bar.update, true), config, keep)
      : replayStream(pass(bar.update, true), config, {
        ...keep,
        open: archiving ? Store.openArchiving : Store.open
      }).pipe(
        Effect.provide(Store.layer(store))
      )).pipe(Effect.ensuring(bar.done))
    yield* nothingRead
    if (allFailed()) return yield* skippedInputs
    if (show !== undefined && outcome.shown === undefined) {
      return yield* new ConfigError({
        option: "--show",
        description: failedIds.has(show)
          ? `conversation "${show}" failed (see above)`
          : `no conversation with id "${show}" was read`
      })
    }
    if (outcome.shown !== undefined && showRead.length > 1) {
      const at = showRead.find((where) => !showFailed.has(where))
      yield* Console.error(
        `rollmem: showing the first of ${showRead.length} conversations with id ${JSON.stringify(show)}${
          at === showRead[0] ? "" : " that replayed"
        } (${at})`
      )
    }
    const unit = args.tokenizer === "words" ? "words" : "tokens"
    const title = describeConfig(args, config, counts.conversations)
    // a context the provider would refuse is said after the report, which is printed all the same
    const written = outputFormat === undefined || outcome.shown === undefined
      ? undefined
      : providerRequest(outcome.shown, outputFormat)
    const request = written !== undefined && Either.isRight(written) ? written.right : undefined
    if (format === "json") {
      yield* Console.log(Render.json(outcome, request))
    } else {
      yield* Console.log(Render.table(outcome, title, unit))
      if (request !== undefined) {
        yield* Console.log(`\nFinal context of ${outcome.shown!.id} as a ${request.format} request:`)
        yield* Console.log(JSON.stringify(request.body, null, 2))
      } else if (outcome.shown !== undefined) {
        const figures = outcome.report.conversations.find((f) => f.id === show)
        const budget: Render.Budget = {
          strategy: config.strategy,
          maxTokens: config.maxTokens,
          maxMessages: config.maxMessages,
          summaryTokens: config.summarizer === undefined ? undefined : config.summaryTokens
        }
        yield* Console.log(`\n${Render.finalContext(outcome.shown, figures, unit, budget)}`)
      }
      if (store !== undefined) {
        const count = outcome.report.conversations.length
        yield* Console.log(
          `\nSaved ${count} conversation${count === 1 ? "" : "s"} to ${store.label}${
            archiving ? count === 1 ? ", with its archive" : ", with their archives" : ""
          } (read one back: rollmem show <id> --store ${shellWord(store.label)}${
            archiving ? `; search one: rollmem recall <id> "query" --store ${shellWord(store.label)}` : ""
          }).`
        )
      }
    }
    if (reportPath !== undefined) {
      yield* writeReport(reportPath, outcome, undefined, { title, unit, config, format, archived: archiving })
    }
    if (written !== undefined && Either.isLeft(written)) {
      yield* Effect.ignore(skippedInputs)
      return yield* fail(written.left)
    }
    return yield* skippedInputs
  }).pipe(
    Effect.provide(tokenizerLayer(args.tokenizer, args.framing === true)),
    reportFailures
  )

/**
 * Writes the HTML report and says where on stdout (on stderr with `--format
 * json`, whose stdout is one JSON document). The report's code, and its page
 * script with Chart.js, load only here.
 */
const writeReport = (
  path: string,
  outcome: Outcome,
  columns: ReadonlyArray<Compare.Column> | undefined,
  settings: {
    readonly title: string
    readonly unit: string
    readonly config: Config
    readonly format: Format
    readonly archived?: boolean | undefined
  }
) =>
  Effect.gen(function*() {
    const [ReportData, Report] = yield* Effect.promise(() =>
      Promise.all([import("./ReportData.js"), import("./Report.js")])
    )
    const document = ReportData.reportDocument(outcome, {
      title: settings.title,
      unit: settings.unit,
      maxTokens: settings.config.strategy === "rolling" ? settings.config.maxTokens : undefined,
      targetTokens: settings.config.strategy === "rolling"
        ? valueAt(settings.config.memory, "targetTokens") as number | undefined
        : undefined,
      archived: settings.archived === true
    }, columns)
    const bytes = yield* Report.write(path, document)
    const line = `Report: ${path} (${(bytes / 1024).toFixed(0)} KB; open it in a browser).`
    yield* settings.format === "json" ? Console.error(line) : Console.log(`\n${line}`)
  })

/**
 * The shown final context in a provider's request shape, or, when the
 * option is valid and the context is refused, the reason: `the context of ID
 * cannot be written as anthropic: message 0: ...` naming why that provider
 * would refuse it (an orphaned tool result, a first turn that is not the
 * user's), which the command says after the report and fails with
 * `CliFailure`.
 */
const providerRequest = (
  shown: FinalContext,
  format: Formats.OutputFormat
): Either.Either<{ readonly format: Formats.OutputFormat; readonly body: unknown }, string> =>
  Either.match(Formats.encode(shown.messages, format), {
    onLeft: (description) => Either.left(`the context of ${shown.id} cannot be written as ${format}: ${description}`),
    onRight: (body) => Either.right({ format, body })
  })

/**
 * Fails with `ConfigError` (option `--report`) when the report would replace
 * one of `others` (an input file, the SQLite file of `--store`): the same
 * path once resolved, or the same file under another name (a link).
 */
const requireReportElsewhere = (
  file: string,
  others: ReadonlyArray<{ readonly file: string; readonly what: string }>
): Effect.Effect<void, ConfigError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const fs = yield* FileSystem.FileSystem
    const identity = (name: string) =>
      Effect.map(Effect.option(fs.stat(name)), (info) =>
        Option.match(info, {
          onNone: () => `path:${path.resolve(name)}`,
          onSome: (stat) =>
            Option.isSome(stat.ino) ? `inode:${stat.dev}:${stat.ino.value}` : `path:${path.resolve(name)}`
        }))
    const report = yield* identity(file)
    for (const other of others) {
      if ((yield* identity(other.file)) === report) {
        return yield* new ConfigError({
          option: "--report",
          description: `${file} is ${other.what} (${other.file}): the report would replace it; give another path`
        })
      }
    }
  })

/**
 * Fails with `ConfigError` (option `--report`) when the directory that would
 * hold the report does not exist, when the path is a directory itself, or
 * when the file cannot be opened for writing (a read-only directory or file,
 * a parent that is a file): refused before anything is replayed. The check
 * opens the file to append (nothing written) and removes it again when it
 * was not there before.
 */
const requireReportDirectory = (
  file: string
): Effect.Effect<void, ConfigError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    yield* requireReportFolder(file)
    const fs = yield* FileSystem.FileSystem
    const existed = yield* exists(file)
    yield* Effect.scoped(fs.open(file, { flag: "a" })).pipe(
      Effect.zipRight(existed ? Effect.void : Effect.ignore(fs.remove(file))),
      Effect.mapError((error) =>
        new ConfigError({
          option: "--report",
          description: `${file} cannot be written (${
            (error._tag === "SystemError" ? error.description ?? error.reason : error.message).replace(
              /, open '.*'$/,
              ""
            )
          })`
        })
      )
    )
  })

const requireReportFolder = (
  file: string
): Effect.Effect<void, ConfigError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const directory = (yield* Path.Path).dirname(file)
    if (!(yield* exists(directory))) {
      return yield* new ConfigError({ option: "--report", description: `no such directory ${directory}` })
    }
    if (yield* isDirectory(file)) {
      return yield* new ConfigError({
        option: "--report",
        description: `${file} is a directory: give the path of a file to write (e.g. ${
          (yield* Path.Path).join(file, "report.html")
        })`
      })
    }
  })

/**
 * The arguments of `rollmem show` as given.
 *
 * @since 0.1.0
 * @category models
 */
export interface ShowArgs {
  readonly id: string
  readonly store: Option.Option<string>
  readonly format: Format
}

/**
 * Runs `rollmem show`: loads conversation `id` from the store and prints its
 * context (as `memory.context` gives it, under a header with its revision),
 * or with `--format json` the stored state in the wire format of
 * docs/contract.md section 2.
 *
 * Fails with {@link CliFailure} after printing one line `rollmem: ...` on
 * stderr: no `--store`, a `--store` value that is not a store, a
 * database file that does not exist (it is never created), an id that is
 * not stored, a stored value that does not decode.
 *
 * @since 0.1.0
 * @category constructors
 */
export const runShow = (args: ShowArgs): Effect.Effect<void, CliFailure, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const format = args.format
    if (Option.isNone(args.store)) {
      return yield* new ConfigError({
        option: "--store",
        description: "is required (sqlite:<path>, postgres://… or redis://…)"
      })
    }
    const store = yield* Store.parse(args.store.value)
    yield* Store.requireFile(store)
    const loaded = yield* Store.load(args.id).pipe(Effect.provide(Store.layer(store)))
    if (Option.isNone(loaded)) {
      return yield* fail(`no conversation with id "${args.id}" in ${store.label}`)
    }
    yield* Console.log(format === "json" ? Store.stateJson(loaded.value.state) : Render.storedContext(loaded.value))
  }).pipe(reportFailures)

const showOptions = {
  store: CliOptions.text("store").pipe(
    CliOptions.withPseudoName("STORE"),
    CliOptions.optional,
    CliOptions.withDescription(
      "The store `rollmem replay --store` wrote: sqlite:PATH, postgres://… or redis://…."
    )
  ),
  format: CliOptions.choice("format", formats).pipe(
    CliOptions.withDefault(defaults.format),
    CliOptions.withDescription(
      "Output: the context as a model would be sent it, or the stored state as JSON (wire format) (default: table)."
    )
  )
}

const showDescription = "Print a conversation stored by rollmem replay --store."
const recallDescription = "Search a stored conversation's archive (rollmem replay --store S --archive)."
const replayDescription =
  "Replay transcripts through a memory strategy and report, per conversation, what a model would have been sent."

/**
 * The `show` subcommand.
 *
 * @since 0.1.0
 * @category constructors
 */
export const showCommand = Command.make("show", {
  id: Args.text({ name: "id" }).pipe(
    Args.mapEffect((id) => Effect.as(refuseShowOptions([id]), id)),
    Args.withDescription("The id of a stored conversation (an id starting with - is taken for an unknown option).")
  ),
  ...showOptions
}, runShow).pipe(
  Command.withDescription(showDescription)
)

/**
 * The arguments of `rollmem recall` as given.
 *
 * @since 0.4.0
 * @category models
 */
export interface RecallArgs {
  readonly id: string
  readonly query: string
  readonly store: Option.Option<string>
  readonly limit: number
  readonly format: Format
}

/**
 * Runs `rollmem recall`: searches conversation `id`'s archive in the store
 * (written by `rollmem replay --store S --archive`, or by stored
 * conversations with `archive: true`) and prints its matches, best first,
 * each with its position, role and fold (docs/contract.md sections 13 and
 * 17.2), or with `--format json` one document `{ conversation, query,
 * matches }`.
 *
 * Fails with {@link CliFailure} after printing one line `rollmem: ...` on
 * stderr: no `--store`, an empty query, a `--store` value that is not a
 * store, a database file that does not exist (never created), a `--limit`
 * that is not a positive integer, a conversation with no archived turn in
 * the store (unknown, or stored without `--archive`), a store that fails.
 *
 * @since 0.4.0
 * @category constructors
 */
export const runRecall = (args: RecallArgs): Effect.Effect<void, CliFailure, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    if (Option.isNone(args.store)) {
      return yield* new ConfigError({
        option: "--store",
        description: "is required (sqlite:<path>, postgres://… or redis://…)"
      })
    }
    if (args.query.trim() === "") {
      return yield* new ConfigError({ option: "query", description: "is empty: give the words to search for" })
    }
    const store = yield* Store.parse(args.store.value)
    yield* Store.requireFile(store)
    const [matches, archived] = yield* Effect.flatMap(
      Store.recall(args.id, args.query, args.limit),
      (matches) =>
        matches.length > 0 ?
          Effect.succeed([matches, true] as const) :
          Effect.map(Store.hasArchive(args.id), (held) => [matches, held] as const)
    ).pipe(Effect.provide(Store.layer(store)))
    if (!archived) {
      return yield* fail(
        `conversation ${args.id} has no archived turns in ${store.label} (not stored, or stored without --archive)`
      )
    }
    yield* Console.log(
      args.format === "json"
        ? Render.recallJson(args.id, args.query, matches)
        : Render.recallTable(args.id, args.query, store.label, matches)
    )
  }).pipe(reportFailures)

const recallOptions = {
  store: CliOptions.text("store").pipe(
    CliOptions.withPseudoName("STORE"),
    CliOptions.optional,
    CliOptions.withDescription(
      "The store `rollmem replay --store S --archive` wrote: sqlite:PATH, postgres://… or redis://…."
    )
  ),
  limit: CliOptions.integer("limit").pipe(
    CliOptions.withPseudoName("N"),
    CliOptions.withDefault(5),
    CliOptions.withDescription("The most matches to print, a positive integer (default: 5).")
  ),
  format: CliOptions.choice("format", formats).pipe(
    CliOptions.withDefault(defaults.format),
    CliOptions.withDescription(
      "Output: each match with its position, role and text, or one JSON document { conversation, query, matches } " +
        "(default: table)."
    )
  )
}

/** Every id or query shaped like an option is taken for one. */
const refuseRecallOptions = Preflight.refuseOptions(
  "rollmem recall",
  () => Preflight.knownOptions(recallCommand.descriptor),
  () => Effect.succeed(false)
)

/**
 * The `recall` subcommand.
 *
 * @since 0.4.0
 * @category constructors
 */
export const recallCommand = Command.make("recall", {
  id: Args.text({ name: "conversation" }).pipe(
    Args.mapEffect((id) => Effect.as(refuseRecallOptions([id]), id)),
    Args.withDescription("The id of a conversation stored with its archive.")
  ),
  query: Args.text({ name: "query" }).pipe(
    Args.withDescription("What to search for: words, a file path, an identifier (one argument: quote it).")
  ),
  ...recallOptions
}, runRecall).pipe(
  Command.withDescription(recallDescription)
)

/**
 * The `replay` subcommand.
 *
 * @since 0.1.0
 * @category constructors
 */
export const replayCommand = Command.make(
  "replay",
  { files, ...options },
  (parsed) => runReplay(replayArgsOf(parsed as ParsedReplay, parsed))
).pipe(
  Command.withDescription(replayDescription)
)

const summary = "Conversation memory for LLM applications: try strategies and budgets on transcripts."
const helpHint = "rollmem replay --help, rollmem show --help and rollmem recall --help list their options; " +
  "--version prints the version."

/**
 * The `rollmem` command (subcommands `replay`, `show` and `recall`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const command = Command.make("rollmem").pipe(
  Command.withDescription(`${summary} ${helpHint}`),
  Command.withSubcommands([replayCommand, showCommand, recallCommand])
)

/** A subcommand's usage as @effect/cli writes it: `show [--store STORE] [--format table | json] <id>`. */
const usageOf = <A>(descriptor: Descriptor.Command<A>): string =>
  HelpDoc.toAnsiText(HelpDoc.p(Usage.enumerate(Descriptor.getUsage(descriptor), cliConfig)[0])).trim()

/**
 * `rollmem --help` (and `rollmem` alone): @effect/cli's layout, but each
 * subcommand's usage on a line of its own with its description under it,
 * and `replay`'s thirty options left to `rollmem replay --help` (@effect/cli
 * pads every subcommand's line to the longest usage: the `show` line ran to
 * some 900 columns).
 */
const rootHelp = (): HelpDoc.HelpDoc =>
  HelpDoc.blocks([
    HelpDoc.h1(Span.code("rollmem")),
    HelpDoc.p(`rollmem ${packageJson.version}`),
    HelpDoc.h1("USAGE"),
    HelpDoc.p("$ rollmem <command> [options]"),
    HelpDoc.h1("DESCRIPTION"),
    HelpDoc.p(summary),
    HelpDoc.p(helpHint),
    HelpDoc.h1("COMMANDS"),
    HelpDoc.descriptionList([
      [Span.text("replay [options] <files>..."), HelpDoc.p(replayDescription)],
      [Span.text(usageOf(showCommand.descriptor)), HelpDoc.p(showDescription)],
      [Span.text(usageOf(recallCommand.descriptor)), HelpDoc.p(recallDescription)]
    ])
  ])

/** The widest line of a help text: paragraphs are wrapped to it. */
const HELP_WIDTH = 120

/**
 * A help text with every line wrapped to {@link HELP_WIDTH} columns
 * (colour codes take none) between words, each continuation line indented
 * as the line it continues; a word longer than the width stays whole on a
 * line of its own.
 */
const wrapHelp = (text: string): string =>
  text.split("\n").flatMap((line) => {
    const width = (s: string) => stripColour(s).length
    if (width(line) <= HELP_WIDTH) return [line]
    const indent = /^ */.exec(line)![0]
    const lines: Array<string> = []
    let current = ""
    for (const word of line.slice(indent.length).split(" ")) {
      const next = current === "" ? `${indent}${word}` : `${current} ${word}`
      if (current !== "" && width(next) > HELP_WIDTH) {
        lines.push(current)
        current = `${indent}${word}`
      } else {
        current = next
      }
    }
    return [...lines, current]
  }).join("\n")

/** The usage line of each subcommand's help: `replay`'s options are listed under OPTIONS, not in its usage. */
const subcommandUsage = (name: string): string =>
  name === "replay"
    ? "rollmem replay [options] <files>..."
    : `rollmem ${usageOf(name === "show" ? showCommand.descriptor : recallCommand.descriptor)}`

/**
 * `rollmem replay --help` (and `show`'s, `recall`'s): @effect/cli's help of
 * the subcommand (its description, arguments and options, each option's
 * type, help and whether it is optional) under a short usage line, `$
 * rollmem replay [options] <files>...` (@effect/cli's listed the thirty
 * options on one line of about 1,000 columns), every line within 120
 * columns.
 */
const subcommandHelp = (name: string): string =>
  wrapHelp(HelpDoc.toAnsiText(HelpDoc.blocks([
    HelpDoc.h1(Span.code("rollmem")),
    HelpDoc.p(`rollmem ${packageJson.version}`),
    HelpDoc.h1("USAGE"),
    HelpDoc.p(`$ ${subcommandUsage(name)}`),
    name === "replay"
      ? Descriptor.getHelp(replayCommand.descriptor, cliConfig)
      : name === "show"
      ? Descriptor.getHelp(showCommand.descriptor, cliConfig)
      : Descriptor.getHelp(recallCommand.descriptor, cliConfig)
  ])))

/**
 * Which subcommand's help `args` ask for: `--help` or `-h` after its name
 * (before any `--`); `undefined` when none.
 */
const helpOf = (args: ReadonlyArray<string>): string | undefined => {
  const end = args.indexOf("--")
  const head = end < 0 ? args : args.slice(0, end)
  const at = head.findIndex((arg) => subcommands.includes(arg))
  return at >= 0 && head.slice(at + 1).some((arg) => arg === "--help" || arg === "-h") ? head[at] : undefined
}

/**
 * @effect/cli's settings for `rollmem`: its defaults, but without its own
 * suggestion for a mistyped option (it makes one, in other words, only for
 * an option that comes first; `refuseOptions` and {@link cli} name an
 * unknown option wherever it stands), and without its built-in options in
 * the help (`--completions`, `--log-level`, `--wizard`, described in
 * @effect/cli's generic words; `--help` and `--version` still work and the
 * description names them).
 */
const cliConfig = CliConfig.make({ autoCorrectLimit: 0, showBuiltIns: false })

const app = Command.run(command, { name: "rollmem", version: packageJson.version })

/** Each subcommand's options, for {@link Preflight.check} to name the one whose value is refused. */
const subcommandOptions = (name: string): ReadonlyArray<CliOptions.Options<unknown>> =>
  Object.values(name === "show" ? showOptions : name === "recall" ? recallOptions : options)

/** `text` as one shell word: as it is when it holds no character a shell reads (`?`, `&`, spaces...), else quoted. */
const shellWord = (text: string): string => /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`

/** The integer options of `rollmem replay`, under every name. */
const integerOptions = new Set(
  Flags.flags.filter((row) => row.kind === "integer").flatMap((row) =>
    [row.flag, ...(row.aliases ?? [])].map((name) => `--${name}`)
  )
)

/**
 * The failures that belong to one conversation (its turns, its summary):
 * `rollmem replay` names the conversation and goes on with the next.
 */
const CONVERSATION_FAILURES: ReadonlySet<string> = new Set([
  "TokenCountError",
  "SummarizerError",
  "SummaryBudgetError",
  "ContextWindowError"
])

/** The subcommands' names. */
const subcommands = ["replay", "show", "recall"]

/**
 * Whether `args` ask for `rollmem`'s own help: none at all, or `--help` /
 * `-h` before any subcommand's name.
 */
const isRootHelp = (args: ReadonlyArray<string>): boolean => {
  const help = args.findIndex((arg) => arg === "--help" || arg === "-h")
  const subcommand = args.findIndex((arg) => subcommands.includes(arg))
  return args.length === 0 || (help >= 0 && (subcommand < 0 || help < subcommand))
}

/**
 * What @effect/cli would take without a word (only tokens before `--` are
 * options), the first met: `--compare` with no value (a repeated option may
 * be given none: the comparison would be silently skipped), `--compare ""`
 * (@effect/cli drops the empty value of a repeated option: refused as
 * `Compare.parse` refuses a blank set), and an integer written otherwise
 * than in decimal digits within the safe range (@effect/cli reads `0x10` as
 * 16 and `1e3` as 1000; a `--compare` set refuses them, see
 * `Compare.isInteger`). `undefined` when none is.
 */
const looseValue = (
  args: ReadonlyArray<string>
): { readonly _tag: "Refused"; readonly line: string } | { readonly _tag: "EmptySet" } | undefined => {
  for (let i = 0; i < args.length && args[i] !== "--"; i++) {
    const name = UnknownOption.nameOf(args[i])
    const inline = name === args[i] ? undefined : args[i].slice(name.length + 1)
    if (name === "--compare" && inline === undefined) {
      const next = args[i + 1]
      if (next === "") return { _tag: "EmptySet" }
      if (next === undefined || next === "--" || UnknownOption.isOptionLike(next)) {
        return { _tag: "Refused", line: "rollmem: Expected a value following option: '--compare'" }
      }
    }
    if (!integerOptions.has(name)) continue
    const value = inline ?? args[i + 1]
    const problem = value === undefined ? undefined : Compare.integerProblem(value)
    if (problem !== undefined) return { _tag: "Refused", line: `rollmem: ${name}: ${problem}` }
  }
  return undefined
}

/**
 * Runs the command line on `argv` (as `process.argv`: the first two entries
 * are the node binary and the script). Needs the platform's `FileSystem`,
 * `Path` and `Terminal` (`NodeContext.layer`).
 *
 * An option the command does not know (`rollmem replay chat.jsonl
 * --max-token 500`) is refused before anything is read, wherever it stands:
 * one line on stderr, `rollmem: unknown option --max-token; did you mean
 * --max-tokens?` (or `...; see rollmem replay --help` when no option is
 * close), and the command fails with @effect/cli's `ValidationError` (exit code 1). An
 * empty `--compare ""`, which @effect/cli would drop, is refused as
 * `rollmem replay` refuses a blank set (`CliFailure`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const cli = (
  argv: ReadonlyArray<string>
): Effect.Effect<void, CliFailure | ValidationError.ValidationError, CliApp.CliApp.Environment> =>
  isRootHelp(argv.slice(2)) ?
    Console.log(HelpDoc.toAnsiText(rootHelp())) :
    Preflight.check(command, "rollmem", argv.slice(2), subcommandOptions, cliConfig).pipe(
      Effect.flatMap((error) => {
        if (error !== undefined) return Preflight.refuse(error)
        const help = helpOf(argv.slice(2))
        if (help !== undefined) return Console.log(subcommandHelp(help))
        const loose = looseValue(argv.slice(2))
        return loose === undefined
          ? app(argv)
          : loose._tag === "Refused"
          ? Preflight.refuse(HelpDoc.p(loose.line))
          // as Compare.parse refuses a blank set: `rollmem: invalid option --compare: "": an option set is empty`
          : reportFailures(Effect.asVoid(Compare.parse("")))
      }),
      Effect.provideService(CliConfig.CliConfig, cliConfig)
    )
