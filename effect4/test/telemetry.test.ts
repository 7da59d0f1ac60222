/**
 * Telemetry on the Effect 4 line (docs/contract.md section 11): one
 * `rollmem.fold` span per fold, a child of the add's span, with its
 * attributes; the metrics a fold and a drop update; nothing for an add that
 * neither folds nor drops.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Metric, Scope, Tracer } from "effect"
import { Message, RollingMemory, Summarizer, SummarizerError, Telemetry, WindowMemory } from "../src/index.js"

/** A tracer keeping every span it makes (Effect's own spans, so they hold their attributes). */
const recordingTracer = () => {
  const spans: Array<Tracer.NativeSpan> = []
  const tracer = Tracer.make({
    span(options) {
      const span = Tracer.nativeTracer.span(options) as Tracer.NativeSpan
      spans.push(span)
      return span
    }
  })
  return { spans, tracer }
}

const joined = Summarizer.fromFunction((summary, messages) => [summary, ...messages.map((m) => m.content)].join("|"))
const failing = Summarizer.fromFunction(() => {
  throw new Error("model down")
})

const count = (metric: Metric.Counter<number>, attributes: Record<string, string>) =>
  Effect.map(Metric.value(Metric.withAttributes(metric, attributes)), (state) => state.count)

const histogramCount = (metric: Metric.Histogram<number>, attributes: Record<string, string>) =>
  Effect.map(Metric.value(Metric.withAttributes(metric, attributes)), (state) => state.count)

const withRegistry = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.provideService(effect, Metric.MetricRegistry, new Map())

