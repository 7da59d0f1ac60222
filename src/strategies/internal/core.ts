/**
 * What the four strategies share: the mutable core (summary, generation,
 * eviction index) and the read side built on it.
 *
 * The core is mutated only inside single synchronous callbacks (one fiber
 * step), so every change is atomic; the prune lock orders the folds.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as MetricLabel from "effect/MetricLabel"
import * as Retention from "../../core/artifacts.js"
import * as Lead from "../../core/context.js"
import { type Chunk, type Config, type Entry, EvictionIndex, type Plan } from "../../core/eviction.js"
import * as Fold from "../../core/fold.js"
import * as Ledger from "../../core/ledger.js"
import * as LedgerRecorder from "../../core/ledgerRecorder.js"
import * as Loops from "../../core/loops.js"
import * as MessageCore from "../../core/message.js"
import * as Rules from "../../core/options.js"
import { decodedStateProblem } from "../../core/state.js"
import * as UsageRatio from "../../core/usage.js"
import {
  type AddError,
  type ArchiveError,
  ConfigError,
  StateDecodeError,
  SummarizerError,
  SummaryBudgetError,
  type TokenCountError,
  UsageError
} from "../../Errors.js"
import * as MemoryState from "../../schema/MemoryState.js"
import * as Message from "../../schema/Message.js"
import * as Archive from "../../services/Archive.js"
import { countNow, countSyncOf } from "../../services/internal/counting.js"
import type { SummarizeSync } from "../../services/internal/summarizing.js"
import * as Summarizer from "../../services/Summarizer.js"
import * as TokenCounter from "../../services/TokenCounter.js"
import * as Telemetry from "../../Telemetry.js"
import type { Memory, Stepper, Usage } from "../Memory.js"
import { driveChunks, driveCounting, recountOf } from "./drive.js"
import { observeDrop, observeFold, observeFoldNow } from "./observe.js"
import { withContent } from "./policy.js"
import { foldSegments, noSegments, restoredTexts, type Segments, segmentsOf, totalOf } from "./segments.js"

/**
 * The services a memory reads once, when it is built. `summarizer`
 * `undefined`: evicted turns are dropped (`Summarizer.drop`, or a facade
 * class without a summarize function).
 *
 * @internal
 */
export interface Services {
  readonly counter: TokenCounter.Service
  readonly summarizer: Summarizer.Service | undefined
}

/**
 * Reads the `TokenCounter` (a reference with a default) and the
 * `Summarizer` (required: `Summarizer.drop` stands for dropping) from the
 * context, then builds.
 *
 * @internal
 */
export const withServices = <A, E>(
  build: (services: Services) => Effect.Effect<A, E>
): Effect.Effect<A, E, Summarizer.Summarizer> =>
  Effect.contextWithEffect((context: Context.Context<Summarizer.Summarizer>) => {
    const summarizer = Context.get(context, Summarizer.Summarizer)
    return build({
      counter: Context.get(context, TokenCounter.TokenCounter),
      summarizer: Summarizer.isDrop(summarizer) ? undefined : summarizer
    })
  })

/**
 * Reads the `TokenCounter` and a `Summarizer` that summarizes from the
 * context, then builds (the summary strategy); `Summarizer.drop` is a
 * `ConfigError` (it would drop every turn).
 *
 * @internal
 */
export const withSummarizer = <A, E>(
  build: (services: Services & { readonly summarizer: Summarizer.Service }) => Effect.Effect<A, E>
): Effect.Effect<A, E | ConfigError, Summarizer.Summarizer> =>
  Effect.contextWithEffect((context: Context.Context<Summarizer.Summarizer>): Effect.Effect<A, E | ConfigError> => {
    const summarizer = Context.get(context, Summarizer.Summarizer)
    return Summarizer.isDrop(summarizer)
      ? Effect.fail(new ConfigError(Rules.summaryNeedsSummarizer))
      : build({ counter: Context.get(context, TokenCounter.TokenCounter), summarizer })
  })

/** The builders' services of public `Memory.Services`: `Summarizer.drop` stands for dropping (`undefined`). @internal */
export const servicesOf = (services: {
  readonly counter: TokenCounter.Service
  readonly summarizer: Summarizer.Service
}): Services => ({
  counter: services.counter,
  summarizer: Summarizer.isDrop(services.summarizer) ? undefined : services.summarizer
})

/** Reads the `TokenCounter` from the context, then builds (a strategy that never summarizes). @internal */
export const withCounter = <A, E>(build: (counter: TokenCounter.Service) => Effect.Effect<A, E>): Effect.Effect<A, E> =>
  Effect.flatMap(TokenCounter.TokenCounter, build)

/**
 * `Effect.map`, applied at once when `self` is already an `Exit`, so the
 * result stays an `Exit`. An `Exit` is an `Effect` (`Exit<A, E>` extends
 * `Effect<A, E>`), and every builder's result is one when nothing suspends
 * (a counter built from a plain function): the Promise facade then takes the
 * memory from the `Exit` without running an effect. This is a measured fast
 * path, not a convenience: mapping an `Exit` and reading it back costs about
 * 0.07 µs, `Effect.map` then `Effect.runSyncExit` about 1.35 µs (200k runs,
 * Node 20), a third of a facade constructor's 4.5 µs. Any other effect is
 * mapped with `Effect.map`.
 *
 * @internal
 */
export const mapNow = <A, B, E>(self: Effect.Effect<A, E>, f: (a: A) => B): Effect.Effect<B, E> => {
  if (!Exit.isExit(self)) return Effect.map(self, f)
  const exit = self as Exit.Exit<A, E>
  return Exit.isSuccess(exit) ? Exit.succeed(f(exit.value)) : Exit.failCause(exit.cause)
}

/**
 * `Effect.flatMap`, applied at once when `self` is already an `Exit`, so the
 * result is `f`'s (an `Exit` when `f` returns one): a synchronous fold stays
 * one step, with no fiber to run it.
 *
 * @internal
 */
export const flatMapNow = <A, B, E, E2>(
  self: Effect.Effect<A, E>,
  f: (a: A) => Effect.Effect<B, E2>
): Effect.Effect<B, E | E2> => {
  if (!Exit.isExit(self)) return Effect.flatMap(self, f)
  const exit = self as Exit.Exit<A, E>
  return Exit.isSuccess(exit) ? f(exit.value) : Exit.failCause(exit.cause)
}

