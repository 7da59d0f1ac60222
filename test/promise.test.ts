import { assert, describe, it } from "@effect/vitest"
import { Effect, Equal } from "effect"
import {
  AsyncRollingMemory,
  AsyncSummaryMemory,
  BufferMemory,
  ConfigError,
  DisposedError,
  InvalidMessageError,
  Message,
  RollingMemory,
  StateDecodeError,
  SummarizerError,
  SummaryBudgetError,
  SummaryMemory,
  TokenCountError,
  WindowMemory
} from "../src/promise/index.js"
import * as Summarizer from "../src/services/Summarizer.js"
import * as EffectRolling from "../src/strategies/RollingMemory.js"

const w5 = (p: string) => `${p} ${p} ${p} ${p} ${p}`

const recorder = () => {
  const calls: Array<{ summary: string; messages: Array<string> }> = []
  const summarize = (summary: string, messages: ReadonlyArray<Message>) => {
    calls.push({ summary, messages: messages.map(String) })
    return `${summary}[${messages.map((m) => m.content.split(" ")[0]).join(",")}]`
  }
  return { calls, summarize }
}

/** The ConfigError that `make` throws (it must throw one). */
const thrown = (make: () => unknown): ConfigError => {
  let caught: unknown
  try {
    make()
  } catch (error) {
    caught = error
  }
  assert.instanceOf(caught, ConfigError)
  return caught as ConfigError
}

