import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Exit } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll } from "vitest"
import {
  fromAiSdk,
  fromAnthropic,
  fromGemini,
  fromOpenAIChat,
  toAiSdk,
  toAnthropic,
  toGemini,
  toOpenAIChat
} from "../src/adapters.js"
import { CliFailure } from "../src/cli/Command.js"
import * as Formats from "../src/cli/Formats.js"
import * as Message from "../src/schema/Message.js"
import { example, failureOf, readJsonl, type Run, runCli } from "./support/cli.js"
import { dataPath, hasData } from "./support/data.js"

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rollmem-formats-"))
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }))
const write = (name: string, text: string): string => {
  const file = path.join(tmp, name)
  fs.writeFileSync(file, text)
  return file
}

interface Report {
  readonly conversations: ReadonlyArray<Record<string, unknown>>
  readonly totals: Record<string, number>
  readonly show?: {
    readonly messages: ReadonlyArray<Record<string, unknown>>
    readonly request?: { readonly format: string; readonly body: unknown }
  }
}

/** A budget of 300 words for the rolling strategy (the others take no --max-tokens). */
const replay = (args: ReadonlyArray<string>): Effect.Effect<Run> =>
  runCli(["replay", ...args, "--tokenizer", "words", ...(args.includes("--strategy") ? [] : ["--max-tokens", "300"])])

const report = (args: ReadonlyArray<string>) =>
  Effect.map(replay([...args, "--format", "json"]), (r) => {
    assert.isTrue(Exit.isSuccess(r.exit), r.stderr)
    assert.strictEqual(r.stderr, "")
    return JSON.parse(r.stdout) as Report
  })

/** A conversation in each provider's shape, as a JSON Lines line (`check: false`: the transcripts as recorded). */
const converters: ReadonlyArray<readonly [Formats.OutputFormat, (m: ReadonlyArray<Message.Message>) => object]> = [
  ["openai", (m) => ({ messages: toOpenAIChat(m, { check: false }) })],
  ["anthropic", (m) => toAnthropic(m, { check: false })],
  ["ai-sdk", (m) => ({ messages: toAiSdk(m, { check: false }) })],
  ["gemini", (m) => toGemini(m, { check: false })]
]

const readers: { readonly [F in Formats.OutputFormat]: (c: never) => ReadonlyArray<Message.Message> } = {
  openai: (c: { messages: unknown }) => fromOpenAIChat(c.messages),
  anthropic: fromAnthropic,
  "ai-sdk": (c: { messages: unknown }) => fromAiSdk(c.messages),
  gemini: fromGemini
}

/**
 * The transcript as `format`'s adapter reads it back from that shape, in
 * rollmem's format. Anthropic merges consecutive turns of one role (its API
 * requires it); Anthropic, the AI SDK and Gemini hold a call's arguments as a
 * JSON object, not as text: their reading is their own.
 */
const adapterRead = (file: string, format: Formats.OutputFormat): string => {
  const to = converters.find(([name]) => name === format)![1]
  const lines = readJsonl(dataPath(file)).map((c) =>
    JSON.stringify({ id: c.id, messages: readers[format](JSON.parse(JSON.stringify(to(c.messages))) as never) })
  )
  return write(`read-${format}-${file}`, `${lines.join("\n")}\n`)
}

const convert = (file: string, format: Formats.OutputFormat): string => {
  const to = converters.find(([name]) => name === format)![1]
  const lines = readJsonl(dataPath(file)).map((c) => JSON.stringify({ id: c.id, ...to(c.messages) }))
  return write(`${format}-${file}`, `${lines.join("\n")}\n`)
}

describe("rollmem replay --input-format on the real transcripts converted to each provider's shape", () => {
  for (const file of ["conversations-tooltalk.jsonl", "conversations-chat.jsonl"]) {
    it.effect.skipIf(!hasData(file))(
      `${file}: every format, detected or named, replays as its adapter reads it (OpenAI: as the original)`,
      () =>
        Effect.gen(function*() {
          const exact = yield* report([dataPath(file)])
          assert.isAbove(exact.conversations.length, 10)
          const named = yield* report([dataPath(file), "--input-format", "rollmem"])
          assert.deepStrictEqual(named.conversations, exact.conversations)
          for (const [format] of converters) {
            const original = yield* report([adapterRead(file, format)])
            // OpenAI's shape holds every field of a rollmem message: the same figures as the transcript itself.
            if (format === "openai") assert.deepStrictEqual(original.conversations, exact.conversations)
            const converted = convert(file, format)
            const detected = yield* report([converted])
            assert.deepStrictEqual(detected.conversations, original.conversations, format)
            assert.deepStrictEqual(detected.totals, original.totals, format)
            const given = yield* report([converted, "--input-format", format])
            assert.deepStrictEqual(given.conversations, original.conversations, format)
          }
        }),
      { timeout: 120_000 }
    )
  }

  it.effect.skipIf(!hasData("conversations-tooltalk.jsonl"))(
    "a file read in a format it is not in refuses every conversation, naming file:line and the field, exit 1",
    () =>
      Effect.gen(function*() {
        const converted = convert("conversations-tooltalk.jsonl", "anthropic")
        const r = yield* replay([converted, "--input-format", "gemini", "--format", "json"])
        assert.isTrue(Exit.isFailure(r.exit))
        const lines = r.stderr.split("\n")
        assert.strictEqual(lines[0], `rollmem: ${converted}:1: gemini: contents: is missing`)
        assert.strictEqual(lines.length, readJsonl(dataPath("conversations-tooltalk.jsonl")).length)
      })
  )
})

