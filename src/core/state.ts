/**
 * The state file's rules (docs/contract.md section 2.1) as plain checks, no
 * `effect` import: which fields only version 3 carries, and the cross-field
 * rules of a version 3 state. Each Effect line's state schema declares the
 * fields and calls {@link wireIssues}.
 *
 * @since 0.4.0
 */

/** The version a state is written with when it has no version 3 field. @since 0.4.0 */
export const CURRENT_VERSION = 2

/** The version of a state with segments, a compaction, a conversation id, positions or a usage ratio. @since 0.4.0 */
export const VERSION_3 = 3

/** The fields only a version 3 state carries, in the order they are written. @since 0.4.0 */
export const VERSION_3_FIELDS = [
  "segments",
  "compaction",
  "conversationId",
  "nextPosition",
  "positions",
  "unarchived",
  "usageRatio"
] as const

/** The top-level keys of a state document, in the order a refusal of another lists them. @since 0.4.0 */
export const STATE_KEYS: ReadonlyArray<string> = ["version", "summary", "buffer", ...VERSION_3_FIELDS]

/**
 * The refusal of a top-level key no state has (docs/contract.md section
 * 2.1), after its path: `is unexpected, expected: "version" | "summary" | ...`.
 *
 * @since 0.4.0
 */
export const UNEXPECTED_STATE_KEY = `is unexpected, expected: ${STATE_KEYS.map((k) => JSON.stringify(k)).join(" | ")}`

/** The keys of a state's `compaction`, in the order a refusal of another lists them. @since 0.4.0 */
export const COMPACTION_KEYS: ReadonlyArray<string> = ["format", "item", "content"]

/**
 * The refusal of a key no `compaction` has (docs/contract.md section 2.1),
 * after its path: `is unexpected, expected: "format" | "item" | "content"`.
 *
 * @since 0.4.0
 */
export const UNEXPECTED_COMPACTION_KEY = `is unexpected, expected: ${
  COMPACTION_KEYS.map((k) => JSON.stringify(k)).join(" | ")
}`

/**
 * The refusal of a `version` that is not 1, 2 or 3, after its path;
 * `actual` the value as messages print it (`core/format.ts` `formatValue`).
 *
 * @example
 * ```ts
 * unsupportedVersion("9") // "unsupported version 9, expected 1, 2 or 3"
 * ```
 *
 * @since 0.4.0
 */
export const unsupportedVersion = (actual: string): string => `unsupported version ${actual}, expected 1, 2 or 3`

/** What joins a version 3 state's segments into its summary: a blank line. @since 0.4.0 */
export const SEGMENT_SEPARATOR = "\n\n"

/** A wrong field of a state: its path and what is wrong with it. @since 0.4.0 */
export interface Issue {
  readonly path: ReadonlyArray<string | number>
  readonly message: string
}

/** A decoded state file's fields, before the cross-field rules. @since 0.4.0 */
export interface Wire {
  readonly version: number
  readonly summary: string
  readonly buffer: ReadonlyArray<unknown>
  readonly segments?: ReadonlyArray<string> | undefined
  readonly compaction?: unknown
  readonly conversationId?: string | undefined
  readonly nextPosition?: number | undefined
  readonly positions?: ReadonlyArray<number> | undefined
  readonly unarchived?: ReadonlyArray<{ readonly position: number }> | undefined
  readonly usageRatio?: number | undefined
}

/**
 * The cross-field rules of a state file (docs/contract.md section 2.1): no
 * version 3 field below version 3; the summary equal to the segments joined
 * (or empty); positions and nextPosition together, one position per buffered
 * message, increasing and below nextPosition. Empty when the state holds.
 *
 * @since 0.4.0
 */
