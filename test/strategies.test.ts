import { assert, describe, it } from "@effect/vitest"
import {
  Cause,
  Deferred,
  Effect,
  Exit,
  FastCheck as fc,
  Fiber,
  Layer,
  Option,
  Queue,
  Schedule,
  TestClock
} from "effect"
import { ConfigError, type RollmemError, SummarizerError, TokenCountError } from "../src/Errors.js"
import * as Message from "../src/schema/Message.js"
import * as Summarizer from "../src/services/Summarizer.js"
import * as TokenCounter from "../src/services/TokenCounter.js"
import * as BufferMemory from "../src/strategies/BufferMemory.js"
import type { Memory } from "../src/strategies/Memory.js"
import * as RollingMemory from "../src/strategies/RollingMemory.js"
import * as SummaryMemory from "../src/strategies/SummaryMemory.js"
import * as WindowMemory from "../src/strategies/WindowMemory.js"
import * as Arb from "./support/arbitraries.js"
import {
  a,
  assertMessages,
  assertState,
  awaitBufferSize,
  call,
  gated,
  labels,
  recording,
  result,
  u,
  wire
} from "./support/harness.js"
import * as SpecModel from "./support/specModel.js"

/** A strategy under test: how to build it (fresh or restored) and its model. */
interface Subject {
  readonly name: string
  /** Whether it calls a summarizer. */
  readonly summarizes: boolean
  /** Builds the memory with `summarizer` (when it takes one) and `counter` in context. */
  readonly make: (
    summarizer: Layer.Layer<Summarizer.Summarizer>,
    counter?: Layer.Layer<TokenCounter.TokenCounter>,
    json?: unknown
  ) => Effect.Effect<Memory, RollmemError>
  readonly model: (summarize: SpecModel.Summarize) => SpecModel.Strategy
}

const provide = <A, E>(
  effect: Effect.Effect<A, E, Summarizer.Summarizer>,
  summarizer: Layer.Layer<Summarizer.Summarizer> | undefined,
  counter: Layer.Layer<TokenCounter.TokenCounter> | undefined
): Effect.Effect<A, E> => {
  const withCounter = counter === undefined ? effect : Effect.provide(effect, counter)
  return Effect.provide(withCounter, summarizer ?? Summarizer.layerDrop)
}

const rolling = (maxTokens: number, withSummarizer: boolean): Subject => ({
  name: `RollingMemory(maxTokens ${maxTokens}${withSummarizer ? "" : ", no summarizer"})`,
  summarizes: withSummarizer,
  make: (summarizer, counter, json) =>
    provide(
      json === undefined ? RollingMemory.make({ maxTokens }) : RollingMemory.fromJSON(json, { maxTokens }),
      withSummarizer ? summarizer : undefined,
      counter
    ),
  model: (summarize) => SpecModel.rolling({ maxTokens, summarize: withSummarizer ? summarize : undefined })
})

const window = (maxMessages: number): Subject => ({
  name: `WindowMemory(maxMessages ${maxMessages})`,
  summarizes: false,
  make: (_, counter, json) =>
    provide(
      json === undefined ? WindowMemory.make({ maxMessages }) : WindowMemory.fromJSON(json, { maxMessages }),
      undefined,
      counter
    ),
  model: () => SpecModel.window({ maxMessages })
})

const buffer: Subject = {
  name: "BufferMemory",
  summarizes: false,
  make: (_, counter, json) =>
    provide(json === undefined ? BufferMemory.make() : BufferMemory.fromJSON(json), undefined, counter),
  model: () => SpecModel.buffer
}

const summary: Subject = {
  name: "SummaryMemory",
  summarizes: true,
  make: (summarizer, counter, json) =>
    provide(json === undefined ? SummaryMemory.make() : SummaryMemory.fromJSON(json), summarizer, counter),
  model: (summarize) => SpecModel.summary({ summarize })
}

const subjects: ReadonlyArray<Subject> = [rolling(10, true), rolling(10, false), window(3), buffer, summary]

/** A short conversation with a tool call, a custom role and a system turn. */
const conversation: ReadonlyArray<Message.Message> = [
  u("u1"),
  a("a1"),
  call("c1", "c2"),
  result("c1"),
  Message.make("critic", "looks fine"),
  result("c2"),
  u("u2"),
  a("a2"),
  Message.system("be brief"),
  u("u3")
]

/** Adds `messages` to the memory and to the model, asserting equality after every add. */
const runAgainstModel = (
  memory: Memory,
  model: SpecModel.Strategy,
  calls: ReadonlyArray<
    { readonly summary: string; readonly messages: ReadonlyArray<Message.Message>; readonly result: string | undefined }
  >,
  start: SpecModel.ModelState<Message.Message>,
  messages: ReadonlyArray<Message.Message>
) =>
  Effect.gen(function*() {
    let state = start
    let seen = calls.length
    for (let i = 0; i < messages.length; i++) {
      const exit = yield* Effect.exit(memory.add(messages[i]))
      const step = model.add(state, messages[i])
      state = step.state
      const label = `add #${i}`
      assert.strictEqual(Exit.isFailure(exit), step.failed, `${label}: failed`)
      if (Exit.isFailure(exit)) {
        assert.instanceOf(Option.getOrThrow(Cause.failureOption(exit.cause)), SummarizerError, label)
      }
      yield* assertState(memory, state, label)
      const made = calls.slice(seen)
      seen = calls.length
      assert.strictEqual(made.length, step.calls.length, `${label}: summarizer calls`)
      for (let k = 0; k < made.length; k++) {
        assert.strictEqual(made[k].summary, step.calls[k].summary, `${label}: call summary`)
        assertMessages(made[k].messages, step.calls[k].messages, `${label}: call messages`)
        assert.strictEqual(made[k].result, step.calls[k].result, `${label}: call result`)
      }
    }
    return state
  })

