/**
 * The conversation entity carries the compactions and recorded usages of a
 * request (docs/contract.md section 12.3): a usage moves the stored ratio as
 * the request is appended; a compaction runs in the fold, at its place among
 * the turns, with its focus.
 */
import * as TestRunner from "@effect/cluster/TestRunner"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Option, Stream, SubscriptionRef } from "effect"
import { ConversationCluster, ConversationEntity } from "../../src/cluster.js"
import type * as MemoryState from "../../src/schema/MemoryState.js"
import * as Message from "../../src/schema/Message.js"
import * as Summarizer from "../../src/services/Summarizer.js"
import * as Conversation from "../../src/store/Conversation.js"
import * as ConversationStore from "../../src/store/ConversationStore.js"

const Entity = ConversationEntity.ConversationEntity

/** The entity on a test runner over the in-memory store, and every state the store saved, newest last. */
const cluster = (summarizer: Layer.Layer<Summarizer.Summarizer>) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const memory = yield* Effect.provide(ConversationStore.ConversationStore, ConversationStore.layerMemory)
    const saved = yield* SubscriptionRef.make<ReadonlyMap<string, MemoryState.MemoryState>>(new Map())
    const raw: ConversationStore.Service = {
      ...memory,
      save: (id, state, expected, options) =>
        Effect.tap(
          memory.save(id, state, expected, options),
          () => SubscriptionRef.update(saved, (all) => new Map(all).set(id, state))
        )
    }
    return Layer.mergeAll(
      ConversationCluster.layerWriter,
      ConversationEntity.layer().pipe(
        Layer.provide(summarizer),
        Layer.provide(Layer.succeed(ConversationStore.ConversationStore, raw))
      ),
      Layer.succeed(Saves, saved)
    ).pipe(Layer.provideMerge(TestRunner.layer))
  }))

class Saves extends Context.Tag("test/budgets/Saves")<
  Saves,
  SubscriptionRef.SubscriptionRef<ReadonlyMap<string, MemoryState.MemoryState>>
>() {}

/** Waits until the store saved a state satisfying `done` (the fold runs in the background). */
const storedWhen = (id: string, done: (state: MemoryState.MemoryState) => boolean) =>
  Effect.flatMap(Saves, (saved) =>
    saved.changes.pipe(
      Stream.filterMap((all) => Option.filter(Option.fromNullable(all.get(id)), done)),
      Stream.runHead,
      Effect.map(Option.getOrThrow)
    ))

const focusing = Summarizer.layerFunction((summary, messages, request) =>
  `${summary}[${messages.map((m) => m.content).join(",")}${request.focus === undefined ? "" : `|${request.focus}`}]`
)

const u = Message.user
const a = Message.assistant
const contents = (state: MemoryState.MemoryState) => state.buffer.map((m) => m.content)

const apply = (id: string, requestId: string, operations: ReadonlyArray<Conversation.Operation>) =>
  Effect.flatMap(
    Entity.client,
    (client) => client(id).Apply({ requestId, options: { strategy: "rolling", maxTokens: 100 }, operations })
  )