export const wireIssues = (wire: Wire): Array<Issue> => {
  const issues: Array<Issue> = []
  if (wire.version !== VERSION_3) {
    for (const key of VERSION_3_FIELDS) {
      if (wire[key] !== undefined) {
        issues.push({ path: [key], message: `is a version 3 field, in a version ${wire.version} state` })
      }
    }
    return issues
  }
  if (wire.segments !== undefined && wire.summary !== "" && wire.summary !== wire.segments.join(SEGMENT_SEPARATOR)) {
    issues.push({ path: ["summary"], message: "differs from the segments joined with a blank line" })
  }
  if ((wire.positions === undefined) !== (wire.nextPosition === undefined)) {
    issues.push({
      path: [wire.positions === undefined ? "positions" : "nextPosition"],
      message: "is missing: positions and nextPosition come together"
    })
  } else if (wire.positions !== undefined && wire.nextPosition !== undefined) {
    if (wire.positions.length !== wire.buffer.length) {
      issues.push({
        path: ["positions"],
        message: `has ${wire.positions.length} entries for a buffer of ${wire.buffer.length}`
      })
    }
    for (let i = 0; i < wire.positions.length; i++) {
      const previous = i === 0 ? -1 : wire.positions[i - 1]
      if (wire.positions[i] <= previous || wire.positions[i] >= wire.nextPosition) {
        issues.push({
          path: ["positions", i],
          message: `is ${wire.positions[i]}: positions increase and stay below nextPosition (${wire.nextPosition})`
        })
        break
      }
    }
  }
  if (wire.unarchived !== undefined) {
    if (wire.nextPosition === undefined) {
      issues.push({ path: ["unarchived"], message: "needs nextPosition: its entries are positions" })
    } else {
      for (let i = 0; i < wire.unarchived.length; i++) {
        const previous = i === 0 ? -1 : wire.unarchived[i - 1].position
        const position = wire.unarchived[i].position
        if (position <= previous || position >= wire.nextPosition) {
          issues.push({
            path: ["unarchived", i, "position"],
            message: `is ${position}: positions increase and stay below nextPosition (${wire.nextPosition})`
          })
          break
        }
      }
    }
  }
  return issues
}

/** Whether a state needs version 3: one of {@link VERSION_3_FIELDS} is set. @since 0.4.0 */
export const usesVersion3 = (state: { readonly [K in (typeof VERSION_3_FIELDS)[number]]?: unknown }): boolean =>
  VERSION_3_FIELDS.some((key) => state[key] !== undefined)

/**
 * What a facade's `fromJSON` refuses before reading a state: anything but a
 * state object (parsed JSON) or its JSON text, said as such; `undefined`
 * for an object or a string (read as the state, or as its text).
 *
 * @example
 * ```ts
 * restoreInputProblem(null) // "expected a state object or its JSON text, got null"
 * restoreInputProblem("{\"version\":2}") // undefined
 * ```
 *
 * @since 0.4.0
 */
export const restoreInputProblem = (data: unknown): string | undefined =>
  typeof data === "string" || (typeof data === "object" && data !== null)
    ? undefined
    : `expected a state object or its JSON text, got ${data === null ? "null" : typeof data}`

/**
 * Why a value given where a decoded state is expected (a strategy's
 * `fromState`, `Memory.make`'s state) is not one, or `undefined` when it
 * is: an object with a string `summary` and a `buffer` array whose every
 * element `isMessage` accepts (each line passes its `Message` class's
 * check). A saved state document (a `version`, wire fields) is told to go
 * through `fromJSON`; both lines fail with it as `StateDecodeError`, never
 * a defect or a counter's error (docs/contract.md section 2).
 *
 * @example
 * ```ts
 * decodedStateProblem({ version: 2, summary: "", buffer: [] }, () => true)
 * // "expected a decoded MemoryState and got a state document (version 2): restore it with fromJSON, or decode it with MemoryState.fromJSON first"
 * decodedStateProblem({ summary: "", buffer: [] }, () => true) // undefined
 * ```
 *
 * @since 0.4.0
 */
export const decodedStateProblem = (state: unknown, isMessage: (u: unknown) => boolean): string | undefined => {
  if (typeof state !== "object" || state === null || Array.isArray(state)) {
    return `expected a decoded MemoryState (summary and buffer of Message values), got ${
      state === null ? "null" : Array.isArray(state) ? "an array" : typeof state
    }`
  }
  const { buffer, summary, version } = state as {
    readonly summary?: unknown
    readonly buffer?: unknown
    readonly version?: unknown
  }
  if (version !== undefined) {
    return `expected a decoded MemoryState and got a state document (version ${
      typeof version === "number" ? version : JSON.stringify(version) ?? typeof version
    }): restore it with fromJSON, or decode it with MemoryState.fromJSON first`
  }
  if (typeof summary !== "string") return "summary: expected a string"
  if (!Array.isArray(buffer)) return "buffer: expected an array of Message values"
  for (let i = 0; i < buffer.length; i++) {
    if (!isMessage(buffer[i])) {
      return `buffer[${i}]: expected a Message value, got ${
        buffer[i] === null ? "null" : typeof buffer[i]
      }: build messages with Message.make (or user, assistant, ...), or decode a saved state with MemoryState.fromJSON`
    }
  }
  return undefined
}
