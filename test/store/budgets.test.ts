/**
 * Stored conversations record `compact` and `recordUsage` as they record an
 * add (docs/contract.md section 12.2): saved with the state, and re-applied
 * to the newer state after a conflict, in their place among the adds.
 * Conflicts are made deterministic with Deferreds.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Option } from "effect"
import { ConfigError, UsageError } from "../../src/Errors.js"
import * as MemoryState from "../../src/schema/MemoryState.js"
import * as Message from "../../src/schema/Message.js"
import * as Summarizer from "../../src/services/Summarizer.js"
import * as Conversation from "../../src/store/Conversation.js"
import * as ConversationStore from "../../src/store/ConversationStore.js"
import * as Memory from "../../src/strategies/Memory.js"
import { assertMessages } from "../support/harness.js"
import { countingSaves } from "./fold.js"

const Store = ConversationStore.ConversationStore
const u = Message.user
const a = Message.assistant

const stored = (id: string) =>
  Effect.flatMap(Store, (store) => store.load(id)).pipe(
    Effect.map(Option.getOrThrowWith(() => new Error(`conversation ${id} is not stored`)))
  )

const seed = (id: string, buffer: ReadonlyArray<Message.Message>, usageRatio?: number) =>
  Effect.flatMap(Store, (store) => store.save(id, { ...MemoryState.make("", buffer), usageRatio }, 0))

/** Runs `first` until it signals `paused`, runs `second` to completion, then lets `first` finish: its save is stale. */
const interleave = <A, E, R, B, E2, R2>(
  first: (pause: Effect.Effect<void>) => Effect.Effect<A, E, R>,
  second: Effect.Effect<B, E2, R2>
) =>
  Effect.gen(function*() {
    const paused = yield* Deferred.make<void>()
    const gate = yield* Deferred.make<void>()
    const fiber = yield* Effect.fork(first(Effect.zipRight(Deferred.succeed(paused, undefined), Deferred.await(gate))))
    yield* Deferred.await(paused)
    const b = yield* second
    yield* Deferred.succeed(gate, undefined)
    return [yield* Fiber.join(fiber), b] as const
  })

/** A summarizer writing the folded turns' contents, and the focus of the request when there is one. */
const focusing = () => {
  const calls: Array<{ readonly folded: ReadonlyArray<string>; readonly focus: string | undefined }> = []
  const layer = Summarizer.layerFunction((summary, messages, request) => {
    calls.push({ folded: messages.map((m) => m.content), focus: request.focus })
    return `${summary}[${messages.map((m) => m.content).join(",")}${
      request.focus === undefined ? "" : `|${request.focus}`
    }]`
  })
  return { calls, layer }
}

const rolling = { strategy: "rolling", maxTokens: 100 } as const