/** @internal */
export interface Core {
  summary: string
  /**
   * Bumped by `clear` and by every committed fold: a fold started before is
   * discarded (a `clear` wins; a synchronous summarizer that adds to its own
   * memory cannot commit over the fold its nested add made).
   */
  generation: number
  readonly index: EvictionIndex<Message.Message>
  readonly counter: TokenCounter.Service
  /**
   * The summary's tokens (docs/contract.md section 10.4), `undefined` while
   * the summary is not counted: a fold counts the summary it commits only
   * when {@link countsAtFold}; otherwise the first read counts it
   * ({@link summaryTokensOf}) and the count is kept until the summary
   * changes. A restored summary is counted when restored.
   */
  summaryTokens: number | undefined
  /** Whether each fold counts the summary it commits (`core/fold.ts` `countsSummaryAtFold`). */
  readonly countsAtFold: boolean
  /**
   * Summary segments (`summary: "segments"`, docs/contract.md section 10.9),
   * `undefined` with the single summary. `summary` is then their join and
   * `summaryTokens` the sum of their counts.
   */
  segments: Segments | undefined
  /** The summary budget, if any (the ledger's section included). */
  readonly maxSummaryTokens: number | undefined
  /** Tool results counted over it are cut when added (docs/contract.md section 10.8), if any. */
  readonly maxToolResultTokens: number | undefined
  /** The artifact ledger (docs/contract.md section 14.2), if any. */
  readonly ledger: LedgerOf | undefined
  /** Evicted turns over this many tokens are folded in chunks (docs/contract.md section 5), if any. */
  readonly maxSummarizerInputTokens: number | undefined
  /** What every fold passes the summarizer (docs/contract.md section 10.4), built once. */
  readonly request: Summarizer.Request
  /** How the summary reads back (docs/contract.md section 10.6). */
  readonly summaryRole: SummaryRole
  /** The line read back before the summary (`summaryFraming`, docs/contract.md section 10.10), if any. */
  readonly framing: string | undefined
  /** The framing line's tokens with its blank line, counted once when the memory is built ({@link frame}). */
  framingTokens: number
  /**
   * The correction ratio learnt from the provider's usage figures
   * (docs/contract.md section 16.4), `undefined` until one is recorded;
   * kept in the state (version 3 `usageRatio`), reset by `clear`.
   */
  usageRatio: number | undefined
  /**
   * The memory's own count of the context it last read back (pinned,
   * summary, buffer): what a usage is compared with; without the summary's
   * count when that summary was not counted yet ({@link lastReadSummary}).
   */
  lastReadTokens: number | undefined
  /** The summary the last read context held while uncounted: counted (once) when a usage is recorded against it. */
  lastReadSummary: string | undefined
  /** A context window's reserve (docs/contract.md section 16.1), else 0: the default overhead of a recorded usage. */
  reserveTokens: number
  /** The request of the fold `compact` runs (its `focus`), read by that fold only (docs/contract.md section 16.2). */
  compactRequest: Summarizer.Request | undefined
  /** The strategy whose core this is, set by {@link makeMemory}: the folds' telemetry label (section 11). */
  strategy?: Memory["strategy"]
  /** Runs after each `clear` (background folding: held-back adds are let in, docs/contract.md section 5.1). */
  afterClear: (() => void) | undefined
  /**
   * The fiber running the Effect API's `add`, set while it runs its step: a
   * fold is observed in it (its metric labels, clock and tracer; its span
   * through `Effect.useSpan`, `observe.ts`); unset in the facade's
   * synchronous adds (no fiber).
   */
  fiber: Fiber.RuntimeFiber<unknown, unknown> | undefined
  /** The archive (docs/contract.md section 17), if any. */
  readonly archive: ArchiveOf | undefined
  /**
   * A provider's own compaction item (version 3 `compaction`, docs/contract.md
   * section 15.6), kept verbatim and read back before the summary; reset by `clear`.
   */
  compaction: MemoryState.Compaction | undefined
  /** The tokens of the compaction's readable content, counted once when it is restored. */
  compactionTokens: number
  /** The conversation the state belongs to (version 3 `conversationId`), if any. */
  conversationId: string | undefined
  /**
   * The position the next added message gets (version 3 `nextPosition`),
   * when positions are kept (an archive, or a restored state that has
   * them); `undefined` otherwise.
   */
  nextPosition: number | undefined
  /** The summary a summary-only fold could not bring within its room: not asked again until it changes. */
  unshortened: string | undefined
  /** Originals of tool results cut at the door whose archive write failed: written with the next write. */
  pendingOriginals: Array<Archive.Entry>
}

/**
 * A core's archive (docs/contract.md section 17): the service, and its
 * write, at once (an `Exit`) when the archive has `appendSync`.
 *
 * @internal
 */
export interface ArchiveOf {
  readonly service: Archive.Service
  /** Whether a write completes at once (`appendSync`): folds then stay in the add's step. */
  readonly sync: boolean
  readonly write: (conversationId: string, entries: ReadonlyArray<Archive.Entry>) => Effect.Effect<void, ArchiveError>
}

const archiveOf = (service: Archive.Service): ArchiveOf => {
  const appendSync = service.appendSync
  if (appendSync === undefined) return { service, sync: false, write: service.append }
  return {
    service,
    sync: true,
    write: (conversationId, entries) => {
      let failed: ArchiveError | undefined
      try {
        failed = appendSync(conversationId, entries)
      } catch (cause) {
        failed = Archive.failed("appendSync threw", cause)
      }
      return failed === undefined ? done : Exit.fail(failed)
    }
  }
}

/** The role the summary reads back as: `"system"` (default) or `"user"`. @internal */
export type SummaryRole = "system" | "user"

/** What a core is built with beside its counter. @internal */
export interface CoreOptions {
  readonly index?: Config<Message.Message> | undefined
  readonly maxSummaryTokens?: number | undefined
  readonly summaryRole?: SummaryRole | undefined
  readonly summaryFraming?: boolean | string | undefined
  readonly ledger?: LedgerOptions | undefined
  readonly maxToolResultTokens?: number | undefined
  readonly maxSummarizerInputTokens?: number | undefined
  readonly archive?: Archive.Service | undefined
  readonly conversationId?: string | undefined
  /** `"segments"`: the summary as append-only segments (docs/contract.md section 10.9). */
  readonly summary?: SummaryMode | undefined
  /** A context window (docs/contract.md section 16.1): its budget reads the summary's count at every add. */
  readonly contextWindow?: boolean | undefined
}

/** How the summary is kept: one text rewritten by each fold (default), or append-only segments. @internal */
export type SummaryMode = "single" | "segments"

/** The `ledger` option as decoded (docs/contract.md section 14.2). @internal */
export interface LedgerOptions {
  readonly maxTokens: number
  readonly patterns?: ReadonlyArray<Retention.Pattern> | undefined
}

/** A core's artifact ledger: its budget, and the artifacts of each evicted message (extracted once). @internal */
export type LedgerOf = LedgerRecorder.Recorder<Message.Message>

const ledgerOf = (options: LedgerOptions): LedgerOf => LedgerRecorder.recorder<Message.Message>(options)

/**
 * What is left of an add once its synchronous part has run: {@link done}, a
 * failure, or the effect still to run (a count or a fold that may suspend).
 *
 * @internal
 */
export type Step = Effect.Effect<void, AddError>

/** The step of an add that has nothing left to run. @internal */
export const done: Exit.Exit<void> = Exit.void

/**
 * An add's steps, single and batched: count, append every message, then
 * `afterAppend` (the strategy's prune, once).
 *
 * @internal
 */
