/**
 * The archive kept beside stored conversations (docs/contract.md section
 * 17.2): `Conversation.withMemory(id, { ..., archive: true })` on every
 * store layer; rows saved with the state, none doubled after a conflict's
 * re-apply, removed with the conversation.
 */
import { KeyValueStore } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import * as MemoryState from "../../src/schema/MemoryState.js"
import * as Message from "../../src/schema/Message.js"
import * as Summarizer from "../../src/services/Summarizer.js"
import * as Conversation from "../../src/store/Conversation.js"
import * as ConversationStore from "../../src/store/ConversationStore.js"
import { reportUnreachable, stores } from "./layers.js"

reportUnreachable()

const options = { strategy: "rolling", maxTokens: 6, archive: true } as const

// each turn is 2 words: a budget of 6 keeps the newest 3 turns in the buffer
const turn = (id: string, text: string) =>
  Conversation.withMemory(id, options, (memory) => memory.add(Message.user(text)))

const archivedOf = (id: string) =>
  Effect.flatMap(
    ConversationStore.ConversationStore,
    (store) =>
      Effect.map(
        store.archive!.messages(id),
        (rows) => rows.map((row) => [row.position, row.fold, row.message.content])
      )
  )

for (const store of stores) {
  describe(store.name, () => {
    it.effect("archives what leaves the buffer beside the conversation, each write one fold", () =>
      Effect.gen(function*() {
        for (const word of ["alpha", "bravo", "charlie", "delta", "echo"]) yield* turn("c1", `word ${word}`)
        assert.deepStrictEqual(yield* archivedOf("c1"), [[0, 1, "word alpha"], [1, 2, "word bravo"]])
        const stored = yield* Effect.flatMap(ConversationStore.ConversationStore, (s) => s.load("c1"))
        const state = Option.getOrThrow(stored).state
        assert.strictEqual(state.conversationId, "c1")
        assert.deepStrictEqual(state.positions, [2, 3, 4])
        assert.strictEqual(state.nextPosition, 5)
        // a recall inside a call sees what is stored and what this call archived, before its save
        const found = yield* Conversation.withMemory("c1", options, (memory) =>
          Effect.gen(function*() {
            yield* memory.add(Message.user("word foxtrot"))
            return [...yield* memory.recall("charlie"), ...yield* memory.recall("alpha")]
          }))
        assert.deepStrictEqual(found.map((m) => [m.position, m.fold, m.message.content]), [
          [2, 0, "word charlie"],
          [0, 1, "word alpha"]
        ])
        assert.deepStrictEqual(
          (yield* Effect.flatMap(ConversationStore.ConversationStore, (s) => s.archive!.search("c1", "charlie"))).map((
            m
          ) => m.fold),
          [3]
        )
        // delete removes the archive with the conversation
        yield* Effect.flatMap(ConversationStore.ConversationStore, (s) => s.delete("c1"))
        assert.deepStrictEqual(yield* archivedOf("c1"), [])
      }).pipe(Effect.provide(store.layer), Effect.provide(Summarizer.layerDrop)))

    it.effect("a conflict's re-apply archives the newer positions, none doubled or lost", () =>
      Effect.gen(function*() {
        for (const word of ["alpha", "bravo", "charlie"]) yield* turn("c2", `word ${word}`)
        // A loads, B saves meanwhile, A's save conflicts and is re-applied on B's state
        const interleaved = yield* Conversation.withMemory("c2", options, (memory) =>
          Effect.gen(function*() {
            yield* memory.add(Message.user("word delta"))
            yield* turn("c2", "word echo")
            return yield* memory.messages
          }))
        assert.deepStrictEqual(interleaved.map((m) => m.content), ["word bravo", "word charlie", "word delta"])
        assert.deepStrictEqual(yield* archivedOf("c2"), [[0, 1, "word alpha"], [1, 2, "word bravo"]])
        const stored = Option.getOrThrow(
          yield* Effect.flatMap(ConversationStore.ConversationStore, (s) => s.load("c2"))
        ).state
        assert.deepStrictEqual(stored.buffer.map((m) => m.content), ["word charlie", "word echo", "word delta"])
        assert.deepStrictEqual(stored.positions, [2, 3, 4])
      }).pipe(Effect.provide(store.layer), Effect.provide(Summarizer.layerDrop)))

    it.effect("a save that conflicts writes none of its rows: its positions are the newer state's", () =>
      Effect.gen(function*() {
        for (const word of ["alpha", "bravo", "charlie"]) yield* turn("c4", `word ${word}`)
        // A's call archives its own first turn at position 3, which B's turn takes meanwhile
        yield* Conversation.withMemory("c4", options, (memory) =>
          Effect.gen(function*() {
            yield* memory.addMessages(["d1", "d2", "d3", "d4"].map((w) => Message.user(`word ${w}`)))
            yield* turn("c4", "word echo")
          }))
        assert.deepStrictEqual(yield* archivedOf("c4"), [
          [0, 1, "word alpha"],
          [1, 2, "word bravo"],
          [2, 2, "word charlie"],
          [3, 2, "word echo"],
          [4, 2, "word d1"]
        ])
      }).pipe(Effect.provide(store.layer), Effect.provide(Summarizer.layerDrop)))

    it.effect("without archive: true nothing is archived and the state stays version 2", () =>
      Effect.gen(function*() {
        for (const word of ["alpha", "bravo", "charlie", "delta"]) {
          yield* Conversation.withMemory("c3", { strategy: "rolling", maxTokens: 6 }, (memory) =>
            memory.add(Message.user(`word ${word}`)))
        }
        assert.deepStrictEqual(yield* archivedOf("c3"), [])
        const stored = Option.getOrThrow(
          yield* Effect.flatMap(ConversationStore.ConversationStore, (s) =>
            s.load("c3"))
        ).state
        assert.strictEqual(stored.positions, undefined)
      }).pipe(Effect.provide(store.layer), Effect.provide(Summarizer.layerDrop)))
  })
}

