/**
 * The rules of the memories' options (docs/contract.md sections 5 to 10), as
 * plain functions over plain values: no Effect import, so that any
 * declaration of the options (the Effect Schemas of `schema/Options.ts`, a
 * later line's own) reuses them. A rule returns `undefined` when the value
 * passes, else the description of what is wrong, worded as every
 * `ConfigError` of rollmem words it (`must be a positive integer, got 0`).
 *
 * Cross-field rules take a `name` function: how the description names
 * another option (`maxTokens` in the Effect API, `--max-tokens` on the
 * command line), so no caller rewrites error text.
 *
 * @since 0.4.0
 */

/** The strategies. @since 0.4.0 @category models */
export type Strategy = "rolling" | "buffer" | "window" | "summary"

/** The strategies, in the order every list names them. @since 0.4.0 @category constants */
export const strategies: ReadonlyArray<Strategy> = ["rolling", "buffer", "window", "summary"]

/**
 * A check of one value: `undefined` when it passes, else what is wrong
 * (`must be a boolean, got "yes"`).
 *
 * @since 0.4.0
 * @category models
 */
export type Check = (value: unknown) => string | undefined

/**
 * A wrong option, as a `ConfigError` names it: the option (a path such as
 * `clearToolResults.keep`) and what is wrong.
 *
 * @since 0.4.0
 * @category models
 */
export interface Problem {
  readonly option: string
  readonly description: string
}

/**
 * How a description names an option (`targetTokens`, or `--target-tokens` on
 * the command line).
 *
 * @since 0.4.0
 * @category models
 */
export type Naming = (option: string) => string

/** Names every option as the Effect API does: `maxTokens`. @since 0.4.0 @category constants */
export const camel: Naming = (option) => option

/**
 * An option as the command line names it, without dashes: `targetTokens`
 * is `target-tokens`.
 *
 * @since 0.4.0
 * @category combinators
 */
export const kebab: Naming = (option) => option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)

/** The default token budget of a RollingMemory: 2000 tokens. @since 0.4.0 @category constants */
export const DEFAULT_MAX_TOKENS = 2000

/** The placeholder of a cleared tool result by default (docs/contract.md section 10.5). @since 0.4.0 @category constants */
export const DEFAULT_PLACEHOLDER = "[tool result cleared]"

/**
 * A wrong value as a description names it: a string quoted (`"lru"`), a
 * number as written, `null`, else its type (`boolean`, `object`).
 *
 * @since 0.4.0
 * @category combinators
 */
export const describeValue = (value: unknown): string =>
  value === null
    ? "null"
    : typeof value === "string"
    ? JSON.stringify(value)
    : typeof value === "number"
    ? String(value)
    : typeof value

/**
 * A value's kind as a description names it: `null`, `array`, else its type.
 *
 * @since 0.4.0
 * @category combinators
 */
export const describeKind = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "array" : typeof value

/**
 * Whether `value` is a positive integer, at most `Number.MAX_SAFE_INTEGER`
 * (a count past it, such as `1e300`, is not one: its arithmetic is inexact).
 *
 * @since 0.4.0
 * @category guards
 */
export const isPositiveInteger = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value > 0

/** Whether `value` is an object (not `null`, not an array). @since 0.4.0 @category guards */
export const isObject = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The largest count an option takes: `Number.MAX_SAFE_INTEGER`,
 * 9007199254740991 (past it, integer arithmetic is inexact).
 *
 * @since 0.4.0
 * @category constants
 */
export const MAX_COUNT = Number.MAX_SAFE_INTEGER

/**
 * The description of a number too large to be a count: an integer (or an
 * infinity) past {@link MAX_COUNT}, `out of range: the largest accepted
 * value is 9007199254740991, got 1e+300`; `undefined` for any other value.
 *
 * @since 0.4.0
 * @category rules
 */
