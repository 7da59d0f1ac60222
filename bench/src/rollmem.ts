/**
 * rollmem as a user runs it: the Effect API (one program replaying every
 * conversation, the memory built per conversation) and the Promise facade
 * (a `RollingMemory` per conversation, `addMessage` with raw fields), both
 * with the o200k_base counter of `rollmem/tokenizers` (its default engine,
 * ai-tokenizer) and a summarizer that answers at once.
 */
import { Effect, Layer, ManagedRuntime } from "effect"
import { clearMergeCache, countTokens } from "gpt-tokenizer/encoding/o200k_base"
import type { Message } from "../../dist/index.js"
import { RollingMemory, Summarizer, TokenCounter } from "../../dist/index.js"
import { RollingMemory as FacadeRollingMemory } from "../../dist/promise/index.js"
import { clearMergeCaches, layerO200kBase, loadTokenCounter } from "../../dist/tokenizers.js"
import type { Conversation } from "./data.js"

/**
 * The o200k_base count of `layerO200kBase` (the default engine, ai-tokenizer,
 * the fastest exact counter), as a plain function: the limit's tokenizer and
 * every peer's.
 */
export const countO200k: (text: string) => number = await loadTokenCounter("o200k_base")

/** The same count through gpt-tokenizer, called directly: the limit as measured before ai-tokenizer. */
const noSpecial = { disallowedSpecial: new Set<string>() }
export const countO200kGptTokenizer = (text: string): number => countTokens(text, noSpecial)

/** Before every sample: cold merge caches in every tokenizer (as in a new process). */
export const clearCaches = (): void => {
  clearMergeCaches()
  clearMergeCache()
}

/** The summarizer of every timed run: returns at once. */
export const instantSummary = (): string => "summary"

export type Runtime = ManagedRuntime.ManagedRuntime<TokenCounter.TokenCounter | Summarizer.Summarizer, never>

/** A runtime holding the o200k_base layer and the instant summarizer, built once. */
export const makeRuntime = async (
  // a tokenizer layer fails with ConfigError when its package is missing: the bench installs it, so that is a defect here
  counter: Layer.Layer<TokenCounter.TokenCounter, unknown> = layerO200kBase,
  summarizer: Layer.Layer<Summarizer.Summarizer> = Summarizer.layerFunction(instantSummary)
): Promise<Runtime> => {
  const runtime = ManagedRuntime.make(Layer.merge(Layer.orDie(counter), summarizer))
  await runtime.runtime()
  return runtime
}

/** The limit: every message's token text counted once with `count`, nothing else. */
export const limit = (
  conversations: ReadonlyArray<Conversation>,
  count: (text: string) => number = countO200k
): number => {
  let tokens = 0
  for (const c of conversations) {
    for (const m of c.messages) tokens += count(m.tokenText)
  }
  return tokens
}

/** The Effect API replay program for a budget (an Effect is a reusable description). */
export const effectReplay = (
  conversations: ReadonlyArray<Conversation>,
  maxTokens: number
): Effect.Effect<void, unknown, TokenCounter.TokenCounter | Summarizer.Summarizer> =>
  Effect.forEach(
    conversations,
    (c) =>
      Effect.flatMap(
        RollingMemory.make({ maxTokens }),
        (memory) => Effect.forEach(c.messages, (m: Message.Message) => memory.add(m), { discard: true })
      ),
    { discard: true }
  )

/**
 * The floor of any Effect API replay: the same loop as {@link effectReplay}
 * calling the TokenCounter service once per message, nothing else.
 */
export const effectCountOnly = (
  conversations: ReadonlyArray<Conversation>
): Effect.Effect<void, unknown, TokenCounter.TokenCounter> =>
  Effect.flatMap(TokenCounter.TokenCounter, (counter) =>
    Effect.forEach(
      conversations,
      (c) => Effect.forEach(c.messages, (m: Message.Message) => counter.count(m.tokenText), { discard: true }),
      { discard: true }
    ))

/** The facade replay: raw fields in, as a Promise-API user calls it. */
export const facadeReplay = (conversations: ReadonlyArray<Conversation>, maxTokens: number): void => {
  for (const c of conversations) {
    const memory = new FacadeRollingMemory({ maxTokens, summarize: instantSummary, tokenCounter: countO200k })
    for (const a of c.facade) memory.addMessage(a.role, a.content, a.options)
  }
}

/** Token counter calls per message in a facade replay. */
export const facadeCounterCalls = (conversations: ReadonlyArray<Conversation>, maxTokens: number): number => {
  let calls = 0
  let messages = 0
  const counting = (text: string): number => {
    calls++
    return countO200k(text)
  }
  for (const c of conversations) {
    const memory = new FacadeRollingMemory({ maxTokens, summarize: instantSummary, tokenCounter: counting })
    for (const a of c.facade) {
      memory.addMessage(a.role, a.content, a.options)
      messages++
    }
  }
  return calls / messages
}
