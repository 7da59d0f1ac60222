/**
 * A reference model of contract sections 1, 3 and 4 to 8, transcribed naively so
 * that it is obviously right: units are recomputed from scratch over the whole
 * buffer on every prune, token counts are recomputed on every prune, and every
 * strategy is a pure function `(state, message) -> step`.
 *
 * Tests run the real library and this model side by side and compare buffer,
 * summary and summarizer calls after every add. The model shares no code with
 * `src` (it only reads message fields), so a bug in the library cannot hide in
 * it.
 *
 * API:
 * - `tokenText(m)`, `stringForm(m)`, `wordCount(text)`, `isResponseLike(m)`
 * - `units(buffer)`: the units as `{ start, end }` (end exclusive), in order
 * - `cutoff(buffer, weights, budget)`: how many oldest messages to evict
 * - `rolling(options)`, `window(options)`, `buffer`, `summary(options)`: the
 *   strategies, each `{ add(state, message): Step }`
 * - `run(strategy, state, messages)`: every step of a sequence of adds
 * - `messages(state)`, `context(state)`: reading back
 */

/** What the model reads of a message (the library's `Message` fits). */
export interface ModelMessage {
  readonly role: string
  readonly content: string
  readonly toolCalls: ReadonlyArray<{ readonly id: string; readonly name: string; readonly arguments: string }>
  readonly toolCallId?: string | undefined
}

/** A memory's state: summary (`""` when none) and buffer, oldest first. */
export interface ModelState<M extends ModelMessage = ModelMessage> {
  readonly summary: string
  readonly buffer: ReadonlyArray<M>
}

/** One summarizer call: what it was given and whether its result was committed. */
export interface Call<M extends ModelMessage = ModelMessage> {
  readonly summary: string
  readonly messages: ReadonlyArray<M>
  /** The summary it returned, or `undefined` when it failed. */
  readonly result: string | undefined
}

/** The outcome of one add. */
export interface Step<M extends ModelMessage = ModelMessage> {
  /** The state after the add (on a summarizer failure: right after the append). */
  readonly state: ModelState<M>
  /** The summarizer calls the add made (0 or 1). */
  readonly calls: ReadonlyArray<Call<M>>
  /** Whether the add failed (summarizer failure). */
  readonly failed: boolean
}

/** A strategy of the model. */
export interface Strategy {
  readonly add: <M extends ModelMessage>(state: ModelState<M>, message: M) => Step<M>
}

/**
 * A model summarizer: returns the new summary, or `undefined` to fail. It
 * must be a pure function of its arguments (the library's summarizer in a
 * test should be the same function).
 */
export type Summarize = (summary: string, messages: ReadonlyArray<ModelMessage>) => string | undefined

/** The empty state. */
export const empty: ModelState<never> = { summary: "", buffer: [] }

// ---------------------------------------------------------------------------
// contract 1: token text and string form

/** contract 1 token text: content if not empty, `name(arguments)` per call, tool call id if present; joined by "\n". */
export const tokenText = (m: ModelMessage): string => {
  const parts: Array<string> = []
  if (m.content !== "") parts.push(m.content)
  for (const call of m.toolCalls) parts.push(`${call.name}(${call.arguments})`)
  if (m.toolCallId !== undefined && m.toolCallId !== null) parts.push(m.toolCallId)
  return parts.join("\n")
}

/** contract 1 string form: `"{role}: {content}"` plus `" [tool calls: f(a), g(b)]"` when there are calls. */
export const stringForm = (m: ModelMessage): string =>
  m.toolCalls.length === 0
    ? `${m.role}: ${m.content}`
    : `${m.role}: ${m.content} [tool calls: ${m.toolCalls.map((c) => `${c.name}(${c.arguments})`).join(", ")}]`

// ---------------------------------------------------------------------------
// contract 3: word count

