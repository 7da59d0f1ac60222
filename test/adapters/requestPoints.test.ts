/**
 * Issue 26's goal on the real data: every `to…` output, at every request
 * point of a replay in turn mode, passes its provider's rules.
 *
 * Each real transcript file is replayed as the command line replays it
 * (`rollmem replay --boundary turn`, the extractive summarizer, o200k_base)
 * in two configurations: the summary as a system message, and the summary as
 * a user message with the system prompt pinned and old tool results cleared.
 * At every request point (before each assistant turn but the first message:
 * every one, none sampled) the memory's context is written with each `to…`
 * (OpenAI Chat, OpenAI Responses, Anthropic, Gemini, AI SDK, UI messages),
 * checked (the default), and the output is checked against its provider's
 * rules twice: read back, with `Validity.violations(…, { provider })`; and as
 * the wire shape, with the structural rules the provider states (below, one
 * checker per format; the AI SDK's own `modelMessageSchema` and
 * `validateUIMessages` for its formats). Where the transcript itself breaks a
 * provider's rules before a request point, the memory cannot repair it: the
 * writer must then refuse with `AdapterError` naming the transcript's
 * violation (counted per file and asserted exactly).
 *
 * The data is read in place (`$ROLLMEM_DATA`, else `../shared/data`); each
 * file's test is skipped, saying so, when it is absent.
 */
import { assert, describe, it } from "@effect/vitest"
import { convertToModelMessages, modelMessageSchema, type UIMessage, validateUIMessages } from "ai"
import { Effect, Either, Schema } from "effect"
import * as Adapters from "../../src/adapters.js"
import { AdapterError } from "../../src/adapters/AdapterError.js"
import * as Replay from "../../src/cli/Replay.js"
import * as Tokenizers from "../../src/layers/Tokenizers.js"
import * as Message from "../../src/schema/Message.js"
import type * as Memory from "../../src/strategies/Memory.js"
import * as Validity from "../../src/Validity.js"
import { dataLines, dataPath, hasData } from "../support/data.js"

const FILES = [
  "conversations-chat.jsonl",
  "conversations-agentic.jsonl",
  "conversations-tooltalk.jsonl",
  "conversations-long.jsonl"
] as const

const decodeLine = Schema.decodeUnknownSync(
  Schema.parseJson(Schema.Struct({ id: Schema.String, messages: Schema.Array(Message.Message) }))
)

type Json = Record<string, unknown>
const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)
/** A wire shape's JSON, typed as `JSON.parse` types it: the checkers read the providers' fields as they come. */
type Wire = ReturnType<typeof JSON.parse>
const json = (u: unknown): Wire => JSON.parse(JSON.stringify(u))

/** Whether `s` parses as a JSON object (tool call arguments, as every provider takes them). */
const jsonObject = (s: unknown): boolean => {
  if (typeof s !== "string") return false
  try {
    return isObject(JSON.parse(s))
  } catch {
    return false
  }
}

/**
 * OpenAI Chat Completions: roles it knows; an assistant message has content or
 * tool calls; each call (unique id, arguments a JSON object) answered by the
 * tool messages right after it, and each tool message answers such a call.
 */
const openAIChatRules = (messages: ReadonlyArray<Wire>): Array<string> => {
  const out: Array<string> = []
  let open: Set<string> | undefined
  messages.forEach((m, i) => {
    if (!["system", "developer", "user", "assistant", "tool"].includes(m.role)) out.push(`[${i}] role ${m.role}`)
    if (m.role === "tool") {
      if (open === undefined || !open.delete(m.tool_call_id)) out.push(`[${i}] tool message answers no open call`)
      if (typeof m.content !== "string" && !Array.isArray(m.content)) out.push(`[${i}] tool content`)
      return
    }
    if (open !== undefined && open.size > 0) out.push(`[${i}] calls ${[...open].join(",")} unanswered`)
    open = undefined
    if (m.role === "assistant") {
      const calls: ReadonlyArray<Wire> = m.tool_calls ?? []
      if ((m.content === null || m.content === undefined) && calls.length === 0) out.push(`[${i}] empty assistant`)
      if (calls.length > 0) {
        open = new Set()
        for (const c of calls) {
          // OpenAI Chat Completions takes a call id repeated across turns (tau-bench's transcripts were made so)
          open.add(c.id)
          if (c.type !== "function" || !jsonObject(c.function?.arguments)) out.push(`[${i}] call ${c.id} malformed`)
        }
      }
    } else if (typeof m.content !== "string" && !(Array.isArray(m.content) && m.content.length > 0)) {
      out.push(`[${i}] content`)
    }
  })
  if (open !== undefined && open.size > 0) out.push(`calls ${[...open].join(",")} unanswered at the end`)
  return out
}

