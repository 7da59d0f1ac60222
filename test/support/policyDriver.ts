/**
 * Drives an EvictionIndex through SPEC 10 prunes the way the strategies do
 * (re-check the trigger, clear tool results, plan, then commit or abort),
 * so the pure module can be compared with the spec model without a runtime.
 */
import { EvictionIndex, type Measure, type Plan } from "../../src/core/eviction.js"
import * as Message from "../../src/schema/Message.js"
import { entryOf } from "../../src/strategies/internal/core.js"
import * as SpecModel from "./specModel.js"

/** Options of a driven index (the model's names). */
export interface DriverOptions {
  readonly measure: Measure
  readonly budget: number
  readonly target?: number | undefined
  readonly boundary?: "aligned" | "turn" | undefined
  readonly pinSystem?: boolean | undefined
  readonly clear?: SpecModel.ClearOptions | undefined
}

/** A message equal to `m` but for its content. */
export const withContent = <M extends SpecModel.ModelMessage>(m: M, content: string): M => {
  const message = m as unknown as Message.Message
  return Message.make(message.role, content, {
    ...(message.id === undefined ? {} : { id: message.id }),
    ...(message.toolCallId === undefined ? {} : { toolCallId: message.toolCallId }),
    toolCalls: message.toolCalls,
    metadata: message.metadata
  }) as unknown as M
}

/** An index plus its driver: `add(messages, fail?)` appends and prunes once; returns the evicted messages (or undefined). */
export const driven = (options: DriverOptions, count: (text: string) => number = SpecModel.wordCount) => {
  const index = new EvictionIndex<Message.Message>({
    pinSystem: options.pinSystem,
    boundary: options.boundary,
    clearing: options.clear !== undefined
  })
  const policy = { measure: options.measure, budget: options.budget, target: options.target ?? options.budget }
  const weigh = (m: Message.Message) => count(m.tokenText)
  const append = (m: Message.Message) => index.append(m, entryOf(m, weigh(m)))
  /** Starts a prune: clearing, then a plan (left pending), or undefined when nothing is evicted. */
  const start = (): Plan<Message.Message> | undefined => {
    if (!index.needsPrune(policy)) return undefined
    const over = index.measure(policy.measure) > policy.budget
    const clear = options.clear
    if (over && clear !== undefined) {
      while (index.measure(policy.measure) > policy.target) {
        const slot = index.nextClearable(clear.keep)
        if (slot === undefined) break
        const cleared = withContent(slot.item, clear.placeholder ?? SpecModel.PLACEHOLDER)
        const tokens = weigh(cleared)
        if (tokens < slot.tokens) index.passClearable(slot, cleared, tokens)
        else index.passClearable(slot)
      }
    }
    const plan = index.plan(
      policy,
      over && !(clear !== undefined && (clear.until ?? "budget") === "budget" &&
        index.measure(policy.measure) <= policy.budget)
    )
    if (plan === undefined) index.keepClearings()
    return plan
  }
  const add = (messages: ReadonlyArray<Message.Message>, fail = false): ReadonlyArray<Message.Message> | undefined => {
    for (const m of messages) append(m)
    const plan = start()
    if (plan === undefined) return undefined
    if (fail) index.abort(plan)
    else index.commit(plan)
    return plan.messages
  }
  return { index, append, start, add }
}