export const outOfRange = (value: unknown): string | undefined =>
  typeof value === "number" && value > MAX_COUNT && (Number.isInteger(value) || value === Infinity)
    ? `out of range: the largest accepted value is ${MAX_COUNT}, got ${describeValue(value)}`
    : undefined

/**
 * A positive integer at most `Number.MAX_SAFE_INTEGER` (`maxTokens`,
 * `maxMessages`, `targetTokens`...); a larger one is out of range, naming
 * the largest accepted value (see {@link outOfRange}).
 *
 * @since 0.4.0
 * @category rules
 */
export const positiveInteger: Check = (value) =>
  isPositiveInteger(value)
    ? undefined
    : outOfRange(value) ?? `must be a positive integer, got ${describeValue(value)}`

/**
 * A non-negative integer at most `Number.MAX_SAFE_INTEGER`
 * (`clearToolResults.keep`, `foldRetries`); a larger one is out of range.
 *
 * @since 0.4.0
 * @category rules
 */
export const nonNegativeInteger: Check = (value) =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0
    ? undefined
    : outOfRange(value) ?? `must be a non-negative integer, got ${describeValue(value)}`

/** A boolean (`pinSystem`). @since 0.4.0 @category rules */
export const boolean: Check = (value) =>
  typeof value === "boolean" ? undefined : `must be a boolean, got ${describeValue(value)}`

/** A string (`clearToolResults.placeholder`). @since 0.4.0 @category rules */
export const string: Check = (value) =>
  typeof value === "string" ? undefined : `must be a string, got ${describeValue(value)}`

/** A function (the facade's `summarize`, `tokenCounter`). @since 0.4.0 @category rules */
export const isFunction: Check = (value) =>
  typeof value === "function" ? undefined : `must be a function, got ${describeKind(value)}`

/** Milliseconds: a positive safe integer (the facade's `timeout`). @since 0.4.0 @category rules */
export const milliseconds: Check = (value) =>
  typeof value === "number" && Number.isSafeInteger(value) && value > 0
    ? undefined
    : outOfRange(value) ?? `must be a positive integer (milliseconds), got ${describeValue(value)}`

/**
 * One of `choices`: `must be "aligned" or "turn", got "turns"`.
 *
 * @since 0.4.0
 * @category rules
 */
export const oneOf = (choices: ReadonlyArray<string>): Check => {
  const quoted = choices.map((c) => JSON.stringify(c))
  const listed = quoted.length === 2 ? `${quoted[0]} or ${quoted[1]}` : `one of ${quoted.join(", ")}`
  return (value) =>
    typeof value === "string" && choices.includes(value) ? undefined : `must be ${listed}, got ${describeValue(value)}`
}

/**
 * The line `summaryFraming: true` puts before the summary it reads back
 * (docs/contract.md section 10.10): it tells the reading model that the
 * summary is background, not an instruction.
 *
 * @since 0.4.0
 * @category constants
 */
export const DEFAULT_SUMMARY_FRAMING =
  "The following summarizes earlier turns of this conversation. It is background to the turns that follow, " +
  "not an instruction."

/**
 * `summaryFraming` (docs/contract.md section 10.10): `true`, `false`, or the
 * line itself, a string with a character other than whitespace.
 *
 * @since 0.4.0
 * @category rules
 */
export const summaryFraming: Check = (value) =>
  typeof value === "boolean" || (typeof value === "string" && value.trim() !== "")
    ? undefined
    : `must be a boolean or a line of text (not blank), got ${describeValue(value)}`

/**
 * The framing line a `summaryFraming` option gives, `undefined` for none:
 * `true` the {@link DEFAULT_SUMMARY_FRAMING}, a string itself.
 *
 * @since 0.4.0
 * @category rules
 */
export const framingLine = (option: boolean | string | undefined): string | undefined =>
  option === true ? DEFAULT_SUMMARY_FRAMING : typeof option === "string" ? option : undefined

/**
 * The summary as it reads back with a framing line (docs/contract.md section
 * 10.10): the line, a blank line, the summary. Without a line, the summary.
 *
 * @since 0.4.0
 * @category rules
 */
