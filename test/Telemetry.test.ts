/**
 * A fold's span and metrics (docs/contract.md section 11), exported through
 * `@effect/opentelemetry` to an in-memory span exporter and a metric reader:
 * the exact spans and metric values of known replays (the word counter, a
 * budget of 10, four-word turns, a summarizer that keeps the first word of
 * each folded turn).
 */
import { NodeSdk } from "@effect/opentelemetry"
import { assert, describe, it } from "@effect/vitest"
import { type DataPoint, type Histogram, MetricReader } from "@opentelemetry/sdk-metrics"
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Deferred, Effect, Exit, Fiber, Metric, MetricLabel, Option, Scope, Tracer } from "effect"
import * as Facade from "../src/promise/index.js"
import * as Message from "../src/schema/Message.js"
import * as Summarizer from "../src/services/Summarizer.js"
import * as RollingMemory from "../src/strategies/RollingMemory.js"
import * as WindowMemory from "../src/strategies/WindowMemory.js"
import * as Telemetry from "../src/Telemetry.js"

class TestReader extends MetricReader {
  protected onShutdown(): Promise<void> {
    return Promise.resolve()
  }
  protected onForceFlush(): Promise<void> {
    return Promise.resolve()
  }
}

/** An OpenTelemetry SDK exporting to memory: spans as they end, metrics when read. */
const otel = () => {
  const exporter = new InMemorySpanExporter()
  const reader = new TestReader()
  const layer = NodeSdk.layer(() => ({
    resource: { serviceName: "rollmem-test" },
    spanProcessor: new SimpleSpanProcessor(exporter),
    metricReader: reader
  }))
  return { exporter, reader, layer }
}

type Point = number | { readonly count: number; readonly sum: number }

/** Every rollmem data point the reader collects, keyed `name{label=value,...}` (labels sorted). */
const collect = (reader: MetricReader): Effect.Effect<Map<string, Point>> =>
  Effect.promise(() => reader.collect()).pipe(Effect.map(({ resourceMetrics }) => {
    const points = new Map<string, Point>()
    for (const scope of resourceMetrics.scopeMetrics) {
      for (const metric of scope.metrics) {
        if (!metric.descriptor.name.startsWith("rollmem_")) continue
        for (const point of metric.dataPoints as Array<DataPoint<number | Histogram>>) {
          const labels = Object.entries(point.attributes).sort(([x], [y]) => x < y ? -1 : 1).map(([k, v]) =>
            `${k}=${String(v)}`
          )
          const value = point.value
          points.set(
            `${metric.descriptor.name}{${labels.join(",")}}`,
            typeof value === "number"
              ? value
              : { count: value.count, sum: value.sum ?? 0 }
          )
        }
      }
    }
    return points
  }))

/** What changed between two collections (counters, and the count and sum of histograms). */
const delta = (before: Map<string, Point>, after: Map<string, Point>): Record<string, Point> => {
  const out: Record<string, Point> = {}
  for (const [key, value] of after) {
    const old = before.get(key)
    if (typeof value === "number") {
      const d = value - (typeof old === "number" ? old : 0)
      if (d !== 0) out[key] = d
    } else {
      const o = old === undefined || typeof old === "number" ? { count: 0, sum: 0 } : old
      if (o.count !== value.count) out[key] = { count: value.count - o.count, sum: value.sum - o.sum }
    }
  }
  return out
}

const firstWords = (summary: string, messages: ReadonlyArray<Message.Message>): string =>
  [summary, ...messages.map((m) => m.content.split(" ")[0])].filter((s) => s !== "").join(" ")

const turns = (...names: Array<string>): Array<Message.Message> =>
  names.map((name) => name.startsWith("u") ? Message.user(`${name} w w w`) : Message.assistant(`${name} w w w`))

const spanAttributes = (span: ReadableSpan) => ({ ...span.attributes })

const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId

