/**
 * The adapters against the providers' own SDKs (devDependencies only): each
 * call below must compile against the SDK's types (`npm run typecheck`), and
 * each real client, pointed at a local HTTP server on 127.0.0.1, must send
 * exactly the request body asserted here. No network.
 */
import Anthropic from "@anthropic-ai/sdk"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { type Content, GoogleGenAI, Language, Outcome } from "@google/genai"
import { createGateway, generateText, type ModelMessage } from "ai"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import OpenAI from "openai"
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions"
import type { ResponseInputItem, ResponseOutputItem } from "openai/resources/responses/responses"
import {
  anthropicSummarizer,
  fromAiSdk,
  fromAnthropic,
  fromGemini,
  fromOpenAIChat,
  fromOpenAIResponses,
  openAIChatSummarizer,
  toAiSdk,
  toAnthropic,
  toGemini,
  toOpenAIChat,
  toOpenAIResponses
} from "../../src/adapters.js"
import * as SummaryPrompt from "../../src/ai/SummaryPrompt.js"
import { ConfigError } from "../../src/Errors.js"
import { AsyncRollingMemory } from "../../src/promise/index.js"
import * as Message from "../../src/schema/Message.js"

interface Recorded {
  readonly method: string
  readonly url: string
  readonly body: unknown
}