/** contract 3's whitespace set, listed one by one. */
export const WHITESPACE: ReadonlyArray<number> = [
  0x09,
  0x0a,
  0x0b,
  0x0c,
  0x0d,
  0x1c,
  0x1d,
  0x1e,
  0x1f,
  0x20,
  0x85,
  0xa0,
  0x1680,
  0x2000,
  0x2001,
  0x2002,
  0x2003,
  0x2004,
  0x2005,
  0x2006,
  0x2007,
  0x2008,
  0x2009,
  0x200a,
  0x2028,
  0x2029,
  0x202f,
  0x205f,
  0x3000
]

const whitespace = new Set(WHITESPACE)

/** contract 3: the number of runs of non-whitespace characters. */
export const wordCount = (text: string): number => {
  let words = 0
  let previousWasSpace = true
  for (const ch of text) {
    const space = ch.length === 1 && whitespace.has(ch.charCodeAt(0))
    if (!space && previousWasSpace) words++
    previousWasSpace = space
  }
  return words
}

// ---------------------------------------------------------------------------
// contract 4: units and the cutoff

/** A present tool call id (not absent, not null; `""` is present). */
const hasToolCallId = (m: ModelMessage): boolean => m.toolCallId !== undefined && m.toolCallId !== null

/** contract 4: role `assistant` or `tool`, or a tool call id present. */
export const isResponseLike = (m: ModelMessage): boolean =>
  m.role === "assistant" || m.role === "tool" || hasToolCallId(m)

/** A unit: the messages `buffer[start..end)`. */
export interface Unit {
  readonly start: number
  readonly end: number
}

/**
 * contract 4 units, recomputed from scratch: each message with tool calls spans
 * from itself to the last message (anywhere in the buffer, after it) whose
 * tool call id is one of its calls' ids; overlapping spans merge; every other
 * message is a unit of one.
 */
export const units = (buffer: ReadonlyArray<ModelMessage>): Array<Unit> => {
  // spanEnd[i] = last index (inclusive) that message i's span reaches.
  const spanEnd: Array<number> = buffer.map((_, i) => i)
  for (let i = 0; i < buffer.length; i++) {
    for (const call of buffer[i].toolCalls) {
      for (let j = buffer.length - 1; j > i; j--) {
        if (hasToolCallId(buffer[j]) && buffer[j].toolCallId === call.id) {
          spanEnd[i] = Math.max(spanEnd[i], j)
          break
        }
      }
    }
  }
  const result: Array<Unit> = []
  let i = 0
  while (i < buffer.length) {
    const start = i
    let end = spanEnd[i]
    // Merge every span that starts inside the current one (overlap).
    let k = i
    while (k <= end) {
      end = Math.max(end, spanEnd[k])
      k++
    }
    result.push({ start, end: end + 1 })
    i = end + 1
  }
  return result
}

/**
 * contract 4 pruning: the number of oldest messages to evict, given each
 * message's weight (tokens for RollingMemory, 1 for WindowMemory) and the
 * budget.
 */
export const cutoff = (
  buffer: ReadonlyArray<ModelMessage>,
  weights: ReadonlyArray<number>,
  budget: number
): number => {
  const us = units(buffer)
  const weightOf = (u: Unit): number => {
    let w = 0
    for (let i = u.start; i < u.end; i++) w += weights[i]
    return w
  }
  let size = 0
  for (const w of weights) size += w
  // Step 1: evict the oldest units while more than one remains and over budget.
  let evicted = 0
  while (us.length - evicted > 1 && size > budget) {
    size -= weightOf(us[evicted])
    evicted++
  }
  // Step 2: nothing to evict.
  if (evicted === 0) return 0
  // Step 3: alignment. Candidates: the units from the step-1 cut to the last one.
  for (let u = evicted; u < us.length; u++) {
    if (!isResponseLike(buffer[us[u].start])) return us[u].start
  }
  // Every candidate is response-like: keep the step-1 cutoff.
  return us[evicted].start
}

// ---------------------------------------------------------------------------
// contract 5 to 8: the strategies

const append = <M extends ModelMessage>(state: ModelState<M>, message: M): ModelState<M> => ({
  summary: state.summary,
  buffer: [...state.buffer, message]
})

