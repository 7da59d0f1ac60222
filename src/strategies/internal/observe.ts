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

interface Observation {
  readonly core: Core
  readonly strategy: string
  readonly planId: number
  readonly messages: number
  readonly start: bigint
  readonly clock: Clock.Clock
  readonly fiber: AnyFiber | undefined
  readonly span: Tracer.Span | undefined
}

// Label arrays are cached by value: Effect's metrics cache their hooks by the
// array's identity, so a fold does no registry lookup once its labels were seen.
const labelCache = new Map<string, ReadonlyArray<MetricLabel.MetricLabel>>()

const labels = (key: string, make: () => ReadonlyArray<MetricLabel.MetricLabel>) => {
  let cached = labelCache.get(key)
  if (cached === undefined) {
    cached = make()
    labelCache.set(key, cached)
  }
  return cached
}

const outcomeLabels = (strategy: string, outcome: string) =>
  labels(
    `o\u0000${strategy}\u0000${outcome}`,
    () => [MetricLabel.make("strategy", strategy), MetricLabel.make("outcome", outcome)]
  )

const durationLabels = (strategy: string, outcome: string) =>
  labels(`d\u0000${strategy}\u0000${outcome}`, () => [
    MetricLabel.make("strategy", strategy),
    MetricLabel.make("outcome", outcome),
    MetricLabel.make("time_unit", "milliseconds")
  ])

const failureLabels = (strategy: string, error: string) =>
  labels(
    `f\u0000${strategy}\u0000${error}`,
    () => [MetricLabel.make("strategy", strategy), MetricLabel.make("error", error)]
  )

const withFiberLabels = (
  fiber: AnyFiber | undefined,
  own: ReadonlyArray<MetricLabel.MetricLabel>
): ReadonlyArray<MetricLabel.MetricLabel> => {
  if (fiber === undefined) return own
  const extra = fiber.getFiberRef(FiberRef.currentMetricLabels)
  return extra.length === 0 ? own : [...extra, ...own]
}

const withoutDisabled = (span: Option.Option<Tracer.AnySpan>): Option.Option<Tracer.AnySpan> => {
  while (span._tag === "Some" && Context.get(span.value.context, Tracer.DisablePropagation)) {
    span = span.value._tag === "Span" ? span.value.parent : Option.none()
  }
  return span
}

/** The fold's span, as `Effect.withSpan` would open it in `fiber`; `undefined` when none is to be recorded. */
const startSpan = (fiber: AnyFiber, clock: Clock.Clock): Tracer.Span | undefined => {
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
  return span
}

const begin = (
  core: Core,
  plan: Plan<Message.Message>,
  clock: Clock.Clock,
  fiber: AnyFiber | undefined
): Observation => {
  const start = clock.unsafeCurrentTimeNanos()
  const strategy = core.strategy ?? "rolling"
  const span = fiber === undefined ? undefined : startSpan(fiber, clock)
  if (span !== undefined) {
    span.attribute("rollmem.strategy", strategy)
    span.attribute("rollmem.evicted_messages", plan.messages.length)
    span.attribute("rollmem.evicted_tokens", plannedTokens(plan))
    span.attribute("rollmem.buffer_tokens_before", core.index.tokens)
  }
  return { core, strategy, planId: plan.id, messages: plan.messages.length, start, clock, fiber, span }
}

const errorTag = (cause: Cause.Cause<unknown>): string => {
  const failure = Cause.failureOption(cause)
  if (failure._tag === "None") return "defect"
  const error = failure.value
  return typeof error === "object" && error !== null && typeof (error as { _tag?: unknown })._tag === "string"
    ? (error as { readonly _tag: string })._tag
    : "unknown"
}

const end = (observation: Observation, exit: Exit.Exit<unknown, unknown>): void => {
  const { core, fiber, span, strategy } = observation
  const now = observation.clock.unsafeCurrentTimeNanos()
  let outcome: Telemetry.FoldOutcome
  let error: string | undefined
  if (Exit.isSuccess(exit)) {
    outcome = core.index.lastCommitted === observation.planId ? "committed" : "discarded"
  } else if (Cause.isInterruptedOnly(exit.cause)) {
    outcome = "interrupted"
  } else {
    outcome = "failed"
    error = errorTag(exit.cause)
  }
  const after = core.index.tokens
  const labels = withFiberLabels(fiber, outcomeLabels(strategy, outcome))
  Telemetry.folds.unsafeUpdate(1, labels)
  Telemetry.evictedMessages.unsafeUpdate(observation.messages, labels)
  Telemetry.bufferTokens.unsafeUpdate(after, labels)
  Telemetry.summaryTokens.unsafeUpdate(core.summaryTokens, labels)
  Telemetry.foldDuration.unsafeUpdate(
    Number(now - observation.start) / 1e6,
    withFiberLabels(fiber, durationLabels(strategy, outcome))
  )
  if (error !== undefined) {
    Telemetry.summarizerFailures.unsafeUpdate(1, withFiberLabels(fiber, failureLabels(strategy, error)))
  }
  if (span !== undefined) {
    span.attribute("rollmem.outcome", outcome)
    span.attribute("rollmem.buffer_tokens_after", after)
    span.attribute("rollmem.summary_tokens", core.summaryTokens)
    if (error !== undefined) span.attribute("rollmem.error", error)
    span.end(fiber!.getFiberRef(FiberRef.currentTracerTimingEnabled) ? now : BigInt(0), exit)
  }
}

/** Runs `effect` with `span` (if any) as its parent span, then ends the observation with its exit. */
const observed = <E>(observation: Observation, effect: Effect.Effect<void, E>): Effect.Effect<void, E> =>
  Effect.onExit(
    observation.span === undefined ? effect : Effect.withParentSpan(effect, observation.span),
    (exit) => Effect.sync(() => end(observation, exit))
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
  Effect.withFiberRuntime<void, E>((fiber) =>
    observed(begin(core, plan, Context.get(fiber.currentDefaultServices, Clock.Clock), fiber), fold)
  )

/**
 * `core.ts`'s `foldNow` observed: `fold` runs at once, in the caller's step
 * (the calling fiber, if any, gives the clock, the tracer and the parent
 * span); what it leaves to run (a summary count that suspends) is observed
 * to its end.
 *
 * @internal
 */
export const observeFoldNow = <E>(
  core: Core,
  plan: Plan<Message.Message>,
  fold: () => Effect.Effect<void, E>
): Effect.Effect<void, E> => {
  const current = Fiber.getCurrentFiber()
  const fiber = current._tag === "Some" ? current.value : undefined
  const clock = fiber === undefined ? liveClock : Context.get(fiber.currentDefaultServices, Clock.Clock)
  const observation = begin(core, plan, clock, fiber)
  const step = fold()
  if (!Exit.isExit(step)) return observed(observation, step)
  end(observation, step as Exit.Exit<void, E>)
  return step
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