describe("telemetry (contract 11)", () => {
  it.effect("a fold opens one span under the add's, with its attributes, and updates the metrics", () =>
    withRegistry(
      Effect.gen(function*() {
        const { spans, tracer } = recordingTracer()
        // a summary budget: each fold counts its summary, so the span and the histogram record it
        const memory = yield* RollingMemory.make({ maxTokens: 4, maxSummaryTokens: 100 })
        yield* memory.add(Message.user("a b"))
        yield* memory.add(Message.assistant("c d"))
        assert.strictEqual(spans.length, 0)
        yield* memory.add(Message.user("e f")).pipe(Effect.withSpan("chat.turn"), Effect.withTracer(tracer))
        const names = spans.map((s) => s.name)
        assert.deepStrictEqual(names, ["chat.turn", Telemetry.FOLD_SPAN])
        const fold = spans[1]
        assert.strictEqual(fold.parent._tag === "Some" && fold.parent.value.spanId, spans[0].spanId)
        assert.deepStrictEqual(Object.fromEntries(fold.attributes), {
          "rollmem.strategy": "rolling",
          "rollmem.evicted_messages": 2,
          "rollmem.evicted_tokens": 4,
          "rollmem.buffer_tokens_before": 6,
          "rollmem.outcome": "committed",
          "rollmem.buffer_tokens_after": 2,
          "rollmem.summary_tokens": 3
        })
        assert.strictEqual(fold.status._tag, "Ended")
        const committed = { strategy: "rolling", outcome: "committed" }
        assert.strictEqual(yield* count(Telemetry.folds, committed), 1)
        assert.strictEqual(yield* count(Telemetry.evictedMessages, committed), 2)
        assert.strictEqual(yield* histogramCount(Telemetry.bufferTokens, committed), 1)
        assert.strictEqual(yield* histogramCount(Telemetry.summaryTokens, committed), 1)
        assert.strictEqual(
          yield* histogramCount(Telemetry.foldDuration, { ...committed, time_unit: "milliseconds" }),
          1
        )
      }).pipe(Effect.provideService(Summarizer.Summarizer, joined))
    ))

  it.effect("without a summary budget a fold's summary is not counted: no rollmem.summary_tokens, no histogram update", () =>
    withRegistry(
      Effect.gen(function*() {
        const { spans, tracer } = recordingTracer()
        const memory = yield* RollingMemory.make({ maxTokens: 4 })
        yield* memory.add(Message.user("a b"))
        yield* memory.add(Message.assistant("c d"))
        yield* memory.add(Message.user("e f")).pipe(Effect.withSpan("chat.turn"), Effect.withTracer(tracer))
        assert.deepStrictEqual(spans.map((s) => s.name), ["chat.turn", Telemetry.FOLD_SPAN])
        assert.deepStrictEqual(Object.fromEntries(spans[1].attributes), {
          "rollmem.strategy": "rolling",
          "rollmem.evicted_messages": 2,
          "rollmem.evicted_tokens": 4,
          "rollmem.buffer_tokens_before": 6,
          "rollmem.outcome": "committed",
          "rollmem.buffer_tokens_after": 2
        })
        const committed = { strategy: "rolling", outcome: "committed" }
        assert.strictEqual(yield* count(Telemetry.folds, committed), 1)
        assert.strictEqual(yield* histogramCount(Telemetry.bufferTokens, committed), 1)
        // a read counts the summary (docs/contract.md section 10.4); the fold's metrics stay as they ended
        assert.strictEqual(yield* memory.summaryTokens, 3)
        assert.strictEqual(yield* histogramCount(Telemetry.summaryTokens, committed), 0)
      }).pipe(Effect.provideService(Summarizer.Summarizer, joined))
    ))

  it.effect("a background fold is a root span linked to the add that started it; the summarizer's span nests in it", () =>
    withRegistry(
      Effect.gen(function*() {
        const { spans, tracer } = recordingTracer()
        const summarizer = Summarizer.fromEffect((summary: string, messages: ReadonlyArray<Message.Message>) =>
          Effect.withSpan(Effect.succeed([summary, ...messages.map((m) => m.content)].join("|")), "summarize")
        )
        const scope = yield* Scope.make()
        const memory = yield* RollingMemory.makeScoped({ maxTokens: 4, fold: "background" }).pipe(
          Effect.provideService(Summarizer.Summarizer, summarizer),
          Scope.provide(scope)
        )
        yield* Effect.forEach([Message.user("a b"), Message.assistant("c d"), Message.user("e f")], memory.add, {
          discard: true
        }).pipe(Effect.withSpan("turn"), Effect.withTracer(tracer))
        // until the fold has committed, then close the memory's scope
        for (let i = 0; i < 20 && (yield* memory.summary) === ""; i++) yield* Effect.yieldNow
        yield* Scope.close(scope, Exit.void)
        assert.strictEqual(yield* memory.summary, "|a b|c d")
        assert.deepStrictEqual(spans.map((s) => s.name), ["turn", Telemetry.FOLD_SPAN, "summarize"])
        const [turn, fold, summarize] = spans
        assert.strictEqual(fold.parent._tag, "None")
        assert.notStrictEqual(fold.traceId, turn.traceId)
        assert.deepStrictEqual(fold.links.map((l) => [l.span.spanId, l.attributes]), [
          [turn.spanId, { "rollmem.link": "started by" }]
        ])
        assert.strictEqual(summarize.parent._tag === "Some" && summarize.parent.value.spanId, fold.spanId)
        assert.strictEqual(fold.attributes.get("rollmem.outcome"), "committed")
      })
    ))

  it.effect("an add that neither folds nor drops records nothing; with Effect's own tracer a fold opens no span", () =>
    withRegistry(
      Effect.gen(function*() {
        const { spans, tracer } = recordingTracer()
        const memory = yield* RollingMemory.make({ maxTokens: 4 })
        yield* memory.add(Message.user("a b")).pipe(Effect.withTracer(tracer))
        assert.deepStrictEqual(spans, [])
        assert.deepStrictEqual(yield* Metric.snapshot, [])
        yield* memory.add(Message.assistant("c d e"))
        assert.strictEqual(yield* count(Telemetry.folds, { strategy: "rolling", outcome: "committed" }), 1)
        assert.deepStrictEqual(spans, [])
      }).pipe(Effect.provideService(Summarizer.Summarizer, joined))
    ))

  it.effect("a failed fold: outcome failed, its error's tag, an error span; the fiber's metric attributes kept", () =>
    withRegistry(
      Effect.gen(function*() {
        const { spans, tracer } = recordingTracer()
        const memory = yield* RollingMemory.make({ maxTokens: 2 })
        yield* memory.add(Message.user("a b"))
        const error = yield* memory.add(Message.assistant("c d")).pipe(
          Effect.withTracer(tracer),
          Effect.flip,
          Effect.provideService(Metric.CurrentMetricAttributes, { tenant: "t1" })
        )
        assert.instanceOf(error, SummarizerError)
        const fold = spans.find((s) => s.name === Telemetry.FOLD_SPAN)!
        assert.strictEqual(fold.attributes.get("rollmem.outcome"), "failed")
        assert.strictEqual(fold.attributes.get("rollmem.error"), "SummarizerError")
        assert.strictEqual(fold.status._tag === "Ended" && fold.status.exit._tag, "Failure")
        const failed = { strategy: "rolling", outcome: "failed", tenant: "t1" }
        assert.strictEqual(yield* count(Telemetry.folds, failed), 1)
        assert.strictEqual(
          yield* count(Telemetry.summarizerFailures, { strategy: "rolling", error: "SummarizerError", tenant: "t1" }),
          1
        )
        assert.strictEqual(yield* count(Telemetry.folds, { strategy: "rolling", outcome: "failed" }), 0)
      }).pipe(Effect.provideService(Summarizer.Summarizer, failing))
    ))

  it.effect("a window's eviction is a drop: counted as dropped, no fold, no span", () =>
    withRegistry(Effect.gen(function*() {
      const { spans, tracer } = recordingTracer()
      const memory = yield* WindowMemory.make({ maxMessages: 2 })
      for (const content of ["a", "b", "c", "d"]) {
        yield* memory.add(Message.user(content)).pipe(Effect.withTracer(tracer))
      }
      assert.deepStrictEqual(spans, [])
      assert.strictEqual(yield* count(Telemetry.evictedMessages, { strategy: "window", outcome: "dropped" }), 2)
      assert.strictEqual(yield* count(Telemetry.folds, { strategy: "window", outcome: "committed" }), 0)
    })))
})