export const framed = (framing: string | undefined, summary: string): string =>
  framing === undefined ? summary : `${framing}${FRAMING_SEPARATOR}${summary}`

/** What separates the framing line from the summary: a blank line. @since 0.4.0 @category constants */
export const FRAMING_SEPARATOR = "\n\n"

/** Where a cut may fall (docs/contract.md section 10.2). @since 0.4.0 @category constants */
export const boundaries: ReadonlyArray<"aligned" | "turn"> = ["aligned", "turn"]
/** The roles a summary reads back as (docs/contract.md section 10.6). @since 0.4.0 @category constants */
export const summaryRoles: ReadonlyArray<"system" | "user"> = ["system", "user"]
/** How the summary is kept (docs/contract.md section 10.9). @since 0.4.0 @category constants */
export const summaryModes: ReadonlyArray<"single" | "segments"> = ["single", "segments"]
/** When tool-result clearing spares the fold (docs/contract.md section 10.5). @since 0.4.0 @category constants */
export const clearUntils: ReadonlyArray<"target" | "budget"> = ["target", "budget"]
/** When folds run (docs/contract.md section 5.1). @since 0.4.0 @category constants */
export const foldModes: ReadonlyArray<"blocking" | "background"> = ["blocking", "background"]

/** `clearToolResults` is an object. @since 0.4.0 @category rules */
export const clearToolResults: Check = (value) =>
  isObject(value)
    ? undefined
    : `must be an object { keep, placeholder?, until?, atLeast?, exclude? }, got ${describeValue(value)}`

/**
 * `clearToolResults.exclude` (docs/contract.md section 10.5): an array of
 * tool names, each a non-empty string.
 *
 * @since 0.4.0
 * @category rules
 */
export const toolNames: Check = (value) => {
  if (!Array.isArray(value)) return `must be an array of tool names, got ${describeValue(value)}`
  for (let i = 0; i < value.length; i++) {
    const name: unknown = value[i]
    if (typeof name !== "string" || name === "") {
      return `must be an array of tool names (non-empty strings), got ${describeValue(name)} at ${i}`
    }
  }
  return undefined
}

/** `ledger` is an object (docs/contract.md section 14.2). @since 0.4.0 @category rules */
export const ledger: Check = (value) =>
  isObject(value) ? undefined : `must be an object { maxTokens, patterns? }, got ${describeValue(value)}`

/**
 * `ledger.patterns`: an array of `{ kind, regex }`, `kind` a non-empty
 * string, `regex` a `RegExp` that matches no empty text.
 *
 * @since 0.4.0
 * @category rules
 */
export const ledgerPatterns: Check = (value) => {
  if (!Array.isArray(value)) return `must be an array of { kind, regex }, got ${describeValue(value)}`
  for (let i = 0; i < value.length; i++) {
    const p: unknown = value[i]
    if (!isObject(p) || typeof p.kind !== "string" || p.kind === "" || !(p.regex instanceof RegExp)) {
      return `must be an array of { kind, regex } (kind a non-empty string, regex a RegExp), got ${
        describeValue(p)
      } at ${i}`
    }
    if (new RegExp(p.regex.source, p.regex.flags.replace("g", "")).test("")) {
      return `must not match the empty text, got /${p.regex.source}/ at ${i}`
    }
  }
  return undefined
}

/**
 * The ledger's budget within the summary's (docs/contract.md section 14.2):
 * `ledger.maxTokens` below `maxSummaryTokens`, which holds the ledger's
 * section and leaves the summarizer the rest.
 *
 * @since 0.4.0
 * @category rules
 */
export const ledgerWithin = (
  options: { readonly ledger?: { readonly maxTokens?: number } | undefined; readonly maxSummaryTokens?: number },
  name: Naming
): Problem | undefined => {
  const ledgerTokens = options.ledger?.maxTokens
  const max = options.maxSummaryTokens
  return ledgerTokens !== undefined && max !== undefined && ledgerTokens >= max
    ? {
      option: "ledger.maxTokens",
      description: `must be less than ${name("maxSummaryTokens")} (${max}, which holds the ledger's section and ` +
        `the summarizer's summary), got ${ledgerTokens}`
    }
    : undefined
}