/**
 * OpenAI Responses: every `function_call_output` answers a `function_call`
 * before it, and every `function_call` is answered (arguments a JSON object).
 */
const openAIResponsesRules = (items: ReadonlyArray<Wire>): Array<string> => {
  const out: Array<string> = []
  const calls = new Set<string>()
  const answered = new Set<string>()
  items.forEach((item, i) => {
    const type = item.type ?? "message"
    if (type === "function_call") {
      if (calls.has(item.call_id)) out.push(`[${i}] duplicate call id`)
      calls.add(item.call_id)
      if (!jsonObject(item.arguments)) out.push(`[${i}] arguments`)
    } else if (type === "function_call_output") {
      if (!calls.has(item.call_id)) out.push(`[${i}] output of no call before it`)
      if (typeof item.output !== "string") out.push(`[${i}] output`)
      answered.add(item.call_id)
    } else if (type === "message") {
      if (!["system", "developer", "user", "assistant"].includes(item.role)) out.push(`[${i}] role ${item.role}`)
    } else out.push(`[${i}] type ${type}`)
  })
  for (const id of calls) if (!answered.has(id)) out.push(`call ${id} unanswered`)
  return out
}

const blocksOf = (content: unknown): ReadonlyArray<Wire> =>
  typeof content === "string" ? [{ type: "text", text: content }] : content as ReadonlyArray<Wire>

/**
 * Anthropic Messages: roles `user` and `assistant` only, the first a user
 * turn; no empty content and no empty text block; every `tool_use` (input an
 * object) answered by a `tool_result` in the next message, which is a user
 * message opening with its tool results; tool_use ids unique in the request
 * (`^[a-zA-Z0-9_-]+$`); every `tool_result` answers a
 * `tool_use` of the message right before it; a final assistant message (a
 * prefill) does not end with white space; system text apart.
 */
const anthropicRules = (request: Wire): Array<string> => {
  const out: Array<string> = []
  const keys = Object.keys(request).filter((k) => k !== "system" && k !== "messages")
  if (keys.length > 0) out.push(`keys ${keys.join(",")}`)
  if (request.system !== undefined) {
    for (const b of blocksOf(request.system)) if (b.type !== "text" || b.text === "") out.push("system block")
  }
  const messages: ReadonlyArray<Wire> = request.messages
  if (messages.length > 0 && messages[0].role !== "user") out.push("[0] is not a user turn")
  let pending: Set<string> = new Set()
  const ids = new Set<string>()
  messages.forEach((m, i) => {
    if (m.role !== "user" && m.role !== "assistant") out.push(`[${i}] role ${m.role}`)
    const blocks = blocksOf(m.content)
    if (blocks.length === 0) out.push(`[${i}] empty content`)
    const isLast = i === messages.length - 1
    let results = true
    const answered = new Set<string>()
    for (const b of blocks) {
      if (b.type === "text" && b.text === "" && !(isLast && m.role === "assistant")) out.push(`[${i}] empty text block`)
      if (b.type === "tool_result") {
        if (m.role !== "user") out.push(`[${i}] tool_result in ${m.role}`)
        if (!results) out.push(`[${i}] tool_result after other content`)
        if (!pending.has(b.tool_use_id)) out.push(`[${i}] tool_result ${b.tool_use_id} answers no tool_use before it`)
        answered.add(b.tool_use_id)
      } else results = false
    }
    for (const id of pending) if (!answered.has(id)) out.push(`[${i}] tool_use ${id} not answered here`)
    pending = new Set()
    if (m.role === "assistant") {
      for (const b of blocks) {
        if (b.type === "tool_use") {
          if (ids.has(b.id)) out.push(`[${i}] tool_use id ${b.id} used before`)
          if (!/^[a-zA-Z0-9_-]+$/.test(b.id)) out.push(`[${i}] tool_use id ${b.id} has characters Anthropic refuses`)
          ids.add(b.id)
          pending.add(b.id)
          if (!isObject(b.input)) out.push(`[${i}] tool_use ${b.id} input`)
        }
      }
      if (isLast) {
        const last = blocks[blocks.length - 1]
        if (last?.type === "text" && last.text !== last.text.trimEnd()) out.push(`[${i}] final assistant white space`)
      }
    }
  })
  if (pending.size > 0) out.push(`tool_use ${[...pending].join(",")} unanswered at the end`)
  return out
}

