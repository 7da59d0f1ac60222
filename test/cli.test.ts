/**
 * `rollmem replay`, run in-process: the figures are checked against a
 * replay by hand through the library (same strategy, same tokenizer), on the
 * example transcript and on every conversation of the shared data folder
 * (`$ROLLMEM_DATA`, else `../shared/data`; skipped when absent), plus every
 * bad-input case, the input formats and the JSON output shape.
 */
import * as ValidationError from "@effect/cli/ValidationError"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Equal, Exit } from "effect"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import packageJson from "../package.json" with { type: "json" }
import { fromOpenAIChat } from "../src/adapters.js"
import { CliFailure } from "../src/cli/Command.js"
import * as Input from "../src/cli/Input.js"
import * as Progress from "../src/cli/Progress.js"
import type { Figures, Totals } from "../src/cli/Replay.js"
import * as UnknownOption from "../src/cli/UnknownOption.js"
import {
  BufferMemory,
  ExtractiveSummarizer,
  type Memory,
  Message,
  Retention,
  RollingMemory,
  Summarizer,
  SummaryMemory,
  TokenCounter,
  Validity,
  WindowMemory
} from "../src/index.js"
import * as Tokenizers from "../src/tokenizers.js"
import { example, failureOf, readJsonl, repoRoot, type Run, runCli } from "./support/cli.js"
import { DATA_FILES, dataPath, hasData as hasDataFile } from "./support/data.js"
import * as SpecModel from "./support/specModel.js"

const hasData = DATA_FILES.every(hasDataFile)

const run = (args: ReadonlyArray<string>, progress?: Progress.Service): Effect.Effect<Run> =>
  runCli(["replay", ...args], progress)

interface JsonReport {
  readonly conversations: ReadonlyArray<Figures>
  readonly totals: Totals
  readonly show?: { readonly id: string; readonly context: string; readonly messages: ReadonlyArray<unknown> }
}

const runJson = (args: ReadonlyArray<string>) =>
  Effect.map(run([...args, "--format", "json"]), (r) => {
    assert.isTrue(Exit.isSuccess(r.exit), r.stderr)
    assert.strictEqual(r.stderr, "")
    return JSON.parse(r.stdout) as JsonReport
  })

/**
 * The command line was refused by @effect/cli's parser: its message on stderr
 * (the parser ends it with a newline of its own), nothing on stdout, nothing
 * replayed.
 */
const assertParseFailure = (r: Run, message: string) => {
  assert.isTrue(Exit.isFailure(r.exit))
  assert.isTrue(ValidationError.isValidationError(failureOf(r)))
  // One line, as every other failure: no blank line after it.
  assert.strictEqual(r.stderr, message)
  assert.strictEqual(r.stdout, "")
}

/**
 * The entries of a help text: each option's or argument's heading
 * (`--format table | json`) with the line under it, which describes its type.
 */
