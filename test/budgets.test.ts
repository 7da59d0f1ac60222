/**
 * Budgets in the model's terms (docs/contract.md section 16): the whole-request
 * budget `contextWindow`, `compact`, `withOverflowRetry` and the usage
 * correction ratio, with the word counter unless said otherwise.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, FastCheck as fc, Fiber, Layer } from "effect"
import { openAIChatSummarizer } from "../src/adapters/Summarizers.js"
import * as SummaryPrompt from "../src/ai/SummaryPrompt.js"
import { ConfigError, ContextOverflowError, ContextWindowError, SummarizerError, UsageError } from "../src/Errors.js"
import * as MemoryState from "../src/schema/MemoryState.js"
import * as Message from "../src/schema/Message.js"
import * as Summarizer from "../src/services/Summarizer.js"
import * as TokenCounter from "../src/services/TokenCounter.js"
import * as Memory from "../src/strategies/Memory.js"
import * as RollingMemory from "../src/strategies/RollingMemory.js"
import * as SummaryMemory from "../src/strategies/SummaryMemory.js"

const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ")
const u = (n: number, tag = "u") => Message.user(words(n, tag))
const a = (n: number, tag = "a") => Message.assistant(words(n, tag))

/** A summarizer that records its calls and returns a fixed-size summary. */
const recording = (summaryWords = 2) => {
  const calls: Array<{ readonly turns: number; readonly focus: string | undefined }> = []
  const layer = Summarizer.layerFunction((_summary, turns, request) => {
    calls.push({ turns: turns.length, focus: request.focus })
    return words(summaryWords, "s")
  })
  return { calls, layer }
}

