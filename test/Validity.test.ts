import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc, Schema } from "effect"
import * as Message from "../src/schema/Message.js"
import * as ValiditySchema from "../src/schema/Violation.js"
import * as Validity from "../src/Validity.js"

const call = (id: string, name = "f") => ({ id, name, arguments: "{}" })
const u = (content: string) => Message.user(content)
const a = (content: string, ...ids: ReadonlyArray<string>) =>
  Message.assistant(content, ids.length === 0 ? undefined : { toolCalls: ids.map((id) => call(id)) })
const t = (id: string) => Message.tool(`result ${id}`, { toolCallId: id })
const s = (content: string) => Message.system(content)

/** The violations as plain `{ _tag, index, ... }` objects, for exact comparison. */
const check = (messages: ReadonlyArray<Validity.MessageLike>, provider?: Validity.Provider) =>
  Validity.violations(messages, { provider }).map((v) => Schema.encodeSync(ValiditySchema.Violation)(v))

describe("Validity.violations", () => {
  it("accepts an empty context, system messages only, and a well-formed exchange", () => {
    assert.deepStrictEqual(check([]), [])
    assert.deepStrictEqual(check([s("summary"), s("more")]), [])
    assert.deepStrictEqual(check([s("prompt"), u("hi"), a("", "c1", "c2"), t("c2"), t("c1"), a("done")]), [])
    assert.isTrue(Validity.isValid([u("hi"), a("hello")]))
  })

  it("the first non-system message must be a user turn", () => {
    assert.deepStrictEqual(check([s("summary"), a("hello"), u("hi")]), [
      { _tag: "FirstTurnNotUser", index: 1, role: "assistant" }
    ])
    // developer counts as a system message
    assert.deepStrictEqual(check([Message.make("developer", "rules"), u("hi")]), [])
    // a user message carrying a tool call id is a tool result, not a user turn
    assert.deepStrictEqual(check([Message.user("42", { toolCallId: "c1" })]), [
      { _tag: "FirstTurnNotUser", index: 0, role: "user" },
      { _tag: "OrphanedToolResult", index: 0, toolCallId: "c1" }
    ])
    // any other role opens wrongly too
    assert.deepStrictEqual(check([Message.make("critic", "x"), u("hi")]), [
      { _tag: "FirstTurnNotUser", index: 0, role: "critic" }
    ])
    assert.isFalse(Validity.isValid([a("hello")]))
  })

  it("an orphaned tool result: its call folded away, as the README's example leaves it", () => {
    // user, assistant call job1, user, assistant, tool result job1 at a budget of 8 words: only the result stays
    assert.deepStrictEqual(check([t("job1")]), [
      { _tag: "FirstTurnNotUser", index: 0, role: "tool" },
      { _tag: "OrphanedToolResult", index: 0, toolCallId: "job1" }
    ])
    assert.deepStrictEqual(check([u("hi"), a("", "c1"), t("c1"), u("and?"), a("sure"), t("c9")]), [
      { _tag: "OrphanedToolResult", index: 5, toolCallId: "c9" }
    ])
  })

  it("a tool result after a message between it and its call is orphaned, and the call unanswered", () => {
    assert.deepStrictEqual(check([u("hi"), a("", "c1"), u("wait"), t("c1")]), [
      { _tag: "UnansweredToolCall", index: 1, toolCallId: "c1" },
      { _tag: "OrphanedToolResult", index: 3, toolCallId: "c1" }
    ])
  })

  it("a result belongs to the block of its own call: an id answered in a later block is orphaned there", () => {
    assert.deepStrictEqual(check([u("hi"), a("", "c1"), t("c1"), a("", "c2"), t("c1"), t("c2")]), [
      { _tag: "OrphanedToolResult", index: 4, toolCallId: "c1" }
    ])
    // a reused id is matched within its block
    assert.deepStrictEqual(check([u("hi"), a("", "c1"), t("c1"), a("", "c1"), t("c1"), a("ok")]), [])
  })

  it("a call unanswered before the next non-tool message, or at the end, is reported once per call", () => {
    assert.deepStrictEqual(check([u("hi"), a("", "c1", "c2"), t("c1"), a("done")]), [
      { _tag: "UnansweredToolCall", index: 1, toolCallId: "c2" }
    ])
    assert.deepStrictEqual(check([u("hi"), a("", "c1")]), [
      { _tag: "UnansweredToolCall", index: 1, toolCallId: "c1" }
    ])
    assert.deepStrictEqual(check([u("hi"), a("", "c1", "c1")]), [
      { _tag: "UnansweredToolCall", index: 1, toolCallId: "c1" }
    ])
  })

  it("orders violations by index and describes each in one line", () => {
    const found = Validity.violations([a("", "c1"), t("c2"), u("hi")])
    assert.deepStrictEqual(found.map((v) => [v._tag, v.index]), [
      ["FirstTurnNotUser", 0],
      ["UnansweredToolCall", 0],
      ["OrphanedToolResult", 1]
    ])
    assert.deepStrictEqual(found.map((v) => v.description), [
      "message 0: the first turn is an assistant message, not a user turn",
      "message 0: tool call \"c1\" has no result right after it",
      "message 1: tool result \"c2\" does not follow its call"
    ])
    assert.instanceOf(found[0], Validity.FirstTurnNotUser)
  })

  it("violations read back from JSON with the Violation schema", () => {
    const found = Validity.violations([t("c1")])
    const json = JSON.parse(JSON.stringify(found)) as unknown
    assert.deepStrictEqual(Schema.decodeUnknownSync(Schema.Array(ValiditySchema.Violation))(json), found)
  })
})

