/**
 * The four strategies behind one constructor, so a test can run against each.
 */
import { Effect } from "effect"
import type { ConfigError, Memory, StateDecodeError, TokenCountError } from "../../../src/index.js"
import {
  BufferMemory,
  RollingMemory,
  Summarizer,
  SummaryMemory,
  TokenCounter,
  WindowMemory
} from "../../../src/index.js"
import type { Accounting } from "./harness.js"

/** A strategy's name. */
export type Strategy = "rolling" | "rolling-drop" | "buffer" | "window" | "summary"

/** Every strategy, RollingMemory with and without a summarizer. */
export const strategies: ReadonlyArray<Strategy> = ["rolling", "rolling-drop", "buffer", "window", "summary"]

/** How each strategy accounts for the turns it no longer buffers. */
export const accountingOf: Record<Strategy, Accounting> = {
  rolling: "summarize",
  "rolling-drop": "drop",
  buffer: "keep",
  window: "drop",
  summary: "summarize"
}

/**
 * Budgets used by {@link build}: RollingMemory 4 tokens, WindowMemory 2
 * messages, unless given; and how RollingMemory and SummaryMemory keep their
 * summary (`summary`, docs/contract.md section 10.9; default the single one).
 */
export interface Budgets {
  readonly maxTokens?: number
  readonly maxMessages?: number
  readonly summary?: "single" | "segments"
  readonly maxSummaryTokens?: number
}

/** What building a memory needs: a summarizer (for "rolling" and "summary") and a counter. */
export interface Services {
  readonly summarizer?: Summarizer.Service | undefined
  readonly counter?: TokenCounter.Service | undefined
}

const provide = <A, E>(
  effect: Effect.Effect<A, E, Summarizer.Summarizer>,
  strategy: Strategy,
  services: Services
): Effect.Effect<A, E> => {
  // Services are provided directly (not as layers): building a layer per
  // memory costs milliseconds, too much for tens of thousands of sequences.
  const needsSummarizer = strategy === "rolling" || strategy === "summary"
  if (needsSummarizer && services.summarizer === undefined) throw new Error(`${strategy} needs a summarizer`)
  let provided = effect
  if (needsSummarizer && services.summarizer !== undefined) {
    provided = Effect.provideService(provided, Summarizer.Summarizer, services.summarizer)
  }
  // dropping, on purpose
  if (strategy === "rolling-drop") provided = Effect.provideService(provided, Summarizer.Summarizer, Summarizer.drop)
  if (services.counter !== undefined) {
    provided = Effect.provideService(provided, TokenCounter.TokenCounter, services.counter)
  }
  return provided as Effect.Effect<A, E>
}

const summaryOf = (
  budgets: Budgets
): { readonly summary?: "single" | "segments"; readonly maxSummaryTokens?: number } => ({
  ...(budgets.summary === undefined ? {} : { summary: budgets.summary }),
  ...(budgets.maxSummaryTokens === undefined ? {} : { maxSummaryTokens: budgets.maxSummaryTokens })
})

/** Builds an empty memory of a strategy. */
export const build = (
  strategy: Strategy,
  services: Services = {},
  budgets: Budgets = {}
): Effect.Effect<Memory.Memory, ConfigError> => {
  const maxTokens = budgets.maxTokens ?? 4
  const maxMessages = budgets.maxMessages ?? 2
  switch (strategy) {
    case "rolling":
    case "rolling-drop":
      return provide(RollingMemory.make({ maxTokens, ...summaryOf(budgets) }), strategy, services)
    case "buffer":
      return provide(BufferMemory.make(), strategy, services)
    case "window":
      return provide(WindowMemory.make({ maxMessages }), strategy, services)
    case "summary":
      return provide(SummaryMemory.make(summaryOf(budgets)), strategy, services)
  }
}

/** Restores a memory of a strategy from a parsed JSON state (`fromJSON`). */
export const restore = (
  strategy: Strategy,
  input: unknown,
  services: Services = {},
  budgets: Budgets = {}
): Effect.Effect<Memory.Memory, ConfigError | StateDecodeError | TokenCountError> => {
  const maxTokens = budgets.maxTokens ?? 4
  const maxMessages = budgets.maxMessages ?? 2
  switch (strategy) {
    case "rolling":
    case "rolling-drop":
      return provide(RollingMemory.fromJSON(input, { maxTokens, ...summaryOf(budgets) }), strategy, services)
    case "buffer":
      return provide(BufferMemory.fromJSON(input), strategy, services)
    case "window":
      return provide(WindowMemory.fromJSON(input, { maxMessages }), strategy, services)
    case "summary":
      return provide(SummaryMemory.fromJSON(input, summaryOf(budgets)), strategy, services)
  }
}
