/**
 * What every strategy's memory offers on the Effect 4 line: adds, reads,
 * `clear`, state, usage (docs/contract.md sections 5 to 8 and 16.4), and
 * {@link make}, a memory of the strategy its options name (what a stored
 * conversation is built with).
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type { ConfigError, StateDecodeError, TokenCountError } from "../Errors.js"
import type * as MemoryState from "../schema/MemoryState.js"
import * as OptionsSchema from "../schema/Options.js"
import type * as Summarizer from "../services/Summarizer.js"
import * as Context from "./internal/context.js"
import type { CompactOptions, Memory, Usage } from "./internal/engine.js"
import { buildBuffer, buildRolling, buildSummary, buildWindow } from "./internal/wiring.js"

export type {
  /** The options of `compact`. @since 1.0.0 */
  CompactOptions,
  /** A memory of any strategy. @since 1.0.0 */
  Memory,
  /** A provider's usage figures. @since 1.0.0 */
  Usage
}

/**
 * Options naming their strategy: `{ strategy: "rolling", maxTokens: 500 }`,
 * `{ strategy: "buffer" }`, `{ strategy: "window", maxMessages: 20 }`,
 * `{ strategy: "summary" }`, each with the rest of that strategy's options.
 *
 * @since 1.0.0
 */
export type Options = OptionsSchema.StrategyOptions

/**
 * The option keys of each strategy besides `strategy`.
 *
 * @since 1.0.0
 */
export const optionKeys: { readonly [S in Options["strategy"]]: ReadonlyArray<string> } = OptionsSchema.keysOf

/**
 * What {@link make} requires for options `O`: a `Summarizer` for the
 * `rolling` and `summary` strategies (or a strategy not known statically),
 * nothing for `buffer` and `window`.
 *
 * @since 1.0.0
 */
export type Requirements<O extends Options> = O["strategy"] extends "buffer" | "window" ? never
  : Summarizer.Summarizer

/**
 * A memory of an already decoded strategy's options (see {@link make}). @internal
 */
export const build = (
  options: Options,
  state: MemoryState.MemoryState | undefined
): Effect.Effect<Memory, ConfigError | TokenCountError, Summarizer.Summarizer> => {
  const { strategy: _, ...rest } = options
  switch (options.strategy) {
    case "rolling":
      return Effect.flatMap(Context.services, (services) => buildRolling(services, rest, state))
    case "buffer":
      return Effect.flatMap(Context.counting, (services) => buildBuffer(services, rest, state))
    case "window":
      return Effect.flatMap(
        Context.counting,
        (services) => buildWindow(services, rest as OptionsSchema.WindowOptions, state)
      )
    case "summary":
      return Effect.flatMap(Context.summarizing, (services) => buildSummary(services, rest, state))
  }
}

/**
 * Builds a memory of the strategy `options.strategy` with the rest of
 * `options`, empty or holding `state` (restored verbatim, not pruned, each
 * message counted once), as that strategy's own `make` / `fromState` build
 * it. The `TokenCounter` (default: word count) and the `Summarizer`
 * (required for `rolling` and `summary`, {@link Requirements}) are read from
 * the context once, here.
 *
 * Fails with `ConfigError` for options that are not an object (`option:
 * "options"`), an unknown strategy (`option: "strategy"`, listing the known
 * ones), an unknown key (naming the strategy and its keys), an option the
 * strategy refuses, or a `summary` strategy given `Summarizer.drop`
 * (`option: "summarizer"`); with `TokenCountError` when a restored message
 * cannot be counted.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Memory, MemoryState, Message, Summarizer } from "rollmem"
 *
 * const state = MemoryState.make("", [Message.user("hi")])
 * const memory = Memory.make({ strategy: "rolling", maxTokens: 500 }, state).pipe(
 *   Effect.provide(Summarizer.layerDrop)
 * )
 * ```
 *
 * @since 1.0.0
 */
export const make = <O extends Options>(
  options: O,
  state?: MemoryState.MemoryState | undefined
): Effect.Effect<Memory, ConfigError | StateDecodeError | TokenCountError, Requirements<O>> =>
  Effect.suspend(() => {
    const decoded = OptionsSchema.decodeStrategy(options)
    return Result.isFailure(decoded)
      ? Effect.fail(decoded.failure)
      : Effect.andThen(Context.checkState(state), build(decoded.success, state))
  }) as Effect.Effect<Memory, ConfigError | StateDecodeError | TokenCountError, Requirements<O>>