const noCalls: ReadonlyArray<never> = []

/**
 * Calls the summarizer on the `cut` oldest messages of `state` and commits on
 * success; on failure `state` stays as it is.
 */
const foldPrefix = <M extends ModelMessage>(state: ModelState<M>, cut: number, summarize: Summarize): Step<M> => {
  const evicted = state.buffer.slice(0, cut)
  const result = summarize(state.summary, evicted)
  const call: Call<M> = { summary: state.summary, messages: evicted, result }
  return result === undefined
    ? { state, calls: [call], failed: true }
    : { state: { summary: result, buffer: state.buffer.slice(cut) }, calls: [call], failed: false }
}

/** Options of the RollingMemory model. */
export interface RollingOptions {
  readonly maxTokens: number
  /** Default: {@link wordCount}. */
  readonly count?: ((text: string) => number) | undefined
  /** Absent: evicted turns are dropped. */
  readonly summarize?: Summarize | undefined
}

/** contract 5: append, prune by tokens, fold the evicted prefix in one call (or drop it without a summarizer). */
export const rolling = (options: RollingOptions): Strategy => ({
  add: (state, message) => {
    const count = options.count ?? wordCount
    const appended = append(state, message)
    const weights = appended.buffer.map((m) => count(tokenText(m)))
    const cut = cutoff(appended.buffer, weights, options.maxTokens)
    if (cut === 0) return { state: appended, calls: noCalls, failed: false }
    if (options.summarize === undefined) {
      return { state: { summary: appended.summary, buffer: appended.buffer.slice(cut) }, calls: noCalls, failed: false }
    }
    return foldPrefix(appended, cut, options.summarize)
  }
})

/** contract 7: append, prune by message count, drop the evicted prefix. */
export const window = (options: { readonly maxMessages: number }): Strategy => ({
  add: (state, message) => {
    const appended = append(state, message)
    const cut = cutoff(appended.buffer, appended.buffer.map(() => 1), options.maxMessages)
    return {
      state: { summary: appended.summary, buffer: appended.buffer.slice(cut) },
      calls: noCalls,
      failed: false
    }
  }
})

/** contract 6: append and keep everything. */
export const buffer: Strategy = {
  add: (state, message) => ({ state: append(state, message), calls: noCalls, failed: false })
}

/** contract 8: append, then fold every pending turn into the summary in one call. */
export const summary = (options: { readonly summarize: Summarize }): Strategy => ({
  add: (state, message) => {
    const appended = append(state, message)
    return foldPrefix(appended, appended.buffer.length, options.summarize)
  }
})

/** Every step of adding `messages` one by one, starting from `state` (a restored state is never pruned). */
export const run = <M extends ModelMessage>(
  strategy: Strategy,
  state: ModelState<M>,
  messages: ReadonlyArray<M>
): Array<Step<M>> => {
  const steps: Array<Step<M>> = []
  let current = state
  for (const message of messages) {
    const step = strategy.add(current, message)
    steps.push(step)
    current = step.state
  }
  return steps
}

/** The final state after adding `messages` from `state`. */
export const final = <M extends ModelMessage>(
  strategy: Strategy,
  state: ModelState<M>,
  messages: ReadonlyArray<M>
): ModelState<M> => {
  let current = state
  for (const message of messages) current = strategy.add(current, message).state
  return current
}

// ---------------------------------------------------------------------------
// Reading back (contract 5)

/** The summary as a leading system message (when not empty), then the buffer. */
export const messages = (state: ModelState): Array<ModelMessage> =>
  state.summary === ""
    ? [...state.buffer]
    : [{ role: "system", content: state.summary, toolCalls: [] }, ...state.buffer]

/** The string forms of {@link messages}, joined with "\n". */
export const context = (state: ModelState): string => messages(state).map(stringForm).join("\n")

// ---------------------------------------------------------------------------
// SPEC 10: context policies, transcribed naively (everything recomputed from
// scratch over the whole buffer on every prune)