describe("Promise facade", () => {
  it("RollingMemory folds evicted turns with one call and aligns to a user turn (contract 4 example)", () => {
    const { calls, summarize } = recorder()
    const memory = RollingMemory.fromJSON({
      version: 2,
      summary: "",
      buffer: [
        { role: "user", content: w5("u1") },
        { role: "assistant", content: w5("a1") },
        { role: "assistant", content: w5("a2") }
      ]
    }, { maxTokens: 10, summarize })
    memory.addUserMessage(w5("u3"))
    assert.deepStrictEqual(calls, [{
      summary: "",
      messages: [`user: ${w5("u1")}`, `assistant: ${w5("a1")}`, `assistant: ${w5("a2")}`]
    }])
    assert.strictEqual(memory.summary, "[u1,a1,a2]")
    assert.deepStrictEqual(memory.buffer.map(String), [`user: ${w5("u3")}`])
    assert.strictEqual(memory.getContext(), `system: [u1,a1,a2]\nuser: ${w5("u3")}`)
    assert.deepStrictEqual(memory.getMessages().map((m) => m.role), ["system", "user"])
    assert.strictEqual(memory.maxTokens, 10)
  })

  it("JSON.stringify writes the wire format and fromJSON restores it verbatim", () => {
    const memory = new BufferMemory()
    memory.addUserMessage("find flights", { id: "m1", metadata: { lang: "en" } })
    memory.addAssistantMessage("", { toolCalls: [{ id: "c1", name: "search", arguments: "{\"to\":\"FCO\"}" }] })
    memory.addToolMessage("[]", { toolCallId: "c1" })
    memory.addSystemMessage("be brief")
    memory.addMessage("critic", "ok")
    const json = JSON.parse(JSON.stringify(memory))
    assert.deepStrictEqual(json, {
      version: 2,
      summary: "",
      buffer: [
        { role: "user", content: "find flights", id: "m1", metadata: { lang: "en" } },
        { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "search", arguments: "{\"to\":\"FCO\"}" }] },
        { role: "tool", content: "[]", tool_call_id: "c1" },
        { role: "system", content: "be brief" },
        { role: "critic", content: "ok" }
      ]
    })
    const restored = WindowMemory.fromJSON(json, { maxMessages: 2 })
    assert.deepStrictEqual(restored.toJSON(), json)
    assert.strictEqual(restored.maxMessages, 2)
  })

  it("fromJSON takes the state as JSON text too, in every class; null or text that is not JSON is said as such", async () => {
    const memory = new RollingMemory({ maxTokens: 100, summarize: "drop" })
    memory.addUserMessage("hello")
    const text = JSON.stringify(memory)
    const restored = [
      RollingMemory.fromJSON(text, { maxTokens: 100, summarize: "drop" }),
      AsyncRollingMemory.fromJSON(text, { maxTokens: 100, summarize: async () => "s" }),
      BufferMemory.fromJSON(text),
      WindowMemory.fromJSON(text, { maxMessages: 2 }),
      SummaryMemory.fromJSON(text, { summarize: () => "s" }),
      AsyncSummaryMemory.fromJSON(text, { summarize: async () => "s" })
    ]
    for (const m of restored) assert.deepStrictEqual(m.toJSON(), memory.toJSON())
    await Promise.all(restored.map((m) => m.dispose()))
    const message = (data: unknown): string => {
      try {
        BufferMemory.fromJSON(data)
      } catch (error) {
        assert.instanceOf(error, StateDecodeError)
        return error.message
      }
      return assert.fail("nothing was thrown")
    }
    assert.strictEqual(message(null), "cannot read memory state: expected a state object or its JSON text, got null")
    assert.strictEqual(
      message(undefined),
      "cannot read memory state: expected a state object or its JSON text, got undefined"
    )
    assert.strictEqual(message(5), "cannot read memory state: expected a state object or its JSON text, got number")
    assert.match(message("{"), /^cannot read memory state: malformed JSON: SyntaxError: /)
  })

  it("a failing summarizer throws the caller's own error and keeps the appended turn", () => {
    const boom = new RangeError("model down")
    const memory = new RollingMemory({
      maxTokens: 5,
      summarize: () => {
        throw boom
      }
    })
    memory.addUserMessage("one two three")
    let caught: unknown
    try {
      memory.addUserMessage("four five six")
    } catch (e) {
      caught = e
    }
    assert.strictEqual(caught, boom)
    assert.deepStrictEqual(memory.buffer.map((m) => m.content), ["one two three", "four five six"])
    assert.strictEqual(memory.summary, "")
  })

  it("a sync class given a Promise-returning summarizer throws TypeError, changes nothing more, and handles the rejection", async () => {
    let rejected = false
    const late = Promise.reject(new Error("late")).catch((e) => {
      rejected = true
      throw e
    })
    const memory = new RollingMemory({ maxTokens: 5, summarize: (() => late) as unknown as () => string })
    memory.addUserMessage("one two three")
    assert.throws(() => memory.addUserMessage("four five six"), TypeError)
    assert.deepStrictEqual(memory.buffer.map((m) => m.content), ["one two three", "four five six"])
    assert.strictEqual(memory.summary, "")
    await new Promise((resolve) => setImmediate(resolve))
    assert.isTrue(rejected)
  })

  it("a result that is not a string throws the SummarizerError itself (rollmem's refusal); an empty one too", async () => {
    const memory = new RollingMemory({ maxTokens: 2, summarize: (() => 42) as unknown as () => string })
    memory.addUserMessage("a b")
    let thrown: unknown
    try {
      memory.addUserMessage("c d")
    } catch (e) {
      thrown = e
    }
    assert.instanceOf(thrown, SummarizerError)
    assert.strictEqual(
      (thrown as SummarizerError).message,
      "summarizer failed: summarizer returned number, not a string"
    )
    assert.instanceOf((thrown as SummarizerError).cause, TypeError)
    assert.strictEqual(
      ((thrown as SummarizerError).cause as TypeError).message,
      "summarizer must return a string, got number"
    )
    const async = new AsyncRollingMemory({ maxTokens: 5, summarize: (async () => 42) as never })
    await async.addUserMessage("one two three")
    const rejected = await async.addUserMessage("four five six").then(() => "nothing", (e: unknown) => e)
    assert.instanceOf(rejected, SummarizerError)
    assert.strictEqual(
      (rejected as SummarizerError).message,
      "summarizer failed: summarizer returned number, not a string"
    )
    await async.dispose()
    const empty = new RollingMemory({ maxTokens: 2, summarize: () => " " })
    empty.addUserMessage("a b")
    let refused: unknown
    try {
      empty.addUserMessage("c d")
    } catch (e) {
      refused = e
    }
    assert.instanceOf(refused, SummarizerError)
    assert.strictEqual((refused as SummarizerError).cause, undefined)
    assert.deepStrictEqual(empty.buffer.map(String), ["user: a b", "user: c d"])
  })

  it("bad options, bad state and bad fields throw typed errors", () => {
    assert.throws(() => new RollingMemory({ maxTokens: 0, summarize: "drop" }), ConfigError, "maxTokens")
    assert.throws(() => new RollingMemory({ maxTokens: 1.5, summarize: "drop" }), ConfigError, "maxTokens")
    assert.throws(() => new WindowMemory({ maxMessages: -1 }), ConfigError)
    assert.throws(
      () => new RollingMemory({ summarize: "drop", ledger: { maxTokens: 20 } }),
      ConfigError,
      "ledger: needs a summarizer"
    )
    assert.throws(() => new SummaryMemory({} as never), ConfigError)
    assert.throws(() => RollingMemory.fromJSON({ version: 4, buffer: [] }, { summarize: "drop" }), StateDecodeError)
    assert.throws(() => RollingMemory.fromJSON({ buffer: [] }, { summarize: "drop" }), StateDecodeError)
    const memory = new RollingMemory({ summarize: "drop" })
    assert.throws(() => memory.addMessage("user", 5 as unknown as string), InvalidMessageError)
    assert.throws(
      () => memory.addAssistantMessage("", { toolCalls: [{ name: "f" } as never] }),
      InvalidMessageError
    )
    assert.deepStrictEqual(memory.buffer, [])
  })

  it("message options are checked like constructor options: an unknown key names the known ones", async () => {
    const expected =
      "invalid message: unknown option \"toolCallID\"; the options are id, toolCalls, toolCallId, metadata"
    const memory = new RollingMemory({ summarize: "drop" })
    assert.throws(() => memory.addToolMessage("r", { toolCallID: "c1" } as never), InvalidMessageError, expected)
    assert.throws(() => memory.addMessage("tool", "r", { toolCallID: "c1" } as never), InvalidMessageError, expected)
    assert.deepStrictEqual(memory.buffer, [])
    const async = new AsyncRollingMemory({ summarize: async () => "" })
    const error = await async.addToolMessage("r", { toolCallID: "c1" } as never).then(() => undefined, (e) => e)
    assert.instanceOf(error, InvalidMessageError)
    assert.strictEqual((error as InvalidMessageError).message, expected)
    // A message passed to addMessages is its own options.
    memory.addMessages([new Message({ role: "tool", content: "r", toolCallId: "c1" })])
    assert.strictEqual(memory.buffer[0].toolCallId, "c1")
  })

  it("Message.make of rollmem/promise (the class) refuses a misspelt key and throws InvalidMessageError in both forms", () => {
    const misspelt =
      "invalid message: unknown option \"toolCallID\"; the options are id, toolCalls, toolCallId, metadata"
    assert.throws(
      () => Message.make({ role: "tool", content: "42", toolCallID: "c1" } as never),
      InvalidMessageError,
      misspelt
    )
    assert.throws(() => Message.make("tool", "42", { toolCallID: "c1" } as never), InvalidMessageError, misspelt)
    assert.throws(
      () => Message.make("tool", 42 as unknown as string),
      InvalidMessageError,
      "invalid message: content: Expected string, actual 42"
    )
    const expected = new Message({ role: "tool", content: "42", toolCallId: "c1" })
    for (
      const made of [
        Message.make("tool", "42", { toolCallId: "c1" }),
        Message.make({ role: "tool", content: "42", toolCallId: "c1" })
      ]
    ) {
      assert.instanceOf(made, Message)
      assert.isTrue(Equal.equals(made, expected))
      assert.deepStrictEqual(made.toJSON(), { role: "tool", content: "42", tool_call_id: "c1" })
    }
  })

  it("a counter returning NaN throws TokenCountError and appends nothing", () => {
    const memory = new RollingMemory({ tokenCounter: (text) => text === "bad" ? Number.NaN : 1, summarize: "drop" })
    memory.addUserMessage("good")
    assert.throws(() => memory.addUserMessage("bad"), TokenCountError)
    assert.deepStrictEqual(memory.buffer.map((m) => m.content), ["good"])
    assert.strictEqual(memory.bufferTokens, 1)
  })

  it("SummaryMemory keeps pending turns on failure and folds them all on the next success", () => {
    let fail = true
    const calls: Array<Array<string>> = []
    const memory = new SummaryMemory({
      summarize: (summary, messages) => {
        calls.push(messages.map((m) => m.content))
        if (fail) throw new Error("down")
        return `${summary}|${messages.map((m) => m.content).join("+")}`
      }
    })
    assert.throws(() => memory.addUserMessage("a"), Error)
    assert.strictEqual(memory.getContext(), "user: a")
    fail = false
    memory.addAssistantMessage("b")
    assert.deepStrictEqual(calls, [["a"], ["a", "b"]])
    assert.strictEqual(memory.summary, "|a+b")
    assert.deepStrictEqual(memory.buffer, [])
    assert.strictEqual(memory.getContext(), "system: |a+b")
  })

  it("AsyncRollingMemory: overlapping adds lose nothing and prunes compute their cutoff under the lock", async () => {
    const calls: Array<Array<string>> = []
    const memory = new AsyncRollingMemory({
      maxTokens: 5,
      summarize: async (summary, messages) => {
        calls.push(messages.map((m) => m.content))
        await Promise.resolve()
        return `${summary}${messages.length}`
      }
    })
    await Promise.all([
      memory.addUserMessage("one two three"),
      memory.addUserMessage("four five six"),
      memory.addUserMessage("seven eight nine")
    ])
    const folded = calls.flat()
    const kept = memory.buffer.map((m) => m.content)
    assert.deepStrictEqual([...folded, ...kept], ["one two three", "four five six", "seven eight nine"])
    assert.deepStrictEqual(kept, ["seven eight nine"])
  })

  it("AsyncSummaryMemory rejects with the summarizer's rejection reason", async () => {
    const reason = new Error("quota")
    const memory = new AsyncSummaryMemory({ summarize: () => Promise.reject(reason) })
    let caught: unknown
    await memory.addUserMessage("hi").catch((e) => {
      caught = e
    })
    assert.strictEqual(caught, reason)
    assert.deepStrictEqual(memory.buffer.map(String), ["user: hi"])
    await memory.dispose()
  })

  it("dispose cancels the summarizer calls in flight: the signal fires, the adds reject, the turns stay", async () => {
    const signals: Array<AbortSignal> = []
    let calls = 0
    let called: () => void = () => {}
    const summarizing = new Promise<void>((resolve) => (called = resolve))
    const memory = new AsyncRollingMemory({
      maxTokens: 2,
      summarize: (_summary, _messages, signal) => {
        calls++
        signals.push(signal)
        called()
        return new Promise<string>(() => {}) // never answers
      }
    })
    await memory.addUserMessage("a b")
    const pending = memory.addUserMessage("c d")
    const outcome = pending.then(() => "resolved", (error: unknown) => error)
    assert.deepStrictEqual(memory.buffer.map((m) => m.content), ["a b", "c d"])
    await summarizing
    assert.strictEqual(calls, 1)
    assert.isFalse(signals[0].aborted)
    await memory.dispose()
    assert.isTrue(signals[0].aborted)
    const error = await outcome
    assert.instanceOf(error, DOMException)
    assert.strictEqual((error as DOMException).name, "AbortError")
    // nothing committed; the memory is readable, and refuses changes
    assert.strictEqual(memory.summary, "")
    assert.deepStrictEqual(memory.buffer.map((m) => m.content), ["a b", "c d"])
    await memory.dispose() // nothing in flight: resolves at once
  })

  it("dispose() means one thing on every facade class, as on Conversations: later changes are refused with DisposedError, reads still work", async () => {
    const summarize = (s: string, ms: ReadonlyArray<Message>) => `${s}+${ms.length}`
    const memories = [
      new RollingMemory({ maxTokens: 4, summarize }),
      new AsyncRollingMemory({ maxTokens: 4, summarize }),
      new AsyncRollingMemory({ maxTokens: 4, summarize, fold: "background" }),
      new BufferMemory(),
      new WindowMemory({ maxMessages: 2 }),
      new SummaryMemory({ summarize }),
      new AsyncSummaryMemory({ summarize })
    ] as const
    const names = [
      "RollingMemory",
      "AsyncRollingMemory",
      "AsyncRollingMemory",
      "BufferMemory",
      "WindowMemory",
      "SummaryMemory",
      "AsyncSummaryMemory"
    ]
    const settle = async (f: () => unknown): Promise<unknown> => {
      try {
        await f()
        return "done"
      } catch (error) {
        return error
      }
    }
    for (const [i, memory] of memories.entries()) {
      await memory.addUserMessage("a b")
      await memory.dispose()
      const saved = memory.toJSON()
      const refusals = [
        await settle(() => memory.addUserMessage("c d")),
        await settle(() => memory.addMessage("assistant", "e")),
        await settle(() => memory.addMessages([Message.make("user", "f")])),
        await settle(() => memory.clear()),
        await settle(() => memory.recordUsage({ inputTokens: 10 })),
        ...("compact" in memory ? [await settle(() => memory.compact())] : [])
      ]
      for (const refused of refusals) {
        assert.instanceOf(refused, DisposedError, names[i])
        assert.strictEqual((refused as DisposedError).object, names[i])
      }
      assert.strictEqual(
        (refusals[0] as DisposedError).message,
        `this ${names[i]} was disposed: nothing was added, cleared or compacted; its reads still work: ` +
          `to go on, restore its state into a new one (${names[i]}.fromJSON(memory.toJSON(), options))`
      )
      // nothing changed; reads work; disposing again does no harm
      assert.deepStrictEqual(memory.toJSON(), saved, names[i])
      assert.strictEqual(memory.usageRatio, 1)
      assert.deepStrictEqual(memory.getMessages(), [...memory.getMessages()])
      await memory.dispose()
    }
  })

  it("a synchronous summarizer that adds to its own memory: the nested fold commits, the outer result is discarded, no turn lost", () => {
    const calls: Array<{ summary: string; turns: Array<string> }> = []
    let nested = false
    const memory: RollingMemory = new RollingMemory({
      maxTokens: 4,
      summarize: (summary, messages) => {
        calls.push({ summary, turns: messages.map((m) => m.content) })
        if (!nested) {
          nested = true
          memory.addUserMessage("d1 d2") // re-entrant add: over budget again, folds inside this call
        }
        return `S(${messages.map((m) => m.content.slice(0, 1)).join(",")})`
      }
    })
    memory.addUserMessage("a1 a2")
    memory.addUserMessage("b1 b2")
    memory.addUserMessage("c1 c2")
    assert.deepStrictEqual(calls, [
      { summary: "", turns: ["a1 a2"] },
      { summary: "", turns: ["a1 a2", "b1 b2"] }
    ])
    assert.strictEqual(memory.summary, "S(a,b)")
    assert.deepStrictEqual(memory.buffer.map((m) => m.content), ["c1 c2", "d1 d2"])
    assert.strictEqual(memory.bufferTokens, 4)
  })

  it("a memory carries no hidden property; a stray constructor argument is not taken for a restored state", () => {
    const memory = Effect.runSync(EffectRolling.make({ maxTokens: 10 }).pipe(Effect.provide(Summarizer.layerDrop)))
    assert.deepStrictEqual(Object.getOwnPropertySymbols(memory), [])
    const saved = JSON.parse(JSON.stringify(new RollingMemory({ summarize: "drop" })))
    // @ts-expect-error -- only fromJSON passes a restored state
    const buffer = new BufferMemory({}, { summary: "s", buffer: [] })
    assert.deepStrictEqual(buffer.summary, "")
    assert.deepStrictEqual(BufferMemory.fromJSON({ ...saved, summary: "kept" }).summary, "kept")
  })

  it("clear empties summary and buffer", () => {
    const memory = new RollingMemory({ maxTokens: 1, summarize: (s, m) => s + m.length })
    memory.addUserMessage("a")
    memory.addUserMessage("b")
    assert.strictEqual(memory.summary, "1")
    memory.clear()
    assert.strictEqual(memory.summary, "")
    assert.deepStrictEqual(memory.getMessages(), [])
    assert.strictEqual(memory.getContext(), "")
  })
})