describe("contextWindow (contract 16.1)", () => {
  it.effect("the buffer's budget is the window less the reserve, the pinned messages and the summary", () =>
    Effect.gen(function*() {
      const { calls, layer } = recording(2)
      const memory = yield* RollingMemory.make({ contextWindow: { tokens: 30, reserveTokens: 10 }, pinSystem: true })
        .pipe(
          Effect.provide(layer)
        )
      assert.strictEqual(memory.maxTokens, 20)
      assert.deepStrictEqual(memory.contextWindow, { tokens: 30, reserveTokens: 10 })
      yield* memory.add(Message.system(words(5, "p"))) // pinned: 5
      yield* memory.add(u(5)) // 10 in all
      yield* memory.add(a(5)) // 15
      yield* memory.add(u(5, "v")) // 20: within 30 - 10
      assert.strictEqual(calls.length, 0)
      yield* memory.add(a(5, "b")) // 25 > 20: the buffer's budget is 20 - 5 pinned = 15
      assert.deepStrictEqual(calls.map((c) => c.turns), [2])
      // pinned 5 + summary 2 + buffer 10 = 17 <= 20
      assert.strictEqual(yield* memory.contextTokens, 17)
      assert.deepStrictEqual((yield* memory.messages).map((m) => m.content.split(" ")[0]), ["p0", "s0", "v0", "b0"])
    }))

  it.effect("context tokens stay within the window less the reserve at every add (property)", () =>
    Effect.gen(function*() {
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(
            fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 40 }),
            fc.integer({ min: 20, max: 60 }),
            async (sizes, window) => {
              const program = Effect.gen(function*() {
                const memory = yield* RollingMemory.make({ contextWindow: { tokens: window, reserveTokens: 5 } })
                for (let i = 0; i < sizes.length; i++) {
                  yield* memory.add(i % 2 === 0 ? u(sizes[i], `u${i}x`) : a(sizes[i], `a${i}x`))
                  const context = yield* memory.contextTokens
                  // the newest unit alone (at most 6) may not fit; otherwise the context fits
                  assert.isAtMost(context, Math.max(window - 5, 6 + 3))
                }
              }).pipe(Effect.provide(recording(3).layer))
              await Effect.runPromise(program)
            }
          ),
          { numRuns: 100 }
        )
      )
    }))

  it.effect("given with maxTokens, with a reserve not below the window, or with a target over it: ConfigError", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [RollingMemory.Options, string, string]> = [
        [
          { maxTokens: 10, contextWindow: { tokens: 30, reserveTokens: 10 } },
          "maxTokens",
          "cannot be given with contextWindow: the window less the reserve is the budget; give one"
        ],
        [
          { contextWindow: { tokens: 30, reserveTokens: 30 } },
          "contextWindow.reserveTokens",
          "must be less than contextWindow.tokens (30), got 30"
        ],
        [
          { contextWindow: { tokens: 30, reserveTokens: 10 }, targetTokens: 21 },
          "targetTokens",
          "must be at most contextWindow.tokens less contextWindow.reserveTokens (20), got 21"
        ]
      ]
      for (const [options, option, description] of cases) {
        const error = yield* Effect.flip(RollingMemory.make(options).pipe(Effect.provide(Summarizer.layerDrop)))
        assert.instanceOf(error, ConfigError)
        assert.strictEqual(error.option, option)
        assert.strictEqual(error.description, description)
      }
    }))

  it.effect("a pinned message alone over the window: ContextWindowError naming the numbers, nothing changed", () =>
    Effect.gen(function*() {
      const { calls, layer } = recording(1)
      const memory = yield* RollingMemory.make({ contextWindow: { tokens: 12, reserveTokens: 2 }, pinSystem: true })
        .pipe(Effect.provide(layer))
      yield* memory.add(u(4, "u"))
      const before = yield* memory.toJSON
      const error = yield* Effect.flip(memory.add(Message.system(words(11, "p"))))
      assert.instanceOf(error, ContextWindowError)
      assert.deepStrictEqual(
        {
          window: error.windowTokens,
          reserve: error.reserveTokens,
          pinned: error.pinnedTokens,
          summary: error.summaryTokens,
          message: error.messageTokens,
          compaction: error.compactionTokens
        },
        { window: 12, reserve: 2, pinned: 0, summary: 0, message: 11, compaction: 0 }
      )
      assert.strictEqual(
        error.message,
        "pinned message (11 tokens) cannot fit: with the pinned messages held (0) it would exceed the context window less the reserve (12 - 2 = 10); not added"
      )
      // not appended, no prune, no summarizer call; the memory goes on
      assert.deepStrictEqual(yield* memory.toJSON, before)
      assert.strictEqual(calls.length, 0)
      yield* memory.add(Message.system(words(2, "p")))
      yield* memory.add(u(4, "v"))
      assert.deepStrictEqual([yield* memory.pinnedTokens, yield* memory.bufferTokens], [2, 8])
      assert.strictEqual(calls.length, 0)
    }))

  it.effect("with a usage ratio learnt: the error names it and the room in the memory's tokens", () =>
    Effect.gen(function*() {
      const memory = yield* RollingMemory.make({ contextWindow: { tokens: 12, reserveTokens: 2 }, pinSystem: true })
        .pipe(Effect.provide(Summarizer.layerDrop))
      yield* memory.add(Message.system(words(6, "p")))
      yield* memory.messages
      // the provider counts 12 where the memory counts 6: the ratio 2, the room 10 / 2 = 5
      yield* memory.recordUsage({ inputTokens: 12, overheadTokens: 0 })
      // the pinned messages are over already: the turn stays appended, no prune
      const over = yield* Effect.flip(memory.add(Message.user("q")))
      assert.instanceOf(over, ContextWindowError)
      assert.strictEqual(over.usageRatio, 2)
      assert.strictEqual(
        over.message,
        "pinned messages (6 tokens) and summary (0) exceed the context window less the reserve " +
          "(12 - 2 = 10; 5 in the memory's tokens at the usage ratio 2)"
      )
      assert.strictEqual((yield* memory.buffer).length, 2)
      const error = yield* Effect.flip(memory.add(Message.system(words(1, "q"))))
      assert.instanceOf(error, ContextWindowError)
      assert.strictEqual(error.usageRatio, 2)
      assert.strictEqual(
        error.message,
        "pinned message (1 tokens) cannot fit: with the pinned messages held (6) it would exceed the context window " +
          "less the reserve (12 - 2 = 10; 5 in the memory's tokens at the usage ratio 2); not added"
      )
      assert.strictEqual((yield* memory.buffer).length, 2)
    }))
})