const foldAttributes = (
  outcome: string,
  before: number,
  after: number,
  // undefined: the summary was not counted (no budget needs its count, docs/contract.md section 11)
  summary: number | undefined,
  extra: Record<string, unknown> = {}
) => ({
  "rollmem.strategy": "rolling",
  "rollmem.evicted_messages": 2,
  "rollmem.evicted_tokens": 8,
  "rollmem.buffer_tokens_before": before,
  "rollmem.outcome": outcome,
  "rollmem.buffer_tokens_after": after,
  ...(summary === undefined ? {} : { "rollmem.summary_tokens": summary }),
  ...extra
})

const labelled = <T, I, O>(metric: Metric.Metric<T, I, O>, labels: Record<string, string>) =>
  Metric.taggedWithLabels(metric, Object.entries(labels).map(([k, v]) => MetricLabel.make(k, v)))

const foldCount = (strategy: string, outcome: string) =>
  Metric.value(labelled(Telemetry.folds, { strategy, outcome })).pipe(Effect.map((state) => state.count))

describe("Telemetry", () => {
  it.effect("a replay with a synchronous summarizer: one span per fold under the caller's span, exact metrics", () => {
    const { exporter, layer, reader } = otel()
    return Effect.gen(function*() {
      const before = yield* collect(reader)
      // a summary budget: each fold counts its summary, so the span and the histogram record it
      const memory = yield* RollingMemory.make({ maxTokens: 10, maxSummaryTokens: 100 })
      yield* Effect.forEach(turns("u1", "a1", "u2", "a2", "u3", "a3"), (m) => memory.add(m), { discard: true }).pipe(
        Effect.withSpan("replay")
      )
      assert.deepStrictEqual(yield* memory.summary, "u1 a1 u2 a2")
      assert.deepStrictEqual(yield* memory.bufferTokens, 8)
      const spans = exporter.getFinishedSpans()
      assert.deepStrictEqual(spans.map((s) => s.name), ["rollmem.fold", "rollmem.fold", "replay"])
      const replay = spans[2]
      assert.deepStrictEqual(spans.slice(0, 2).map(parentOf), [
        replay.spanContext().spanId,
        replay.spanContext().spanId
      ])
      assert.deepStrictEqual(spans.slice(0, 2).map(spanAttributes), [
        foldAttributes("committed", 12, 4, 2),
        foldAttributes("committed", 12, 4, 4)
      ])
      assert.deepStrictEqual(delta(before, yield* collect(reader)), {
        "rollmem_folds{outcome=committed,strategy=rolling}": 2,
        "rollmem_evicted_messages{outcome=committed,strategy=rolling}": 4,
        "rollmem_buffer_tokens{outcome=committed,strategy=rolling}": { count: 2, sum: 8 },
        "rollmem_summary_tokens{outcome=committed,strategy=rolling}": { count: 2, sum: 6 },
        // TestClock: no time passes
        "rollmem_fold_duration{outcome=committed,strategy=rolling,time_unit=milliseconds}": { count: 2, sum: 0 }
      })
    }).pipe(Effect.provide(Summarizer.layerFunction(firstWords)), Effect.provide(layer))
  })

  it.effect("without a summary budget a fold's summary is not counted: no rollmem_summary_tokens, no span attribute", () => {
    const { exporter, layer, reader } = otel()
    return Effect.gen(function*() {
      const before = yield* collect(reader)
      const memory = yield* RollingMemory.make({ maxTokens: 10 })
      yield* Effect.forEach(turns("u1", "a1", "u2", "a2", "u3", "a3"), (m) => memory.add(m), { discard: true }).pipe(
        Effect.withSpan("replay")
      )
      const spans = exporter.getFinishedSpans()
      assert.deepStrictEqual(spans.map((s) => s.name), ["rollmem.fold", "rollmem.fold", "replay"])
      assert.deepStrictEqual(spans.slice(0, 2).map(spanAttributes), [
        foldAttributes("committed", 12, 4, undefined),
        foldAttributes("committed", 12, 4, undefined)
      ])
      // a read counts the summary (docs/contract.md section 10.4); the folds' metrics stay as they ended
      assert.strictEqual(yield* memory.summaryTokens, 4)
      assert.deepStrictEqual(delta(before, yield* collect(reader)), {
        "rollmem_folds{outcome=committed,strategy=rolling}": 2,
        "rollmem_evicted_messages{outcome=committed,strategy=rolling}": 4,
        "rollmem_buffer_tokens{outcome=committed,strategy=rolling}": { count: 2, sum: 8 },
        "rollmem_fold_duration{outcome=committed,strategy=rolling,time_unit=milliseconds}": { count: 2, sum: 0 }
      })
    }).pipe(Effect.provide(Summarizer.layerFunction(firstWords)), Effect.provide(layer))
  })

  it.effect("an effect summarizer's spans nest in the fold's; a failed fold is an error span and a failure", () => {
    const { exporter, layer, reader } = otel()
    const summarizer = Summarizer.layerEffect((summary, messages) =>
      (messages.some((m) => m.content.startsWith("boom")) ? Effect.fail("model down") : Effect.succeed(
        firstWords(summary, messages)
      )).pipe(Effect.withSpan("summarize"))
    )
    return Effect.gen(function*() {
      const before = yield* collect(reader)
      const memory = yield* RollingMemory.make({ maxTokens: 10, maxSummaryTokens: 100 })
      const error = yield* Effect.forEach(turns("u1", "a1", "u2", "boom", "u3"), (m) => memory.add(m), {
        discard: true
      }).pipe(Effect.withSpan("replay"), Effect.flip)
      assert.deepStrictEqual(error._tag, "SummarizerError")
      // the failed fold's turns stay (docs/contract.md section 5)
      assert.deepStrictEqual(yield* memory.bufferTokens, 12)
      const spans = exporter.getFinishedSpans()
      assert.deepStrictEqual(spans.map((s) => s.name), [
        "summarize",
        "rollmem.fold",
        "summarize",
        "rollmem.fold",
        "replay"
      ])
      const [summarize1, fold1, summarize2, fold2, replay] = spans
      assert.deepStrictEqual(parentOf(summarize1), fold1.spanContext().spanId)
      assert.deepStrictEqual(parentOf(summarize2), fold2.spanContext().spanId)
      assert.deepStrictEqual(parentOf(fold1), replay.spanContext().spanId)
      assert.deepStrictEqual(parentOf(fold2), replay.spanContext().spanId)
      assert.deepStrictEqual(spanAttributes(fold1), foldAttributes("committed", 12, 4, 2))
      assert.deepStrictEqual(
        spanAttributes(fold2),
        foldAttributes("failed", 12, 12, 2, { "rollmem.error": "SummarizerError" })
      )
      // OpenTelemetry's SpanStatusCode: 0 unset, 1 ok, 2 error
      assert.deepStrictEqual([fold1.status.code, fold2.status.code], [1, 2])
      assert.deepStrictEqual(delta(before, yield* collect(reader)), {
        "rollmem_folds{outcome=committed,strategy=rolling}": 1,
        "rollmem_folds{outcome=failed,strategy=rolling}": 1,
        "rollmem_evicted_messages{outcome=committed,strategy=rolling}": 2,
        "rollmem_evicted_messages{outcome=failed,strategy=rolling}": 2,
        "rollmem_summarizer_failures{error=SummarizerError,strategy=rolling}": 1,
        "rollmem_buffer_tokens{outcome=committed,strategy=rolling}": { count: 1, sum: 4 },
        "rollmem_buffer_tokens{outcome=failed,strategy=rolling}": { count: 1, sum: 12 },
        "rollmem_summary_tokens{outcome=committed,strategy=rolling}": { count: 1, sum: 2 },
        "rollmem_summary_tokens{outcome=failed,strategy=rolling}": { count: 1, sum: 2 },
        "rollmem_fold_duration{outcome=committed,strategy=rolling,time_unit=milliseconds}": { count: 1, sum: 0 },
        "rollmem_fold_duration{outcome=failed,strategy=rolling,time_unit=milliseconds}": { count: 1, sum: 0 }
      })
    }).pipe(Effect.provide(summarizer), Effect.provide(layer))
  })

  it.effect("a fold discarded by clear and an interrupted fold: their outcomes, in spans and metrics", () => {
    const { exporter, layer } = otel()
    return Effect.gen(function*() {
      const discardedBefore = yield* foldCount("rolling", "discarded")
      const interruptedBefore = yield* foldCount("rolling", "interrupted")
      const started = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      const summarizer = Summarizer.fromEffect((summary, messages) =>
        Effect.zipRight(
          Effect.zipRight(Deferred.succeed(started, undefined), Deferred.await(gate)),
          Effect.succeed(firstWords(summary, messages))
        )
      )
      const memory = yield* RollingMemory.make({ maxTokens: 10 }).pipe(
        Effect.provideService(Summarizer.Summarizer, summarizer)
      )
      yield* Effect.forEach(turns("u1", "a1"), (m) => memory.add(m), { discard: true })
      const discarded = yield* Effect.fork(memory.add(turns("u2")[0]))
      yield* Deferred.await(started)
      yield* memory.clear
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(discarded)
      assert.deepStrictEqual(yield* memory.summary, "")
      // again, interrupted this time
      const started2 = yield* Deferred.make<void>()
      const memory2 = yield* RollingMemory.make({ maxTokens: 10 }).pipe(
        Effect.provideService(
          Summarizer.Summarizer,
          Summarizer.fromEffect(() => Effect.zipRight(Deferred.succeed(started2, undefined), Effect.never))
        )
      )
      yield* Effect.forEach(turns("u1", "a1"), (m) => memory2.add(m), { discard: true })
      const interrupted = yield* Effect.fork(memory2.add(turns("u2")[0]))
      yield* Deferred.await(started2)
      yield* Fiber.interrupt(interrupted)
      assert.deepStrictEqual(yield* memory2.bufferTokens, 12)
      const folds = exporter.getFinishedSpans().filter((s) => s.name === "rollmem.fold")
      assert.deepStrictEqual(folds.map(spanAttributes), [
        foldAttributes("discarded", 12, 0, 0),
        // the last two: how @effect/opentelemetry marks any interrupted span
        foldAttributes("interrupted", 12, 12, 0, { "span.label": "⚠︎ Interrupted", "status.interrupted": true })
      ])
      assert.deepStrictEqual(
        [
          (yield* foldCount("rolling", "discarded")) - discardedBefore,
          (yield* foldCount("rolling", "interrupted")) - interruptedBefore
        ],
        [1, 1]
      )
    }).pipe(Effect.provide(layer))
  })

  it.effect("a background fold is a root span linked to the add that started it; the summarizer's span nests in it", () => {
    const { exporter, layer } = otel()
    return Effect.gen(function*() {
      const folded = yield* Deferred.make<void>()
      const summarizer = Summarizer.fromEffect((summary, messages) =>
        Effect.succeed(firstWords(summary, messages)).pipe(
          Effect.withSpan("summarize"),
          Effect.zipLeft(Deferred.succeed(folded, undefined))
        )
      )
      const scope = yield* Scope.make()
      const memory = yield* RollingMemory.makeScoped({ maxTokens: 10, fold: "background" }).pipe(
        Effect.provideService(Summarizer.Summarizer, summarizer),
        Scope.extend(scope)
      )
      yield* Effect.forEach(turns("u1", "a1", "u2"), (m) => memory.add(m), { discard: true }).pipe(
        Effect.withSpan("turn")
      )
      yield* Deferred.await(folded)
      // until the fold has committed, then close the memory's scope
      yield* Effect.zipRight(Effect.yieldNow(), memory.summary).pipe(Effect.repeat({ until: (s) => s !== "" }))
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(yield* memory.summary, "u1 a1")
      const spans = exporter.getFinishedSpans()
      const byName = (name: string) => spans.find((s) => s.name === name)!
      const [turn, fold, summarize] = [byName("turn"), byName("rollmem.fold"), byName("summarize")]
      assert.deepStrictEqual(spans.map((s) => s.name).sort(), ["rollmem.fold", "summarize", "turn"])
      assert.deepStrictEqual(parentOf(fold), undefined)
      assert.notStrictEqual(fold.spanContext().traceId, turn.spanContext().traceId)
      assert.deepStrictEqual(fold.links.map((l) => [l.context.spanId, { ...l.attributes }]), [
        [turn.spanContext().spanId, { "rollmem.link": "started by" }]
      ])
      assert.deepStrictEqual(parentOf(summarize), fold.spanContext().spanId)
      // no summary budget: the committed summary is not counted, so not recorded
      assert.deepStrictEqual(spanAttributes(fold), foldAttributes("committed", 12, 4, undefined))
    }).pipe(Effect.provide(layer))
  })

  it.effect("a synchronous fold's span is opened as Effect.withSpan opens one: the caller's annotations and links", () => {
    const { exporter, layer } = otel()
    return Effect.gen(function*() {
      const memory = yield* RollingMemory.make({ maxTokens: 10 })
      const linked = yield* Effect.makeSpan("linked")
      yield* Effect.forEach(turns("u1", "a1", "u2"), (m) => memory.add(m), { discard: true }).pipe(
        Effect.annotateSpans("tenant", "acme"),
        Effect.linkSpans(linked, { why: "test" }),
        Effect.withSpan("caller")
      )
      const spans = exporter.getFinishedSpans()
      assert.deepStrictEqual(spans.map((s) => s.name), ["rollmem.fold", "caller"])
      const fold = spans[0]
      assert.deepStrictEqual(parentOf(fold), spans[1].spanContext().spanId)
      assert.deepStrictEqual(spanAttributes(fold), {
        tenant: "acme",
        ...foldAttributes("committed", 12, 4, undefined)
      })
      assert.deepStrictEqual(fold.links.map((l) => [l.context.spanId, l.attributes]), [[linked.spanId, {
        why: "test"
      }]])
    }).pipe(Effect.provide(Summarizer.layerFunction(firstWords)), Effect.provide(layer))
  })

  it.effect("with Effect's built-in tracer, or tracing disabled, a fold opens no span; its metrics still count", () =>
    Effect.gen(function*() {
      const seen: Array<Option.Option<string>> = []
      const summarizer = Summarizer.fromEffect((summary, messages) =>
        Effect.map(Effect.option(Effect.currentSpan), (span) => {
          seen.push(Option.map(span, (s) => s.name))
          return firstWords(summary, messages)
        })
      )
      const committed = yield* foldCount("rolling", "committed")
      const replay = (memory: RollingMemory.RollingMemory) =>
        Effect.forEach(turns("u1", "a1", "u2"), (m) => memory.add(m), { discard: true })
      const memory = yield* RollingMemory.make({ maxTokens: 10 }).pipe(
        Effect.provideService(Summarizer.Summarizer, summarizer)
      )
      yield* replay(memory).pipe(Effect.withSpan("caller"))
      const recorded: Array<string> = []
      const recording = Tracer.make({
        span: (name, parent, _context, _links, _startTime, _kind, options) => {
          recorded.push(name)
          return Effect.runSync(Effect.makeSpan(name, { parent: Option.getOrUndefined(parent), ...options }))
        },
        context: (f) => f()
      })
      const memory2 = yield* RollingMemory.make({ maxTokens: 10 }).pipe(
        Effect.provideService(Summarizer.Summarizer, summarizer)
      )
      yield* replay(memory2).pipe(Effect.withTracerEnabled(false), Effect.withTracer(recording))
      // the summarizer saw the caller's span: no "rollmem.fold" in between
      assert.deepStrictEqual(seen, [Option.some("caller"), Option.none()])
      assert.deepStrictEqual(recorded, [])
      assert.deepStrictEqual((yield* foldCount("rolling", "committed")) - committed, 2)
    }))

  it.effect("a fold's metrics carry the caller's metric labels (Effect.tagMetrics)", () =>
    Effect.gen(function*() {
      const tenant = Metric.taggedWithLabels(Telemetry.folds, [
        MetricLabel.make("tenant", "acme"),
        MetricLabel.make("strategy", "rolling"),
        MetricLabel.make("outcome", "committed")
      ])
      const before = (yield* Metric.value(tenant)).count
      const memory = yield* RollingMemory.make({ maxTokens: 10 })
      yield* Effect.forEach(turns("u1", "a1", "u2"), (m) => memory.add(m), { discard: true }).pipe(
        Effect.tagMetrics("tenant", "acme")
      )
      assert.deepStrictEqual((yield* Metric.value(tenant)).count - before, 1)
    }).pipe(Effect.provide(Summarizer.layerFunction(firstWords))))

  it.effect("an add that does not fold opens no span and updates no metric", () => {
    const { exporter, layer, reader } = otel()
    return Effect.gen(function*() {
      const before = yield* collect(reader)
      const memory = yield* RollingMemory.make({ maxTokens: 100 })
      yield* Effect.forEach(turns("u1", "a1", "u2", "a2", "u3", "a3"), (m) => memory.add(m), { discard: true })
      assert.deepStrictEqual(exporter.getFinishedSpans(), [])
      assert.deepStrictEqual(delta(before, yield* collect(reader)), {})
    }).pipe(Effect.provide(Summarizer.layerFunction(firstWords)), Effect.provide(layer))
  })

  it.effect("the Promise facade's folds run in no fiber: counted, with their strategy, without a span", () =>
    Effect.gen(function*() {
      const rolling = yield* foldCount("rolling", "committed")
      const summary = yield* foldCount("summary", "committed")
      const memory = new Facade.RollingMemory({ maxTokens: 10, summarize: firstWords })
      for (const m of turns("u1", "a1", "u2", "a2", "u3")) memory.addMessage(m.role, m.content)
      const summaryMemory = new Facade.SummaryMemory({ summarize: firstWords })
      for (const m of turns("u1", "a1", "u2")) summaryMemory.addMessage(m.role, m.content)
      assert.deepStrictEqual(memory.summary, "u1 a1 u2 a2")
      assert.deepStrictEqual((yield* foldCount("rolling", "committed")) - rolling, 2)
      assert.deepStrictEqual((yield* foldCount("summary", "committed")) - summary, 3)
    }))

  it.effect("a prune without a summarizer counts its dropped turns (outcome dropped), opens no span, counts no fold", () => {
    const { exporter, layer, reader } = otel()
    return Effect.gen(function*() {
      const before = yield* collect(reader)
      const window = yield* WindowMemory.make({ maxMessages: 2 })
      yield* Effect.forEach(turns("u1", "a1", "u2", "a2", "u3"), (m) => window.add(m), { discard: true }).pipe(
        Effect.withSpan("caller")
      )
      // the Promise facade's RollingMemory dropping (summarize: "drop"): 4 words a turn, a budget of 10
      const rolling = new Facade.RollingMemory({ maxTokens: 10, summarize: "drop" })
      for (const m of turns("u1", "a1", "u2", "a2", "u3")) rolling.addMessage(m.role, m.content)
      assert.deepStrictEqual((yield* window.buffer).map((m) => m.content), ["u3 w w w"])
      assert.deepStrictEqual(rolling.getMessages().map((m) => m.content), ["u3 w w w"])
      assert.deepStrictEqual(delta(before, yield* collect(reader)), {
        "rollmem_evicted_messages{outcome=dropped,strategy=window}": 4,
        "rollmem_evicted_messages{outcome=dropped,strategy=rolling}": 4
      })
      assert.deepStrictEqual(exporter.getFinishedSpans().map((span) => span.name), ["caller"])
    }).pipe(Effect.provide(layer))
  })
})