describe("refused", () => {
  it.effect("the conversation entity's writer refuses archive: true before anything is loaded", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(turn("c5", "word alpha"))
      assert.deepStrictEqual([error._tag, (error as { option?: string }).option, error.message], [
        "ConfigError",
        "archive",
        "invalid option archive: the conversation entity (rollmem/cluster) does not archive: use a store of rollmem/store"
      ])
    }).pipe(
      Effect.provide(ConversationStore.layerMemory),
      Effect.provide(Layer.succeed(Conversation.Writer, { apply: () => Effect.die("not sent") })),
      Effect.provide(Summarizer.layerDrop)
    ))

  it.effect("archive must be a boolean", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Conversation.checkOptions({ strategy: "rolling", archive: "yes" })
      )
      assert.strictEqual(error.option, "archive")
      assert.strictEqual(error.description, "must be a boolean, got \"yes\"")
    }))
})

// The key-value log, record by record, as the Effect 4 line's effect4/test/store/archiveStore.test.ts has it:
// an archive written by either line reads in the other.
const LOG_KEYS = ["#0", "#1", "#2", "#3"].map((write) => `rollmem-archive:rollmem-conversation:c${write}`)
const LOG_RECORDS = [
  `{"writes":3,"folds":3}`,
  `[{"position":0,"fold":1,"message":{"role":"user","content":"order 4411"}}]`,
  `[{"position":1,"fold":2,"message":{"role":"assistant","content":"refund for 4411"}},` +
  `{"position":2,"fold":2,"message":{"role":"user","content":"thanks"}}]`,
  `[{"position":3,"fold":3,"message":{"role":"system","content":"refund policy"}}]`
]

describe("the key-value archive's records", () => {
  it.effect("are the Effect 4 line's: a head, then each write's rows; read, searched and deleted with them", () =>
    Effect.gen(function*() {
      const kv = yield* KeyValueStore.KeyValueStore
      const store = yield* ConversationStore.makeKeyValueStore()
      const state = MemoryState.make("", [Message.user("now")])
      yield* store.save("c", state, 0, {
        archive: [[{ position: 0, message: Message.user("order 4411") }], [], [
          { position: 1, message: Message.assistant("refund for 4411") },
          { position: 2, message: Message.user("thanks") }
        ]]
      })
      yield* store.archive!.append("c", [{ position: 3, message: Message.system("refund policy") }])
      assert.deepStrictEqual(
        (yield* Effect.forEach(LOG_KEYS, (key) => kv.get(key))).map(Option.getOrUndefined),
        LOG_RECORDS
      )
      const messages = yield* store.archive!.messages("c")
      assert.deepStrictEqual(messages.map((a) => [a.position, a.fold, a.message.role, a.message.content]), [
        [0, 1, "user", "order 4411"],
        [1, 2, "assistant", "refund for 4411"],
        [2, 2, "user", "thanks"],
        [3, 3, "system", "refund policy"]
      ])
      const found = yield* store.archive!.search("c", "refund 4411", { neighbours: 1 })
      assert.deepStrictEqual(found.map((m) => [m.position, m.neighbours.map((n) => n.position)]), [
        [1, [0, 2]],
        [3, [2]],
        [0, [1]]
      ])
      yield* store.delete("c")
      assert.deepStrictEqual((yield* Effect.forEach(LOG_KEYS, (key) => kv.get(key))).map(Option.getOrUndefined), [
        undefined,
        undefined,
        undefined,
        undefined
      ])
      assert.deepStrictEqual(yield* store.archive!.messages("c"), [])
    }).pipe(Effect.provide(KeyValueStore.layerMemory)))

  it.effect("a log written by the Effect 4 line reads here; a head that does not decode is an ArchiveError", () =>
    Effect.gen(function*() {
      const kv = yield* KeyValueStore.KeyValueStore
      yield* Effect.forEach(LOG_KEYS, (key, i) => kv.set(key, LOG_RECORDS[i]))
      const store = yield* ConversationStore.makeKeyValueStore()
      const messages = yield* store.archive!.messages("c")
      assert.deepStrictEqual(messages.map((a) => [a.position, a.fold, a.message.content]), [
        [0, 1, "order 4411"],
        [1, 2, "refund for 4411"],
        [2, 2, "thanks"],
        [3, 3, "refund policy"]
      ])
      yield* kv.set(LOG_KEYS[0], "{\"writes\":\"x\"}")
      const error = yield* Effect.flip(store.archive!.messages("c"))
      assert.deepStrictEqual([error._tag, error.message], [
        "ArchiveError",
        "archive failed: archive read: the head of \"c\" does not decode"
      ])
    }).pipe(Effect.provide(KeyValueStore.layerMemory)))
})