/** SPEC 10.3: role `system` or `developer` and no tool fields. */
export const isSystemLike = (m: ModelMessage): boolean =>
  (m.role === "system" || m.role === "developer") && m.toolCalls.length === 0 && !hasToolCallId(m)

/** SPEC 10.2: role `user` and no tool call id. */
export const isUserTurn = (m: ModelMessage): boolean => m.role === "user" && !hasToolCallId(m)

/**
 * SPEC 10.2 orphans, for the messages given in buffer order: a tool result
 * with no earlier message calling its id, that message not an orphan itself
 * (a result that is also a call and is orphaned calls nothing).
 */
export const orphans = (buffer: ReadonlyArray<ModelMessage>): Array<boolean> => {
  const called = new Set<string>()
  return buffer.map((m) => {
    const orphan = hasToolCallId(m) && !called.has(m.toolCallId!)
    if (!orphan) { for (const c of m.toolCalls) called.add(c.id) }
    return orphan
  })
}

/** Options of the SPEC 10 pruning model. */
export interface PolicyOptions {
  /** The budget (tokens or messages, as the weights say). */
  readonly budget: number
  /** SPEC 10.1; default the budget. */
  readonly target?: number | undefined
  /** SPEC 10.2; default `"aligned"`. */
  readonly boundary?: "aligned" | "turn" | undefined
  /** SPEC 10.3; default `false`. */
  readonly pinSystem?: boolean | undefined
}

/**
 * One SPEC 10 prune over `buffer` with `weights`: the indices (ascending) of
 * the messages it evicts, or `undefined` when it does not start (within the
 * budget and, in turn mode, no repair due). `over` forces the "started over
 * the budget" flag (clearing may have lowered the weights since the trigger).
 */
export const prunePlan = (
  buffer: ReadonlyArray<ModelMessage>,
  weights: ReadonlyArray<number>,
  options: PolicyOptions,
  over: boolean
): Array<number> => {
  const target = options.target ?? options.budget
  const turn = options.boundary === "turn"
  // the messages the rules see: unpinned, and in turn mode not orphaned
  const unpinned = buffer.map((_, i) => i).filter((i) => !(options.pinSystem === true && isSystemLike(buffer[i])))
  const orphanFlags = turn ? orphans(unpinned.map((i) => buffer[i])) : unpinned.map(() => false)
  const orphanIdx = unpinned.filter((_, k) => orphanFlags[k])
  const rest = unpinned.filter((_, k) => !orphanFlags[k])
  const restMessages = rest.map((i) => buffer[i])
  const us = units(restMessages)
  const w = (u: Unit): number => {
    let total = 0
    for (let k = u.start; k < u.end; k++) total += weights[rest[k]]
    return total
  }
  const isTurnStart = (u: Unit): boolean => isUserTurn(restMessages[u.start])
  let size = 0
  for (const i of rest) size += weights[i]
  // Step 1 (10.1): only a prune started over the budget evicts to the target.
  let cut = 0
  if (over) {
    while (us.length - cut > 1 && size > target) {
      size -= w(us[cut])
      cut++
    }
  }
  const evictedUnits = new Set<number>()
  const turnStarts = us.map((u, k) => (isTurnStart(u) ? k : -1)).filter((k) => k >= 0)
  if (turn && turnStarts.length > 0) {
    const atOrAfter = turnStarts.find((k) => k >= cut)
    if (atOrAfter !== undefined) {
      for (let k = 0; k < atOrAfter; k++) evictedUnits.add(k)
    } else {
      const t = turnStarts[turnStarts.length - 1]
      let remaining = 0
      for (let k = t; k < us.length; k++) remaining += w(us[k])
      for (let k = 0; k < t; k++) evictedUnits.add(k)
      for (let k = t + 1; k < us.length - 1 && remaining > target; k++) {
        remaining -= w(us[k])
        evictedUnits.add(k)
      }
    }
  } else if (cut > 0) {
    let aligned = cut
    for (let k = cut; k < us.length; k++) {
      if (!isResponseLike(restMessages[us[k].start])) {
        aligned = k
        break
      }
    }
    for (let k = 0; k < aligned; k++) evictedUnits.add(k)
  }
  const evicted = new Set<number>(orphanIdx)
  for (const k of evictedUnits) for (let j = us[k].start; j < us[k].end; j++) evicted.add(rest[j])
  return [...evicted].sort((x, y) => x - y)
}