const helpEntries = (help: string): Array<readonly [string, string]> => {
  const lines = help.replace(/\u001b\[[0-9;]*m/g, "").split("\n")
  const entries: Array<readonly [string, string]> = []
  for (let i = 0; i + 2 < lines.length; i++) {
    if (/^(<|--|\(-)/.test(lines[i]) && lines[i + 1] === "" && lines[i + 2].startsWith("  ")) {
      entries.push([lines[i], lines[i + 2].trim()])
    }
  }
  return entries
}

/** The command failed with one line on stderr, no stack trace and nothing on stdout. */
const assertOneLineFailure = (r: Run, line: string) => {
  assert.isTrue(Exit.isFailure(r.exit))
  assert.strictEqual(r.stderr, line)
  assert.strictEqual(r.stdout, "")
}

// ---------------------------------------------------------------------------
// A replay by hand through the library, independent of src/cli

interface HandOptions {
  readonly strategy: "rolling" | "buffer" | "window" | "summary"
  readonly maxTokens?: number
  readonly maxMessages?: number
  readonly summaryTokens?: number
  readonly summarizer?: "extractive" | "none"
}

/**
 * Replays by hand: evictions are the turns no longer in the buffer, prunes
 * the adds after which the buffer did not grow by one, calls are counted by
 * a wrapper of the summarizer, and the final buffer is recounted message by
 * message.
 */
const byHand = (
  conversation: { readonly id: string; readonly messages: ReadonlyArray<Message.Message> },
  options: HandOptions
) =>
  Effect.gen(function*() {
    const counter = yield* TokenCounter.TokenCounter
    const countText = (text: string) => text === "" ? Effect.succeed(0) : counter.count(text)
    let calls = 0
    let summarizerInputTokens = 0
    let summarizerOutputTokens = 0
    const inner = yield* ExtractiveSummarizer.make({ maxTokens: options.summaryTokens ?? 400 })
    const counting: Summarizer.Service = {
      summarize: (summary, messages, request) =>
        Effect.gen(function*() {
          calls++
          summarizerInputTokens += yield* countText(summary)
          for (const m of messages) summarizerInputTokens += yield* countText(m.tokenText)
          const result = yield* inner.summarize(summary, messages, request)
          summarizerOutputTokens += yield* countText(result)
          return result
        }).pipe(Effect.orDie)
    }
    // this model replays transcripts without provider usage only
    assert.isFalse(conversation.messages.some((m) => "usage" in m.metadata), "no usage in a transcript by hand")
    const withSummarizer = options.summarizer !== "none"
    const memory: Memory.Memory = yield* (options.strategy === "rolling"
      ? withSummarizer
        ? RollingMemory.make({ maxTokens: options.maxTokens ?? 2000 }).pipe(
          Effect.provideService(Summarizer.Summarizer, counting)
        )
        : RollingMemory.make({ maxTokens: options.maxTokens ?? 2000 }).pipe(Effect.provide(Summarizer.layerDrop))
      : options.strategy === "buffer"
      ? BufferMemory.make()
      : options.strategy === "window"
      ? WindowMemory.make({ maxMessages: options.maxMessages ?? 20 })
      : SummaryMemory.make().pipe(Effect.provideService(Summarizer.Summarizer, counting)))
    let prunes = 0
    let peak = 0
    // request points: before every assistant message but the first message
    const request = {
      requestPoints: 0,
      validRequestPoints: 0,
      eligibleRequestPoints: 0,
      validEligibleRequestPoints: 0,
      overBoundRequestPoints: 0,
      requestTokens: 0,
      maxRequestTokens: 0,
      reusedTokens: 0,
      cachedTokens: 0,
      openAICachedTokens: 0,
      anthropicCachedTokens: 0,
      ceilingRequestTokens: 0,
      ceilingReusedTokens: 0,
      cacheBreaks: 0,
      foldsFollowed: 0,
      foldsBreakingCache: 0,
      foldCacheWriteTokens: 0,
      firstSentTokens: 0
    }
    // every message an earlier request point sent (first-sent tokens: those not equal to one of them)
    const sentBefore: Array<Message.Message> = []
    let previous: ReadonlyArray<Message.Message> = []
    let previousTotal = 0
    let previousCeiling = 0
    let ceiling = 0
    let callsBefore = 0
    // the previous request's cache breakpoints: after the leading system messages (or before the summary),
    // after the summary, at its end, each with the tokens of the prefix it closes
    let breaks: ReadonlyArray<{ readonly messages: number; readonly tokens: number }> = []
    // retention at the last request point, recomputed from scratch (no tracker)
    let artifacts: Retention.Figure = { named: 0, kept: 0, byKind: {} }
    for (let i = 0; i < conversation.messages.length; i++) {
      const message = conversation.messages[i]
      if (i > 0 && message.role === "assistant") {
        const context = yield* memory.messages
        artifacts = retentionByHand(conversation.messages.slice(0, i), context)
        const tokens: Array<number> = []
        for (const m of context) tokens.push(yield* countText(m.tokenText))
        const total = tokens.reduce((x, y) => x + y, 0)
        let shared = 0
        while (shared < Math.min(previous.length, context.length) && Equal.equals(previous[shared], context[shared])) {
          shared++
        }
        const reused = tokens.slice(0, shared).reduce((x, y) => x + y, 0)
        for (let j = 0; j < context.length; j++) {
          if (sentBefore.some((m) => Equal.equals(m, context[j]))) continue
          sentBefore.push(context[j])
          request.firstSentTokens += tokens[j]
        }
        const first = request.requestPoints === 0
        const broke = !first && reused < previousTotal
        if (broke) request.cacheBreaks++
        const folds = calls - callsBefore
        callsBefore = calls
        if (!first && folds > 0) {
          request.foldsFollowed += folds
          if (broke) request.foldsBreakingCache += folds
          request.foldCacheWriteTokens += (total - reused) * folds
        }
        request.openAICachedTokens += reused < 1024 ? 0 : 1024 + 128 * Math.floor((reused - 1024) / 128)
        const served = Math.max(0, ...breaks.filter((b) => b.messages <= shared).map((b) => b.tokens))
        request.anthropicCachedTokens += served >= 1024 ? served : 0
        const summaryAt = (yield* memory.summary) === "" ? -1 : 0
        let leading = 0
        if (summaryAt < 0) {
          while (leading < context.length && ["system", "developer"].includes(context[leading].role)) leading++
        }
        breaks = [...new Set([leading, summaryAt + 1, context.length])].filter((n) => n > 0).sort((x, y) => x - y)
          .map((n) => ({ messages: n, tokens: tokens.slice(0, n).reduce((x, y) => x + y, 0) }))
        if (ceiling > 0) {
          request.ceilingRequestTokens += ceiling
          if (!first) request.ceilingReusedTokens += previousCeiling
          previousCeiling = ceiling
        }
        previousTotal = total
        previous = context
        const valid = Validity.violations(context).length === 0
        const buffer = yield* memory.buffer
        const eligible = Validity.violations(conversation.messages.slice(0, i)).length === 0 &&
          buffer.some((m) => m.role === "user" && m.toolCallId === undefined)
        if (options.strategy === "rolling") {
          const units = SpecModel.units(buffer)
          const newest = units.length === 0 ? 0 : (yield* Effect.forEach(
            buffer.slice(units[units.length - 1].start),
            (m) => countText(m.tokenText)
          )).reduce((x, y) => x + y, 0)
          const summaryBudget = withSummarizer ? options.summaryTokens ?? 400 : 0
          if (total > summaryBudget + Math.max(options.maxTokens ?? 2000, newest)) request.overBoundRequestPoints++
        }
        request.requestPoints++
        if (valid) request.validRequestPoints++
        if (eligible) request.eligibleRequestPoints++
        if (eligible && valid) request.validEligibleRequestPoints++
        request.requestTokens += total
        request.maxRequestTokens = Math.max(request.maxRequestTokens, total)
        request.reusedTokens += reused
        if (reused >= 1024) request.cachedTokens += reused
      }
      const before = (yield* memory.buffer).length
      ceiling += yield* countText(message.tokenText)
      yield* memory.add(message)
      if ((yield* memory.buffer).length < before + 1) prunes++
      peak = Math.max(peak, yield* memory.bufferTokens)
    }
    const buffer = yield* memory.buffer
    let recounted = 0
    for (const message of buffer) recounted += yield* counter.count(message.tokenText)
    assert.strictEqual(recounted, yield* memory.bufferTokens)
    const summary = yield* memory.summary
    const summaryTokens = summary === "" ? 0 : yield* counter.count(summary)
    const first = (yield* memory.messages).find((m) => m.role !== "system")
    const n = conversation.messages.length
    const figures: Figures = {
      id: conversation.id,
      messages: n,
      prunes,
      summarizerCalls: calls,
      evictedMessages: n - buffer.length,
      peakBufferTokens: peak,
      finalBufferTokens: recounted,
      summaryTokens,
      contextTokens: summaryTokens + recounted,
      opensOnUserTurn: first === undefined ? null : first.role === "user",
      ...request,
      summarizerInputTokens,
      summarizerOutputTokens,
      summarizerCallsPer1000Turns: n === 0 ? 0 : calls * 1000 / n,
      meanRequestTokens: request.requestPoints === 0 ? 0 : request.requestTokens / request.requestPoints,
      prefixReuse: request.requestTokens === 0 ? 0 : request.reusedTokens / request.requestTokens,
      cost: request.requestTokens - request.cachedTokens + 0.1 * request.cachedTokens + summarizerInputTokens +
        4 * summarizerOutputTokens,
      costOpenAI: request.requestTokens - request.openAICachedTokens + 0.1 * request.openAICachedTokens +
        summarizerInputTokens + 4 * summarizerOutputTokens,
      costAnthropic: request.requestTokens - request.anthropicCachedTokens + 0.1 * request.anthropicCachedTokens +
        summarizerInputTokens + 4 * summarizerOutputTokens,
      ceilingReuse: request.ceilingRequestTokens === 0 ? 0 : request.ceilingReusedTokens / request.ceilingRequestTokens,
      cacheWriteTokensPerFold: request.foldsFollowed === 0 ? 0 : request.foldCacheWriteTokens / request.foldsFollowed,
      reachableReuse: request.requestTokens === 0 ? 0 : 1 - request.firstSentTokens / request.requestTokens,
      resentTokens: request.requestTokens - request.reusedTokens - request.firstSentTokens,
      artifacts,
      retention: artifacts.named === 0 ? 1 : artifacts.kept / artifacts.named,
      // the transcripts replayed by hand carry no provider usage (asserted above); see "provider usage"
      usageSamples: 0,
      consolidations: 0,
      usageRatio: null
    }
    return { figures, context: yield* memory.context, summary, buffer }
  })

/** Retention from scratch: every artifact of the transcript so far, those the context names. */
const retentionByHand = (
  transcript: ReadonlyArray<Message.Message>,
  context: ReadonlyArray<Message.Message>
): Retention.Figure => {
  const named = new Map<string, string>()
  const textOf = (m: Message.Message) => [m.content, ...m.toolCalls.map((c) => c.signature)].join("\n")
  for (const m of transcript) for (const a of Retention.extract(textOf(m))) named.set(a.text, a.kind)
  const kept = new Set<string>()
  for (const m of context) for (const a of Retention.extract(textOf(m))) if (named.has(a.text)) kept.add(a.text)
  const byKind: Record<string, { named: number; kept: number }> = {}
  for (const kind of [...new Set(named.values())].sort()) byKind[kind] = { named: 0, kept: 0 }
  for (const [text, kind] of named) {
    byKind[kind].named++
    if (kept.has(text)) byKind[kind].kept++
  }
  return { named: named.size, kept: kept.size, byKind }
}

const checkAgainstHand = (
  report: JsonReport,
  conversations: ReadonlyArray<{ readonly id: string; readonly messages: ReadonlyArray<Message.Message> }>,
  options: HandOptions
) =>
  Effect.gen(function*() {
    assert.strictEqual(report.conversations.length, conversations.length)
    for (let i = 0; i < conversations.length; i++) {
      const { figures } = yield* byHand(conversations[i], options)
      assert.deepStrictEqual(report.conversations[i], figures)
    }
    const all = report.conversations
    const sum = (key: keyof Figures) => all.reduce((n, f) => n + (f[key] as number), 0)
    assert.deepStrictEqual(report.totals, {
      conversations: all.length,
      messages: sum("messages"),
      prunes: sum("prunes"),
      summarizerCalls: sum("summarizerCalls"),
      evictedMessages: sum("evictedMessages"),
      peakBufferTokens: Math.max(0, ...all.map((f) => f.peakBufferTokens)),
      finalBufferTokens: sum("finalBufferTokens"),
      summaryTokens: sum("summaryTokens"),
      contextTokens: sum("contextTokens"),
      opensOnUserTurn: all.filter((f) => f.opensOnUserTurn === true).length,
      requestPoints: sum("requestPoints"),
      validRequestPoints: sum("validRequestPoints"),
      eligibleRequestPoints: sum("eligibleRequestPoints"),
      validEligibleRequestPoints: sum("validEligibleRequestPoints"),
      overBoundRequestPoints: sum("overBoundRequestPoints"),
      requestTokens: sum("requestTokens"),
      maxRequestTokens: Math.max(0, ...all.map((f) => f.maxRequestTokens)),
      reusedTokens: sum("reusedTokens"),
      cachedTokens: sum("cachedTokens"),
      summarizerInputTokens: sum("summarizerInputTokens"),
      summarizerOutputTokens: sum("summarizerOutputTokens"),
      openAICachedTokens: sum("openAICachedTokens"),
      anthropicCachedTokens: sum("anthropicCachedTokens"),
      ceilingRequestTokens: sum("ceilingRequestTokens"),
      ceilingReusedTokens: sum("ceilingReusedTokens"),
      cacheBreaks: sum("cacheBreaks"),
      foldsFollowed: sum("foldsFollowed"),
      foldsBreakingCache: sum("foldsBreakingCache"),
      foldCacheWriteTokens: sum("foldCacheWriteTokens"),
      firstSentTokens: sum("firstSentTokens"),
      summarizerCallsPer1000Turns: sum("messages") === 0 ? 0 : sum("summarizerCalls") * 1000 / sum("messages"),
      meanRequestTokens: sum("requestPoints") === 0 ? 0 : sum("requestTokens") / sum("requestPoints"),
      prefixReuse: sum("requestTokens") === 0 ? 0 : sum("reusedTokens") / sum("requestTokens"),
      cost: sum("requestTokens") - sum("cachedTokens") + 0.1 * sum("cachedTokens") + sum("summarizerInputTokens") +
        4 * sum("summarizerOutputTokens"),
      costOpenAI: sum("requestTokens") - sum("openAICachedTokens") + 0.1 * sum("openAICachedTokens") +
        sum("summarizerInputTokens") + 4 * sum("summarizerOutputTokens"),
      costAnthropic: sum("requestTokens") - sum("anthropicCachedTokens") + 0.1 * sum("anthropicCachedTokens") +
        sum("summarizerInputTokens") + 4 * sum("summarizerOutputTokens"),
      ceilingReuse: sum("ceilingRequestTokens") === 0 ? 0 : sum("ceilingReusedTokens") / sum("ceilingRequestTokens"),
      cacheWriteTokensPerFold: sum("foldsFollowed") === 0 ? 0 : sum("foldCacheWriteTokens") / sum("foldsFollowed"),
      reachableReuse: sum("requestTokens") === 0 ? 0 : 1 - sum("firstSentTokens") / sum("requestTokens"),
      resentTokens: sum("requestTokens") - sum("reusedTokens") - sum("firstSentTokens"),
      artifacts: summedArtifacts(all.map((f) => f.artifacts)),
      retention: all.reduce((n, f) => n + f.artifacts.named, 0) === 0
        ? 1
        : all.reduce((n, f) => n + f.artifacts.kept, 0) / all.reduce((n, f) => n + f.artifacts.named, 0),
      usageSamples: 0,
      consolidations: 0,
      usageRatio: null
    })
  })

/** Every conversation's last-request retention taken together: named and kept summed, in all and per kind. */
const summedArtifacts = (figures: ReadonlyArray<Retention.Figure>): Retention.Figure => {
  const byKind: Record<string, { named: number; kept: number }> = {}
  for (const kind of [...new Set(figures.flatMap((f) => Object.keys(f.byKind)))].sort()) {
    byKind[kind] = { named: 0, kept: 0 }
    for (const f of figures) {
      byKind[kind].named += f.byKind[kind]?.named ?? 0
      byKind[kind].kept += f.byKind[kind]?.kept ?? 0
    }
  }
  return {
    named: figures.reduce((n, f) => n + f.named, 0),
    kept: figures.reduce((n, f) => n + f.kept, 0),
    byKind
  }
}

// ---------------------------------------------------------------------------
// Temporary input files

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rollmem-cli-"))
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }))
const write = (name: string, text: string): string => {
  const file = path.join(tmp, name)
  fs.writeFileSync(file, text)
  return file
}