/**
 * Gemini: roles `user` and `model`, the first a user turn; no content without
 * parts, no empty text part; a model turn's function calls answered, as many
 * and by name, by the function responses of the next content, a user one,
 * and function responses only there; call ids, where given, unique; system
 * text apart.
 */
const geminiRules = (request: Wire): Array<string> => {
  const out: Array<string> = []
  if (request.systemInstruction !== undefined) {
    for (const p of request.systemInstruction.parts) if (typeof p.text !== "string") out.push("system part")
  }
  const contents: ReadonlyArray<Wire> = request.contents
  if (contents.length > 0 && contents[0].role !== "user") out.push("[0] is not a user turn")
  let calls: Array<string> = []
  const ids = new Set<string>()
  contents.forEach((c, i) => {
    if (c.role !== "user" && c.role !== "model") out.push(`[${i}] role ${c.role}`)
    const parts: ReadonlyArray<Wire> = c.parts ?? []
    if (parts.length === 0) out.push(`[${i}] no parts`)
    for (const p of parts) if ("text" in p && p.text === "") out.push(`[${i}] empty text part`)
    const responses = parts.filter((p) => p.functionResponse !== undefined).map((p) => p.functionResponse.name)
    if (calls.length > 0) {
      if (
        c.role !== "user" || responses.length !== calls.length ||
        [...responses].sort().join() !== [...calls].sort().join()
      ) {
        out.push(`[${i}] answers ${responses.length} of ${calls.length} calls`)
      }
    } else if (responses.length > 0) out.push(`[${i}] function responses after no call`)
    calls = c.role === "model"
      ? parts.filter((p) => p.functionCall !== undefined).map((p) => {
        if (!isObject(p.functionCall.args ?? {})) out.push(`[${i}] args`)
        if (p.functionCall.id !== undefined) {
          if (ids.has(p.functionCall.id)) out.push(`[${i}] call id ${p.functionCall.id} used before`)
          ids.add(p.functionCall.id)
        }
        return p.functionCall.name
      })
      : []
  })
  if (calls.length > 0) out.push("calls unanswered at the end")
  return out
}

/** Each distinct message checked once (the same messages recur at every request point of a conversation). */
const once = <A>(seen: Map<string, A>, key: string, f: () => A): A => {
  let known = seen.get(key)
  if (known === undefined) {
    known = f()
    seen.set(key, known)
  }
  return known
}

const modelMessageChecked = new Map<string, string | null>()

/**
 * The AI SDK's own schema for `ModelMessage`s; every call answered by the
 * tool message right after it; call ids unique (the providers behind it,
 * Anthropic and OpenAI Responses, refuse a repeated one).
 */