describe("compact (contract 16.2)", () => {
  it.effect("folds down to half the budget by default, passing focus; a target given is used", () =>
    Effect.gen(function*() {
      const { calls, layer } = recording(1)
      const memory = yield* RollingMemory.make({ maxTokens: 100 }).pipe(Effect.provide(layer))
      for (let i = 0; i < 8; i++) yield* memory.add(i % 2 === 0 ? u(10, `u${i}x`) : a(10, `a${i}x`)) // 80 tokens
      assert.strictEqual(calls.length, 0)
      yield* memory.compact({ focus: "the open bug" })
      // down to 50: u0 a1 u2 go (80 -> 50); a3 would open the buffer: alignment takes it too
      assert.deepStrictEqual(calls, [{ turns: 4, focus: "the open bug" }])
      assert.strictEqual(yield* memory.bufferTokens, 40)
      yield* memory.compact({ targetTokens: 10 })
      // u4 a5 u6 go (40 -> 10); a7, the newest unit, stays though it is response-like (section 4 step 3)
      assert.deepStrictEqual(calls[1], { turns: 3, focus: undefined })
      assert.strictEqual(yield* memory.bufferTokens, 10)
      // nothing to evict: the newest unit is kept, no call
      yield* memory.compact({ targetTokens: 1 })
      assert.strictEqual(calls.length, 2)
    }))

  it.effect("a failing compaction commits nothing; wrong options are ConfigError", () =>
    Effect.gen(function*() {
      const failing = Summarizer.layerEffect(() => Effect.fail(new Error("model down")))
      const memory = yield* RollingMemory.make({ maxTokens: 100 }).pipe(Effect.provide(failing))
      for (let i = 0; i < 4; i++) yield* memory.add(i % 2 === 0 ? u(10, `u${i}x`) : a(10, `a${i}x`))
      const before = yield* memory.toJSON
      // 40 tokens are within half the budget: compact() has nothing to fold
      yield* memory.compact()
      const error = yield* Effect.flip(memory.compact({ targetTokens: 10 }))
      assert.instanceOf(error, SummarizerError)
      assert.deepStrictEqual(yield* memory.toJSON, before)
      const wrong = yield* Effect.flip(memory.compact({ targetTokens: 0 }))
      assert.strictEqual(wrong._tag, "ConfigError")
      const unknown = yield* Effect.flip(memory.compact({ target: 5 } as never))
      assert.strictEqual((unknown as ConfigError).option, "target")
    }))

  it.effect("one fold at a time: compact waits for a fold in flight; turns added meanwhile stay; interruption commits nothing", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const entered = yield* Deferred.make<void>()
      let calls = 0
      const slow = Summarizer.layerEffect((_s, turns) =>
        Effect.gen(function*() {
          calls++
          yield* Deferred.succeed(entered, undefined)
          yield* Deferred.await(gate)
          return `folded ${turns.length}`
        })
      )
      const memory = yield* RollingMemory.make({ maxTokens: 100 }).pipe(Effect.provide(slow))
      for (let i = 0; i < 4; i++) yield* memory.add(i % 2 === 0 ? u(10, `u${i}x`) : a(10, `a${i}x`))
      const fiber = yield* Effect.fork(memory.compact({ targetTokens: 10 }))
      yield* Deferred.await(entered)
      yield* memory.add(u(10, "late"))
      yield* Fiber.interrupt(fiber)
      assert.strictEqual((yield* memory.buffer).length, 5)
      assert.strictEqual(yield* memory.summary, "")
      const again = yield* Effect.fork(memory.compact({ targetTokens: 10 }))
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(again)
      assert.strictEqual(calls, 2)
      assert.strictEqual(yield* memory.summary, "folded 4")
      assert.deepStrictEqual((yield* memory.buffer).map((m) => m.content.split(" ")[0]), ["late0"])
    }))

  it.effect("SummaryMemory: folds the pending turns with focus", () =>
    Effect.gen(function*() {
      const calls: Array<string | undefined> = []
      let fail = true
      const layer = Summarizer.layerFunction((_s, turns, request) => {
        calls.push(request.focus)
        if (fail) throw new Error("down")
        return `${turns.length}`
      })
      const memory = yield* SummaryMemory.make().pipe(Effect.provide(layer))
      yield* Effect.flip(memory.add(u(3)))
      fail = false
      yield* memory.compact({ focus: "names" })
      assert.deepStrictEqual(calls, [undefined, "names"])
      assert.strictEqual(yield* memory.summary, "1")
    }))
})