describe("Promise facade options", () => {
  it("the rolling classes drop evicted turns only when told to: summarize \"drop\", else a ConfigError saying how to choose", async () => {
    const expected = "invalid option summarize: is required: pass a function that folds the evicted turns into the " +
      "summary, or \"drop\" to drop them on purpose (an absent summarize dropped them before 0.4.0)"
    const saved = { version: 2, summary: "", buffer: [] }
    for (
      const make of [
        () => new RollingMemory({ maxTokens: 5 } as never),
        () => new RollingMemory(undefined as never),
        () => new AsyncRollingMemory({ maxTokens: 5 } as never),
        () => RollingMemory.fromJSON(saved, { maxTokens: 5 } as never),
        () => AsyncRollingMemory.fromJSON(saved, undefined as never)
      ]
    ) {
      const error = thrown(make)
      assert.deepStrictEqual([error.option, error.message], ["summarize", expected])
    }
    // "drop" drops, as Summarizer.drop does: no summary, only the newest turn left
    const sync = new RollingMemory({ maxTokens: 5, summarize: "drop" })
    const async = new AsyncRollingMemory({ maxTokens: 5, summarize: "drop" })
    for (const text of [w5("a"), w5("b"), w5("c")]) {
      sync.addUserMessage(text)
      await async.addUserMessage(text)
    }
    for (const memory of [sync, async]) {
      assert.strictEqual(memory.summary, "")
      assert.deepStrictEqual(memory.buffer.map((m) => m.content), [w5("c")])
    }
    // what needs a summarizer call refuses "drop"; the summary strategy needs a function
    assert.strictEqual(
      thrown(() => new AsyncRollingMemory({ summarize: "drop", fold: "background" })).message,
      "invalid option fold: \"background\" needs a summarize function: without one, evicted turns are dropped at once"
    )
    assert.strictEqual(
      thrown(() => new AsyncRollingMemory({ summarize: "drop", timeout: 10 })).message,
      "invalid option timeout: needs a summarize function: without one, no call is made to bound"
    )
    assert.strictEqual(
      thrown(() => new SummaryMemory({ summarize: "drop" as never })).message,
      "invalid option summarize: must be a function: the summary strategy folds every turn, \"drop\" would drop them all"
    )
    assert.strictEqual(
      thrown(() => new RollingMemory({ summarize: "none" as never })).message,
      "invalid option summarize: must be a function or \"drop\", got \"none\""
    )
  })

  it("maxTokens null is a ConfigError, not the default", () => {
    assert.throws(() => new RollingMemory({ maxTokens: null as unknown as number, summarize: "drop" }), ConfigError)
    assert.strictEqual(new RollingMemory({ summarize: "drop" }).maxTokens, 2000)
  })

  it("a misspelt option key is a ConfigError listing the known ones, not a silent default", () => {
    const cases: ReadonlyArray<[() => unknown, string]> = [
      [
        () => new RollingMemory({ maxToken: 10 } as never),
        "invalid option maxToken: unknown option (known: maxTokens, contextWindow, targetTokens, boundary, pinSystem, clearToolResults, maxToolResultTokens, summaryRole, summaryFraming, summary, maxSummaryTokens, maxSummarizerInputTokens, ledger, summarize, tokenCounter, archive, conversationId)"
      ],
      [
        () => new AsyncRollingMemory({ summarise: () => "" } as never),
        "invalid option summarise: unknown option (known: maxTokens, contextWindow, targetTokens, boundary, pinSystem, clearToolResults, maxToolResultTokens, summaryRole, summaryFraming, summary, maxSummaryTokens, maxSummarizerInputTokens, ledger, summarize, tokenCounter, archive, conversationId, fold, hardMaxTokens, foldRetries, timeout)"
      ],
      [
        () => new WindowMemory({ maxMessages: 3, max: 1 } as never),
        "invalid option max: unknown option (known: maxMessages, targetMessages, boundary, pinSystem, summaryRole, summaryFraming, tokenCounter, archive, conversationId)"
      ],
      [
        () => new SummaryMemory({ summarize: () => "", tokencounter: () => 1 } as never),
        "invalid option tokencounter: unknown option (known: summaryRole, summaryFraming, summary, maxSummaryTokens, maxSummarizerInputTokens, ledger, summarize, tokenCounter, archive, conversationId)"
      ]
    ]
    for (const [make, message] of cases) assert.strictEqual(thrown(make).message, message)
  })

  it("options that are null or not an object are a ConfigError naming them", () => {
    for (
      const make of [
        (o: unknown) => new RollingMemory(o as ConstructorParameters<typeof RollingMemory>[0]),
        (o: unknown) => new AsyncRollingMemory(o as ConstructorParameters<typeof AsyncRollingMemory>[0])
      ]
    ) {
      for (const [value, got] of [[null, "null"], [5, "number"], ["x", "string"]] as const) {
        assert.strictEqual(thrown(() => make(value)).message, `invalid option options: must be an object, got ${got}`)
      }
    }
  })
})