const openAiExport = {
  model: "gpt-4o",
  messages: [
    { role: "system", content: "Be brief." },
    { role: "user", content: "Weather in Rome?", name: "dana" },
    {
      role: "assistant",
      content: null,
      refusal: null,
      tool_calls: [{
        id: "call_1",
        type: "function",
        function: { name: "get_weather", arguments: "{\"city\":\"Rome\"}" }
      }]
    },
    { role: "tool", tool_call_id: "call_1", content: "{\"temp\": 21}" },
    { role: "assistant", content: [{ type: "text", text: "It is 21°C in Rome." }] }
  ]
}
const openAiWire = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "Weather in Rome?" },
  {
    role: "assistant",
    content: "",
    tool_calls: [{ id: "call_1", name: "get_weather", arguments: "{\"city\":\"Rome\"}" }]
  },
  { role: "tool", content: "{\"temp\": 21}", tool_call_id: "call_1" },
  { role: "assistant", content: "It is 21°C in Rome." }
]

const withoutMetadata = (message: unknown): unknown => {
  const { metadata: _metadata, ...rest } = message as Record<string, unknown>
  return rest
}

const FIGURE_KEYS = [
  "id",
  "messages",
  "prunes",
  "summarizerCalls",
  "consolidations",
  "evictedMessages",
  "peakBufferTokens",
  "finalBufferTokens",
  "summaryTokens",
  "contextTokens",
  "opensOnUserTurn",
  "requestPoints",
  "validRequestPoints",
  "eligibleRequestPoints",
  "validEligibleRequestPoints",
  "overBoundRequestPoints",
  "requestTokens",
  "maxRequestTokens",
  "reusedTokens",
  "cachedTokens",
  "summarizerInputTokens",
  "summarizerOutputTokens",
  "openAICachedTokens",
  "anthropicCachedTokens",
  "ceilingRequestTokens",
  "ceilingReusedTokens",
  "cacheBreaks",
  "foldsFollowed",
  "foldsBreakingCache",
  "foldCacheWriteTokens",
  "firstSentTokens",
  "summarizerCallsPer1000Turns",
  "meanRequestTokens",
  "prefixReuse",
  "cost",
  "costOpenAI",
  "costAnthropic",
  "ceilingReuse",
  "cacheWriteTokensPerFold",
  "reachableReuse",
  "resentTokens",
  "artifacts",
  "retention",
  "usageSamples",
  "usageRatio"
]

const o200k = Tokenizers.layerByName("o200k_base")

// ---------------------------------------------------------------------------