export const adding = (
  core: Core,
  afterAppend: () => Step,
  refuse: (messages: ReadonlyArray<Message.Message>, tokens: ReadonlyArray<number>) => Step | undefined = () =>
    undefined
): {
  readonly step: (message: Message.Message) => Step
  readonly stepMany: (messages: ReadonlyArray<Message.Message>) => Step
} => {
  const index = core.index
  if (core.nextPosition === undefined) {
    return {
      step: counting(core.counter, (message, tokens): Step => {
        const refused = refuse([message], [tokens])
        if (refused !== undefined) return refused
        index.append(message, entryOf(message, tokens))
        return afterAppend()
      }, core.maxToolResultTokens),
      stepMany: countingMany(core.counter, (messages, tokens): Step => {
        const refused = refuse(messages, tokens)
        if (refused !== undefined) return refused
        for (let i = 0; i < messages.length; i++) index.append(messages[i], entryOf(messages[i], tokens[i]))
        return afterAppend()
      }, core.maxToolResultTokens)
    }
  }
  // positions kept (docs/contract.md section 17): each message takes the next; a tool result cut at
  // the door has its original archived right after it is appended
  const positioned = (message: Message.Message, tokens: number, original: Message.Message | undefined): void => {
    const position = core.nextPosition!
    core.nextPosition = position + 1
    index.append(message, entryOf(message, tokens, position))
    if (original !== undefined && core.archive !== undefined) {
      core.pendingOriginals.push({ position, message: original })
    }
  }
  const flushThen = (): Step =>
    core.pendingOriginals.length === 0 ? afterAppend() : flatMapNow(flushOriginals(core), afterAppend)
  return {
    step: counting(core.counter, (message, tokens, original): Step => {
      const refused = refuse([message], [tokens])
      if (refused !== undefined) return refused
      positioned(message, tokens, original)
      return flushThen()
    }, core.maxToolResultTokens),
    stepMany: countingMany(core.counter, (messages, tokens, originals): Step => {
      const refused = refuse(messages, tokens)
      if (refused !== undefined) return refused
      for (let i = 0; i < messages.length; i++) positioned(messages[i], tokens[i], originals?.[i])
      return flushThen()
    }, core.maxToolResultTokens)
  }
}

/** Writes the originals of the tool results cut at the door not yet archived (docs/contract.md section 17). */
const flushOriginals = (core: Core): Step => {
  const pending = core.pendingOriginals
  const flushed = pending.length
  return flatMapNow(core.archive!.write(core.conversationId!, pending), () => {
    core.pendingOriginals = core.pendingOriginals.slice(flushed)
    return done
  })
}

/** @internal */
export const entryOf = (message: Message.Message, tokens: number, position?: number): Entry =>
  MessageCore.entryOf(message, tokens, position)

/**
 * An add's counting, built once per memory: counts the message's token text
 * once, then runs `then` with the message and the count. With a counter built
 * from a plain function it counts in the same step (no effect, no
 * allocation); otherwise after the counter's effect. Call the result inside
 * `Effect.suspend` (or a step of one). With `maxToolResultTokens`, a tool
 * result counted over it is cut first ({@link cutting}): `then` gets the cut
 * message and its count.
 *
 * @internal
 */
export const counting = <E>(
  counter: TokenCounter.Service,
  then: (message: Message.Message, tokens: number, original?: Message.Message) => Effect.Effect<void, E>,
  maxToolResultTokens?: number | undefined
): (message: Message.Message) => Effect.Effect<void, E | TokenCountError> => {
  const countSync = countSyncOf(counter)
  const cut = cutting(counter, maxToolResultTokens)
  if (countSync !== undefined) {
    if (cut === undefined) {
      return (message) => {
        const tokens = countSync(message.tokenText)
        return typeof tokens === "number" ? then(message, tokens) : Exit.fail(tokens)
      }
    }
    return (message) => {
      const tokens = countSync(message.tokenText)
      if (typeof tokens !== "number") return Exit.fail(tokens)
      return flatMapNow(
        cut(message, tokens),
        (counted) => then(counted.message, counted.tokens, originalOf(message, counted))
      )
    }
  }
  if (cut === undefined) {
    return (message) => Effect.flatMap(countNow(counter, message.tokenText), (tokens) => then(message, tokens))
  }
  return (message) =>
    Effect.flatMap(
      countNow(counter, message.tokenText),
      (tokens) =>
        flatMapNow(
          cut(message, tokens),
          (counted) => then(counted.message, counted.tokens, originalOf(message, counted))
        )
    )
}

/** The message as given when the stored one is its cut (docs/contract.md section 10.8), else `undefined`. */
const originalOf = (message: Message.Message, counted: Counted): Message.Message | undefined =>
  counted.message === message ? undefined : message

/** A message with its count. @internal */
export interface Counted {
  readonly message: Message.Message
  readonly tokens: number
}

/**
 * Cutting a tool result at the door (docs/contract.md section 10.8,
 * `core/toolResults.ts`): `undefined` without `maxToolResultTokens`, else a
 * function of a message and its count that gives the message to store
 * with its count: the message itself when it is not a tool result or is
 * within the limit (no count made), else the cut message, each attempt
 * counted once (an `Exit` with a counter that counts at once). A cut whose
 * count is not below the original's is not made. Only the cut message's
 * attempts are counted: the buffer is never counted again.
 *
 * @internal
 */
export const cutting = (
  counter: TokenCounter.Service,
  maxToolResultTokens: number | undefined
): ((message: Message.Message, tokens: number) => Effect.Effect<Counted, TokenCountError>) | undefined => {
  if (maxToolResultTokens === undefined) return undefined
  const max = maxToolResultTokens
  const recount = recountOf(counter)
  return (message, tokens) => {
    if (!Loops.needsCut(message, tokens, max)) return Exit.succeed({ message, tokens })
    return mapNow(
      driveCounting(Loops.cutToolResult(message, tokens, max, withContent), recount),
      (cut): Counted => cut === undefined ? { message, tokens } : { message: cut.item, tokens: cut.tokens }
    )
  }
}

/** Counts a text with the core's counter: at once when it can, else through its effect. @internal */
export const countText = (counter: TokenCounter.Service): (text: string) => Effect.Effect<number, TokenCountError> => {
  const countSync = countSyncOf(counter)
  if (countSync === undefined) return (text) => countNow(counter, text)
  return (text) => {
    const tokens = countSync(text)
    return typeof tokens === "number" ? Exit.succeed(tokens) : Exit.fail(tokens)
  }
}

/**
 * {@link counting} for several messages (docs/contract.md section 10.7):
 * counts every message once (cutting tool results over
 * `maxToolResultTokens` as {@link counting} does), then runs `then` with all
 * of them; a failed count fails before anything is appended.
 *
 * @internal
 */
export const countingMany = <E>(
  counter: TokenCounter.Service,
  then: (
    messages: ReadonlyArray<Message.Message>,
    tokens: ReadonlyArray<number>,
    originals?: ReadonlyArray<Message.Message | undefined>
  ) => Effect.Effect<void, E>,
  maxToolResultTokens?: number | undefined
): (messages: ReadonlyArray<Message.Message>) => Effect.Effect<void, E | TokenCountError> => {
  const countSync = countSyncOf(counter)
  const cut = cutting(counter, maxToolResultTokens)
  if (countSync !== undefined && cut === undefined) {
    return (messages) => {
      if (messages.length === 0) return done
      const tokens: Array<number> = []
      for (let i = 0; i < messages.length; i++) {
        const n = countSync(messages[i].tokenText)
        if (typeof n !== "number") return Exit.fail(n)
        tokens.push(n)
      }
      return then(messages, tokens)
    }
  }
  if (cut === undefined) {
    return (messages) =>
      messages.length === 0 ? done : Effect.flatMap(
        Effect.forEach(messages, (message) => countNow(counter, message.tokenText)),
        (tokens) => then(messages, tokens)
      )
  }
  const count = countText(counter)
  const one = (message: Message.Message): Effect.Effect<Counted, TokenCountError> =>
    flatMapNow(count(message.tokenText), (tokens) => cut(message, tokens))
  return (messages) => {
    if (messages.length === 0) return done
    const stored: Array<Message.Message> = []
    const tokens: Array<number> = []
    const originals: Array<Message.Message | undefined> = []
    // one message after the other, at once while every count is an Exit
    const from = (i: number): Effect.Effect<void, E | TokenCountError> => {
      for (; i < messages.length; i++) {
        const counted = one(messages[i])
        if (!Exit.isExit(counted)) {
          const k = i
          return Effect.flatMap(counted, (c) => {
            stored.push(c.message)
            tokens.push(c.tokens)
            originals.push(originalOf(messages[k], c))
            return from(k + 1)
          })
        }
        const exit = counted as Exit.Exit<Counted, TokenCountError>
        if (Exit.isFailure(exit)) return exit
        stored.push(exit.value.message)
        tokens.push(exit.value.tokens)
        originals.push(originalOf(messages[i], exit.value))
      }
      return then(stored, tokens, originals)
    }
    return from(0)
  }
}