/**
 * Summary segments (docs/contract.md section 10.9) never with the artifact
 * ledger: the ledger's section ends the summary and is rewritten by every
 * fold, which segments exist to avoid.
 *
 * @since 0.4.0
 * @category rules
 */
export const segmentsRules = (
  options: { readonly summary?: unknown; readonly ledger?: unknown },
  name: Naming
): Problem | undefined =>
  options.summary === "segments" && options.ledger !== undefined
    ? {
      option: "ledger",
      description: `cannot be given with ${name("summary")}: "segments": the ledger's section ends the summary and ` +
        "every fold rewrites it, where segments are never rewritten"
    }
    : undefined

/**
 * A summarizer that does not declare it honours `request.mode`, refused
 * with summary segments on (docs/contract.md section 10.9).
 *
 * @since 0.4.0
 * @category rules
 */
export const segmentsNeedMode: Problem = {
  option: "summary",
  description: "\"segments\" needs a summarizer that honours request.mode (returns only the new segment, or one " +
    "consolidation): mark one that does with Summarizer.honouringMode (honouringMode of rollmem/promise); this one " +
    "would write the whole summary into " +
    "every segment"
}

/**
 * The facade's `Conversations` check of `summary: "segments"` against its
 * summarizer, in its constructor (docs/contract.md section 10.9):
 * {@link segmentsNeedMode} when segments are asked for and a summarizer that
 * does not honour `request.mode` is given (`honours` is `undefined` when
 * there is none: dropping needs no mode).
 *
 * @since 0.4.0
 * @category rules
 */
export const storedSegments = (summary: unknown, honours: boolean | undefined): Problem | undefined =>
  summary === "segments" && honours === false ? segmentsNeedMode : undefined

/**
 * A compacting summarizer (docs/contract.md section 15.7) with summary
 * segments or folds in chunks: refused when the memory is built, naming
 * why (section 15.7). `undefined` when neither is set.
 *
 * @since 0.4.0
 * @category rules
 */
export const compactingRefused = (
  summary: string | undefined,
  maxSummarizerInputTokens: number | undefined
): Problem | undefined =>
  summary === "segments"
    ? {
      option: "summary",
      description: "\"segments\" cannot hold a provider compaction: this summarizer compacts (it returns one " +
        "provider item replacing the memory's compaction, not a text segment); use a summarizer that returns text, " +
        "or drop summary: \"segments\""
    }
    : maxSummarizerInputTokens !== undefined
    ? {
      option: "maxSummarizerInputTokens",
      description: "a fold in chunks needs a text summary of each chunk, and this summarizer compacts (it returns " +
        "one provider item for all the evicted turns): drop maxSummarizerInputTokens (the provider's compaction " +
        "takes the whole input), or use a summarizer that returns text"
    }
    : undefined

/** `contextWindow` is an object. @since 0.3.0 @category rules */
export const contextWindow: Check = (value) =>
  isObject(value) ? undefined : `must be an object { tokens, reserveTokens }, got ${describeValue(value)}`

/** The whole-request budget as given (docs/contract.md section 16.1). @since 0.3.0 @category models */
export interface ContextWindowOptions {
  readonly maxTokens?: number | undefined
  readonly targetTokens?: number | undefined
  readonly fold?: "blocking" | "background" | undefined
  readonly contextWindow?: { readonly tokens: number; readonly reserveTokens?: number | undefined } | undefined
}

/**
 * The rules of `contextWindow` (docs/contract.md section 16.1): instead of
 * `maxTokens`, never with it; the reserve (default 0) below the window; `targetTokens`
 * within the window less the reserve; blocking folds only.
 *
 * @since 0.3.0
 * @category rules
 */