describe("rollmem replay on the example transcript", () => {
  it.effect("reports the figures of a replay by hand (rolling, o200k_base, 2000 tokens, extractive 400)", () =>
    Effect.gen(function*() {
      const report = yield* runJson([example])
      const conversations = readJsonl(example)
      assert.isAtLeast(conversations[0].messages.length, 30)
      yield* checkAgainstHand(report, conversations, { strategy: "rolling" })
      assert.deepStrictEqual(report.conversations[0], {
        id: "support-chat",
        messages: 47,
        prunes: 3,
        summarizerCalls: 3,
        evictedMessages: 12,
        peakBufferTokens: 1959,
        finalBufferTokens: 1716,
        summaryTokens: 354,
        contextTokens: 2070,
        opensOnUserTurn: true,
        requestPoints: 24,
        validRequestPoints: 24,
        eligibleRequestPoints: 24,
        validEligibleRequestPoints: 24,
        overBoundRequestPoints: 0,
        requestTokens: 33739,
        maxRequestTokens: 2045,
        reusedTokens: 25789,
        cachedTokens: 22343,
        summarizerInputTokens: 1145,
        summarizerOutputTokens: 454,
        // OpenAI: each reused prefix from 1,024 in steps of 128; Anthropic: up to a breakpoint of the previous
        // request (here always its last message, as the summary is rewritten: the same as cachedTokens)
        openAICachedTokens: 21632,
        anthropicCachedTokens: 22343,
        // the transcript itself at each request point, and at the previous one
        ceilingRequestTokens: 38325,
        ceilingReusedTokens: 35589,
        // each of the 3 folds rewrote the summary: the next request breaks the cache and writes 5,513 in all
        cacheBreaks: 3,
        foldsFollowed: 3,
        foldsBreakingCache: 3,
        foldCacheWriteTokens: 5513,
        // the messages no earlier request point sent: the rest of the 7,950 uncached tokens were sent before
        firstSentTokens: 3190,
        summarizerCallsPer1000Turns: 3000 / 47,
        meanRequestTokens: 33739 / 24,
        prefixReuse: 25789 / 33739,
        // (33,739 - 22,343) x 1 + 22,343 x 0.1 + 1,145 + 454 x 4
        cost: 11396 + 22343 * 0.1 + 1145 + 1816,
        costOpenAI: 33739 - 21632 + 21632 * 0.1 + 1145 + 1816,
        costAnthropic: 11396 + 22343 * 0.1 + 1145 + 1816,
        ceilingReuse: 35589 / 38325,
        cacheWriteTokensPerFold: 5513 / 3,
        reachableReuse: 1 - 3190 / 33739,
        // 33,739 - 25,789 reused - 3,190 first sent: the turns each fold kept after the rewritten summary
        resentTokens: 4760,
        // at the last request point: 14 distinct artifacts named so far, 13 still in the context (the
        // summary lost one order code)
        artifacts: {
          named: 14,
          kept: 13,
          byKind: {
            code: { named: 4, kept: 3 },
            email: { named: 1, kept: 1 },
            id: { named: 8, kept: 8 },
            url: { named: 1, kept: 1 }
          }
        },
        retention: 13 / 14,
        usageSamples: 0,
        consolidations: 0,
        usageRatio: null
      })
    }).pipe(Effect.provide(Summarizer.layerDrop)).pipe(Effect.provide(o200k)))

  it.effect("--framing counts each message with its provider's overhead; Claude and Gemini model names", () =>
    Effect.gen(function*() {
      // A budget nothing exceeds: every message stays, so the difference is the framing alone.
      const budget = ["--max-tokens", "1000000"]
      const plain = yield* runJson([example, "--tokenizer", "gpt-4o", ...budget])
      const framed = yield* runJson([example, "--tokenizer", "gpt-4o", "--framing", ...budget])
      assert.strictEqual(plain.totals.evictedMessages, 0)
      assert.strictEqual(framed.totals.finalBufferTokens, plain.totals.finalBufferTokens + 4 * 47)
      assert.strictEqual(plain.totals.finalBufferTokens, 2_761) // gpt-tokenizer: the same
      const claude = yield* runJson([example, "--tokenizer", "claude-sonnet-4-5", ...budget])
      const claudeFramed = yield* runJson([example, "--tokenizer", "claude-sonnet-4-5", "--framing", ...budget])
      assert.strictEqual(claudeFramed.totals.finalBufferTokens, claude.totals.finalBufferTokens + 3 * 47)
      const gemini = yield* runJson([example, "--tokenizer", "gemini-2.5-pro", ...budget])
      assert.deepStrictEqual(
        [claude.totals.finalBufferTokens, gemini.totals.finalBufferTokens],
        [3_191, 2_984] // Claude: +15.6%, Gemini: +8.1% over o200k_base
      )
      const windowed = yield* run([example, "--context-window", "4000", "--reserve", "1000"])
      assert.strictEqual(
        windowed.stdout.split("\n")[0],
        "rollmem replay: 1 conversation, strategy rolling (context-window 4000, reserve 1000: 3000 for the context), " +
          "summarizer extractive (summary-tokens 400), tokenizer o200k_base"
      )
      const r = yield* run([example, "--tokenizer", "gpt-5", "--framing", "--max-tokens", "500"])
      assert.isTrue(Exit.isSuccess(r.exit), r.stderr)
      assert.strictEqual(
        r.stdout.split("\n")[0],
        "rollmem replay: 1 conversation, strategy rolling (max-tokens 500), summarizer extractive (summary-tokens 400), " +
          "tokenizer gpt-5 with message framing"
      )
    }))

  it.effect("prints a table and, with --show, the final context as memory.context gives it", () =>
    Effect.gen(function*() {
      const r = yield* run([example, "--show", "support-chat"])
      assert.isTrue(Exit.isSuccess(r.exit))
      assert.strictEqual(r.stderr, "")
      const { buffer, summary } = yield* byHand(readJsonl(example)[0], { strategy: "rolling" })
      const lines = r.stdout.split("\n")
      assert.strictEqual(
        lines[0],
        "rollmem replay: 1 conversation, strategy rolling (max-tokens 2000), summarizer extractive (summary-tokens 400), tokenizer o200k_base"
      )
      assert.match(
        lines[2],
        /^conversation +messages +prunes +calls +evicted +peak +summary +context +valid +calls\/1k +sum-in +sum-out +mean-sent +max-sent +reuse +cost +retained$/
      )
      assert.match(
        lines[4],
        /^support-chat +47 +3 +3 +12 +1959 +354 +2070 +24\/24 +63\.8 +1145 +454 +1406 +2045 +76\.4% +16591 +92\.9%$/
      )
      assert.match(
        lines[6],
        /^total \(1 conversation\) +47 +3 +3 +12 +max 1959 +354 +2070 +24\/24 +63\.8 +1145 +454 +1406 +max 2045 +76\.4% +16591 +92\.9%$/
      )
      const header = "Final context of support-chat: 36 messages, 2070 tokens (summary 354 + buffer 1716)"
      const at = lines.indexOf(header)
      assert.isAbove(at, 6)
      // the context (2070) is over --max-tokens 2000: the line under the header says why
      assert.strictEqual(
        lines[at + 1],
        "--max-tokens 2000 bounds the buffer only; the summary is counted apart (at most --summary-tokens 400), " +
          "so the context can exceed 2000."
      )
      assert.strictEqual(lines[at + 2], "=".repeat(header.length))
      // the summary set apart from the 35 verbatim turns; its first gist is the system prompt's, indented
      assert.strictEqual(lines[at + 4], "Summary (sent first, as one system message; 354 tokens):")
      assert.strictEqual(
        lines[at + 5],
        "  system: You are the customer support assistant for Trailhead Outfitters, an online outdoor-gear store. " +
          "[$150, DAMAGED, MISSING, LATE, OTHER]"
      )
      assert.strictEqual(
        lines.slice(at + 3).join("\n"),
        [
          "",
          "Summary (sent first, as one system message; 354 tokens):",
          ...summary.split("\n").map((line) => `  ${line}`),
          "",
          "Buffer (the recent turns, verbatim: 35 messages, 1716 tokens):",
          ...buffer.map(String)
        ].join("\n")
      )
      assert.isFalse(r.stdout.includes("system: system:"))
    }).pipe(Effect.provide(o200k)))

  it.effect("--format json prints one document with exactly the documented keys", () =>
    Effect.gen(function*() {
      const report = yield* runJson([example, "--tokenizer", "words"])
      assert.deepStrictEqual(Object.keys(report), ["conversations", "totals"])
      assert.deepStrictEqual(Object.keys(report.conversations[0]), FIGURE_KEYS)
      assert.deepStrictEqual(Object.keys(report.totals), ["conversations", ...FIGURE_KEYS.slice(1)])
      const shown = yield* runJson([example, "--tokenizer", "words", "--show", "support-chat"])
      assert.deepStrictEqual(Object.keys(shown), ["conversations", "totals", "show"])
      assert.deepStrictEqual(Object.keys(shown.show!), ["id", "context", "messages"])
      const { context } = yield* byHand(readJsonl(example)[0], { strategy: "rolling" })
      assert.strictEqual(shown.show!.context, context)
    }).pipe(Effect.provide(Summarizer.layerDrop)).pipe(Effect.provide(TokenCounter.layerWordCount)))

  it.effect("every strategy gives the figures of a replay by hand", () =>
    Effect.gen(function*() {
      const conversations = readJsonl(example)
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, HandOptions]> = [
        [["--strategy", "buffer"], { strategy: "buffer" }],
        [["--strategy", "window", "--max-messages", "8"], { strategy: "window", maxMessages: 8 }],
        [["--strategy", "summary", "--summary-tokens", "120"], { strategy: "summary", summaryTokens: 120 }],
        [["--max-tokens", "300", "--summarizer", "none"], { strategy: "rolling", maxTokens: 300, summarizer: "none" }],
        [["--max-tokens", "300", "--summary-tokens", "50"], { strategy: "rolling", maxTokens: 300, summaryTokens: 50 }]
      ]
      for (const [args, options] of cases) {
        const report = yield* runJson([example, "--tokenizer", "words", ...args])
        yield* checkAgainstHand(report, conversations, options)
      }
      const summary = yield* runJson([example, "--tokenizer", "words", "--strategy", "summary"])
      assert.strictEqual(summary.totals.summarizerCalls, 47)
      assert.strictEqual(summary.totals.prunes, 47)
      assert.strictEqual(summary.totals.evictedMessages, 47)
      assert.strictEqual(summary.totals.finalBufferTokens, 0)
      const buffer = yield* runJson([example, "--tokenizer", "words", "--strategy", "buffer"])
      assert.strictEqual(buffer.totals.evictedMessages, 0)
      assert.strictEqual(buffer.totals.peakBufferTokens, buffer.totals.finalBufferTokens)
    }).pipe(Effect.provide(Summarizer.layerDrop)).pipe(Effect.provide(TokenCounter.layerWordCount)))
})

