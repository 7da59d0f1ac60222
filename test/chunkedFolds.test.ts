/**
 * Folds in chunks, `maxSummarizerInputTokens` (docs/contract.md section 5):
 * evicted turns over the limit go to the summarizer in chunks, oldest first,
 * each folded into the running summary; a failing chunk commits the chunks
 * before it and leaves the rest in the buffer. Exact calls and states with
 * a failing middle chunk, through a synchronous and an effectful summarizer;
 * the accounting invariant as a property.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, FastCheck as fc, Layer } from "effect"
import { SummarizerError } from "../src/Errors.js"
import { Message, RollingMemory, Summarizer, SummaryMemory } from "../src/index.js"
import * as Options from "../src/schema/Options.js"
import * as Arb from "./support/arbitraries.js"

interface Call {
  readonly summary: string
  readonly messages: ReadonlyArray<Message.Message>
  /** The result, `undefined` when the call failed. */
  readonly result: string | undefined
}

/**
 * A summarizer answering `s1`, `s2`... (call numbers) and failing the calls
 * `fails` says, recording every call; synchronous (`fromFunction`) or
 * effectful (`fromEffect`).
 */
const recording = (kind: "sync" | "effect", fails: (call: number) => boolean) => {
  const calls: Array<Call> = []
  const answer = (summary: string, messages: ReadonlyArray<Message.Message>): string | undefined => {
    const n = calls.length + 1
    const result = fails(n) ? undefined : `s${n}`
    calls.push({ summary, messages, result })
    return result
  }
  const service = kind === "sync"
    ? Summarizer.fromFunction((summary, messages) => {
      const result = answer(summary, messages)
      if (result === undefined) throw new Error("model unavailable")
      return result
    })
    : Summarizer.fromEffect((summary, messages) => {
      const result = answer(summary, messages)
      return result === undefined ? Effect.fail("model unavailable") : Effect.succeed(result)
    })
  return { calls, layer: Layer.succeed(Summarizer.Summarizer, service) }
}

const contents = (messages: ReadonlyArray<Message.Message>) => messages.map((m) => m.content)

