/**
 * What a replay measures about the contexts a model would have been sent,
 * and the per-conversation {@link Timeline} of a replay (the data an HTML
 * report renders). Pure: the replay (`Replay.ts`) reads the memory, counts
 * tokens, and hands the numbers to a {@link Recorder}.
 *
 * - A *request point* is a moment where the transcript's next message is an
 *   assistant turn (where the model was called): the context sent there is
 *   the memory's `messages` right before that message is added. The first
 *   message of a transcript is never a request point (nothing to send).
 * - A request point is *valid* when a strict chat API accepts its context
 *   (no `Validity` violation). It is *eligible* (for the turn-mode goal of
 *   SPEC 10.2) when the transcript up to it is itself valid and the buffer
 *   holds a user turn.
 * - *Prefix reuse*: the tokens of the longest common prefix of whole, equal
 *   messages between a request's context and the previous request's (the
 *   part a provider's prompt cache can serve), over the request's tokens. A
 *   reused prefix counts as *cached* only from {@link CACHE_MINIMUM_TOKENS}.
 * - *Cost*, in input-token units: uncached input x1 + cached input x0.1 +
 *   summarizer input x1 + summarizer output x4 ({@link COST_WEIGHTS}).
 *   Summarizer input is the current summary plus the evicted messages, its
 *   output the new summary, each counted with the replay's token counter.
 *   The figure a user pays, and the headline of a comparison.
 * - *By the providers' rules* (docs/contract.md section 13.1): OpenAI caches
 *   the reused prefix from 1,024 tokens in steps of 128
 *   ({@link openAICached}); Anthropic serves a prefix that ends at one of the
 *   previous request's cache breakpoints (after the leading system
 *   messages, after the summary message, after its last message), from
 *   1,024 tokens ({@link anthropicCached}). Each gives its own cached tokens
 *   and cost (same weights).
 * - *The no-fold ceiling*: the prefix reuse of the transcript itself (every
 *   message kept, nothing folded or cleared), the most any memory can reach.
 * - *First-sent tokens*: the tokens of the messages a request point sends
 *   that no earlier request point of the conversation sent (no equal
 *   message): content no prompt cache can hold, whatever the memory does.
 *   *Reachable reuse* is `1 - firstSentTokens / requestTokens`, the prefix
 *   reuse the same contexts would reach if every message sent before were
 *   served from the cache; *re-sent tokens* (`requestTokens - reusedTokens -
 *   firstSentTokens`) are the uncached tokens that an earlier request had
 *   already sent: what cache breaks (folds, clearings) cost.
 * - *Cache breaks*: request points whose context does not extend the
 *   previous one (the reused prefix is shorter than the previous context).
 *   *Folds that broke the cache*: the folds made between two request points
 *   when the later one is a cache break. *Cache writes per fold*: the tokens
 *   past the reused prefix at the first request point after each fold (what
 *   the provider writes to its cache again), over those folds.
 * - *Retention* (docs/contract.md section 14): of the distinct artifacts
 *   (file paths, URLs, e-mail addresses, identifiers: `Retention`) named by
 *   the messages added before a request point, the share its context still
 *   names. A conversation's figure is its last request point's.
 *
 * Every token figure is in the units of the replay's token counter.
 *
 * @since 0.2.0
 */
import * as Equal from "effect/Equal"
import * as MutableHashSet from "effect/MutableHashSet"
import * as Retention from "../core/artifacts.js"
import type * as Message from "../schema/Message.js"
import * as Validity from "../Validity.js"

/**
 * The smallest reused prefix a provider's prompt cache serves (OpenAI's and
 * Anthropic's minimum): 1,024 tokens.
 *
 * @since 0.2.0
 * @category constants
 */
export const CACHE_MINIMUM_TOKENS = 1024

/**
 * The weights of the cost column, per token: uncached input 1, cached input
 * 0.1, summarizer input 1, summarizer output 4.
 *
 * @since 0.2.0
 * @category constants
 */
export const COST_WEIGHTS = {
  uncachedInput: 1,
  cachedInput: 0.1,
  summarizerInput: 1,
  summarizerOutput: 4
} as const

/**
 * OpenAI's cache granularity: a cached prefix grows in steps of 128 tokens
 * past the first 1,024.
 *
 * @since 0.4.0
 * @category constants
 */
