/**
 * A `to…` given what is not rollmem messages (a plain wire object, a
 * provider's item, a string) refuses it with `AdapterError` naming the
 * first such entry, never a `TypeError` from inside the encoder.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  AdapterError,
  toAiSdk,
  toAnthropic,
  toGemini,
  toLangChain,
  toOpenAIChat,
  toOpenAIResponses,
  toUIMessages
} from "../../src/adapters.js"

const writers: ReadonlyArray<readonly [string, (messages: never) => unknown]> = [
  ["openai-chat", toOpenAIChat],
  ["openai-responses", toOpenAIResponses],
  ["anthropic", toAnthropic],
  ["ai-sdk", toAiSdk],
  ["ai-sdk-ui", toUIMessages],
  ["gemini", toGemini],
  ["langchain", toLangChain]
]

const refusal = (write: (messages: never) => unknown, input: unknown): unknown => {
  try {
    write(input as never)
  } catch (error) {
    return error
  }
  return "written"
}

describe("a to… given what is not rollmem messages", () => {
  for (const [format, write] of writers) {
    it(`${format}: AdapterError naming the entry`, () => {
      const plain = refusal(write, [{ role: "user", content: "hi" }])
      assert.instanceOf(plain, AdapterError)
      assert.strictEqual(
        (plain as AdapterError).message,
        `${format}: [0] is not a rollmem message: make messages with Message.make (or read a provider's with its ` +
          "from…, wire-format JSON with MemoryState.fromJSON)"
      )
      const text = refusal(write, "hi")
      assert.instanceOf(text, AdapterError)
      assert.strictEqual((text as AdapterError).message, `${format}: expected an array of rollmem messages, got string`)
      assert.instanceOf(refusal(write, [null]), AdapterError)
    })
  }
})
