/**
 * Error descriptions stay bounded whatever the input: a huge wrong-typed
 * value is printed cut, with its size, and a state with thousands of wrong
 * messages names the first ones and counts the rest. Small values print
 * exactly as Schema's own formatter prints them.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, FastCheck as fc, ParseResult, Schema } from "effect"
import { InvalidMessageError, MemoryState, Message, StateDecodeError } from "../src/index.js"
import * as Facade from "../src/promise/index.js"
import {
  formatParseError,
  formatValue,
  MAX_DESCRIPTION_LENGTH,
  MAX_ISSUE_LENGTH,
  MAX_VALUE_LENGTH
} from "../src/schema/ParseIssue.js"
import { nestedArray, nestedObject } from "./reliability/support/corpus.js"

const MB10 = 10 * 1024 * 1024
const million = (): Array<number> => Array.from({ length: 1_000_000 }, (_, i) => i)
const msg = (fields: Record<string, unknown>) => ({ version: 2, buffer: [fields] })

/** The description of the StateDecodeError reading `input` fails with. */
const stateError = (input: unknown) =>
  Effect.map(Effect.flip(MemoryState.fromJSON(input)), (error) => {
    assert.instanceOf(error, StateDecodeError)
    assert.isAtMost(error.description.length, MAX_DESCRIPTION_LENGTH)
    assert.isAtMost(error.message.length, MAX_DESCRIPTION_LENGTH + 30)
    return error.description
  })

/** The description of the InvalidMessageError building a message from these fields fails with. */
const messageError = (role: unknown, content: unknown, options?: unknown): string => {
  const result = Message.decodeFields(role, content, options as Message.MessageOptions)
  if (Either.isRight(result)) return assert.fail("decoded")
  const error = result.left
  assert.instanceOf(error, InvalidMessageError)
  assert.isAtMost(error.description.length, MAX_DESCRIPTION_LENGTH)
  return error.description
}

const digits30 = "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29"
const messageArray = "ReadonlyArray<(rollmem/Message (Encoded side) <-> rollmem/Message)>"
const toolCallArray = "ReadonlyArray<(rollmem/ToolCall (Encoded side) <-> rollmem/ToolCall)>"

describe("huge wrong-typed values", () => {
  it.effect("a 1,000,000-element content array", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* stateError(msg({ role: "user", content: million() })),
        `buffer[0].content: Expected string, actual [${digits30}… [array of 1000000 items]`
      )
      assert.strictEqual(
        messageError("user", million()),
        `content: Expected string, actual [${digits30}… [array of 1000000 items]`
      )
    }))

  it("the facade throws the same bounded description", () => {
    const memory = new Facade.RollingMemory({ maxTokens: 10, summarize: "drop" })
    assert.throws(
      () => memory.addMessage("user", million() as unknown as string),
      InvalidMessageError,
      `invalid message: content: Expected string, actual [${digits30}… [array of 1000000 items]`
    )
    assert.deepStrictEqual(memory.buffer, [])
  })

  it.effect("a 10 MB string where a number belongs", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* stateError({ version: "9".repeat(MB10) }),
        `version: unsupported version "${"9".repeat(79)}… [string of 10485760 characters], expected 1, 2 or 3`
      )
      // Schema's own message, bounded the same way.
      const error = Either.getOrThrowWith(
        Either.flip(Schema.decodeUnknownEither(Schema.Struct({ n: Schema.Number }))({ n: "9".repeat(MB10) })),
        () => new Error("decoded")
      )
      assert.strictEqual(
        formatParseError(error),
        `n: Expected number, actual "${"9".repeat(79)}… [string of 10485760 characters]`
      )
    }))

  it.effect("10 MB strings in the wrong places", () =>
    Effect.gen(function*() {
      const x = "x".repeat(MB10)
      assert.strictEqual(
        yield* stateError(msg({ role: "assistant", content: "", tool_calls: x })),
        `buffer[0].tool_calls: Expected ${toolCallArray}, actual "${"x".repeat(79)}… [string of 10485760 characters]`
      )
      assert.strictEqual(
        yield* stateError(msg({ role: [x], content: "" })),
        `buffer[0].role: Expected string, actual ["${"x".repeat(78)}… [array of 1 item]`
      )
      assert.strictEqual(
        yield* stateError({ version: 2, buffer: { [x]: 1 } }),
        `buffer: Expected ${messageArray}, actual {"${"x".repeat(78)}… [object of 1 key]`
      )
      // A 10 MB metadata key holding a value that is not JSON.
      assert.strictEqual(
        yield* stateError(msg({ role: "user", content: "", metadata: { [x]: NaN } })),
        `buffer[0].metadata: metadata["${"x".repeat(79)}… [string of 10485760 characters]] is not a finite number`
      )
      assert.strictEqual(
        messageError("user", "", { metadata: { ok: 1, [x]: undefined } }),
        `metadata: metadata["${"x".repeat(79)}… [string of 10485760 characters]] is not JSON data (got undefined)`
      )
      // A 10 MB key above a value nested too deep (named without running Schema's formatter).
      assert.strictEqual(
        yield* stateError({ [x]: nestedObject(200) }),
        `${"x".repeat(80)}….a.a: nested deeper than 100 levels`
      )
    }))

  it.effect("deep values", () =>
    Effect.gen(function*() {
      const a20 = "{\"a\":".repeat(16)
      assert.strictEqual(
        yield* stateError({ version: 2, summary: nestedObject(100) }),
        `summary: Expected string, actual ${a20}… [object of 1 key]`
      )
      assert.strictEqual(
        yield* stateError(msg({ role: "user", content: nestedArray(100) })),
        `buffer[0].content: Expected string, actual ${"[".repeat(80)}… [array of 1 item]`
      )
      // Within the limit, whole.
      assert.strictEqual(
        yield* stateError({ version: 2, summary: nestedObject(10) }),
        `summary: Expected string, actual ${"{\"a\":".repeat(9)}{}${"}".repeat(9)}`
      )
    }))

  it.effect("thousands of wrong messages: the first ones named, the rest counted", () =>
    Effect.gen(function*() {
      const buffer = Array.from({ length: 5_000 }, (_, i) => i % 2 === 0 ? { role: "user" } : { content: "x" })
      const description = yield* stateError({ version: 2, buffer })
      const named = Array.from(
        { length: 64 },
        (_, i) => `buffer[${i}].${i % 2 === 0 ? "content" : "role"}: is missing`
      )
      assert.strictEqual(description, `${named.join("; ")}; and 4936 more issues`)
    }))

  it.effect("one long line is cut, and the description says how many issues follow", () =>
    Effect.gen(function*() {
      // Each wrong metadata path is long (98 keys of 70 characters): one line per message, cut.
      let deep: Record<string, unknown> = { n: NaN }
      for (let i = 0; i < 98; i++) deep = { ["k".repeat(70)]: deep }
      const description = yield* stateError({
        version: 2,
        buffer: [0, 1, 2, 3, 4, 5].map(() => ({ role: "user", content: "", metadata: deep }))
      })
      const line = `buffer[0].metadata: metadata${`["${"k".repeat(70)}"]`.repeat(98)}["n"] is not a finite number`
      const lines = [0, 1, 2, 3, 4, 5].map((i) =>
        `${line.replace("buffer[0]", `buffer[${i}]`).slice(0, MAX_ISSUE_LENGTH)}…`
      )
      assert.strictEqual(description, `${lines.slice(0, 3).join("; ")}; and 3 more issues`)
    }))
})