/** Builds an empty core. @internal */
export const makeCore = (counter: TokenCounter.Service, options?: CoreOptions): Core => {
  const max = options?.maxSummaryTokens
  const ledger = options?.ledger === undefined ? undefined : ledgerOf(options.ledger)
  return {
    summary: "",
    generation: 0,
    index: new EvictionIndex(options?.index),
    counter,
    summaryTokens: 0,
    countsAtFold: Fold.countsSummaryAtFold({
      maxSummaryTokens: max,
      contextWindow: options?.contextWindow === true,
      segments: options?.summary === "segments"
    }),
    segments: options?.summary === "segments" ? noSegments : undefined,
    maxSummaryTokens: max,
    maxToolResultTokens: options?.maxToolResultTokens,
    ledger,
    maxSummarizerInputTokens: options?.maxSummarizerInputTokens,
    request: { maxSummaryTokens: Fold.requestBudget(max, ledger?.maxTokens), counter },
    summaryRole: options?.summaryRole ?? "system",
    framing: Rules.framingLine(options?.summaryFraming),
    framingTokens: 0,
    usageRatio: undefined,
    compaction: undefined,
    compactionTokens: 0,
    lastReadTokens: undefined,
    lastReadSummary: undefined,
    compactRequest: undefined,
    reserveTokens: 0,
    afterClear: undefined,
    fiber: undefined,
    archive: options?.archive === undefined ? undefined : archiveOf(options.archive),
    conversationId: options?.conversationId,
    nextPosition: options?.archive === undefined ? undefined : 0,
    pendingOriginals: [],
    unshortened: undefined
  }
}

/**
 * What a builder puts into its new core before handing the memory out:
 * nothing ({@link fillEmpty}, which cannot fail), or a restored state
 * ({@link fillState}, which counts, so may fail with `TokenCountError`). A
 * builder's error type is its `Fill`'s with its `ConfigError`s.
 *
 * @internal
 */
export type Fill<E> = (core: Core) => Effect.Effect<Core, E>

/** An empty memory: the core as it is. @internal */
export const fillEmpty: Fill<never> = (core) => {
  // an archive needs a conversation: a new one when none is given (docs/contract.md section 17)
  if (core.archive !== undefined) core.conversationId ??= newConversationId()
  return Exit.succeed(core)
}

/**
 * A restored state: counts the summary and each message once, never prunes.
 * An `Exit` when the counter counts at once (see {@link mapNow}).
 *
 * @internal
 */
export const fillState = (state: MemoryState.MemoryState): Fill<TokenCountError | StateDecodeError> => (core) => {
  // a value typed as a state that is none (a parsed document, a hand-made object): StateDecodeError, never a defect
  const problem = decodedStateProblem(state, isMessage)
  if (problem !== undefined) return Exit.fail(new StateDecodeError({ description: problem }))
  core.summary = state.summary
  core.usageRatio = state.usageRatio
  // docs/contract.md section 17: the option's conversation id wins; an archive without one makes one
  core.conversationId ??= state.conversationId
  if (core.archive !== undefined) core.conversationId ??= newConversationId()
  const positions = state.positions
  if (state.nextPosition !== undefined) core.nextPosition = state.nextPosition
  else if (core.nextPosition !== undefined) core.nextPosition = state.buffer.length
  // originals a failed archive write left: written with the memory's next write (docs/contract.md section 17)
  if (state.unarchived !== undefined) core.pendingOriginals = [...state.unarchived]
  const counter = core.counter
  core.compaction = state.compaction
  const compacted = state.compaction === undefined || state.compaction.content === ""
    ? Exit.succeed(core)
    : mapNow(countText(counter)(state.compaction.content), (tokens) => {
      core.compactionTokens = tokens
      return core
    })
  const summarized = core.segments !== undefined
    ? flatMapNow(compacted, () => fillSegments(core, restoredTexts(state)))
    : core.summary === ""
    ? compacted
    : flatMapNow(compacted, () =>
      mapNow(countText(counter)(core.summary), (tokens) => {
        core.summaryTokens = tokens
        return core
      }))
  if (state.buffer.length === 0) return summarized
  let k = 0
  const restore = counting(counter, (message, tokens): Effect.Effect<void> => {
    // a state without positions restored with an archive: the buffer takes 0, 1, ... (nextPosition its length)
    const position = positions !== undefined ? positions[k] : core.nextPosition === undefined ? undefined : k
    k++
    core.index.append(message, entryOf(message, tokens, position))
    return done
  })
  return Effect.zipRight(
    summarized,
    Effect.as(
      Effect.forEach(state.buffer, (message) => Effect.suspend(() => restore(message)), { discard: true }),
      core
    )
  )
}

const isMessage = (u: unknown): boolean => u instanceof Message.Message

/** A new conversation id (docs/contract.md section 17): a random UUID. @internal */
export const newConversationId = (): string => globalThis.crypto.randomUUID()

/** A restored state's segments (docs/contract.md section 10.9): each counted once. */
const fillSegments = (core: Core, texts: ReadonlyArray<string>): Effect.Effect<Core, TokenCountError> => {
  const count = countText(core.counter)
  const tokens: Array<number> = []
  const from = (i: number): Effect.Effect<Core, TokenCountError> => {
    for (; i < texts.length; i++) {
      const counted = count(texts[i])
      if (!Exit.isExit(counted)) {
        const k = i
        return Effect.flatMap(counted, (n) => {
          tokens.push(n)
          return from(k + 1)
        })
      }
      const exit = counted as Exit.Exit<number, TokenCountError>
      if (Exit.isFailure(exit)) return Exit.failCause(exit.cause)
      tokens.push(exit.value)
    }
    core.segments = segmentsOf(texts, tokens, core.summaryRole)
    core.summary = texts.join(MemoryState.SEGMENT_SEPARATOR)
    core.summaryTokens = totalOf(tokens)
    return Exit.succeed(core)
  }
  return from(0)
}

/**
 * Counts the framing line of a core that has one (docs/contract.md section
 * 10.10) once, after `fill`: a counter that cannot count it is a
 * `ConfigError` on `summaryFraming`. An `Exit` when both count at once.
 *
 * @internal
 */
export const frame = <E>(fill: Fill<E>): Fill<E | ConfigError> => (core) =>
  flatMapNow(fill(core), (filled) => {
    const framing = filled.framing
    if (framing === undefined) return Exit.succeed(filled)
    const counted = countText(filled.counter)(`${framing}${Rules.FRAMING_SEPARATOR}`)
    const set = (tokens: number): Core => {
      filled.framingTokens = tokens
      return filled
    }
    const refused = (error: TokenCountError) =>
      new ConfigError({ option: "summaryFraming", description: `could not be counted: ${error.message}` })
    if (!Exit.isExit(counted)) return Effect.mapBoth(counted, { onFailure: refused, onSuccess: set })
    const exit = counted as Exit.Exit<number, TokenCountError>
    return Exit.mapBoth(exit, { onFailure: refused, onSuccess: set })
  })