describe("rollmem replay on the real transcripts", () => {
  it.effect.skipIf(!hasData)(
    "agentic: 202 conversations, rolling, o200k_base, 2000 tokens",
    () =>
      Effect.gen(function*() {
        const file = dataPath("conversations-agentic.jsonl")
        const report = yield* runJson([file, "--tokenizer", "o200k_base", "--max-tokens", "2000"])
        assert.strictEqual(report.totals.conversations, 202)
        assert.strictEqual(report.totals.messages, 5348)
        yield* checkAgainstHand(report, readJsonl(file), { strategy: "rolling", maxTokens: 2000 })
      }).pipe(Effect.provide(Summarizer.layerDrop)).pipe(Effect.provide(o200k))
  )

  it.effect.skipIf(!hasData)("chat: window of 6 messages, words", () =>
    Effect.gen(function*() {
      const file = dataPath("conversations-chat.jsonl")
      const report = yield* runJson([file, "--tokenizer", "words", "--strategy", "window", "--max-messages", "6"])
      assert.strictEqual(report.totals.conversations, 211)
      assert.strictEqual(report.totals.messages, 1544)
      yield* checkAgainstHand(report, readJsonl(file), { strategy: "window", maxMessages: 6 })
    }).pipe(Effect.provide(Summarizer.layerDrop)).pipe(Effect.provide(TokenCounter.layerWordCount)))

  it.effect.skipIf(!hasData)(
    "tooltalk: summary strategy and rolling without summarizer, cl100k_base",
    () =>
      Effect.gen(function*() {
        const file = dataPath("conversations-tooltalk.jsonl")
        const conversations = readJsonl(file)
        const summary = yield* runJson([file, "--tokenizer", "cl100k_base", "--strategy", "summary"])
        assert.strictEqual(summary.totals.messages, 1035)
        yield* checkAgainstHand(summary, conversations, { strategy: "summary" })
        const rolling = yield* runJson([file, "--tokenizer", "gpt-4", "--max-tokens", "300", "--summarizer", "none"])
        yield* checkAgainstHand(rolling, conversations, { strategy: "rolling", maxTokens: 300, summarizer: "none" })
      }).pipe(Effect.provide(Summarizer.layerDrop)).pipe(Effect.provide(Tokenizers.layerByName("cl100k_base")))
  )
})

describe("rollmem replay input formats", () => {
  it.effect("reads an OpenAI chat export: null content, nested tool calls, content parts, other keys of the export", () =>
    Effect.gen(function*() {
      const file = write("export.json", JSON.stringify(openAiExport, null, 2))
      const report = yield* runJson([file, "--strategy", "buffer", "--tokenizer", "words", "--show", "export.json"])
      assert.strictEqual(report.conversations[0].id, "export.json")
      // Read by the OpenAI adapter: what a message has no field for (a participant's name, a refusal) is kept.
      assert.deepStrictEqual(report.show!.messages, fromOpenAIChat(openAiExport.messages).map((m) => m.toJSON()))
      assert.deepStrictEqual(report.show!.messages.map(withoutMetadata), openAiWire)
    }).pipe(Effect.provide(Summarizer.layerDrop)))

  it.effect("reads a bare array of messages, and a pretty-printed object in a file of any name", () =>
    Effect.gen(function*() {
      const array = write("array.json", JSON.stringify(openAiExport.messages))
      const pretty = write("chat.txt", JSON.stringify({ messages: openAiExport.messages }, null, 2))
      const report = yield* runJson([
        array,
        pretty,
        "--strategy",
        "buffer",
        "--tokenizer",
        "words",
        "--show",
        "chat.txt"
      ])
      assert.deepStrictEqual(report.conversations.map((c) => c.id), ["array.json", "chat.txt"])
      assert.deepStrictEqual(report.show!.messages.map(withoutMetadata), openAiWire)
    }))

  it("names a JSON Lines conversation without an id after its file and line, and skips blank lines", () => {
    const inputs = Input.parseText(
      "dir/a.jsonl",
      "a.jsonl",
      "\n{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}\r\n\n" +
        "{\"id\": \"x\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}\n{\"messages\": []}\n"
    )
    assert.deepStrictEqual(inputs.conversations.map((c) => c.id), ["dir/a.jsonl:2", "x"])
    assert.deepStrictEqual(inputs.problems, [])
    assert.deepStrictEqual(inputs.warnings, [
      "dir/a.jsonl:5: conversation \"dir/a.jsonl:5\" has no message; skipped"
    ])
  })

  it("reports each malformed line with its file and line number", () => {
    const inputs = Input.parseText(
      "t.jsonl",
      "t.jsonl",
      [
        "{\"id\": \"ok\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
        "{\"id\": \"broken\", \"messages\": [",
        "{\"id\": \"norole\", \"messages\": [{\"content\": \"hi\"}]}",
        "{\"id\": \"badcall\", \"messages\": [{\"role\": \"assistant\", \"content\": \"\", \"tool_calls\": [{\"name\": \"f\"}]}]}",
        "[1, 2]",
        "{\"id\": \"ok2\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}"
      ].join("\n")
    )
    assert.deepStrictEqual(inputs.conversations.map((c) => c.id), ["ok", "ok2"])
    assert.strictEqual(inputs.problems.length, 4)
    assert.match(inputs.problems[0], /^t\.jsonl:2: /)
    assert.strictEqual(inputs.problems[1], "t.jsonl:3: wire format: messages[0].role: is missing")
    assert.strictEqual(inputs.problems[2], "t.jsonl:4: wire format: messages[0].tool_calls[0].id: is missing")
    assert.strictEqual(
      inputs.problems[3],
      "t.jsonl:5: expected a conversation object ({\"id\", \"messages\"}), got [1,2]"
    )
  })

  it("reports a malformed JSON document once, with the file name", () => {
    assert.deepStrictEqual(Input.parseText("x.json", "x.json", "{\"messages\": 3}").problems, [
      "x.json: wire format: messages: Expected ReadonlyArray<Message>, actual 3"
    ])
    assert.deepStrictEqual(Input.parseText("y.json", "y.json", "\"text\"").problems, [
      "y.json: expected an array of messages or a conversation object"
    ])
  })
})

describe("rollmem replay bad input", () => {
  it.effect("a missing file or a directory: one line, non-zero exit, the other files still read", () =>
    Effect.gen(function*() {
      const missing = path.join(tmp, "nope.jsonl")
      assertOneLineFailure(yield* run([missing]), `rollmem: ${missing}: no such file`)
      const both = yield* run([missing, example, "--tokenizer", "words", "--format", "json"])
      assert.isTrue(Exit.isFailure(both.exit))
      assert.strictEqual(
        both.stderr,
        `rollmem: ${missing}: no such file\nrollmem: skipped 1 input that could not be read (see above)`
      )
      assert.strictEqual((JSON.parse(both.stdout) as JsonReport).conversations[0].id, "support-chat")
      assertOneLineFailure(yield* run([tmp]), `rollmem: ${tmp}: is a directory`)
    }))

  it.effect("a malformed line: reported with file and line, skipped, exit code 1 at the end", () =>
    Effect.gen(function*() {
      const good = fs.readFileSync(example, "utf8").trim()
      const file = write(
        "mixed.jsonl",
        `${good}\n{"id": "x", "messages": [\n${good.replace("support-chat", "again")}\n`
      )
      const r = yield* run([file, "--tokenizer", "words", "--format", "json"])
      assert.isTrue(Exit.isFailure(r.exit))
      const stderr = r.stderr.split("\n")
      assert.strictEqual(stderr.length, 2)
      assert.match(stderr[0], new RegExp(`^rollmem: ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:2: `))
      assert.strictEqual(stderr[1], "rollmem: skipped 1 input that could not be read (see above)")
      assert.deepStrictEqual((JSON.parse(r.stdout) as JsonReport).conversations.map((c) => c.id), [
        "support-chat",
        "again"
      ])
    }))

  it.effect("bad options: one named line each, nothing on stdout", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [
          ["--tokenizer", "gpt-2"],
          "rollmem: invalid option --tokenizer: unknown tokenizer \"gpt-2\": expected \"words\", \"o200k_base\", " +
          `"cl100k_base" or a model name (${Tokenizers.models.join(", ")})`
        ],
        [
          ["--tokenizer", "o200k_base", "--framing"],
          "rollmem: invalid option --framing: framing needs a model name (whose framing?), got \"o200k_base\""
        ],
        [["--max-tokens", "0"], "rollmem: invalid option --max-tokens: must be a positive integer, got 0"],
        [["--max-tokens", "-5"], "rollmem: invalid option --max-tokens: must be a positive integer, got -5"],
        [["--summary-tokens", "0"], "rollmem: invalid option --max-summary-tokens: must be a positive integer, got 0"],
        [
          ["--strategy", "summary", "--summarizer", "none"],
          "rollmem: invalid option --summarizer: the summary strategy folds every turn into the summary, it needs a summarizer (extractive)"
        ],
        [["--show", "nobody"], "rollmem: invalid option --show: no conversation with id \"nobody\" was read"]
      ]
      for (const [args, line] of cases) {
        const tokenizer = args.includes("--tokenizer") ? [] : ["--tokenizer", "words"]
        const r = yield* run([example, ...tokenizer, ...args])
        assertOneLineFailure(r, line)
        assert.instanceOf(failureOf(r), CliFailure)
      }
    }))

  it.effect("a value that is not one of the choices, or not an integer, is refused naming its option", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [["--strategy", "lru"], "rollmem: --strategy: 'lru' is not one of rolling, buffer, window, summary"],
        [["--summarizer", "gpt"], "rollmem: --summarizer: 'gpt' is not one of extractive, none"],
        [["--format=xml"], "rollmem: --format: 'xml' is not one of table, json"],
        [["--max-tokens", "abc"], "rollmem: --max-tokens: 'abc' is not an integer"],
        [["--max-messages", "1.5"], "rollmem: --max-messages: '1.5' is not an integer"],
        [["--summary-tokens", "ten"], "rollmem: --max-summary-tokens: 'ten' is not an integer"],
        [["--max-tokens", "10", "--target-tokens", "x"], "rollmem: --target-tokens: 'x' is not an integer"]
      ]
      for (const [args, message] of cases) {
        assertParseFailure(yield* run([example, "--tokenizer", "words", ...args]), message)
      }
    }))

  it.effect("a budget is checked whatever the strategy", () =>
    Effect.gen(function*() {
      assertOneLineFailure(
        yield* run([example, "--tokenizer", "words", "--strategy", "buffer", "--max-messages", "0"]),
        "rollmem: invalid option --max-messages: must be a positive integer, got 0"
      )
    }))

  it("the executable exits with code 1 and one line, without a stack trace", async () => {
    const result = await executable(["replay", path.join(tmp, "absent.jsonl"), "--tokenizer", "words"], repoRoot)
    assert.deepStrictEqual(result, {
      code: 1,
      stdout: "",
      stderr: `rollmem: ${path.join(tmp, "absent.jsonl")}: no such file\n`
    })
  })
})