const requests: Array<Recorded> = []
let replies: Record<string, unknown> = {}
let server: http.Server
let base = ""

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8")
      requests.push({ method: req.method ?? "", url: req.url ?? "", body: text === "" ? undefined : JSON.parse(text) })
      const path = (req.url ?? "").split("?")[0]
      const reply = replies[path]
      res.writeHead(reply === undefined ? 404 : 200, { "content-type": "application/json" })
      res.end(JSON.stringify(reply ?? { error: { message: `no reply for ${path}` } }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const last = (): Recorded => requests[requests.length - 1]

// A context with a summary, a tool call and its result: what a memory hands to the model.
const context = (): Array<Message.Message> => [
  Message.system("Earlier: the user flies to Rome on May 3."),
  Message.user("Which flight?"),
  Message.assistant("", { toolCalls: [{ id: "call_1", name: "search", arguments: "{\"to\":\"FCO\"}" }] }),
  Message.tool("{\"flight\":\"AZ 611\"}", { toolCallId: "call_1" }),
  Message.assistant("AZ 611 at 9:05."),
  Message.user("Book it.")
]

describe("the providers' SDKs accept what the adapters write", () => {
  it("OpenAI chat.completions.create", async () => {
    replies = {
      "/chat/completions": {
        id: "chatcmpl-1",
        object: "chat.completion",
        created: 1,
        model: "gpt-4o-mini",
        choices: [{
          index: 0,
          finish_reason: "stop",
          logprobs: null,
          message: { role: "assistant", content: "Booked.", refusal: null, annotations: [] }
        }]
      }
    }
    const client = new OpenAI({ apiKey: "test", baseURL: base, maxRetries: 0 })
    const messages: Array<ChatCompletionMessageParam> = toOpenAIChat(context())
    const completion = await client.chat.completions.create({ model: "gpt-4o-mini", messages })
    assert.deepStrictEqual(last().body, {
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: "Earlier: the user flies to Rome on May 3." },
        { role: "user", content: "Which flight?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: "search", arguments: "{\"to\":\"FCO\"}" } }]
        },
        { role: "tool", content: "{\"flight\":\"AZ 611\"}", tool_call_id: "call_1" },
        { role: "assistant", content: "AZ 611 at 9:05." },
        { role: "user", content: "Book it." }
      ]
    })
    // the response's message reads back (its annotations and refusal: null kept for the next request)
    const [reply] = fromOpenAIChat([completion.choices[0].message])
    assert.strictEqual(String(reply), "assistant: Booked.")
    assert.deepStrictEqual(JSON.parse(JSON.stringify(toOpenAIChat([Message.user("x"), reply]).slice(1))), [
      completion.choices[0].message
    ])
  })

  it("OpenAI responses.create", async () => {
    replies = {
      "/responses": {
        id: "resp_1",
        object: "response",
        created_at: 1,
        model: "gpt-4.1-mini",
        status: "completed",
        output: [{
          type: "message",
          id: "msg_1",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: "Booked.", annotations: [] }]
        }]
      }
    }
    const client = new OpenAI({ apiKey: "test", baseURL: base, maxRetries: 0 })
    const input: Array<ResponseInputItem> = toOpenAIResponses(context())
    const response = await client.responses.create({ model: "gpt-4.1-mini", input })
    assert.deepStrictEqual(last().body, {
      model: "gpt-4.1-mini",
      input: [
        { role: "system", content: "Earlier: the user flies to Rome on May 3." },
        { role: "user", content: "Which flight?" },
        { type: "function_call", call_id: "call_1", name: "search", arguments: "{\"to\":\"FCO\"}" },
        { type: "function_call_output", call_id: "call_1", output: "{\"flight\":\"AZ 611\"}" },
        { role: "assistant", content: "AZ 611 at 9:05." },
        { role: "user", content: "Book it." }
      ]
    })
    const [reply] = fromOpenAIResponses(response.output)
    assert.strictEqual(String(reply), "assistant: Booked.")
  })

  it("Anthropic messages.create, with prompt-cache breakpoints", async () => {
    replies = {
      "/v1/messages": {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [{ type: "text", text: "Booked." }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 2 }
      }
    }
    const client = new Anthropic({ apiKey: "test", baseURL: base, maxRetries: 0 })
    const reply = await client.messages.create({
      model: "claude-sonnet-4-5",
      max_tokens: 256,
      ...toAnthropic([Message.system("You book flights."), ...context()], { cacheControl: { pinned: 1 } })
    })
    assert.deepStrictEqual(last().body, {
      model: "claude-sonnet-4-5",
      max_tokens: 256,
      system: [
        { type: "text", text: "You book flights.", cache_control: { type: "ephemeral" } },
        { type: "text", text: "Earlier: the user flies to Rome on May 3." }
      ],
      messages: [
        { role: "user", content: "Which flight?" },
        { role: "assistant", content: [{ type: "tool_use", id: "call_1", name: "search", input: { to: "FCO" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: "{\"flight\":\"AZ 611\"}" }] },
        { role: "assistant", content: "AZ 611 at 9:05." },
        { role: "user", content: [{ type: "text", text: "Book it.", cache_control: { type: "ephemeral" } }] }
      ]
    })
    const [back] = fromAnthropic({ messages: [{ role: reply.role, content: reply.content }] })
    assert.strictEqual(String(back), "assistant: Booked.")
  })

  it("AI SDK generateText (gateway provider)", async () => {
    replies = {
      "/language-model": {
        content: [{ type: "text", text: "Booked." }],
        finishReason: { unified: "stop", raw: "stop" },
        usage: {
          inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 2, text: 2, reasoning: 0 }
        },
        warnings: []
      }
    }
    const gateway = createGateway({ apiKey: "test", baseURL: base })
    const messages: Array<ModelMessage> = toAiSdk(context())
    const result = await generateText({ model: gateway("openai/gpt-4o-mini"), messages, maxRetries: 0 })
    const body = last().body as { readonly prompt: unknown }
    assert.deepStrictEqual(body.prompt, [
      { role: "system", content: "Earlier: the user flies to Rome on May 3." },
      { role: "user", content: [{ type: "text", text: "Which flight?" }] },
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "call_1", toolName: "search", input: { to: "FCO" } }]
      },
      {
        role: "tool",
        content: [{
          type: "tool-result",
          toolCallId: "call_1",
          toolName: "search",
          output: { type: "json", value: { flight: "AZ 611" } }
        }]
      },
      { role: "assistant", content: [{ type: "text", text: "AZ 611 at 9:05." }] },
      { role: "user", content: [{ type: "text", text: "Book it." }] }
    ])
    const [reply] = fromAiSdk(result.response.messages)
    assert.strictEqual(String(reply), "assistant: Booked.")
  })

  it("Gemini models.generateContent", async () => {
    replies = {
      "/v1beta/models/gemini-2.5-flash:generateContent": {
        candidates: [{ content: { role: "model", parts: [{ text: "Booked." }] }, finishReason: "STOP", index: 0 }]
      }
    }
    const ai = new GoogleGenAI({ apiKey: "test", httpOptions: { baseUrl: base } })
    const { contents, systemInstruction } = toGemini(context())
    const response = await ai.models.generateContent({
      model: "gemini-2.5-flash",
      contents,
      config: { ...(systemInstruction && { systemInstruction }) }
    })
    assert.deepStrictEqual(last().body, {
      contents: [
        { role: "user", parts: [{ text: "Which flight?" }] },
        { role: "model", parts: [{ functionCall: { id: "call_1", name: "search", args: { to: "FCO" } } }] },
        {
          role: "user",
          parts: [{ functionResponse: { id: "call_1", name: "search", response: { flight: "AZ 611" } } }]
        },
        { role: "model", parts: [{ text: "AZ 611 at 9:05." }] },
        { role: "user", parts: [{ text: "Book it." }] }
      ],
      generationConfig: {},
      systemInstruction: { parts: [{ text: "Earlier: the user flies to Rome on May 3." }] }
    })
    const [reply] = fromGemini({ contents: [response.candidates![0].content!] })
    assert.strictEqual(String(reply), "assistant: Booked.")
  })

  it("a Promise memory's context goes to OpenAI as messages, not one flattened string", async () => {
    replies = {
      "/chat/completions": {
        id: "chatcmpl-2",
        object: "chat.completion",
        created: 1,
        model: "gpt-4o-mini",
        choices: [{ index: 0, finish_reason: "stop", logprobs: null, message: { role: "assistant", content: "Hi." } }]
      }
    }
    const client = new OpenAI({ apiKey: "test", baseURL: base, maxRetries: 0 })
    const memory = new AsyncRollingMemory({ maxTokens: 2000, summarize: "drop" })
    await memory.addUserMessage("Hello")
    const completion = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: toOpenAIChat(memory.getMessages())
    })
    for (const m of fromOpenAIChat([completion.choices[0].message])) await memory.addMessage(m.role, m.content, m)
    assert.deepStrictEqual(last().body, { model: "gpt-4o-mini", messages: [{ role: "user", content: "Hello" }] })
    assert.strictEqual(memory.getContext(), "user: Hello\nassistant: Hi.")
  })
})

