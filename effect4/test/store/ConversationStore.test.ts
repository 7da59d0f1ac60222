/**
 * The ConversationStore conformance suite on the Effect 4 line, run against
 * every layer: the Effect 3 suite's behaviours (test/store/ConversationStore.test.ts):
 * load of an absent conversation, compare-and-set saves, delete and
 * tombstones, request ids, the stored wire format, undecodable stored values.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { KeyValueStore } from "effect/persistence"
import * as MemoryState from "../../src/schema/MemoryState.js"
import * as Message from "../../src/schema/Message.js"
import * as Summarizer from "../../src/services/Summarizer.js"
import * as Conversation from "../../src/store/Conversation.js"
import * as ConversationStore from "../../src/store/ConversationStore.js"
import { RawWriter, reportUnreachable, stores, type StoreUnderTest } from "./layers.js"

const Store = ConversationStore.ConversationStore

const stateA = MemoryState.make("", [Message.user("a")])
const stateB = MemoryState.make("summary b", [Message.user("b"), Message.assistant("b2")])
const stateC = MemoryState.make("", [Message.user("c")])

/** A state using every field of the wire format. */
const rich = MemoryState.make("résumé 😀 <|endoftext|>", [
  Message.system("be brief"),
  Message.user("", { id: "" }),
  Message.assistant("calling", {
    id: "m1",
    toolCalls: [{ id: "c1", name: "search", arguments: "{\"q\": \"a b\"}" }, { id: "c2", name: "f" }],
    metadata: JSON.parse(`{"__proto__": {"x": 1}, "nested": [1, "two", null, {"deep": true}], "n": 1.5}`)
  }),
  Message.tool("result", { toolCallId: "c1" }),
  Message.make("critic", "x\ufeffy\u0085z", { toolCallId: "" })
])

const assertState = (actual: MemoryState.MemoryState, expected: MemoryState.MemoryState) =>
  assert.strictEqual(JSON.stringify(MemoryState.toJSON(actual)), JSON.stringify(MemoryState.toJSON(expected)))

const loadSome = (id: string) =>
  Effect.gen(function*() {
    const store = yield* Store
    return Option.getOrThrowWith(yield* store.load(id), () => new Error(`conversation ${id} is not stored`))
  })