const toWire = (state: SpecModel.ModelState<Message.Message>) => ({
  version: 2,
  summary: state.summary,
  buffer: wire(state.buffer)
})

describe.each(subjects)("conformance: $name", (subject) => {
  it.effect("starts empty", () =>
    Effect.gen(function*() {
      const { layer } = recording(labels)
      const memory = yield* subject.make(layer)
      assert.strictEqual(yield* memory.summary, "")
      assert.deepStrictEqual(yield* memory.buffer, [])
      assert.deepStrictEqual(yield* memory.messages, [])
      assert.strictEqual(yield* memory.context, "")
      assert.strictEqual(yield* memory.bufferTokens, 0)
      assert.deepStrictEqual(yield* memory.toJSON, { version: 2, summary: "", buffer: [] })
    }))

  it.effect("equals the model after every add of a fixed conversation", () =>
    Effect.gen(function*() {
      const { calls, layer } = recording(labels)
      const memory = yield* subject.make(layer)
      const end = yield* runAgainstModel(memory, subject.model(labels), calls, SpecModel.empty, conversation)
      assert.deepStrictEqual((yield* memory.messages).map(String), SpecModel.messages(end).map(SpecModel.stringForm))
      assert.deepStrictEqual((yield* memory.messages).map((m) => m.role), SpecModel.messages(end).map((m) => m.role))
      assert.strictEqual(yield* memory.context, SpecModel.context(end))
      assert.deepStrictEqual<unknown>(yield* memory.toJSON, toWire(end))
    }))

  it.effect("reads back the summary as a leading system message, then the buffer", () =>
    Effect.gen(function*() {
      const { layer } = recording(labels)
      const memory = yield* subject.make(layer, undefined, {
        version: 2,
        summary: "S",
        buffer: [{ role: "user", content: "hi" }, {
          role: "assistant",
          content: "",
          tool_calls: [{ id: "1", name: "f" }]
        }]
      })
      assertMessages(yield* memory.messages, [
        Message.system("S"),
        Message.user("hi"),
        Message.assistant("", { toolCalls: [{ id: "1", name: "f" }] })
      ])
      assert.strictEqual(yield* memory.context, "system: S\nuser: hi\nassistant:  [tool calls: f()]")
    }))

  it.effect("restores version 1 and 2 verbatim and never prunes until the next add", () =>
    Effect.gen(function*() {
      const restored = [u("r1"), a("r2"), a("r3"), result("zz"), u("r5")]
      for (const version of [1, 2]) {
        const { calls, layer } = recording(labels)
        const memory = yield* subject.make(layer, undefined, { version, summary: "old", buffer: wire(restored) })
        assert.strictEqual(yield* memory.summary, "old")
        assertMessages(yield* memory.buffer, restored)
        assert.strictEqual(yield* memory.bufferTokens, 22)
        assert.strictEqual(calls.length, 0)
        yield* runAgainstModel(memory, subject.model(labels), calls, { summary: "old", buffer: restored }, [
          a("n1"),
          u("n2")
        ])
      }
    }))

  it.effect("clear empties summary and buffer; adds go on from empty", () =>
    Effect.gen(function*() {
      const { calls, layer } = recording(labels)
      const memory = yield* subject.make(layer, undefined, { version: 2, summary: "S", buffer: wire([u("x")]) })
      yield* memory.clear
      assert.strictEqual(yield* memory.summary, "")
      assert.deepStrictEqual(yield* memory.buffer, [])
      assert.strictEqual(yield* memory.bufferTokens, 0)
      yield* runAgainstModel(memory, subject.model(labels), calls, SpecModel.empty, conversation.slice(0, 4))
    }))

  it.effect("counts each message's token text once, when it is added (or restored), and a committed summary only when its count is read, once", () =>
    Effect.gen(function*() {
      const texts: Array<string> = []
      const counter = TokenCounter.layerFunction((text) => {
        texts.push(text)
        return TokenCounter.wordCount(text)
      })
      const summarizer = recording(labels)
      const memory = yield* subject.make(summarizer.layer, counter, {
        version: 2,
        buffer: wire([Message.tool("r", { toolCallId: "c9" })])
      })
      for (const m of conversation) yield* memory.add(m)
      // no budget reads the summary's count (docs/contract.md section 10.4): its folds commit it uncounted
      assert.deepStrictEqual(texts, ["r\nc9", ...conversation.map((m) => m.tokenText)])
      const summary = yield* memory.summary
      // the first read counts it (an empty summary is 0, uncounted), later reads and contextTokens take the kept count
      assert.strictEqual(yield* memory.summaryTokens, TokenCounter.wordCount(summary))
      assert.strictEqual(yield* memory.summaryTokens, TokenCounter.wordCount(summary))
      assert.strictEqual(
        yield* memory.contextTokens,
        TokenCounter.wordCount(summary) + (yield* memory.bufferTokens) + (yield* memory.pinnedTokens)
      )
      assert.deepStrictEqual(texts, [
        "r\nc9",
        ...conversation.map((m) => m.tokenText),
        ...(summary === "" ? [] : [summary])
      ])
    }))

  it.effect("a counter returning NaN, a negative, a fraction or a non-number (or throwing) fails typed and appends nothing", () =>
    Effect.gen(function*() {
      const bad: ReadonlyArray<(text: string) => number> = [
        () => Number.NaN,
        () => -1,
        () => 1.5,
        () => Infinity,
        () => "3" as unknown as number,
        () => {
          throw new Error("boom")
        }
      ]
      for (const count of bad) {
        const { calls, layer } = recording(labels)
        let broken = false
        const counter = TokenCounter.layerFunction((text) => broken ? count(text) : TokenCounter.wordCount(text))
        const memory = yield* subject.make(layer, counter, { version: 2, summary: "S", buffer: wire([u("x")]) })
        broken = true
        const error = yield* Effect.flip(memory.add(u("y")))
        assert.instanceOf(error, TokenCountError)
        assert.strictEqual(yield* memory.summary, "S")
        assertMessages(yield* memory.buffer, [u("x")])
        assert.strictEqual(calls.length, 0)
        const restoreError = yield* Effect.flip(subject.make(layer, counter, { version: 2, buffer: wire([u("x")]) }))
        assert.instanceOf(restoreError, TokenCountError)
      }
    }))

  it.effect("toJSON -> JSON.stringify -> parse -> fromJSON is identity", () =>
    Effect.gen(function*() {
      const { layer } = recording(labels)
      const memory = yield* subject.make(layer)
      for (const m of conversation) yield* memory.add(m)
      const json = yield* memory.toJSON
      const again = yield* subject.make(layer, undefined, JSON.parse(JSON.stringify(json)))
      assert.deepStrictEqual(yield* again.toJSON, json)
      assertMessages(yield* again.buffer, yield* memory.buffer)
      assert.strictEqual(yield* again.summary, yield* memory.summary)
    }))

  for (const reader of subjects) {
    it.effect(`state it writes loads in ${reader.name}`, () =>
      Effect.gen(function*() {
        const { layer } = recording(labels)
        const memory = yield* subject.make(layer, undefined, {
          version: 2,
          summary: "S",
          buffer: wire([u("u0"), a("a0")])
        })
        for (const m of conversation.slice(0, 5)) yield* memory.add(m)
        const json = JSON.parse(JSON.stringify(yield* memory.toJSON))
        const loaded = yield* reader.make(layer, undefined, json)
        assert.strictEqual(yield* loaded.summary, yield* memory.summary)
        assertMessages(yield* loaded.buffer, yield* memory.buffer)
        assert.strictEqual(yield* loaded.context, yield* memory.context)
        assert.deepStrictEqual(yield* loaded.toJSON, json)
      }))
  }

  it.prop(
    "equals the model after every add of a random conversation (failures included)",
    [Arb.conversation(25), fc.array(fc.boolean(), { maxLength: 30 }), fc.string({ maxLength: 3 })],
    ([messages, failures, initial]) =>
      Effect.runSync(Effect.gen(function*() {
        const failing = (): SpecModel.Summarize => {
          let k = 0
          return (s, ms) => (failures[k++] === true ? undefined : `${s}|${ms.length}`)
        }
        const { calls, layer } = recording(failing())
        const memory = yield* subject.make(layer, undefined, { version: 2, summary: initial })
        yield* runAgainstModel(memory, subject.model(failing()), calls, { summary: initial, buffer: [] }, messages)
      })),
    { fastCheck: { numRuns: 40 } }
  )

  it.prop(
    "JSON round-trip is identity after any conversation, and the restored memory goes on identically",
    [Arb.conversation(20), Arb.message],
    ([messages, next]) =>
      Effect.runSync(Effect.gen(function*() {
        const { layer } = recording(labels)
        const memory = yield* subject.make(layer)
        for (const m of messages) yield* memory.add(m)
        const json = yield* memory.toJSON
        const again = yield* subject.make(layer, undefined, JSON.parse(JSON.stringify(json)))
        assert.deepStrictEqual(yield* again.toJSON, json)
        yield* memory.add(next)
        yield* again.add(next)
        assert.deepStrictEqual(yield* again.toJSON, yield* memory.toJSON)
      })),
    { fastCheck: { numRuns: 40 } }
  )
})

