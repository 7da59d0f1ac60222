/**
 * The archive (docs/contract.md section 17): every message that leaves the
 * buffer (folded, dropped, evicted by a window, a tool result's content
 * cleared or cut) archived once with its conversation, position and fold;
 * a failed archive write commits nothing, a failed summarizer archives
 * nothing; positions and the conversation id in the state (version 3);
 * `recall` with its options. Exact values throughout; the exactly-once rule
 * as a property.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, FastCheck as fc, Layer } from "effect"
import { ArchiveError, ConfigError } from "../src/Errors.js"
import { Archive, MemoryState, Message, RollingMemory, Summarizer, SummaryMemory, WindowMemory } from "../src/index.js"
import * as Arb from "./support/arbitraries.js"

const drop = Summarizer.layerDrop

/** A summarizer answering `s1`, `s2`... and failing while `failing.on`, recording its calls. */
const counting = (kind: "sync" | "effect") => {
  const calls: Array<ReadonlyArray<string>> = []
  const failing = { on: false }
  const answer = (messages: ReadonlyArray<Message.Message>) => {
    calls.push(messages.map((m) => m.content))
    return failing.on ? undefined : `s${calls.length}`
  }
  const service = kind === "sync"
    ? Summarizer.fromFunction((_summary, messages) => {
      const result = answer(messages)
      if (result === undefined) throw new Error("model unavailable")
      return result
    })
    : Summarizer.fromEffect((_summary, messages) => {
      const result = answer(messages)
      return result === undefined ? Effect.fail("model unavailable") : Effect.succeed(result)
    })
  return { calls, failing, layer: Layer.succeed(Summarizer.Summarizer, service) }
}

/** An in-memory archive whose writes fail while `failing.on`; `sync: false` takes away `appendSync` (I/O). */
const flaky = (sync: boolean) => {
  const inner = Archive.makeMemory()
  const failing = { on: false }
  const refused = () => new ArchiveError({ description: "disk full" })
  const archive: Archive.Service = {
    append: (id, entries) => Effect.suspend(() => failing.on ? Effect.fail(refused()) : inner.append(id, entries)),
    appendSync: sync ? (id, entries) => failing.on ? refused() : inner.appendSync!(id, entries) : undefined,
    search: inner.search,
    messages: inner.messages
  }
  return { archive, failing }
}

const archived = (archive: Archive.Service, id = "c1") =>
  Effect.map(archive.messages(id), (all) => all.map((a) => [a.position, a.fold, a.message.content] as const))

const contents = (messages: ReadonlyArray<Message.Message>) => messages.map((m) => m.content)