describe("withOverflowRetry (contract 16.3)", () => {
  /** A provider that refuses a context over `limit` words as Anthropic does. */
  const provider = (limit: number) => {
    const sizes: Array<number> = []
    const call = (messages: ReadonlyArray<Message.Message>) =>
      Effect.suspend(() => {
        const size = messages.reduce((n, m) => n + m.content.split(" ").filter((w) => w !== "").length, 0)
        sizes.push(size)
        return size > limit
          ? Effect.fail(new Error(`400 prompt is too long: ${size} tokens > ${limit} maximum`))
          : Effect.succeed(`ok at ${size}`)
      })
    return { call, sizes }
  }

  it.effect("compacts to half, then to the newest unit, and succeeds; no turn lost", () =>
    Effect.gen(function*() {
      const { calls, layer } = recording(2)
      const memory = yield* RollingMemory.make({ maxTokens: 1000 }).pipe(Effect.provide(layer))
      for (let i = 0; i < 10; i++) yield* memory.add(i % 2 === 0 ? u(10, `u${i}x`) : a(10, `a${i}x`))
      const { call, sizes } = provider(30)
      const answer = yield* Memory.withOverflowRetry(memory, call)
      // 100 words refused; down to half: u0..u4 go, and a5 by alignment: 40 + a 2-word summary, refused;
      // down to the newest unit: u6 a7 u8 go: 10 + 2, accepted
      assert.deepStrictEqual(sizes, [100, 42, 12])
      assert.strictEqual(answer, "ok at 12")
      assert.deepStrictEqual(calls.map((c) => c.turns), [6, 3])
    }))

  it.effect("gives up after the set retries with ContextOverflowError carrying the provider's numbers", () =>
    Effect.gen(function*() {
      const memory = yield* RollingMemory.make({ maxTokens: 1000 }).pipe(Effect.provide(recording(2).layer))
      for (let i = 0; i < 10; i++) yield* memory.add(i % 2 === 0 ? u(10, `u${i}x`) : a(10, `a${i}x`))
      const { call, sizes } = provider(5)
      const error = yield* Effect.flip(Memory.withOverflowRetry(memory, call, { retries: 1 }))
      assert.instanceOf(error, ContextOverflowError)
      const overflow = error as ContextOverflowError
      assert.deepStrictEqual(
        [overflow.provider, overflow.requestedTokens, overflow.maxTokens, overflow.attempts],
        ["anthropic", 42, 5, 2]
      )
      assert.deepStrictEqual(sizes, [100, 42])
      // every turn is in the buffer or folded once: 6 folded, 4 kept (no compaction after the last refusal)
      assert.strictEqual((yield* memory.buffer).length, 4)
    }))

  it.effect("a buffer that cannot shrink ends the retries; other errors are the call's own", () =>
    Effect.gen(function*() {
      const memory = yield* RollingMemory.make({ maxTokens: 1000 }).pipe(Effect.provide(recording(2).layer))
      yield* memory.add(u(40))
      const { call, sizes } = provider(5)
      const error = yield* Effect.flip(Memory.withOverflowRetry(memory, call, { retries: 3 }))
      assert.instanceOf(error, ContextOverflowError)
      assert.deepStrictEqual(sizes, [40])
      const other = yield* Effect.flip(Memory.withOverflowRetry(memory, () => Effect.fail(new Error("rate limit"))))
      assert.strictEqual((other as Error).message, "rate limit")
    }))
})

