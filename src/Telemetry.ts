/**
 * What a memory reports about its folds, through Effect's own `Tracer` and
 * `Metric` (docs/contract.md section 11): one span per fold and six metrics.
 * An add that neither folds nor drops turns reports nothing and costs
 * nothing; one that drops turns (no summarizer) counts them in
 * {@link evictedMessages}.
 *
 * Nothing here needs configuring: provide an exporting tracer and a metric
 * reader to the program (with `@effect/opentelemetry`, an optional peer) and
 * every fold shows up. Metrics live in Effect's global metric registry, so
 * the Promise facade's folds are counted too; spans need a fiber whose
 * tracer is not Effect's built-in one (see {@link FOLD_SPAN}).
 *
 * @example
 * ```ts
 * import * as Otlp from "@effect/opentelemetry/Otlp"
 * import { FetchHttpClient } from "@effect/platform"
 * import { Effect, Layer, Metric, MetricLabel } from "effect"
 * import { Message, RollingMemory, Summarizer, Telemetry } from "rollmem"
 *
 * const program = Effect.gen(function*() {
 *   const memory = yield* RollingMemory.make({ maxTokens: 500 })
 *   yield* memory.add(Message.user("hello"))
 *   // the committed folds of every RollingMemory so far
 *   const committed = Metric.taggedWithLabels(Telemetry.folds, [
 *     MetricLabel.make("strategy", "rolling"),
 *     MetricLabel.make("outcome", "committed")
 *   ])
 *   return (yield* Metric.value(committed)).count
 * }).pipe(Effect.withSpan("chat.turn")) // each fold's span is a child of this one
 *
 * program.pipe(
 *   Effect.provide(Summarizer.layerFunction((summary, messages) => `${summary} ${messages.length} turns`)),
 *   // spans and metrics over OTLP/HTTP
 *   Effect.provide(
 *     Otlp.layerJson({ baseUrl: "http://localhost:4318", resource: { serviceName: "chat" } }).pipe(
 *       Layer.provide(FetchHttpClient.layer)
 *     )
 *   ),
 *   Effect.runPromise
 * )
 * ```
 *
 * @since 0.2.0
 */
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"

/**
 * The name of the span of a fold: `"rollmem.fold"`.
 *
 * A fold is one summarizer call and its commit (docs/contract.md section 5;
 * a SummaryMemory folds on every add). Its span is a child of the span
 * current in the add that folds (the caller's), and the summarizer's own
 * spans (an `@effect/ai` model call, say) are its children. An add that does
 * not fold opens no span. A background fold (`fold: "background"`) runs
 * after its add returned: its span is a root with a link to the span of the
 * add that started it.
 *
 * When a span is recorded: whenever the fold runs in a fiber whose tracer is
 * enabled and is not Effect's built-in tracer (whose spans go nowhere), that
 * is, as soon as a program provides one (`@effect/opentelemetry`'s
 * `NodeSdk.layer`, `Effect.withTracer`). Through the Effect API every fold
 * runs in the fiber of the add that folds, a summarizer built from a plain
 * function's too, and its span is opened with `Effect.useSpan` (parent,
 * links and annotations as `Effect.withSpan` gives them). The Promise
 * facade's synchronous adds run in no fiber: their folds record metrics
 * only, no span.
 *
 * Attributes (all numbers are counts at the fold's end unless said):
 *
 * | key | value |
 * |---|---|
 * | `rollmem.strategy` | `"rolling"` or `"summary"` |
 * | `rollmem.outcome` | a {@link FoldOutcome} |
 * | `rollmem.evicted_messages` | messages handed to the summarizer (evicted when the outcome is `"committed"`) |
 * | `rollmem.evicted_tokens` | their tokens, as counted when added |
 * | `rollmem.buffer_tokens_before` | the buffer's tokens when the fold started (after the turn that triggered it) |
 * | `rollmem.buffer_tokens_after` | the buffer's tokens when it ended |
 * | `rollmem.summary_tokens` | the summary's tokens when it ended |
 * | `rollmem.error` | a failed fold's error tag (`"SummarizerError"`, ...), else absent |
 *
 * @example
 * ```ts
 * import { Telemetry } from "rollmem"
 *
 * Telemetry.FOLD_SPAN // "rollmem.fold": the span each fold runs in, with its outcome as an attribute
 * ```
 *
 * @since 0.2.0
 * @category constants
 */
