/**
 * End to end over real HTTP: a small server on 127.0.0.1 (ephemeral port)
 * speaks the endpoint @effect/ai-openai 0.41 calls for `generateText`
 * (`POST /v1/responses`, the Responses API), with canned replies, a 500 and
 * one request held open until the per-call timeout (500 ms, real time) fires.
 * A RollingMemory with a LanguageModelSummarizer behind retry, timeout and
 * fallback policies is driven through a real ToolTalk conversation. Nothing
 * but the server's address is contacted; the server closes with the scope.
 */
import * as OpenAiClient from "@effect/ai-openai/OpenAiClient"
import * as OpenAiLanguageModel from "@effect/ai-openai/OpenAiLanguageModel"
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Layer, Redacted, Runtime, Schedule } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as AiPrompt from "../../src/ai/AiPrompt.js"
import * as LanguageModelSummarizer from "../../src/ai/LanguageModelSummarizer.js"
import * as SummarizerPolicy from "../../src/ai/SummarizerPolicy.js"
import * as SummaryPrompt from "../../src/ai/SummaryPrompt.js"
import * as ExtractiveSummarizer from "../../src/layers/ExtractiveSummarizer.js"
import type * as Message from "../../src/schema/Message.js"
import * as Summarizer from "../../src/services/Summarizer.js"
import * as TokenCounter from "../../src/services/TokenCounter.js"
import * as RollingMemory from "../../src/strategies/RollingMemory.js"
import { hasData, loadConversations } from "./support.js"

type Reply =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "status"; readonly status: number }
  | { readonly kind: "hang" }

interface Seen {
  readonly method: string
  readonly url: string
  readonly authorization: string | undefined
  readonly body: {
    readonly model: string
    readonly input: ReadonlyArray<Record<string, unknown>>
  }
}

const responseBody = (n: number, text: string) => ({
  id: `resp_${n}`,
  object: "response",
  created_at: 1_700_000_000,
  status: "completed",
  error: null,
  incomplete_details: null,
  instructions: null,
  model: "gpt-4o-mini",
  output: [{
    type: "message",
    id: `msg_${n}`,
    status: "completed",
    role: "assistant",
    content: [{ type: "output_text", text, annotations: [] }]
  }],
  parallel_tool_calls: true,
  tools: [],
  tool_choice: "auto",
  metadata: {},
  temperature: 1,
  top_p: 1,
  usage: {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15
  }
})

/**
 * Starts the server; request `i` gets `script[i]`, or text `"Summary {i}."` past
 * the script's end. `hangClosed` completes when the held-open request's
 * connection is closed by the client.
 */
const startServer = (script: ReadonlyArray<Reply>) =>
  Effect.gen(function*() {
    const seen: Array<Seen> = []
    const hangClosed = yield* Deferred.make<number>()
    const runtime = yield* Effect.runtime<never>()
    const server = http.createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        const n = seen.length
        seen.push({
          method: req.method ?? "",
          url: req.url ?? "",
          authorization: req.headers.authorization,
          body: JSON.parse(Buffer.concat(chunks).toString("utf8"))
        })
        const reply: Reply = script[n] ?? { kind: "text", text: `Summary ${n}.` }
        if (req.method !== "POST" || req.url !== "/v1/responses") {
          res.writeHead(404).end()
          return
        }
        switch (reply.kind) {
          case "text":
            res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(responseBody(n, reply.text)))
            return
          case "status":
            res.writeHead(reply.status, { "content-type": "application/json" }).end(
              JSON.stringify({ error: { message: "canned failure", type: "server_error" } })
            )
            return
          case "hang":
            res.on("close", () => Runtime.runSync(runtime)(Deferred.succeed(hangClosed, n)))
            return
        }
      })
    })
    const port = yield* Effect.acquireRelease(
      Effect.async<number>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as AddressInfo).port)))
      }),
      () =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    return { port, seen, hangClosed }
  })