describe("Promise facade: BufferMemory options", () => {
  const saved = { version: 2, summary: "earlier", buffer: [{ role: "user", content: "a b c" }] }

  it("summaryRole and tokenCounter are taken, by the constructor and by fromJSON", () => {
    assert.deepStrictEqual(new BufferMemory().getMessages(), [])
    assert.deepStrictEqual(new BufferMemory(undefined).getMessages(), [])
    const restored = BufferMemory.fromJSON(saved, { summaryRole: "user", tokenCounter: (text) => text.length })
    assert.deepStrictEqual(restored.getMessages().map(String), ["user: earlier", "user: a b c"])
    assert.strictEqual(restored.bufferTokens, 5)
    assert.deepStrictEqual(BufferMemory.fromJSON(saved).getMessages().map(String), [
      "system: earlier",
      "user: a b c"
    ])
    assert.strictEqual(BufferMemory.fromJSON(saved).bufferTokens, 3)
    const memory = new BufferMemory({ summaryRole: "system", tokenCounter: () => 2 })
    memory.addUserMessage("x")
    memory.addAssistantMessage("y")
    assert.strictEqual(memory.bufferTokens, 4)
    assert.deepStrictEqual(memory.getMessages().map(String), ["user: x", "assistant: y"])
  })

  it("SummaryMemory takes a tokenCounter: the summary is counted with it, against maxSummaryTokens too", () => {
    const memory = new SummaryMemory({
      summarize: (summary, turns) => `${summary}${turns.map((t) => t.content).join("")}`,
      tokenCounter: (text) => text.length,
      maxSummaryTokens: 5
    })
    memory.addUserMessage("abc")
    assert.strictEqual(memory.summary, "abc")
    assert.strictEqual(memory.summaryTokens, 3)
    assert.throws(() => memory.addUserMessage("def"), SummaryBudgetError)
    assert.strictEqual(memory.summary, "abc")
  })

  it("WindowMemory takes a tokenCounter too: it counts bufferTokens, the window still evicts by count", () => {
    const memory = new WindowMemory({ maxMessages: 2, tokenCounter: (text) => text.length })
    memory.addUserMessage("abc")
    memory.addAssistantMessage("de")
    memory.addUserMessage("f")
    memory.addAssistantMessage("ghij")
    assert.deepStrictEqual(memory.getMessages().map(String), ["user: f", "assistant: ghij"])
    assert.strictEqual(memory.bufferTokens, 5)
    const restored = WindowMemory.fromJSON(saved, { maxMessages: 2, tokenCounter: () => 7 })
    assert.strictEqual(restored.bufferTokens, 7)
    assert.throws(
      () => new WindowMemory({ maxMessages: 2, tokenCounter: 5 as never }),
      ConfigError,
      "invalid option tokenCounter"
    )
  })

  it("a misspelt key, a wrong type, null or a non-object is a ConfigError naming the option", () => {
    const cases: ReadonlyArray<[unknown, string]> = [
      [{ foo: 1 }, "invalid option foo: unknown option (known: summaryRole, summaryFraming, tokenCounter)"],
      [
        { summaryrole: "user" },
        "invalid option summaryrole: unknown option (known: summaryRole, summaryFraming, tokenCounter)"
      ],
      [
        { maxTokens: 10 },
        "invalid option maxTokens: unknown option (known: summaryRole, summaryFraming, tokenCounter)"
      ],
      [{ summaryRole: "assistant" }, "invalid option summaryRole: must be \"system\" or \"user\", got \"assistant\""],
      [{ summaryRole: null }, "invalid option summaryRole: must be \"system\" or \"user\", got null"],
      [{ tokenCounter: 5 }, "invalid option tokenCounter: must be a function, got number"],
      [{ tokenCounter: null }, "invalid option tokenCounter: must be a function, got null"],
      [null, "invalid option options: must be an object, got null"],
      [5, "invalid option options: must be an object, got number"],
      ["x", "invalid option options: must be an object, got string"],
      [[], "invalid option options: must be an object, got array"]
    ]
    for (const [options, message] of cases) {
      const bad = options as ConstructorParameters<typeof BufferMemory>[0]
      assert.strictEqual(thrown(() => new BufferMemory(bad)).message, message)
      assert.strictEqual(thrown(() => BufferMemory.fromJSON(saved, bad)).message, message)
    }
  })
})