describe("Validity.violations per target (the rule table)", () => {
  const late = [u("hi"), s("late rule"), a("ok")]
  const twice = [s("prompt"), u("summary"), u("hi"), a("ok")]

  it("the table: which rules each target applies", () => {
    assert.deepStrictEqual(Validity.rulesOf(), ["FirstTurnNotUser", "OrphanedToolResult", "UnansweredToolCall"])
    assert.deepStrictEqual(Validity.rulesOf("openai"), ["OrphanedToolResult", "UnansweredToolCall"])
    assert.deepStrictEqual(Validity.rulesOf("anthropic"), [
      "FirstTurnNotUser",
      "OrphanedToolResult",
      "UnansweredToolCall",
      "SystemAfterFirstTurn"
    ])
    assert.deepStrictEqual(Validity.rulesOf("gemini"), Validity.rulesOf("anthropic"))
    assert.deepStrictEqual(Validity.rulesOf("strict-template"), [
      "FirstTurnNotUser",
      "OrphanedToolResult",
      "UnansweredToolCall",
      "SystemAfterFirstTurn",
      "ConsecutiveSameRole"
    ])
    assert.deepStrictEqual(Validity.providers, ["openai", "anthropic", "gemini", "strict-template"])
  })

  it("a system message after the first turn: OpenAI accepts it, Anthropic, Gemini and strict templates do not", () => {
    assert.deepStrictEqual(check(late), [])
    assert.deepStrictEqual(check(late, "openai"), [])
    for (const provider of ["anthropic", "gemini", "strict-template"] as const) {
      assert.deepStrictEqual(check(late, provider), [{ _tag: "SystemAfterFirstTurn", index: 1, role: "system" }])
    }
    // developer counts; leading system messages do not
    assert.deepStrictEqual(
      check([s("a"), Message.make("developer", "b"), u("hi"), Message.make("developer", "c")], "anthropic"),
      [
        { _tag: "SystemAfterFirstTurn", index: 3, role: "developer" }
      ]
    )
    assert.deepStrictEqual(
      Validity.violations(late, { provider: "gemini" }).map((v) => v.description),
      ["message 1: a system message after the first turn"]
    )
  })

  it("consecutive messages of one role: only strict templates refuse them; tool results are exempt", () => {
    for (const provider of [undefined, "openai", "anthropic", "gemini"] as const) {
      assert.deepStrictEqual(check(twice, provider), [])
    }
    assert.deepStrictEqual(check(twice, "strict-template"), [{ _tag: "ConsecutiveSameRole", index: 2, role: "user" }])
    assert.deepStrictEqual(check([s("prompt"), s("summary"), u("hi"), a("x"), a("y")], "strict-template"), [
      { _tag: "ConsecutiveSameRole", index: 1, role: "system" },
      { _tag: "ConsecutiveSameRole", index: 4, role: "assistant" }
    ])
    // parallel results follow one another; a user message with a tool call id is a result, not a turn
    assert.deepStrictEqual(
      check(
        [u("hi"), a("", "c1", "c2"), t("c1"), Message.user("r", { toolCallId: "c2" }), a("done")],
        "strict-template"
      ),
      []
    )
    assert.deepStrictEqual(
      Validity.violations(twice, { provider: "strict-template" }).map((v) => v.description),
      ["message 2: a second user message in a row"]
    )
  })

  it("OpenAI accepts an assistant turn first; the others do not", () => {
    const first = [a("hello"), u("hi")]
    assert.deepStrictEqual(check(first, "openai"), [])
    assert.deepStrictEqual(check(first, "anthropic"), [{ _tag: "FirstTurnNotUser", index: 0, role: "assistant" }])
  })

  it("reads plain message shapes (no Message class needed)", () => {
    assert.deepStrictEqual(
      check([{ role: "user" }, { role: "assistant", toolCalls: [{ id: "c1" }] }, { role: "tool", toolCallId: "c1" }]),
      []
    )
    assert.deepStrictEqual(check([{ role: "user" }, { role: "tool", toolCallId: "c9" }]), [
      { _tag: "OrphanedToolResult", index: 1, toolCallId: "c9" }
    ])
  })

  it("every violation of every kind reads back from JSON", () => {
    const found = Validity.violations([a("", "c1"), t("c2"), u("hi"), s("late"), u("x"), u("y")], {
      provider: "strict-template"
    })
    assert.deepStrictEqual(found.map((v) => v._tag), [
      "FirstTurnNotUser",
      "UnansweredToolCall",
      "OrphanedToolResult",
      "SystemAfterFirstTurn",
      "ConsecutiveSameRole"
    ])
    const json = JSON.parse(JSON.stringify(found)) as unknown
    assert.deepStrictEqual(Schema.decodeUnknownSync(Schema.Array(ValiditySchema.Violation))(json), found)
  })
})

