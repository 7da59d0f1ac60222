/**
 * Conversation.withMemory on the Effect 4 line: the Effect 3 suite's
 * behaviours (test/store/Conversation.test.ts): load, run the caller's effect
 * once, save; on a conflict re-apply the recorded operations to the newer
 * state. Conflicts are made deterministic with Deferreds, time with TestClock.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Option, Schedule } from "effect"
import { TestClock } from "effect/testing"
import { ConfigError, SummarizerError, TokenCountError } from "../../src/Errors.js"
import * as MemoryState from "../../src/schema/MemoryState.js"
import * as Message from "../../src/schema/Message.js"
import * as Summarizer from "../../src/services/Summarizer.js"
import * as TokenCounter from "../../src/services/TokenCounter.js"
import * as Conversation from "../../src/store/Conversation.js"
import * as ConversationStore from "../../src/store/ConversationStore.js"
import type { Memory } from "../../src/strategies/Memory.js"

const Store = ConversationStore.ConversationStore
const u = Message.user
const a = Message.assistant

const labels = (summary: string, messages: ReadonlyArray<{ readonly content: string }>): string =>
  `${summary}+[${messages.map((m) => m.content.split(" ")[0]).join(",")}]`

const storeNow = Effect.gen(function*() {
  return yield* Store
})

const stored = (id: string) =>
  Effect.gen(function*() {
    const store = yield* Store
    return Option.getOrThrowWith(yield* store.load(id), () => new Error(`conversation ${id} is not stored`))
  })

const assertStored = (id: string, revision: number, summary: string, buffer: ReadonlyArray<Message.Message>) =>
  Effect.gen(function*() {
    const s = yield* stored(id)
    assert.strictEqual(s.revision, revision, "revision")
    assert.strictEqual(s.state.summary, summary, "summary")
    assert.deepStrictEqual(s.state.buffer.map(String), buffer.map(String))
  })

const seed = (id: string, summary: string, buffer: ReadonlyArray<Message.Message>) =>
  Effect.flatMap(storeNow, (store) => store.save(id, MemoryState.make(summary, buffer), 0))

/** Runs `first` until it pauses, runs `second` to completion, then lets `first` finish: its save is stale. */
const interleave = <A, E, R, B, E2, R2>(
  first: (pause: Effect.Effect<void>) => Effect.Effect<A, E, R>,
  second: Effect.Effect<B, E2, R2>
) =>
  Effect.gen(function*() {
    const paused = yield* Deferred.make<void>()
    const gate = yield* Deferred.make<void>()
    const fiber = yield* Effect.forkChild(
      first(Effect.andThen(Deferred.succeed(paused, undefined), Deferred.await(gate)))
    )
    yield* Deferred.await(paused)
    const b = yield* second
    yield* Deferred.succeed(gate, undefined)
    return [yield* Fiber.join(fiber), b] as const
  })

/** A store over `base` whose saves are counted, and always conflict when `conflicting`. */
const countingSaves = (conflicting: boolean) => {
  const counts = { saves: 0 }
  const layer = Layer.effect(
    Store,
    Effect.gen(function*() {
      const store = yield* Store
      return {
        ...store,
        save: (id: string, state: MemoryState.MemoryState, revision: number) =>
          Effect.suspend(() => {
            counts.saves++
            return conflicting
              ? Effect.fail(
                new ConversationStore.ConversationConflictError({ conversationId: id, expectedRevision: revision })
              )
              : store.save(id, state, revision)
          })
      }
    })
  ).pipe(Layer.provide(ConversationStore.layerMemory))
  return { counts, layer }
}