describe("random budgets (contract 4, 5, 7)", () => {
  const pruning: ReadonlyArray<{
    readonly name: string
    readonly summarizes: boolean
    readonly make: (budget: number) => Effect.Effect<Memory, ConfigError, Summarizer.Summarizer>
    readonly model: (budget: number, summarize: SpecModel.Summarize) => SpecModel.Strategy
  }> = [
    {
      name: "RollingMemory",
      summarizes: true,
      make: (budget) => RollingMemory.make({ maxTokens: budget }),
      model: (budget, summarize) => SpecModel.rolling({ maxTokens: budget, summarize })
    },
    {
      name: "RollingMemory without summarizer",
      summarizes: false,
      make: (budget) => RollingMemory.make({ maxTokens: budget }),
      model: (budget) => SpecModel.rolling({ maxTokens: budget })
    },
    {
      name: "WindowMemory",
      summarizes: false,
      make: (budget) => WindowMemory.make({ maxMessages: Math.ceil(budget / 4) }),
      model: (budget) => SpecModel.window({ maxMessages: Math.ceil(budget / 4) })
    }
  ]
  for (const strategy of pruning) {
    it.prop(
      `${strategy.name}: equals the model after every add, never evicts the newest unit, accounts for every turn`,
      [Arb.conversation(30), fc.integer({ min: 1, max: 25 }), fc.array(fc.boolean(), { maxLength: 30 })],
      ([raw, budget, failures]) =>
        Effect.runSync(Effect.gen(function*() {
          // Unique ids make every turn traceable.
          const turns = raw.map((m, i) =>
            Message.make(m.role, m.content, { id: `t${i}`, toolCalls: m.toolCalls, toolCallId: m.toolCallId })
          )
          const failing = (): SpecModel.Summarize => {
            let k = 0
            return (s, ms) => (failures[k++] === true ? undefined : `${s}|${ms.length}`)
          }
          const { calls, layer } = recording(failing())
          const build = strategy.make(budget)
          const memory = yield* Effect.provide(build, strategy.summarizes ? layer : Summarizer.layerDrop)
          // Exactly the model, add by add.
          yield* runAgainstModel(memory, strategy.model(budget, failing()), calls, SpecModel.empty, turns)
          // The invariants, checked directly on a second run.
          yield* memory.clear
          calls.length = 0
          let before: ReadonlyArray<Message.Message> = []
          for (let i = 0; i < turns.length; i++) {
            yield* Effect.exit(memory.add(turns[i]))
            const after = yield* memory.buffer
            const appended = [...before, turns[i]]
            const newest = SpecModel.units(appended).at(-1)!
            assert.deepStrictEqual(
              after.slice(after.length - (appended.length - newest.start)).map((m) => m.id),
              appended.slice(newest.start).map((m) => m.id),
              `add #${i}: newest unit kept`
            )
            const added = turns.slice(0, i + 1).map((m) => m.id)
            const committed = calls.filter((c) => c.result !== undefined).flatMap((c) => c.messages.map((m) => m.id))
            if (strategy.summarizes) {
              // In the buffer or in exactly one committed call, in order.
              assert.deepStrictEqual([...committed, ...after.map((m) => m.id)], added, `add #${i}: accounting`)
            } else {
              // Dropped turns are a prefix; the buffer is the rest, in order.
              assert.deepStrictEqual(after.map((m) => m.id), added.slice(added.length - after.length))
              assert.strictEqual(calls.length, 0)
            }
            before = after
          }
        })),
      { fastCheck: { numRuns: 50 } }
    )
  }
})