describe("ConversationEntity: compact and recordUsage", () => {
  it.scopedLive("a compaction runs in the fold at its place among the request's turns, with its focus", () =>
    Effect.gen(function*() {
      const reply = yield* apply("k1", "r1", [
        { _tag: "add", messages: [u("u0"), a("a0"), u("u1")] },
        { _tag: "compact", targetTokens: 1, focus: "the bug" },
        { _tag: "add", messages: [a("a1"), u("u2")] }
      ])
      assert.deepStrictEqual(reply, { revision: 1, duplicate: false })
      const state = yield* storedWhen("k1", (s) => s.summary !== "")
      // folded where it was asked: [u0 a0 u1] down to 1 token, then a1 u2 appended (at the end it would fold more)
      assert.strictEqual(state.summary, "[u0,a0|the bug]")
      assert.deepStrictEqual(contents(state), ["u1", "a1", "u2"])
    }).pipe(Effect.provide(cluster(focusing))))

  it.scopedLive("a compaction of an earlier request keeps its place when later requests append", () =>
    Effect.gen(function*() {
      yield* apply("k2", "r1", [
        { _tag: "add", messages: [u("u0"), a("a0"), u("u1")] },
        { _tag: "compact", targetTokens: 1 }
      ])
      yield* apply("k2", "r2", [{ _tag: "add", messages: [a("a1"), u("u2")] }])
      const state = yield* storedWhen("k2", (s) => s.summary !== "" && s.buffer.length === 3)
      assert.strictEqual(state.summary, "[u0,a0]")
      assert.deepStrictEqual(contents(state), ["u1", "a1", "u2"])
    }).pipe(Effect.provide(cluster(focusing))))

  it.scopedLive("a usage moves the stored ratio as the request is appended; a clear resets it and drops a compaction", () =>
    Effect.gen(function*() {
      yield* apply("k3", "r1", [
        { _tag: "add", messages: [u("u0"), a("a0")] },
        { _tag: "usage", inputTokens: 1004, overheadTokens: 1000, contextTokens: 2 }
      ])
      const first = yield* Effect.flatMap(Entity.client, (client) => client("k3").Read())
      assert.strictEqual(first?.state.usageRatio, 2)
      yield* apply("k3", "r2", [{ _tag: "usage", inputTokens: 2, overheadTokens: 0, contextTokens: 2 }])
      const second = yield* Effect.flatMap(Entity.client, (client) => client("k3").Read())
      assert.strictEqual(second?.state.usageRatio, 1.5)
      yield* apply("k3", "r3", [
        { _tag: "compact", targetTokens: 1 },
        { _tag: "clear" },
        { _tag: "add", messages: [u("x1"), a("x2")] }
      ])
      const third = yield* Effect.flatMap(Entity.client, (client) => client("k3").Read())
      assert.strictEqual(third?.state.usageRatio, undefined)
      assert.strictEqual(third?.state.summary, "")
      assert.deepStrictEqual(contents(third!.state), ["x1", "x2"])
    }).pipe(Effect.provide(cluster(focusing))))

  it.scopedLive("the fold keeps the usage ratio and applies it: the budget is in the provider's tokens", () =>
    Effect.gen(function*() {
      // ratio 2: the budget of 4 tokens is 2 of the counter's
      yield* Effect.flatMap(Entity.client, (client) =>
        client("k4").Apply({
          requestId: "r1",
          options: { strategy: "rolling", maxTokens: 4 },
          operations: [
            { _tag: "add", messages: [u("u0")] },
            { _tag: "usage", inputTokens: 2, overheadTokens: 0, contextTokens: 1 },
            { _tag: "add", messages: [a("a0"), u("u1"), a("a1")] }
          ]
        }))
      const state = yield* storedWhen("k4", (s) => s.summary !== "")
      assert.strictEqual(state.usageRatio, 2)
      assert.strictEqual(state.summary, "[u0,a0]")
      assert.deepStrictEqual(contents(state), ["u1", "a1"])
    }).pipe(Effect.provide(cluster(focusing))))

  it.scopedLive("withMemory through the entity sends its compaction and usage; the entity applies them", () =>
    Effect.gen(function*() {
      yield* Conversation.withMemory("k5", { strategy: "rolling", maxTokens: 100 }, (memory) =>
        Effect.gen(function*() {
          yield* memory.addMessages([u("u0"), a("a0"), u("u1"), a("a1"), u("u2")])
          yield* memory.messages // 5 tokens
          yield* memory.recordUsage({ inputTokens: 10 })
          yield* memory.compact({ targetTokens: 1, focus: "names" })
        })).pipe(Effect.provide(Summarizer.layerDrop))
      const state = yield* storedWhen("k5", (s) => s.summary !== "")
      assert.strictEqual(state.summary, "[u0,a0,u1,a1|names]")
      assert.deepStrictEqual(contents(state), ["u2"])
      assert.strictEqual(state.usageRatio, 2)
    }).pipe(Effect.provide(cluster(focusing))))
})