export const FOLD_SPAN = "rollmem.fold"

/**
 * How a fold ended:
 *
 * - `"committed"`: the summary was stored and the evicted turns removed;
 * - `"failed"`: the summarizer (or the summary's count or budget check)
 *   failed; nothing changed beyond the append;
 * - `"discarded"`: the summarizer succeeded but its result was dropped, since
 *   `clear` ran meanwhile (or, with a synchronous summarizer that adds to
 *   its own memory, a nested fold committed first);
 * - `"interrupted"`: the add was interrupted during the fold; nothing
 *   changed beyond the append.
 *
 * @since 0.2.0
 * @category models
 */
export type FoldOutcome = "committed" | "failed" | "discarded" | "interrupted"

/**
 * Folds, by `strategy` and `outcome` (a {@link FoldOutcome}). A monotonic
 * counter: `rollmem_folds`.
 *
 * @example
 * ```ts
 * import { Effect, Metric } from "effect"
 * import { Telemetry } from "rollmem"
 *
 * // the folds counted so far in this process (each outcome is a tag: committed, failed, ...)
 * const folds = Metric.value(Telemetry.folds).pipe(Effect.map((state) => state.count))
 * ```
 *
 * @since 0.2.0
 * @category metrics
 */
export const folds: Metric.Metric.Counter<number> = Metric.counter("rollmem_folds", {
  description: "rollmem folds (summarizer calls), by strategy and outcome",
  incremental: true
})

/**
 * Messages handed to the summarizer, by `strategy` and the fold's
 * `outcome`: those of committed folds left the buffer; the others stayed.
 * Turns dropped by a prune without a summarizer (a RollingMemory without
 * one, a WindowMemory) are counted here too, with `outcome: "dropped"`
 * (strategy `"rolling"` or `"window"`); such a prune is not a fold: it opens
 * no span and updates no other metric. A monotonic counter:
 * `rollmem_evicted_messages`.
 *
 * @example
 * ```ts
 * import { Effect, Metric } from "effect"
 * import { Telemetry } from "rollmem"
 *
 * const evicted = Metric.value(Telemetry.evictedMessages).pipe(Effect.map((state) => state.count))
 * ```
 *
 * @since 0.2.0
 * @category metrics
 */
export const evictedMessages: Metric.Metric.Counter<number> = Metric.counter("rollmem_evicted_messages", {
  description: "messages handed to the summarizer by rollmem folds, by strategy and fold outcome",
  incremental: true
})

/**
 * Failed folds, by `strategy` and `error`, the error's tag
 * (`"SummarizerError"`, `"SummaryBudgetError"`, `"TokenCountError"`, or
 * `"defect"`). Interruptions are not failures (see {@link folds}). A
 * monotonic counter: `rollmem_summarizer_failures`.
 *
 * @example
 * ```ts
 * import { Effect, Metric } from "effect"
 * import { Telemetry } from "rollmem"
 *
 * const failures = Metric.value(Telemetry.summarizerFailures).pipe(Effect.map((state) => state.count))
 * ```
 *
 * @since 0.2.0
 * @category metrics
 */
export const summarizerFailures: Metric.Metric.Counter<number> = Metric.counter("rollmem_summarizer_failures", {
  description: "rollmem folds that failed, by strategy and error tag",
  incremental: true
})

/**
 * How long each fold took, summarizer call included, by `strategy`,
 * `outcome` and `time_unit: "milliseconds"`: a histogram in milliseconds
 * with `Metric.timer`'s buckets (0.5 ms doubling 35 times), read from the
 * fiber's `Clock` (so `TestClock` drives it in tests; the facade's
 * synchronous adds read the system clock). `rollmem_fold_duration`.
 *
 * @example
 * ```ts
 * import { Effect, Metric } from "effect"
 * import { Telemetry } from "rollmem"
 *
 * const meanMillis = Metric.value(Telemetry.foldDuration).pipe(Effect.map((state) => state.sum / Math.max(1, state.count)))
 * ```
 *
 * @since 0.2.0
 * @category metrics
 */
export const foldDuration: Metric.Metric.Histogram<number> = Metric.histogram(
  "rollmem_fold_duration",
  MetricBoundaries.exponential({ start: 0.5, factor: 2, count: 35 }),
  "rollmem fold latency in milliseconds (summarizer call and commit), by strategy and outcome"
)