const anthropicLine = {
  id: "weather",
  model: "claude-sonnet-4-5",
  system: "Be brief.",
  messages: [
    { role: "user", content: "Weather in Rome?" },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Let me check." },
        { type: "tool_use", id: "tu_1", name: "get_weather", input: { city: "Rome" } }
      ]
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "tu_1", content: "21°C" }] },
    { role: "assistant", content: "It is 21°C." }
  ]
}

const aiSdkLine = {
  id: "sdk",
  messages: [
    { role: "user", content: "Weather in Rome?" },
    {
      role: "assistant",
      content: [{ type: "tool-call", toolCallId: "c1", toolName: "get_weather", input: { city: "Rome" } }]
    },
    {
      role: "tool",
      content: [{
        type: "tool-result",
        toolCallId: "c1",
        toolName: "get_weather",
        output: { type: "text", value: "21°C" }
      }]
    },
    { role: "assistant", content: "It is 21°C." }
  ]
}

const withoutMetadata = (messages: ReadonlyArray<Record<string, unknown>>) =>
  messages.map(({ metadata: _metadata, ...rest }) => rest)

describe("rollmem replay reads hand-made transcripts of every provider", () => {
  it.effect("Anthropic tool_use / tool_result blocks and the top-level system are replayed with their tool calls", () =>
    Effect.gen(function*() {
      const file = write("anthropic.jsonl", `${JSON.stringify(anthropicLine)}\n`)
      const r = yield* report([file, "--strategy", "buffer", "--show", "weather"])
      assert.deepStrictEqual(withoutMetadata(r.show!.messages), [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Weather in Rome?" },
        {
          role: "assistant",
          content: "Let me check.",
          tool_calls: [{ id: "tu_1", name: "get_weather", arguments: "{\"city\":\"Rome\"}" }]
        },
        { role: "tool", content: "21°C", tool_call_id: "tu_1" },
        { role: "assistant", content: "It is 21°C." }
      ])
    }))

  it.effect("AI SDK tool-call / tool-result parts are replayed as a call and its result", () =>
    Effect.gen(function*() {
      const file = write("sdk.jsonl", `${JSON.stringify(aiSdkLine)}\n`)
      const r = yield* report([file, "--strategy", "buffer", "--show", "sdk"])
      assert.deepStrictEqual(withoutMetadata(r.show!.messages), [
        { role: "user", content: "Weather in Rome?" },
        {
          role: "assistant",
          content: "",
          tool_calls: [{ id: "c1", name: "get_weather", arguments: "{\"city\":\"Rome\"}" }]
        },
        { role: "tool", content: "21°C", tool_call_id: "c1" },
        { role: "assistant", content: "It is 21°C." }
      ])
    }))

  it.effect("a block nobody defines refuses its conversation naming file:line and the field; the others are reported", () =>
    Effect.gen(function*() {
      const video = {
        id: "video",
        system: "Be brief.",
        messages: [{ role: "user", content: [{ type: "video", url: "x" }] }]
      }
      const misspelt = { id: "misspelt", messages: [{ role: "tool", content: "r", toolCallID: "c1" }] }
      const good = fs.readFileSync(example, "utf8").trim()
      const file = write("mixed.jsonl", [good, JSON.stringify(video), JSON.stringify(misspelt)].join("\n"))
      const r = yield* replay([file, "--format", "json"])
      assert.isTrue(Exit.isFailure(r.exit))
      assert.deepStrictEqual(r.stderr.split("\n"), [
        `rollmem: ${file}:2: anthropic: messages[0].content: Expected string, actual [{"type":"video","url":"x"}]; ` +
        `messages[0].content[0].type: Expected "text" | "image" | "document" | "thinking" | "redacted_thinking" | ` +
        `"tool_use" | "tool_result", actual "video"`,
        `rollmem: ${file}:3: wire format: messages[0].toolCallID: is unexpected, expected: "role" | "content" | "id" | ` +
        `"tool_calls" | "tool_call_id" | "metadata"`,
        "rollmem: skipped 2 inputs that could not be read (see above)"
      ])
      assert.deepStrictEqual((JSON.parse(r.stdout) as Report).conversations.map((c) => c.id), ["support-chat"])
    }))

  it.effect("an OpenAI turn whose tool call cannot be read is never replayed without it", () =>
    Effect.gen(function*() {
      const line = {
        id: "legacy",
        messages: [
          { role: "user", content: "Weather?" },
          { role: "assistant", content: null, tool_calls: [{ id: "c1", function: { name: "get_weather" } }] }
        ]
      }
      const file = write("legacy.jsonl", `${JSON.stringify(line)}\n`)
      const r = yield* replay([file])
      assert.isTrue(Exit.isFailure(r.exit))
      assert.strictEqual(r.stderr.split("\n")[0], `rollmem: ${file}:1: openai: [1].tool_calls[0].type: is missing`)
    }))

  it.effect("a content that is neither text nor parts is named plainly, under the command line's format name", () =>
    Effect.gen(function*() {
      const file = write(
        "nullcontent.jsonl",
        `${JSON.stringify({ id: "e", messages: [{ role: "user", content: null }] })}\n`
      )
      const said = (format: string, got: string) =>
        `rollmem: ${file}:1: ${format}: [0].content: must be a string or an array of content parts, got ${got}`
      for (const extra of [[], ["--input-format", "openai"]]) {
        const r = yield* replay([file, ...extra])
        assert.isTrue(Exit.isFailure(r.exit))
        assert.strictEqual(r.stdout, "")
        assert.strictEqual(r.stderr, said("openai", "null"))
      }
      // the same in every format, whose adapter lists the part types (cut short with "…")
      assert.deepStrictEqual(
        Formats.decode({ messages: [{ role: "user", content: 7 }] }, "ai-sdk"),
        Either.left(
          "ai-sdk: [0].content: must be a string or an array of content parts, got 7"
        )
      )
      assert.deepStrictEqual(
        Formats.decode({ messages: [{ role: "user", content: null }] }, "anthropic"),
        Either.left(
          "anthropic: messages[0].content: must be a string or an array of content parts, got null"
        )
      )
    }))
})