describe("Promise facade values", () => {
  it("a summarize or tokenCounter that is not a function is a ConfigError at construction", () => {
    assert.throws(() => new RollingMemory({ summarize: "nope" as never }), ConfigError)
    assert.throws(() => new AsyncRollingMemory({ summarize: 42 as never }), ConfigError)
    assert.throws(() => new RollingMemory({ tokenCounter: 5 as never, summarize: "drop" }), ConfigError)
  })

  it("stored messages are frozen; the shared default tool-call list cannot leak into another memory", () => {
    const one = new BufferMemory()
    one.addUserMessage("a")
    assert.throws(() => (one.buffer[0].toolCalls as Array<unknown>).push("evil"), TypeError)
    assert.throws(() => {
      ;(one.getMessages()[0] as { content: string }).content = "changed"
    }, TypeError)
    const two = new BufferMemory()
    two.addUserMessage("b", { metadata: { k: [1] } })
    assert.throws(() => (two.buffer[0].metadata.k as Array<number>).push(2), TypeError)
    assert.strictEqual(two.getContext(), "user: b")
    assert.strictEqual(
      JSON.stringify(two.getMessages()),
      "[{\"role\":\"user\",\"content\":\"b\",\"metadata\":{\"k\":[1]}}]"
    )
    assert.strictEqual(one.bufferTokens, 1)
  })
})