/** Runs `rollmem <args>` as a child process in `cwd`, from the sources. */
const executable = (args: ReadonlyArray<string>, cwd: string) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href
    execFile(
      process.execPath,
      ["--import", tsx, path.join(repoRoot, "src", "bin.ts"), ...args],
      { cwd },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : (error.code as number), stdout, stderr })
    )
  })

describe("rollmem replay: an option it does not know", () => {
  it.effect("is refused before anything is read, named with the closest known option, wherever it stands", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [[example, "--max-token", "500"], "rollmem: unknown option --max-token; did you mean --max-tokens?"],
        [["--max-token", "500", example], "rollmem: unknown option --max-token; did you mean --max-tokens?"],
        [[example, "--max-token=500"], "rollmem: unknown option --max-token; did you mean --max-tokens?"],
        [
          [example, "--tokenizer", "words", "--stratgy", "window"],
          "rollmem: unknown option --stratgy; did you mean --strategy?"
        ],
        [[example, "--Summary-Token", "9"], "rollmem: unknown option --Summary-Token; did you mean --summary-tokens?"],
        [[example, "--hepl"], "rollmem: unknown option --hepl; did you mean --help?"],
        [[example, "--verbose"], "rollmem: unknown option --verbose; see rollmem replay --help"],
        [[example, "-x"], "rollmem: unknown option -x; see rollmem replay --help"],
        [
          [example, "--strategy", "buffer", "--strategy", "window"],
          "rollmem: option --strategy given twice, without its value, or out of place"
        ],
        [
          [example, "--summary-tokens", "100", "--summary-tokens", "200"],
          "rollmem: option --summary-tokens given twice, without its value, or out of place"
        ],
        // an option under both its names: said so, whichever comes first
        [
          [example, "--summary-tokens", "100", "--max-summary-tokens", "200"],
          "rollmem: --summary-tokens is another name of --max-summary-tokens: give one"
        ],
        [
          [example, "--max-summary-tokens=200", "--summary-tokens", "100"],
          "rollmem: --summary-tokens is another name of --max-summary-tokens: give one"
        ]
      ]
      for (const [args, line] of cases) {
        const r = yield* run(args)
        assertParseFailure(r, line)
      }
    }))

  it.effect("a command line @effect/cli refuses in its own words is one line `rollmem: ...` too", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [["frobnicate"], "rollmem: Invalid subcommand for rollmem - use one of 'replay', 'show', 'recall'"],
        [["--max-tokens", "5"], "rollmem: Invalid subcommand for rollmem - use one of 'replay', 'show', 'recall'"],
        [["replay"], "rollmem: Missing argument <files>"],
        [["replay", "--strategy"], "rollmem: Expected a value following option: '--strategy'"],
        [["show"], "rollmem: Missing argument <id>"]
      ]
      for (const [args, line] of cases) assertParseFailure(yield* runCli(args), line)
    }))

  it.effect("an integer is decimal digits within the safe range (past it: out of range), and --compare needs a value", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [["--max-tokens", "0x10"], "rollmem: --max-tokens: '0x10' is not an integer"],
        [["--max-tokens=1e3"], "rollmem: --max-tokens: '1e3' is not an integer"],
        [["--max-tokens", " 7"], "rollmem: --max-tokens: ' 7' is not an integer"],
        [["--summary-tokens", "1.0"], "rollmem: --summary-tokens: '1.0' is not an integer"],
        [
          ["--max-tokens", "9007199254740993"],
          "rollmem: --max-tokens: '9007199254740993' is out of range: the largest accepted value is 9007199254740991"
        ],
        [
          ["--max-tokens", "99999999999999999999"],
          "rollmem: --max-tokens: '99999999999999999999' is out of range: the largest accepted value is 9007199254740991"
        ],
        [
          ["--max-tokens", "1e30"],
          "rollmem: --max-tokens: '1e30' is out of range: the largest accepted value is 9007199254740991"
        ],
        [
          ["--reserve=1e400"],
          "rollmem: --reserve: '1e400' is out of range: the largest accepted value is 9007199254740991"
        ],
        [
          ["--max-tokens", "-99999999999999999999"],
          "rollmem: --max-tokens: '-99999999999999999999' is out of range: no option takes a negative value"
        ],
        [["--compare"], "rollmem: Expected a value following option: '--compare'"],
        [["--compare", "--max-tokens", "500"], "rollmem: Expected a value following option: '--compare'"]
      ]
      for (const [args, line] of cases) {
        assertParseFailure(yield* runCli(["replay", example, "--tokenizer", "words", ...args]), line)
      }
      // in a set, as on the command line
      assertOneLineFailure(
        yield* runCli(["replay", example, "--tokenizer", "words", "--compare", "max-tokens=99999999999999999999"]),
        "rollmem: invalid option --compare: \"max-tokens=99999999999999999999\": max-tokens \"99999999999999999999\" " +
          "is out of range: the largest accepted value is 9007199254740991"
      )
    }))

  it("exits with code 1, like every other error, and prints nothing on stdout", async () => {
    const result = await executable(["replay", example, "--max-token", "500"], repoRoot)
    assert.deepStrictEqual(result, {
      code: 1,
      stdout: "",
      stderr: "rollmem: unknown option --max-token; did you mean --max-tokens?\n"
    })
  })

  it("a file named like an option is read when it exists, and always as ./-name", async () => {
    const dir = fs.mkdtempSync(path.join(tmp, "dash-"))
    fs.copyFileSync(example, path.join(dir, "--chat.jsonl"))
    const result = await executable(
      ["replay", "--tokenizer", "words", "--format", "json", "--chat.jsonl", "./--chat.jsonl"],
      dir
    )
    assert.strictEqual(result.code, 0, result.stderr)
    const report = JSON.parse(result.stdout) as JsonReport
    assert.deepStrictEqual(report.conversations.map((c) => c.id), ["support-chat", "support-chat"])
  })

  it.effect("./-name is a file even when there is none: a missing file, not an unknown option", () =>
    Effect.gen(function*() {
      const r = yield* run(["./--max-token", "--tokenizer", "words"])
      assertOneLineFailure(r, "rollmem: ./--max-token: no such file")
      assert.instanceOf(failureOf(r), CliFailure)
    }))

  it("suggests only an option within an edit distance of 2, the first one on a tie, never a short one", () => {
    const known = ["--strategy", "--max-tokens", "--max-messages", "-h", "--help"]
    assert.strictEqual(UnknownOption.closest("--max-token", known), "--max-tokens")
    assert.strictEqual(UnknownOption.closest("--max-tok", known), undefined)
    assert.strictEqual(UnknownOption.closest("--max-", known), undefined)
    assert.strictEqual(UnknownOption.closest("-x", known), undefined)
    assert.strictEqual(UnknownOption.closest("--MAX-TOKEN", known), "--max-tokens")
    assert.strictEqual(UnknownOption.closest("--a", ["--ab", "--ac"]), undefined)
    assert.strictEqual(UnknownOption.closest("--abcd", ["--abce", "--abcf"]), "--abce")
    assert.isFalse(UnknownOption.isOptionLike("-"))
    assert.strictEqual(UnknownOption.nameOf("--max-token=5"), "--max-token")
    assert.strictEqual(UnknownOption.nameOf("--=5"), "--=5")
  })
})