describe("what is archived", () => {
  it.effect("a drop: the evicted turns with their positions, fold 1; the state keeps the rest's positions", () =>
    Effect.gen(function*() {
      const archive = Archive.makeMemory()
      const memory = yield* RollingMemory.make({ maxTokens: 4, archive, conversationId: "c1" })
      yield* memory.add(Message.user("one two"))
      yield* memory.add(Message.assistant("three four"))
      yield* memory.add(Message.user("five six"))
      assert.deepStrictEqual(yield* archived(archive), [[0, 1, "one two"], [1, 1, "three four"]])
      assert.deepStrictEqual(yield* memory.toJSON, {
        version: 3,
        summary: "",
        buffer: [{ role: "user", content: "five six" }],
        conversationId: "c1",
        nextPosition: 3,
        positions: [2]
      })
    }).pipe(Effect.provide(drop)))

  for (const kind of ["sync", "effect"] as const) {
    for (const sync of [true, false]) {
      it.effect(`a fold (${kind} summarizer, ${sync ? "in-memory" : "I/O"} archive): each fold numbered`, () =>
        Effect.gen(function*() {
          const { archive } = flaky(sync)
          const summarizer = counting(kind)
          const memory = yield* RollingMemory.make({ maxTokens: 4, archive, conversationId: "c1" }).pipe(
            Effect.provide(summarizer.layer)
          )
          for (const text of ["a b", "c d", "e f", "g h", "i j"]) yield* memory.add(Message.user(text))
          assert.deepStrictEqual(summarizer.calls, [["a b"], ["c d"], ["e f"]])
          assert.deepStrictEqual(yield* archived(archive), [[0, 1, "a b"], [1, 2, "c d"], [2, 3, "e f"]])
          assert.deepStrictEqual(contents(yield* memory.buffer), ["g h", "i j"])
          assert.strictEqual(yield* memory.summary, "s3")
        }))

      it.effect(`an archive write that fails commits nothing (${kind} summarizer, ${sync ? "in-memory" : "I/O"})`, () =>
        Effect.gen(function*() {
          const { archive, failing } = flaky(sync)
          const summarizer = counting(kind)
          const memory = yield* RollingMemory.make({ maxTokens: 4, archive, conversationId: "c1" }).pipe(
            Effect.provide(summarizer.layer)
          )
          yield* memory.add(Message.user("a b"))
          yield* memory.add(Message.user("c d"))
          failing.on = true
          const exit = yield* Effect.exit(memory.add(Message.user("e f")))
          assert.deepStrictEqual(exit, Exit.fail(new ArchiveError({ description: "disk full" })))
          assert.deepStrictEqual(summarizer.calls, [["a b"]])
          assert.deepStrictEqual(contents(yield* memory.buffer), ["a b", "c d", "e f"])
          assert.strictEqual(yield* memory.summary, "")
          assert.deepStrictEqual(yield* archived(archive), [])
          failing.on = false
          yield* memory.add(Message.user("g h"))
          assert.deepStrictEqual(yield* archived(archive), [[0, 1, "a b"], [1, 1, "c d"]])
          assert.deepStrictEqual((yield* memory.state).positions, [2, 3])
        }))
    }

    it.effect(`a summarizer that fails archives nothing (${kind})`, () =>
      Effect.gen(function*() {
        const archive = Archive.makeMemory()
        const summarizer = counting(kind)
        const memory = yield* RollingMemory.make({ maxTokens: 4, archive, conversationId: "c1" }).pipe(
          Effect.provide(summarizer.layer)
        )
        yield* memory.add(Message.user("a b"))
        yield* memory.add(Message.user("c d"))
        summarizer.failing.on = true
        const exit = yield* Effect.exit(memory.add(Message.user("e f")))
        assert.isTrue(Exit.isFailure(exit))
        assert.deepStrictEqual(yield* archived(archive), [])
        assert.deepStrictEqual(contents(yield* memory.buffer), ["a b", "c d", "e f"])
      }))
  }

  it.effect("a window's evicted turns", () =>
    Effect.gen(function*() {
      const archive = Archive.makeMemory()
      const memory = yield* WindowMemory.make({ maxMessages: 2, archive, conversationId: "w" })
      for (const text of ["one", "two", "three", "four"]) yield* memory.add(Message.user(text))
      assert.deepStrictEqual(yield* archived(archive, "w"), [[0, 1, "one"], [1, 2, "two"]])
      assert.deepStrictEqual((yield* memory.state).positions, [2, 3])
    }))

  it.effect("a summary memory's folded turns", () =>
    Effect.gen(function*() {
      const archive = Archive.makeMemory()
      const summarizer = counting("sync")
      const memory = yield* SummaryMemory.make({ archive, conversationId: "s" }).pipe(Effect.provide(summarizer.layer))
      yield* memory.addMessages([Message.user("one"), Message.assistant("two")])
      yield* memory.add(Message.user("three"))
      assert.deepStrictEqual(yield* archived(archive, "s"), [[0, 1, "one"], [1, 1, "two"], [2, 2, "three"]])
      assert.deepStrictEqual(yield* memory.toJSON, {
        version: 3,
        summary: "s2",
        buffer: [],
        conversationId: "s",
        nextPosition: 3,
        positions: []
      })
    }))

  const call = Message.assistant("", { toolCalls: [{ id: "t1", name: "f", arguments: "{}" }] })
  const result = Message.tool("r r r r r r r r", { toolCallId: "t1" })

  it.effect("a cleared tool result's original content, when the clearing stands; once", () =>
    Effect.gen(function*() {
      const archive = Archive.makeMemory()
      const memory = yield* RollingMemory.make({
        maxTokens: 10,
        clearToolResults: { keep: 0 },
        archive,
        conversationId: "c1"
      })
      yield* memory.addMessages([Message.user("u u"), call, result])
      // 2 + 1 + 9 = 12 words: cleared to 2 + 1 + 4, no fold
      assert.deepStrictEqual(yield* archived(archive), [[2, 1, "r r r r r r r r"]])
      assert.deepStrictEqual(contents(yield* memory.buffer), ["u u", "", "[tool result cleared]"])
      yield* memory.add(Message.user("v v v v v"))
      // 12 words: the user turn, the call and the cleared result go; the result was archived already
      assert.deepStrictEqual(yield* archived(archive), [[0, 2, "u u"], [1, 2, ""], [2, 1, "r r r r r r r r"]])
    }).pipe(Effect.provide(drop)))

  it.effect("a clearing whose archive write fails is undone", () =>
    Effect.gen(function*() {
      const { archive, failing } = flaky(true)
      const memory = yield* RollingMemory.make({
        maxTokens: 10,
        clearToolResults: { keep: 0 },
        archive,
        conversationId: "c1"
      })
      failing.on = true
      const exit = yield* Effect.exit(memory.addMessages([Message.user("u u"), call, result]))
      assert.deepStrictEqual(exit, Exit.fail(new ArchiveError({ description: "disk full" })))
      assert.deepStrictEqual(contents(yield* memory.buffer), ["u u", "", "r r r r r r r r"])
      assert.strictEqual(yield* memory.bufferTokens, 12)
    }).pipe(Effect.provide(drop)))

  it.effect("a tool result cut at the door: its original, at once", () =>
    Effect.gen(function*() {
      const archive = Archive.makeMemory()
      const memory = yield* RollingMemory.make({
        maxTokens: 100,
        maxToolResultTokens: 4,
        archive,
        conversationId: "c1"
      })
      yield* memory.addMessages([call, Message.tool("a b c d e f g h i j", { toolCallId: "t1" })])
      assert.deepStrictEqual(yield* archived(archive), [[1, 1, "a b c d e f g h i j"]])
      assert.deepStrictEqual((yield* memory.state).positions, [0, 1])
    }).pipe(Effect.provide(drop)))
})

