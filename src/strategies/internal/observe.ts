/**
 * A fold's telemetry (docs/contract.md section 11): the span and the metrics
 * of `Telemetry.ts`, around `core.ts`'s `fold` (an effect, under the prune
 * lock) and `foldNow` (a synchronous summarizer). Nothing here runs for an
 * add that does not fold.
 *
 * Where a fiber runs the fold (every fold of the Effect API, whose `add`
 * hands its fiber to the step through `Effect.withFiberRuntime`, and the
 * folds of an effect summarizer), the observation reads that fiber's metric
 * labels, clock and tracer and opens the span with `Effect.useSpan` (parent,
 * links and annotations as `Effect.withSpan` gives them); with Effect's
 * built-in tracer, which exports nothing, it opens none and the fold stays
 * in the add's own step. A synchronous fold of the Promise facade
 * runs in no fiber, in the add's own step: it updates the metrics (no
 * labels, the live clock) and opens no span.
 *
 * Metrics are updated directly (`unsafeUpdate`, label arrays cached), so an
 * observed fold looks no metric up in the registry.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as MetricLabel from "effect/MetricLabel"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import { type Plan, plannedTokens } from "../../core/eviction.js"
import type * as Message from "../../schema/Message.js"
import * as Telemetry from "../../Telemetry.js"
import type { Core } from "./core.js"

/** Effect's built-in tracer: its spans reach no exporter, so a fold records none with it. */
const nativeTracer = Context.get(DefaultServices.liveServices, Tracer.Tracer)
/** The clock of a fold that runs in no fiber (the facade's synchronous adds). */
const liveClock = Context.get(DefaultServices.liveServices, Clock.Clock)

/**
 * One strategy's metric labels, built once per strategy (and per set of
 * fiber labels): Effect's metrics cache their hooks by the label array's
 * identity, so a fold neither builds a label nor looks a metric up in the
 * registry once its labels were seen.
 */
interface Labels {
  /** `strategy`, `outcome`: folds, evicted messages, buffer and summary tokens. */
  readonly outcome: Readonly<Record<Telemetry.FoldOutcome, ReadonlyArray<MetricLabel.MetricLabel>>>
  /** `strategy`, `outcome: "dropped"`: messages dropped by a prune without a summarizer. */
  readonly dropped: ReadonlyArray<MetricLabel.MetricLabel>
  /** `strategy`, `outcome`, `time_unit`: fold duration. */
  readonly duration: Readonly<Record<Telemetry.FoldOutcome, ReadonlyArray<MetricLabel.MetricLabel>>>
  /** `strategy`, `error`, by error tag: summarizer failures (built on the first failure with that tag). */
  readonly failure: Map<string, ReadonlyArray<MetricLabel.MetricLabel>>
  readonly strategy: ReadonlyArray<MetricLabel.MetricLabel>
}

const OUTCOMES: ReadonlyArray<Telemetry.FoldOutcome> = ["committed", "failed", "discarded", "interrupted"]
const milliseconds = MetricLabel.make("time_unit", "milliseconds")

const makeLabels = (extra: ReadonlyArray<MetricLabel.MetricLabel>, strategy: string): Labels => {
  const byStrategy = [...extra, MetricLabel.make("strategy", strategy)]
  const outcome = {} as Record<Telemetry.FoldOutcome, ReadonlyArray<MetricLabel.MetricLabel>>
  const duration = {} as Record<Telemetry.FoldOutcome, ReadonlyArray<MetricLabel.MetricLabel>>
  for (const o of OUTCOMES) {
    outcome[o] = [...byStrategy, MetricLabel.make("outcome", o)]
    duration[o] = [...outcome[o], milliseconds]
  }
  const dropped = [...byStrategy, MetricLabel.make("outcome", "dropped")]
  return { outcome, dropped, duration, failure: new Map(), strategy: byStrategy }
}

/** Label sets without fiber labels, by strategy. */
const ownLabels = new Map<string, Labels>()
/** Label sets with a fiber's metric labels, by that label array (a `FiberRef` value, kept while in use), then strategy. */
const taggedLabels = new WeakMap<ReadonlyArray<MetricLabel.MetricLabel>, Map<string, Labels>>()