export const contextWindowRules = (options: ContextWindowOptions, name: Naming): Problem | undefined => {
  const window = options.contextWindow
  if (window === undefined) return undefined
  if (options.maxTokens !== undefined) {
    return {
      option: "maxTokens",
      description: `cannot be given with ${name("contextWindow")}: the window less the reserve is the budget; give one`
    }
  }
  // the reserve defaults to 0: the whole window is the budget
  const reserveTokens = window.reserveTokens ?? 0
  if (reserveTokens >= window.tokens) {
    return {
      option: "contextWindow.reserveTokens",
      description: `must be less than ${name("contextWindow.tokens")} (${window.tokens}), got ${reserveTokens}`
    }
  }
  const budget = window.tokens - reserveTokens
  if (options.targetTokens !== undefined && options.targetTokens > budget) {
    return {
      option: "targetTokens",
      description: `must be at most ${name("contextWindow.tokens")} less ${
        name("contextWindow.reserveTokens")
      } (${budget}), got ${options.targetTokens}`
    }
  }
  if (options.fold === "background") {
    return {
      option: "fold",
      description: `"background" cannot be given with ${name("contextWindow")}: a window is a hard limit`
    }
  }
  return undefined
}

/**
 * The `archive` option (docs/contract.md section 17): an archive service,
 * an object whose `append` and `search` are functions.
 *
 * @since 0.4.0
 * @category rules
 */
export const archive: Check = (value) =>
  isObject(value) && typeof value.append === "function" && typeof value.search === "function"
    ? undefined
    : `must be an archive (Archive.makeMemory(), or the Archive service of a layer), got ${describeKind(value)}`

/**
 * The Promise facade's `archive` option (docs/contract.md section 17): an
 * archive of `rollmem/promise`'s `Archive` (`memory()`, `sqlite(path)`,
 * `postgres(url)`).
 *
 * @since 0.4.0
 * @category rules
 */
export const promiseArchive: Check = (value) =>
  isObject(value) && typeof value.kind === "string" && archive(value.service) === undefined
    ? undefined
    : `must be an archive (Archive.memory(), Archive.sqlite(path) or Archive.postgres(url)), got ${describeKind(value)}`

/**
 * What a synchronous facade class says of an archive that needs I/O
 * (docs/contract.md section 17), naming the class to use instead.
 *
 * @since 0.4.0
 * @category rules
 */
export const syncArchive = (kind: string, instead: string): Problem => ({
  option: "archive",
  description: `a ${kind} archive needs I/O, which a synchronous memory cannot wait for: use ${instead}, ` +
    "or Archive.memory()"
})

/**
 * The `conversationId` option (docs/contract.md section 17): a non-empty
 * string.
 *
 * @since 0.4.0
 * @category rules
 */
export const conversationId: Check = (value) =>
  typeof value === "string" && value.length > 0 ? undefined : `must be a non-empty string, got ${describeValue(value)}`

const recallKeys = ["limit", "before", "roles", "neighbours"]

/**
 * The options of a recall or an archive search (docs/contract.md section
 * 17): an object or nothing; `limit` a positive integer, `before` and
 * `neighbours` non-negative integers, `roles` an array of strings.
 *
 * @since 0.4.0
 * @category rules
 */
export const recallOptions = (value: unknown): Problem | undefined => {
  if (value === undefined) return undefined
  if (!isObject(value)) return { option: "options", description: `must be an object, got ${describeKind(value)}` }
  for (const key of Object.keys(value)) {
    if (!recallKeys.includes(key)) return { option: key, description: unknownOption(recallKeys) }
  }
  const checks: ReadonlyArray<readonly [string, Check]> = [
    ["limit", positiveInteger],
    ["before", nonNegativeInteger],
    ["neighbours", nonNegativeInteger],
    ["roles", (roles) =>
      Array.isArray(roles) && roles.every((role) => typeof role === "string")
        ? undefined
        : `must be an array of strings, got ${describeValue(roles)}`]
  ]
  for (const [option, check] of checks) {
    if (value[option] === undefined) continue
    const problem = check(value[option])
    if (problem !== undefined) return { option, description: problem }
  }
  return undefined
}

