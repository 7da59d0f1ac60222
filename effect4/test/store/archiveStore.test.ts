/**
 * The archive kept beside stored conversations on the Effect 4 line
 * (docs/contract.md section 17.2): `Conversation.withMemory(id, { ...,
 * archive: true })` on every store layer, the memory and key-value stores
 * included; rows saved with the state, none doubled after a conflict's
 * re-apply, removed with the conversation. The Effect 3 line's cases with
 * its exact values (`test/support/archiveStoreCases.ts`); this file gives
 * the Effect 4 line's stores and services.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, ManagedRuntime, Option } from "effect"
import { KeyValueStore } from "effect/persistence"
import { type CaseMessage, runArchiveStoreCases, type StoreSession } from "../../../test/support/archiveStoreCases.js"
import * as MemoryState from "../../src/schema/MemoryState.js"
import * as Message from "../../src/schema/Message.js"
import * as Summarizer from "../../src/services/Summarizer.js"
import * as Conversation from "../../src/store/Conversation.js"
import * as ConversationStore from "../../src/store/ConversationStore.js"
import { reportUnreachable, stores } from "./layers.js"

reportUnreachable()

const message = (m: CaseMessage) => Message.make(m.role, m.content)

/** A session on `layer`: one runtime (the store built once) for the whole test. */
const open = (layer: Layer.Layer<ConversationStore.ConversationStore>) => async (): Promise<StoreSession> => {
  const runtime = ManagedRuntime.make(Layer.merge(layer, Summarizer.layerDrop))
  const store = await runtime.runPromise(Effect.service(ConversationStore.ConversationStore))
  return {
    withMemory: (id, options, body) =>
      runtime.runPromise(Conversation.withMemory(id, options, (memory) =>
        Effect.promise(() =>
          body({
            add: (text) => runtime.runPromise(memory.add(Message.user(text))),
            addUsers: (texts) => runtime.runPromise(memory.addMessages(texts.map((text) => Message.user(text)))),
            recall: (query) => runtime.runPromise(memory.recall(query)),
            messages: () => runtime.runPromise(memory.messages)
          })
        ))),
    archived: (id) => runtime.runPromise(store.archive!.messages(id)),
    load: (id) => runtime.runPromise(Effect.map(store.load(id), (stored) => Option.getOrThrow(stored).state)),
    search: (id, query) => runtime.runPromise(store.archive!.search(id, query)),
    delete: (id) => runtime.runPromise(store.delete(id)),
    close: () => runtime.dispose()
  }
}

runArchiveStoreCases({
  other: "Effect 3",
  stores: stores.map((store) => ({ name: store.name, open: open(store.layer) })),
  entityRefusal: (id, options, text) =>
    Effect.runPromise(
      Effect.flip(Conversation.withMemory(id, options, (memory) => memory.add(Message.user(text)))).pipe(
        Effect.map((error) => [error._tag, (error as { option?: string }).option, error.message]),
        Effect.provide(ConversationStore.layerMemory),
        Effect.provide(Layer.succeed(Conversation.Writer, { apply: () => Effect.die("not sent") })),
        Effect.provide(Summarizer.layerDrop)
      )
    ),
  optionRefusal: (options) =>
    Effect.runPromise(Effect.map(Effect.flip(Conversation.checkOptions(options)), (e) => [e.option, e.description])),
  keyValue: async () => {
    const { kv, store } = await Effect.runPromise(
      Effect.gen(function*() {
        return { kv: yield* KeyValueStore.KeyValueStore, store: yield* ConversationStore.makeKeyValueStore() }
      }).pipe(Effect.provide(KeyValueStore.layerMemory))
    )
    const rows = (all: ReadonlyArray<{ readonly position: number; readonly message: CaseMessage }>) =>
      all.map((row) => ({ position: row.position, message: message(row.message) }))
    return {
      get: (key) => Effect.runPromise(kv.get(key)),
      set: (key, value) => Effect.runPromise(kv.set(key, value)),
      save: (id, buffer, expected, archive) =>
        Effect.runPromise(
          Effect.asVoid(
            store.save(id, MemoryState.make("", buffer.map(message)), expected, { archive: archive.map(rows) })
          )
        ),
      append: (id, all) => Effect.runPromise(store.archive!.append(id, rows(all))),
      messages: (id) => Effect.runPromise(store.archive!.messages(id)),
      messagesFailure: (id) =>
        Effect.runPromise(Effect.map(Effect.flip(store.archive!.messages(id)), (error) => [error._tag, error.message])),
      search: (id, query, neighbours) => Effect.runPromise(store.archive!.search(id, query, { neighbours })),
      delete: (id) => Effect.runPromise(store.delete(id))
    }
  }
}, { assert, describe, it })
