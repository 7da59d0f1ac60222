/**
 * What the four strategies share: the mutable core (summary, generation,
 * eviction index) and the read side built on it.
 *
 * The core is mutated only inside single synchronous callbacks (one fiber
 * step), so every change is atomic; the prune lock orders the folds.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { ConfigError, SummarizerError, TokenCountError } from "../../Errors.js"
import * as MemoryState from "../../schema/MemoryState.js"
import * as Message from "../../schema/Message.js"
import * as Summarizer from "../../services/Summarizer.js"
import * as TokenCounter from "../../services/TokenCounter.js"
import type { Memory } from "../Memory.js"
import { type Entry, EvictionIndex } from "./eviction.js"

/** @internal */
export interface Core {
  summary: string
  /** Bumped by `clear`: a fold started before it is discarded. */
  generation: number
  readonly index: EvictionIndex<Message.Message>
  readonly counter: TokenCounter.Service
}

/** @internal */
export const entryOf = (message: Message.Message, tokens: number): Entry => ({
  // the one place every stored message passes: freeze it (SPEC section 1)
  tokens: (Message.freeze(message), tokens),
  responseLike: message.isResponseLike,
  callIds: message.toolCalls.length === 0 ? noIds : message.toolCalls.map((call) => call.id),
  resultId: message.toolCallId
})

const noIds: ReadonlyArray<string> = []

/** Counts one message's token text with the core's counter and checks the result. @internal */
export const count = (
  counter: TokenCounter.Service,
  message: Message.Message
): Effect.Effect<number, TokenCountError> => TokenCounter.checkedCount(counter, message.tokenText)

/** Builds a core from a restored state: counts each message once, never prunes. @internal */
export const makeCore = (state: MemoryState.MemoryState | undefined): Effect.Effect<Core, TokenCountError> =>
  Effect.gen(function*() {
    const counter = yield* TokenCounter.TokenCounter
    const index = new EvictionIndex<Message.Message>()
    if (state !== undefined) {
      for (const message of state.buffer) index.append(message, entryOf(message, yield* count(counter, message)))
    }
    return { summary: state?.summary ?? "", generation: 0, index, counter }
  })

/** The summarizer in context, if any. @internal */
export const optionalSummarizer: Effect.Effect<Option.Option<Summarizer.Service>> = Effect.serviceOption(
  Summarizer.Summarizer
)

/** Fails with `ConfigError` unless `value` is a positive integer. @internal */
export const positiveInteger = (option: string, value: unknown): Effect.Effect<number, ConfigError> =>
  typeof value === "number" && Number.isInteger(value) && value > 0
    ? Effect.succeed(value)
    : Effect.fail(
      new ConfigError({
        option,
        description: `must be a positive integer, got ${typeof value === "number" ? String(value) : typeof value}`
      })
    )

/**
 * Calls the summarizer on the `cut` oldest messages and commits the result
 * (new summary, prefix removed) unless `clear` ran meanwhile. Run it under
 * the prune lock. A failure or interruption commits nothing.
 *
 * @internal
 */
export const fold = (core: Core, summarizer: Summarizer.Service, cut: number): Effect.Effect<void, SummarizerError> => {
  const generation = core.generation
  const evicted = core.index.peek(cut)
  return Effect.flatMap(
    Effect.suspend(() => summarizer.summarize(core.summary, evicted)),
    (summary) => {
      if (typeof summary !== "string") {
        return Effect.fail(new SummarizerError({ description: "summarizer returned a non-string" }))
      }
      if (core.generation === generation) {
        core.summary = summary
        core.index.evict(cut)
      }
      return Effect.void
    }
  )
}

/** The summary as a leading system message, then the buffer. @internal */
export const messagesOf = (summary: string, buffer: ReadonlyArray<Message.Message>): Array<Message.Message> =>
  summary === "" ? [...buffer] : [Message.system(summary), ...buffer]

/** The read side and `clear`, shared by every strategy. @internal */
export const makeMemory = (
  core: Core,
  strategy: Memory["strategy"],
  add: Memory["add"]
): Memory => {
  const state = Effect.sync(() => MemoryState.make(core.summary, core.index.toArray()))
  const messages = Effect.sync(() => messagesOf(core.summary, core.index.toArray()))
  return {
    strategy,
    add,
    summary: Effect.sync(() => core.summary),
    buffer: Effect.sync(() => core.index.toArray()),
    bufferTokens: Effect.sync(() => core.index.tokens),
    messages,
    context: Effect.map(messages, (all) => all.map(String).join("\n")),
    clear: Effect.sync(() => {
      core.generation++
      core.summary = ""
      core.index.clear()
    }),
    state,
    toJSON: Effect.map(state, MemoryState.toJSON)
  }
}