/**
 * What the context holds besides the buffer, in tokens: the provider's
 * compaction item, the summary and, with a summary, its framing line
 * (docs/contract.md sections 10.10, 15.6). Only where the summary's count
 * is kept at every fold (`countsAtFold`: a context window's checks); reads
 * go through {@link summaryTokensOf}.
 *
 * @internal
 */
export const leadTokens = (core: Core): number => besideSummary(core) + (core.summaryTokens ?? 0)

/** What the context holds besides the buffer and the summary's own count: the compaction item and the framing line. */
const besideSummary = (core: Core): number => Lead.besideSummary(core)

/**
 * The summary's count (docs/contract.md section 10.4): the kept count, or,
 * for a summary a fold committed uncounted, a count made now with the
 * memory's counter and kept until the summary changes (a failed count keeps
 * nothing: the next read counts again). An `Exit` when the counter counts at
 * once.
 *
 * @internal
 */
export const summaryTokensOf = (core: Core): Effect.Effect<number, TokenCountError> => {
  const known = core.summaryTokens
  if (known !== undefined) return Exit.succeed(known)
  const summary = core.summary
  return mapNow(countText(core.counter)(summary), (tokens) => {
    // the same text has the same count: kept unless the summary changed meanwhile
    if (core.summaryTokens === undefined && core.summary === summary) core.summaryTokens = tokens
    return tokens
  })
}

/** `contextTokens` (docs/contract.md section 10.3): the lead, the summary's count ({@link summaryTokensOf}), the buffer. */
const contextTokensOf = (core: Core): Effect.Effect<number, TokenCountError> =>
  mapNow(summaryTokensOf(core), (tokens) => besideSummary(core) + tokens + core.index.tokens)

/** {@link fillEmpty} without a state, else {@link fillState}. @internal */
export const fillWith = (state: MemoryState.MemoryState | undefined): Fill<TokenCountError | StateDecodeError> =>
  state === undefined ? fillEmpty : fillState(state)

const nonString = (): SummarizerError => new SummarizerError({ description: "summarizer returned a non-string" })

// Stores a fold's result unless `clear` or another fold committed since it
// started (the index then holds the plan void and evicts nothing).
const commit = (
  core: Core,
  generation: number,
  plan: Plan<Message.Message>,
  summary: string,
  tokens: number | undefined
): void => {
  if (core.generation === generation && core.index.commit(plan)) {
    core.generation++
    core.summary = summary
    core.summaryTokens = tokens
  }
}

/**
 * The `SummarizerError` of an empty result where one is refused
 * (docs/contract.md section 5, `core/fold.ts` `emptyResult`).
 */
const refuseEmpty = (
  previous: string,
  messages: ReadonlyArray<Message.Message>,
  result: string
): SummarizerError | undefined => {
  const description = Fold.emptyResult(previous, messages, result)
  return description === undefined ? undefined : new SummarizerError({ description })
}

/**
 * What a fold passes the summarizer as the current summary: the summary
 * without its ledger section (docs/contract.md section 14.2).
 */
const bodyOf = (core: Core): Ledger.Parsed =>
  core.ledger === undefined ? { body: core.summary, entries: noEntries } : Ledger.parse(core.summary)

const noEntries: ReadonlyArray<string> = []

/**
 * A fold's result made the new summary and committed: refused when empty
 * where docs/contract.md section 5 says so; with a ledger, the evicted
 * turns' artifacts merged into the previous ledger and its section appended,
 * as many entries as fit the ledger's budget (and the whole within
 * `maxSummaryTokens`), newest first (`core/loops.ts` `fitSummary`).
 */
const complete = (
  core: Core,
  generation: number,
  plan: Plan<Message.Message>,
  previous: Ledger.Parsed,
  result: string
): Effect.Effect<void, AddError> => {
  const empty = refuseEmpty(previous.body, plan.messages, result)
  if (empty !== undefined) return Exit.fail(empty)
  const ledger = core.ledger
  const entries = ledger === undefined ? noEntries : Ledger.merge(previous.entries, ledger.mentioned(plan.messages))
  const fit = Loops.fitSummary(
    result,
    entries,
    ledger === undefined ? 0 : ledger.maxTokens,
    core.maxSummaryTokens,
    core.countsAtFold
  )
  return flatMapNow(driveCounting(fit, recountOf(core.counter)), (fitted): Effect.Effect<void, AddError> => {
    if (!fitted.fits) {
      return Exit.fail(new SummaryBudgetError({ tokens: fitted.tokens, maxSummaryTokens: core.maxSummaryTokens! }))
    }
    return archiveThen(core, generation, plan, () => commit(core, generation, plan, fitted.summary, fitted.tokens))
  })
}

/**
 * A summary-only fold (docs/contract.md section 16.1): with a context window,
 * when the add's prunes leave the context over the window and nothing more
 * can be evicted, the summarizer is asked once, with no turns, for the
 * summary within `room` tokens (the window less everything else the context
 * holds; with a ledger, less the ledger's budget, its section re-fitted as a
 * fold fits it). The result commits when it counts within `room`;
 * otherwise nothing changes and the context stays over, as before. A
 * failure commits nothing and is the add's error, as a fold's. Not with
 * segments (a consolidation is their way to shrink) nor a provider's
 * compaction item. Run it under the prune lock, or in one step with a
 * synchronous summarizer.
 *
 * @internal
 */
export const shortenSummary = (
  core: Core,
  summarize: (
    summary: string,
    messages: ReadonlyArray<Message.Message>,
    request: Summarizer.Request
  ) => Effect.Effect<string, SummarizerError>,
  room: number
): Effect.Effect<void, AddError> => {
  if (core.segments !== undefined) return done
  // a context window keeps the count at every fold (countsAtFold); counted here should it not be
  return flatMapNow(summaryTokensOf(core), (summaryTokens) => shortenCounted(core, summarize, room, summaryTokens))
}

const shortenCounted = (
  core: Core,
  summarize: (
    summary: string,
    messages: ReadonlyArray<Message.Message>,
    request: Summarizer.Request
  ) => Effect.Effect<string, SummarizerError>,
  room: number,
  summaryTokens: number
): Effect.Effect<void, AddError> => {
  const ledger = core.ledger
  const budget = Fold.shortenBudget({
    compacted: core.compaction !== undefined,
    summary: core.summary,
    summaryTokens,
    room,
    ledgerTokens: ledger?.maxTokens,
    requestBudget: core.request.maxSummaryTokens,
    unshortened: core.unshortened
  })
  if (budget === undefined) return done
  const generation = core.generation
  const previous = bodyOf(core)
  const request: Summarizer.Request = { ...core.request, maxSummaryTokens: budget }
  return flatMapNow(summarize(previous.body, noMessages, request), (result): Effect.Effect<void, AddError> => {
    if (typeof result !== "string") return Exit.fail(nonString())
    // an empty result says the summary cannot be shortened into the room: nothing changes
    if (result.trim() === "") {
      if (core.generation === generation) core.unshortened = core.summary
      return done
    }
    const fit = Loops.fitSummary(result, previous.entries, ledger === undefined ? 0 : ledger.maxTokens, room)
    return mapNow(driveCounting(fit, recountOf(core.counter)), (fitted) => {
      if (core.generation !== generation) return
      if (fitted.fits && fitted.tokens !== undefined && fitted.tokens < summaryTokens) {
        core.generation++
        core.summary = fitted.summary
        core.summaryTokens = fitted.tokens
      } else {
        core.unshortened = core.summary
      }
    })
  })
}