const openAi = (port: number) =>
  OpenAiLanguageModel.layer({ model: "gpt-4o-mini" }).pipe(
    Layer.provide(OpenAiClient.layer({ apiUrl: `http://127.0.0.1:${port}/v1`, apiKey: Redacted.make("sk-test") })),
    Layer.provide(FetchHttpClient.layer)
  )

// Per-call timeout 500 ms (real time: the held request costs that much; short enough to keep the
// test fast, long enough that a loaded machine does not time out an answered request); up to 2 retries of transient failures, 10 ms then 20 ms (jittered);
// then the extractive summarizer, which needs no model, as the fallback.
const policy = Summarizer.withPolicy((call) =>
  call.pipe(
    Effect.timeout("500 millis"),
    Effect.retry({
      schedule: Schedule.exponential("10 millis").pipe(Schedule.jittered, Schedule.intersect(Schedule.recurs(2))),
      while: SummarizerPolicy.isTransient
    })
  )
)
const fallback = ExtractiveSummarizer.layer({ maxTokens: 50 }).pipe(Layer.provide(TokenCounter.layerWordCount))

const conversation =
  loadConversations("conversations-tooltalk.jsonl").find((c) =>
    c.id === "tooltalk-tooltalk-Calendar-Messages-Weather-SendMessage-1"
  ) ?? { id: "", messages: [] }

// The same conversation through a local summarizer that records what each fold evicted.
const referenceRun = Effect.gen(function*() {
  const batches: Array<ReadonlyArray<Message.Message>> = []
  const memory = yield* RollingMemory.make({ maxTokens: 60 }).pipe(
    Effect.provide(Summarizer.layerFunction((summary, messages) => {
      batches.push(messages)
      return `${summary}+`
    }))
  )
  for (const message of conversation.messages) yield* memory.add(message)
  return { batches, evicted: batches.map((b) => b.length), buffer: yield* memory.buffer }
})

const userText = (seen: Seen): string => {
  const user = seen.body.input.find((item) => item.role === "user") as { content: Array<{ text: string }> }
  return user.content.map((part) => part.text).join("")
}

