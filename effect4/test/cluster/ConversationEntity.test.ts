/**
 * The conversation entity on the Effect 4 line in one process
 * (`effect/cluster`'s `TestRunner`: in-memory sharding, messages serialized
 * as between runners), over the in-memory store: the Effect 3 suite's
 * behaviours (test/cluster/ConversationEntity.test.ts) with its exact
 * values: `withMemory` through the entity, requests applied once, appends
 * committed before the fold, a clear during a fold, and the store's
 * compare-and-set as a fencing guard. Waits on the store's saves and on
 * Deferreds, never sleeps.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Deferred, Effect, Layer, Option, Queue, Stream, SubscriptionRef } from "effect"
import { TestRunner } from "effect/cluster"
import { ConversationCluster, ConversationEntity } from "../../src/cluster.js"
import * as MemoryState from "../../src/schema/MemoryState.js"
import * as Message from "../../src/schema/Message.js"
import * as Summarizer from "../../src/services/Summarizer.js"
import * as Conversation from "../../src/store/Conversation.js"
import * as ConversationStore from "../../src/store/ConversationStore.js"

const Entity = ConversationEntity.ConversationEntity

/** The store the entity persists to, reached directly (the `ConversationStore` in context reads through the entity). */
class Store extends Context.Service<Store, ConversationStore.Service>()("test/RawStore") {}

/** Every state the store saved, newest last, by conversation id: what the tests wait on. */
class Saved extends Context.Service<
  Saved,
  SubscriptionRef.SubscriptionRef<ReadonlyMap<string, MemoryState.MemoryState>>
>()("test/Saved") {}

/** Appends the folded turns to the summary as one bracketed group (the Effect 3 suite's `fold`). */
const fold = (summary: string, messages: ReadonlyArray<Message.Message>): string =>
  `${summary}[${messages.map((m) => m.content).join(",")}]`

const layerEffect = <E>(
  f: (summary: string, messages: ReadonlyArray<Message.Message>) => Effect.Effect<string, E>
): Layer.Layer<Summarizer.Summarizer> => Layer.succeed(Summarizer.Summarizer, Summarizer.fromEffect(f))

/** The entity on a test runner, with `withMemory`'s services over it, and the store it persists to. */
const cluster = (summarizer: Layer.Layer<Summarizer.Summarizer>) =>
  Layer.unwrap(Effect.gen(function*() {
    const memory = yield* Effect.provide(
      Effect.service(ConversationStore.ConversationStore),
      ConversationStore.layerMemory
    )
    const saved = yield* SubscriptionRef.make<ReadonlyMap<string, MemoryState.MemoryState>>(new Map())
    // Each save that lands is published, so a test waits for the state it expects instead of polling.
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
      Layer.succeed(Store, raw),
      Layer.succeed(Saved, saved)
    ).pipe(Layer.provideMerge(TestRunner.layer))
  }))

const folding = Summarizer.layerFunction((summary, messages) => fold(summary, messages))

const contents = (state: MemoryState.MemoryState) => state.buffer.map((m) => m.content)

const add = (id: string, text: string) =>
  // the memory handed to the callback is the writer's: the runner's summarizer folds, the writer's local one never saves
  Conversation.withMemory(id, { strategy: "rolling", maxTokens: 3 }, (memory) => memory.add(Message.user(text))).pipe(
    Effect.provide(Summarizer.layerDrop)
  )

/** The state the entity holds, through its `Read`. */
const read = (id: string) =>
  Effect.flatMap(Entity.client, (client) => client(id).Read(undefined)).pipe(
    Effect.map((stored) => stored === null ? MemoryState.empty : stored.state)
  )

/** Waits until the store saved a state satisfying `done` (the fold runs in the background): the saves signal it. */
const storedWhen = (id: string, done: (state: MemoryState.MemoryState) => boolean) =>
  Effect.flatMap(Effect.service(Saved), (saved) =>
    SubscriptionRef.changes(saved).pipe(
      Stream.map((all) => all.get(id)),
      Stream.filter((state): state is MemoryState.MemoryState => state !== undefined && done(state)),
      Stream.runHead,
      Effect.map(Option.getOrThrow)
    ))

const apply = (id: string, requestId: string, operations: ReadonlyArray<Conversation.Operation>) =>
  Effect.flatMap(
    Entity.client,
    (client) => client(id).Apply({ requestId, options: { strategy: "rolling", maxTokens: 3 }, operations })
  )