describe("addMessages given what is not an array of messages", () => {
  it("throws InvalidMessageError naming it, and adds nothing (sync and async)", async () => {
    const memory = new RollingMemory({ maxTokens: 100, summarize: "drop" })
    memory.addUserMessage("kept")
    const thrown = (f: () => unknown): unknown => {
      try {
        f()
      } catch (e) {
        return e
      }
      return "nothing"
    }
    const notArray = thrown(() => memory.addMessages("hi" as unknown as ReadonlyArray<Message>))
    assert.instanceOf(notArray, InvalidMessageError)
    assert.strictEqual(
      (notArray as InvalidMessageError).description,
      "addMessages takes an array of messages, got string"
    )
    const withNull = thrown(() =>
      memory.addMessages([Message.make({ role: "user", content: "a" }), null as unknown as Message])
    )
    assert.instanceOf(withNull, InvalidMessageError)
    assert.strictEqual((withNull as InvalidMessageError).description, "message 1: expected a message object, got null")
    assert.deepStrictEqual(memory.buffer.map(String), ["user: kept"])
    const later = new AsyncRollingMemory({ maxTokens: 100, summarize: "drop" })
    const rejected = await later.addMessages(42 as unknown as ReadonlyArray<Message>).then(() => "nothing", (e) => e)
    assert.instanceOf(rejected, InvalidMessageError)
    assert.strictEqual(later.buffer.length, 0)
  })
})