describe.skipIf(!hasData("conversations-tooltalk.jsonl"))(
  `LanguageModelSummarizer over real HTTP (OpenAI Responses API)`,
  () => {
    it.live("folds, retries a 500, times out a held request, falls back, then answers from the memory's context", () =>
      Effect.gen(function*() {
        const server = yield* startServer([
          { kind: "text", text: "S1." }, // fold 1
          { kind: "status", status: 500 }, // fold 2: retried
          { kind: "text", text: "S2." },
          { kind: "hang" }, // fold 3: timed out after 200 ms, retried
          { kind: "text", text: "S3." },
          { kind: "status", status: 500 }, // fold 4: three 500s, gives up, falls back
          { kind: "status", status: 503 },
          { kind: "status", status: 502 }
        ])
        const model = openAi(server.port)
        const summarizer = SummarizerPolicy.withFallback(fallback).pipe(
          Layer.provide(policy),
          Layer.provide(LanguageModelSummarizer.layer({ maxSummaryTokens: 50 })),
          Layer.provide(model)
        )
        const memory = yield* RollingMemory.make({ maxTokens: 60 }).pipe(Effect.provide(summarizer))
        // After which request each fold committed (its summary changed).
        const folds: Array<number> = []
        for (const message of conversation.messages) {
          const before = yield* memory.summary
          yield* memory.add(message)
          if ((yield* memory.summary) !== before) folds.push(server.seen.length)
        }

        // The same conversation with a local summarizer: the same folds, the same buffer.
        const reference = yield* referenceRun
        assert.strictEqual(reference.evicted.length, 7)
        assert.deepStrictEqual(folds, [1, 3, 5, 8, 9, 10, 11])
        assert.strictEqual(server.seen.length, 11)
        assert.deepStrictEqual(yield* memory.buffer, reference.buffer)
        assert.deepStrictEqual(yield* memory.buffer, conversation.messages.slice(-5))
        assert.strictEqual(yield* memory.summary, "Summary 10.")

        // The held request's connection was closed by the client's timeout, not answered.
        assert.strictEqual(yield* Deferred.await(server.hangClosed), 3)

        // Every request is a POST /v1/responses with the key, the model, instructions and the turns.
        for (const seen of server.seen) {
          assert.strictEqual(seen.method, "POST")
          assert.strictEqual(seen.url, "/v1/responses")
          assert.strictEqual(seen.authorization, "Bearer sk-test")
          assert.strictEqual(seen.body.model, "gpt-4o-mini")
          assert.deepStrictEqual(seen.body.input.map((item) => item.role), ["system", "user"])
          assert.include(userText(seen), "<turns>\n[")
        }
        // Incremental: each fold's request carries the summary the previous fold stored; a retry
        // sends the same request again.
        const texts = server.seen.map(userText)
        assert.include(texts[0], "<summary>\n(none yet)\n</summary>")
        assert.include(texts[1], "<summary>\nS1.\n</summary>")
        assert.strictEqual(texts[2], texts[1])
        assert.include(texts[3], "<summary>\nS2.\n</summary>")
        assert.strictEqual(texts[4], texts[3])
        assert.include(texts[5], "<summary>\nS3.\n</summary>")
        assert.strictEqual(texts[6], texts[5])
        assert.strictEqual(texts[7], texts[5])
        // Fold 4 gave up on the model: the extractive summarizer folded the same turns into "S3.".
        const extractive = yield* ExtractiveSummarizer.make({ maxTokens: 50 }).pipe(
          Effect.provide(TokenCounter.layerWordCount)
        )
        const offline = yield* extractive.summarize("S3.", reference.batches[3], Summarizer.request())
        assert.isTrue(offline.startsWith("S3.\n"))
        assert.include(texts[8], `<summary>\n${offline}\n</summary>`)
        assert.include(texts[9], "<summary>\nSummary 8.\n</summary>")
        // Each fold's request holds exactly the turns the reference run evicted at that fold.
        const foldRequests = [0, 1, 3, 5, 8, 9, 10]
        foldRequests.forEach((request, fold) => {
          const turns = reference.batches[fold]
          assert.include(texts[request], `<turns>\n${SummaryPrompt.renderTranscript(turns)}\n</turns>`)
        })

        // The memory's context goes straight to generateText: tool calls and results become
        // function_call / function_call_output items with the right ids and names.
        const reply = yield* LanguageModel.generateText({ prompt: AiPrompt.toPrompt(yield* memory.messages) }).pipe(
          Effect.provide(model)
        )
        assert.strictEqual(reply.text, "Summary 11.")
        const [tt007, result007, tt008, result008, last] = conversation.messages.slice(-5)
        assert.deepStrictEqual(server.seen[11].body.input, [
          { role: "system", content: "Summary 10." },
          {
            type: "function_call",
            call_id: "tt_007",
            name: "SendMessage",
            arguments: JSON.stringify(JSON.parse(tt007.toolCalls[0].arguments))
          },
          { type: "function_call_output", call_id: "tt_007", output: "{\"message_id\":\"5c5373e0-ecf4712d\"}" },
          {
            type: "function_call",
            call_id: "tt_008",
            name: "SendMessage",
            arguments: JSON.stringify(JSON.parse(tt008.toolCalls[0].arguments))
          },
          { type: "function_call_output", call_id: "tt_008", output: "{\"message_id\":\"c1cc4dc9-36298341\"}" },
          { role: "assistant", content: [{ type: "output_text", text: last.content }] }
        ])
        assert.strictEqual(result007.content, "{\"message_id\": \"5c5373e0-ecf4712d\"}")
        assert.strictEqual(result008.toolCallId, "tt_008")
      }).pipe(Effect.scoped))
  }
)
