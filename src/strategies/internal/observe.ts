/**
 * A fold's telemetry (docs/contract.md section 11): the span and the metrics
 * of `Telemetry.ts`, around `core.ts`'s `fold` (an effect, under the prune
 * lock) and `foldNow` (a synchronous summarizer, in the add's own step).
 * Nothing here runs for an add that does not fold.
 *
 * Metrics are updated directly (`unsafeUpdate`, with the calling fiber's
 * metric labels when there is a fiber), so a synchronous fold stays one
 * step. A span is recorded when the fold runs in a fiber whose tracer is
 * enabled and is not Effect's built-in tracer: `foldNow` finds the add's
 * fiber with `Fiber.getCurrentFiber()` (the Effect API's `add` runs its step
 * inside the fiber); the Promise facade's synchronous adds run in no fiber
 * and record metrics only.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as HashMap from "effect/HashMap"
import * as MetricLabel from "effect/MetricLabel"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import type * as Message from "../../schema/Message.js"
import * as Telemetry from "../../Telemetry.js"
import type { Core } from "./core.js"
import { type Plan, plannedTokens } from "./eviction.js"

/** Effect's built-in tracer: its spans reach no exporter, so a fold records none with it. */
const nativeTracer = Context.get(DefaultServices.liveServices, Tracer.Tracer)
/** The clock of a fold that runs in no fiber (the facade's synchronous adds). */
const liveClock = Context.get(DefaultServices.liveServices, Clock.Clock)

type AnyFiber = Fiber.RuntimeFiber<unknown, unknown>

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