describe("recordUsage and the usage ratio (contract 16.4)", () => {
  it.effect("the ratio, its bounds and errors; kept in the state (version 3) and reset by clear", () =>
    Effect.gen(function*() {
      const memory = yield* RollingMemory.make({ maxTokens: 100 }).pipe(Effect.provide(Summarizer.layerDrop))
      yield* memory.add(u(10))
      yield* memory.messages
      assert.strictEqual(yield* memory.usageRatio, 1)
      yield* memory.recordUsage({ inputTokens: 12 })
      assert.strictEqual(yield* memory.usageRatio, 1.2)
      yield* memory.recordUsage({ inputTokens: 30, overheadTokens: 20 })
      assert.strictEqual(yield* memory.usageRatio, 1.1)
      const json = yield* memory.toJSON
      assert.deepStrictEqual(json, {
        version: 3,
        summary: "",
        buffer: [{ role: "user", content: words(10, "u") }],
        usageRatio: 1.1
      })
      const restored = yield* RollingMemory.fromJSON(json, { maxTokens: 100 }).pipe(
        Effect.provide(Summarizer.layerDrop)
      )
      assert.strictEqual(yield* restored.usageRatio, 1.1)
      for (
        const usage of [{ inputTokens: Number.NaN }, { inputTokens: -1 }, { inputTokens: 5, overheadTokens: 1.5 }, {
          input: 5
        }]
      ) {
        const error = yield* Effect.flip(restored.recordUsage(usage as never))
        assert.instanceOf(error, UsageError)
      }
      const nan = yield* Effect.flip(restored.recordUsage({ inputTokens: Number.NaN }))
      assert.strictEqual(nan.description, "inputTokens: must be a positive integer, got NaN")
      // a request always has input tokens: 0 is a usage read wrong, refused (contract 16.4)
      const zero = yield* Effect.flip(restored.recordUsage({ inputTokens: 0 }))
      assert.instanceOf(zero, UsageError)
      assert.strictEqual(zero.description, "inputTokens: must be a positive integer, got 0")
      assert.strictEqual(zero.message, "invalid usage: inputTokens: must be a positive integer, got 0")
      const overhead = yield* Effect.flip(restored.recordUsage({ inputTokens: 5, overheadTokens: -1 }))
      assert.strictEqual(overhead.description, "overheadTokens: must be a non-negative integer, got -1")
      // an overhead of 0 is meaningful: the whole prompt is the memory's
      yield* restored.recordUsage({ inputTokens: 11, overheadTokens: 0 })
      assert.strictEqual(yield* restored.usageRatio, 1.1)
      assert.strictEqual(yield* restored.usageRatio, 1.1)
      yield* restored.clear
      assert.strictEqual(yield* restored.usageRatio, 1)
      assert.deepStrictEqual(yield* restored.toJSON, { version: 2, summary: "", buffer: [] })
    }))

  it.effect("a biased counter converges: within the window after 3 usages, never more than 2% over after (property)", () =>
    Effect.gen(function*() {
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(
            fc.constantFrom(0.8, 1.25),
            fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 10, maxLength: 60 }),
            async (bias, sizes) => {
              // the provider counts words; the memory's counter is biased by `bias`
              const biased = TokenCounter.layerFunction((text) =>
                Math.round(text.split(/\s+/).filter((w) => w !== "").length * bias)
              )
              const window = { tokens: 120, reserveTokens: 20 }
              const program = Effect.gen(function*() {
                const memory = yield* RollingMemory.make({ contextWindow: window })
                let usages = 0
                for (let i = 0; i < sizes.length; i++) {
                  yield* memory.add(i % 2 === 0 ? u(sizes[i], `u${i}x`) : a(sizes[i], `a${i}x`))
                  const messages = yield* memory.messages
                  const truth = messages.reduce((n, m) => n + m.content.split(" ").filter((w) => w !== "").length, 0)
                  const limit = window.tokens - window.reserveTokens
                  if (usages >= 3) assert.isAtMost(truth, Math.floor(limit * 1.02), `after ${usages} usages`)
                  yield* memory.recordUsage({ inputTokens: truth + window.reserveTokens })
                  usages++
                }
              }).pipe(Effect.provide(Layer.merge(biased, recording(2).layer)))
              await Effect.runPromise(program)
            }
          ),
          { numRuns: 60 }
        )
      )
    }))
})