/** Whether a SPEC 10 prune starts: over the budget, or in turn mode a repair is due. */
export const pruneStarts = (
  buffer: ReadonlyArray<ModelMessage>,
  weights: ReadonlyArray<number>,
  options: PolicyOptions
): boolean => {
  const unpinned = buffer.map((_, i) => i).filter((i) => !(options.pinSystem === true && isSystemLike(buffer[i])))
  let size = 0
  for (const i of unpinned) size += weights[i]
  if (size > options.budget) return true
  if (options.boundary !== "turn") return false
  const messages = unpinned.map((i) => buffer[i])
  const flags = orphans(messages)
  if (flags.some((f) => f)) return true
  const rest = messages.filter((_, k) => !flags[k])
  const us = units(rest)
  const holdsTurn = us.some((u) => isUserTurn(rest[u.start]))
  return holdsTurn && !(us.length > 0 && isUserTurn(rest[us[0].start]))
}

/** SPEC 10.5 options. */
export interface ClearOptions {
  readonly keep: number
  /** Default `"[tool result cleared]"`. */
  readonly placeholder?: string | undefined
  /**
   * How far clearing (always toward the target) must get for the prune to
   * call no summarizer: within the target (default) or within the budget.
   */
  readonly until?: "target" | "budget" | undefined
}

/** The SPEC 10.5 default placeholder. */
export const PLACEHOLDER = "[tool result cleared]"

/** Options of the SPEC 10 RollingMemory / WindowMemory model. */
export interface PolicyStrategyOptions extends PolicyOptions {
  /** `"tokens"` (RollingMemory) or `"messages"` (WindowMemory). */
  readonly measure: "tokens" | "messages"
  /** Default: {@link wordCount}. */
  readonly count?: ((text: string) => number) | undefined
  /** Absent: evicted turns are dropped. */
  readonly summarize?: Summarize | undefined
  /** SPEC 10.5 (RollingMemory). */
  readonly clear?: ClearOptions | undefined
  /** Builds a message equal to `m` but for its content (the test's message type). */
  readonly withContent?: (<M extends ModelMessage>(m: M, content: string) => M) | undefined
}

/**
 * SPEC 10.5: clears tool results oldest first, sparing the `keep` newest,
 * skipping those whose count would not drop, until the unpinned messages
 * weigh at most the target (whatever `until` says). Returns the new buffer.
 */
const clearResults = <M extends ModelMessage>(
  buffer: ReadonlyArray<M>,
  options: PolicyStrategyOptions & { readonly clear: ClearOptions },
  count: (text: string) => number
): Array<M> => {
  const target = options.target ?? options.budget
  const placeholder = options.clear.placeholder ?? PLACEHOLDER
  const out = [...buffer]
  const pinned = (m: ModelMessage) => options.pinSystem === true && isSystemLike(m)
  const weigh = () => out.reduce((s, m) => s + (pinned(m) ? 0 : count(tokenText(m))), 0)
  const results = out.map((m, i) => (hasToolCallId(m) ? i : -1)).filter((i) => i >= 0)
  const candidates = results.slice(0, Math.max(0, results.length - options.clear.keep))
  for (const i of candidates) {
    if (weigh() <= target) break
    const cleared = options.withContent!(out[i], placeholder)
    if (count(tokenText(cleared)) < count(tokenText(out[i]))) out[i] = cleared
  }
  return out
}