describe("formatValue", () => {
  it("small values exactly as Schema prints them; others cut with their size", () => {
    assert.strictEqual(formatValue(42), "42")
    assert.strictEqual(formatValue("x"), "\"x\"")
    assert.strictEqual(formatValue([1, "a", null, undefined]), "[1,\"a\",null,undefined]")
    assert.strictEqual(formatValue({ a: [1n] }), "{\"a\":[1n]}")
    assert.strictEqual(formatValue(new Map([["k", 1]])), "Map([[\"k\",1]])")
    assert.strictEqual(formatValue(new Date(0)), "1970-01-01T00:00:00.000Z")
    assert.strictEqual(formatValue("é".repeat(100)), `"${"é".repeat(79)}… [string of 100 characters]`)
    assert.strictEqual(
      formatValue(new Set(million())),
      "Set([0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,2… [Set of 1000000 items]"
    )
    assert.strictEqual(
      formatValue(Object.fromEntries(million().slice(0, 1000).map((i) => [`k${i}`, i]))),
      "{\"k0\":0,\"k1\":1,\"k2\":2,\"k3\":3,\"k4\":4,\"k5\":5,\"k6\":6,\"k7\":7,\"k8\":8,\"k9\":9,\"k10\":10,… [object of 1000 keys]"
    )
    // An emoji is never cut in half.
    assert.strictEqual(formatValue(`${"x".repeat(78)}😀😀`), `"${"x".repeat(78)}… [string of 82 characters]`)
    assert.isAtMost(formatValue(nestedArray(100_000)).length, MAX_VALUE_LENGTH + 30)
  })

  // Schema's formatter prints `actual` of "Expected never, actual <value>" in full.
  const schemaMessage = (error: ParseResult.ParseError): string =>
    ParseResult.ArrayFormatter.formatErrorSync(error)[0].message
  const prefix = "Expected never, actual "

  it.prop(
    "any value: Schema's text when it fits, else its first characters, an ellipsis and a size hint",
    [fc.anything({
      maxDepth: 3,
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withSparseArray: true,
      withTypedArray: true
    })],
    ([value]) => {
      const error = Either.getOrThrowWith(
        Either.flip(Schema.decodeUnknownEither(Schema.Never)(value)),
        () => new Error("decoded")
      )
      const full = schemaMessage(error).slice(prefix.length)
      const ours = formatParseError(error)
      assert.isTrue(ours.startsWith(prefix))
      assert.strictEqual(ours.slice(prefix.length), formatValue(value))
      if (full.length <= MAX_VALUE_LENGTH) assert.strictEqual(ours, prefix + full)
      else {
        assert.isTrue(ours.startsWith(prefix + full.slice(0, MAX_VALUE_LENGTH - 1)), ours)
        assert.match(ours.slice(prefix.length + MAX_VALUE_LENGTH - 1), /^[\s\S]?…( \[[a-zA-Z]+ of \d+ [a-z]+\])?$/u)
      }
    },
    { fastCheck: { numRuns: 500 } }
  )
})