export const OPENAI_CACHE_STEP = 128

/**
 * The tokens OpenAI's prompt cache serves of a reused prefix of `reused`
 * tokens: 0 under 1,024, else 1,024 plus the whole 128-token steps past it.
 *
 * @since 0.4.0
 * @category combinators
 */
export const openAICached = (reused: number): number =>
  reused < CACHE_MINIMUM_TOKENS
    ? 0
    : CACHE_MINIMUM_TOKENS + Math.floor((reused - CACHE_MINIMUM_TOKENS) / OPENAI_CACHE_STEP) * OPENAI_CACHE_STEP

/**
 * The tokens Anthropic's prompt cache serves: the longest prefix ending at
 * one of the previous request's breakpoints (`breakpoints`: each a message
 * count and the tokens of that prefix) that lies within the `shared`
 * leading messages, when it holds at least 1,024 tokens; else 0.
 *
 * @since 0.4.0
 * @category combinators
 */
export const anthropicCached = (
  breakpoints: ReadonlyArray<{ readonly messages: number; readonly tokens: number }>,
  shared: number
): number => {
  let best = 0
  for (const b of breakpoints) if (b.messages <= shared && b.tokens > best) best = b.tokens
  return best < CACHE_MINIMUM_TOKENS ? 0 : best
}

/**
 * One added message: the memory right after its add (and its prune).
 *
 * @since 0.2.0
 * @category models
 */
export interface TurnPoint {
  /** The message's position in the transcript (0-based). */
  readonly index: number
  readonly role: string
  /** Messages in the buffer (pinned ones included). */
  readonly bufferMessages: number
  /** Tokens of the buffer, as the memory counts them. */
  readonly bufferTokens: number
  /** Tokens of the summary (0 when empty). */
  readonly summaryTokens: number
  /** Tokens of everything read back: pinned messages, summary, buffer. */
  readonly contextTokens: number
}

/**
 * One fold: a summarizer call, or an eviction without a summarizer.
 *
 * @since 0.2.0
 * @category models
 */
export interface FoldPoint {
  /** The transcript position of the message whose add made the fold. */
  readonly index: number
  /** Messages evicted (given to the summarizer, or dropped). */
  readonly evictedMessages: number
  /** Whether a summarizer was called (false: the evicted messages were dropped). */
  readonly summarized: boolean
  /** Tokens given to the summarizer: the current summary plus the evicted messages (0 when none was called). */
  readonly inputTokens: number
  /** Tokens of the summary it returned (0 when none was called). */
  readonly outputTokens: number
}

/**
 * One request point: the context a model would have been sent before the
 * assistant turn at `index`.
 *
 * @since 0.2.0
 * @category models
 */
export interface RequestPoint {
  /** The transcript position of the assistant turn the request produced. */
  readonly index: number
  /** Messages in the context (pinned, summary, buffer). */
  readonly contextMessages: number
  /** Tokens of the context. */
  readonly contextTokens: number
  /** Tokens of the longest common prefix of whole, equal messages with the previous request's context (0 for the first). */
  readonly reusedTokens: number
  /** `reusedTokens` when at least {@link CACHE_MINIMUM_TOKENS}, else 0. */
  readonly cachedTokens: number
  /** What a strict chat API rejects in the context (empty: valid). */
  readonly violations: ReadonlyArray<Validity.Violation>
  /** Whether the transcript up to here is valid itself and the buffer holds a user turn (see the module docs). */
  readonly eligible: boolean
  /**
   * Whether the context exceeds its bound: pinned tokens + the summary budget
   * + the larger of `maxTokens` and the newest unit's tokens. Always false
   * when the replay has no token budget (window, buffer, summary strategies).
   */
  readonly overBound: boolean
  /** Distinct artifacts named by the messages added so far (see `Retention`). */
  readonly artifactsNamed: number
  /** Those of them the context still names. */
  readonly artifactsKept: number
}

/**
 * A conversation's replay over time: every add, every fold, every request
 * point, in transcript order. Join them by `index`.
 *
 * @since 0.2.0
 * @category models
 */
export interface Timeline {
  readonly id: string
  readonly turns: ReadonlyArray<TurnPoint>
  readonly folds: ReadonlyArray<FoldPoint>
  readonly requests: ReadonlyArray<RequestPoint>
}

