/**
 * Bad input (contract sections 1, 2 and 9): a corpus of malformed states and
 * message fields through `MemoryState.fromJSON`/`fromString`, every
 * strategy's `fromJSON`, the facade's `fromJSON` and `addMessage`. Each gives
 * its documented typed error or loads cleanly; none crashes; none pollutes a
 * prototype; a failed restore leaves nothing half-built.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Option } from "effect"
import type { MemoryState as MemoryStateT } from "../../src/index.js"
import { InvalidMessageError, MemoryState, StateDecodeError } from "../../src/index.js"
import * as Facade from "../../src/promise/index.js"
import { type Expected, messageCorpus, stateCorpus } from "./support/corpus.js"
import { encodeFold, recording } from "./support/harness.js"
import { restore, strategies } from "./support/strategies.js"

const prototypes = [Object.prototype, Array.prototype, Function.prototype, String.prototype]

/** Everything a pollution would change. */
const prototypeSnapshot = (): string =>
  JSON.stringify([
    prototypes.map((p) => Object.getOwnPropertyNames(p).sort()),
    ({} as Record<string, unknown>).polluted,
    ([] as unknown as Record<string, unknown>).polluted,
    ({} as Record<string, unknown>).role,
    ({} as Record<string, unknown>).version
  ])

const cleanPrototypes = prototypeSnapshot()

const assertNoPollution = (): void => assert.strictEqual(prototypeSnapshot(), cleanPrototypes)

const checkDescription = (description: string, expect: { readonly error: string; readonly prefix?: true }): void => {
  if (expect.prefix === true) {
    assert.isTrue(
      description.startsWith(expect.error),
      `description starts with ${description.slice(0, 80)}, expected ${expect.error}`
    )
  } else assert.strictEqual(description, expect.error)
}

/** Checks the exit of a read against what the corpus expects. */
const checkRead = (exit: Exit.Exit<MemoryStateT.MemoryState, unknown>, expect: Expected): void => {
  if ("ok" in expect) {
    assert.isTrue(Exit.isSuccess(exit), Exit.isFailure(exit) ? Cause.pretty(exit.cause).slice(0, 300) : "")
    if (Exit.isSuccess(exit)) {
      assert.strictEqual(exit.value.buffer.length, expect.ok.buffer)
      assert.isTrue(exit.value.summary === expect.ok.summary, "summary")
    }
    return
  }
  assert.isTrue(Exit.isFailure(exit), "expected a failure")
  if (Exit.isSuccess(exit)) return
  const failure = Cause.failureOption(exit.cause)
  assert.isTrue(Option.isSome(failure), `expected a typed failure, got ${Cause.pretty(exit.cause).slice(0, 300)}`)
  const error = Option.getOrThrow(failure)
  assert.instanceOf(error, StateDecodeError)
  checkDescription((error as StateDecodeError).description, expect)
  // The error can be printed: nothing in it overflows the stack when described.
  assert.isString(Cause.pretty(exit.cause))
  assert.isString(String(error))
}

const readState = (input: { readonly value: unknown } | { readonly text: string }) =>
  "text" in input ? MemoryState.fromString(input.text) : MemoryState.fromJSON(input.value)

/** The parsed value of an input, or `undefined` when its text is not JSON. */
const parsed = (input: { readonly value: unknown } | { readonly text: string }): { value: unknown } | undefined => {
  if ("value" in input) return { value: input.value }
  try {
    return { value: JSON.parse(input.text) }
  } catch {
    return undefined
  }
}

const facadeRestores: ReadonlyArray<readonly [string, (data: unknown) => Facade.BaseMemory]> = [
  ["RollingMemory", (data) => Facade.RollingMemory.fromJSON(data, { maxTokens: 50, summarize: encodeFold })],
  ["AsyncRollingMemory", (data) => Facade.AsyncRollingMemory.fromJSON(data, { maxTokens: 50, summarize: encodeFold })],
  ["BufferMemory", (data) => Facade.BufferMemory.fromJSON(data)],
  ["WindowMemory", (data) => Facade.WindowMemory.fromJSON(data, { maxMessages: 3 })],
  ["SummaryMemory", (data) => Facade.SummaryMemory.fromJSON(data, { summarize: encodeFold })],
  ["AsyncSummaryMemory", (data) => Facade.AsyncSummaryMemory.fromJSON(data, { summarize: encodeFold })]
]