const aiSdkRules = (messages: ReadonlyArray<Wire>): Array<string> => {
  const out: Array<string> = []
  let open = new Set<string>()
  const ids = new Set<string>()
  messages.forEach((m, i) => {
    const problem = once(modelMessageChecked, JSON.stringify(m), () => {
      const parsed = modelMessageSchema.safeParse(m)
      return parsed.success ? null : parsed.error.message.slice(0, 200)
    })
    if (problem !== null) out.push(`[${i}] ${problem}`)
    const parts: ReadonlyArray<Wire> = typeof m.content === "string" ? [] : m.content
    if (m.role === "tool") {
      for (const p of parts) {
        if (p.type === "tool-result" && !open.delete(p.toolCallId)) out.push(`[${i}] result of no open call`)
      }
      return
    }
    if (open.size > 0) out.push(`[${i}] calls ${[...open].join(",")} unanswered`)
    open = new Set(m.role === "assistant" ? parts.filter((p) => p.type === "tool-call").map((p) => p.toolCallId) : [])
    for (const id of open) {
      if (ids.has(id)) out.push(`[${i}] call id ${id} used before`)
      ids.add(id)
    }
  })
  if (open.size > 0) out.push("calls unanswered at the end")
  return out
}

const uiChecked = new Map<string, Promise<string | null>>()

/**
 * The AI SDK's `validateUIMessages` (each distinct message once), unique ids,
 * then its `convertToModelMessages` of the whole list by {@link aiSdkRules}.
 */
const uiRules = (messages: Array<UIMessage>): Effect.Effect<Array<string>> =>
  Effect.promise(async () => {
    const out: Array<string> = []
    for (const m of messages) {
      const problem = await once(uiChecked, JSON.stringify(m), () =>
        validateUIMessages({ messages: [m] }).then(() =>
          null, (error) => String(error).slice(0, 300)))
      if (problem !== null) {
        out.push(`${m.id}: validateUIMessages: ${problem}`)
      }
    }
    const ids = new Set(messages.map((m) =>
      m.id
    ))
    if (ids.size !== messages.length) out.push("duplicate ids")
    out.push(...aiSdkRules(json(await convertToModelMessages(messages))))
    return out
  })

interface Target {
  readonly name: string
  readonly provider: Validity.Provider
  /** The output's violations of the provider's structural rules. */
  readonly write: (context: ReadonlyArray<Message.Message>) => unknown
  readonly rules: (out: Wire) => Effect.Effect<Array<string>>
  /** The output read back, for `Validity.violations`. */
  readonly read: (out: Wire) => ReadonlyArray<Message.Message>
}

const sync = (f: (out: Wire) => Array<string>) => (out: Wire) => Effect.sync(() => f(out))

const TARGETS: ReadonlyArray<Target> = [
  {
    name: "toOpenAIChat",
    provider: "openai",
    write: (c) => Adapters.toOpenAIChat(c),
    rules: sync(openAIChatRules),
    read: Adapters.fromOpenAIChat
  },
  {
    name: "toOpenAIResponses",
    provider: "openai",
    write: (c) => Adapters.toOpenAIResponses(c),
    rules: sync(openAIResponsesRules),
    read: Adapters.fromOpenAIResponses
  },
  {
    name: "toAnthropic",
    provider: "anthropic",
    write: (c) => Adapters.toAnthropic(c),
    rules: sync(anthropicRules),
    read: Adapters.fromAnthropic
  },
  {
    name: "toGemini",
    provider: "gemini",
    write: (c) => Adapters.toGemini(c),
    rules: sync(geminiRules),
    read: Adapters.fromGemini
  },
  {
    name: "toAiSdk",
    provider: "openai",
    write: (c) => Adapters.toAiSdk(c),
    rules: sync(aiSdkRules),
    read: Adapters.fromAiSdk
  },
  {
    name: "toUIMessages",
    provider: "openai",
    write: (c) => Adapters.toUIMessages(c),
    rules: uiRules,
    read: Adapters.fromUIMessages
  }
]

/**
 * The two replays: `rollmem replay --boundary turn --max-tokens 1000
 * --target-tokens 600 [...]`. The second skips the long sessions (two system
 * messages in 4,524, so little to pin; its replay alone takes 4 s).
 */
const CONFIGS: ReadonlyArray<
  { readonly name: string; readonly options: Replay.Options; readonly skip?: ReadonlyArray<string> }
