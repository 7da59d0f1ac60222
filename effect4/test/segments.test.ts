/**
 * Summary segments on the Effect 4 line, `summary: "segments"`
 * (docs/contract.md section 10.9), the Effect 3 line's cases with its exact
 * values: each fold appends one segment written by a summarizer that
 * honours `request.mode`; earlier segments are never rewritten but by a
 * consolidation (one call, when the segments pass `maxSummaryTokens`); a
 * failure or interruption commits nothing; the segments read back as
 * consecutive system messages after the pinned ones (one user message with
 * `summaryRole: "user"`) and travel in the state's version 3 `segments`.
 * Every decision is `src/core/segments.ts`'s, as on the Effect 3 line.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Result } from "effect"
import {
  Archive,
  ConfigError,
  MemoryState,
  Message,
  Options,
  RollingMemory,
  Summarizer,
  SummarizerError,
  SummaryBudgetError,
  SummaryMemory
} from "../src/index.js"
import * as Promise from "../src/promise/index.js"

/** mulberry32: a small seeded generator (the property below runs seeded sequences). */
const random = (seed: number) => {
  let a = seed >>> 0
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1))
  return { next, int }
}

interface Call {
  readonly summary: string
  readonly messages: ReadonlyArray<string>
  readonly mode: Summarizer.Request["mode"]
  readonly segments: ReadonlyArray<string> | undefined
  readonly budget: number | undefined
  /** The result, `undefined` when the call failed. */
  readonly result: string | undefined
}

/**
 * A summarizer that honours `request.mode`: a segment call answers `sN x`
 * (two words), a consolidation `cN` (one word), N the call's number; the
 * calls `fails` names fail. Synchronous (`fromFunction`) or effectful
 * (`fromEffect`).
 */
const recording = (
  kind: "sync" | "effect",
  fails: (call: number, mode: Summarizer.Request["mode"]) => boolean = () => false,
  answer: (call: number, mode: Summarizer.Request["mode"]) => string = (n, mode) =>
    mode === "consolidate" ? `c${n}` : `s${n} x`
) => {
  const calls: Array<Call> = []
  const run = (summary: string, messages: ReadonlyArray<Message.Message>, request: Summarizer.Request) => {
    const n = calls.length + 1
    const result = fails(n, request.mode) ? undefined : answer(n, request.mode)
    calls.push({
      summary,
      messages: messages.map((m) => m.content),
      mode: request.mode,
      segments: request.segments,
      budget: request.maxSummaryTokens,
      result
    })
    return result
  }
  const service = kind === "sync"
    ? Summarizer.fromFunction(Summarizer.honouringMode((summary, messages, request) => {
      const result = run(summary, messages, request)
      if (result === undefined) throw new Error("model unavailable")
      return result
    }))
    : Summarizer.honouringMode(Summarizer.fromEffect((summary, messages, request) => {
      const result = run(summary, messages, request)
      return result === undefined ? Effect.fail("model unavailable") : Effect.succeed(result)
    }))
  return { calls, layer: Layer.succeed(Summarizer.Summarizer, service) }
}

const contents = (messages: ReadonlyArray<Message.Message>) => messages.map((m) => `${m.role}: ${m.content}`)