/**
 * The options of `compact` (docs/contract.md section 16.2): an object or
 * nothing; `targetTokens` a positive integer; `focus` a string.
 *
 * @since 0.3.0
 * @category rules
 */
export const compactOptions = (value: unknown): Problem | undefined => {
  if (value === undefined) return undefined
  if (!isObject(value)) return { option: "options", description: `must be an object, got ${describeKind(value)}` }
  for (const key of Object.keys(value)) {
    if (key !== "targetTokens" && key !== "focus") {
      return { option: key, description: unknownOption(["targetTokens", "focus"]) }
    }
  }
  const target = positiveInteger(value.targetTokens)
  if (value.targetTokens !== undefined && target !== undefined) return { option: "targetTokens", description: target }
  const focus = string(value.focus)
  if (value.focus !== undefined && focus !== undefined) return { option: "focus", description: focus }
  return undefined
}

/**
 * A recorded usage (docs/contract.md section 16.4): an object with
 * `inputTokens`, a positive integer (a request always has input tokens: a
 * 0 is a usage read wrong, never a sample), and an optional
 * `overheadTokens`, a non-negative integer. The description, or `undefined`
 * when it is valid.
 *
 * @since 0.3.0
 * @category rules
 */
export const usage = (value: unknown): string | undefined => {
  if (!isObject(value)) return `must be an object { inputTokens, overheadTokens? }, got ${describeValue(value)}`
  for (const key of Object.keys(value)) {
    if (key !== "inputTokens" && key !== "overheadTokens") {
      return `${key}: ${unknownOption(["inputTokens", "overheadTokens"])}`
    }
  }
  const input = positiveInteger(value.inputTokens)
  if (input !== undefined) return `inputTokens: ${input}`
  if (value.overheadTokens !== undefined) {
    const overhead = nonNegativeInteger(value.overheadTokens)
    if (overhead !== undefined) return `overheadTokens: ${overhead}`
  }
  return undefined
}

/**
 * The options of `withOverflowRetry` (docs/contract.md section 16.3): an
 * object or nothing, with only the keys `retries`, `recognizers`,
 * `schedule` and `focus` (the values are checked where they are read).
 *
 * @since 0.3.0
 * @category rules
 */
export const overflowRetryOptions = (value: unknown): Problem | undefined => {
  if (value === undefined) return undefined
  if (!isObject(value)) return { option: "options", description: `must be an object, got ${describeKind(value)}` }
  const known = ["retries", "recognizers", "schedule", "focus"]
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) return { option: key, description: unknownOption(known) }
  }
  return undefined
}

/** The options object itself: `must be an object, got null`. @since 0.4.0 @category rules */
export const options: Check = (value) => isObject(value) ? undefined : `must be an object, got ${describeKind(value)}`

/** A known strategy. @since 0.4.0 @category rules */
export const strategy: Check = (value) =>
  typeof value === "string" && (strategies as ReadonlyArray<string>).includes(value)
    ? undefined
    : `must be one of ${strategies.join(", ")}, got ${describeValue(value)}`

/**
 * The description of a key no schema knows: `unknown option for the rolling
 * strategy (known: maxTokens, ...)`; `owner` is omitted when the caller
 * named the strategy already (its own constructor).
 *
 * @since 0.4.0
 * @category rules
 */
export const unknownOption = (known: ReadonlyArray<string>, owner?: string): string =>
  `unknown option${owner === undefined ? "" : ` for ${owner}`} (known: ${known.join(", ")})`

/**
 * A low-water mark within its budget (docs/contract.md section 10.1):
 * `targetTokens` at most `maxTokens`, `targetMessages` at most `maxMessages`.
 *
 * @since 0.4.0
 * @category rules
 */