describe("a cut original not yet archived survives save and restore", () => {
  const call = Message.assistant("", { toolCalls: [{ id: "t1", name: "f", arguments: "{}" }] })
  it.effect("its write fails: the state carries it (unarchived); the restored memory writes it with its next write", () =>
    Effect.gen(function*() {
      const { archive, failing } = flaky(true)
      const options = { maxTokens: 100, maxToolResultTokens: 4, archive, conversationId: "c1" }
      const memory = yield* RollingMemory.make(options)
      failing.on = true
      const refused = yield* Effect.flip(
        memory.addMessages([call, Message.tool("a b c d e f g h i j", { toolCallId: "t1" })])
      )
      assert.strictEqual(refused._tag, "ArchiveError")
      const state = yield* memory.state
      assert.deepStrictEqual(state.unarchived?.map((u) => [u.position, u.message.content]), [[
        1,
        "a b c d e f g h i j"
      ]])
      // through the wire format and back
      const json = MemoryState.toJSON(state)
      assert.deepStrictEqual(json.unarchived?.map((u) => [u.position, u.message.content]), [[1, "a b c d e f g h i j"]])
      const restored = yield* RollingMemory.fromState(
        yield* MemoryState.fromJSON(JSON.parse(JSON.stringify(json))),
        options
      )
      failing.on = false
      yield* restored.add(Message.user("next"))
      assert.deepStrictEqual(yield* archived(archive), [[1, 1, "a b c d e f g h i j"]])
      assert.strictEqual((yield* restored.state).unarchived, undefined)
    }).pipe(Effect.provide(drop)))

  it.effect("a state's unarchived positions must increase below nextPosition", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(MemoryState.fromJSON({
        version: 3,
        summary: "",
        buffer: [],
        nextPosition: 2,
        positions: [],
        unarchived: [{ position: 2, message: { role: "tool", content: "x" } }]
      }))
      assert.include(error.description, "unarchived")
      assert.include(error.description, "is 2: positions increase and stay below nextPosition (2)")
    }))
})