/**
 * A RollingMemory (10 words) over a gated summarizer after u1, a1 and a forked
 * add of u2 (over budget): its first fold, of [u1, a1], is in flight.
 */
const firstFoldInFlight = Effect.gen(function*() {
  const summarizer = yield* gated
  const memory = yield* Effect.provide(RollingMemory.make({ maxTokens: 10 }), summarizer.layer)
  yield* memory.add(u("u1"))
  yield* memory.add(a("a1"))
  const fiber = yield* Effect.fork(memory.add(u("u2")))
  const first = yield* Queue.take(summarizer.started)
  return { summarizer, memory, fiber, first }
})

describe("RollingMemory (contract 5)", () => {
  it.effect("the contract 4 example: restore u1 a1 a2 (no prune), add u3: one call with [u1, a1, a2]", () =>
    Effect.gen(function*() {
      const { calls, layer } = recording(labels)
      const memory = yield* Effect.provide(
        RollingMemory.fromJSON({ version: 2, summary: "", buffer: wire([u("u1"), a("a1"), a("a2")]) }, {
          maxTokens: 10
        }),
        layer
      )
      assertMessages(yield* memory.buffer, [u("u1"), a("a1"), a("a2")])
      assert.strictEqual(yield* memory.bufferTokens, 15)
      assert.strictEqual(calls.length, 0)
      yield* memory.add(u("u3"))
      assert.strictEqual(calls.length, 1)
      assert.strictEqual(calls[0].summary, "")
      assertMessages(calls[0].messages, [u("u1"), a("a1"), a("a2")])
      assertMessages(yield* memory.buffer, [u("u3")])
      assert.strictEqual(yield* memory.summary, "+[u1,a1,a2]")
    }))

  it.effect("folds once per prune, with the current summary and every evicted turn, oldest first", () =>
    Effect.gen(function*() {
      const { calls, layer } = recording(labels)
      const memory = yield* Effect.provide(RollingMemory.make({ maxTokens: 10 }), layer)
      for (const m of [u("u1"), a("a1"), u("u2"), a("a2"), u("u3")]) yield* memory.add(m)
      assert.deepStrictEqual(calls.map((c) => [c.summary, c.messages.map((m) => m.content)]), [
        ["", ["u1 w w w w", "a1 w w w w"]],
        ["+[u1,a1]", ["u2 w w w w", "a2 w w w w"]]
      ])
      assert.strictEqual(yield* memory.summary, "+[u1,a1]+[u2,a2]")
      assertMessages(yield* memory.buffer, [u("u3")])
      assertMessages(yield* memory.messages, [Message.system("+[u1,a1]+[u2,a2]"), u("u3")])
      assert.strictEqual(yield* memory.context, "system: +[u1,a1]+[u2,a2]\nuser: u3 w w w w")
    }))

  it.effect("evicts a tool call with all its results as one unit", () =>
    Effect.gen(function*() {
      const { calls, layer } = recording(labels)
      const memory = yield* Effect.provide(RollingMemory.make({ maxTokens: 12 }), layer)
      // u1 (5) | call c1,c2 (2) + result c1 (2) + result c2 (2) | a1 (5) | u2 (5)
      for (const m of [u("u1"), call("c1", "c2"), result("c1"), result("c2"), a("a1")]) yield* memory.add(m)
      assert.strictEqual(calls.length, 1)
      assertMessages(calls[0].messages, [u("u1")])
      assertMessages(yield* memory.buffer, [call("c1", "c2"), result("c1"), result("c2"), a("a1")])
      yield* memory.add(u("u2"))
      assert.strictEqual(calls.length, 2)
      assert.strictEqual(calls[1].summary, "+[u1]")
      assertMessages(calls[1].messages, [call("c1", "c2"), result("c1"), result("c2"), a("a1")])
      assertMessages(yield* memory.buffer, [u("u2")])
    }))

  it.effect("without a summarizer, drops the evicted prefix and keeps a restored summary", () =>
    Effect.gen(function*() {
      const memory = yield* RollingMemory.fromJSON({ version: 1, summary: "kept" }, { maxTokens: 10 })
      for (const m of [u("u1"), a("a1"), u("u2"), a("a2"), u("u3")]) yield* memory.add(m)
      assert.strictEqual(yield* memory.summary, "kept")
      assertMessages(yield* memory.buffer, [u("u3")])
    }).pipe(Effect.provide(Summarizer.layerDrop)))

  it.effect("defaults maxTokens to 2000", () =>
    Effect.gen(function*() {
      const memory = yield* RollingMemory.make()
      assert.strictEqual(memory.maxTokens, 2000)
      assert.strictEqual(memory.strategy, "rolling")
      const big = Message.user(Array.from({ length: 1999 }, () => "w").join(" "))
      yield* memory.add(big)
      yield* memory.add(u("x"))
      assertMessages(yield* memory.buffer, [u("x")])
    }).pipe(Effect.provide(Summarizer.layerDrop)))

  it.effect("rejects maxTokens 0, -1, 1.5, NaN, Infinity with a typed ConfigError", () =>
    Effect.gen(function*() {
      for (const maxTokens of [0, -1, 1.5, Number.NaN, Infinity]) {
        const error = yield* Effect.flip(RollingMemory.make({ maxTokens }))
        assert.instanceOf(error, ConfigError)
        assert.strictEqual(error.option, "maxTokens")
        const restored = yield* Effect.flip(RollingMemory.fromJSON({ version: 2 }, { maxTokens }))
        assert.instanceOf(restored, ConfigError)
      }
    }).pipe(Effect.provide(Summarizer.layerDrop)))

  it.effect("a failing summarizer leaves the state as right after the append, typed, with the cause", () =>
    Effect.gen(function*() {
      const boom = new Error("model down")
      let fail = true
      const calls: Array<ReadonlyArray<string>> = []
      const layer = Summarizer.layerFunction((s, ms) => {
        calls.push(ms.map((m) => m.content))
        if (fail) throw boom
        return labels(s, ms)
      })
      const memory = yield* Effect.provide(
        RollingMemory.fromJSON({ version: 2, summary: "S" }, { maxTokens: 10 }),
        layer
      )
      yield* memory.add(u("u1"))
      yield* memory.add(a("a1"))
      const error = yield* Effect.flip(memory.add(u("u2")))
      assert.instanceOf(error, SummarizerError)
      assert.strictEqual(error.cause, boom)
      assert.strictEqual(yield* memory.summary, "S")
      assertMessages(yield* memory.buffer, [u("u1"), a("a1"), u("u2")])
      // The next add recomputes the cutoff over everything.
      fail = false
      yield* memory.add(a("a2"))
      assert.deepStrictEqual(calls, [["u1 w w w w", "a1 w w w w"], ["u1 w w w w", "a1 w w w w"]])
      assert.strictEqual(yield* memory.summary, "S+[u1,a1]")
      assertMessages(yield* memory.buffer, [u("u2"), a("a2")])
    }))

  it.effect("a synchronous summarizer returning a Promise fails with a TypeError cause and changes nothing else", () =>
    Effect.gen(function*() {
      const layer = Summarizer.layerFunction(() => Promise.reject(new Error("late")) as unknown as string)
      const memory = yield* Effect.provide(RollingMemory.make({ maxTokens: 5 }), layer)
      yield* memory.add(u("u1"))
      const error = yield* Effect.flip(memory.add(u("u2")))
      assert.instanceOf(error, SummarizerError)
      assert.instanceOf(error.cause, TypeError)
      assert.strictEqual(yield* memory.summary, "")
      assertMessages(yield* memory.buffer, [u("u1"), u("u2")])
    }))

  it.effect("a summarizer returning a non-string fails typed", () =>
    Effect.gen(function*() {
      const layer = Summarizer.layerEffect(() => Effect.succeed(42 as unknown as string))
      const memory = yield* Effect.provide(RollingMemory.make({ maxTokens: 5 }), layer)
      yield* memory.add(u("u1"))
      const error = yield* Effect.flip(memory.add(u("u2")))
      assert.instanceOf(error, SummarizerError)
      assert.strictEqual(yield* memory.summary, "")
      assertMessages(yield* memory.buffer, [u("u1"), u("u2")])
    }))

  it.effect("an interrupted fold loses nothing: the turn stays, the state is as before the prune", () =>
    Effect.gen(function*() {
      const { fiber, first, memory, summarizer } = yield* firstFoldInFlight
      assertMessages(first.messages, [u("u1"), a("a1")])
      yield* Fiber.interrupt(fiber)
      assert.isTrue(first.interrupted)
      assert.strictEqual(yield* memory.summary, "")
      assertMessages(yield* memory.buffer, [u("u1"), a("a1"), u("u2")])
      // The next add folds as if the interrupted prune never ran.
      const next = yield* Effect.fork(memory.add(a("a2")))
      const second = yield* Queue.take(summarizer.started)
      assert.strictEqual(second.summary, "")
      assertMessages(second.messages, [u("u1"), a("a1")])
      yield* Deferred.succeed(second.gate, "S")
      yield* Fiber.join(next)
      assert.strictEqual(yield* memory.summary, "S")
      assertMessages(yield* memory.buffer, [u("u2"), a("a2")])
    }))

  it.effect("an add interrupted while its prune waits for the lock keeps its turn", () =>
    Effect.gen(function*() {
      const { fiber: f1, first, memory, summarizer } = yield* firstFoldInFlight
      const f2 = yield* Effect.fork(memory.add(a("a2")))
      yield* awaitBufferSize(memory, 4)
      yield* Fiber.interrupt(f2)
      yield* Deferred.succeed(first.gate, "S1")
      yield* Fiber.join(f1)
      assert.strictEqual(summarizer.calls.length, 1)
      assert.strictEqual(yield* memory.summary, "S1")
      assertMessages(yield* memory.buffer, [u("u2"), a("a2")])
    }))

  it.effect("a failed fold (Deferred.fail) reaches the caller typed and keeps the appended turn", () =>
    Effect.gen(function*() {
      const { fiber, first, memory } = yield* firstFoldInFlight
      yield* Deferred.fail(first.gate, new SummarizerError({ description: "rate limited" }))
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.instanceOf(error, SummarizerError)
      assert.strictEqual(error.description, "rate limited")
      assert.strictEqual(yield* memory.summary, "")
      assertMessages(yield* memory.buffer, [u("u1"), a("a1"), u("u2")])
    }))

  it.effect("turns added while a fold is in flight land at the tail; the next prune starts from the new head", () =>
    Effect.gen(function*() {
      const { fiber: f1, first, memory, summarizer } = yield* firstFoldInFlight
      const f2 = yield* Effect.fork(memory.add(a("a2")))
      yield* awaitBufferSize(memory, 4)
      const f3 = yield* Effect.fork(memory.add(u("u3")))
      yield* awaitBufferSize(memory, 5)
      // Appends did not wait for the fold, and readers see them at once.
      assertMessages(yield* memory.buffer, [u("u1"), a("a1"), u("u2"), a("a2"), u("u3")])
      assert.isTrue(Option.isNone(yield* Fiber.poll(f2)))
      yield* Deferred.succeed(first.gate, "S1")
      yield* Fiber.join(f1)
      const second = yield* Queue.take(summarizer.started)
      assert.strictEqual(second.summary, "S1")
      assertMessages(second.messages, [u("u2"), a("a2")])
      yield* Deferred.succeed(second.gate, "S2")
      yield* Fiber.join(f2)
      yield* Fiber.join(f3)
      assert.strictEqual(summarizer.calls.length, 2)
      assert.strictEqual(yield* Queue.size(summarizer.started), 0)
      assert.strictEqual(yield* memory.summary, "S2")
      assertMessages(yield* memory.buffer, [u("u3")])
    }))

  it.effect("a prune waiting behind a fold recomputes its cutoff and never folds again what was folded", () =>
    Effect.gen(function*() {
      const { fiber: f1, first, memory, summarizer } = yield* firstFoldInFlight
      // Over budget when it is appended (20 > 10), within budget once the first fold commits (10).
      const f2 = yield* Effect.fork(memory.add(u("u3")))
      yield* awaitBufferSize(memory, 4)
      yield* Deferred.succeed(first.gate, "S1")
      yield* Fiber.join(f1)
      // The waiting prune must finish without a second summarizer call.
      const outcome = yield* Effect.raceFirst(
        Effect.as(Fiber.join(f2), "completed"),
        Effect.as(Queue.take(summarizer.started), "called the summarizer again")
      )
      assert.strictEqual(outcome, "completed")
      assert.strictEqual(summarizer.calls.length, 1)
      assert.strictEqual(yield* memory.summary, "S1")
      assertMessages(yield* memory.buffer, [u("u2"), u("u3")])
    }))

  it.effect("a result arriving during a fold for a call being folded becomes an orphan, and pruning goes on", () =>
    Effect.gen(function*() {
      const summarizer = yield* gated
      const memory = yield* Effect.provide(RollingMemory.make({ maxTokens: 10 }), summarizer.layer)
      yield* memory.add(call("x")) // 1 token
      yield* memory.add(u("u1")) // 6
      const f1 = yield* Effect.fork(memory.add(a("a1"))) // 11 > 10: fold [call]
      const first = yield* Queue.take(summarizer.started)
      assertMessages(first.messages, [call("x")])
      // The result joins the call being folded: call..result is one unit spanning the cut.
      const f2 = yield* Effect.fork(memory.add(result("x"))) // "ok\nx": 2 tokens
      yield* awaitBufferSize(memory, 4)
      yield* Deferred.succeed(first.gate, "S1")
      yield* Fiber.join(f1)
      // The prefix is removed as computed; the result is an orphan: u1 | a1 | result (12 > 10),
      // and the result's own prune, deciding under the lock, folds u1.
      const second = yield* Effect.raceFirst(
        Queue.take(summarizer.started),
        Effect.zipRight(Fiber.await(f2), Effect.dieMessage("the add completed without pruning"))
      )
      assert.strictEqual(second.summary, "S1")
      assertMessages(second.messages, [u("u1")])
      yield* Deferred.succeed(second.gate, "S2")
      yield* Fiber.join(f2)
      assert.strictEqual(yield* memory.summary, "S2")
      assertMessages(yield* memory.buffer, [a("a1"), result("x")])
      assert.strictEqual(yield* memory.bufferTokens, 7)
    }))

  it.effect("clear during a fold wins, and the add that started the fold completes", () =>
    Effect.gen(function*() {
      const { fiber, first, memory, summarizer } = yield* firstFoldInFlight
      yield* memory.clear
      yield* memory.add(u("x"))
      yield* Deferred.succeed(first.gate, "discarded")
      const exit = yield* Fiber.await(fiber)
      assert.isTrue(Exit.isSuccess(exit))
      assert.strictEqual(yield* memory.summary, "")
      assertMessages(yield* memory.buffer, [u("x")])
      assert.strictEqual(summarizer.calls.length, 1)
    }))

  it.effect("users wrap the summarizer in their own retry policy", () =>
    Effect.gen(function*() {
      let attempts = 0
      const flaky = Summarizer.layerFunction((s, ms) => {
        attempts++
        if (attempts === 1) throw new Error("transient")
        return labels(s, ms)
      })
      const layer = Layer.provide(
        Summarizer.withPolicy((call) => Effect.retry(call, Schedule.recurs(2))),
        flaky
      )
      const memory = yield* Effect.provide(RollingMemory.make({ maxTokens: 10 }), layer)
      for (const m of [u("u1"), a("a1"), u("u2")]) yield* memory.add(m)
      assert.strictEqual(attempts, 2)
      assert.strictEqual(yield* memory.summary, "+[u1,a1]")
      assertMessages(yield* memory.buffer, [u("u2")])
    }))

  it.effect("a summarizer timing out (TestClock) fails typed and leaves the state as after the append", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const slow = Summarizer.layerEffect(() => Effect.zipRight(Deferred.succeed(started, undefined), Effect.never))
      const layer = Layer.provide(Summarizer.withPolicy((call) => Effect.timeout(call, "10 seconds")), slow)
      const memory = yield* Effect.provide(RollingMemory.make({ maxTokens: 10 }), layer)
      yield* memory.add(u("u1"))
      yield* memory.add(a("a1"))
      const fiber = yield* Effect.fork(memory.add(u("u2")))
      yield* Deferred.await(started)
      yield* TestClock.adjust("9 seconds")
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)))
      yield* TestClock.adjust("1 second")
      while (Option.isNone(yield* Fiber.poll(fiber))) yield* TestClock.adjust("1 second")
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.instanceOf(error, SummarizerError)
      assert.strictEqual(yield* memory.summary, "")
      assertMessages(yield* memory.buffer, [u("u1"), a("a1"), u("u2")])
    }))
})