/** What the strict rules add, checked one by one against a slow reference. */
const reference = (messages: ReadonlyArray<Message.Message>) => {
  const out: Array<ValiditySchema.Encoded> = []
  const first = messages.findIndex((m) => !Validity.isSystem(m))
  messages.forEach((m, i) => {
    if (first >= 0 && i > first && Validity.isSystem(m)) {
      out.push({ _tag: "SystemAfterFirstTurn", index: i, role: m.role })
    }
    const p = messages[i - 1]
    if (
      p !== undefined && m.toolCallId === undefined && p.toolCallId === undefined &&
      (Validity.isSystem(m) ? Validity.isSystem(p) : m.role === p.role)
    ) out.push({ _tag: "ConsecutiveSameRole", index: i, role: m.role })
  })
  return out
}

describe("Validity.violations: the strict rules against a reference", () => {
  const anyMessage = fc.oneof(
    fc.constant(u("q")),
    fc.constant(a("x")),
    fc.constant(s("rule")),
    fc.constant(Message.make("developer", "d")),
    fc.constant(t("c1"))
  )
  it.prop(
    "strict-template = the 0.2.0 rules plus the reference's",
    [fc.array(anyMessage, { maxLength: 12 })],
    ([messages]) => {
      const strict = Validity.violations(messages, { provider: "strict-template" })
      const added = strict.filter((v) => v._tag === "SystemAfterFirstTurn" || v._tag === "ConsecutiveSameRole")
      assert.deepStrictEqual(
        added.map((v) => Schema.encodeSync(ValiditySchema.Violation)(v)),
        reference(messages).sort((x, y) => x.index - y.index)
      )
      assert.deepStrictEqual(
        strict.filter((v) => !(added as ReadonlyArray<Validity.Violation>).includes(v)).map((v) => v._tag),
        Validity.violations(messages).map((v) => v._tag)
      )
    }
  )
})

/** A valid conversation: optional system prompt, then turns of a user message and steps of calls with all their results. */
const validConversation = fc.tuple(
  fc.boolean(),
  fc.array(
    fc.array(
      fc.tuple(fc.uniqueArray(fc.constantFrom("c1", "c2", "c3", "c4"), { maxLength: 3 }), fc.nat(), fc.boolean()),
      { maxLength: 4 }
    ),
    { minLength: 1, maxLength: 4 }
  )
).map(([system, turns]) => {
  const messages: Array<Message.Message> = system ? [s("prompt")] : []
  for (const steps of turns) {
    messages.push(u("question"))
    for (const [ids, seed, close] of steps) {
      messages.push(a(ids.length === 0 ? "answer" : "", ...ids))
      // the results in any order
      const order = ids.map((id, i) => [id, (seed * (i + 7)) % 11] as const).sort((x, y) => x[1] - y[1])
      for (const [id] of order) messages.push(t(id))
      if (close && ids.length > 0) messages.push(a("summing up"))
    }
  }
  return messages
})

describe("Validity.violations on generated conversations", () => {
  it.prop("a conversation built by the rules has no violation", [validConversation], ([messages]) => {
    assert.deepStrictEqual(check(messages), [])
  })

  it.prop(
    "removing one tool result leaves exactly its call unanswered",
    [validConversation, fc.nat()],
    ([messages, pick]) => {
      const results = messages.flatMap((m, i) => m.toolCallId === undefined ? [] : [i])
      fc.pre(results.length > 0)
      const removed = results[pick % results.length]
      const id = messages[removed].toolCallId!
      let head = removed
      while (messages[head].toolCallId !== undefined) head--
      assert.deepStrictEqual(check(messages.filter((_, i) => i !== removed)), [
        { _tag: "UnansweredToolCall", index: head, toolCallId: id }
      ])
    }
  )
})
