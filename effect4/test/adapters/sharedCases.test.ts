/**
 * The provider formats the Effect 4 line ports from the Effect 3 line, held
 * to the shared case table (../../../test/support/adapterCases.ts, which
 * test/adapters/sharedCases.test.ts runs on the Effect 3 line): the same
 * messages, kept metadata, written items and refusals.
 */
import { assert, describe, it } from "@effect/vitest"
import { aiSdk, aiSdkBinary, json, type Line, runCases, uiMessages } from "../../../test/support/adapterCases.js"
import * as Adapters from "../../src/adapters.js"
import { AdapterError } from "../../src/adapters.js"
import { BufferMemory } from "../../src/promise/index.js"
import * as Message from "../../src/schema/Message.js"

/** The messages through a memory and its JSON state: add each, save, restore, read back. */
const throughMemory = (messages: ReadonlyArray<Message.Message>): Array<Message.Message> => {
  const memory = new BufferMemory()
  for (const m of messages) memory.addMessage(m.role, m.content, m)
  return BufferMemory.fromJSON(JSON.parse(JSON.stringify(memory))).getMessages()
}

const line = (
  from: Line<Message.Message>["from"],
  to: Line<Message.Message>["to"]
): Line<Message.Message> => ({
  name: "effect4",
  from,
  to,
  make: (m) => Message.make(m.role, m.content, m.options),
  throughMemory,
  adapterError: (error) => error instanceof AdapterError ? error : undefined
})

runCases(aiSdk, line(Adapters.fromAiSdk, Adapters.toAiSdk), { assert, describe, it })
runCases(uiMessages, line(Adapters.fromUIMessages, Adapters.toUIMessages), { assert, describe, it })

describe("ai-sdk binary data (effect4)", () => {
  it("reads bytes as base64 and a URL as its href", () => {
    assert.deepStrictEqual(
      json(Adapters.toAiSdk(throughMemory(Adapters.fromAiSdk(aiSdkBinary.input())))),
      aiSdkBinary.back
    )
  })
})