describe("rollmem replay: provider usage in the transcript", () => {
  // Word counts: "alpha beta gamma delta" is 4 words, the context at the second request point 8.
  const turns = (usage: (inputTokens: number) => Record<string, unknown>) => [
    { role: "user", content: "alpha beta gamma delta" },
    { role: "assistant", content: "ok then", ...usage(8) },
    { role: "user", content: "epsilon zeta" },
    { role: "assistant", content: "done", ...usage(8) }
  ]
  const words = ["--tokenizer", "words", "--strategy", "buffer"]

  it.effect("each answer's usage is recorded before it is added; the ratio per conversation and its mean", () =>
    Effect.gen(function*() {
      const file = write(
        "usage.jsonl",
        [
          // rollmem's own: metadata.usage
          { id: "own", messages: turns((n) => ({ metadata: { usage: { inputTokens: n } } })) },
          // OpenAI chat: usage.prompt_tokens on the assistant message
          { id: "openai", messages: turns((n) => ({ usage: { prompt_tokens: n / 2, completion_tokens: 3 } })) },
          { id: "none", messages: [{ role: "user", content: "one two" }, { role: "assistant", content: "three" }] }
        ].map((c) => JSON.stringify(c)).join("\n")
      )
      const report = yield* runJson([file, ...words])
      const figures = report.conversations.map((f) => [f.id, f.usageSamples, f.usageRatio])
      // own: 8/4 = 2 (the bound), then 8/8 = 1: halfway, 1.5. openai: 4/4 = 1, then 4/8 = 0.5: 0.75.
      assert.deepStrictEqual(figures, [["own", 2, 1.5], ["openai", 2, 0.75], ["none", 0, null]])
      assert.strictEqual(report.totals.usageSamples, 4)
      assert.strictEqual(report.totals.usageRatio, (1.5 + 0.75) / 2)
      const table = yield* run([file, ...words])
      const lines = table.stdout.split("\n")
      assert.match(lines.find((l) => l.startsWith("own"))!, / 1\.500 \(2\)$/)
      assert.match(lines.find((l) => l.startsWith("none"))!, / -$/)
      assert.match(lines.find((l) => l.startsWith("total"))!, / 1\.125 \(4\)$/)
      assert.include(table.stdout, "usage: the memory's usage ratio at the end")
    }))

  it.effect("Anthropic's usage counts the cached input; Gemini's usageMetadata", () =>
    Effect.gen(function*() {
      const file = write(
        "usage-providers.jsonl",
        [
          {
            id: "anthropic",
            system: "be brief",
            messages: [
              { role: "user", content: "alpha beta gamma delta" },
              {
                role: "assistant",
                content: [{ type: "text", text: "ok" }],
                usage: { input_tokens: 2, cache_read_input_tokens: 3, cache_creation_input_tokens: 1, output_tokens: 1 }
              }
            ]
          },
          {
            id: "gemini",
            contents: [
              { role: "user", parts: [{ text: "alpha beta gamma delta" }] },
              { role: "model", parts: [{ text: "ok" }], usageMetadata: { promptTokenCount: 6 } }
            ]
          }
        ].map((c) => JSON.stringify(c)).join("\n")
      )
      const report = yield* runJson([file, ...words])
      // Anthropic: 2 + 3 + 1 = 6 over "be brief" + 4 words = 6: 1. Gemini: 6 over 4: 1.5.
      assert.deepStrictEqual(report.conversations.map((f) => [f.id, f.usageSamples, f.usageRatio]), [
        ["anthropic", 1, 1],
        ["gemini", 1, 1.5]
      ])
    }))

  it.effect("a transcript without usage shows no usage column", () =>
    Effect.gen(function*() {
      const r = yield* run([example, ...words])
      assert.notInclude(r.stdout, "usage")
    }))
})

describe("rollmem replay --provider", () => {
  // request points at 2 ([user, user]) and 5 ([user, user, assistant, user, system])
  const file = () =>
    write(
      "provider.jsonl",
      JSON.stringify({
        id: "p",
        messages: [
          { role: "user", content: "summary of before" },
          { role: "user", content: "hi" },
          { role: "assistant", content: "hello" },
          { role: "user", content: "and?" },
          { role: "system", content: "late rule" },
          { role: "assistant", content: "ok" }
        ]
      }) + "\n"
    )
  const valid = (args: ReadonlyArray<string>) =>
    Effect.map(runJson([file(), "--max-tokens", "1000", ...args]), (r) => [
      r.totals.validRequestPoints,
      r.totals.requestPoints
    ])

  it.effect("checks every request point by the target's rules, the same as Validity", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* valid([]), [2, 2])
      assert.deepStrictEqual(yield* valid(["--provider", "openai"]), [2, 2])
      assert.deepStrictEqual(yield* valid(["--provider", "anthropic"]), [1, 2])
      assert.deepStrictEqual(yield* valid(["--provider", "gemini"]), [1, 2])
      assert.deepStrictEqual(yield* valid(["--provider", "strict-template"]), [0, 2])
    }))

  it.effect("names the target in the table's title and refuses an unknown one", () =>
    Effect.gen(function*() {
      const r = yield* run([file(), "--provider", "anthropic"])
      assert.isTrue(Exit.isSuccess(r.exit), r.stderr)
      assert.include(r.stdout, ", checked for anthropic")
      const wrong = yield* run([file(), "--provider", "mistral"])
      assert.isTrue(Exit.isFailure(wrong.exit))
      assert.include(wrong.stderr, "strict-template")
    }))
})