it.effect("an add interrupted during a window fold loses nothing", () =>
  Effect.gen(function*() {
    const gate = yield* Deferred.make<void>()
    const entered = yield* Deferred.make<void>()
    const slow = Summarizer.layerEffect(() =>
      Effect.zipRight(Deferred.succeed(entered, undefined), Effect.zipRight(Deferred.await(gate), Effect.succeed("s")))
    )
    const memory = yield* RollingMemory.make({ contextWindow: { tokens: 20, reserveTokens: 0 } }).pipe(
      Effect.provide(slow)
    )
    yield* memory.add(u(10))
    const fiber = yield* Effect.fork(memory.add(a(15)))
    yield* Deferred.await(entered) // the fold is in flight
    yield* Fiber.interrupt(fiber)
    // both turns stay, nothing folded, the state still version 2
    assert.strictEqual((yield* memory.buffer).length, 2)
    assert.strictEqual(yield* memory.summary, "")
    assert.strictEqual(MemoryState.toJSON(yield* memory.state).version, 2)
  }))

describe("focus reaches the shipped summarizers' prompt (contract 16.2)", () => {
  it("SummaryPrompt.request states it before the budget; none without one", () => {
    const base = { summary: "", transcript: "user: hi", maxTokens: 50 }
    assert.strictEqual(
      SummaryPrompt.request({ ...base, focus: " the open bug " }),
      [
        "Current summary:",
        "<summary>",
        "(none yet)",
        "</summary>",
        "",
        "New turns:",
        "<turns>",
        "user: hi",
        "</turns>",
        "",
        "Keep in particular, in full detail: the open bug",
        "",
        "Reply with the updated summary, at most 50 tokens."
      ].join("\n")
    )
    assert.notInclude(SummaryPrompt.request(base), "Keep in particular")
  })

  it.effect("the ready OpenAI summarizer sends it through compact", () =>
    Effect.gen(function*() {
      const prompts: Array<string> = []
      const client = {
        chat: {
          completions: {
            create: async (body: { readonly messages: ReadonlyArray<{ readonly content: string }> }) => {
              prompts.push(body.messages[1].content)
              return { choices: [{ message: { content: "short summary" } }] }
            }
          }
        }
      }
      const summarize = openAIChatSummarizer(client as never, { model: "m", maxSummaryTokens: 50 })
      const memory = yield* RollingMemory.make({ maxTokens: 100 }).pipe(
        Effect.provide(Summarizer.layerPromise(summarize))
      )
      for (let i = 0; i < 4; i++) yield* memory.add(i % 2 === 0 ? u(10, `u${i}x`) : a(10, `a${i}x`))
      yield* memory.compact({ targetTokens: 10, focus: "user ids" })
      assert.strictEqual(prompts.length, 1)
      assert.include(prompts[0], "Keep in particular, in full detail: user ids")
      assert.strictEqual(yield* memory.summary, "short summary")
    }))
})