const noMessages: ReadonlyArray<Message.Message> = []

/** A compaction's summary text counted when the fold needs its count (`countsAtFold`), else left uncounted. */
const countCompacted = (core: Core, summary: string): Effect.Effect<number | undefined, TokenCountError> =>
  summary === "" ? Exit.succeed(0) : core.countsAtFold ? countText(core.counter)(summary) : Exit.succeed(undefined)

/**
 * A fold's provider compaction committed (docs/contract.md section 15.7):
 * the compaction replaces the memory's, its readable content counted once;
 * its summary text replaces the summary (within `maxSummaryTokens`).
 */
const completeCompacted = (
  core: Core,
  generation: number,
  plan: Plan<Message.Message>,
  result: Summarizer.Compacted
): Effect.Effect<void, AddError> => {
  const count = countText(core.counter)
  const content = result.compaction.content
  return flatMapNow(
    content === "" ? Exit.succeed(0) : count(content),
    (compactionTokens) =>
      flatMapNow(countCompacted(core, result.summary), (tokens): Effect.Effect<
        void,
        AddError
      > => {
        const max = core.maxSummaryTokens
        if (max !== undefined && tokens !== undefined && tokens > max) {
          return Exit.fail(new SummaryBudgetError({ tokens, maxSummaryTokens: max }))
        }
        return archiveThen(core, generation, plan, () => {
          if (core.generation === generation && core.index.commit(plan)) {
            core.generation++
            core.summary = result.summary
            core.summaryTokens = tokens
            core.compaction = result.compaction
            core.compactionTokens = compactionTokens
          }
        })
      })
  )
}

/**
 * Calls the summarizer on the `cut` oldest messages and commits the result
 * (new summary, prefix removed) unless `clear` ran meanwhile. Run it under
 * the prune lock. A failure or interruption commits nothing. With
 * `maxSummarizerInputTokens` the messages go in chunks
 * ({@link foldChunks}).
 *
 * @internal
 */
export const fold = (
  core: Core,
  summarizer: Summarizer.Service,
  plan: Plan<Message.Message>
): Effect.Effect<void, AddError> => {
  // clearings that stand without a fold (docs/contract.md section 17): archived, then kept
  if (plan.messages.length === 0) return dropArchived(core, plan)
  const generation = core.generation
  // the plan pending in the index: a chunked fold that commits part of it narrows it
  let pending = plan
  return observeFold(
    core,
    plan,
    Effect.onExit(
      Effect.suspend(() => {
        if (core.segments !== undefined) {
          return foldSegments(
            core,
            (summary, messages, request) => summarizer.summarize(summary, messages, request),
            plan,
            (folded) => {
              pending = folded
            }
          )
        }
        const previous = bodyOf(core)
        const base = core.compactRequest ?? core.request
        const request = core.compaction === undefined ? base : { ...base, compaction: core.compaction }
        const chunks = chunksOf(core, plan)
        if (chunks === undefined && summarizer.compact !== undefined) {
          return Effect.flatMap(
            summarizer.compact(previous.body, plan.messages, request),
            (result): Effect.Effect<void, AddError> =>
              typeof result === "string"
                ? complete(core, generation, plan, previous, result)
                : Summarizer.isCompacted(result)
                ? completeCompacted(core, generation, plan, result)
                : Effect.fail(nonString())
          )
        }
        if (chunks === undefined) {
          return Effect.flatMap(
            summarizer.summarize(previous.body, plan.messages, request),
            (summary): Effect.Effect<void, AddError> =>
              // a hand-written service skips the constructors' check
              typeof summary !== "string"
                ? Effect.fail(nonString())
                : complete(core, generation, plan, previous, summary)
          )
        }
        return foldInChunks(
          core,
          generation,
          plan,
          chunks,
          previous,
          (ask) =>
            Effect.flatMap(
              summarizer.summarize(ask.state, ask.messages, request),
              (summary) =>
                typeof summary !== "string"
                  ? Effect.fail(nonString())
                  : checkChunk(ask.state, ask.messages, summary)
            ),
          (folded) => {
            pending = folded
          }
        )
      }),
      (exit) => Exit.isSuccess(exit) ? Effect.void : Effect.sync(() => core.index.abort(pending))
    )
  )
}

/**
 * The chunks a fold hands the summarizer (docs/contract.md section 5):
 * `undefined` (one call with every evicted message) without
 * `maxSummarizerInputTokens` or when they fit it.
 *
 * @internal
 */
export const chunksOf = (
  core: Core,
  plan: Plan<Message.Message>
): ReadonlyArray<Chunk<Message.Message>> | undefined => Loops.chunksOf(core.index, plan, core.maxSummarizerInputTokens)

/** A chunk's result, refused when empty where docs/contract.md section 5 says so. */
const checkChunk = (
  running: string,
  messages: ReadonlyArray<Message.Message>,
  summary: string
): Exit.Exit<string, SummarizerError> => {
  const empty = refuseEmpty(running, messages, summary)
  return empty === undefined ? Exit.succeed(summary) : Exit.fail(empty)
}

/**
 * {@link fold} with a synchronous summarizer, in the current step: nothing
 * can interleave with it, so it needs no lock. A failure commits nothing; so
 * does a fold whose summarizer itself added to the memory and so folded
 * first (that nested fold already folded these turns). In chunks as
 * {@link fold}.
 *
 * @internal
 */
export const foldNow = (core: Core, summarizeSync: SummarizeSync, plan: Plan<Message.Message>): Step =>
  plan.messages.length === 0 ? dropArchived(core, plan) : observeFoldNow(core, plan, summarizeSync, foldSync)

/**
 * Writes what a commit of `plan` takes out of the buffer to the archive
 * (docs/contract.md section 17), then runs `then` (the commit): at once
 * without an archive, or when a `clear` or a newer plan has voided the plan
 * (nothing to commit). A failed write fails with its `ArchiveError` and
 * `then` does not run; the caller aborts the plan.
 *
 * @internal
 */
export const archiveThen = (
  core: Core,
  generation: number,
  plan: Plan<Message.Message>,
  then: () => void
): Effect.Effect<void, ArchiveError> => {
  const archive = core.archive
  if (archive === undefined || core.generation !== generation || !core.index.isPending(plan)) {
    then()
    return done
  }
  const entries = entriesOf(core, plan)
  if (entries.length === 0) {
    then()
    return done
  }
  const flushed = core.pendingOriginals.length
  return flatMapNow(archive.write(core.conversationId!, entries), () => {
    core.pendingOriginals = core.pendingOriginals.slice(flushed)
    then()
    return done
  })
}

/**
 * What a commit of `plan` takes out of the buffer, by position: the
 * originals of tool results cut at the door not yet archived, the originals
 * of the results the prune's clearings rewrote, then the planned messages
 * (a cleared one's original stands for it).
 */
const entriesOf = (core: Core, plan: Plan<Message.Message>): Array<Archive.Entry> => {
  const byPosition = new Map<number, Message.Message>()
  for (const { message, position } of core.pendingOriginals) byPosition.set(position, message)
  for (const { item, position } of core.index.clearedOriginals()) {
    if (!byPosition.has(position)) byPosition.set(position, item)
  }
  const positions = core.index.planPositions(plan)
  for (let i = 0; i < positions.length; i++) {
    if (!byPosition.has(positions[i])) byPosition.set(positions[i], plan.messages[i])
  }
  const entries: Array<Archive.Entry> = []
  for (const [position, message] of byPosition) entries.push({ position, message })
  return entries.sort((a, b) => a.position - b.position)
}