describe("a summarizer that throws a SummarizerError of its own (contract 9)", () => {
  const own = () => new SummarizerError({ description: "needs the AI SDK: npm i ai@6", cause: new Error("inner") })

  it("sync: the add throws that error whole, not its cause", () => {
    const error = own()
    const memory = new RollingMemory({
      maxTokens: 2,
      summarize: () => {
        throw error
      }
    })
    memory.addUserMessage("a b")
    let thrown: unknown = "nothing"
    try {
      memory.addUserMessage("c d")
    } catch (e) {
      thrown = e
    }
    assert.strictEqual(thrown, error)
    assert.deepStrictEqual(memory.buffer.map(String), ["user: a b", "user: c d"])
  })

  it("async: the add rejects with that error whole; another error is still handed back as thrown", async () => {
    const error = own()
    const memory = new AsyncRollingMemory({ maxTokens: 2, summarize: () => Promise.reject(error) })
    await memory.addUserMessage("a b")
    assert.strictEqual(await memory.addUserMessage("c d").then(() => "nothing", (e: unknown) => e), error)
    const plain = new Error("down")
    const other = new AsyncRollingMemory({ maxTokens: 2, summarize: () => Promise.reject(plain) })
    await other.addUserMessage("a b")
    assert.strictEqual(await other.addUserMessage("c d").then(() => "nothing", (e: unknown) => e), plain)
  })
})