/**
 * The request-point and summarizer figures of one conversation (or, summed,
 * of many: see {@link sum}). Ratios are derived by {@link derive}.
 *
 * @since 0.2.0
 * @category models
 */
export interface Sums {
  readonly requestPoints: number
  readonly validRequestPoints: number
  readonly eligibleRequestPoints: number
  readonly validEligibleRequestPoints: number
  readonly overBoundRequestPoints: number
  /** Sum of context tokens over request points. */
  readonly requestTokens: number
  /** The largest context at a request point. */
  readonly maxRequestTokens: number
  readonly reusedTokens: number
  readonly cachedTokens: number
  readonly summarizerInputTokens: number
  readonly summarizerOutputTokens: number
  /** Cached tokens by OpenAI's rule ({@link openAICached}). */
  readonly openAICachedTokens: number
  /** Cached tokens by Anthropic's rule ({@link anthropicCached}). */
  readonly anthropicCachedTokens: number
  /** Sum over request points of the transcript's own context (every message before it): the no-fold ceiling's tokens. */
  readonly ceilingRequestTokens: number
  /** The ceiling's reused tokens: the transcript's context at the previous request point. */
  readonly ceilingReusedTokens: number
  /** Request points whose context does not extend the previous one. */
  readonly cacheBreaks: number
  /** Folds (summarizer calls) followed by a request point. */
  readonly foldsFollowed: number
  /** Of those, the folds whose next request point is a cache break. */
  readonly foldsBreakingCache: number
  /** Tokens past the reused prefix at the first request point after each fold, summed over those folds. */
  readonly foldCacheWriteTokens: number
  /**
   * Tokens of the messages request points send that no earlier request
   * point of the conversation sent (no equal message), the first request
   * point's whole context included.
   */
  readonly firstSentTokens: number
}

/**
 * The derived figures: means, rates and the cost.
 *
 * @since 0.2.0
 * @category models
 */
export interface Derived {
  /** Summarizer calls per 1,000 added messages. */
  readonly summarizerCallsPer1000Turns: number
  /** `requestTokens / requestPoints` (0 without request points). */
  readonly meanRequestTokens: number
  /** `reusedTokens / requestTokens`, between 0 and 1 (0 without request points). */
  readonly prefixReuse: number
  /** Input-token units: uncached x1 + cached x0.1 + summarizer input x1 + output x4. */
  readonly cost: number
  /** The same cost with OpenAI's cached tokens. */
  readonly costOpenAI: number
  /** The same cost with Anthropic's cached tokens. */
  readonly costAnthropic: number
  /** The no-fold ceiling's prefix reuse, between 0 and 1 (0 without request points). */
  readonly ceilingReuse: number
  /** `foldCacheWriteTokens / foldsFollowed` (0 without such folds). */
  readonly cacheWriteTokensPerFold: number
  /**
   * `1 - firstSentTokens / requestTokens`, between 0 and 1 (0 without
   * request points): the prefix reuse of the same contexts if every message
   * an earlier request sent were served from the cache.
   */
  readonly reachableReuse: number
  /** `requestTokens - reusedTokens - firstSentTokens`: uncached tokens an earlier request had already sent. */
  readonly resentTokens: number
}

const emptySums: Sums = {
  requestPoints: 0,
  validRequestPoints: 0,
  eligibleRequestPoints: 0,
  validEligibleRequestPoints: 0,
  overBoundRequestPoints: 0,
  requestTokens: 0,
  maxRequestTokens: 0,
  reusedTokens: 0,
  cachedTokens: 0,
  summarizerInputTokens: 0,
  summarizerOutputTokens: 0,
  openAICachedTokens: 0,
  anthropicCachedTokens: 0,
  ceilingRequestTokens: 0,
  ceilingReusedTokens: 0,
  cacheBreaks: 0,
  foldsFollowed: 0,
  foldsBreakingCache: 0,
  foldCacheWriteTokens: 0,
  firstSentTokens: 0
}

/**
 * The sums of several conversations' figures (`maxRequestTokens`: the
 * maximum).
 *
 * @since 0.2.0
 * @category combinators
 */
