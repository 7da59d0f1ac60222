/**
 * The Effect 4 facade's options and errors as the Effect 3 line's
 * (docs/contract.md section 9): `null` options refused with `ConfigError` on
 * `options` by every class, an unknown key listing every key the class takes
 * (the strategy's and the facade's own), and each error's `name` its tag.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigError, SummarizerError, TokenCountError, UsageError } from "../src/Errors.js"
import {
  AsyncRollingMemory,
  AsyncSummaryMemory,
  BufferMemory,
  DisposedError,
  RollingMemory,
  SummaryMemory,
  WindowMemory
} from "../src/promise/index.js"
import { ConversationConflictError } from "../src/store/Service.js"

const refusal = (make: () => unknown): string => {
  try {
    make()
  } catch (error) {
    assert.instanceOf(error, ConfigError)
    return (error as ConfigError).message
  }
  return "accepted"
}

describe("the Effect 4 facade's options", () => {
  it("null options are refused by every class, naming options", () => {
    const NULL = null as never
    const expected = "invalid option options: must be an object, got null"
    assert.strictEqual(refusal(() => new RollingMemory(NULL)), expected)
    assert.strictEqual(refusal(() => new AsyncRollingMemory(NULL)), expected)
    assert.strictEqual(refusal(() => new BufferMemory(NULL)), expected)
    assert.strictEqual(refusal(() => new WindowMemory(NULL)), expected)
    assert.strictEqual(refusal(() => new SummaryMemory(NULL)), expected)
    assert.strictEqual(refusal(() => new AsyncSummaryMemory(NULL)), expected)
    // absent options are none
    assert.deepStrictEqual(new BufferMemory().getMessages(), [])
  })

  it("an unknown key lists the strategy's keys and the class's own", () => {
    assert.strictEqual(
      refusal(() => new BufferMemory({ sumaryRole: "system" } as never)),
      "invalid option sumaryRole: unknown option (known: summaryRole, summaryFraming, tokenCounter)"
    )
    assert.strictEqual(
      refusal(() => new WindowMemory({ maxMessages: 3, bogus: 1 } as never)),
      "invalid option bogus: unknown option (known: maxMessages, targetMessages, boundary, pinSystem, summaryRole, " +
        "summaryFraming, archive, conversationId, tokenCounter)"
    )
    assert.strictEqual(
      refusal(() => new AsyncSummaryMemory({ summarize: async () => "", bogus: 1 } as never)),
      "invalid option bogus: unknown option (known: summaryRole, summaryFraming, summary, maxSummaryTokens, " +
        "maxSummarizerInputTokens, ledger, archive, conversationId, summarize, tokenCounter, timeout)"
    )
    // the facade's own keys are taken
    const counted = new WindowMemory({ maxMessages: 2, tokenCounter: (text) => text.length })
    counted.addUserMessage("hello")
    assert.strictEqual(counted.bufferTokens, 5)
  })

  it("each error's name is its tag, as on the Effect 3 line", () => {
    assert.strictEqual(new ConfigError({ option: "x", description: "y" }).name, "ConfigError")
    assert.strictEqual(new UsageError({ description: "y" }).name, "UsageError")
    assert.strictEqual(new TokenCountError({ description: "y" }).name, "TokenCountError")
    assert.strictEqual(new SummarizerError({ description: "y" }).name, "SummarizerError")
    assert.strictEqual(new DisposedError({ object: "RollingMemory", description: "y" }).name, "DisposedError")
    const conflict = new ConversationConflictError({ conversationId: "c", expectedRevision: 1 })
    assert.strictEqual(conflict.name, "ConversationConflictError")
    assert.strictEqual(String(new ConfigError({ option: "x", description: "y" })), "ConfigError: invalid option x: y")
  })
})