describe("WindowMemory (contract 7)", () => {
  it.effect("keeps at most maxMessages, aligned to a turn that is not a response", () =>
    Effect.gen(function*() {
      const memory = yield* WindowMemory.make({ maxMessages: 3 })
      assert.strictEqual(memory.maxMessages, 3)
      const seen: Array<Array<string>> = []
      for (const m of [u("u1"), a("a1"), u("u2"), a("a2"), u("u3"), a("a3")]) {
        yield* memory.add(m)
        seen.push((yield* memory.buffer).map((x) => x.content.split(" ")[0]))
      }
      assert.deepStrictEqual(seen, [["u1"], ["u1", "a1"], ["u1", "a1", "u2"], ["u2", "a2"], ["u2", "a2", "u3"], [
        "u3",
        "a3"
      ]])
      assert.strictEqual(yield* memory.summary, "")
    }))

  it.effect("keeps a tool call with its results, even over the count", () =>
    Effect.gen(function*() {
      const memory = yield* WindowMemory.make({ maxMessages: 2 })
      const seen: Array<number> = []
      for (const m of [u("u1"), call("c1", "c2"), result("c1"), result("c2")]) {
        yield* memory.add(m)
        seen.push((yield* memory.buffer).length)
      }
      assert.deepStrictEqual(seen, [1, 2, 2, 3])
      assertMessages(yield* memory.buffer, [call("c1", "c2"), result("c1"), result("c2")])
      yield* memory.add(u("u2"))
      assertMessages(yield* memory.buffer, [u("u2")])
    }))

  it.effect("keeps a restored summary and reads it back", () =>
    Effect.gen(function*() {
      const memory = yield* WindowMemory.fromJSON({ version: 1, summary: "S", buffer: wire([u("u1")]) }, {
        maxMessages: 1
      })
      yield* memory.add(u("u2"))
      assertMessages(yield* memory.messages, [Message.system("S"), u("u2")])
    }))

  it.effect("rejects maxMessages 0, -1, 1.5, NaN, missing with a typed ConfigError", () =>
    Effect.gen(function*() {
      for (const maxMessages of [0, -1, 1.5, Number.NaN, undefined]) {
        const error = yield* Effect.flip(WindowMemory.make({ maxMessages } as WindowMemory.Options))
        assert.instanceOf(error, ConfigError)
        assert.strictEqual(error.option, "maxMessages")
      }
    }))
})