export const sum = (all: ReadonlyArray<Sums>): Sums => {
  const out = { ...emptySums }
  for (const s of all) accumulate(out, s, SUMMED, ["maxRequestTokens"])
  return out
}

const SUMMED = (Object.keys(emptySums) as Array<keyof Sums>).filter((key) => key !== "maxRequestTokens")

/**
 * Adds the fields `summed` of `from` into `into`, and keeps in `into` the
 * larger of each of the fields `largest`: one conversation's figures into
 * the totals.
 *
 * @since 0.2.0
 * @category combinators
 */
export const accumulate = <K extends string>(
  into: Record<K, number>,
  from: { readonly [key in K]: number },
  summed: ReadonlyArray<K>,
  largest: ReadonlyArray<K>
): void => {
  for (const key of summed) into[key] += from[key]
  for (const key of largest) into[key] = Math.max(into[key], from[key])
}

/**
 * The derived figures of some sums, given the messages added and the
 * summarizer calls made.
 *
 * @since 0.2.0
 * @category combinators
 */
export const derive = (sums: Sums, messages: number, summarizerCalls: number): Derived => ({
  summarizerCallsPer1000Turns: messages === 0 ? 0 : summarizerCalls * 1000 / messages,
  meanRequestTokens: sums.requestPoints === 0 ? 0 : sums.requestTokens / sums.requestPoints,
  prefixReuse: sums.requestTokens === 0 ? 0 : sums.reusedTokens / sums.requestTokens,
  cost: costOf(sums, sums.cachedTokens),
  costOpenAI: costOf(sums, sums.openAICachedTokens),
  costAnthropic: costOf(sums, sums.anthropicCachedTokens),
  ceilingReuse: sums.ceilingRequestTokens === 0 ? 0 : sums.ceilingReusedTokens / sums.ceilingRequestTokens,
  cacheWriteTokensPerFold: sums.foldsFollowed === 0 ? 0 : sums.foldCacheWriteTokens / sums.foldsFollowed,
  reachableReuse: sums.requestTokens === 0 ? 0 : 1 - sums.firstSentTokens / sums.requestTokens,
  resentTokens: sums.requestTokens - sums.reusedTokens - sums.firstSentTokens
})

/** The cost of some sums with `cached` of their request tokens cached. */
const costOf = (sums: Sums, cached: number): number =>
  (sums.requestTokens - cached) * COST_WEIGHTS.uncachedInput +
  cached * COST_WEIGHTS.cachedInput +
  sums.summarizerInputTokens * COST_WEIGHTS.summarizerInput +
  sums.summarizerOutputTokens * COST_WEIGHTS.summarizerOutput

/**
 * How many leading messages of `current` equal those of `previous` (whole
 * messages, compared with `Equal.equals`).
 *
 * @since 0.2.0
 * @category combinators
 */
export const commonPrefix = (
  previous: ReadonlyArray<Message.Message>,
  current: ReadonlyArray<Message.Message>
): number => {
  const n = Math.min(previous.length, current.length)
  let i = 0
  while (i < n && (previous[i] === current[i] || Equal.equals(previous[i], current[i]))) i++
  return i
}

/**
 * The position where the newest unit of `messages` starts (SPEC section 4:
 * a message with tool calls spans to the last later message answering one
 * of them, overlapping spans merge); 0 for no messages.
 *
 * @since 0.2.0
 * @category combinators
 */
export const newestUnitStart = (messages: ReadonlyArray<Message.Message>): number => {
  const lastResult = new Map<string, number>()
  for (let i = 0; i < messages.length; i++) {
    const id = messages[i].toolCallId
    if (id !== undefined) lastResult.set(id, i)
  }
  let start = 0
  let reach = -1
  for (let i = 0; i < messages.length; i++) {
    if (i > reach) start = i
    for (const call of messages[i].toolCalls) {
      const last = lastResult.get(call.id)
      if (last !== undefined && last > i) reach = Math.max(reach, last)
    }
    reach = Math.max(reach, i)
  }
  return start
}

/**
 * What bounds a context at a request point: the memory's token budget and
 * the summary budget (both undefined when the replay has none), and whether
 * system and developer messages are pinned (outside the budget).
 *
 * @since 0.2.0
 * @category models
 */
