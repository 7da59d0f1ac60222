/**
 * Random command sequences for the model-based tests: adds of messages of
 * every shape (from the shared arbitraries), clears, JSON round trips
 * that restore the memory from its own state, and compactions (contract
 * section 16.2) with or without a target. Each added message gets a
 * unique id (`n1`, `n2`, ...) so the accounting invariant can follow it.
 */
import { FastCheck as fc } from "effect"
import { Message } from "../../../src/index.js"
import * as Arbitraries from "../../support/arbitraries.js"

/** One command of a sequence. */
export type Command =
  | { readonly _tag: "Add"; readonly message: Message.Message }
  | { readonly _tag: "Clear" }
  | { readonly _tag: "RoundTrip" }
  | { readonly _tag: "Compact"; readonly targetTokens: number | undefined }

/** A sequence with its budgets. */
export interface Sequence {
  readonly maxTokens: number
  readonly maxMessages: number
  readonly commands: ReadonlyArray<Command>
}

/** The same message with an id. */
const withId = (m: Message.Message, id: string): Message.Message =>
  Message.make(m.role, m.content, {
    id,
    toolCalls: m.toolCalls,
    ...(m.toolCallId === undefined ? {} : { toolCallId: m.toolCallId }),
    metadata: m.metadata
  })

const compact: fc.Arbitrary<Command> = fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined }).map((
  targetTokens
) => ({ _tag: "Compact", targetTokens }))

const command: fc.Arbitrary<Message.Message | "Clear" | "RoundTrip" | Command> = fc.oneof(
  { weight: 14, arbitrary: Arbitraries.message },
  { weight: 1, arbitrary: fc.constant("Clear" as const) },
  { weight: 1, arbitrary: fc.constant("RoundTrip" as const) },
  { weight: 2, arbitrary: compact }
)

/** Sequences of up to `maxLength` commands, budgets 1-12 tokens and 1-5 messages. */
export const sequence = (maxLength: number): fc.Arbitrary<Sequence> =>
  fc.record({
    maxTokens: fc.integer({ min: 1, max: 12 }),
    maxMessages: fc.integer({ min: 1, max: 5 }),
    raw: fc.array(command, { maxLength })
  }).map(({ maxMessages, maxTokens, raw }) => {
    let n = 0
    const commands = raw.map((c): Command =>
      c === "Clear" ? { _tag: "Clear" } : c === "RoundTrip" ? { _tag: "RoundTrip" } : "_tag" in c ? c : {
        _tag: "Add",
        message: withId(c, `n${++n}`)
      }
    )
    return { maxTokens, maxMessages, commands }
  })