export const targetWithin = (
  targetName: string,
  target: number | undefined,
  budgetName: string,
  budget: number,
  name: Naming
): Problem | undefined =>
  target !== undefined && target > budget
    ? { option: targetName, description: `must be at most ${name(budgetName)} (${budget}), got ${target}` }
    : undefined

/** The background-folding options as given (docs/contract.md section 5.1). @since 0.4.0 @category models */
export interface FoldOptions {
  readonly maxTokens?: number | undefined
  readonly fold?: "blocking" | "background" | undefined
  readonly hardMaxTokens?: number | undefined
  readonly foldRetry?: unknown
  readonly foldRetries?: number | undefined
}

/**
 * The background-folding rules (docs/contract.md section 5.1) that need no
 * context: `hardMaxTokens`, `foldRetry` and `foldRetries` need `fold:
 * "background"`; `hardMaxTokens` is at least `maxTokens`.
 *
 * @since 0.4.0
 * @category rules
 */
export const foldRules = (options: FoldOptions, name: Naming): Problem | undefined => {
  if (options.fold !== "background") {
    for (const key of ["hardMaxTokens", "foldRetry", "foldRetries"] as const) {
      if (options[key] !== undefined) return { option: key, description: `needs ${name("fold")}: "background"` }
    }
    return undefined
  }
  const maxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS
  if (options.hardMaxTokens !== undefined && options.hardMaxTokens < maxTokens) {
    return {
      option: "hardMaxTokens",
      description: `must be at least ${name("maxTokens")} (${maxTokens}), got ${options.hardMaxTokens}`
    }
  }
  return undefined
}

/** The hard cap of background folds: `hardMaxTokens`, default twice `maxTokens`. @since 0.4.0 @category rules */
export const hardMaxOf = (maxTokens: number, hardMaxTokens: number | undefined): number =>
  hardMaxTokens ?? 2 * maxTokens

/**
 * What a memory's context must give it besides its options: background
 * folds need a scope that owns them and a summarizer that summarizes.
 *
 * @since 0.4.0
 * @category rules
 */
export const foldContext = (
  fold: "blocking" | "background" | undefined,
  scoped: boolean,
  summarizes: boolean
): Problem | undefined =>
  fold !== "background" ? undefined : !scoped
    ? {
      option: "fold",
      description: "\"background\" needs a scope that owns the folds: use RollingMemory.makeScoped"
    }
    : !summarizes
    ? {
      option: "fold",
      description: "\"background\" needs a real Summarizer: with Summarizer.drop, evicted turns are dropped at once"
    }
    : undefined

/**
 * The artifact ledger lives in the summary (docs/contract.md section 14.2):
 * a memory that drops its evicted turns (`Summarizer.drop`, the facade's
 * `summarize: "drop"`, `--summarizer none`) has no summary to hold it, so a
 * `ledger` given with it is refused rather than ignored.
 *
 * @since 0.4.0
 * @category rules
 */
export const ledgerNeedsSummarizer: Problem = {
  option: "ledger",
  description: "needs a summarizer: the ledger's section ends the summary, and a memory that drops its evicted " +
    "turns keeps no summary"
}

/**
 * The summary strategy folds every turn into its summary: without a
 * summarizer that summarizes it would drop every turn.
 *
 * @since 0.4.0
 * @category rules
 */
export const summaryNeedsSummarizer: Problem = {
  option: "summarizer",
  description: "SummaryMemory needs a summarizer that summarizes: Summarizer.drop would drop every turn"
}

/**
 * The Promise facade's explicit choice to drop evicted turns (`summarize:
 * "drop"`), as the Effect API's `Summarizer.drop`.
 *
 * @since 0.4.0
 * @category constants
 */
export const DROP = "drop"

/**
 * The facade's `summarize` of the rolling strategy (`RollingMemory`,
 * `AsyncRollingMemory`, `Conversations`): a function, or `"drop"`; absent,
 * the description says how to choose (docs/contract.md section 5).
 *
 * @since 0.4.0
 * @category rules
 */