export interface Limits {
  readonly maxTokens: number | undefined
  readonly maxSummaryTokens: number | undefined
  readonly pinSystem: boolean
  /** The target whose rules check the context (`Validity`, `--provider`); undefined: the default rules. */
  readonly provider?: Validity.Provider | undefined
}

/**
 * Whether a message is pinned under `pinSystem` (SPEC 10.3): role `system`
 * or `developer` and no tool fields.
 *
 * @since 0.2.0
 * @category guards
 */
export const isPinned = (message: Message.Message): boolean =>
  Validity.isSystem(message) && message.toolCalls.length === 0 && message.toolCallId === undefined

/**
 * Where a request's cache breakpoints stand (Anthropic's rule, at most 4 per
 * request; three used): after the leading system messages (those before the
 * summary, or the leading `system`/`developer` messages when there is no
 * summary), after the summary message (with summary segments, docs/contract.md
 * section 10.9, after the last of the `summaryMessages` segments), after the
 * last message; each with the tokens of the prefix it closes.
 *
 * @since 0.4.0
 * @category combinators
 */
export const breakpointsOf = (
  context: ReadonlyArray<Message.Message>,
  tokens: ReadonlyArray<number>,
  summaryAt: number,
  summaryMessages = 1
): Array<{ readonly messages: number; readonly tokens: number }> => {
  let leading = 0
  if (summaryAt >= 0) leading = summaryAt
  else while (leading < context.length && isPinned(context[leading])) leading++
  const at = [leading, summaryAt >= 0 ? summaryAt + summaryMessages : 0, context.length]
  const out: Array<{ readonly messages: number; readonly tokens: number }> = []
  let sum = 0
  let i = 0
  for (const end of [...new Set(at)].filter((n) => n > 0).sort((x, y) => x - y)) {
    for (; i < end; i++) sum += tokens[i]
    out.push({ messages: end, tokens: sum })
  }
  return out
}

/**
 * What the replay hands a {@link Recorder} at a request point.
 *
 * @since 0.2.0
 * @category models
 */
export interface RequestInput {
  readonly index: number
  /** The context (the memory's `messages`). */
  readonly context: ReadonlyArray<Message.Message>
  /** The tokens of each context message. */
  readonly tokens: ReadonlyArray<number>
  /** The position of the summary message in the context; -1 when there is none. */
  readonly summaryAt: number
  /**
   * How many messages from `summaryAt` hold the summary: its segments with
   * summary segments (docs/contract.md section 10.9); default 1.
   */
  readonly summaryMessages?: number | undefined
  /** Whether the transcript before `index` is valid itself (no violation before `index`). */
  readonly transcriptValid: boolean
  /** Tokens of every message added before `index` (the no-fold ceiling's context); 0 when not measured. */
  readonly ceilingTokens?: number | undefined
}

/**
 * Collects one conversation's measurements as the replay goes; `done` gives
 * its sums and timeline.
 *
 * @since 0.2.0
 * @category models
 */
export interface Recorder {
  /** Records a message about to be added: the artifacts it names are named in the conversation from now on. */
  readonly observe: (message: Message.Message) => void
  readonly turn: (point: TurnPoint) => void
  readonly fold: (point: FoldPoint) => void
  readonly request: (input: RequestInput) => RequestPoint
  readonly done: () => {
    readonly sums: Sums
    readonly timeline: Timeline
    /** The retention of the last request point (nothing named when there was none). */
    readonly artifacts: Retention.Figure
  }
}