describe("malformed states", () => {
  it("the corpus holds at least 50 states", () => {
    assert.isAtLeast(stateCorpus.length, 50)
  })

  for (const c of stateCorpus) {
    it.effect(c.name, () =>
      Effect.gen(function*() {
        const input = c.input()
        const snapshotInput = "value" in input ? safeStringify(input.value) : undefined
        // 1. The state reader.
        const read = yield* Effect.exit(readState(input))
        checkRead(read, c.expect)
        assertNoPollution()
        // Reading never changes its input.
        if ("value" in input) assert.strictEqual(safeStringify(input.value), snapshotInput)
        const value = parsed(input)
        if (value === undefined) return
        // 2. Every strategy's fromJSON: the same outcome; on success the buffer verbatim.
        for (const strategy of strategies) {
          const { service } = recording()
          const exit = yield* Effect.exit(
            Effect.flatMap(restore(strategy, value.value, { summarizer: service }), (memory) => memory.state)
          )
          checkRead(exit, c.expect)
          if (Exit.isSuccess(exit) && Exit.isSuccess(read)) {
            assert.isTrue(exit.value.summary === read.value.summary)
            assert.deepStrictEqual(exit.value.buffer, read.value.buffer)
          }
          assertNoPollution()
        }
        // 3. The facade's fromJSON: the same error, thrown as is (or its own outcome, where the case says it
        // differs: it also reads JSON text, contract section 2).
        const facadeExpect = c.facade ?? c.expect
        for (const [name, fromJSON] of facadeRestores) {
          let memory: Facade.BaseMemory | undefined
          try {
            memory = fromJSON(value.value)
          } catch (error) {
            assert.isTrue("error" in facadeExpect, `${name}: ${String(error).slice(0, 200)}`)
            assert.instanceOf(error, StateDecodeError)
            if ("error" in facadeExpect) checkDescription((error as StateDecodeError).description, facadeExpect)
          }
          if (memory !== undefined) {
            assert.isTrue("ok" in facadeExpect, `${name} loaded a state that should fail`)
            if ("ok" in facadeExpect) assert.strictEqual(memory.buffer.length, facadeExpect.ok.buffer)
            yield* Effect.promise(() => memory.dispose())
          }
          assertNoPollution()
        }
        // 4. What loads re-serializes to a state that reads back equal.
        if (Exit.isSuccess(read)) {
          const again = yield* MemoryState.fromJSON(JSON.parse(JSON.stringify(MemoryState.toJSON(read.value))))
          assert.isTrue(again.summary === read.value.summary)
          assert.deepStrictEqual(again.buffer, read.value.buffer)
        }
      }), 60_000)
  }

  it.effect("__proto__ and constructor keys stay plain data in metadata, and are written back", () =>
    Effect.gen(function*() {
      const text =
        "{\"version\": 2, \"buffer\": [{\"role\": \"user\", \"content\": \"x\", \"metadata\": {\"__proto__\": {\"polluted\": true}, \"constructor\": {\"prototype\": {\"polluted\": true}}, \"list\": [{\"__proto__\": {\"x\": 1}}]}}]}"
      const state = yield* MemoryState.fromString(text)
      const metadata = state.buffer[0].metadata as Record<string, unknown>
      assert.strictEqual(Object.getPrototypeOf(metadata), Object.prototype)
      assert.deepStrictEqual(Object.keys(metadata), ["__proto__", "constructor", "list"])
      assert.isTrue(Object.prototype.hasOwnProperty.call(metadata, "__proto__"))
      assert.strictEqual(metadata.polluted, undefined)
      const item = (metadata.list as Array<Record<string, unknown>>)[0]
      assert.strictEqual(Object.getPrototypeOf(item), Object.prototype)
      assert.strictEqual(item.x, undefined)
      assertNoPollution()
      assert.deepStrictEqual(JSON.parse(JSON.stringify(MemoryState.toJSON(state))), {
        summary: "",
        ...JSON.parse(text)
      })
    }))
})

/** `JSON.stringify` that survives cycles, bigints and depth (for comparing inputs before and after). */
const safeStringify = (value: unknown): string => {
  try {
    return JSON.stringify(value, (_, v) => typeof v === "bigint" ? `${v}n` : v) ?? "undefined"
  } catch (error) {
    return `unserializable: ${String(error).slice(0, 40)}`
  }
}

// ---------------------------------------------------------------------------
// A failed restore leaves nothing half-built
// ---------------------------------------------------------------------------