describe("stored conversations: compact and recordUsage", () => {
  it.effect("a compaction is saved with the state", () => {
    const summarizer = focusing()
    return Effect.gen(function*() {
      yield* seed("c", [u("u0"), a("a0"), u("u1"), a("a1")])
      yield* Conversation.withMemory("c", rolling, (memory) => memory.compact({ targetTokens: 2, focus: "the bug" }))
      const s = yield* stored("c")
      assert.strictEqual(s.revision, 2)
      assert.strictEqual(s.state.summary, "[u0,a0|the bug]")
      assertMessages(s.state.buffer, [u("u1"), a("a1")])
    }).pipe(Effect.provide(ConversationStore.layerMemory), Effect.provide(summarizer.layer))
  })

  it.effect("on a conflict the compaction is re-applied to the newer state, in its place, with its focus", () => {
    const summarizer = focusing()
    return Effect.gen(function*() {
      yield* seed("c", [u("u0"), a("a0"), u("u1"), a("a1")])
      let runs = 0
      const [seen] = yield* interleave(
        (pause) =>
          Conversation.withMemory("c", rolling, (memory) =>
            Effect.gen(function*() {
              runs++
              yield* pause
              yield* memory.add(u("x1"))
              yield* memory.compact({ targetTokens: 2, focus: "the bug" })
              yield* memory.add(a("x2"))
              return yield* memory.context
            })),
        Conversation.withMemory("c", rolling, (memory) => memory.add(a("b1")))
      )
      assert.strictEqual(runs, 1)
      // A's own view: [u0 a0 u1 a1 x1] compacted to 2 tokens; the cutoff opens the buffer on a user turn
      // (section 4), so [x1] stays; then x2.
      assert.strictEqual(seen, "system: [u0,a0,u1,a1|the bug]\nuser: x1\nassistant: x2")
      // Re-applied on B's [u0 a0 u1 a1 b1]: x1 appended, compacted to 2 tokens (the buffer opens on x1), then x2.
      const s = yield* stored("c")
      assert.strictEqual(s.revision, 3)
      assert.strictEqual(s.state.summary, "[u0,a0,u1,a1,b1|the bug]")
      assertMessages(s.state.buffer, [u("x1"), a("x2")])
      assert.deepStrictEqual(summarizer.calls, [
        { folded: ["u0", "a0", "u1", "a1"], focus: "the bug" },
        { folded: ["u0", "a0", "u1", "a1", "b1"], focus: "the bug" }
      ])
    }).pipe(Effect.provide(ConversationStore.layerMemory), Effect.provide(summarizer.layer))
  })

  it.effect("a failed compaction is not recorded: the re-apply does not run it", () => {
    let fail = true
    const calls: Array<ReadonlyArray<string>> = []
    const layer = Summarizer.layerFunction((summary, messages) => {
      calls.push(messages.map((m) => m.content))
      if (fail) throw new Error("model down")
      return `${summary}[${messages.map((m) => m.content).join(",")}]`
    })
    return Effect.gen(function*() {
      yield* seed("c", [u("u0"), a("a0"), u("u1"), a("a1")])
      yield* interleave(
        (pause) =>
          Conversation.withMemory("c", rolling, (memory) =>
            Effect.gen(function*() {
              yield* pause
              const error = yield* Effect.flip(memory.compact({ targetTokens: 2 }))
              assert.strictEqual(error._tag, "SummarizerError")
              fail = false
              yield* memory.add(u("x1"))
            })),
        Conversation.withMemory("c", rolling, (memory) => memory.add(a("b1")))
      )
      const s = yield* stored("c")
      assert.strictEqual(s.state.summary, "")
      assertMessages(s.state.buffer, [u("u0"), a("a0"), u("u1"), a("a1"), a("b1"), u("x1")])
      assert.strictEqual(calls.length, 1, "only the failed call: the re-apply made none")
    }).pipe(Effect.provide(ConversationStore.layerMemory), Effect.provide(layer))
  })

  it.effect("the buffer and window strategies refuse compact with ConfigError (option strategy); nothing saved", () =>
    Effect.gen(function*() {
      yield* seed("c", [u("u0")])
      for (const options of [{ strategy: "buffer" } as const, { strategy: "window", maxMessages: 5 } as const]) {
        const error = yield* Effect.flip(Conversation.withMemory("c", options, (memory) => memory.compact()))
        assert.instanceOf(error, ConfigError)
        assert.strictEqual((error as ConfigError).option, "strategy")
      }
      assert.strictEqual((yield* stored("c")).revision, 1)
    }).pipe(Effect.provide(ConversationStore.layerMemory), Effect.provide(Summarizer.layerDrop)))

  it.effect("a recorded usage is saved with the state: its ratio is the next call's", () =>
    Effect.gen(function*() {
      yield* seed("c", [u("u0"), a("a0")])
      yield* Conversation.withMemory("c", rolling, (memory) =>
        Effect.gen(function*() {
          yield* memory.messages
          yield* memory.recordUsage({ inputTokens: 13, overheadTokens: 10 })
        }))
      const s = yield* stored("c")
      assert.strictEqual(s.revision, 2)
      assert.strictEqual(s.state.usageRatio, 1.5)
      const ratio = yield* Conversation.withMemory("c", rolling, (memory) => memory.usageRatio)
      assert.strictEqual(ratio, 1.5)
    }).pipe(Effect.provide(ConversationStore.layerMemory), Effect.provide(Summarizer.layerDrop)))

  it.effect("on a conflict a usage is re-applied as its own sample, from the newer state's ratio", () =>
    Effect.gen(function*() {
      yield* seed("c", [u("u0"), a("a0")])
      const [own] = yield* interleave(
        (pause) =>
          Conversation.withMemory("c", rolling, (memory) =>
            Effect.gen(function*() {
              yield* memory.messages // 2 tokens
              yield* pause
              yield* memory.recordUsage({ inputTokens: 4 }) // sample 4 / 2 = 2
              return yield* memory.usageRatio
            })),
        Conversation.withMemory("c", rolling, (memory) =>
          Effect.gen(function*() {
            yield* memory.add(u("b1"))
            yield* memory.messages // 3 tokens
            yield* memory.recordUsage({ inputTokens: 5, overheadTokens: 2 }) // sample 3 / 3 = 1
          }))
      )
      assert.strictEqual(own, 2, "A's own view: its first sample")
      const s = yield* stored("c")
      assert.strictEqual(s.revision, 3)
      assertMessages(s.state.buffer, [u("u0"), a("a0"), u("b1")])
      // from B's ratio 1, halfway to A's sample 2 (compared with A's 2 tokens, not the newer 3)
      assert.strictEqual(s.state.usageRatio, 1.5)
    }).pipe(Effect.provide(ConversationStore.layerMemory), Effect.provide(Summarizer.layerDrop)))

  it.effect("a usage re-applied after a clear of the newer state starts the ratio again; a clear in the call resets it", () =>
    Effect.gen(function*() {
      yield* seed("c", [u("u0"), a("a0")], 1.25)
      yield* interleave(
        (pause) =>
          Conversation.withMemory("c", rolling, (memory) =>
            Effect.gen(function*() {
              yield* pause
              yield* memory.recordUsage({ inputTokens: 3, overheadTokens: 0 }) // 3 / 2 = 1.5
              yield* memory.clear
              yield* memory.add(u("x1"))
            })),
        Conversation.withMemory("c", rolling, (memory) => memory.add(u("b1")))
      )
      const s = yield* stored("c")
      assert.strictEqual(s.state.usageRatio, undefined)
      assertMessages(s.state.buffer, [u("x1")])
    }).pipe(Effect.provide(ConversationStore.layerMemory), Effect.provide(Summarizer.layerDrop)))

  it.effect("a usage that changes nothing is not recorded (nothing saved); a wrong one fails with UsageError", () => {
    const { counts, layer } = countingSaves(ConversationStore.layerMemory)
    return Effect.gen(function*() {
      yield* seed("c", [u("u0")])
      yield* Conversation.withMemory(
        "c",
        rolling,
        (memory) => memory.recordUsage({ inputTokens: 5, overheadTokens: 5 })
      )
      const error = yield* Effect.flip(
        Conversation.withMemory("c", rolling, (memory) => memory.recordUsage({ inputTokens: -1 }))
      )
      assert.instanceOf(error, UsageError)
      assert.strictEqual(counts.saves, 1, "only the seed saved")
      assert.strictEqual((yield* stored("c")).state.usageRatio, undefined)
    }).pipe(Effect.provide(layer), Effect.provide(Summarizer.layerDrop))
  })

  it.effect("Memory.withOverflowRetry works on a stored conversation's memory: its compaction is saved", () => {
    const summarizer = focusing()
    return Effect.gen(function*() {
      yield* seed("c", [u("u0 u0"), a("a0 a0"), u("u1 u1"), a("a1 a1")])
      let calls = 0
      const answer = yield* Conversation.withMemory(
        "c",
        rolling,
        (memory) =>
          Memory.withOverflowRetry(memory, (messages) => {
            calls++
            // the provider counts words of the contents: 8 at first, then 3 of summary and 4 of buffer
            const words = messages.map((m) => m.content).join(" ").split(/\s+/).length
            return words > 7
              ? Effect.fail({ code: "context_length_exceeded", message: `resulted in ${words} tokens` })
              : Effect.succeed(words)
          })
      )
      assert.strictEqual(calls, 2)
      assert.strictEqual(answer, 7)
      const s = yield* stored("c")
      assert.strictEqual(s.revision, 2)
      assert.strictEqual(s.state.summary, "[u0 u0,a0 a0]")
      assertMessages(s.state.buffer, [u("u1 u1"), a("a1 a1")])
    }).pipe(Effect.provide(ConversationStore.layerMemory), Effect.provide(summarizer.layer))
  })
})