const labelsOf = (extra: ReadonlyArray<MetricLabel.MetricLabel>, strategy: string): Labels => {
  let byStrategy = ownLabels
  if (extra.length !== 0) {
    const tagged = taggedLabels.get(extra)
    if (tagged === undefined) {
      byStrategy = new Map()
      taggedLabels.set(extra, byStrategy)
    } else {
      byStrategy = tagged
    }
  }
  let labels = byStrategy.get(strategy)
  if (labels === undefined) {
    labels = makeLabels(extra, strategy)
    byStrategy.set(strategy, labels)
  }
  return labels
}

const noLabels: ReadonlyArray<MetricLabel.MetricLabel> = []

const failureLabels = (labels: Labels, error: string): ReadonlyArray<MetricLabel.MetricLabel> => {
  let cached = labels.failure.get(error)
  if (cached === undefined) {
    cached = [...labels.strategy, MetricLabel.make("error", error)]
    labels.failure.set(error, cached)
  }
  return cached
}

const errorTag = (cause: Cause.Cause<unknown>): string => {
  const failure = Cause.failureOption(cause)
  if (failure._tag === "None") return "defect"
  const error = failure.value
  return typeof error === "object" && error !== null && typeof (error as { _tag?: unknown })._tag === "string"
    ? (error as { readonly _tag: string })._tag
    : "unknown"
}

/**
 * Ends a fold's observation: its metrics, and the last attributes of its
 * span if it has one (`Effect.useSpan` ends the span with the fold's exit).
 * Plain arguments, no record: a synchronous fold allocates nothing here once
 * its labels were seen (the clock's readings aside).
 */
const end = (
  core: Core,
  plan: Plan<Message.Message>,
  strategy: string,
  start: bigint,
  clock: Clock.Clock,
  extra: ReadonlyArray<MetricLabel.MetricLabel>,
  span: Tracer.Span | undefined,
  exit: Exit.Exit<unknown, unknown>
): void => {
  const now = clock.unsafeCurrentTimeNanos()
  let outcome: Telemetry.FoldOutcome
  let error: string | undefined
  if (exit._tag === "Success") {
    outcome = core.index.lastCommitted === plan.id ? "committed" : "discarded"
  } else if (Cause.isInterruptedOnly(exit.cause)) {
    outcome = "interrupted"
  } else {
    outcome = "failed"
    error = errorTag(exit.cause)
  }
  const after = core.index.measure("tokens")
  const labels = labelsOf(extra, strategy)
  const byOutcome = labels.outcome[outcome]
  Telemetry.folds.unsafeUpdate(1, byOutcome)
  Telemetry.evictedMessages.unsafeUpdate(plan.messages.length, byOutcome)
  Telemetry.bufferTokens.unsafeUpdate(after, byOutcome)
  // only a counted summary is recorded: a fold counts it only when something needs it (docs/contract.md section 11)
  const summaryTokens = core.summaryTokens
  if (summaryTokens !== undefined) Telemetry.summaryTokens.unsafeUpdate(summaryTokens, byOutcome)
  Telemetry.foldDuration.unsafeUpdate(Number(now - start) / 1e6, labels.duration[outcome])
  if (error !== undefined) Telemetry.summarizerFailures.unsafeUpdate(1, failureLabels(labels, error))
  if (span !== undefined) {
    span.attribute("rollmem.outcome", outcome)
    span.attribute("rollmem.buffer_tokens_after", after)
    if (summaryTokens !== undefined) span.attribute("rollmem.summary_tokens", summaryTokens)
    if (error !== undefined) span.attribute("rollmem.error", error)
  }
}

/**
 * Ends the observation when `step` ends: at once for an `Exit` (a
 * synchronous fold stays one step), otherwise when the effect exits, run as
 * a child of `span` (if any) so that the summarizer's spans nest in it.
 */
const settle = <E>(
  core: Core,
  plan: Plan<Message.Message>,
  strategy: string,
  start: bigint,
  clock: Clock.Clock,
  extra: ReadonlyArray<MetricLabel.MetricLabel>,
  span: Tracer.Span | undefined,
  step: Effect.Effect<void, E>
): Effect.Effect<void, E> => {
  if (Exit.isExit(step)) {
    end(core, plan, strategy, start, clock, extra, span, step)
    return step
  }
  return Effect.onExit(
    span === undefined ? step : Effect.withParentSpan(step, span),
    (exit) => Effect.sync(() => end(core, plan, strategy, start, clock, extra, span, exit))
  )
}

type AnyFiber = Fiber.RuntimeFiber<unknown, unknown>