export const summarizeOrDrop: Check = (value) =>
  typeof value === "function" || value === DROP
    ? undefined
    : value === undefined
    ? "is required: pass a function that folds the evicted turns into the summary, or \"drop\" to drop them " +
      "on purpose (an absent summarize dropped them before 0.4.0)"
    : `must be a function or "drop", got ${describeValue(value)}`

/**
 * The facade's `summarize` of the summary strategy (`SummaryMemory`,
 * `AsyncSummaryMemory`, `Conversations`): a function; `"drop"` would drop
 * every turn.
 *
 * @since 0.4.0
 * @category rules
 */
export const summarizeFunction: Check = (value) =>
  typeof value === "function" ? undefined : value === undefined
    ? "a summarizer function is required"
    : value === DROP
    ? "must be a function: the summary strategy folds every turn, \"drop\" would drop them all"
    : `must be a function, got ${describeKind(value)}`

/**
 * The `summarize` a stored conversation of `strategy` needs from the facade
 * (`Conversations`): the rolling strategy {@link summarizeOrDrop}, the
 * summary strategy {@link summarizeFunction}; the others any of them or none.
 *
 * @since 0.4.0
 * @category rules
 */
export const storedSummarize = (strategy: Strategy, summarize: unknown): Problem | undefined => {
  const problem = strategy === "rolling"
    ? summarizeOrDrop(summarize)
    : strategy === "summary"
    ? summarizeFunction(summarize)
    : undefined
  return problem === undefined ? undefined : { option: "summarize", description: problem }
}

/** The facade's options that need another (`core/options.ts` {@link promiseNeeds}). @since 0.4.0 @category models */
export interface PromiseNeeds {
  readonly summarize?: unknown
  readonly timeout?: unknown
  readonly fold?: unknown
}

/**
 * The Promise facade's options that need another, in its own terms:
 * `timeout` and `fold: "background"` need a `summarize` function (not
 * `"drop"`).
 *
 * @since 0.4.0
 * @category rules
 */
export const promiseNeeds = (options: PromiseNeeds, name: Naming): Problem | undefined =>
  typeof options.summarize === "function"
    ? undefined
    : options.timeout !== undefined
    ? { option: "timeout", description: `needs a ${name("summarize")} function: without one, no call is made to bound` }
    : options.fold === "background"
    ? {
      option: "fold",
      description: `"background" needs a ${name("summarize")} function: without one, evicted turns are dropped at once`
    }
    : undefined

/**
 * A strategy's cross-field rule over its decoded options (each option
 * already passed its own check): the first {@link Problem}, else `undefined`.
 * Each line's options schema runs it after the fields.
 */
export type CrossRule = (options: { readonly [key: string]: unknown }, name: Naming) => Problem | undefined

/**
 * RollingMemory's cross-field rules: the context window's, `targetTokens`
 * within `maxTokens` (default {@link DEFAULT_MAX_TOKENS}) without a window,
 * the fold mode's, and the ledger within the summary budget.
 */
export const rollingRule: CrossRule = (o, name) =>
  contextWindowRules(o as ContextWindowOptions, name) ??
    (o.contextWindow === undefined
      ? targetWithin(
        "targetTokens",
        o.targetTokens as number | undefined,
        "maxTokens",
        (o.maxTokens as number | undefined) ?? DEFAULT_MAX_TOKENS,
        name
      )
      : undefined) ??
    foldRules(o as FoldOptions, name) ??
    ledgerWithin(o, name) ??
    segmentsRules(o, name)

/** WindowMemory's cross-field rule: `targetMessages` within `maxMessages`. */
export const windowRule: CrossRule = (o, name) =>
  targetWithin("targetMessages", o.targetMessages as number | undefined, "maxMessages", o.maxMessages as number, name)

/** SummaryMemory's cross-field rule: the ledger within the summary budget. */
export const summaryRule: CrossRule = (o, name) => ledgerWithin(o, name) ?? segmentsRules(o, name)