describe("rollmem replay --output-format", () => {
  const file = () => write("out.jsonl", `${JSON.stringify(anthropicLine)}\n`)

  it.effect("prints the final context of --show in the provider's request shape", () =>
    Effect.gen(function*() {
      // A buffer memory keeps every turn: the final context is the conversation as read.
      const final = Either.getOrThrow(Formats.decode(anthropicLine, "anthropic")).messages
      for (const format of Formats.outputFormats) {
        const r = yield* report([file(), "--strategy", "buffer", "--show", "weather", "--output-format", format])
        const body = JSON.parse(JSON.stringify(Either.getOrThrow(Formats.encode(final, format)))) as unknown
        assert.deepStrictEqual(r.show!.request, { format, body })
      }
    }))

  it.effect("in a table report, the request is printed as JSON after the table", () =>
    Effect.gen(function*() {
      const r = yield* replay([file(), "--strategy", "buffer", "--show", "weather", "--output-format", "anthropic"])
      assert.isTrue(Exit.isSuccess(r.exit), r.stderr)
      const at = r.stdout.indexOf("Final context of weather as a anthropic request:\n")
      assert.isAbove(at, 0)
      const body = JSON.parse(r.stdout.slice(r.stdout.indexOf("\n", at) + 1)) as unknown
      // Read from Anthropic's shape and written back to it: the request as it was.
      assert.deepStrictEqual(body, { system: anthropicLine.system, messages: anthropicLine.messages })
    }))

  it.effect("needs --show, and refuses a context the provider would refuse, naming the violation", () =>
    Effect.gen(function*() {
      const alone = yield* replay([file(), "--output-format", "openai"])
      assert.isTrue(Exit.isFailure(alone.exit))
      assert.strictEqual(
        alone.stderr,
        "rollmem: invalid option --output-format: prints the context of --show ID: give --show"
      )
      const orphan = write(
        "orphan.jsonl",
        `${JSON.stringify({ id: "o", messages: [{ role: "tool", content: "r", tool_call_id: "c9" }] })}\n`
      )
      // the option is valid, the context is refused: the report and the context as read are printed all the
      // same, then the refusal, with every violation naming its message, and exit code 1
      const r = yield* replay([orphan, "--strategy", "buffer", "--show", "o", "--output-format", "anthropic"])
      assert.isTrue(Exit.isFailure(r.exit))
      assert.instanceOf(failureOf(r), CliFailure)
      const plain = yield* replay([orphan, "--strategy", "buffer", "--show", "o"])
      assert.isTrue(Exit.isSuccess(plain.exit), plain.stderr)
      assert.strictEqual(r.stdout, plain.stdout)
      assert.match(r.stdout, /^o +1 /m)
      assert.include(r.stdout, "\ntool: r")
      assert.strictEqual(
        r.stderr,
        "rollmem: the context of o cannot be written as anthropic: message 0: the first turn is a tool message, " +
          "not a user turn; message 0: tool result \"c9\" does not follow its call"
      )
      const json = yield* replay([
        orphan,
        "--strategy",
        "buffer",
        "--show",
        "o",
        "--output-format",
        "openai",
        "--format",
        "json"
      ])
      assert.isTrue(Exit.isFailure(json.exit))
      const plainJson = yield* replay([orphan, "--strategy", "buffer", "--show", "o", "--format", "json"])
      assert.strictEqual(json.stdout, plainJson.stdout)
      const document = JSON.parse(json.stdout) as { conversations: ReadonlyArray<{ id: string }>; show: object }
      assert.deepStrictEqual(document.conversations.map((c) => c.id), ["o"])
      assert.deepStrictEqual(Object.keys(document.show), ["id", "context", "messages"])
      assert.strictEqual(
        json.stderr,
        "rollmem: the context of o cannot be written as openai: message 0: tool result \"c9\" does not follow its call"
      )
    }))
})