describe("rollmem replay --help", () => {
  it.effect("the command-line guide's usage block names every option the help lists", () =>
    Effect.gen(function*() {
      const r = yield* run(["--help"])
      assert.isTrue(Exit.isSuccess(r.exit))
      const listed = helpEntries(r.stdout).flatMap(([heading]) => heading.match(/--[a-z-]+/g) ?? [])
        .filter((flag) => flag !== "--summary-tokens") // the older name of --max-summary-tokens (the guide says so)
      assert.strictEqual(listed.length, 31)
      const guide = fs.readFileSync(path.join(repoRoot, "docs/guides/command-line.md"), "utf8")
      const usage = guide.slice(
        guide.indexOf("```sh\nnpx rollmem replay"),
        guide.indexOf("\n```\n", guide.indexOf("```sh"))
      )
      const inUsage = new Set(usage.match(/--[a-z-]+/g) ?? [])
      assert.deepStrictEqual(listed.filter((flag) => !inUsage.has(flag)), [])
    }))

  it.effect("names the type of every option: its choices, or an integer", () =>
    Effect.gen(function*() {
      const r = yield* run(["--help"])
      assert.isTrue(Exit.isSuccess(r.exit))
      assert.deepStrictEqual(helpEntries(r.stdout).slice(0, 32), [
        ["<files> 1+", "A user-defined piece of text."],
        ["--strategy rolling | buffer | window | summary", "One of the following: rolling, buffer, window, summary"],
        ["--max-tokens N", "An integer."],
        ["--max-messages N", "An integer."],
        ["--tokenizer NAME", "A user-defined piece of text."],
        ["--summarizer extractive | none", "One of the following: extractive, none"],
        ["(--max-summary-tokens, --summary-tokens N)", "An integer."],
        ["--target-tokens N", "An integer."],
        ["--target-messages N", "An integer."],
        ["--boundary aligned | turn", "One of the following: aligned, turn"],
        ["--pin-system", "A true or false value."],
        ["--summary-role system | user", "One of the following: system, user"],
        ["--summary-framing", "A true or false value."],
        ["--summary single | segments", "One of the following: single, segments"],
        ["--clear-tool-results KEEP", "An integer."],
        ["--clear-until target | budget", "One of the following: target, budget"],
        ["--clear-at-least N", "An integer."],
        ["--max-tool-result-tokens N", "An integer."],
        ["--max-summarizer-input-tokens N", "An integer."],
        ["--ledger-tokens N", "An integer."],
        ["--context-window N", "An integer."],
        ["--reserve N", "An integer."],
        ["--format table | json", "One of the following: table, json"],
        [
          "--input-format auto | openai | anthropic | ai-sdk | gemini | rollmem",
          "One of the following: auto, openai, anthropic, ai-sdk, gemini, rollmem"
        ],
        [
          "--provider openai | anthropic | gemini | strict-template",
          "One of the following: openai, anthropic, gemini, strict-template"
        ],
        [
          "--output-format openai | anthropic | ai-sdk | gemini",
          "One of the following: openai, anthropic, ai-sdk, gemini"
        ],
        ["--show ID", "A user-defined piece of text."],
        ["--store STORE", "A user-defined piece of text."],
        ["--archive", "A true or false value."],
        ["--framing", "A true or false value."],
        ["--report PATH", "A user-defined piece of text."],
        ["--compare SET...", "A user-defined piece of text."]
      ])
      // only rollmem's own options: none of @effect/cli's built-ins (--wizard, --completions, --log-level)
      assert.strictEqual(helpEntries(r.stdout).length, 32)
      for (const builtIn of ["--wizard", "--completions", "--log-level"]) assert.notInclude(r.stdout, builtIn)
      // a short usage line (@effect/cli's listed the thirty options on one line of 862 columns), the options
      // listed under it; no line over 120 columns (long descriptions wrapped, indented as they were), none padded
      const lines = r.stdout.replace(/\u001b\[[0-9;]*m/g, "").split("\n")
      assert.deepStrictEqual(lines.slice(0, 12), [
        "rollmem",
        "",
        `rollmem ${packageJson.version}`,
        "",
        "USAGE",
        "",
        "$ rollmem replay [options] <files>...",
        "",
        "DESCRIPTION",
        "",
        "Replay transcripts through a memory strategy and report, per conversation, what a model would have been sent.",
        ""
      ])
      assert.deepStrictEqual(lines.filter((line) => line.length > 120), [])
      assert.deepStrictEqual(lines.filter((line) => line.trimEnd() !== line), [])
      assert.isBelow(lines.indexOf("$ rollmem replay [options] <files>..."), lines.indexOf("OPTIONS"))
      const files = lines.indexOf("<files> 1+")
      assert.deepStrictEqual(lines.slice(files + 4, files + 7), [
        "  Transcripts: JSON Lines with one {\"id\", \"messages\"} per line, or a .json file holding an array of messages or",
        "  {\"messages\": [...]} (OpenAI chat format accepted; its id is the file name). Give a file whose name starts with - as",
        "  ./-name (otherwise it is read only if it exists, and it is taken for an unknown option if not)."
      ])
      // -h, and --help after other arguments, print the same
      for (const args of [["-h"], [example, "--max-tokens", "500", "--help"]]) {
        const same = yield* run(args)
        assert.isTrue(Exit.isSuccess(same.exit), args.join(" "))
        assert.strictEqual(same.stdout, r.stdout, args.join(" "))
      }
      // show's and recall's help: their usage under rollmem's name, within 120 columns too
      for (
        const [name, usage] of [
          ["show", "$ rollmem show [--store STORE] [--format table | json] <id>"],
          ["recall", "$ rollmem recall [--store STORE] [--limit N] [--format table | json] <conversation> <query>"]
        ]
      ) {
        const sub = (yield* runCli([name, "--help"])).stdout.replace(/\u001b\[[0-9;]*m/g, "").split("\n")
        assert.strictEqual(sub[6], usage)
        assert.deepStrictEqual(sub.filter((line) => line.length > 120), [], name)
      }
      const top = yield* runCli(["--help"])
      for (const builtIn of ["--wizard", "--completions", "--log-level"]) assert.notInclude(top.stdout, builtIn)
      assert.include(
        top.stdout,
        "rollmem replay --help, rollmem show --help and rollmem recall --help list their options"
      )
    }))
})

describe("rollmem --help", () => {
  it.effect("lists each command's usage on its own line, its description under it, no line over 120 columns", () =>
    Effect.gen(function*() {
      for (const args of [["--help"], ["-h"], [], ["--help", "replay"]]) {
        const r = yield* runCli(args)
        assert.isTrue(Exit.isSuccess(r.exit), args.join(" "))
        const lines = r.stdout.replace(/\u001b\[[0-9;]*m/g, "").split("\n")
        // @effect/cli padded every command's line to the longest usage: the show line ran to 920 columns
        assert.deepStrictEqual(lines.filter((line) => line.length > 120), [], args.join(" "))
        assert.deepStrictEqual(lines.filter((line) => line.trimEnd() !== line), [], args.join(" "))
        const show = lines.indexOf("show [--store STORE] [--format table | json] <id>")
        assert.deepStrictEqual(lines.slice(show, show + 3), [
          "show [--store STORE] [--format table | json] <id>",
          "",
          "  Print a conversation stored by rollmem replay --store."
        ])
        assert.deepStrictEqual(lines.filter((line) => /^(replay|show|recall) /.test(line)), [
          "replay [options] <files>...",
          "show [--store STORE] [--format table | json] <id>",
          "recall [--store STORE] [--limit N] [--format table | json] <conversation> <query>"
        ])
        assert.deepStrictEqual(lines.slice(0, 8), [
          "rollmem",
          "",
          `rollmem ${packageJson.version}`,
          "",
          "USAGE",
          "",
          "$ rollmem <command> [options]",
          ""
        ])
      }
      // a subcommand's own help is still @effect/cli's
      const replay = yield* runCli(["replay", "--help"])
      assert.include(replay.stdout, "--max-tokens N")
    }))
})

describe("rollmem replay progress bar", () => {
  const recorder = (isTTY: boolean) => {
    const writes: Array<string> = []
    return { writes, output: { isTTY, write: (text: string) => Effect.sync(() => void writes.push(text)) } }
  }
  // over 1 MiB of input: the bar counts bytes read (the input is streamed, its messages unknown in advance)
  const big = () => {
    const text = `${fs.readFileSync(example, "utf8").trim()}\n`
    return write("big.jsonl", text.repeat(Math.ceil((2 ** 20 + 1) / Buffer.byteLength(text))))
  }
  const seven = () => write("seven.jsonl", `${fs.readFileSync(example, "utf8").trim()}\n`.repeat(7))

  it.effect(
    "is drawn on a TTY stderr for inputs over 1 MiB, then erased; stdout is untouched",
    () =>
      Effect.gen(function*() {
        const { output, writes } = recorder(true)
        const file = big()
        const size = fs.statSync(file).size
        const r = yield* run([file, "--tokenizer", "words", "--format", "json"], output)
        assert.isTrue(Exit.isSuccess(r.exit))
        const lines = fs.readFileSync(file, "utf8").trim().split("\n").length
        assert.strictEqual((JSON.parse(r.stdout) as JsonReport).totals.messages, lines * 47)
        assert.strictEqual(writes.at(-2), Progress.frame(size, size, "bytes"))
        assert.strictEqual(writes.at(-1), "\r\x1b[K")
        assert.isAbove(writes.length, 3)
        assert.isTrue(writes.slice(0, -1).every((w) => w.startsWith("\r[")))
      }),
    120_000
  )

  it.effect("is not drawn when stderr is not a TTY, or for an input of 1 MiB or less", () =>
    Effect.gen(function*() {
      const pipe = recorder(false)
      yield* run([seven(), "--tokenizer", "words"], pipe.output)
      assert.deepStrictEqual(pipe.writes, [])
      const small = recorder(true)
      yield* run([seven(), "--tokenizer", "words"], small.output)
      assert.deepStrictEqual(small.writes, [])
    }))

  it("frames show the filled share of 30 columns", () => {
    assert.strictEqual(Progress.frame(0, 600), `\r[${"-".repeat(30)}] 0/600 messages`)
    assert.strictEqual(Progress.frame(300, 600), `\r[${"#".repeat(15)}${"-".repeat(15)}] 300/600 messages`)
    assert.isFalse(Progress.shouldShow(true, 300))
    assert.isTrue(Progress.shouldShow(true, 301))
    assert.isFalse(Progress.shouldShow(false, 10_000))
    assert.strictEqual(
      Progress.frame(3 * 2 ** 20, 6 * 2 ** 20, "bytes"),
      `\r[${"#".repeat(15)}${"-".repeat(15)}] 3/6 MB`
    )
    assert.isFalse(Progress.shouldShow(true, 2 ** 20, "bytes"))
    assert.isTrue(Progress.shouldShow(true, 2 ** 20 + 1, "bytes"))
  })
})
