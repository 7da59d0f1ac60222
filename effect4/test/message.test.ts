/**
 * `Message.make` on the Effect 4 line (docs/contract.md sections 1 and 9):
 * the common shapes are built by hand (`core/message.ts` `plainFields`, the
 * Effect 3 line's fast path) and must give the very message the Schema
 * decoder gives; the options are checked by the same rule on both lines
 * (`core/message.ts` `optionsProblem`: `role` and `content` keys equal to the
 * message's own are allowed).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Equal, Result } from "effect"
import { InvalidMessageError } from "../src/Errors.js"
import { MemoryState, Message } from "../src/index.js"

const wireOf = (role: string, content: string, options: Message.MessageOptions | undefined) => {
  const wire: Record<string, unknown> = { role, content }
  if (options?.id !== undefined) wire.id = options.id
  if (options?.toolCalls !== undefined) wire.tool_calls = options.toolCalls
  if (options?.toolCallId !== undefined) wire.tool_call_id = options.toolCallId
  return wire
}

const cases: ReadonlyArray<readonly [string, string, Message.MessageOptions | undefined]> = [
  ["user", "hello", undefined],
  ["user", "", {}],
  ["system", "rules", { id: "m1" }],
  ["assistant", "", { toolCalls: [{ id: "c1", name: "search", arguments: "{\"q\":1}" }, { id: "c2", name: "now" }] }],
  ["assistant", "ok", { id: "m2", toolCalls: [] }],
  ["tool", "42", { toolCallId: "c1" }],
  ["tool", "42", { id: "m3", toolCallId: "c1" }],
  ["developer", "x", { toolCalls: [{ id: "", name: "", arguments: "" }] }]
]

describe("Message.make on Effect 4", () => {
  it("the common shapes give the decoder's message: fields, key order, prototype, equality", () => {
    for (const [role, content, options] of cases) {
      const made = Message.make(role, content, options)
      const decoded = Message.decodeUnknown(wireOf(role, content, options))
      assert.isTrue(Result.isSuccess(decoded))
      const reference = (decoded as Result.Success<Message.Message, never>).success
      assert.strictEqual(Object.getPrototypeOf(made), Message.Message.prototype)
      assert.deepStrictEqual(Object.keys(made), Object.keys(reference))
      assert.deepStrictEqual(made.toJSON(), reference.toJSON())
      assert.isTrue(Equal.equals(made, reference))
      made.toolCalls.forEach((call, i) => {
        assert.strictEqual(Object.getPrototypeOf(call), Object.getPrototypeOf(reference.toolCalls[i]))
        assert.strictEqual(call.signature, reference.toolCalls[i].signature)
      })
      assert.strictEqual(made.tokenText, reference.tokenText)
    }
  })

  it("options with role and content equal to the message's own are accepted, as on the Effect 3 line", () => {
    const spread = { role: "user", content: "hi", id: "m1" } as Message.MessageOptions
    assert.deepStrictEqual(Message.make("user", "hi", spread).toJSON(), { role: "user", content: "hi", id: "m1" })
    const other = { role: "assistant" } as Message.MessageOptions
    assert.throws(
      () => Message.make("user", "hi", other),
      InvalidMessageError,
      "unknown option \"role\"; the options are id, toolCalls, toolCallId, metadata"
    )
  })

  it("a shape outside the fast path is decided by the decoder, naming the field", () => {
    assert.throws(
      () => Message.make("user", "hi", { id: 5 } as unknown as Message.MessageOptions),
      InvalidMessageError,
      "id: Expected string | null"
    )
    // the wrong value named, as on the Effect 3 line
    assert.throws(
      () => Message.make("user", 123 as unknown as string),
      InvalidMessageError,
      "invalid message: content: Expected string, actual 123"
    )
    assert.strictEqual(
      Effect.runSync(Effect.flip(MemoryState.fromJSON({ version: 3, summary: "", buffer: [], usageRatio: 5 }))).message,
      "cannot read memory state: usageRatio: Expected a value between 0.5 and 2, actual 5"
    )
    assert.strictEqual(
      Effect.runSync(Effect.flip(MemoryState.fromJSON({ version: 9, summary: "", buffer: [] }))).message,
      "cannot read memory state: version: unsupported version 9, expected 1, 2 or 3"
    )
    const withMetadata = Message.make("user", "hi", { metadata: { a: 1 } })
    assert.deepStrictEqual(withMetadata.toJSON(), { role: "user", content: "hi", metadata: { a: 1 } })
  })
})

describe("the Message class's own make on Effect 4 (contract 9)", () => {
  it("takes role, content and options, or one object of the fields, and gives the module's message", () => {
    const fields = { role: "tool", content: "42", toolCallId: "c1" } as const
    const fromObject = Message.Message.make(fields)
    const fromArgs = Message.Message.make("tool", "42", { toolCallId: "c1" })
    assert.deepStrictEqual(fromObject.toJSON(), { role: "tool", content: "42", tool_call_id: "c1" })
    assert.isTrue(Equal.equals(fromObject, Message.make("tool", "42", { toolCallId: "c1" })))
    assert.isTrue(Equal.equals(fromArgs, fromObject))
    assert.strictEqual(Object.getPrototypeOf(fromObject), Message.Message.prototype)
    assert.deepStrictEqual(Message.Message.make({ role: "user", content: "hi" }).toJSON(), {
      role: "user",
      content: "hi"
    })
  })

  it("refuses an unknown key or a wrong field with InvalidMessageError, as the module's make does", () => {
    const unknownKey = () => Message.Message.make({ role: "tool", content: "42", toolCallID: "c1" } as never)
    assert.throws(
      unknownKey,
      InvalidMessageError,
      "unknown option \"toolCallID\"; the options are id, toolCalls, toolCallId, metadata"
    )
    const wrong = () => Message.Message.make({ role: "user", content: 7 } as never)
    assert.throws(wrong, InvalidMessageError)
  })
})