describe("Formats.detect", () => {
  it("names the format a conversation marks, or none", () => {
    const cases: ReadonlyArray<readonly [Record<string, unknown>, Formats.Format | undefined]> = [
      [{ contents: [] }, "gemini"],
      [{ system: "x", messages: [] }, "anthropic"],
      [
        { messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "a", content: "" }] }] },
        "anthropic"
      ],
      [{ messages: [{ role: "tool", content: [{ type: "tool-result" }] }] }, "ai-sdk"],
      [{ messages: [{ role: "developer", content: "x" }] }, "openai"],
      [{ messages: [{ role: "assistant", content: null }] }, "openai"],
      [{ messages: [{ role: "assistant", content: "", tool_calls: [{ id: "a", function: {} }] }] }, "openai"],
      [{ messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "u" } }] }] }, "openai"],
      [{ messages: [{ role: "user", content: "hi" }] }, undefined],
      [
        { messages: [{ role: "assistant", content: "", tool_calls: [{ id: "a", name: "f", arguments: "" }] }] },
        undefined
      ]
    ]
    for (const [conversation, format] of cases) assert.strictEqual(Formats.detect(conversation), format)
  })

  it("plain text turns read the same in every format", () => {
    const plain = { messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }] }
    const read = (format: Formats.InputFormat) =>
      Either.map(Formats.decode(plain, format), (d) => d.messages.map(String))
    for (const format of ["auto", "rollmem", "openai", "anthropic", "ai-sdk"] as const) {
      assert.deepStrictEqual(read(format), Either.right(["user: hi", "assistant: hello"]), format)
    }
    assert.deepStrictEqual(Either.map(Formats.decode(plain, "auto"), (d): string => d.format), Either.right("rollmem"))
  })
})

describe("rollmem replay reads a JSON array of conversations", () => {
  it.effect("each conversation in its own format, named by its id or its index; a bad one names file[i]", () =>
    Effect.gen(function*() {
      const conversations = [
        anthropicLine,
        aiSdkLine,
        { messages: [{ role: "user", content: "hi" }] },
        { id: "bad", messages: [{ role: "user", content: "hi", toolCallID: "x" }] }
      ]
      const file = write("all.json", JSON.stringify(conversations, null, 2))
      const r = yield* replay([file, "--format", "json"])
      assert.isTrue(Exit.isFailure(r.exit))
      assert.deepStrictEqual(r.stderr.split("\n"), [
        `rollmem: ${file}[3]: wire format: messages[0].toolCallID: is unexpected, expected: "role" | "content" | "id" | ` +
        `"tool_calls" | "tool_call_id" | "metadata"`,
        "rollmem: skipped 1 input that could not be read (see above)"
      ])
      assert.deepStrictEqual(
        (JSON.parse(r.stdout) as Report).conversations.map((c) => [c.id, c.messages]),
        [["weather", 5], ["sdk", 4], [`${file}[2]`, 1]]
      )
    }))
})

describe("a conversation with both messages and contents", () => {
  it("is refused in every input format, never read as one of them with the other dropped", () => {
    const both = {
      messages: [{ role: "user", content: "a" }, { role: "assistant", content: "b" }],
      contents: [{ role: "user", parts: [{ text: "c" }] }]
    }
    for (const format of Formats.inputFormats) {
      assert.deepStrictEqual(
        Formats.decode(both, format),
        Either.left("a conversation has both `messages` and `contents`: give its turns under one of them")
      )
    }
  })
})