describe("Conversation.withMemory (Effect 4)", () => {
  it.effect("hands the caller the stored memory, returns its result and saves the next revision", () =>
    Effect.gen(function*() {
      yield* seed("c", "S", [u("u0")])
      const result = yield* Conversation.withMemory("c", { strategy: "buffer" }, (memory) =>
        Effect.gen(function*() {
          assert.strictEqual(memory.strategy, "buffer")
          assert.strictEqual(yield* memory.context, "system: S\nuser: u0")
          yield* memory.add(u("u1"))
          return yield* memory.context
        }))
      assert.strictEqual(result, "system: S\nuser: u0\nuser: u1")
      yield* assertStored("c", 2, "S", [u("u0"), u("u1")])
    }).pipe(Effect.provide(ConversationStore.layerMemory)))

  it.effect("saves nothing when the caller neither adds nor clears", () => {
    const { counts, layer } = countingSaves(false)
    return Effect.gen(function*() {
      assert.strictEqual(yield* Conversation.withMemory("new", { strategy: "buffer" }, (m) => m.context), "")
      assert.isTrue(Option.isNone(yield* Effect.flatMap(storeNow, (s) => s.load("new"))))
      yield* seed("c", "", [u("u0")])
      yield* Conversation.withMemory("c", { strategy: "buffer" }, (m) => m.messages)
      yield* assertStored("c", 1, "", [u("u0")])
      assert.strictEqual(counts.saves, 1, "only the seed saved")
    }).pipe(Effect.provide(layer))
  })

  it.effect("saves nothing when the caller's effect fails, and fails with its error", () =>
    Effect.gen(function*() {
      yield* seed("c", "", [u("u0")])
      const error = yield* Effect.flip(
        Conversation.withMemory("c", { strategy: "buffer" }, (memory) =>
          Effect.andThen(memory.add(u("u1")), Effect.fail("model down" as const)))
      )
      assert.strictEqual(error, "model down")
      yield* assertStored("c", 1, "", [u("u0")])
    }).pipe(Effect.provide(ConversationStore.layerMemory)))

  it.effect("on a conflict re-applies the caller's adds to the newer state without running the caller again", () =>
    Effect.gen(function*() {
      yield* seed("c", "", [u("u0")])
      let runs = 0
      const [result] = yield* interleave(
        (pause) =>
          Conversation.withMemory("c", { strategy: "buffer" }, (memory) =>
            Effect.gen(function*() {
              runs++
              yield* memory.add(u("a1"))
              yield* pause
              yield* memory.add(a("a2"))
              return yield* memory.context
            })),
        Conversation.withMemory("c", { strategy: "buffer" }, (memory) => memory.add(u("b1")))
      )
      assert.strictEqual(runs, 1, "the caller's effect ran once")
      assert.strictEqual(result, "user: u0\nuser: a1\nassistant: a2", "the caller's result, from its own view")
      yield* assertStored("c", 3, "", [u("u0"), u("b1"), u("a1"), a("a2")])
    }).pipe(Effect.provide(ConversationStore.layerMemory)))

  it.effect("re-applies clears in their place among the adds", () =>
    Effect.gen(function*() {
      yield* seed("c", "S", [u("u0")])
      yield* interleave(
        (pause) =>
          Conversation.withMemory("c", { strategy: "buffer" }, (memory) =>
            Effect.gen(function*() {
              yield* memory.add(u("a1"))
              yield* memory.clear
              yield* pause
              yield* memory.add(u("a2"))
            })),
        Conversation.withMemory("c", { strategy: "buffer" }, (memory) => memory.add(u("b1")))
      )
      yield* assertStored("c", 3, "", [u("a2")])
    }).pipe(Effect.provide(ConversationStore.layerMemory)))

  it.effect("re-applied adds prune and fold as usual, in one summarizer call per prune", () => {
    const calls: Array<string> = []
    const summarizer = Summarizer.layerFunction((summary, messages) => {
      const out = labels(summary, messages)
      calls.push(out)
      return out
    })
    return Effect.gen(function*() {
      yield* seed("c", "", [u("u0"), a("a0")])
      yield* interleave(
        (pause) =>
          Conversation.withMemory(
            "c",
            { strategy: "rolling", maxTokens: 3 },
            (memory) => Effect.andThen(pause, memory.add(u("x1")))
          ),
        Conversation.withMemory(
          "c",
          { strategy: "rolling", maxTokens: 3 },
          (memory) => Effect.andThen(memory.add(u("b1")), memory.add(a("b2")))
        )
      )
      // B: [u0 a0 b1] fits; b2 makes 4 tokens: u0 a0 fold, [b1 b2] stays. A re-applied on [b1 b2]: x1 fits.
      assert.deepStrictEqual(calls, ["+[u0,a0]"])
      yield* assertStored("c", 3, "+[u0,a0]", [u("b1"), a("b2"), u("x1")])
    }).pipe(Effect.provide(ConversationStore.layerMemory), Effect.provide(summarizer))
  })

  it.effect("a conversation deleted meanwhile gets the caller's turns on an empty state", () =>
    Effect.gen(function*() {
      yield* seed("c", "S", [u("u0")])
      yield* interleave(
        (pause) =>
          Conversation.withMemory("c", { strategy: "buffer" }, (memory) => Effect.andThen(pause, memory.add(u("a1")))),
        Effect.flatMap(storeNow, (store) => store.delete("c"))
      )
      // Revision 1 the seed, 2 the delete's tombstone, 3 the re-applied save: never 1 again.
      yield* assertStored("c", 3, "", [u("a1")])
    }).pipe(Effect.provide(ConversationStore.layerMemory)))

  it.effect("a summarizer failing while an add is re-applied keeps the turn, as an add does", () =>
    Effect.gen(function*() {
      yield* seed("c", "", [u("u0")])
      const [result] = yield* interleave(
        (pause) =>
          Conversation.withMemory(
            "c",
            { strategy: "rolling", maxTokens: 2 },
            (memory) => Effect.andThen(pause, Effect.as(memory.add(u("a1")), "done"))
          ),
        Conversation.withMemory("c", { strategy: "rolling", maxTokens: 2 }, (memory) => memory.add(u("b1")))
      )
      assert.strictEqual(result, "done")
      yield* assertStored("c", 3, "", [u("u0"), u("b1"), u("a1")])
    }).pipe(
      Effect.provide(ConversationStore.layerMemory),
      Effect.provide(Summarizer.layerFunction(() => {
        throw new Error("model down")
      }))
    ))

  it.effect("an add that failed counting is not re-applied; an add whose summarizer failed is", () => {
    const counted: Array<string> = []
    const counter = TokenCounter.layerFunction((text) => {
      counted.push(text)
      if (text === "bad") throw new Error("cannot count")
      return 1
    })
    return Effect.gen(function*() {
      yield* seed("c", "", [])
      yield* interleave(
        (pause) =>
          Conversation.withMemory("c", { strategy: "rolling", maxTokens: 1 }, (memory) =>
            Effect.gen(function*() {
              const error = yield* Effect.flip(memory.add(u("bad")))
              assert.instanceOf(error, TokenCountError)
              yield* memory.add(u("a1"))
              yield* pause
              yield* Effect.ignore(memory.add(u("a2")))
            })),
        Conversation.withMemory("c", { strategy: "rolling", maxTokens: 1 }, (memory) => memory.add(u("b1")))
      )
      yield* assertStored("c", 3, "", [u("b1"), u("a1"), u("a2")])
      assert.deepStrictEqual(counted, ["bad", "a1", "b1", "a2", "b1", "a1", "a2"])
    }).pipe(
      Effect.provide(ConversationStore.layerMemory),
      Effect.provide(counter),
      Effect.provide(Summarizer.layerFunction(() => {
        throw new Error("model down")
      }))
    )
  })

  it.effect("an interrupted add is re-applied only when its turn was appended", () =>
    Effect.gen(function*() {
      const counting = yield* Deferred.make<void>()
      const folding = yield* Deferred.make<void>()
      let folds = 0
      const services = Layer.merge(
        Layer.succeed(
          TokenCounter.TokenCounter,
          TokenCounter.fromEffect((text) =>
            text === "slow" ? Effect.andThen(Deferred.succeed(counting, undefined), Effect.never) : Effect.succeed(1)
          )
        ),
        Layer.succeed(Summarizer.Summarizer, {
          summarize: () =>
            folds++ === 0
              ? Effect.andThen(Deferred.succeed(folding, undefined), Effect.never)
              : Effect.fail(new SummarizerError({ description: "model down" }))
        })
      )
      yield* seed("c", "", [u("u0")])
      yield* interleave(
        (pause) =>
          Conversation.withMemory("c", { strategy: "rolling", maxTokens: 2 }, (memory) =>
            Effect.gen(function*() {
              const slow = yield* Effect.forkChild(memory.add(u("slow")))
              yield* Deferred.await(counting)
              yield* Fiber.interrupt(slow)
              yield* memory.add(u("a1"))
              const pruning = yield* Effect.forkChild(memory.add(u("a2")))
              yield* Deferred.await(folding)
              yield* Fiber.interrupt(pruning)
              assert.deepStrictEqual((yield* memory.buffer).map(String), ["user: u0", "user: a1", "user: a2"])
              yield* pause
            })),
        Conversation.withMemory("c", { strategy: "rolling", maxTokens: 2 }, (memory) => memory.add(u("b1")))
      ).pipe(Effect.provide(services))
      yield* assertStored("c", 3, "", [u("u0"), u("b1"), u("a1"), u("a2")])
    }).pipe(Effect.provide(ConversationStore.layerMemory)))

  it.effect("gives up with ConversationConflictError when the retry schedule is exhausted; nothing is saved", () => {
    const { counts, layer } = countingSaves(true)
    return Effect.gen(function*() {
      let runs = 0
      const error = yield* Effect.flip(
        Conversation.withMemory(
          "c",
          { strategy: "buffer", retry: Schedule.recurs(3) },
          (memory) => Effect.andThen(Effect.sync(() => runs++), memory.add(u("a1")))
        )
      )
      assert.instanceOf(error, ConversationStore.ConversationConflictError)
      assert.strictEqual(runs, 1)
      assert.strictEqual(counts.saves, 5, "the save, the first re-apply, then 3 retries")
      assert.isTrue(Option.isNone(yield* Effect.flatMap(storeNow, (s) => s.load("c"))))
    }).pipe(Effect.provide(layer))
  })

  it.effect("the default retry: 40 re-applies, backoff 10 ms doubling capped at 250 ms, about 9 s in all", () => {
    const { counts, layer } = countingSaves(true)
    return Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(
        Conversation.withMemory("c", { strategy: "buffer" }, (memory) => memory.add(u("a1")))
      )
      // Delays 10, 20, 40, 80, 160, then 35 x 250 ms = 9.06 s, each jittered.
      yield* TestClock.adjust("7 seconds")
      assert.isUndefined(fiber.pollUnsafe(), "still retrying after 7 s")
      yield* TestClock.adjust("4 seconds")
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.instanceOf(error, ConversationStore.ConversationConflictError)
      assert.strictEqual(counts.saves, 42, "the save, the first re-apply, then 40 retries")
    }).pipe(Effect.provide(layer))
  })

  it.effect("other store errors are not retried", () =>
    Effect.gen(function*() {
      let saves = 0
      const failing = Layer.effect(
        Store,
        Effect.gen(function*() {
          const store = yield* Store
          return {
            ...store,
            save: (id: string) =>
              Effect.suspend(() => {
                saves++
                return Effect.fail(
                  new ConversationStore.ConversationStoreError({ conversationId: id, operation: "save", cause: "disk" })
                )
              })
          }
        })
      ).pipe(Layer.provide(ConversationStore.layerMemory))
      const error = yield* Effect.flip(
        Conversation.withMemory("c", { strategy: "buffer" }, (memory) => memory.add(u("a1")))
      ).pipe(Effect.provide(failing))
      assert.instanceOf(error, ConversationStore.ConversationStoreError)
      assert.strictEqual(error.message, "cannot save conversation \"c\"")
      assert.strictEqual(saves, 1)
    }))

  it.effect("every strategy: window prunes by count, summary folds every turn", () =>
    Effect.gen(function*() {
      yield* Conversation.withMemory("w", { strategy: "window", maxMessages: 2 }, (memory) =>
        Effect.forEach([u("1"), a("2"), u("3")], (m) =>
          memory.add(m), { discard: true }))
      yield* assertStored("w", 1, "", [u("3")])
      yield* Conversation.withMemory("s", { strategy: "summary" }, (memory) =>
        Effect.andThen(memory.add(u("1")), memory.add(a("2"))))
      yield* assertStored("s", 1, "+[1]+[2]", [])
    }).pipe(Effect.provide(ConversationStore.layerMemory), Effect.provide(Summarizer.layerFunction(labels))))

  it.effect("compactions and usages are recorded and re-applied after a conflict", () =>
    Effect.gen(function*() {
      yield* seed("c", "", [u("u0 x"), a("a0 x")])
      yield* interleave(
        (pause) =>
          Conversation.withMemory("c", { strategy: "rolling", maxTokens: 100 }, (memory) =>
            Effect.gen(function*() {
              yield* memory.messages
              yield* memory.recordUsage({ inputTokens: 8, overheadTokens: 0 })
              yield* pause
              yield* memory.compact({ targetTokens: 2 })
            })),
        Conversation.withMemory("c", { strategy: "rolling", maxTokens: 100 }, (memory) => memory.add(u("b1 x")))
      )
      const s = yield* stored("c")
      assert.strictEqual(s.revision, 3)
      // the usage: 8 provider tokens for the 4 counted, ratio 2; the compaction to 2 tokens (1 in counter
      // terms) folds every turn but the last user turn
      assert.strictEqual(s.state.usageRatio, 2)
      assert.strictEqual(s.state.summary, "+[u0,a0]")
      assert.deepStrictEqual(s.state.buffer.map(String), ["user: b1 x"])
    }).pipe(Effect.provide(ConversationStore.layerMemory), Effect.provide(Summarizer.layerFunction(labels))))

  it.effect("bad strategy options fail with ConfigError before the caller's effect runs", () =>
    Effect.gen(function*() {
      let ran = false
      const f = (_: Memory) => Effect.sync(() => (ran = true))
      const summary = yield* Effect.flip(Conversation.withMemory("c", { strategy: "summary" }, f))
      assert.instanceOf(summary, ConfigError)
      assert.strictEqual((summary as ConfigError).option, "summarizer")
      const window = yield* Effect.flip(Conversation.withMemory("c", { strategy: "window", maxMessages: 0 }, f))
      assert.strictEqual((window as ConfigError).option, "maxMessages")
      const lru = (yield* Effect.flip(Conversation.withMemory("c", { strategy: "lru" } as never, f))) as ConfigError
      assert.deepStrictEqual(
        [lru.option, lru.description],
        ["strategy", "must be one of rolling, buffer, window, summary, got \"lru\""]
      )
      const misspelt = (yield* Effect.flip(
        Conversation.withMemory("c", { strategy: "rolling", maxToken: 9 } as never, f)
      )) as ConfigError
      assert.deepStrictEqual(
        [misspelt.option, misspelt.description],
        [
          "maxToken",
          "unknown option for the rolling strategy (known: strategy, maxTokens, contextWindow, targetTokens, boundary, pinSystem, clearToolResults, maxToolResultTokens, summaryRole, summaryFraming, summary, maxSummaryTokens, maxSummarizerInputTokens, ledger, archive, conversationId, retry)"
        ]
      )
      const retry = (yield* Effect.flip(
        Conversation.withMemory("c", { strategy: "buffer", retry: 3 } as never, f)
      )) as ConfigError
      assert.deepStrictEqual([retry.option, retry.description], ["retry", "must be a Schedule"])
      const nul = (yield* Effect.flip(Conversation.withMemory("c", null as never, f))) as ConfigError
      assert.deepStrictEqual([nul.option, nul.description], ["options", "must be an object, got null"])
      assert.isFalse(ran)
      assert.isTrue(Option.isNone(yield* Effect.flatMap(storeNow, (store) => store.load("c"))), "nothing saved")
    }).pipe(Effect.provide(Summarizer.layerDrop), Effect.provide(ConversationStore.layerMemory)))
})