> = [
  {
    name: "summary as a system message",
    options: {
      strategy: "rolling",
      summarizer: "extractive",
      maxTokens: 1000,
      targetTokens: 600,
      boundary: "turn",
      given: ["max-tokens", "target-tokens", "boundary"]
    }
  },
  {
    name: "summary as a user message, system prompt pinned, tool results cleared",
    options: {
      strategy: "rolling",
      summarizer: "extractive",
      maxTokens: 1000,
      targetTokens: 600,
      boundary: "turn",
      pinSystem: true,
      summaryRole: "user",
      clearToolResults: 1,
      given: ["max-tokens", "target-tokens", "boundary", "pin-system", "summary-role", "clear-tool-results"]
    },
    skip: ["conversations-long.jsonl"]
  }
]

/** What the request points of one file gave. */
interface Tally {
  points: number
  /** Writes refused because the transcript itself breaks the target's rules before the point. */
  transcriptRefusals: Record<string, number>
  /** Request points whose context repeats a tool call id (the transcript reuses it), written with unique ids. */
  repeatedIds: number
  failures: Array<string>
}

const repeatsCallId = (context: ReadonlyArray<Message.Message>): boolean => {
  const ids = context.flatMap((m) => m.toolCalls.map((c) => c.id))
  return new Set(ids).size !== ids.length
}

/**
 * The output read back and checked with `Validity` at one request point in
 * this many (in turn, so every conversation's points are sampled evenly):
 * reading is a schema decode per item, ten times the cost of the rest. The
 * structural rules check every output.
 */
const READ_BACK_EVERY = 7

for (const file of FILES) {
  const present = hasData(file)
  const note = present ? "" : ` (skipped: ${dataPath(file)} not found; set ROLLMEM_DATA to the data folder)`
  describe(`${file}: every to… at every request point of a turn-mode replay passes its provider's rules${note}`, () => {
    for (const { name, options, skip } of CONFIGS) {
      if (skip?.includes(file) === true) continue
      it.effect.skipIf(!present)(name, () =>
        Effect.gen(function*() {
          const conversations = dataLines(file).map((line) => decodeLine(line))
          const config = yield* Replay.makeConfig(options)
          const tally: Tally = { points: 0, transcriptRefusals: {}, repeatedIds: 0, failures: [] }
          for (const conversation of conversations) {
            let index = 1
            const transcriptViolations = new Map(
              TARGETS.map((t) => [t.provider, Validity.violations(conversation.messages, { provider: t.provider })])
            )
            const checkPoint = (context: ReadonlyArray<Message.Message>) =>
              Effect.gen(function*() {
                const point = tally.points++
                // the request point's position in the transcript: the assistant message about to be added
                while (index < conversation.messages.length && conversation.messages[index].role !== "assistant") {
                  index++
                }
                const at = index
                index++
                if (repeatsCallId(context)) tally.repeatedIds++
                for (const target of TARGETS) {
                  const where = `${conversation.id} @${at} ${target.name}`
                  const written = Either.try(() => target.write(context))
                  if (Either.isLeft(written)) {
                    const before = (transcriptViolations.get(target.provider) ?? []).filter((v) => v.index < at)
                    if (written.left instanceof AdapterError && before.length > 0) {
                      tally.transcriptRefusals[target.name] = (tally.transcriptRefusals[target.name] ?? 0) + 1
                    } else tally.failures.push(`${where}: refused: ${String(written.left)}`)
                    continue
                  }
                  const out = json(written.right)
                  for (const problem of yield* target.rules(out)) tally.failures.push(`${where}: ${problem}`)
                  // reading back is the slow part (a schema decode per item): every READ_BACK_EVERY-th point
                  if (point % READ_BACK_EVERY === 0) {
                    const back = Either.try(() => target.read(out))
                    if (Either.isLeft(back)) tally.failures.push(`${where}: read back: ${String(back.left)}`)
                    else {
                      for (const v of Validity.violations(back.right, { provider: target.provider })) {
                        tally.failures.push(`${where}: read back: ${v.description}`)
                      }
                    }
                  }
                }
              })
            // the replay reads `messages` at each request point (and once at the end): check the context then
            let reads = 0
            const assistants = conversation.messages.filter((m, i) => i > 0 && m.role === "assistant").length
            const watched = (memory: Memory.Memory): Memory.Memory => ({
              ...memory,
              messages: Effect.tap(
                memory.messages,
                (context) => reads++ < assistants ? checkPoint(context) : Effect.void
              )
            })
            yield* Replay.replayConversation(
              conversation,
              config,
              Effect.void,
              (id, c, summarizer, use) => Replay.fresh(id, c, summarizer, (memory) => use(watched(memory)))
            )
          }
          assert.deepStrictEqual(tally.failures.slice(0, 20), [])
          assert.deepStrictEqual({
            points: tally.points,
            repeatedIds: tally.repeatedIds,
            transcriptRefusals: tally.transcriptRefusals
          }, {
            points: EXPECTED_POINTS[file],
            repeatedIds: REPEATED_IDS[`${file} ${name}`] ?? 0,
            transcriptRefusals: {}
          })
        }).pipe(Effect.provide(Tokenizers.layerO200kBase)), 120_000)
    }
  })
}