const conformance = ({ layer, raw }: StoreUnderTest) => {
  it.effect("load of a conversation never saved is none, not an error", () =>
    Effect.gen(function*() {
      const store = yield* Store
      assert.isTrue(Option.isNone(yield* store.load("never")))
    }).pipe(Effect.provide(layer)))

  it.effect("an empty id is refused by load, save, delete and withMemory with ConversationStoreError; nothing runs", () =>
    Effect.gen(function*() {
      const store = yield* Store
      const refused = [
        ["load", yield* Effect.flip(store.load(""))],
        ["save", yield* Effect.flip(store.save("", stateA, ConversationStore.NO_REVISION))],
        ["delete", yield* Effect.flip(store.delete(""))]
      ] as const
      for (const [operation, error] of refused) {
        assert.instanceOf(error, ConversationStore.ConversationStoreError)
        const storeError = error as ConversationStore.ConversationStoreError
        assert.strictEqual(storeError.operation, operation)
        assert.strictEqual(storeError.conversationId, "")
        assert.strictEqual(
          storeError.message,
          `cannot ${operation} conversation "": a conversation id must be a non-empty string, got ""`
        )
      }
      let ran = false
      const viaMemory = yield* Effect.flip(
        Conversation.withMemory("", { strategy: "buffer" }, () => Effect.sync(() => (ran = true)))
      )
      assert.instanceOf(viaMemory, ConversationStore.ConversationStoreError)
      assert.strictEqual(
        viaMemory.message,
        `cannot load conversation "": a conversation id must be a non-empty string, got ""`
      )
      assert.isFalse(ran)
    }).pipe(Effect.provide(layer)))

  it.effect("the first save (expected revision 0) creates revision 1; load returns the state", () =>
    Effect.gen(function*() {
      const store = yield* Store
      assert.strictEqual(yield* store.save("c", stateB, ConversationStore.NO_REVISION), 1)
      const stored = yield* loadSome("c")
      assert.strictEqual(stored.revision, 1)
      assertState(stored.state, stateB)
    }).pipe(Effect.provide(layer)))

  it.effect("each save with the current revision increments it", () =>
    Effect.gen(function*() {
      const store = yield* Store
      assert.strictEqual(yield* store.save("c", stateA, 0), 1)
      assert.strictEqual(yield* store.save("c", stateB, 1), 2)
      assert.strictEqual(yield* store.save("c", stateC, 2), 3)
      const stored = yield* loadSome("c")
      assert.strictEqual(stored.revision, 3)
      assertState(stored.state, stateC)
    }).pipe(Effect.provide(layer)))

  it.effect("a save with a stale revision fails with ConversationConflictError and writes nothing", () =>
    Effect.gen(function*() {
      const store = yield* Store
      yield* store.save("c", stateA, 0)
      yield* store.save("c", stateB, 1)
      const error = yield* Effect.flip(store.save("c", stateC, 1))
      assert.instanceOf(error, ConversationStore.ConversationConflictError)
      if (!(error instanceof ConversationStore.ConversationConflictError)) return
      assert.strictEqual(error._tag, "ConversationConflictError")
      assert.strictEqual(error.conversationId, "c")
      assert.strictEqual(error.expectedRevision, 1)
      assert.strictEqual(
        error.message,
        "conversation \"c\" is no longer at revision 1: another writer saved or deleted it"
      )
      const stored = yield* loadSome("c")
      assert.strictEqual(stored.revision, 2)
      assertState(stored.state, stateB)
    }).pipe(Effect.provide(layer)))

  it.effect("creating a conversation that exists is a conflict", () =>
    Effect.gen(function*() {
      const store = yield* Store
      yield* store.save("c", stateA, 0)
      const error = yield* Effect.flip(store.save("c", stateB, 0))
      assert.instanceOf(error, ConversationStore.ConversationConflictError)
      const stored = yield* loadSome("c")
      assert.strictEqual(stored.revision, 1)
      assertState(stored.state, stateA)
    }).pipe(Effect.provide(layer)))

  it.effect("a save expecting a revision ahead of the stored one, or of an absent one, is a conflict", () =>
    Effect.gen(function*() {
      const store = yield* Store
      const absent = yield* Effect.flip(store.save("absent", stateA, 3))
      assert.instanceOf(absent, ConversationStore.ConversationConflictError)
      assert.isTrue(Option.isNone(yield* store.load("absent")))
      yield* store.save("c", stateA, 0)
      const ahead = yield* Effect.flip(store.save("c", stateB, 2))
      assert.instanceOf(ahead, ConversationStore.ConversationConflictError)
      assert.strictEqual((yield* loadSome("c")).revision, 1)
    }).pipe(Effect.provide(layer)))

  it.effect("delete removes the conversation; a writer holding the old revision then conflicts", () =>
    Effect.gen(function*() {
      const store = yield* Store
      yield* store.save("c", stateA, 0)
      yield* store.save("c", stateB, 1)
      yield* store.delete("c")
      assert.isTrue(Option.isNone(yield* store.load("c")))
      const stale = yield* Effect.flip(store.save("c", stateC, 2))
      assert.instanceOf(stale, ConversationStore.ConversationConflictError)
      assert.isTrue(Option.isNone(yield* store.load("c")))
      // The delete took revision 3 (the tombstone's); the new conversation continues from it.
      assert.strictEqual(yield* store.save("c", stateC, 0), 4)
      const stored = yield* loadSome("c")
      assert.strictEqual(stored.revision, 4)
      assertState(stored.state, stateC)
    }).pipe(Effect.provide(layer)))

  it.effect("delete and recreate while a writer holds the old revision: its save conflicts, the new state stays", () =>
    Effect.gen(function*() {
      const store = yield* Store
      yield* store.save("c", stateA, 0)
      const held = (yield* loadSome("c")).revision
      assert.strictEqual(held, 1)
      yield* store.delete("c")
      assert.strictEqual(yield* store.save("c", stateB, 0), 3)
      const stale = yield* Effect.flip(store.save("c", stateC, held))
      assert.instanceOf(stale, ConversationStore.ConversationConflictError)
      const stored = yield* loadSome("c")
      assert.strictEqual(stored.revision, 3)
      assertState(stored.state, stateB)
      // A second delete-and-recreate round, and a delete of what is already deleted, take no revision back.
      yield* store.delete("c")
      yield* store.delete("c")
      assert.strictEqual(yield* store.save("c", stateC, 0), 5)
      assert.strictEqual(yield* store.save("c", stateA, 5), 6)
      assert.instanceOf(yield* Effect.flip(store.save("c", stateB, 3)), ConversationStore.ConversationConflictError)
      assert.strictEqual((yield* loadSome("c")).revision, 6)
    }).pipe(Effect.provide(layer)))

  it.effect("two first saves of a deleted conversation: one wins, the other conflicts", () =>
    Effect.gen(function*() {
      const store = yield* Store
      yield* store.save("c", stateA, 0)
      yield* store.delete("c")
      assert.strictEqual(yield* store.save("c", stateB, 0), 3)
      assert.instanceOf(yield* Effect.flip(store.save("c", stateC, 0)), ConversationStore.ConversationConflictError)
      assertState((yield* loadSome("c")).state, stateB)
    }).pipe(Effect.provide(layer)))

  it.effect("request ids are saved with the state, in the same compare-and-set; a save without them drops them", () =>
    Effect.gen(function*() {
      const store = yield* Store
      assert.strictEqual(yield* store.save("r", stateA, 0, { requestIds: ["a", "b"] }), 1)
      const first = yield* loadSome("r")
      assert.deepStrictEqual(first.requestIds, ["a", "b"])
      assertState(first.state, stateA)
      const stale = yield* Effect.flip(store.save("r", stateB, 0, { requestIds: ["x"] }))
      assert.instanceOf(stale, ConversationStore.ConversationConflictError)
      assert.deepStrictEqual((yield* loadSome("r")).requestIds, ["a", "b"])
      assert.strictEqual(yield* store.save("r", stateB, 1, { requestIds: [] }), 2)
      assert.deepStrictEqual((yield* loadSome("r")).requestIds, [])
      assert.strictEqual(yield* store.save("r", stateC, 2), 3)
      assert.isUndefined((yield* loadSome("r")).requestIds)
      yield* store.save("r", stateC, 3, { requestIds: ["z"] })
      yield* store.delete("r")
      assert.strictEqual(yield* store.save("r", stateA, 0), 6)
      assert.isUndefined((yield* loadSome("r")).requestIds)
    }).pipe(Effect.provide(layer)))

  it.effect("deleting a conversation that is not stored succeeds", () =>
    Effect.gen(function*() {
      const store = yield* Store
      yield* store.delete("never")
      assert.isTrue(Option.isNone(yield* store.load("never")))
    }).pipe(Effect.provide(layer)))

  it.effect("conversations are independent, whatever their ids", () =>
    Effect.gen(function*() {
      const store = yield* Store
      const ids = ["a", "A", "a/b", "a%2Fb", "..", " ", "über 😀", "x".repeat(150)]
      for (const [i, id] of ids.entries()) {
        yield* store.save(id, MemoryState.make(`s${i}`, [Message.user(id)]), 0)
      }
      yield* store.save("a", stateB, 1)
      yield* store.delete("A")
      for (const [i, id] of ids.entries()) {
        const loaded = yield* store.load(id)
        if (id === "A") {
          assert.isTrue(Option.isNone(loaded))
          continue
        }
        const stored = Option.getOrThrow(loaded)
        assert.strictEqual(stored.revision, id === "a" ? 2 : 1, id)
        assertState(stored.state, id === "a" ? stateB : MemoryState.make(`s${i}`, [Message.user(id)]))
      }
    }).pipe(Effect.provide(layer)))

  it.effect("a state round-trips every field of the wire format", () =>
    Effect.gen(function*() {
      const store = yield* Store
      yield* store.save("rich", rich, 0)
      const stored = yield* loadSome("rich")
      assertState(stored.state, rich)
      assert.deepStrictEqual(Object.keys(stored.state.buffer[2].metadata ?? {}).sort(), ["__proto__", "n", "nested"])
      assert.strictEqual(Object.getPrototypeOf(stored.state.buffer[2].metadata), Object.prototype)
    }).pipe(Effect.provide(layer)))

  it.effect("Conversation.withMemory on a fresh conversation saves revision 1", () =>
    Effect.gen(function*() {
      const result = yield* Conversation.withMemory("w", { strategy: "buffer" }, (memory) =>
        Effect.andThen(memory.add(Message.user("hello")), memory.context))
      assert.strictEqual(result, "user: hello")
      const stored = yield* loadSome("w")
      assert.strictEqual(stored.revision, 1)
      assertState(stored.state, MemoryState.make("", [Message.user("hello")]))
    }).pipe(Effect.provide(Summarizer.layerDrop), Effect.provide(layer)))

  if (raw === undefined) return

  const corrupt = (revision: number, state: string, description: string) =>
    Effect.gen(function*() {
      const rawWriter = yield* RawWriter
      yield* rawWriter.write("bad", revision, state)
      const store = yield* Store
      const error = yield* Effect.flip(store.load("bad"))
      assert.instanceOf(error, ConversationStore.ConversationDecodeError)
      if (!(error instanceof ConversationStore.ConversationDecodeError)) return
      assert.strictEqual(error._tag, "ConversationDecodeError")
      assert.strictEqual(error.conversationId, "bad")
      assert.strictEqual(error.description, description)
      assert.strictEqual(error.message, `cannot read stored conversation "bad": ${description}`)
      let ran = false
      const viaMemory = yield* Effect.flip(
        Conversation.withMemory("bad", { strategy: "buffer" }, () => Effect.sync(() => (ran = true)))
      )
      assert.instanceOf(viaMemory, ConversationStore.ConversationDecodeError)
      assert.isFalse(ran, "the caller's effect does not run on an undecodable conversation")
    }).pipe(Effect.provide(raw))

  it.effect("a state with an unknown version gives ConversationDecodeError naming the conversation", () =>
    corrupt(1, `{"version":4,"summary":"","buffer":[]}`, "state.version: unsupported version 4, expected 1, 2 or 3"))

  it.effect("a state of the wrong shape gives ConversationDecodeError naming the path", () =>
    corrupt(
      1,
      `{"version":2,"summary":7,"buffer":[{"role":"user"}]}`,
      "state.summary: Expected string | null, actual 7; state.buffer[0].content: Missing key"
    ))

  it.effect("a revision that is not a positive integer gives ConversationDecodeError", () =>
    corrupt(0, `{"version":2}`, "revision: Expected a value greater than 0"))

  it.effect("a state with a key the wire format does not have gives ConversationDecodeError", () =>
    corrupt(
      1,
      `{"version":2,"summary":"","buffer":[],"extra":1}`,
      "state.extra: is unexpected, expected: \"version\" | \"summary\" | \"buffer\" | \"segments\" | " +
        "\"compaction\" | \"conversationId\" | \"nextPosition\" | \"positions\" | \"unarchived\" | \"usageRatio\""
    ))
}