describe("a summarizer that throws null or undefined (one rule)", () => {
  const fill = (memory: { addUserMessage: (c: string) => unknown }) => {
    memory.addUserMessage("a b")
    return memory.addUserMessage("c d")
  }
  for (const value of [null, undefined]) {
    it(`sync: throwing ${String(value)} throws a SummarizerError whose cause is ${String(value)}`, () => {
      const memory = new RollingMemory({
        maxTokens: 2,
        summarize: () => {
          throw value
        }
      })
      let thrown: unknown = "nothing"
      try {
        fill(memory)
      } catch (e) {
        thrown = e
      }
      assert.instanceOf(thrown, SummarizerError)
      assert.strictEqual((thrown as SummarizerError).cause, value)
      assert.strictEqual((thrown as SummarizerError).description, String(value))
      assert.deepStrictEqual(memory.buffer.map(String), ["user: a b", "user: c d"])
    })

    it(`async: rejecting with ${String(value)} rejects with a SummarizerError whose cause is ${String(value)}`, async () => {
      const memory = new AsyncRollingMemory({ maxTokens: 2, summarize: () => Promise.reject(value) })
      await memory.addUserMessage("a b")
      const thrown = await memory.addUserMessage("c d").then(() => "nothing", (e: unknown) => e)
      assert.instanceOf(thrown, SummarizerError)
      assert.strictEqual((thrown as SummarizerError).cause, value)
      assert.deepStrictEqual(memory.buffer.map(String), ["user: a b", "user: c d"])
    })
  }
})

describe("add(message): one Message, as on the Effect 4 line's facade (contract section 9)", () => {
  const hint =
    "addMessage takes (role, content, options) and got a message object as its role: add one message with add(message), several with addMessages(messages)"

  it("a sync memory adds a Message as addMessage adds its fields, and checks a plain object as addMessages does", () => {
    const memory = new BufferMemory()
    memory.add(new Message({ role: "user", content: "hi", id: "m1" }))
    memory.add({ role: "assistant", content: "hello" } as never)
    assert.deepStrictEqual(memory.toJSON(), {
      version: 2,
      summary: "",
      buffer: [{ role: "user", content: "hi", id: "m1" }, { role: "assistant", content: "hello" }]
    })
    let thrown: unknown
    try {
      memory.add({ role: "user", content: 5 } as never)
    } catch (error) {
      thrown = error
    }
    assert.instanceOf(thrown, InvalidMessageError)
    assert.strictEqual((thrown as InvalidMessageError).description, "content: Expected string, actual 5")
    assert.strictEqual(memory.buffer.length, 2)
  })

  it("a Message given to addMessage is refused with what to call instead, nothing added", () => {
    const memory = new BufferMemory()
    let thrown: unknown
    try {
      memory.addMessage(new Message({ role: "user", content: "hi" }) as never, "")
    } catch (error) {
      thrown = error
    }
    assert.instanceOf(thrown, InvalidMessageError)
    assert.strictEqual((thrown as InvalidMessageError).description, hint)
    assert.strictEqual(memory.buffer.length, 0)
  })

  it("an async memory's add resolves once the message is added; a bad one rejects", async () => {
    const memory = new AsyncRollingMemory({ maxTokens: 100, summarize: async (summary) => summary })
    await memory.add(new Message({ role: "user", content: "hi" }))
    const rejected = await memory.addMessage(new Message({ role: "user", content: "x" }) as never, "").then(
      () => undefined,
      (e) => e
    )
    assert.instanceOf(rejected, InvalidMessageError)
    assert.strictEqual((rejected as InvalidMessageError).description, hint)
    assert.deepStrictEqual(memory.buffer.map(String), ["user: hi"])
  })
})