describe("summary segments on Effect 4 (summary: \"segments\")", () => {
  for (const kind of ["sync", "effect"] as const) {
    it.effect(`the exact state after each fold, through a consolidation (${kind})`, () =>
      Effect.gen(function*() {
        const { calls, layer } = recording(kind)
        // word counts: 3 tokens a message; the buffer holds two
        const memory = yield* RollingMemory.make({ maxTokens: 6, summary: "segments", maxSummaryTokens: 5 }).pipe(
          Effect.provide(layer)
        )
        yield* memory.add(Message.user("m1 b c"))
        yield* memory.add(Message.user("m2 b c"))
        assert.strictEqual(calls.length, 0)

        yield* memory.add(Message.user("m3 b c"))
        assert.deepStrictEqual(calls, [
          { summary: "", messages: ["m1 b c"], mode: "segment", segments: [], budget: 5, result: "s1 x" }
        ])
        assert.deepStrictEqual(MemoryState.toJSON(yield* memory.state), {
          version: 3,
          summary: "s1 x",
          buffer: [{ role: "user", content: "m2 b c" }, { role: "user", content: "m3 b c" }],
          segments: ["s1 x"]
        })
        assert.strictEqual(yield* memory.summaryTokens, 2)
        const first = (yield* memory.messages)[0]

        yield* memory.add(Message.user("m4 b c"))
        // the room left is 3, half the budget is 3
        assert.deepStrictEqual(calls[1], {
          summary: "s1 x",
          messages: ["m2 b c"],
          mode: "segment",
          segments: ["s1 x"],
          budget: 3,
          result: "s2 x"
        })
        assert.strictEqual(yield* memory.summary, "s1 x\n\ns2 x")
        assert.strictEqual(yield* memory.summaryTokens, 4)
        const messages = yield* memory.messages
        assert.deepStrictEqual(contents(messages), [
          "system: s1 x",
          "system: s2 x",
          "user: m3 b c",
          "user: m4 b c"
        ])
        // the earlier segment is the same message, untouched
        assert.strictEqual(messages[0], first)
        assert.strictEqual(yield* memory.contextTokens, 10)

        // a third segment passes 5 tokens: one consolidation replaces the three, asked for half the budget
        yield* memory.add(Message.user("m5 b c"))
        assert.deepStrictEqual(calls.slice(2), [
          {
            summary: "s1 x\n\ns2 x",
            messages: ["m3 b c"],
            mode: "segment",
            segments: ["s1 x", "s2 x"],
            budget: 3,
            result: "s3 x"
          },
          {
            summary: "s1 x\n\ns2 x\n\ns3 x",
            messages: [],
            mode: "consolidate",
            segments: ["s1 x", "s2 x", "s3 x"],
            budget: 3,
            result: "c4"
          }
        ])
        assert.deepStrictEqual(MemoryState.toJSON(yield* memory.state), {
          version: 3,
          summary: "c4",
          buffer: [{ role: "user", content: "m4 b c" }, { role: "user", content: "m5 b c" }],
          segments: ["c4"]
        })
        assert.strictEqual(yield* memory.summaryTokens, 1)

        // appending goes on after the consolidation
        yield* memory.add(Message.user("m6 b c"))
        assert.deepStrictEqual(calls[4].segments, ["c4"])
        assert.deepStrictEqual((yield* memory.state).segments, ["c4", "s5 x"])

        // clear: no segment, a version 2 state again
        yield* memory.clear
        assert.deepStrictEqual(MemoryState.toJSON(yield* memory.state), { version: 2, summary: "", buffer: [] })
        assert.strictEqual(yield* memory.summaryTokens, 0)
      }))

    it.effect(`a consolidation that fails, or is over the budget, commits nothing (${kind})`, () =>
      Effect.gen(function*() {
        for (const failure of ["fails", "over"] as const) {
          const { calls, layer } = recording(
            kind,
            (_, mode) => failure === "fails" && mode === "consolidate",
            (n, mode) => mode === "consolidate" ? "c one two three four five six" : `s${n} x`
          )
          const memory = yield* RollingMemory.make({ maxTokens: 6, summary: "segments", maxSummaryTokens: 5 }).pipe(
            Effect.provide(layer)
          )
          for (let i = 1; i <= 4; i++) yield* memory.add(Message.user(`m${i} b c`))
          const before = yield* memory.state
          const exit = yield* Effect.exit(memory.add(Message.user("m5 b c")))
          assert.strictEqual(calls.length, 4)
          assert.strictEqual(calls[3].mode, "consolidate")
          const error = yield* Effect.flip(Effect.suspend(() => exit))
          if (failure === "fails") assert.instanceOf(error, SummarizerError)
          else assert.deepStrictEqual(error, new SummaryBudgetError({ tokens: 7, maxSummaryTokens: 5 }))
          // nothing committed: the segments as before, the new turn appended
          const after = yield* memory.state
          assert.deepStrictEqual(after.segments, before.segments)
          assert.deepStrictEqual(after.segments, ["s1 x", "s2 x"])
          assert.deepStrictEqual(after.buffer.map((m) => m.content), ["m3 b c", "m4 b c", "m5 b c"])
          assert.strictEqual(yield* memory.summaryTokens, 4)
        }
      }))

    it.effect(`chunks: one segment per chunk, a failing chunk commits the segments before it (${kind})`, () =>
      Effect.gen(function*() {
        const { calls, layer } = recording(kind, (n) => n === 3)
        const memory = yield* RollingMemory.make({
          maxTokens: 20,
          targetTokens: 3,
          maxSummarizerInputTokens: 6,
          summary: "segments"
        }).pipe(Effect.provide(layer))
        for (let i = 1; i <= 7; i++) yield* Effect.exit(memory.add(Message.user(`m${i} b c`)))
        assert.deepStrictEqual(calls.map((c) => [c.segments, c.messages, c.result]), [
          [[], ["m1 b c", "m2 b c"], "s1 x"],
          [["s1 x"], ["m3 b c", "m4 b c"], "s2 x"],
          [["s1 x", "s2 x"], ["m5 b c", "m6 b c"], undefined]
        ])
        assert.deepStrictEqual((yield* memory.state).segments, ["s1 x", "s2 x"])
        assert.deepStrictEqual((yield* memory.buffer).map((m) => m.content), ["m5 b c", "m6 b c", "m7 b c"])
      }))
  }

  it.effect("with an archive: each fold's turns archived, a consolidation's fold too; the state keeps both", () =>
    Effect.gen(function*() {
      const archive = Archive.makeMemory()
      const { calls, layer } = recording("sync")
      const memory = yield* RollingMemory.make({
        maxTokens: 6,
        summary: "segments",
        maxSummaryTokens: 5,
        archive,
        conversationId: "c1"
      }).pipe(Effect.provide(layer))
      for (let i = 1; i <= 5; i++) yield* memory.add(Message.user(`m${i} b c`))
      assert.deepStrictEqual(calls.map((c) => c.mode), ["segment", "segment", "segment", "consolidate"])
      const all = yield* archive.messages("c1")
      assert.deepStrictEqual(all.map((a) => [a.position, a.fold, a.message.content]), [
        [0, 1, "m1 b c"],
        [1, 2, "m2 b c"],
        [2, 3, "m3 b c"]
      ])
      assert.deepStrictEqual(MemoryState.toJSON(yield* memory.state), {
        version: 3,
        summary: "c4",
        buffer: [{ role: "user", content: "m4 b c" }, { role: "user", content: "m5 b c" }],
        segments: ["c4"],
        conversationId: "c1",
        nextPosition: 5,
        positions: [3, 4]
      })
    }))

  it.effect("an interrupted consolidation commits nothing", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      let n = 0
      const service = Summarizer.honouringMode(Summarizer.fromEffect((_summary, _messages, request) => {
        n++
        return request.mode === "consolidate"
          ? Effect.andThen(Deferred.succeed(started, undefined), Effect.never)
          : Effect.succeed(`s${n} x`)
      }))
      const memory = yield* RollingMemory.make({ maxTokens: 6, summary: "segments", maxSummaryTokens: 5 }).pipe(
        Effect.provideService(Summarizer.Summarizer, service)
      )
      for (let i = 1; i <= 4; i++) yield* memory.add(Message.user(`m${i} b c`))
      const fiber = yield* Effect.forkChild(memory.add(Message.user("m5 b c")))
      yield* Deferred.await(started)
      yield* Fiber.interrupt(fiber)
      const state = yield* memory.state
      assert.deepStrictEqual(state.segments, ["s1 x", "s2 x"])
      assert.deepStrictEqual(state.buffer.map((m) => m.content), ["m3 b c", "m4 b c", "m5 b c"])
      // the next add folds again, from the same segments
      n = 10
      const next = yield* Effect.forkChild(memory.add(Message.user("m6 b c")))
      yield* Deferred.await(started)
      yield* Fiber.interrupt(next)
      assert.deepStrictEqual((yield* memory.state).segments, ["s1 x", "s2 x"])
    }))

  it.effect("an empty segment: refused for turns with content, nothing appended for turns without", () =>
    Effect.gen(function*() {
      const service = Summarizer.fromFunction(Summarizer.honouringMode(() => " "))
      const memory = yield* RollingMemory.make({ maxTokens: 2, summary: "segments" }).pipe(
        Effect.provideService(Summarizer.Summarizer, service)
      )
      yield* memory.add(Message.user("a b"))
      const error = yield* Effect.flip(memory.add(Message.user("c")))
      assert.instanceOf(error, SummarizerError)
      assert.include(error.description, "empty segment")
      assert.deepStrictEqual((yield* memory.buffer).map((m) => m.content), ["a b", "c"])
      const quiet = yield* RollingMemory.make({ maxTokens: 1, summary: "segments" }).pipe(
        Effect.provideService(Summarizer.Summarizer, service)
      )
      yield* quiet.add(Message.tool("", { toolCallId: "x" }))
      yield* quiet.add(Message.user("a"))
      assert.deepStrictEqual(MemoryState.toJSON(yield* quiet.state), {
        version: 2,
        summary: "",
        buffer: [{ role: "user", content: "a" }]
      })
    }))

  it.effect("read back: after the pinned messages; with summaryRole \"user\", one user message", () =>
    Effect.gen(function*() {
      const { layer } = recording("sync")
      const memory = yield* RollingMemory.make({ maxTokens: 6, summary: "segments", pinSystem: true }).pipe(
        Effect.provide(layer)
      )
      yield* memory.add(Message.system("be brief"))
      for (let i = 1; i <= 4; i++) yield* memory.add(Message.user(`m${i} b c`))
      assert.deepStrictEqual(contents(yield* memory.messages), [
        "system: be brief",
        "system: s1 x",
        "system: s2 x",
        "user: m3 b c",
        "user: m4 b c"
      ])
      const asUser = yield* RollingMemory.make({ maxTokens: 6, summary: "segments", summaryRole: "user" }).pipe(
        Effect.provide(recording("sync").layer)
      )
      for (let i = 1; i <= 4; i++) yield* asUser.add(Message.assistant(`m${i} b c`))
      assert.deepStrictEqual(contents(yield* asUser.messages), [
        "user: s1 x\n\ns2 x",
        "assistant: m3 b c",
        "assistant: m4 b c"
      ])
      assert.strictEqual(yield* asUser.summaryTokens, 4)
    }))

  it.effect("SummaryMemory: a segment per fold", () =>
    Effect.gen(function*() {
      const { calls, layer } = recording("effect")
      const memory = yield* SummaryMemory.make({ summary: "segments" }).pipe(Effect.provide(layer))
      yield* memory.add(Message.user("a"))
      yield* memory.add(Message.assistant("b"))
      assert.deepStrictEqual(calls.map((c) => [c.mode, c.segments, c.messages]), [
        ["segment", [], ["a"]],
        ["segment", ["s1 x"], ["b"]]
      ])
      assert.deepStrictEqual(contents(yield* memory.messages), ["system: s1 x", "system: s2 x"])
    }))

  it.effect("a summarizer that does not honour request.mode is refused; the shipped ones and drop are taken", () =>
    Effect.gen(function*() {
      const plain = Summarizer.fromFunction((summary) => summary)
      const builds: ReadonlyArray<Effect.Effect<unknown, unknown, Summarizer.Summarizer>> = [
        RollingMemory.make({ summary: "segments" }),
        SummaryMemory.make({ summary: "segments" })
      ]
      for (const build of builds) {
        const error = yield* Effect.flip(build.pipe(Effect.provideService(Summarizer.Summarizer, plain)))
        assert.instanceOf(error, ConfigError)
        if (error instanceof ConfigError) {
          assert.strictEqual(error.option, "summary")
          assert.include(error.description, "honours request.mode")
        }
      }
      // the single summary takes it
      yield* RollingMemory.make({ summary: "single" }).pipe(Effect.provideService(Summarizer.Summarizer, plain))
      // drop, and a marked service or function, in every constructor
      yield* RollingMemory.make({ summary: "segments" }).pipe(Effect.provide(Summarizer.layerDrop))
      yield* RollingMemory.make({ summary: "segments" }).pipe(
        Effect.provideService(Summarizer.Summarizer, Summarizer.honouringMode(plain))
      )
      const marked = Summarizer.honouringMode((summary: string) => summary)
      for (
        const service of [
          Summarizer.fromFunction(marked),
          Summarizer.fromEffect(Summarizer.honouringMode((summary: string) => Effect.succeed(summary))),
          Summarizer.fromPromise(Summarizer.honouringMode(async (summary: string) => summary))
        ]
      ) {
        assert.isTrue(Summarizer.honoursMode(service))
        yield* SummaryMemory.make({ summary: "segments" }).pipe(Effect.provideService(Summarizer.Summarizer, service))
      }
      const refused = yield* Effect.flip(
        RollingMemory.makeScoped({ summary: "segments", fold: "background" }).pipe(
          Effect.provideService(Summarizer.Summarizer, plain),
          Effect.scoped
        )
      )
      assert.instanceOf(refused, ConfigError)
      assert.strictEqual((refused as ConfigError).option, "summary")
      assert.isTrue(Summarizer.honoursMode(Summarizer.drop))
      assert.isFalse(Summarizer.honoursMode(plain))
    }))

  it("the facade: a summarize function marked with honouringMode, else ConfigError", () => {
    assert.throws(
      () => new Promise.RollingMemory({ maxTokens: 2, summary: "segments", summarize: (s: string) => s }),
      /honours request.mode/
    )
    const memory = new Promise.RollingMemory({
      maxTokens: 2,
      summary: "segments",
      summarize: Promise.honouringMode((_s: string, turns: ReadonlyArray<Message.Message>) =>
        turns.map((t) => t.content).join(" ")
      )
    })
    memory.addUserMessage("a b")
    memory.addUserMessage("c d")
    memory.addUserMessage("e f")
    assert.deepStrictEqual(memory.toJSON(), {
      version: 3,
      summary: "a b\n\nc d",
      buffer: [{ role: "user", content: "e f" }],
      segments: ["a b", "c d"]
    })
    const restored = Promise.RollingMemory.fromJSON(memory.toJSON(), {
      maxTokens: 2,
      summary: "segments",
      summarize: "drop"
    })
    assert.strictEqual(restored.summaryTokens, 4)
    assert.deepStrictEqual(restored.getMessages().map(String), ["system: a b", "system: c d", "user: e f"])
  })

  it.effect("restore: every wire version, in both summary modes", () =>
    Effect.gen(function*() {
      const { layer } = recording("sync")
      const buffer = [{ role: "user", content: "u" }]
      const documents = [
        { version: 1, summary: "one two", buffer },
        { version: 2, summary: "one two", buffer },
        { version: 3, summary: "one two\n\nthree", buffer, segments: ["one two", "three"] },
        { version: 3, buffer, segments: ["one two", "three"] },
        { version: 2, summary: "", buffer }
      ]
      const expected = [["one two"], ["one two"], ["one two", "three"], ["one two", "three"], undefined]
      for (let i = 0; i < documents.length; i++) {
        const state = yield* MemoryState.fromJSON(documents[i])
        const memory = yield* RollingMemory.fromState(state, { summary: "segments" }).pipe(Effect.provide(layer))
        const saved = yield* memory.state
        assert.deepStrictEqual(saved.segments, expected[i])
        assert.strictEqual(yield* memory.summary, expected[i]?.join("\n\n") ?? "")
        // each segment counted once: the sum of their word counts
        assert.strictEqual(yield* memory.summaryTokens, expected[i] === undefined ? 0 : i < 2 ? 2 : 3)
        // the single summary: the segments' join, written as version 2
        const single = yield* RollingMemory.fromState(state).pipe(Effect.provide(layer))
        assert.deepStrictEqual(MemoryState.toJSON(yield* single.state), {
          version: 2,
          summary: expected[i]?.join("\n\n") ?? "",
          buffer
        })
      }
      // a summary that is not the segments' join, and a segments field in a version 2 document, are refused
      const wrong = yield* Effect.flip(
        MemoryState.fromJSON({ version: 3, summary: "other", buffer, segments: ["one"] })
      )
      assert.include(wrong.description, "differs from the segments")
      const early = yield* Effect.flip(MemoryState.fromJSON({ version: 2, summary: "one", buffer, segments: ["one"] }))
      assert.include(early.description, "version 3 field")
    }))

  it("the option: \"single\" or \"segments\", never with ledger; its flag", () => {
    const wrong = Options.decode("rolling", { summary: "segment" })
    assert.isTrue(Result.isFailure(wrong))
    if (Result.isFailure(wrong)) {
      assert.strictEqual(wrong.failure.option, "summary")
      assert.include(wrong.failure.description, "must be \"single\" or \"segments\", got \"segment\"")
    }
    for (const strategy of ["rolling", "summary"] as const) {
      const both = Options.decode(strategy, { summary: "segments", ledger: { maxTokens: 10 } })
      assert.isTrue(Result.isFailure(both))
      if (Result.isFailure(both)) assert.strictEqual(both.failure.option, "ledger")
      assert.isTrue(Result.isSuccess(Options.decode(strategy, { summary: "single" })))
    }
    // the strategies that keep no summary of their own do not take it
    for (const strategy of ["buffer", "window"] as const) {
      const refused = Options.decode(
        strategy,
        strategy === "window" ? { maxMessages: 2, summary: "segments" } : { summary: "segments" }
      )
      assert.isTrue(Result.isFailure(refused))
      if (Result.isFailure(refused)) assert.strictEqual(refused.failure.option, "summary")
    }
    assert.deepStrictEqual(Options.keysOf.rolling.slice(8, 11), ["summaryFraming", "summary", "maxSummaryTokens"])
    assert.deepStrictEqual(Options.keysOf.summary.slice(0, 4), [
      "summaryRole",
      "summaryFraming",
      "summary",
      "maxSummaryTokens"
    ])
  })

  /**
   * No segment is rewritten but by a consolidation: after every add, the
   * segments before it are a prefix of the segments after it, or a
   * consolidation call ran and one segment is left. And the accounting
   * invariant: every turn is in the buffer or in exactly one committed
   * segment call (the calls whose result is a committed segment, or one a
   * committed consolidation replaced).
   */
  for (const kind of ["sync", "effect"] as const) {
    it.effect(`append-only between consolidations; the accounting invariant (${kind}, 200 seeded runs)`, () =>
      Effect.gen(function*() {
        const rng = random(kind === "sync" ? 20_261_202 : 20_261_203)
        for (let run = 0; run < 200; run++) {
          const length = rng.int(0, 40)
          const conversation = Array.from({ length }, (_, i) => {
            const words = Array.from({ length: rng.int(0, 4) }, (_, w) => `w${run}x${i}y${w}`).join(" ")
            return rng.next() < 0.5 ? Message.user(words) : Message.assistant(words)
          })
          const maxTokens = rng.int(1, 12)
          const target = rng.int(1, 12)
          const maxSummaryTokens = rng.next() < 0.5 ? undefined : rng.int(1, 8)
          const maxInput = rng.next() < 0.5 ? undefined : rng.int(1, 8)
          const turn = rng.next() < 0.5
          const failing = Array.from({ length: 8 }, () => rng.next() < 0.5)
          const { calls, layer } = recording(kind, (n) => failing[n % failing.length])
          const memory = yield* RollingMemory.make({
            maxTokens,
            targetTokens: Math.min(target, maxTokens),
            boundary: turn ? "turn" : "aligned",
            summary: "segments",
            maxSummaryTokens,
            maxSummarizerInputTokens: maxInput
          }).pipe(Effect.provide(layer))
          // the turns each committed segment holds, consolidations holding those of the segments they replaced
          const holds = new Map<string, ReadonlyArray<string>>()
          for (const message of conversation) {
            const before = (yield* memory.state).segments ?? []
            const made = calls.length
            yield* Effect.exit(memory.add(message))
            const after = (yield* memory.state).segments ?? []
            const consolidated = calls.slice(made).some((c) => c.mode === "consolidate" && c.result !== undefined)
            if (consolidated) {
              assert.strictEqual(after.length, 1)
              assert.match(after[0], /^c\d+$/)
            } else {
              assert.deepStrictEqual(after.slice(0, before.length), before)
            }
            for (const call of calls.slice(made)) {
              if (call.result === undefined) continue
              if (call.mode === "segment") holds.set(call.result, call.messages.map(String))
              else holds.set(call.result, (call.segments ?? []).flatMap((s) => holds.get(s) ?? []))
            }
          }
          // every committed segment is a distinct result: the turns they hold and the buffer's, each once
          const committed = ((yield* memory.state).segments ?? []).flatMap((s) => holds.get(s) ?? [])
          const buffer = (yield* memory.buffer).map((m) => m.content)
          const all = [...committed, ...buffer].sort()
          const expected = conversation.map((m) => m.content).sort()
          assert.deepStrictEqual(all, expected)
          assert.isTrue(maxSummaryTokens === undefined || (yield* memory.summaryTokens) <= maxSummaryTokens)
        }
      }))
  }
})