const labelsOf = (fiber: AnyFiber | undefined, strategy: string): Labels => {
  const extra = fiber === undefined ? noLabels : fiber.getFiberRef(FiberRef.currentMetricLabels)
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

const withoutDisabled = (span: Option.Option<Tracer.AnySpan>): Option.Option<Tracer.AnySpan> => {
  while (span._tag === "Some" && Context.get(span.value.context, Tracer.DisablePropagation)) {
    span = span.value._tag === "Span" ? span.value.parent : Option.none()
  }
  return span
}

/**
 * The fold's span, as `Effect.withSpan` would open it in `fiber`, with its
 * first attributes; `undefined` when none is to be recorded. With Effect's
 * built-in tracer (no tracer provided) this is one comparison.
 */
const startSpan = (
  fiber: AnyFiber | undefined,
  clock: Clock.Clock,
  core: Core,
  plan: Plan<Message.Message>,
  strategy: string
): Tracer.Span | undefined => {
  if (fiber === undefined) return undefined
  const tracer = fiber.currentTracer
  if (tracer === nativeTracer || !fiber.getFiberRef(FiberRef.currentTracerEnabled)) return undefined
  const timing = fiber.getFiberRef(FiberRef.currentTracerTimingEnabled)
  const span = tracer.span(
    Telemetry.FOLD_SPAN,
    withoutDisabled(Option.fromNullable(fiber.currentSpan)),
    Context.empty(),
    Chunk.toReadonlyArray(fiber.getFiberRef(FiberRef.currentTracerSpanLinks)),
    timing ? clock.unsafeCurrentTimeNanos() : BigInt(0),
    "internal"
  )
  HashMap.forEach(fiber.getFiberRef(FiberRef.currentTracerSpanAnnotations), (value, key) => span.attribute(key, value))
  span.attribute("rollmem.strategy", strategy)
  span.attribute("rollmem.evicted_messages", plan.messages.length)
  span.attribute("rollmem.evicted_tokens", plannedTokens(plan))
  span.attribute("rollmem.buffer_tokens_before", core.index.tokens)
  return span
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
 * Ends a fold's observation: its metrics, and its span if it has one.
 * Plain arguments, no record: a synchronous fold allocates nothing here once
 * its labels were seen (the clock's readings aside).
 */
const end = (
  core: Core,
  plan: Plan<Message.Message>,
  strategy: string,
  start: bigint,
  clock: Clock.Clock,
  fiber: AnyFiber | undefined,
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
  const after = core.index.tokens
  const labels = labelsOf(fiber, strategy)
  const byOutcome = labels.outcome[outcome]
  Telemetry.folds.unsafeUpdate(1, byOutcome)
  Telemetry.evictedMessages.unsafeUpdate(plan.messages.length, byOutcome)
  Telemetry.bufferTokens.unsafeUpdate(after, byOutcome)
  Telemetry.summaryTokens.unsafeUpdate(core.summaryTokens, byOutcome)
  Telemetry.foldDuration.unsafeUpdate(Number(now - start) / 1e6, labels.duration[outcome])
  if (error !== undefined) Telemetry.summarizerFailures.unsafeUpdate(1, failureLabels(labels, error))
  if (span !== undefined) {
    span.attribute("rollmem.outcome", outcome)
    span.attribute("rollmem.buffer_tokens_after", after)
    span.attribute("rollmem.summary_tokens", core.summaryTokens)
    if (error !== undefined) span.attribute("rollmem.error", error)
    span.end(fiber!.getFiberRef(FiberRef.currentTracerTimingEnabled) ? now : BigInt(0), exit)
  }
}

/** Runs `effect` with `span` (if any) as its parent span, then ends the observation with its exit. */
const observed = <E>(
  core: Core,
  plan: Plan<Message.Message>,
  strategy: string,
  start: bigint,
  clock: Clock.Clock,
  fiber: AnyFiber | undefined,
  span: Tracer.Span | undefined,
  effect: Effect.Effect<void, E>
): Effect.Effect<void, E> =>
  Effect.onExit(
    span === undefined ? effect : Effect.withParentSpan(effect, span),
    (exit) => Effect.sync(() => end(core, plan, strategy, start, clock, fiber, span, exit))
  )

/**
 * `core.ts`'s `fold` observed: `fold` is the fold's effect (summarizer call
 * and commit), run as a child of the fold's span.
 *
 * @internal
 */
export const observeFold = <E>(
  core: Core,
  plan: Plan<Message.Message>,
  fold: Effect.Effect<void, E>
): Effect.Effect<void, E> =>
  Effect.withFiberRuntime<void, E>((fiber) => {
    const clock = Context.get(fiber.currentDefaultServices, Clock.Clock)
    const strategy = core.strategy ?? "rolling"
    const start = clock.unsafeCurrentTimeNanos()
    const span = startSpan(fiber, clock, core, plan, strategy)
    return observed(core, plan, strategy, start, clock, fiber, span, fold)
  })

/**
 * `core.ts`'s `foldNow` observed: `fold(core, plan, arg)` runs at once, in
 * the caller's step (the calling fiber, if any, gives the clock, the tracer
 * and the parent span); what it leaves to run (a summary count that
 * suspends) is observed to its end. `fold` is a module-level function, so an
 * observed synchronous fold allocates no closure.
 *
 * @internal
 */
export const observeFoldNow = <A, E>(
  core: Core,
  plan: Plan<Message.Message>,
  arg: A,
  fold: (core: Core, plan: Plan<Message.Message>, arg: A) => Effect.Effect<void, E>
): Effect.Effect<void, E> => {
  const current = Fiber.getCurrentFiber()
  const fiber = current._tag === "Some" ? current.value : undefined
  const clock = fiber === undefined ? liveClock : Context.get(fiber.currentDefaultServices, Clock.Clock)
  const strategy = core.strategy ?? "rolling"
  const start = clock.unsafeCurrentTimeNanos()
  const span = startSpan(fiber, clock, core, plan, strategy)
  const step = fold(core, plan, arg)
  if (!Exit.isExit(step)) return observed(core, plan, strategy, start, clock, fiber, span, step)
  end(core, plan, strategy, start, clock, fiber, span, step as Exit.Exit<void, E>)
  return step
}

/**
 * A prune without a summarizer (RollingMemory without one, WindowMemory)
 * dropped `messages` turns: counted in `rollmem_evicted_messages` with
 * `outcome: "dropped"` (docs/contract.md section 11), with the calling
 * fiber's metric labels. Not a fold: no span, no other metric.
 *
 * @internal
 */
export const observeDrop = (core: Core, messages: number): void => {
  const current = Fiber.getCurrentFiber()
  const labels = labelsOf(current._tag === "Some" ? current.value : undefined, core.strategy ?? "rolling")
  Telemetry.evictedMessages.unsafeUpdate(messages, labels.dropped)
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
  Effect.withFiberRuntime<A, E>((fiber) => {
    const caller = fiber.currentSpan
    const root = Effect.mapInputContext(effect, withoutParent)
    return caller === undefined ? root : Effect.linkSpans(root, caller, { "rollmem.link": "started by" })
  })
