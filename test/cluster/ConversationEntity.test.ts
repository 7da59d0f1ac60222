/**
 * The conversation entity in one process (`@effect/cluster`'s `TestRunner`:
 * in-memory sharding, messages serialized as between runners), over the
 * in-memory store: the cases of `test/support/conversationEntityCases.ts`,
 * which the Effect 4 line runs too (this file gives the Effect 3 line's
 * cluster), and the Promise facade over the entity.
 */
import * as TestRunner from "@effect/cluster/TestRunner"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, ManagedRuntime, Option, Stream, SubscriptionRef } from "effect"
import { ConversationCluster, ConversationEntity } from "../../src/cluster.js"
import { Conversations } from "../../src/promise/Conversations.js"
import * as MemoryState from "../../src/schema/MemoryState.js"
import * as Message from "../../src/schema/Message.js"
import * as Summarizer from "../../src/services/Summarizer.js"
import * as Conversation from "../../src/store/Conversation.js"
import * as ConversationStore from "../../src/store/ConversationStore.js"
import {
  entityOptions,
  type EntitySession,
  fold,
  runConversationEntityCases,
  type SummarizerCase
} from "../support/conversationEntityCases.js"

const Entity = ConversationEntity.ConversationEntity

/** The store the entity persists to, reached directly (the `ConversationStore` in context reads through the entity). */
class Store extends Context.Tag("test/RawStore")<Store, ConversationStore.Service>() {}

/** Every state the store saved, newest last, by conversation id: what the tests wait on. */
class Saved extends Context.Tag("test/Saved")<
  Saved,
  SubscriptionRef.SubscriptionRef<ReadonlyMap<string, MemoryState.MemoryState>>
>() {}

/** The entity on a test runner, with `withMemory`'s services over it, and the store it persists to. */
const cluster = (summarizer: Layer.Layer<Summarizer.Summarizer>) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const memory = yield* Effect.provide(ConversationStore.ConversationStore, ConversationStore.layerMemory)
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

const summarizerOf = (summarizer: SummarizerCase): Layer.Layer<Summarizer.Summarizer> =>
  summarizer === "folding"
    ? folding
    : summarizer === "identity"
    ? Summarizer.layerFunction((s) => s)
    : Summarizer.layerEffect((summary, messages) =>
      Effect.as(
        Effect.async<void>((resume) => {
          void summarizer(summary, messages.map((m) => m.content)).then(() => resume(Effect.void))
        }),
        fold(summary, messages)
      )
    )

/** `withMemory` with the writer's own summarizer dropping: the runner's summarizer folds. */
const withMemory = <A, E, R>(id: string, f: (memory: Conversation.StoredMemory) => Effect.Effect<A, E, R>) =>
  Conversation.withMemory(id, entityOptions, f).pipe(Effect.provide(Summarizer.layerDrop))

const operations = (
  users: ReadonlyArray<string>
) => [{ _tag: "add" as const, messages: users.map((user) => Message.user(user)) }]

const open = async (summarizer: SummarizerCase): Promise<EntitySession> => {
  const runtime = ManagedRuntime.make(cluster(summarizerOf(summarizer)))
  const [raw, saved, client, store] = await runtime.runPromise(
    Effect.all([Store, Saved, Entity.client, ConversationStore.ConversationStore])
  )
  const apply = (id: string, requestId: string, options: unknown, users: ReadonlyArray<string>) =>
    client(id).Apply({ requestId, options: options as Conversation.Options, operations: operations(users) })
  return {
    add: (id, text) => runtime.runPromise(withMemory(id, (memory) => memory.add(Message.user(text)))),
    context: (id) => runtime.runPromise(withMemory(id, (memory) => memory.context)),
    clearThenAdd: (id, text) =>
      runtime.runPromise(withMemory(id, (memory) => Effect.zipRight(memory.clear, memory.add(Message.user(text))))),
    read: (id) =>
      runtime.runPromise(Effect.map(client(id).Read(), (stored) => stored === null ? MemoryState.empty : stored.state)),
    storedWhen: (id, done) =>
      runtime.runPromise(saved.changes.pipe(
        Stream.filterMap((all) => Option.filter(Option.fromNullable(all.get(id)), done)),
        Stream.runHead,
        Effect.map(Option.getOrThrow)
      )),
    apply: (id, requestId, options, users) => runtime.runPromise(apply(id, requestId, options, users)),
    applyFailure: (id, requestId, options, users) =>
      runtime.runPromise(Effect.map(Effect.flip(apply(id, requestId, options, users)), (error) => error._tag)),
    rawLoad: (id) => runtime.runPromise(Effect.map(raw.load(id), Option.getOrUndefined)),
    rawSave: (id, buffer, expected, requestIds) =>
      runtime.runPromise(Effect.asVoid(raw.save(
        id,
        MemoryState.make("", buffer.map((m) => Message.make(m.role, m.content))),
        expected,
        requestIds && { requestIds }
      ))),
    load: (id) => runtime.runPromise(Effect.map(store.load(id), Option.getOrUndefined)),
    delete: (id) => runtime.runPromise(store.delete(id)),
    close: () => runtime.dispose()
  }
}

describe("ConversationEntity", () => {
  runConversationEntityCases({ open }, { assert, it })

  it.live("Conversations (the Promise facade) works unchanged over the entity: store is the client layer", () =>
    Effect.promise(async () => {
      const conversations = new Conversations({
        store: cluster(folding),
        strategy: "rolling",
        maxTokens: 3,
        summarize: "drop"
      })
      try {
        for (const text of ["a", "b"]) await conversations.use("p1", (memory) => memory.addUserMessage(text))
        assert.strictEqual(await conversations.use("p1", async (memory) => memory.getContext()), "user: a\nuser: b")
        assert.deepStrictEqual(await conversations.load("p1"), {
          version: 2,
          summary: "",
          buffer: [{ role: "user", content: "a" }, { role: "user", content: "b" }]
        })
        await conversations.delete("p1")
        assert.isUndefined(await conversations.load("p1"))
      } finally {
        await conversations.dispose()
      }
    }))
})