/**
 * The fold `run` observed in `fiber`, the fiber that runs it: its metric
 * labels and its default services (clock, tracer) read with the fiber's
 * `getFiberRef`. With Effect's built-in tracer (which exports nothing) the
 * fold runs at once, in the caller's step, with metrics only; with any other
 * the span is opened by `Effect.useSpan` (which honours a disabled tracer,
 * the parent span, links and annotations as `Effect.withSpan` does) and
 * `run` is called in the same step as the span's creation.
 */
const inFiber = <E>(
  fiber: AnyFiber,
  core: Core,
  plan: Plan<Message.Message>,
  run: () => Effect.Effect<void, E>
): Effect.Effect<void, E> => {
  const extra = fiber.getFiberRef(FiberRef.currentMetricLabels)
  const services = fiber.getFiberRef(DefaultServices.currentServices)
  const clock = Context.get(services, Clock.Clock)
  const strategy = core.strategy ?? "rolling"
  if (Context.get(services, Tracer.Tracer) === nativeTracer) {
    return settle(core, plan, strategy, clock.unsafeCurrentTimeNanos(), clock, extra, undefined, run())
  }
  return Effect.useSpan(Telemetry.FOLD_SPAN, {
    kind: "internal",
    captureStackTrace: false,
    attributes: {
      "rollmem.strategy": strategy,
      "rollmem.evicted_messages": plan.messages.length,
      "rollmem.evicted_tokens": plannedTokens(plan),
      "rollmem.buffer_tokens_before": core.index.measure("tokens")
    }
  }, (span) => settle(core, plan, strategy, clock.unsafeCurrentTimeNanos(), clock, extra, span, run()))
}

/**
 * `core.ts`'s `fold` observed: `fold` is the fold's effect (summarizer call
 * and commit), run as a child of the fold's span. Always run by a fiber.
 *
 * @internal
 */
export const observeFold = <E>(
  core: Core,
  plan: Plan<Message.Message>,
  fold: Effect.Effect<void, E>
): Effect.Effect<void, E> => Effect.withFiberRuntime<void, E>((fiber) => inFiber(fiber, core, plan, () => fold))

/**
 * `core.ts`'s `foldNow` observed. In the Effect API's add (`core.fiber` set
 * while its step runs) the fold is observed in that fiber, as
 * {@link observeFold} observes one: at once with metrics only, or handed to
 * the fiber inside its span. In the facade's synchronous add (no fiber),
 * `fold(core, plan, arg)` runs at once, in the caller's step, with metrics
 * only. What it leaves to run (a summary count that suspends) is observed to
 * its end. `fold` is a module-level function, so an observed synchronous
 * fold allocates no closure in the facade.
 *
 * @internal
 */
export const observeFoldNow = <A, E>(
  core: Core,
  plan: Plan<Message.Message>,
  arg: A,
  fold: (core: Core, plan: Plan<Message.Message>, arg: A) => Effect.Effect<void, E>
): Effect.Effect<void, E> => {
  const fiber = core.fiber
  if (fiber !== undefined) return inFiber(fiber, core, plan, () => fold(core, plan, arg))
  const start = liveClock.unsafeCurrentTimeNanos()
  return settle(core, plan, core.strategy ?? "rolling", start, liveClock, noLabels, undefined, fold(core, plan, arg))
}

/**
 * A prune without a summarizer (RollingMemory without one, WindowMemory)
 * dropped `messages` turns: counted in `rollmem_evicted_messages` with
 * `outcome: "dropped"` (docs/contract.md section 11), with the metric labels
 * of the fiber running the add, none in the facade's synchronous adds. Not a
 * fold: no span, no other metric.
 *
 * @internal
 */
export const observeDrop = (core: Core, messages: number): Effect.Effect<void> => {
  const extra = core.fiber === undefined ? noLabels : core.fiber.getFiberRef(FiberRef.currentMetricLabels)
  Telemetry.evictedMessages.unsafeUpdate(messages, labelsOf(extra, core.strategy ?? "rolling").dropped)
  return Exit.void
}

const withoutParent = (context: Context.Context<never>): Context.Context<never> =>
  Context.omit(Tracer.ParentSpan)(context) as Context.Context<never>

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
    const root = Effect.mapInputContext(effect, withoutParent)
    return Option.isNone(caller) ? root : Effect.linkSpans(root, caller.value, { "rollmem.link": "started by" })
  })
