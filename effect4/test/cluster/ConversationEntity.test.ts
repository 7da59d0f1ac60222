/**
 * The conversation entity on the Effect 4 line in one process
 * (`effect/cluster`'s `TestRunner`: in-memory sharding, messages serialized
 * as between runners), over the in-memory store: the Effect 3 line's cases
 * with its exact values (`test/support/conversationEntityCases.ts`); this
 * file gives the Effect 4 line's cluster.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, ManagedRuntime, Option, Stream, SubscriptionRef } from "effect"
import { TestRunner } from "effect/cluster"
import {
  entityOptions,
  type EntitySession,
  fold,
  runConversationEntityCases,
  type SummarizerCase
} from "../../../test/support/conversationEntityCases.js"
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

const summarizerOf = (summarizer: SummarizerCase): Layer.Layer<Summarizer.Summarizer> =>
  summarizer === "folding"
    ? Summarizer.layerFunction((summary, messages) => fold(summary, messages))
    : summarizer === "identity"
    ? Summarizer.layerFunction((s) => s)
    : Layer.succeed(
      Summarizer.Summarizer,
      Summarizer.fromEffect((summary, messages) =>
        Effect.as(
          Effect.callback<void>((resume) => {
            void summarizer(summary, messages.map((m) => m.content)).then(() => resume(Effect.void))
          }),
          fold(summary, messages)
        )
      )
    )

/** `withMemory` with the writer's own summarizer dropping: the runner's summarizer folds. */
const withMemory = <A, E, R>(id: string, f: (memory: Conversation.StoredMemory) => Effect.Effect<A, E, R>) =>
  Conversation.withMemory(id, entityOptions, f).pipe(Effect.provide(Summarizer.layerDrop))

const operations = (users: ReadonlyArray<string>) => [
  { _tag: "add" as const, messages: users.map((user) => Message.user(user)) }
]

const open = async (summarizer: SummarizerCase): Promise<EntitySession> => {
  const runtime = ManagedRuntime.make(cluster(summarizerOf(summarizer)))
  const { client, raw, saved, store } = await runtime.runPromise(Effect.gen(function*() {
    return {
      raw: yield* Effect.service(Store),
      saved: yield* Effect.service(Saved),
      client: yield* Entity.client,
      store: yield* Effect.service(ConversationStore.ConversationStore)
    }
  }))
  const apply = (id: string, requestId: string, options: unknown, users: ReadonlyArray<string>) =>
    client(id).Apply({ requestId, options: options as Conversation.Options, operations: operations(users) })
  return {
    add: (id, text) => runtime.runPromise(withMemory(id, (memory) => memory.add(Message.user(text)))),
    context: (id) => runtime.runPromise(withMemory(id, (memory) => memory.context)),
    clearThenAdd: (id, text) =>
      runtime.runPromise(withMemory(id, (memory) => Effect.andThen(memory.clear, memory.add(Message.user(text))))),
    read: (id) =>
      runtime.runPromise(
        Effect.map(client(id).Read(undefined), (stored) => stored === null ? MemoryState.empty : stored.state)
      ),
    storedWhen: (id, done) =>
      runtime.runPromise(
        SubscriptionRef.changes(saved).pipe(
          Stream.map((all) => all.get(id)),
          Stream.filter((state): state is MemoryState.MemoryState => state !== undefined && done(state)),
          Stream.runHead,
          Effect.map(Option.getOrThrow)
        )
      ),
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

describe("ConversationEntity (Effect 4)", () => {
  runConversationEntityCases({ open }, { assert, it })
})