describe("ready summarizers over the user's own client", () => {
  it("openAIChatSummarizer: one request with the prompt, budget and signal; the reply is the summary", async () => {
    replies = {
      "/chat/completions": {
        id: "chatcmpl-3",
        object: "chat.completion",
        created: 1,
        model: "gpt-4o-mini",
        choices: [{ index: 0, finish_reason: "stop", logprobs: null, message: { role: "assistant", content: " S1 " } }]
      }
    }
    const client = new OpenAI({ apiKey: "test", baseURL: base, maxRetries: 0 })
    const summarize = openAIChatSummarizer(client, { model: "gpt-4o-mini", maxSummaryTokens: 50 })
    const memory = new AsyncRollingMemory({ maxTokens: 3, summarize })
    await memory.addUserMessage("one two")
    await memory.addAssistantMessage("three four")
    assert.strictEqual(memory.summary, "S1")
    const body = last().body as { model: string; max_completion_tokens: number; messages: Array<{ content: string }> }
    assert.strictEqual(body.model, "gpt-4o-mini")
    assert.strictEqual(body.max_completion_tokens, 50)
    assert.deepStrictEqual(body.messages.map((m) => m.content), [
      SummaryPrompt.instructions(50),
      SummaryPrompt.request({ summary: "", transcript: "[user]\none two", maxTokens: 50 })
    ])
  })

  it("anthropicSummarizer: a smaller budget in the request wins; an aborted signal cancels the request", async () => {
    replies = {
      "/v1/messages": {
        id: "msg_2",
        type: "message",
        role: "assistant",
        model: "claude-haiku-4-5",
        content: [{ type: "text", text: "S2" }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 }
      }
    }
    const client = new Anthropic({ apiKey: "test", baseURL: base, maxRetries: 0 })
    const summarize = anthropicSummarizer(client, { model: "claude-haiku-4-5", maxSummaryTokens: 300, prompt: "Sum." })
    assert.strictEqual(await summarize("S0", [Message.user("hi")], { maxSummaryTokens: 20 }), "S2")
    assert.deepStrictEqual(last().body, {
      model: "claude-haiku-4-5",
      max_tokens: 20,
      system: "Sum.",
      messages: [{
        role: "user",
        content: SummaryPrompt.request({ summary: "S0", transcript: "[user]\nhi", maxTokens: 20 })
      }]
    })
    const aborted = AbortSignal.abort()
    const sent = requests.length
    const error = await summarize("", [Message.user("hi")], aborted).then(() => undefined, (e: unknown) => e)
    assert.instanceOf(error, Anthropic.APIUserAbortError)
    assert.strictEqual(requests.length, sent)
  })

  it("openAIChatSummarizer: the memory's smaller maxSummaryTokens wins and a longer reply is cut to fit it", async () => {
    replies = {
      "/chat/completions": {
        id: "chatcmpl-4",
        object: "chat.completion",
        created: 1,
        model: "gpt-4o-mini",
        choices: [{
          index: 0,
          finish_reason: "stop",
          logprobs: null,
          message: { role: "assistant", content: "one two three four five six" }
        }]
      }
    }
    const client = new OpenAI({ apiKey: "test", baseURL: base, maxRetries: 0 })
    const summarize = openAIChatSummarizer(client, { model: "gpt-4o-mini", maxSummaryTokens: 50 })
    const memory = new AsyncRollingMemory({ maxTokens: 3, maxSummaryTokens: 3, summarize })
    await memory.addUserMessage("one two")
    await memory.addAssistantMessage("three four")
    assert.strictEqual(memory.summary, "one two three…")
    assert.strictEqual(memory.summaryTokens, 3)
    assert.strictEqual((last().body as { max_completion_tokens: number }).max_completion_tokens, 3)
  })

  it("a missing model is a ConfigError", () => {
    const client = new OpenAI({ apiKey: "test", baseURL: base })
    assert.throws(() => openAIChatSummarizer(client, { model: "" }), ConfigError)
  })
})