describe("ConversationEntity (Effect 4)", () => {
  it.live("withMemory writes through the entity; the entity folds with its runner's summarizer", () =>
    Effect.gen(function*() {
      for (const text of ["a", "b", "c", "d", "e"]) yield* add("c1", text)
      const state = yield* storedWhen("c1", (s) => s.summary !== "" && s.buffer.length <= 3)
      assert.deepStrictEqual(contents(state), ["c", "d", "e"])
      assert.deepStrictEqual(state.summary.match(/[a-e]/g), ["a", "b"])
      const loaded = yield* Conversation.withMemory("c1", { strategy: "rolling", maxTokens: 3 }, (m) => m.context)
      assert.strictEqual(loaded, `system: ${state.summary}\nuser: c\nuser: d\nuser: e`)
    }).pipe(Effect.provide(Summarizer.layerDrop), Effect.provide(cluster(folding))))

  it.live("a request delivered twice is applied once: the second reply says duplicate", () =>
    Effect.gen(function*() {
      const operations = [{ _tag: "add" as const, messages: [Message.user("once")] }]
      const first = yield* apply("c2", "req-1", operations)
      const second = yield* apply("c2", "req-1", operations)
      assert.deepStrictEqual(first, { revision: 1, duplicate: false })
      assert.deepStrictEqual(second, { revision: 1, duplicate: true })
      const stored = Option.getOrThrow(yield* Effect.flatMap(Effect.service(Store), (s) => s.load("c2")))
      assert.deepStrictEqual(contents(stored.state), ["once"])
      assert.deepStrictEqual(stored.requestIds, ["req-1"])
    }).pipe(Effect.provide(cluster(folding))))

  it.live("a request id stored before a restart is still known: a redelivery after a crash is applied once", () =>
    Effect.gen(function*() {
      // The store already holds the request (the owner saved it, then died before replying).
      const store = yield* Store
      yield* store.save("c3", MemoryState.make("", [Message.user("saved")]), 0, { requestIds: ["req-9"] })
      const again = yield* apply("c3", "req-9", [{ _tag: "add", messages: [Message.user("saved")] }])
      assert.deepStrictEqual(again, { revision: 1, duplicate: true })
      assert.deepStrictEqual(contents(yield* read("c3")), ["saved"])
    }).pipe(Effect.provide(cluster(folding))))

  it.live("a slow summarizer holds no writer: appends are stored while it runs, and kept after its fold", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const started = yield* Deferred.make<void>()
      const slow = layerEffect((summary, messages) =>
        Deferred.succeed(started, undefined).pipe(
          Effect.andThen(Deferred.await(release)),
          Effect.as(fold(summary, messages))
        )
      )
      yield* Effect.gen(function*() {
        for (const text of ["a", "b", "c", "d"]) yield* add("c4", text)
        yield* Deferred.await(started)
        // The fold of [a] waits; writers go on.
        yield* add("c4", "e")
        yield* add("c4", "f")
        assert.deepStrictEqual(contents(yield* read("c4")), ["a", "b", "c", "d", "e", "f"])
        yield* Deferred.succeed(release, undefined)
        const state = yield* storedWhen("c4", (s) => s.buffer.length <= 3)
        const all = [...state.summary.match(/[a-f]/g)!, ...contents(state)]
        assert.deepStrictEqual(all, ["a", "b", "c", "d", "e", "f"])
      }).pipe(Effect.provide(cluster(slow)))
    }))

  it.live("a clear while a fold runs wins: the fold is discarded", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const calls = yield* Queue.unbounded<{ readonly summary: string; readonly turns: Array<string> }>()
      // The first call waits for `release`; each call is reported, so the test knows when the next fold started.
      const slow = layerEffect((summary, messages) =>
        Queue.offer(calls, { summary, turns: messages.map((m) => m.content) }).pipe(
          Effect.andThen(Deferred.await(release)),
          Effect.as(fold(summary, messages))
        )
      )
      yield* Effect.gen(function*() {
        for (const text of ["a", "b", "c", "d"]) yield* add("c5", text)
        assert.deepStrictEqual(yield* Queue.take(calls), { summary: "", turns: ["a"] })
        yield* Conversation.withMemory(
          "c5",
          { strategy: "rolling", maxTokens: 3 },
          (m) => Effect.andThen(m.clear, m.add(Message.user("x")))
        ).pipe(Effect.provide(Summarizer.layerDrop))
        yield* Deferred.succeed(release, undefined)
        // Folds run one at a time: the next fold's call comes after the discarded one ended, and sees no summary.
        for (const text of ["y", "z", "w"]) yield* add("c5", text)
        assert.deepStrictEqual(yield* Queue.take(calls), { summary: "", turns: ["x"] })
        const state = yield* storedWhen("c5", (s) => s.summary !== "")
        assert.deepStrictEqual(state.summary.match(/[a-z]/g), ["x"])
        assert.deepStrictEqual(contents(state), ["y", "z", "w"])
      }).pipe(Effect.provide(cluster(slow)))
    }))

  it.live("another writer's save (a second owner) is never overwritten: the entity reloads and applies on top", () =>
    Effect.gen(function*() {
      yield* add("c6", "a")
      const store = yield* Store
      const stored = Option.getOrThrow(yield* store.load("c6"))
      yield* store.save(
        "c6",
        MemoryState.make("", [...stored.state.buffer, Message.user("elsewhere")]),
        stored.revision
      )
      yield* add("c6", "b")
      assert.deepStrictEqual(contents(Option.getOrThrow(yield* store.load("c6")).state), ["a", "elsewhere", "b"])
    }).pipe(Effect.provide(Summarizer.layerDrop), Effect.provide(cluster(Summarizer.layerFunction((s) => s)))))

  it.live("bad strategy options are a ConfigError from the entity; nothing is applied", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Effect.flatMap(Entity.client, (client) =>
          client("c7").Apply({
            requestId: "r",
            options: { strategy: "rolling", maxTokens: -1 },
            operations: [{ _tag: "add", messages: [Message.user("no")] }]
          }))
      )
      assert.strictEqual(error._tag, "ConfigError")
      assert.isTrue(Option.isNone(yield* Effect.flatMap(Effect.service(Store), (s) => s.load("c7"))))
    }).pipe(Effect.provide(cluster(folding))))

  it.live("a Delete through the store over the entity leaves nothing to read", () =>
    Effect.gen(function*() {
      yield* add("c8", "a")
      yield* Effect.flatMap(Effect.service(ConversationStore.ConversationStore), (s) => s.delete("c8"))
      assert.isTrue(
        Option.isNone(yield* Effect.flatMap(Effect.service(ConversationStore.ConversationStore), (s) => s.load("c8")))
      )
      assert.isTrue(Option.isNone(yield* Effect.flatMap(Effect.service(Store), (s) => s.load("c8"))))
    }).pipe(Effect.provide(Summarizer.layerDrop), Effect.provide(cluster(folding))))
})