describe("ConversationStore conformance (Effect 4)", () => {
  reportUnreachable()
  for (const store of stores) {
    describe(store.name, () => conformance(store))
  }
})

describe("the stored record, as the Effect 3 line writes it", () => {
  // What the Effect 3 line's layerKeyValueStore writes for the same saves (measured with it).
  const EFFECT3_RECORD =
    `{"revision":1,"state":{"version":2,"summary":"s","buffer":[{"role":"user","content":"a","metadata":{"k":1}}]},"requestIds":["r1"]}`
  const EFFECT3_TOMBSTONE = `{"revision":2,"state":null}`

  it.effect("the key-value record and tombstone are the Effect 3 line's, byte for byte, and read back", () =>
    Effect.gen(function*() {
      const store = yield* Store
      const kv = yield* KeyValueStore.KeyValueStore
      const state = MemoryState.make("s", [Message.user("a", { metadata: { k: 1 } })])
      yield* store.save("c", state, 0, { requestIds: ["r1"] })
      yield* store.save("d", MemoryState.empty, 0)
      yield* store.delete("d")
      assert.strictEqual(yield* kv.get("rollmem-conversation:c"), EFFECT3_RECORD)
      assert.strictEqual(yield* kv.get("rollmem-conversation:d"), EFFECT3_TOMBSTONE)
      yield* kv.set("rollmem-conversation:e", EFFECT3_RECORD)
      const read = Option.getOrThrow(yield* store.load("e"))
      assert.strictEqual(read.revision, 1)
      assert.deepStrictEqual(read.requestIds, ["r1"])
      assertState(read.state, state)
      yield* kv.set("rollmem-conversation:f", EFFECT3_TOMBSTONE)
      assert.isTrue(Option.isNone(yield* store.load("f")))
      assert.strictEqual(yield* store.save("f", state, 0), 3)
    }).pipe(Effect.provide(ConversationStore.layerKeyValueStore().pipe(Layer.provideMerge(KeyValueStore.layerMemory)))))

  it.effect("a prefix of its own: keys are prefix + id", () =>
    Effect.gen(function*() {
      const store = yield* Store
      const kv = yield* KeyValueStore.KeyValueStore
      yield* store.save("c", MemoryState.empty, 0)
      assert.deepStrictEqual(yield* kv.keys, ["app1:c"])
    }).pipe(
      Effect.provide(
        ConversationStore.layerKeyValueStore({ prefix: "app1:" }).pipe(
          Layer.provideMerge(KeyValueStore.layerMemory)
        )
      )
    ))
})