describe("BufferMemory (contract 6)", () => {
  it.effect("keeps every turn and never summarizes", () =>
    Effect.gen(function*() {
      const { calls, layer } = recording(labels)
      const memory = yield* Effect.provide(BufferMemory.make(), layer)
      const many = Array.from({ length: 50 }, (_, i) => u(`u${i}`))
      for (const m of many) yield* memory.add(m)
      assertMessages(yield* memory.buffer, many)
      assert.strictEqual(yield* memory.bufferTokens, 250)
      assert.strictEqual(calls.length, 0)
      assert.strictEqual(memory.strategy, "buffer")
    }))
})

describe("SummaryMemory (contract 8)", () => {
  it.effect("folds each turn on arrival", () =>
    Effect.gen(function*() {
      const { calls, layer } = recording(labels)
      const memory = yield* Effect.provide(SummaryMemory.make(), layer)
      yield* memory.add(u("u1"))
      yield* memory.add(a("a1"))
      assert.deepStrictEqual(calls.map((c) => [c.summary, c.messages.map((m) => m.content)]), [
        ["", ["u1 w w w w"]],
        ["+[u1]", ["a1 w w w w"]]
      ])
      assert.strictEqual(yield* memory.summary, "+[u1]+[a1]")
      assert.deepStrictEqual(yield* memory.buffer, [])
      assertMessages(yield* memory.messages, [Message.system("+[u1]+[a1]")])
    }))

  it.effect("on failure keeps the pending turn; the next success folds every pending turn", () =>
    Effect.gen(function*() {
      let k = 0
      const { calls, layer } = recording((s, ms) => (k++ === 1 ? undefined : labels(s, ms)))
      const memory = yield* Effect.provide(SummaryMemory.make(), layer)
      yield* memory.add(u("u1"))
      const error = yield* Effect.flip(memory.add(a("a1")))
      assert.instanceOf(error, SummarizerError)
      assert.strictEqual(yield* memory.summary, "+[u1]")
      assertMessages(yield* memory.buffer, [a("a1")])
      assertMessages(yield* memory.messages, [Message.system("+[u1]"), a("a1")])
      yield* memory.add(u("u2"))
      assert.strictEqual(calls.length, 3)
      assert.strictEqual(calls[2].summary, "+[u1]")
      assertMessages(calls[2].messages, [a("a1"), u("u2")])
      assert.strictEqual(yield* memory.summary, "+[u1]+[a1,u2]")
      assert.deepStrictEqual(yield* memory.buffer, [])
    }))

  it.effect("restored turns are pending and folded by the next add", () =>
    Effect.gen(function*() {
      const { calls, layer } = recording(labels)
      const memory = yield* Effect.provide(
        SummaryMemory.fromJSON({ version: 1, summary: "S", buffer: wire([u("u1"), a("a1")]) }),
        layer
      )
      assert.strictEqual(calls.length, 0)
      assertMessages(yield* memory.messages, [Message.system("S"), u("u1"), a("a1")])
      yield* memory.add(u("u2"))
      assert.strictEqual(calls.length, 1)
      assertMessages(calls[0].messages, [u("u1"), a("a1"), u("u2")])
      assert.strictEqual(yield* memory.summary, "S+[u1,a1,u2]")
    }))

  it.effect("turns added while a fold is in flight are folded by their own add", () =>
    Effect.gen(function*() {
      const summarizer = yield* gated
      const memory = yield* Effect.provide(SummaryMemory.make(), summarizer.layer)
      const f1 = yield* Effect.fork(memory.add(u("u1")))
      const first = yield* Queue.take(summarizer.started)
      const f2 = yield* Effect.fork(memory.add(a("a1")))
      yield* awaitBufferSize(memory, 2)
      yield* Deferred.succeed(first.gate, "S1")
      yield* Fiber.join(f1)
      const second = yield* Queue.take(summarizer.started)
      assert.strictEqual(second.summary, "S1")
      assertMessages(second.messages, [a("a1")])
      yield* Deferred.succeed(second.gate, "S2")
      yield* Fiber.join(f2)
      assert.strictEqual(yield* memory.summary, "S2")
      assert.deepStrictEqual(yield* memory.buffer, [])
    }))

  it.effect("an interrupted fold keeps the turn pending; clear during a fold wins", () =>
    Effect.gen(function*() {
      const summarizer = yield* gated
      const memory = yield* Effect.provide(SummaryMemory.make(), summarizer.layer)
      const f1 = yield* Effect.fork(memory.add(u("u1")))
      yield* Queue.take(summarizer.started)
      yield* Fiber.interrupt(f1)
      assertMessages(yield* memory.buffer, [u("u1")])
      assert.strictEqual(yield* memory.summary, "")
      const f2 = yield* Effect.fork(memory.add(a("a1")))
      const second = yield* Queue.take(summarizer.started)
      assertMessages(second.messages, [u("u1"), a("a1")])
      yield* memory.clear
      yield* Deferred.succeed(second.gate, "discarded")
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(f2)))
      assert.strictEqual(yield* memory.summary, "")
      assert.deepStrictEqual(yield* memory.buffer, [])
    }))
})
