import { assert, describe, it } from "@effect/vitest"
import * as Overflow from "../../src/core/overflow.js"

// Each provider's refusal as its SDK throws it (shapes of the pinned SDKs' error classes).
class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: unknown,
    message: string,
    readonly code?: string
  ) {
    super(message)
  }
}

describe("Overflow: recognizing a provider's 'too long' refusal (contract 16.3)", () => {
  it("OpenAI Chat Completions: the code and both numbers", () => {
    const message =
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages."
    const error = new ApiError(
      400,
      { message, type: "invalid_request_error", code: "context_length_exceeded" },
      `400 ${message}`,
      "context_length_exceeded"
    )
    assert.deepStrictEqual(Overflow.recognize(error), {
      provider: "openai",
      requestedTokens: 130512,
      maxTokens: 128000,
      message: `400 ${message}`
    })
  })

  it("OpenAI Responses: the code alone (no numbers given)", () => {
    const error = new ApiError(
      400,
      {
        message: "Your input exceeds the context window of this model. Please adjust your input and try again.",
        code: "context_length_exceeded"
      },
      "400 Your input exceeds the context window of this model. Please adjust your input and try again.",
      "context_length_exceeded"
    )
    const overflow = Overflow.recognize(error)
    assert.strictEqual(overflow?.provider, "openai")
    assert.strictEqual(overflow?.requestedTokens, undefined)
    assert.strictEqual(overflow?.maxTokens, undefined)
  })

  it("Anthropic: 'prompt is too long: N tokens > M maximum', also inside a JSON body string", () => {
    const body = JSON.stringify({
      type: "error",
      error: { type: "invalid_request_error", message: "prompt is too long: 203284 tokens > 200000 maximum" }
    })
    assert.deepStrictEqual(Overflow.recognize(new Error(`400 ${body}`)), {
      provider: "anthropic",
      requestedTokens: 203284,
      maxTokens: 200000,
      message: `400 ${body}`
    })
    // the AI SDK's APICallError keeps the body as responseBody
    const aiSdk = Object.assign(new Error("Bad Request"), { statusCode: 400, responseBody: body })
    assert.strictEqual(Overflow.recognize(aiSdk)?.requestedTokens, 203284)
  })

  it("Gemini: INVALID_ARGUMENT with the input token count", () => {
    const error = {
      error: {
        code: 400,
        status: "INVALID_ARGUMENT",
        message: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
      }
    }
    assert.deepStrictEqual(Overflow.recognize(error), {
      provider: "gemini",
      requestedTokens: 1200000,
      maxTokens: 1048576,
      message: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
    })
  })

  it("an @effect/ai error: the provider's body in its cause", () => {
    const error = {
      _tag: "HttpResponseError",
      description: "An error occurred",
      cause: {
        body:
          "{\"error\":{\"message\":\"This model's maximum context length is 8192 tokens. However, you requested 9000 tokens\",\"code\":\"context_length_exceeded\"}}"
      }
    }
    const overflow = Overflow.recognize(error)
    assert.strictEqual(overflow?.provider, "openai")
    assert.strictEqual(overflow?.requestedTokens, 9000)
    assert.strictEqual(overflow?.maxTokens, 8192)
  })

  it("anything else is not an overflow: rate limits, other 400s, non-errors, cycles", () => {
    for (
      const error of [
        new ApiError(429, { message: "Rate limit reached", code: "rate_limit_exceeded" }, "429 Rate limit reached"),
        new Error("400 messages: roles must alternate"),
        undefined,
        null,
        42,
        "timeout"
      ]
    ) assert.strictEqual(Overflow.recognize(error), undefined)
    const cyclic: Record<string, unknown> = { message: "x" }
    cyclic.cause = cyclic
    assert.strictEqual(Overflow.recognize(cyclic), undefined)
  })

  it("recognizers are extensible: a user's own is tried as given", () => {
    const mine: Overflow.Recognizer = (error) =>
      error instanceof Error && error.message === "too big" ?
        { provider: "mine", requestedTokens: 10, maxTokens: 5, message: error.message } :
        undefined
    assert.strictEqual(Overflow.recognize(new Error("too big")), undefined)
    assert.strictEqual(
      Overflow.recognize(new Error("too big"), [...Overflow.defaultRecognizers, mine])?.provider,
      "mine"
    )
  })
})