const EXPECTED_POINTS: Record<string, number> = {
  "conversations-chat.jsonl": 772,
  "conversations-agentic.jsonl": 2472,
  "conversations-tooltalk.jsonl": 496,
  "conversations-long.jsonl": 1720
}

/** Request points whose context repeats a call id, per file and replay (0 where not listed). */
const REPEATED_IDS: Record<string, number> = {
  "conversations-agentic.jsonl summary as a system message": 48,
  "conversations-agentic.jsonl summary as a user message, system prompt pinned, tool results cleared": 106
}

describe("the providers' rules this test applies catch what they name", () => {
  it("each checker refuses a wire shape its provider refuses", () => {
    assert.deepStrictEqual(
      openAIChatRules([{ role: "assistant", content: null }, { role: "tool", tool_call_id: "x", content: "" }]),
      [
        "[0] empty assistant",
        "[1] tool message answers no open call"
      ]
    )
    assert.deepStrictEqual(
      openAIResponsesRules([
        { type: "function_call", call_id: "a", name: "f", arguments: "{}" },
        { type: "function_call", call_id: "a", name: "f", arguments: "[]" }
      ]),
      ["[1] duplicate call id", "[1] arguments", "call a unanswered"]
    )
    assert.deepStrictEqual(
      anthropicRules({
        system: "s",
        messages: [
          { role: "user", content: [{ type: "text", text: "" }] },
          { role: "assistant", content: [{ type: "tool_use", id: "a:1", name: "f", input: {} }] },
          {
            role: "user",
            content: [{ type: "text", text: "hi" }, { type: "tool_result", tool_use_id: "a:1", content: "" }]
          },
          { role: "assistant", content: [{ type: "tool_use", id: "a:1", name: "f", input: {} }] }
        ]
      }),
      [
        "[0] empty text block",
        "[1] tool_use id a:1 has characters Anthropic refuses",
        "[2] tool_result after other content",
        "[3] tool_use id a:1 used before",
        "[3] tool_use id a:1 has characters Anthropic refuses",
        "tool_use a:1 unanswered at the end"
      ]
    )
    assert.deepStrictEqual(
      geminiRules({
        contents: [
          {
            role: "model",
            parts: [{ functionCall: { name: "f", args: {} } }, { functionCall: { name: "g", args: {} } }]
          },
          { role: "user", parts: [{ functionResponse: { name: "f", response: {} } }] },
          { role: "user", parts: [] }
        ]
      }),
      ["[0] is not a user turn", "[1] answers 1 of 2 calls", "[2] no parts"]
    )
    assert.deepStrictEqual(
      aiSdkRules([
        { role: "assistant", content: [{ type: "tool-call", toolCallId: "a", toolName: "f", input: {} }] },
        { role: "user", content: 3 }
      ]).map((p) => p.slice(0, 30)),
      ["[1] [\n  {\n    \"code\": \"invalid", "[1] calls a unanswered"]
    )
  })
})
