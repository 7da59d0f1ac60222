import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc, Schema } from "effect"
import * as Message from "../src/schema/Message.js"
import * as Validity from "../src/Validity.js"

const call = (id: string, name = "f") => ({ id, name, arguments: "{}" })
const u = (content: string) => Message.user(content)
const a = (content: string, ...ids: ReadonlyArray<string>) =>
  Message.assistant(content, ids.length === 0 ? undefined : { toolCalls: ids.map((id) => call(id)) })
const t = (id: string) => Message.tool(`result ${id}`, { toolCallId: id })
const s = (content: string) => Message.system(content)

/** The violations as plain `{ _tag, index, ... }` objects, for exact comparison. */
const check = (messages: ReadonlyArray<Message.Message>) =>
  Validity.violations(messages).map((v) => Schema.encodeSync(Validity.Violation)(v))

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
    assert.deepStrictEqual(Schema.decodeUnknownSync(Schema.Array(Validity.Violation))(json), found)
  })
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