describe("folds in chunks (maxSummarizerInputTokens)", () => {
  for (const kind of ["sync", "effect"] as const) {
    it.effect(`a failing middle chunk: the chunk before it commits, the rest stays in the buffer (${kind})`, () =>
      Effect.gen(function*() {
        const { calls, layer } = recording(kind, (n) => n === 2)
        // word counts: 3 tokens a message; over 20 a prune evicts down to 3, 6 tokens (two messages) a chunk
        const memory = yield* RollingMemory.make({ maxTokens: 20, targetTokens: 3, maxSummarizerInputTokens: 6 }).pipe(
          Effect.provide(layer)
        )
        for (let i = 1; i <= 6; i++) yield* memory.add(Message.user(`m${i} b c`))
        assert.strictEqual(calls.length, 0)
        const exit = yield* Effect.exit(memory.add(Message.user("m7 b c")))
        assert.isTrue(Exit.isFailure(exit))
        assert.deepStrictEqual(
          calls.map((c) => [c.summary, contents(c.messages), c.result]),
          [["", ["m1 b c", "m2 b c"], "s1"], ["s1", ["m3 b c", "m4 b c"], undefined]]
        )
        const error = yield* Effect.flip(Effect.suspend(() => exit))
        assert.instanceOf(error, SummarizerError)
        // the first chunk committed; its turns left the buffer, the others stayed, the new turn too
        assert.strictEqual(yield* memory.summary, "s1")
        assert.deepStrictEqual(contents(yield* memory.buffer), ["m3 b c", "m4 b c", "m5 b c", "m6 b c", "m7 b c"])
        assert.strictEqual(yield* memory.summaryTokens, 1)
        // the next fold goes on from the running summary, in chunks again
        yield* memory.add(Message.user("m8 b c"))
        yield* memory.add(Message.user("m9 b c"))
        assert.deepStrictEqual(calls.slice(2).map((c) => [c.summary, contents(c.messages), c.result]), [
          ["s1", ["m3 b c", "m4 b c"], "s3"],
          ["s3", ["m5 b c", "m6 b c"], "s4"],
          ["s4", ["m7 b c", "m8 b c"], "s5"]
        ])
        assert.strictEqual(yield* memory.summary, "s5")
        assert.deepStrictEqual(contents(yield* memory.buffer), ["m9 b c"])
      }))
  }

  it.effect("within the limit: one call, as without the option", () =>
    Effect.gen(function*() {
      const { calls, layer } = recording("sync", () => false)
      const memory = yield* RollingMemory.make({ maxTokens: 20, targetTokens: 3, maxSummarizerInputTokens: 18 }).pipe(
        Effect.provide(layer)
      )
      for (let i = 1; i <= 7; i++) yield* memory.add(Message.user(`m${i} b c`))
      assert.deepStrictEqual(calls.map((c) => contents(c.messages).length), [6])
      assert.strictEqual(yield* memory.summary, "s1")
    }))

  it.effect("a first chunk that fails commits nothing; a chunk over the limit alone is still one chunk", () =>
    Effect.gen(function*() {
      const { calls, layer } = recording("effect", (n) => n === 1)
      const memory = yield* RollingMemory.make({ maxTokens: 20, targetTokens: 3, maxSummarizerInputTokens: 2 }).pipe(
        Effect.provide(layer)
      )
      for (let i = 1; i <= 6; i++) yield* memory.add(Message.user(`m${i} b c`))
      const error = yield* Effect.flip(memory.add(Message.user("m7 b c")))
      assert.instanceOf(error, SummarizerError)
      assert.deepStrictEqual(calls.map((c) => contents(c.messages)), [["m1 b c"]])
      assert.strictEqual(yield* memory.summary, "")
      assert.strictEqual((yield* memory.buffer).length, 7)
    }))

  it.effect("a summarizer not marked as compacting that returns a compaction fails the chunk with SummarizerError", () =>
    Effect.gen(function*() {
      // contract 15.7: a fold in chunks needs a text per chunk; an unmarked Promise function is known only at its call
      const compaction = {
        format: "openai-responses",
        item: { type: "compaction", encrypted_content: "gAAA" },
        content: ""
      } as const
      for (const compactsAt of [1, 2]) {
        const seen: Array<ReadonlyArray<string>> = []
        const summarizer = Summarizer.fromPromise(async (_summary, messages) => {
          seen.push(contents(messages))
          return seen.length === compactsAt ? Summarizer.compacted(compaction) : `s${seen.length}`
        })
        assert.isFalse(Summarizer.compacts(summarizer))
        const memory = yield* RollingMemory.make({ maxTokens: 20, targetTokens: 3, maxSummarizerInputTokens: 6 }).pipe(
          Effect.provideService(Summarizer.Summarizer, summarizer)
        )
        for (let i = 1; i <= 6; i++) yield* memory.add(Message.user(`m${i} b c`))
        const error = yield* Effect.flip(memory.add(Message.user("m7 b c")))
        assert.instanceOf(error, SummarizerError)
        assert.strictEqual(
          error.description,
          "summarizer returned a provider compaction where a summary text is needed " +
            "(summary segments, a fold in chunks, a call through summarize)"
        )
        // the chunk that compacted was the last call; the chunks before it committed, nothing of it or after it
        assert.deepStrictEqual(seen, [["m1 b c", "m2 b c"], ["m3 b c", "m4 b c"]].slice(0, compactsAt))
        const state = yield* memory.toJSON
        assert.strictEqual(state.summary, compactsAt === 1 ? "" : "s1")
        assert.isUndefined((state as { readonly compaction?: unknown }).compaction)
        assert.deepStrictEqual(
          contents(yield* memory.buffer),
          ["m1 b c", "m2 b c", "m3 b c", "m4 b c", "m5 b c", "m6 b c", "m7 b c"].slice(compactsAt === 1 ? 0 : 2)
        )
      }
    }))

  it.effect("turn mode: a chunk ends only before a user turn (a turn is never split)", () =>
    Effect.gen(function*() {
      const { calls, layer } = recording("sync", (n) => n === 2)
      const memory = yield* RollingMemory.make({
        maxTokens: 12,
        targetTokens: 2,
        boundary: "turn",
        maxSummarizerInputTokens: 1
      }).pipe(Effect.provide(layer))
      const turns = ["u1 x", "a1 x", "u2 x", "a2 x", "u3 x", "a3 x", "u4 x"]
      for (let i = 0; i < turns.length; i++) {
        const message = i % 2 === 0 ? Message.user(turns[i]) : Message.assistant(turns[i])
        yield* Effect.exit(memory.add(message))
      }
      assert.deepStrictEqual(calls.map((c) => [c.summary, contents(c.messages), c.result]), [
        ["", ["u1 x", "a1 x"], "s1"],
        ["s1", ["u2 x", "a2 x"], undefined]
      ])
      // the buffer opens on a user turn after the partial commit
      assert.strictEqual(yield* memory.summary, "s1")
      assert.deepStrictEqual(contents(yield* memory.buffer), ["u2 x", "a2 x", "u3 x", "a3 x", "u4 x"])
    }))

  it.effect("SummaryMemory: every pending turn, in chunks; a chunk ends before a message that is not response-like", () =>
    Effect.gen(function*() {
      const { calls, layer } = recording("sync", () => false)
      const memory = yield* SummaryMemory.make({ maxSummarizerInputTokens: 3 }).pipe(Effect.provide(layer))
      yield* memory.addMessages([Message.user("a b"), Message.assistant("c d"), Message.user("e f")])
      // the assistant's answer is response-like: no chunk ends before it
      assert.deepStrictEqual(calls.map((c) => [c.summary, contents(c.messages)]), [
        ["", ["a b", "c d"]],
        ["s1", ["e f"]]
      ])
      assert.strictEqual(yield* memory.summary, "s2")
    }))

  it("the option: a positive integer; its flag", () => {
    const bad = Options.decode(Options.RollingOptions, { maxSummarizerInputTokens: 0 })
    assert.isTrue(bad._tag === "Left" && bad.left.option === "maxSummarizerInputTokens")
    assert.strictEqual(Options.flagOf("maxSummarizerInputTokens"), "max-summarizer-input-tokens")
  })

  /**
   * The accounting invariant (docs/contract.md section 5): every turn added is in the buffer or in exactly
   * one summarizer call whose result was committed. The committed calls are the chain from the memory's
   * summary back through each call's input summary (every result is a distinct `sN`).
   */
  for (const kind of ["sync", "effect"] as const) {
    it.prop(
      `the accounting invariant under failing chunks (${kind})`,
      [
        Arb.conversation(40),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 8 }),
        fc.boolean(),
        fc.array(fc.boolean(), { minLength: 8, maxLength: 8 })
      ],
      ([conversation, maxTokens, target, maxInput, turn, failing]) =>
        Effect.runSync(Effect.gen(function*() {
          const { calls, layer } = recording(kind, (n) => failing[n % failing.length])
          const memory = yield* RollingMemory.make({
            maxTokens,
            targetTokens: Math.min(target, maxTokens),
            boundary: turn ? "turn" : "aligned",
            maxSummarizerInputTokens: maxInput
          }).pipe(Effect.provide(layer))
          const added: Array<Message.Message> = []
          for (const message of conversation) {
            added.push(message)
            yield* Effect.exit(memory.add(message))
            const committed: Array<Message.Message> = []
            let summary = yield* memory.summary
            while (summary !== "") {
              const call = calls.find((c) => c.result === summary)!
              committed.push(...call.messages)
              summary = call.summary
            }
            const seen = new Map<Message.Message, number>()
            for (const m of [...(yield* memory.buffer), ...committed]) seen.set(m, (seen.get(m) ?? 0) + 1)
            for (const m of added) assert.strictEqual(seen.get(m), 1)
            assert.strictEqual(seen.size, new Set(added).size)
          }
        })),
      { fastCheck: { numRuns: 200 } }
    )
  }
})
