/**
 * fast-check arbitraries for conversations of every shape: all roles
 * (custom ones included), tool calls with 1-3 parallel calls, results in and
 * out of order, reused ids, orphans, empty contents and unicode text.
 */
import { FastCheck as fc } from "effect"
import * as Message from "../../src/schema/Message.js"

/** A small pool of tool-call ids, so ids get reused and results meet calls (or not). */
const callId = fc.constantFrom("c0", "c1", "c2", "c3", "")

const word = fc.constantFrom("w", "héllo", "日本語", "😀", "<|endoftext|>", "x\ufeffy", "a-b")
const separator = fc.constantFrom(" ", "  ", "\n", "\t", "\u0085", "\u001c", "\u3000", "\u00a0")

/** Text of 0 to 6 words (often empty), joined by assorted whitespace. */
export const text: fc.Arbitrary<string> = fc.oneof(
  { weight: 1, arbitrary: fc.constant("") },
  {
    weight: 4,
    arbitrary: fc.array(fc.tuple(word, separator), { minLength: 1, maxLength: 6 }).map((parts) =>
      parts.map(([w, s], i) => (i === 0 ? w : s + w)).join("")
    )
  }
)

const role = fc.constantFrom("user", "user", "assistant", "assistant", "system", "tool", "critic")

const plain = fc.tuple(role, text).map(([r, c]) => Message.make(r, c))

const calls = fc.tuple(
  fc.constantFrom("assistant", "assistant", "assistant", "user", "critic"),
  text,
  fc.array(fc.tuple(callId, fc.constantFrom("f", "search"), fc.constantFrom("", "{}", "{\"q\": \"a b\"}")), {
    minLength: 1,
    maxLength: 3
  })
).map(([r, c, cs]) => Message.make(r, c, { toolCalls: cs.map(([id, name, args]) => ({ id, name, arguments: args })) }))

const toolResult = fc.tuple(fc.constantFrom("tool", "tool", "tool", "user", "critic"), text, callId).map((
  [r, c, id]
) => Message.make(r, c, { toolCallId: id }))

const both = fc.tuple(text, callId, callId).map(([c, result, next]) =>
  Message.make("assistant", c, { toolCallId: result, toolCalls: [{ id: next, name: "f", arguments: "" }] })
)

/** One message of any shape. */
export const message: fc.Arbitrary<Message.Message> = fc.oneof(
  { weight: 5, arbitrary: plain },
  { weight: 3, arbitrary: calls },
  { weight: 4, arbitrary: toolResult },
  { weight: 1, arbitrary: both }
)

/** A conversation of up to `maxLength` messages. */
export const conversation = (maxLength = 30): fc.Arbitrary<Array<Message.Message>> => fc.array(message, { maxLength })