/**
 * Commits `plan` with no summarizer (a drop, or clearings that stand
 * without a fold), its messages and the clearings' originals archived first
 * (docs/contract.md section 17); a failed write aborts the plan (the
 * clearings are undone) and is the add's error. A drop of messages updates
 * the drop metric.
 *
 * @internal
 */
export const dropArchived = (core: Core, plan: Plan<Message.Message>): Step => {
  const count = plan.messages.length
  const then = (): void => {
    if (core.index.commit(plan) && count > 0) observeDrop(core, count)
  }
  const step = archiveThen(core, core.generation, plan, then)
  if (Exit.isExit(step)) {
    if (Exit.isFailure(step)) core.index.abort(plan)
    return step
  }
  return Effect.onExit(step, (exit) => Exit.isSuccess(exit) ? Effect.void : Effect.sync(() => core.index.abort(plan)))
}

const foldSync = (core: Core, plan: Plan<Message.Message>, summarizeSync: SummarizeSync): Step => {
  if (core.segments !== undefined) {
    let pending = plan
    const folded = foldSegments(core, summarizeSync, plan, (narrowed) => {
      pending = narrowed
    })
    if (Exit.isExit(folded)) {
      if (Exit.isFailure(folded)) core.index.abort(pending)
      return folded
    }
    return Effect.onExit(folded, (e) => Exit.isSuccess(e) ? Effect.void : Effect.sync(() => core.index.abort(pending)))
  }
  const generation = core.generation
  const previous = bodyOf(core)
  const request = core.compactRequest ?? core.request
  const chunks = chunksOf(core, plan)
  if (chunks === undefined) {
    const exit = summarizeSync(previous.body, plan.messages, request)
    if (Exit.isFailure(exit)) {
      core.index.abort(plan)
      return exit
    }
    return completeNow(core, generation, plan, previous, exit.value)
  }
  let pending = plan
  const folded = foldInChunks(
    core,
    generation,
    plan,
    chunks,
    previous,
    (ask) => {
      const exit = summarizeSync(ask.state, ask.messages, request)
      return Exit.isFailure(exit) ? exit : checkChunk(ask.state, ask.messages, exit.value)
    },
    (narrowed) => {
      pending = narrowed
    }
  )
  if (Exit.isExit(folded)) {
    if (Exit.isFailure(folded)) core.index.abort(pending)
    return folded
  }
  return Effect.onExit(folded, (e) => Exit.isSuccess(e) ? Effect.void : Effect.sync(() => core.index.abort(pending)))
}

/**
 * A fold in chunks (`core/loops.ts` `foldChunks`), each chunk's summary the
 * next one's running summary, checked by `step`; the last one completed.
 * When a chunk fails, the chunks before it commit as one fold (`narrowed`
 * is told the plan now pending) and the fold fails with the chunk's error.
 * The caller aborts the pending plan on failure.
 */
const foldInChunks = (
  core: Core,
  generation: number,
  plan: Plan<Message.Message>,
  chunks: ReadonlyArray<Chunk<Message.Message>>,
  previous: Ledger.Parsed,
  step: (ask: Loops.ChunkAsk<Message.Message, string>) => Effect.Effect<string, SummarizerError>,
  narrowed: (plan: Plan<Message.Message>) => void
): Step =>
  driveChunks(
    Loops.foldChunks(core.index, plan, chunks, previous.body),
    step,
    (end, error): Step => {
      if (end === undefined) return Exit.fail(error!)
      if (!end.failed) return complete(core, generation, end.plan, previous, end.state)
      narrowed(end.plan)
      return flatMapNow(complete(core, generation, end.plan, previous, end.state), () => Exit.fail(error!))
    }
  )

/** {@link complete} in the current step when it can; the plan aborted when it fails. */
const completeNow = (
  core: Core,
  generation: number,
  plan: Plan<Message.Message>,
  previous: Ledger.Parsed,
  result: string
): Step => {
  const committed = complete(core, generation, plan, previous, result)
  if (Exit.isExit(committed)) {
    if (Exit.isFailure(committed)) core.index.abort(plan)
    return committed
  }
  return Effect.onExit(committed, (e) => Exit.isSuccess(e) ? Effect.void : Effect.sync(() => core.index.abort(plan)))
}

/**
 * What a memory reads back (docs/contract.md sections 5, 10.3, 10.6 and
 * 10.9): the pinned messages that come before every unpinned one, the
 * summary (as a `system` or `user` message, when not empty; with segments,
 * one `system` message per segment or one `user` message holding them),
 * then the rest.
 *
 * @internal
 */
export const contextOf = (core: Core): Array<Message.Message> => {
  const summary: Array<Message.Message> = []
  if (core.segments !== undefined) {
    const messages = core.segments.messages
    for (let i = 0; i < messages.length; i++) {
      // the framing line opens the first segment's message (section 10.10)
      summary.push(i === 0 && core.framing !== undefined ? framedMessage(core, messages[i]) : messages[i])
    }
  } else if (core.summary !== "") {
    const text = Rules.framed(core.framing, core.summary)
    summary.push(core.summaryRole === "user" ? Message.user(text) : Message.system(text))
  }
  const compaction = core.compaction === undefined ? undefined : compactionMessage(core.compaction)
  return Lead.withLead(core.index.toArray(), core.index.leadingPinned(), compaction, summary)
}

/** A segment's message with the framing line before its content. */
const framedMessage = (core: Core, message: Message.Message): Message.Message => {
  const text = Rules.framed(core.framing, message.content)
  return message.role === "user" ? Message.user(text) : Message.system(text)
}

/** How a provider's compaction item reads back (docs/contract.md section 15.6). @internal */
export const compactionMessage = MemoryState.compactionMessage

/**
 * A memory as a builder returns it: the public `Memory.Stepper` (the memory
 * and the synchronous parts of its `add` and `addMessages`). The context
 * constructors hand out `memory`; `makeStepper` and the Promise facade keep
 * the steps (docs/architecture.md, "The path of an add").
 *
 * @internal
 */
export type Built<M extends Memory> = Stepper<M>

/** Runs `step(arg)` with `core.fiber` set to `fiber`, the fiber running the Effect API's add. */
const inFiber = <A>(
  core: Core,
  fiber: Fiber.RuntimeFiber<unknown, unknown>,
  step: (arg: A) => Step,
  arg: A
): Step => {
  const outer = core.fiber
  core.fiber = fiber
  try {
    return step(arg)
  } finally {
    core.fiber = outer
  }
}