describe("a failed restore leaves nothing half-built", () => {
  const good = { version: 2, summary: "<t0>", buffer: [{ role: "user", content: "a b", id: "t1" }] }
  const bad = { version: 2, buffer: [{ role: "user", content: "a b", id: "t1" }, { role: "user" }] }

  it("a facade memory built after a failed restore starts empty", () => {
    for (const [name, fromJSON] of facadeRestores) {
      assert.throws(() => fromJSON(bad), StateDecodeError, undefined, name)
    }
    // The failed restores left no state waiting for the next constructor.
    const fresh = new Facade.RollingMemory({ maxTokens: 50, summarize: "drop" })
    assert.deepStrictEqual(fresh.toJSON(), { version: 2, summary: "", buffer: [] })
    // Same after a restore that decoded but failed on its options or its counter.
    assert.throws(() => Facade.RollingMemory.fromJSON(good, { maxTokens: 0, summarize: "drop" }), Facade.ConfigError)
    assert.throws(() => Facade.WindowMemory.fromJSON(good, { maxMessages: -1 }), Facade.ConfigError)
    assert.throws(
      () => Facade.RollingMemory.fromJSON(good, { tokenCounter: () => NaN, summarize: "drop" }),
      Facade.TokenCountError
    )
    assert.throws(() => Facade.SummaryMemory.fromJSON(good, {} as Facade.SummaryOptions), Facade.ConfigError)
    assert.deepStrictEqual(new Facade.BufferMemory().toJSON(), { version: 2, summary: "", buffer: [] })
    assert.deepStrictEqual(new Facade.WindowMemory({ maxMessages: 2 }).toJSON(), {
      version: 2,
      summary: "",
      buffer: []
    })
    assert.deepStrictEqual(new Facade.SummaryMemory({ summarize: encodeFold }).toJSON(), {
      version: 2,
      summary: "",
      buffer: []
    })
  })

  it("an existing memory is untouched by another memory's failed restore", () => {
    const memory = Facade.RollingMemory.fromJSON(good, { maxTokens: 50, summarize: encodeFold })
    const before = JSON.stringify(memory)
    assert.throws(() => Facade.RollingMemory.fromJSON(bad, { maxTokens: 50, summarize: "drop" }), StateDecodeError)
    memory.addUserMessage("c d", { id: "t2" })
    assert.deepStrictEqual(JSON.parse(JSON.stringify(memory)), {
      ...JSON.parse(before),
      buffer: [...JSON.parse(before).buffer, { role: "user", content: "c d", id: "t2" }]
    })
  })
})

// ---------------------------------------------------------------------------
// Bad message fields through the facade's addMessage
// ---------------------------------------------------------------------------

describe("bad message fields through addMessage", () => {
  it("the corpus holds message cases", () => {
    assert.isAtLeast(messageCorpus.length, 20)
  })

  for (const c of messageCorpus) {
    it(`sync classes: ${c.name}`, () => {
      const classes: ReadonlyArray<Facade.SyncMemory> = [
        new Facade.RollingMemory({ maxTokens: 50, summarize: encodeFold }),
        new Facade.BufferMemory(),
        new Facade.WindowMemory({ maxMessages: 3 }),
        new Facade.SummaryMemory({ summarize: encodeFold })
      ]
      for (const memory of classes) {
        memory.addUserMessage("first turn", { id: "t1" })
        const before = JSON.stringify(memory)
        const add = () =>
          memory.addMessage(c.role as string, c.content as string, c.options as Facade.MessageOptions | undefined)
        if (c.error === undefined) {
          add()
          assert.notStrictEqual(JSON.stringify(memory), before)
          if (memory instanceof Facade.BufferMemory) {
            const last = memory.buffer[memory.buffer.length - 1]
            assert.deepStrictEqual([memory.buffer.length, last.role, last.content], [2, c.role, c.content])
          }
        } else {
          assert.throws(add, InvalidMessageError)
          try {
            add()
          } catch (error) {
            assert.strictEqual((error as InvalidMessageError).description, c.error)
          }
          assert.strictEqual(JSON.stringify(memory), before)
        }
        assertNoPollution()
      }
    })

    it(`async classes: ${c.name}`, async () => {
      const classes: ReadonlyArray<Facade.AsyncMemory> = [
        new Facade.AsyncRollingMemory({ maxTokens: 50, summarize: async (s, ms) => encodeFold(s, ms) }),
        new Facade.AsyncSummaryMemory({ summarize: async (s, ms) => encodeFold(s, ms) })
      ]
      for (const memory of classes) {
        await memory.addUserMessage("first turn", { id: "t1" })
        const before = JSON.stringify(memory)
        const add = memory.addMessage(c.role as string, c.content as string, c.options as Facade.MessageOptions)
        if (c.error === undefined) {
          await add
          assert.notStrictEqual(JSON.stringify(memory), before)
        } else {
          const error = await add.then(() => undefined, (e: unknown) => e)
          assert.instanceOf(error, InvalidMessageError)
          assert.strictEqual((error as InvalidMessageError).description, c.error)
          assert.strictEqual(JSON.stringify(memory), before)
        }
        assertNoPollution()
        await memory.dispose()
      }
    })
  }
})