describe("recall", () => {
  const filled = Effect.gen(function*() {
    const archive = Archive.makeMemory()
    const memory = yield* WindowMemory.make({ maxMessages: 1, archive, conversationId: "c1" })
    yield* memory.addMessages([Message.user("book the flight to Rome")])
    yield* memory.add(Message.assistant("I changed src/cli/Measure.ts and src/cli/Replay.ts"))
    yield* memory.add(Message.user("measure the cli replay time"))
    yield* memory.add(Message.tool("Measure.ts: 3 tests fail", { toolCallId: "t9" }))
    yield* memory.add(Message.user("the flight to Rome leaves at noon"))
    yield* memory.add(Message.user("thanks"))
    return memory
  })

  it.effect("ranks exact artifact matches first, with positions, folds and scores", () =>
    Effect.gen(function*() {
      const memory = yield* filled
      const matches = yield* memory.recall("src/cli/Measure.ts")
      assert.deepStrictEqual(matches.map((m) => [m.position, m.fold, m.exact, m.conversationId]), [
        [1, 2, 1, "c1"],
        [3, 4, 0, "c1"],
        [2, 3, 0, "c1"]
      ])
      assert.strictEqual(matches[0].message.content, "I changed src/cli/Measure.ts and src/cli/Replay.ts")
    }))

  it.effect("limit, before, roles and neighbours", () =>
    Effect.gen(function*() {
      const memory = yield* filled
      const at = (matches: ReadonlyArray<Archive.Match>) => matches.map((m) => m.position)
      assert.deepStrictEqual(at(yield* memory.recall("flight rome measure", { limit: 2 })), [0, 4])
      assert.deepStrictEqual(at(yield* memory.recall("flight rome", { before: 4 })), [0])
      assert.deepStrictEqual(at(yield* memory.recall("measure", { roles: ["tool"] })), [3])
      const [match] = yield* memory.recall("noon", { neighbours: 1 })
      assert.strictEqual(match.position, 4)
      assert.deepStrictEqual(match.neighbours.map((n) => [n.position, n.message.content]), [
        [3, "Measure.ts: 3 tests fail"]
      ])
      const [first] = yield* memory.recall("book", { neighbours: 2 })
      assert.deepStrictEqual(first.neighbours.map((n) => n.position), [1, 2])
    }))

  it.effect("refuses wrong options and a memory without an archive", () =>
    Effect.gen(function*() {
      const memory = yield* filled
      assert.deepStrictEqual(
        yield* Effect.flip(memory.recall("x", { limit: 0 })),
        new ConfigError({ option: "limit", description: "must be a positive integer, got 0" })
      )
      const bare = yield* WindowMemory.make({ maxMessages: 1 })
      assert.deepStrictEqual(
        yield* Effect.flip(bare.recall("x")),
        new ConfigError({ option: "archive", description: "recall needs an archive: build the memory with one" })
      )
    }))

  it.effect("Archive.search reads any conversation", () =>
    Effect.gen(function*() {
      const archive = Archive.makeMemory()
      yield* archive.append("a", [{ position: 0, message: Message.user("alpha") }])
      yield* archive.append("b", [{ position: 0, message: Message.user("alpha beta") }])
      assert.deepStrictEqual((yield* archive.search("b", "alpha")).map((m) => m.message.content), ["alpha beta"])
      assert.deepStrictEqual(yield* archive.search("none", "alpha"), [])
    }))
})

