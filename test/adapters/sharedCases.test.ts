/**
 * The shared case table of the provider formats (test/support/adapterCases.ts)
 * on the Effect 3 line: the values the Effect 4 line's ports are held to
 * (effect4/test/adapters/sharedCases.test.ts runs the same table).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Adapters from "../../src/adapters.js"
import { AdapterError } from "../../src/adapters/AdapterError.js"
import * as Message from "../../src/schema/Message.js"
import { aiSdk, aiSdkBinary, json, type Line, runCases, uiMessages } from "../support/adapterCases.js"
import { throughMemory } from "./support.js"

const line = (
  from: Line<Message.Message>["from"],
  to: Line<Message.Message>["to"]
): Line<Message.Message> => ({
  name: "effect3",
  from,
  to,
  make: (m) => Message.make(m.role, m.content, m.options),
  throughMemory,
  adapterError: (error) => error instanceof AdapterError ? error : undefined
})

runCases(aiSdk, line(Adapters.fromAiSdk, Adapters.toAiSdk), { assert, describe, it })
runCases(uiMessages, line(Adapters.fromUIMessages, Adapters.toUIMessages), { assert, describe, it })

describe("ai-sdk binary data (effect3)", () => {
  it("reads bytes as base64 and a URL as its href", () => {
    assert.deepStrictEqual(
      json(Adapters.toAiSdk(throughMemory(Adapters.fromAiSdk(aiSdkBinary.input())))),
      aiSdkBinary.back
    )
  })
})