// Every message type the pinned SDKs declare for a response, every optional field set: read, and written back as it came.
describe("every message type of the SDKs' responses, every optional field set, reads and writes back", () => {
  const back = <A>(read: (x: unknown) => Array<Message.Message>, write: (m: Array<Message.Message>) => A, x: unknown) =>
    JSON.parse(JSON.stringify(write(read(JSON.parse(JSON.stringify(x))))))

  it("Anthropic: a Message's content blocks", () => {
    const caller = { type: "direct" } as const
    const content: Array<Anthropic.Messages.ContentBlock> = [
      { type: "thinking", thinking: "The user wants a source.", signature: "sig-1" },
      { type: "redacted_thinking", data: "opaque" },
      {
        type: "text",
        text: "Rome is the capital.",
        citations: [{
          type: "char_location",
          cited_text: "Rome",
          document_index: 0,
          document_title: "Atlas",
          end_char_index: 4,
          file_id: "file_1",
          start_char_index: 0
        }]
      },
      { type: "text", text: "Searching.", citations: null },
      { type: "server_tool_use", id: "srv_1", caller, input: { query: "Rome" }, name: "web_search" },
      {
        type: "web_search_tool_result",
        caller,
        tool_use_id: "srv_1",
        content: [{
          type: "web_search_result",
          encrypted_content: "e",
          page_age: "1d",
          title: "Rome",
          url: "https://x"
        }]
      },
      { type: "container_upload", file_id: "file_2" },
      { type: "tool_use", id: "tu_1", caller, input: { city: "Rome" }, name: "weather", toolset_name: "tools" }
    ]
    const reply: Anthropic.Messages.Message = {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      container: null,
      diagnostics: null,
      stop_details: null,
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: {
        cache_creation: null,
        cache_creation_input_tokens: null,
        cache_read_input_tokens: null,
        inference_geo: null,
        input_tokens: 1,
        output_tokens: 1,
        server_tool_use: null,
        service_tier: null
      } as Anthropic.Messages.Usage,
      content
    }
    const request = {
      messages: [
        { role: "user", content: "Capital?" },
        { role: reply.role, content: reply.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "tu_1", content: "18C" }] }
      ]
    }
    const messages = fromAnthropic(request)
    assert.deepStrictEqual(messages.map(String), [
      "user: Capital?",
      "assistant: Rome is the capital.\nSearching. [tool calls: weather({\"city\":\"Rome\"})]",
      "tool: 18C"
    ])
    assert.deepStrictEqual(back(fromAnthropic, toAnthropic, request), request)
  })

  it("OpenAI chat: a ChatCompletionMessage", () => {
    const reply: OpenAI.Chat.ChatCompletionMessage = {
      role: "assistant",
      content: "See the link.",
      refusal: null,
      annotations: [{
        type: "url_citation",
        url_citation: { start_index: 0, end_index: 3, title: "Rome", url: "https://x" }
      }],
      audio: { id: "audio_1", data: "UklGRg==", expires_at: 1, transcript: "See the link." },
      function_call: null,
      tool_calls: [
        { id: "c1", type: "function", function: { name: "search", arguments: "{}" } },
        { id: "c2", type: "custom", custom: { name: "shell", input: "ls" } }
      ]
    }
    const messages = [
      { role: "user", content: "Where?" },
      reply,
      { role: "tool", tool_call_id: "c1", content: "[]" },
      { role: "tool", tool_call_id: "c2", content: "a.txt" }
    ]
    assert.deepStrictEqual(
      fromOpenAIChat(messages).map(String)[1],
      "assistant: See the link. [tool calls: search({}), shell(ls)]"
    )
    assert.deepStrictEqual(back(fromOpenAIChat, toOpenAIChat, messages), messages)
  })

  it("OpenAI Responses: a response's output items", () => {
    const output: Array<ResponseOutputItem> = [
      {
        type: "reasoning",
        id: "rs_1",
        summary: [{ type: "summary_text", text: "Look it up." }],
        content: [{ type: "reasoning_text", text: "..." }],
        encrypted_content: "enc",
        status: "completed"
      },
      {
        type: "web_search_call",
        id: "ws_1",
        status: "completed",
        action: { type: "search", query: "Rome", sources: [{ type: "url", url: "https://x" }] }
      } as ResponseOutputItem,
      {
        type: "file_search_call",
        id: "fs_1",
        queries: ["Rome"],
        status: "completed",
        results: [{ attributes: { a: "b" }, file_id: "f", filename: "a.txt", score: 1, text: "Rome" }]
      },
      {
        type: "message",
        id: "msg_1",
        role: "assistant",
        status: "completed",
        phase: "final_answer",
        content: [
          {
            type: "output_text",
            text: "Rome.",
            annotations: [{ type: "url_citation", start_index: 0, end_index: 4, title: "Rome", url: "https://x" }],
            logprobs: [{ token: "Rome", bytes: [82], logprob: 0, top_logprobs: [] }]
          },
          { type: "refusal", refusal: "no more" }
        ]
      },
      {
        type: "function_call",
        id: "fc_1",
        call_id: "call_1",
        name: "weather",
        arguments: "{}",
        status: "completed",
        namespace: "tools"
      } as ResponseOutputItem,
      {
        type: "custom_tool_call",
        id: "ct_1",
        call_id: "call_2",
        name: "shell",
        input: "ls",
        namespace: "tools"
      } as ResponseOutputItem
    ]
    const items = [
      { role: "user", content: "Capital?" },
      ...output,
      { type: "function_call_output", call_id: "call_1", output: "18C" },
      { type: "custom_tool_call_output", call_id: "call_2", output: "a.txt" }
    ]
    assert.deepStrictEqual(fromOpenAIResponses(items).map(String), [
      "user: Capital?",
      // the message and the parallel calls after it: one assistant turn
      "assistant: Rome. [tool calls: weather({}), shell(ls)]",
      "tool: 18C",
      "tool: a.txt"
    ])
    assert.deepStrictEqual(back(fromOpenAIResponses, toOpenAIResponses, items), items)
  })

  it("AI SDK: a result's response messages", () => {
    const providerOptions = { openai: { itemId: "x" } }
    const messages: Array<ModelMessage> = [
      { role: "user", content: [{ type: "text", text: "Capital?", providerOptions }], providerOptions },
      {
        role: "assistant",
        providerOptions,
        content: [
          { type: "reasoning", text: "Look it up.", providerOptions },
          { type: "text", text: "Rome.", providerOptions },
          { type: "file", data: "aGk=", mediaType: "text/plain", filename: "a.txt", providerOptions },
          {
            type: "tool-call",
            toolCallId: "call_1",
            toolName: "weather",
            input: { city: "Rome" },
            providerExecuted: false,
            providerOptions
          },
          { type: "tool-approval-request", approvalId: "ap_1", toolCallId: "call_1" }
        ]
      },
      {
        role: "tool",
        providerOptions,
        content: [
          { type: "tool-approval-response", approvalId: "ap_1", approved: true, reason: "ok", providerExecuted: false },
          {
            type: "tool-result",
            toolCallId: "call_1",
            toolName: "weather",
            output: { type: "text", value: "18C", providerOptions },
            providerOptions
          }
        ]
      }
    ]
    assert.deepStrictEqual(fromAiSdk(messages).map(String), [
      "user: Capital?",
      "assistant: Rome. [tool calls: weather({\"city\":\"Rome\"})]",
      "tool: 18C"
    ])
    assert.deepStrictEqual(back(fromAiSdk, toAiSdk, messages), json(messages))
  })

  it("Gemini: a candidate's content, every part field set", () => {
    const contents: Array<Content> = [
      { role: "user", parts: [{ text: "Capital?" }] },
      {
        role: "model",
        parts: [
          { text: "Thinking.", thought: true, thoughtSignature: "sig" },
          { text: "Rome.", partMetadata: { a: 1 } },
          { executableCode: { code: "print(1)", language: Language.PYTHON } },
          { codeExecutionResult: { outcome: Outcome.OUTCOME_OK, output: "1" } },
          { functionCall: { id: "f1", name: "weather", args: { city: "Rome" } }, thoughtSignature: "sig2" }
        ]
      },
      { role: "user", parts: [{ functionResponse: { id: "f1", name: "weather", response: { output: "18C" } } }] }
    ]
    const request = { contents }
    assert.deepStrictEqual(fromGemini(request).map(String), [
      "user: Capital?",
      "assistant: Rome. [tool calls: weather({\"city\":\"Rome\"})]",
      "tool: 18C"
    ])
    assert.deepStrictEqual(back(fromGemini, toGemini, request), json(request))
  })
})

const json = (u: unknown): unknown => JSON.parse(JSON.stringify(u))