describe("state", () => {
  it.effect("without an archive the state stays version 2", () =>
    Effect.gen(function*() {
      const memory = yield* RollingMemory.make({ maxTokens: 4 })
      yield* memory.add(Message.user("a b"))
      assert.deepStrictEqual(yield* memory.toJSON, {
        version: 2,
        summary: "",
        buffer: [{ role: "user", content: "a b" }]
      })
    }).pipe(Effect.provide(drop)))

  it.effect("an archive without a conversation id makes one (a UUID); a restored state's is kept", () =>
    Effect.gen(function*() {
      const archive = Archive.makeMemory()
      const fresh = yield* RollingMemory.make({ archive })
      assert.match(
        (yield* fresh.state).conversationId!,
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
      )
      const restored = yield* RollingMemory.fromJSON({
        version: 3,
        buffer: [{ role: "user", content: "a" }, { role: "user", content: "b" }],
        conversationId: "old",
        nextPosition: 9,
        positions: [4, 8]
      }, { maxTokens: 1, archive })
      yield* restored.add(Message.user("c"))
      assert.deepStrictEqual(yield* archived(archive, "old"), [[4, 1, "a"], [8, 1, "b"]])
      assert.deepStrictEqual(yield* restored.toJSON, {
        version: 3,
        summary: "",
        buffer: [{ role: "user", content: "c" }],
        conversationId: "old",
        nextPosition: 10,
        positions: [9]
      })
    }).pipe(Effect.provide(drop)))

  it.effect("a version 2 state restored with an archive: positions 0, 1, ...", () =>
    Effect.gen(function*() {
      const restored = yield* WindowMemory.fromJSON(
        { version: 2, summary: "", buffer: [{ role: "user", content: "a" }, { role: "user", content: "b" }] },
        { maxMessages: 5, archive: Archive.makeMemory(), conversationId: "c" }
      )
      const state = yield* restored.state
      assert.deepStrictEqual([state.nextPosition, state.positions], [2, [0, 1]])
    }))

  it.effect("clear keeps the conversation and its positions going", () =>
    Effect.gen(function*() {
      const memory = yield* WindowMemory.make({ maxMessages: 5, archive: Archive.makeMemory(), conversationId: "c" })
      yield* memory.add(Message.user("a"))
      yield* memory.clear
      yield* memory.add(Message.user("b"))
      const state = yield* memory.state
      assert.deepStrictEqual([state.conversationId, state.nextPosition, state.positions], ["c", 2, [1]])
    }))

  it.effect("the archive option is checked", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(WindowMemory.make({ maxMessages: 5, archive: {} as Archive.Service }))
      assert.deepStrictEqual(
        error,
        new ConfigError({
          option: "archive",
          description: "must be an archive (Archive.makeMemory(), or the Archive service of a layer), got object"
        })
      )
    }))
})

describe("accounting", () => {
  it.prop(
    "every message that left the buffer is archived once; archive and buffer hold every position",
    [Arb.conversation(40), fc.integer({ min: 1, max: 12 }), fc.constantFrom("rolling", "window")],
    ([messages, budget, strategy]) =>
      Effect.runSync(
        Effect.gen(function*() {
          const archive = Archive.makeMemory()
          const memory = strategy === "rolling"
            ? yield* RollingMemory.make({ maxTokens: budget, boundary: "turn", archive, conversationId: "p" })
            : yield* WindowMemory.make({ maxMessages: budget, archive, conversationId: "p" })
          for (const message of messages) yield* memory.add(message)
          const state = yield* memory.state
          const stored = (yield* archive.messages("p")).map((a) => a.position)
          assert.deepStrictEqual([...stored, ...state.positions!].sort((a, b) => a - b), messages.map((_, i) => i))
          assert.strictEqual(state.nextPosition, messages.length)
        }).pipe(Effect.provide(drop))
      ),
    { fastCheck: { numRuns: 200 } }
  )
})
