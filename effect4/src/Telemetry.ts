/**
 * What a memory reports about its folds, through Effect 4's own `Tracer`
 * and `Metric` (docs/contract.md section 11), as on the Effect 3 line: one
 * span per fold and six metrics. An add that neither folds nor drops turns
 * reports nothing; one that drops turns (no summarizer) counts them in
 * {@link evictedMessages} with `outcome: "dropped"`.
 *
 * Nothing here needs configuring: provide an exporting tracer and read the
 * metrics from the `Metric.MetricRegistry` (Effect 4's registry, global by
 * default) and every fold shows up. Spans need a fiber whose tracer is
 * enabled and is not Effect's built-in `Tracer.nativeTracer` (which exports
 * nothing).
 *
 * @example
 * ```ts
 * import { Effect, Metric } from "effect"
 * import { Message, RollingMemory, Summarizer, Telemetry } from "rollmem"
 *
 * const program = Effect.gen(function*() {
 *   const memory = yield* RollingMemory.make({ maxTokens: 5 })
 *   yield* memory.add(Message.user("one two three four five six"))
 *   // the committed folds of every RollingMemory so far
 *   const committed = Metric.withAttributes(Telemetry.folds, { strategy: "rolling", outcome: "committed" })
 *   return (yield* Metric.value(committed)).count
 * }).pipe(
 *   Effect.withSpan("chat.turn"), // each fold's span is a child of this one
 *   Effect.provideService(Summarizer.Summarizer, Summarizer.fromFunction((_, messages) => `${messages.length} turns`))
 * )
 * ```
 *
 * @since 1.0.0
 */
import * as Metric from "effect/Metric"

/**
 * The name of the span of a fold: `"rollmem.fold"`, a child of the span
 * current in the add that folds; the summarizer's own spans are its
 * children. Attributes: `rollmem.strategy`, `rollmem.evicted_messages`,
 * `rollmem.evicted_tokens`, `rollmem.buffer_tokens_before` at the start;
 * `rollmem.outcome`, `rollmem.buffer_tokens_after`, `rollmem.summary_tokens`
 * and, for a failed fold, `rollmem.error` (the error's tag, or `defect`) at
 * the end. The span's exit is the fold's.
 *
 * @since 1.0.0
 * @category constants
 */
export const FOLD_SPAN = "rollmem.fold"

/**
 * How a fold ended: `committed`; `failed` (the summarizer, or the summary's
 * count or budget check, failed: nothing changed beyond the append);
 * `discarded` (a `clear` or another fold came first: its result dropped);
 * `interrupted`. Drops (a prune without a summarizer) are counted in
 * {@link evictedMessages} as `dropped`.
 *
 * @since 1.0.0
 * @category models
 */
export type FoldOutcome = "committed" | "failed" | "discarded" | "interrupted"

/**
 * Counter `rollmem_folds`: folds (summarizer calls with their commit), by
 * `strategy` and `outcome`.
 *
 * @since 1.0.0
 * @category metrics
 */
export const folds: Metric.Counter<number> = Metric.counter("rollmem_folds", {
  description: "rollmem folds (summarizer calls), by strategy and outcome",
  incremental: true
})

/**
 * Counter `rollmem_evicted_messages`: the messages a fold handed the
 * summarizer, by `strategy` and the fold's `outcome`, and the messages a
 * prune without a summarizer dropped (`outcome: "dropped"`).
 *
 * @since 1.0.0
 * @category metrics
 */
export const evictedMessages: Metric.Counter<number> = Metric.counter("rollmem_evicted_messages", {
  description: "messages handed to the summarizer by rollmem folds, by strategy and fold outcome",
  incremental: true
})

/**
 * Counter `rollmem_summarizer_failures`: failed folds, by `strategy` and
 * `error` (the error's tag, or `defect`).
 *
 * @since 1.0.0
 * @category metrics
 */
export const summarizerFailures: Metric.Counter<number> = Metric.counter("rollmem_summarizer_failures", {
  description: "rollmem folds that failed, by strategy and error tag",
  incremental: true
})

/**
 * Histogram `rollmem_fold_duration`: a fold's time in milliseconds (from the
 * fiber's `Clock`), by `strategy`, `outcome` and `time_unit`
 * (`"milliseconds"`); buckets from 0.5 ms, doubling, 35 of them.
 *
 * @since 1.0.0
 * @category metrics
 */
export const foldDuration: Metric.Histogram<number> = Metric.histogram("rollmem_fold_duration", {
  description: "rollmem fold latency in milliseconds (summarizer call and commit), by strategy and outcome",
  boundaries: Metric.exponentialBoundaries({ start: 0.5, factor: 2, count: 35 })
})

const tokenBoundaries = Metric.exponentialBoundaries({ start: 1, factor: 2, count: 24 })

/**
 * Histogram `rollmem_buffer_tokens`: the buffer's tokens after a fold
 * (pinned messages aside), by `strategy` and `outcome`.
 *
 * @since 1.0.0
 * @category metrics
 */
export const bufferTokens: Metric.Histogram<number> = Metric.histogram("rollmem_buffer_tokens", {
  description: "rollmem buffer tokens after a fold, by strategy and outcome",
  boundaries: tokenBoundaries
})

/**
 * Histogram `rollmem_summary_tokens`: the summary's tokens after a fold, by
 * `strategy` and `outcome`.
 *
 * @since 1.0.0
 * @category metrics
 */
export const summaryTokens: Metric.Histogram<number> = Metric.histogram("rollmem_summary_tokens", {
  description: "rollmem summary tokens after a fold, by strategy and outcome",
  boundaries: tokenBoundaries
})

/**
 * Gauge `rollmem_usage_ratio`: the correction ratio learnt from the
 * provider's usage figures (docs/contract.md section 16.4), by `strategy`,
 * set by each `recordUsage` that changes it.
 *
 * @since 1.0.0
 * @category metrics
 */
export const usageRatio: Metric.Gauge<number> = Metric.gauge("rollmem_usage_ratio", {
  description: "the correction ratio learnt from the provider's usage figures (provider's count over the memory's)"
})
