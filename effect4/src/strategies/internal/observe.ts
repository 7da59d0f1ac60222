/**
 * The folds' telemetry on the Effect 4 line (docs/contract.md section 11):
 * a fold's span (through the public `Tracer` API: `Effect.useSpan`, only
 * when the fiber's tracer is enabled and is not `Tracer.nativeTracer`) and
 * its metrics (`Telemetry.ts`, updated once when the fold ends, with the
 * fiber's metric attributes). An add that neither folds nor drops records
 * nothing.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as References from "effect/References"
import * as Tracer from "effect/Tracer"
import { type Plan, plannedTokens } from "../../../../src/core/eviction.js"
import type * as Message from "../../schema/Message.js"
import * as Telemetry from "../../Telemetry.js"

type M = Message.Message

/** What the telemetry reads of a core. @internal */
export interface Observed {
  readonly strategy: string
  readonly summaryTokens: number | undefined
  readonly index: {
    readonly lastCommitted: number
    measure(measure: "tokens"): number
  }
}

const OUTCOMES: ReadonlyArray<Telemetry.FoldOutcome> = ["committed", "failed", "discarded", "interrupted"]

interface Series {
  readonly folds: Metric.Counter<number>
  readonly evicted: Metric.Counter<number>
  readonly duration: Metric.Histogram<number>
  readonly buffer: Metric.Histogram<number>
  readonly summary: Metric.Histogram<number>
}

interface Labels {
  readonly outcome: Readonly<Record<Telemetry.FoldOutcome, Series>>
  readonly dropped: Metric.Counter<number>
  readonly failure: Map<string, Metric.Counter<number>>
}

// The metrics with their attributes, built once per strategy (the fiber's own attributes are merged by the registry).
const byStrategy = new Map<string, Labels>()

const labelsOf = (strategy: string): Labels => {
  let labels = byStrategy.get(strategy)
  if (labels !== undefined) return labels
  const outcome = {} as Record<Telemetry.FoldOutcome, Series>
  for (const o of OUTCOMES) {
    const attributes = { strategy, outcome: o }
    outcome[o] = {
      folds: Telemetry.folds.pipe(withAttributes(attributes)),
      evicted: Telemetry.evictedMessages.pipe(withAttributes(attributes)),
      duration: Telemetry.foldDuration.pipe(withAttributes({ ...attributes, time_unit: "milliseconds" })),
      buffer: Telemetry.bufferTokens.pipe(withAttributes(attributes)),
      summary: Telemetry.summaryTokens.pipe(withAttributes(attributes))
    }
  }
  labels = {
    outcome,
    dropped: Telemetry.evictedMessages.pipe(withAttributes({ strategy, outcome: "dropped" })),
    failure: new Map()
  }
  byStrategy.set(strategy, labels)
  return labels
}

const withAttributes =
  (attributes: Record<string, string>) => <A extends Metric.Metric<number, unknown>>(metric: A): A =>
    Metric.withAttributes(metric, attributes) as A

const failureOf = (labels: Labels, strategy: string, error: string): Metric.Counter<number> => {
  let cached = labels.failure.get(error)
  if (cached === undefined) {
    cached = Telemetry.summarizerFailures.pipe(withAttributes({ strategy, error }))
    labels.failure.set(error, cached)
  }
  return cached
}

const errorTag = (cause: Cause.Cause<unknown>): string => {
  const found = Cause.findErrorOption(cause)
  if (found._tag === "None") return "defect"
  const error: unknown = found.value
  return typeof error === "object" && error !== null && typeof (error as { _tag?: unknown })._tag === "string"
    ? (error as { readonly _tag: string })._tag
    : "unknown"
}

const end = (
  core: Observed,
  plan: Plan<M>,
  start: bigint,
  clock: Clock.Clock,
  context: Context.Context<never>,
  span: Tracer.Span | undefined,
  exit: Exit.Exit<unknown, unknown>
): void => {
  const now = clock.currentTimeNanosUnsafe()
  let outcome: Telemetry.FoldOutcome
  let error: string | undefined
  if (Exit.isSuccess(exit)) {
    outcome = core.index.lastCommitted === plan.id ? "committed" : "discarded"
  } else if (Cause.hasInterruptsOnly(exit.cause)) {
    outcome = "interrupted"
  } else {
    outcome = "failed"
    error = errorTag(exit.cause)
  }
  const after = core.index.measure("tokens")
  const labels = labelsOf(core.strategy)
  const series = labels.outcome[outcome]
  series.folds.updateUnsafe(1, context)
  series.evicted.updateUnsafe(plan.messages.length, context)
  series.buffer.updateUnsafe(after, context)
  // only a counted summary is recorded: a fold counts it only when something needs it (docs/contract.md section 11)
  const summaryTokens = core.summaryTokens
  if (summaryTokens !== undefined) series.summary.updateUnsafe(summaryTokens, context)
  series.duration.updateUnsafe(Number(now - start) / 1e6, context)
  if (error !== undefined) failureOf(labels, core.strategy, error).updateUnsafe(1, context)
  if (span !== undefined) {
    span.attribute("rollmem.outcome", outcome)
    span.attribute("rollmem.buffer_tokens_after", after)
    if (summaryTokens !== undefined) span.attribute("rollmem.summary_tokens", summaryTokens)
    if (error !== undefined) span.attribute("rollmem.error", error)
  }
}