/** One SPEC 10 prune of `appended` (after its adds): clearing, then the plan, then one summarizer call. */
const prune10 = <M extends ModelMessage>(appended: ModelState<M>, options: PolicyStrategyOptions): Step<M> => {
  const count = options.count ?? wordCount
  const weigh = (buffer: ReadonlyArray<M>) =>
    buffer.map((m) => (options.measure === "messages" ? 1 : count(tokenText(m))))
  const before = weigh(appended.buffer)
  if (!pruneStarts(appended.buffer, before, options)) return { state: appended, calls: noCalls, failed: false }
  const over = pruneStarts(appended.buffer, before, { ...options, boundary: "aligned" })
  const buffer = over && options.clear !== undefined
    ? clearResults(appended.buffer, { ...options, clear: options.clear }, count)
    : [...appended.buffer]
  // cleared to within the budget (`until: "budget"`): no step 1, only turn-mode repairs
  const within = options.clear !== undefined && (options.clear.until ?? "budget") === "budget" &&
    !pruneStarts(buffer, weigh(buffer), { ...options, boundary: "aligned" })
  const evicted = prunePlan(buffer, weigh(buffer), options, over && !within)
  const cleared: ModelState<M> = { summary: appended.summary, buffer }
  if (evicted.length === 0) return { state: cleared, calls: noCalls, failed: false }
  const gone = new Set(evicted)
  const kept = buffer.filter((_, i) => !gone.has(i))
  const messages = evicted.map((i) => buffer[i])
  if (options.summarize === undefined) {
    return { state: { summary: appended.summary, buffer: kept }, calls: noCalls, failed: false }
  }
  const result = options.summarize(appended.summary, messages)
  const call: Call<M> = { summary: appended.summary, messages, result }
  // a failure changes nothing beyond the append (clearings included)
  return result === undefined
    ? { state: appended, calls: [call], failed: true }
    : { state: { summary: result, buffer: kept }, calls: [call], failed: false }
}

/** A SPEC 10 strategy: `add` one message, `addMany` several (10.7: one append, one prune). */
export interface PolicyStrategy extends Strategy {
  readonly addMany: <M extends ModelMessage>(state: ModelState<M>, messages: ReadonlyArray<M>) => Step<M>
}

/** SPEC 10 RollingMemory (`measure: "tokens"`) or WindowMemory (`measure: "messages"`, no summarizer). */
export const policy = (options: PolicyStrategyOptions): PolicyStrategy => ({
  add: (state, message) => prune10({ summary: state.summary, buffer: [...state.buffer, message] }, options),
  addMany: (state, messages) => prune10({ summary: state.summary, buffer: [...state.buffer, ...messages] }, options)
})

/**
 * SPEC 10.3 and 10.6 reading back: the pinned messages before every unpinned
 * one, then the summary (role `summaryRole`, when not empty), then the rest.
 */
export const messages10 = (
  state: ModelState,
  options: { readonly pinSystem?: boolean | undefined; readonly summaryRole?: "system" | "user" | undefined }
): Array<ModelMessage> => {
  let lead = 0
  while (
    lead < state.buffer.length && options.pinSystem === true && isSystemLike(state.buffer[lead])
  ) lead++
  const summary: Array<ModelMessage> = state.summary === ""
    ? []
    : [{ role: options.summaryRole ?? "system", content: state.summary, toolCalls: [] }]
  return [...state.buffer.slice(0, lead), ...summary, ...state.buffer.slice(lead)]
}

/**
 * SPEC 10.2's guarantee on a buffer: a buffer holding a turn start (pinned
 * messages aside) opens with one, and every tool result has its call before
 * it. Returns what is violated (empty when it holds).
 */
export const turnViolations = (buffer: ReadonlyArray<ModelMessage>, pinSystem: boolean): Array<string> => {
  const unpinned = buffer.filter((m) => !(pinSystem && isSystemLike(m)))
  const problems: Array<string> = []
  const flags = orphans(unpinned)
  flags.forEach((f, i) => {
    if (f) problems.push(`orphaned tool result at ${i}`)
  })
  const us = units(unpinned)
  if (us.some((u) => isUserTurn(unpinned[u.start])) && !(us.length > 0 && isUserTurn(unpinned[0]))) {
    problems.push(`opens on ${unpinned[0].role}, not on a turn start`)
  }
  return problems
}
