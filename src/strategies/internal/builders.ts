/**
 * How each strategy builds a memory from its services, options and an
 * optional restored state. The public constructors read the services from
 * the context; the Promise facade passes its own. Each builder returns an
 * `Exit` when nothing suspends (a synchronous counter), so the facade builds
 * a memory without starting a fiber.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type { ConfigError, TokenCountError } from "../../Errors.js"
import type * as MemoryState from "../../schema/MemoryState.js"
import type { Message } from "../../schema/Message.js"
import { summarizeSyncOf } from "../../services/internal/summarizing.js"
import type * as Summarizer from "../../services/Summarizer.js"
import type { BufferMemory } from "../BufferMemory.js"
import type { RollingMemory } from "../RollingMemory.js"
import type { SummaryMemory } from "../SummaryMemory.js"
import type { WindowMemory } from "../WindowMemory.js"
import {
  checkPositiveInteger,
  type Core,
  counting,
  done,
  entryOf,
  fold,
  foldNow,
  makeCore,
  makeMemory,
  mapNow,
  type Services,
  type Step
} from "./core.js"
import type { Plan, Policy } from "./eviction.js"

/** The default token budget of a RollingMemory: 2000 tokens. @internal */
export const DEFAULT_MAX_TOKENS = 2000

/**
 * What runs once the buffer is over its budget, for a summarizer: a
 * synchronous one folds in the add's own step (nothing can interleave, so no
 * lock); any other folds under the prune lock, one prune at a time, each
 * computing its cut once it holds the lock.
 */
const folder = (
  core: Core,
  summarizer: Summarizer.Service,
  planOf: () => Plan<Message> | undefined
): () => Step => {
  const summarizeSync = summarizeSyncOf(summarizer)
  if (summarizeSync !== undefined) {
    return () => {
      const plan = planOf()
      return plan === undefined ? done : foldNow(core, summarizeSync, plan)
    }
  }
  const semaphore = Effect.unsafeMakeSemaphore(1)
  const locked = semaphore.withPermits(1)(Effect.suspend(() => {
    const plan = planOf()
    return plan === undefined ? Effect.void : fold(core, summarizer, plan)
  }))
  return () => locked
}

/** @internal */
export const buildRolling = (
  services: Services,
  options: { readonly maxTokens?: number | undefined } | undefined,
  state: MemoryState.MemoryState | undefined
): Effect.Effect<RollingMemory, ConfigError | TokenCountError> => {
  const maxTokens = options?.maxTokens === undefined ? DEFAULT_MAX_TOKENS : options.maxTokens
  const invalid = checkPositiveInteger("maxTokens", maxTokens)
  if (invalid !== undefined) return Effect.fail(invalid)
  const { counter, summarizer } = services
  return mapNow(makeCore(counter, state), (core) => {
    const index = core.index
    const policy: Policy = { budget: maxTokens, measure: "tokens", target: maxTokens }
    // every prune re-checks its trigger once it holds the lock
    const planOf = () => index.needsPrune(policy) ? index.plan(policy, true) : undefined
    // Without a summarizer the evicted turns are dropped. With one, the unit
    // count may change before a locked prune runs (a fold in flight can leave
    // a result orphaned): the cut is computed when the fold starts.
    const overBudget = summarizer === undefined
      ? () => {
        const plan = planOf()
        if (plan !== undefined) index.commit(plan)
        return done
      }
      : folder(core, summarizer, planOf)
    const step = counting(counter, (message: Message, tokens): Step => {
      index.append(message, entryOf(message, tokens))
      return index.needsPrune(policy) ? overBudget() : done
    })
    return makeMemory<RollingMemory>(core, step, { strategy: "rolling", maxTokens })
  })
}

/** @internal */
export const buildBuffer = (
  services: Services,
  state: MemoryState.MemoryState | undefined
): Effect.Effect<BufferMemory, TokenCountError> =>
  mapNow(makeCore(services.counter, state), (core) => {
    const step = counting(services.counter, (message: Message, tokens): Step => {
      core.index.append(message, entryOf(message, tokens))
      return done
    })
    return makeMemory<BufferMemory>(core, step, { strategy: "buffer" })
  })

/** @internal */
export const buildWindow = (
  services: Services,
  options: { readonly maxMessages: number },
  state: MemoryState.MemoryState | undefined
): Effect.Effect<WindowMemory, ConfigError | TokenCountError> => {
  const maxMessages = options?.maxMessages
  const invalid = checkPositiveInteger("maxMessages", maxMessages)
  if (invalid !== undefined) return Effect.fail(invalid)
  return mapNow(makeCore(services.counter, state), (core) => {
    const index = core.index
    const policy: Policy = { budget: maxMessages, measure: "messages", target: maxMessages }
    const step = counting(services.counter, (message: Message, tokens): Step => {
      index.append(message, entryOf(message, tokens))
      if (index.needsPrune(policy)) {
        const plan = index.plan(policy, true)
        if (plan !== undefined) index.commit(plan)
      }
      return done
    })
    return makeMemory<WindowMemory>(core, step, { strategy: "window", maxMessages })
  })
}

/** @internal */
export const buildSummary = (
  services: Services & { readonly summarizer: Summarizer.Service },
  state: MemoryState.MemoryState | undefined
): Effect.Effect<SummaryMemory, TokenCountError> =>
  mapNow(makeCore(services.counter, state), (core) => {
    const index = core.index
    // every pending turn, folded at once
    const foldPending = folder(core, services.summarizer, () => index.planAll())
    const step = counting(services.counter, (message: Message, tokens): Step => {
      index.append(message, entryOf(message, tokens))
      return foldPending()
    })
    return makeMemory<SummaryMemory>(core, step, { strategy: "summary" })
  })
