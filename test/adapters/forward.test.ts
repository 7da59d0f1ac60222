/**
 * Forward-compatible readers: a key, part type or item type an adapter does
 * not model is kept verbatim and written back (the round trip stays the
 * identity), `{ strict: true }` refuses it naming the path, and what cannot
 * be placed (an unknown role, a malformed known field) is refused either way.
 * Another library's shape is refused naming the reader that takes it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as Adapters from "../../src/adapters.js"
import { aiSdk, anthropic, gemini, langChain, openAiChat, responses } from "./parts.test.js"
import { either, FORMATS, json, roundTrip, withFuture } from "./support.js"

const format = (name: string) => FORMATS.find((f) => f.name === name)!

const description = <A>(result: Either.Either<A, Adapters.AdapterError>): string =>
  Either.isLeft(result) ? result.left.description : "(read)"

describe("what the providers return as they return it", () => {
  it.effect("Anthropic: a text block with citations: null, read and written back", () =>
    Effect.gen(function*() {
      const request = {
        messages: [
          { role: "user", content: "Where?" },
          { role: "assistant", content: [{ type: "text", text: "Rome.", citations: null }] }
        ]
      }
      const messages = Adapters.fromAnthropic(request)
      assert.deepStrictEqual(messages.map(String), ["user: Where?", "assistant: Rome."])
      assert.deepStrictEqual(yield* roundTrip(format("anthropic"), request), request)
      assert.strictEqual(
        description(either(Adapters.Anthropic.decode(request, { strict: true }))),
        "messages[1].content: Expected string, actual [{\"type\":\"text\",\"text\":\"Rome.\",\"citations\":null}]; " +
          "messages[1].content[0].citations: is unexpected, expected: \"type\" | \"text\" | \"cache_control\""
      )
    }))

  it.effect("OpenAI chat: refusal: null, annotations: [] and an unmodelled key", () =>
    Effect.gen(function*() {
      const messages = [
        { role: "user", content: "Hi", x_future: 1 },
        { role: "assistant", content: "Hello.", refusal: null, annotations: [] }
      ]
      assert.deepStrictEqual(Adapters.fromOpenAIChat(messages).map(String), ["user: Hi", "assistant: Hello."])
      assert.deepStrictEqual(yield* roundTrip(format("openai-chat"), messages), messages)
      assert.strictEqual(
        description(either(Adapters.OpenAiChat.decode(messages, { strict: true }))),
        "[0].x_future: is unexpected, expected: \"role\" | \"content\" | \"name\""
      )
    }))

  it.effect("OpenAI Responses: an output message passed back without id or status, and an unknown item", () =>
    Effect.gen(function*() {
      const items = [
        { role: "user", content: "Search it." },
        { type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search", query: "x" } },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Found.", annotations: [] }] }
      ]
      const messages = Adapters.fromOpenAIResponses(items)
      assert.deepStrictEqual(messages.map(String), ["user: Search it.", "assistant: Found."])
      // the unknown item goes with the message after it, as a reasoning item does
      assert.deepStrictEqual(
        (messages[1].metadata[Adapters.METADATA_KEY] as { items: unknown }).items,
        items.slice(1)
      )
      assert.deepStrictEqual(yield* roundTrip(format("openai-responses"), items), items)
      assert.include(
        description(either(Adapters.OpenAiResponses.decode(items, { strict: true }))),
        "[1].type: Expected \"message\" | \"function_call\" | \"function_call_output\" | \"custom_tool_call\" | " +
          "\"custom_tool_call_output\" | \"reasoning\" | \"compaction\", actual \"web_search_call\""
      )
    }))

  it("refuses what it cannot place: an unknown role, a malformed known field, naming the path", () => {
    assert.include(
      description(either(Adapters.OpenAiChat.decode([{ role: "critic", content: "x" }]))),
      "[0].role: Expected \"system\" | \"developer\" | \"user\" | \"assistant\" | \"tool\" | \"function\", actual \"critic\""
    )
    assert.include(
      description(
        either(Adapters.Anthropic.decode({ messages: [{ role: "user", content: [{ type: "text", text: 5 }] }] }))
      ),
      "messages[0].content[0].text: Expected string, actual 5"
    )
    assert.include(
      description(either(Adapters.OpenAiResponses.decode([{ type: "message", role: "critic", content: "x" }]))),
      "[0].role: Expected \"assistant\", actual \"critic\""
    )
    assert.include(
      description(either(Adapters.Gemini.decode({ contents: [{ role: "tool", parts: [] }] }))),
      "contents[0].role: Expected \"user\", actual \"tool\""
    )
    assert.include(
      description(either(Adapters.LangChain.decode([{ type: "critic", data: { content: "x" } }]))),
      "[0].type: Expected \"human\", actual \"critic\""
    )
    assert.include(
      description(either(Adapters.AiSdk.decode([{ role: "user", content: [{ type: "image", image: 5 }] }]))),
      "[0].content[0].image: expected a string, bytes or a URL"
    )
    // the request's own keys belong to no message
    assert.include(
      description(either(Adapters.Anthropic.decode({ messages: [], model: "claude" }))),
      "model: is unexpected"
    )
  })

  it.effect("an invented field in every object of every part kind: read, kept, written back", () =>
    Effect.gen(function*() {
      const fixtures: ReadonlyArray<readonly [string, unknown]> = [
        ["openai-chat", openAiChat],
        ["openai-responses", responses],
        ["anthropic", anthropic],
        ["ai-sdk", aiSdk],
        ["gemini", gemini],
        ["langchain", langChain]
      ]
      for (const [name, fixture] of fixtures) {
        const x = withFuture(json(fixture), !Array.isArray(fixture))
        assert.deepStrictEqual(yield* roundTrip(format(name), x, { check: false }), x, name)
        const strict = either(
          format(name).decode(x).pipe(Effect.zipRight(
            name === "openai-chat" ?
              Adapters.OpenAiChat.decode(x, { strict: true }) :
              name === "openai-responses" ?
              Adapters.OpenAiResponses.decode(x, { strict: true }) :
              name === "anthropic" ?
              Adapters.Anthropic.decode(x, { strict: true }) :
              name === "ai-sdk" ?
              Adapters.AiSdk.decode(x, { strict: true }) :
              name === "gemini" ?
              Adapters.Gemini.decode(x, { strict: true }) :
              Adapters.LangChain.decode(x, { strict: true })
          ))
        )
        assert.include(description(strict), "x_future: is unexpected", name)
      }
    }))
})

describe("another library's shape names the reader that takes it", () => {
  it("an AI SDK UIMessage given to fromAiSdk points to fromUIMessages", () => {
    assert.strictEqual(
      description(either(Adapters.AiSdk.decode([{ id: "m1", role: "user", parts: [{ type: "text", text: "Hi" }] }]))),
      "[0] is an AI SDK UIMessage (`id`, `parts`): read it with fromUIMessages. [0].content: is missing"
    )
  })

  it("a serialized LangChain message points to fromLangChain", () => {
    const serialized = {
      lc: 1,
      type: "constructor",
      id: ["langchain_core", "messages", "HumanMessage"],
      kwargs: { content: "Hi" }
    }
    for (const decode of [Adapters.OpenAiChat.decode, Adapters.LangChain.decode, Adapters.AiSdk.decode]) {
      assert.include(
        description(either(decode([serialized]))),
        "[0] is a serialized LangChain message (`lc`, `kwargs`): read it with fromLangChain, after reviving it with " +
          "`load` from `@langchain/core/load` (or pass the message instances). "
      )
    }
    assert.include(
      description(either(Adapters.OpenAiChat.decode([{ type: "human", data: { content: "Hi" } }]))),
      "[0] is a stored LangChain message (`type`, `data`): read it with fromLangChain. "
    )
  })
})

describe("a known part type with wrong fields", () => {
  it("is described by its wrong field and named as a known type, not as another type's part", () => {
    const read = (f: () => unknown): string => {
      try {
        f()
      } catch (error) {
        return (error as Adapters.AdapterError).message
      }
      return "read"
    }
    assert.strictEqual(
      read(() =>
        Adapters.fromAnthropic({ messages: [{ role: "user", content: [{ type: "text", text: 5 }] }] } as never)
      ),
      "anthropic: messages[0].content: Expected string, actual [{\"type\":\"text\",\"text\":5}]; " +
        "messages[0].content[0].text: Expected string, actual 5; " +
        "messages[0].content[0].type: \"text\" is a known type: its fields are as above"
    )
  })
})