/** The read side and `clear`, shared by every strategy, with the add steps. @internal */
export const makeMemory = <M extends Memory>(
  core: Core,
  step: (message: Message.Message) => Step,
  stepMany: (messages: ReadonlyArray<Message.Message>) => Step,
  fields: Omit<M, Exclude<keyof Memory, "strategy">>
): Built<M> => {
  const add = (message: Message.Message): Step =>
    Effect.withFiberRuntime<void, AddError>((fiber) => inFiber(core, fiber, step, message))
  const addMessages = (messages: ReadonlyArray<Message.Message>): Step =>
    Effect.withFiberRuntime<void, AddError>((fiber) => inFiber(core, fiber, stepMany, messages))
  const state = Effect.sync((): MemoryState.MemoryState => {
    const made: MemoryState.MemoryState = core.segments === undefined || core.segments.texts.length === 0
      ? MemoryState.make(core.summary, core.index.toArray())
      : { summary: core.summary, buffer: core.index.toArray(), segments: core.segments.texts }
    if (core.conversationId === undefined && core.nextPosition === undefined && core.compaction === undefined) {
      return core.usageRatio === undefined ? made : { ...made, usageRatio: core.usageRatio }
    }
    return {
      ...made,
      ...(core.compaction === undefined ? {} : { compaction: core.compaction }),
      ...(core.conversationId === undefined ? {} : { conversationId: core.conversationId }),
      ...(core.nextPosition === undefined
        ? {}
        : { nextPosition: core.nextPosition, positions: core.index.positions() }),
      // the cut originals not yet archived travel with the state (docs/contract.md section 17)
      ...(core.nextPosition === undefined || core.pendingOriginals.length === 0
        ? {}
        : { unarchived: [...core.pendingOriginals].sort((a, b) => a.position - b.position) }),
      ...(core.usageRatio === undefined ? {} : { usageRatio: core.usageRatio })
    }
  })
  const messages = Effect.sync(() => {
    // an uncounted summary is remembered, counted only if a usage is recorded against this read
    const known = core.summaryTokens
    core.lastReadTokens = besideSummary(core) + (known ?? 0) + core.index.tokens
    core.lastReadSummary = known === undefined ? core.summary : undefined
    return contextOf(core)
  })
  const memory = {
    add,
    addMessages,
    summary: Effect.sync(() => core.summary),
    buffer: Effect.sync(() => core.index.toArray()),
    bufferTokens: Effect.sync(() => core.index.measure("tokens")),
    pinnedTokens: Effect.sync(() => core.index.pinnedTokens),
    summaryTokens: Effect.suspend(() => summaryTokensOf(core)),
    contextTokens: Effect.suspend(() => contextTokensOf(core)),
    messages,
    context: Effect.map(messages, (all) => all.map(String).join("\n")),
    clear: Effect.sync(() => {
      core.generation++
      core.summary = ""
      core.summaryTokens = 0
      core.compaction = undefined
      core.compactionTokens = 0
      if (core.segments !== undefined) core.segments = noSegments
      core.usageRatio = undefined
      core.lastReadTokens = undefined
      core.lastReadSummary = undefined
      core.index.clear()
      core.afterClear?.()
    }),
    state,
    toJSON: Effect.map(state, MemoryState.toJSON),
    recordUsage: (usage: Usage): Effect.Effect<void, UsageError> =>
      Effect.suspend(() => Effect.asVoid(recordSample(core, usage, undefined))),
    usageRatio: Effect.sync(() => core.usageRatio ?? 1),
    recall: (query: string, options?: Archive.SearchOptions) => recall(core, query, options)
  }
  // No spread in the literal: V8 makes such objects slow to build.
  core.strategy = fields.strategy
  const built = Object.assign(memory, fields) as unknown as M
  samplers.set(built, (usage, contextTokens) => Effect.suspend(() => recordSample(core, usage, contextTokens)))
  return { memory: built, step, stepMany }
}

/**
 * `recall` (docs/contract.md section 17): the memory's archive searched in
 * its own conversation; a `ConfigError` (option `archive`) without one.
 */
const recall = (
  core: Core,
  query: string,
  options?: Archive.SearchOptions
): Effect.Effect<ReadonlyArray<Archive.Match>, ArchiveError | ConfigError> => {
  const archive = core.archive
  if (archive === undefined) {
    return Effect.fail(
      new ConfigError({ option: "archive", description: "recall needs an archive: build the memory with one" })
    )
  }
  if (typeof query !== "string") {
    return Effect.fail(new ConfigError({ option: "query", description: `must be a string, got ${typeof query}` }))
  }
  return archive.service.search(core.conversationId!, query, options)
}

/**
 * One recorded usage as a stored conversation keeps it (docs/contract.md
 * section 12.2): the provider's count of the whole prompt, the overhead
 * outside the memory's context (the default resolved), and the memory's own
 * count of the context the request carried. Applying it again to another
 * state moves that state's ratio by the same sample.
 *
 * @internal
 */
export interface UsageSample {
  readonly inputTokens: number
  readonly overheadTokens: number
  readonly contextTokens: number
}

/**
 * Records a usage on a memory, comparing it with `contextTokens` (default:
 * the memory's count of the context it last read back); succeeds with the
 * sample applied, or `undefined` when it changed nothing (a measured or
 * counted size that is not positive).
 *
 * @internal
 */
export type Sampler = (
  usage: Usage,
  contextTokens: number | undefined
) => Effect.Effect<UsageSample | undefined, UsageError>

const samplers = new WeakMap<object, Sampler>()

/** The {@link Sampler} of a memory built by {@link makeMemory}. @internal */
export const samplerOf = (memory: Memory): Sampler | undefined => samplers.get(memory)

const recordSample = (
  core: Core,
  usage: Usage,
  contextTokens: number | undefined
): Effect.Effect<UsageSample | undefined, UsageError> => {
  const problem = Rules.usage(usage)
  if (problem !== undefined) return Exit.fail(new UsageError({ description: problem }))
  if (contextTokens !== undefined) return applySample(core, usage, contextTokens)
  const lastRead = core.lastReadTokens
  const pending = core.lastReadSummary
  if (lastRead !== undefined && pending === undefined) return applySample(core, usage, lastRead)
  // the context last read (or, without a read, the context now) with a summary not counted yet: counted now
  const summaryCount = lastRead === undefined || pending === core.summary
    ? summaryTokensOf(core)
    : countText(core.counter)(pending!)
  return flatMapNow(
    mapErrorNow(summaryCount, uncountedUsage),
    (tokens) =>
      applySample(
        core,
        usage,
        lastRead === undefined ? besideSummary(core) + tokens + core.index.tokens : lastRead + tokens
      )
  )
}

/**
 * The `UsageError` of a usage recorded against a context whose summary the
 * counter could not count (docs/contract.md section 16.4): the ratio is not
 * moved.
 */
const uncountedUsage = (error: TokenCountError): UsageError =>
  new UsageError({
    description: `the summary of the context it is compared with could not be counted: ${error.message}`
  })

/** `Effect.mapError`, applied at once to an `Exit`. */
const mapErrorNow = <A, E, E2>(self: Effect.Effect<A, E>, f: (e: E) => E2): Effect.Effect<A, E2> =>
  Exit.isExit(self) ? Exit.mapError(self as Exit.Exit<A, E>, f) : Effect.mapError(self, f)

const applySample = (
  core: Core,
  usage: Usage,
  counted: number
): Exit.Exit<UsageSample | undefined, UsageError> => {
  const overhead = usage.overheadTokens ?? core.reserveTokens
  const measured = usage.inputTokens - overhead
  // a sample with a size that is not positive changes nothing (docs/contract.md section 16.4)
  if (!(measured > 0 && counted > 0)) return Exit.succeed(undefined)
  core.usageRatio = UsageRatio.nextRatio(core.usageRatio, measured, counted)
  if (core.usageRatio === undefined) return Exit.succeed(undefined)
  Telemetry.usageRatio.unsafeUpdate(core.usageRatio, [MetricLabel.make("strategy", core.strategy ?? "rolling")])
  return Exit.succeed({ inputTokens: usage.inputTokens, overheadTokens: overhead, contextTokens: counted })
}

/** The memory of a {@link Built}. @internal */
export const memoryOf = <M extends Memory>(built: Built<M>): M => built.memory