/** 1, 2, 4, ... 2^23 (8,388,608) tokens, then +Infinity. */
const tokenBoundaries = MetricBoundaries.exponential({ start: 1, factor: 2, count: 24 })

/**
 * The buffer's tokens after each fold, by `strategy` and `outcome`: a
 * histogram with buckets 1, 2, 4, ... 2^23 tokens. `rollmem_buffer_tokens`.
 *
 * @example
 * ```ts
 * import { Effect, Metric } from "effect"
 * import { Telemetry } from "rollmem"
 *
 * const largest = Metric.value(Telemetry.bufferTokens).pipe(Effect.map((state) => state.max))
 * ```
 *
 * @since 0.2.0
 * @category metrics
 */
export const bufferTokens: Metric.Metric.Histogram<number> = Metric.histogram(
  "rollmem_buffer_tokens",
  tokenBoundaries,
  "rollmem buffer tokens after a fold, by strategy and outcome"
)

/**
 * The summary's tokens after each fold, by `strategy` and `outcome`: a
 * histogram with buckets 1, 2, 4, ... 2^23 tokens. `rollmem_summary_tokens`.
 *
 * @example
 * ```ts
 * import { Effect, Metric } from "effect"
 * import { Telemetry } from "rollmem"
 *
 * const largest = Metric.value(Telemetry.summaryTokens).pipe(Effect.map((state) => state.max))
 * ```
 *
 * @since 0.2.0
 * @category metrics
 */
export const summaryTokens: Metric.Metric.Histogram<number> = Metric.histogram(
  "rollmem_summary_tokens",
  tokenBoundaries,
  "rollmem summary tokens after a fold, by strategy and outcome"
)

/**
 * Gauge `rollmem_usage_ratio`: a memory's correction ratio (the provider's
 * count over the memory's, docs/contract.md section 16.4), set by each
 * recorded usage, labelled by `strategy`.
 *
 * @example
 * ```ts
 * import { Effect, Metric } from "effect"
 * import { Telemetry } from "rollmem"
 *
 * const ratio = Metric.value(Telemetry.usageRatio)
 * ```
 *
 * @since 0.3.0
 * @category metrics
 */
export const usageRatio: Metric.Metric.Gauge<number> = Metric.gauge("rollmem_usage_ratio", {
  description: "the correction ratio learnt from the provider's usage figures (provider's count over the memory's)"
})

/**
 * Counter `rollmem_summarizer_input_tokens`: the prompt tokens the provider
 * reported for the requests of rollmem's model summarizers (docs/contract.md
 * section 16.5), labelled by `summarizer` (`openai-chat`, `anthropic`,
 * `ai-sdk`, `anthropic-compaction`, `openai-responses-compact`,
 * `language-model`). A request whose response reports no usage adds
 * nothing.
 *
 * @example
 * ```ts
 * import { Effect, Metric } from "effect"
 * import { Telemetry } from "rollmem"
 *
 * const spent = Metric.value(Metric.tagged(Telemetry.summarizerInputTokens, "summarizer", "openai-chat"))
 * ```
 *
 * @since 0.4.0
 * @category metrics
 */
export const summarizerInputTokens: Metric.Metric.Counter<number> = Metric.counter(
  "rollmem_summarizer_input_tokens",
  { description: "prompt tokens the provider reported for rollmem's summarizer requests, by summarizer" }
)

/**
 * Counter `rollmem_summarizer_output_tokens`: the output tokens the provider
 * reported for the requests of rollmem's model summarizers, labelled as
 * {@link summarizerInputTokens} (docs/contract.md section 16.5).
 *
 * @example
 * ```ts
 * import { Effect, Metric } from "effect"
 * import { Telemetry } from "rollmem"
 *
 * const written = Metric.value(Metric.tagged(Telemetry.summarizerOutputTokens, "summarizer", "anthropic"))
 * ```
 *
 * @since 0.4.0
 * @category metrics
 */
export const summarizerOutputTokens: Metric.Metric.Counter<number> = Metric.counter(
  "rollmem_summarizer_output_tokens",
  { description: "output tokens the provider reported for rollmem's summarizer requests, by summarizer" }
)