/**
 * A new {@link Recorder} for conversation `id`, checking contexts against
 * `limits`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeRecorder = (id: string, limits: Limits): Recorder => {
  const turns: Array<TurnPoint> = []
  const folds: Array<FoldPoint> = []
  const requests: Array<RequestPoint> = []
  const sums = { ...emptySums }
  let previous: ReadonlyArray<Message.Message> = []
  let previousTokens = 0
  let previousCeiling = 0
  let breakpoints: ReadonlyArray<{ readonly messages: number; readonly tokens: number }> = []
  // folds since the last request point
  let foldsSince = 0
  // every message a request point of the conversation has sent
  const sent = MutableHashSet.empty<Message.Message>()
  const tracker = Retention.tracker()
  let artifacts: Retention.Figure = { named: 0, kept: 0, byKind: {} }
  return {
    observe: tracker.observe,
    turn: (point) => {
      turns.push(point)
    },
    fold: (point) => {
      folds.push(point)
      if (point.summarized) foldsSince++
      sums.summarizerInputTokens += point.inputTokens
      sums.summarizerOutputTokens += point.outputTokens
    },
    request: ({ ceilingTokens, context, index, summaryAt, summaryMessages = 1, tokens, transcriptValid }) => {
      const summaryEnd = summaryAt < 0 ? -1 : summaryAt + summaryMessages
      let contextTokens = 0
      for (const n of tokens) contextTokens += n
      const shared = commonPrefix(previous, context)
      let reusedTokens = 0
      for (let i = 0; i < shared; i++) reusedTokens += tokens[i]
      // the reused prefix was sent by the previous request: only the rest can be new
      for (let i = shared; i < context.length; i++) {
        if (MutableHashSet.has(sent, context[i])) continue
        MutableHashSet.add(sent, context[i])
        sums.firstSentTokens += tokens[i]
      }
      const first = requests.length === 0
      const broke = !first && reusedTokens < previousTokens
      if (broke) sums.cacheBreaks++
      if (foldsSince > 0 && !first) {
        sums.foldsFollowed += foldsSince
        if (broke) sums.foldsBreakingCache += foldsSince
        sums.foldCacheWriteTokens += (contextTokens - reusedTokens) * foldsSince
      }
      foldsSince = 0
      sums.openAICachedTokens += openAICached(reusedTokens)
      sums.anthropicCachedTokens += anthropicCached(breakpoints, shared)
      breakpoints = breakpointsOf(context, tokens, summaryAt, summaryMessages)
      previous = context
      previousTokens = contextTokens
      if (ceilingTokens !== undefined && ceilingTokens > 0) {
        sums.ceilingRequestTokens += ceilingTokens
        if (!first) sums.ceilingReusedTokens += previousCeiling
        previousCeiling = ceilingTokens
      }
      const cachedTokens = reusedTokens >= CACHE_MINIMUM_TOKENS ? reusedTokens : 0
      const violations = Validity.violations(context, { provider: limits.provider })
      // The buffer: the context without the summary; pinned messages are outside the budget.
      let pinnedTokens = 0
      const unpinned: Array<Message.Message> = []
      const unpinnedTokens: Array<number> = []
      let holdsUserTurn = false
      for (let i = 0; i < context.length; i++) {
        if (i >= summaryAt && i < summaryEnd) continue
        const message = context[i]
        if (limits.pinSystem && isPinned(message)) {
          pinnedTokens += tokens[i]
        } else {
          unpinned.push(message)
          unpinnedTokens.push(tokens[i])
          if (Validity.isUserTurn(message)) holdsUserTurn = true
        }
      }
      let overBound = false
      if (limits.maxTokens !== undefined) {
        let newest = 0
        for (let i = newestUnitStart(unpinned); i < unpinned.length; i++) newest += unpinnedTokens[i]
        let summaryTokens = 0
        for (let i = Math.max(summaryAt, 0); i < summaryEnd; i++) summaryTokens += tokens[i]
        const bound = pinnedTokens + (limits.maxSummaryTokens ?? summaryTokens) +
          Math.max(limits.maxTokens, newest)
        overBound = contextTokens > bound
      }
      artifacts = tracker.measure(context)
      const point: RequestPoint = {
        index,
        contextMessages: context.length,
        contextTokens,
        reusedTokens,
        cachedTokens,
        violations,
        eligible: transcriptValid && holdsUserTurn,
        overBound,
        artifactsNamed: artifacts.named,
        artifactsKept: artifacts.kept
      }
      requests.push(point)
      sums.requestPoints++
      if (violations.length === 0) sums.validRequestPoints++
      if (point.eligible) {
        sums.eligibleRequestPoints++
        if (violations.length === 0) sums.validEligibleRequestPoints++
      }
      if (overBound) sums.overBoundRequestPoints++
      sums.requestTokens += contextTokens
      sums.maxRequestTokens = Math.max(sums.maxRequestTokens, contextTokens)
      sums.reusedTokens += reusedTokens
      sums.cachedTokens += cachedTokens
      return point
    },
    done: () => ({ sums: { ...sums }, timeline: { id, turns, folds, requests }, artifacts })
  }
}