/**
 * Observes a fold of `plan` (docs/contract.md section 11): its span, a
 * child of the add's, when the fiber's tracer records spans, and its
 * metrics when it ends (committed, failed, discarded or interrupted).
 *
 * @internal
 */
export const observeFold = <E>(core: Observed, plan: Plan<M>, fold: Effect.Effect<void, E>): Effect.Effect<void, E> =>
  Effect.contextWith((context: Context.Context<never>) => {
    const clock = Context.get(context, Clock.Clock)
    const tracer = Context.get(context, Tracer.Tracer)
    if (tracer === Tracer.nativeTracer || !Context.get(context, References.TracerEnabled)) {
      const start = clock.currentTimeNanosUnsafe()
      return Effect.onExit(fold, (exit) => Effect.sync(() => end(core, plan, start, clock, context, undefined, exit)))
    }
    return Effect.useSpan(Telemetry.FOLD_SPAN, {
      kind: "internal",
      attributes: {
        "rollmem.strategy": core.strategy,
        "rollmem.evicted_messages": plan.messages.length,
        "rollmem.evicted_tokens": plannedTokens(plan),
        "rollmem.buffer_tokens_before": core.index.measure("tokens")
      }
    }, (span) => {
      const start = clock.currentTimeNanosUnsafe()
      return Effect.onExit(
        Effect.withParentSpan(fold, span),
        (exit) => Effect.sync(() => end(core, plan, start, clock, context, span, exit))
      )
    })
  })

/**
 * {@link observeFold} of a fold made at once (`engine.ts` `foldNow`): runs
 * `fold` now, calls `aborted` when it fails, then records the fold's metrics
 * and outcome with the context of the fiber running the add (the defaults
 * when none runs: the Promise facade's synchronous adds). `undefined`
 * without running anything when that context records spans: the fold then
 * runs as an effect under {@link observeFold}.
 *
 * @internal
 */
export const observeFoldNow = <E>(
  core: Observed,
  plan: Plan<M>,
  fold: () => Exit.Exit<void, E>,
  aborted: () => void
): Exit.Exit<void, E> | undefined => {
  const context = Fiber.getCurrent()?.context ?? noContext
  if (Context.get(context, Tracer.Tracer) !== Tracer.nativeTracer && Context.get(context, References.TracerEnabled)) {
    return undefined
  }
  const clock = Context.get(context, Clock.Clock)
  const start = clock.currentTimeNanosUnsafe()
  const exit = fold()
  if (Exit.isFailure(exit)) aborted()
  end(core, plan, start, clock, context, undefined, exit)
  return exit
}

const noContext: Context.Context<never> = Context.empty()

/**
 * Counts the messages a prune without a summarizer dropped
 * (`rollmem_evicted_messages`, `outcome: "dropped"`).
 *
 * @internal
 */
export const observeDrop = (strategy: string, messages: number): Effect.Effect<void> =>
  Effect.contextWith((context: Context.Context<never>) =>
    Effect.sync(() => labelsOf(strategy).dropped.updateUnsafe(messages, context))
  )

/**
 * Sets the usage ratio gauge (docs/contract.md section 16.4) for `strategy`.
 *
 * @internal
 */
export const observeUsageRatio = (strategy: string, ratio: number): Effect.Effect<void> =>
  Effect.contextWith((context: Context.Context<never>) =>
    Effect.sync(() => usageGauge(strategy).updateUnsafe(ratio, context))
  )

const gauges = new Map<string, Metric.Gauge<number>>()
const usageGauge = (strategy: string): Metric.Gauge<number> => {
  let gauge = gauges.get(strategy)
  if (gauge === undefined) {
    gauge = Telemetry.usageRatio.pipe(withAttributes({ strategy }))
    gauges.set(strategy, gauge)
  }
  return gauge
}

/**
 * Runs `effect`, a background fold loop (docs/contract.md section 5.1), with
 * no parent span and a link to the caller's current span, if any: each of its
 * folds is a root span linked to the add that started the loop (the add has
 * returned by then), and the summarizer's spans still nest in the fold's.
 *
 * @internal
 */
export const linkedToCaller = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  Effect.flatMap(Effect.serviceOption(Tracer.ParentSpan), (caller) => {
    const root = Effect.updateContext(
      effect,
      (context: Context.Context<never>): Context.Context<never> => Context.omit(Tracer.ParentSpan)(context)
    )
    return Option.isNone(caller) ? root : Effect.linkSpans(root, caller.value, { "rollmem.link": "started by" })
  })
