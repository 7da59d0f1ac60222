/**
 * The artifact ledger (docs/contract.md section 14.2) and folds that never
 * commit an empty summary (section 5): exact summaries and retention on
 * small hand-built conversations, the order read back after `fromJSON`, what
 * the summarizer is given, the budget under every shipped counter.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import * as Ledger from "../src/core/ledger.js"
import { ConfigError, SummarizerError } from "../src/Errors.js"
import {
  ExtractiveSummarizer,
  Memory,
  Message,
  Retention,
  RollingMemory,
  Summarizer,
  SummaryMemory,
  TokenCounter
} from "../src/index.js"
import * as Tokenizers from "../src/tokenizers.js"

/** A summarizer that answers `g1`, `g2`... and records what it was given. */
const recording = () => {
  const calls: Array<{ readonly summary: string; readonly messages: number; readonly max: number | undefined }> = []
  const summarizer = Summarizer.fromFunction((summary, messages, request) => {
    calls.push({ summary, messages: messages.length, max: request.maxSummaryTokens })
    return `g${calls.length}`
  })
  return { calls, layer: Layer.succeed(Summarizer.Summarizer, summarizer) }
}

const section = (...lines: ReadonlyArray<string>) => `<artifacts>\n${lines.join("\n")}\n</artifacts>`

/** Adds each text as a user turn, observing it; returns the memory's retention afterwards. */
const addAll = (memory: Memory.Memory, tracker: Retention.Tracker, texts: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    for (const text of texts) {
      const message = Message.user(text)
      tracker.observe(message)
      yield* memory.add(message)
    }
    return tracker.measure(yield* memory.messages)
  })

describe("the artifact ledger", () => {
  it.effect("an evicted artifact is kept by the ledger: retention 1 where the summary alone names nothing", () =>
    Effect.gen(function*() {
      const { calls, layer } = recording()
      const withLedger = yield* SummaryMemory.make({ maxSummaryTokens: 100, ledger: { maxTokens: 20 } }).pipe(
        Effect.provide(layer)
      )
      const tracker = Retention.tracker()
      const kept = yield* addAll(withLedger, tracker, ["open src/cli/a.ts, src/cli/b.ts and lib/c.ts for mia_li_3668"])
      // newest first: the last mentioned first, paths of one directory on one line, loose entries on one line
      assert.strictEqual(yield* withLedger.summary, `g1\n\n${section("mia_li_3668 lib/c.ts", "src/cli/ b.ts a.ts")}`)
      assert.deepStrictEqual(kept, {
        named: 4,
        kept: 4,
        byKind: { id: { named: 1, kept: 1 }, path: { named: 3, kept: 3 } }
      })
      // the summarizer got the summary without the ledger, and the budget without the ledger's
      assert.deepStrictEqual(calls, [{ summary: "", messages: 1, max: 80 }])
      const plain = yield* SummaryMemory.make({ maxSummaryTokens: 100 }).pipe(Effect.provide(recording().layer))
      const lost = yield* addAll(plain, Retention.tracker(), [
        "open src/cli/a.ts, src/cli/b.ts and lib/c.ts for mia_li_3668"
      ])
      assert.strictEqual(yield* plain.summary, "g1")
      assert.strictEqual(Retention.ratio(lost), 0)
    }))

  it.effect("a digest over 40 hexadecimal digits is not recorded; a commit id is; retention still counts the digest", () =>
    Effect.gen(function*() {
      const { layer } = recording()
      const memory = yield* SummaryMemory.make({ maxSummaryTokens: 200, ledger: { maxTokens: 100 } }).pipe(
        Effect.provide(layer)
      )
      const sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
      const sha1 = "da39a3ee5e6b4b0d3255bfef95601890afd80709"
      const tracker = Retention.tracker()
      const kept = yield* addAll(memory, tracker, [`mix.lock: ${sha256} at commit ${sha1} in deps/ecto/mix.exs`])
      assert.strictEqual(yield* memory.summary, `g1\n\n${section(`${sha1} deps/ecto/mix.exs`)}`)
      assert.deepStrictEqual(kept, {
        named: 3,
        kept: 2,
        byKind: { hash: { named: 2, kept: 1 }, path: { named: 1, kept: 1 } }
      })
    }))

  it.effect("a full ledger drops the least recently mentioned first; the summarizer never sees the section", () =>
    Effect.gen(function*() {
      const { calls, layer } = recording()
      // 4 words: the delimiters and two entries
      const memory = yield* SummaryMemory.make({ ledger: { maxTokens: 4 } }).pipe(Effect.provide(layer))
      const tracker = Retention.tracker()
      yield* addAll(memory, tracker, ["x_1", "x_2"])
      // loose entries that follow one another share a line
      assert.strictEqual(yield* memory.summary, `g2\n\n${section("x_2 x_1")}`)
      // x_1 mentioned again: it is the newest, x_2 the least recently mentioned
      yield* addAll(memory, tracker, ["x_1 again"])
      assert.strictEqual(yield* memory.summary, `g3\n\n${section("x_1 x_2")}`)
      const figure = yield* addAll(memory, tracker, ["x_3"])
      assert.strictEqual(yield* memory.summary, `g4\n\n${section("x_3 x_1")}`)
      // x_2 evicted and dropped: 2 of the 3 named
      assert.deepStrictEqual(figure, { named: 3, kept: 2, byKind: { id: { named: 3, kept: 2 } } })
      assert.deepStrictEqual(calls.map((c) => c.summary), ["", "g1", "g2", "g3"])
      assert.deepStrictEqual(calls.map((c) => c.max), [undefined, undefined, undefined, undefined])
    }))

  it.effect("the ledger's order is read back from the summary: fromJSON continues as if nothing happened", () =>
    Effect.gen(function*() {
      const options = { ledger: { maxTokens: 4 } }
      const { layer } = recording()
      const memory = yield* SummaryMemory.make(options).pipe(Effect.provide(layer))
      yield* addAll(memory, Retention.tracker(), ["x_1", "x_2", "x_1"])
      const json = yield* memory.toJSON
      const restored = yield* SummaryMemory.fromJSON(json, options).pipe(Effect.provide(recording().layer))
      yield* addAll(restored, Retention.tracker(), ["x_3"])
      yield* addAll(memory, Retention.tracker(), ["x_3"])
      assert.strictEqual(Ledger.parse(yield* restored.summary).entries.join(" "), "x_3 x_1")
      assert.strictEqual(Ledger.parse(yield* memory.summary).entries.join(" "), "x_3 x_1")
      // the wire format is unchanged: version 2, the ledger inside the summary's text
      assert.strictEqual(json.version, 2)
    }))

  it.effect("a summary in an earlier layout (one loose entry per line) is read back and rewritten in order", () =>
    Effect.gen(function*() {
      const old = `g0\n\n${section("x_2", "/dev/null", "src/ a.ts", " cli/b.ts", "https://example.com/", "x_1")}`
      assert.deepStrictEqual(Retention.ledgerOf(old), [
        "x_2",
        "/dev/null",
        "src/a.ts",
        "src/cli/b.ts",
        "https://example.com/",
        "x_1"
      ])
      const { calls, layer } = recording()
      const options = { ledger: { maxTokens: 40 } }
      const memory = yield* SummaryMemory.fromJSON({ version: 2, summary: old, buffer: [] }, options).pipe(
        Effect.provide(layer)
      )
      const tracker = Retention.tracker()
      tracker.observe(old)
      const figure = yield* addAll(memory, tracker, ["then x_3"])
      // the summarizer was given the body alone; x_3 is the newest, the restored entries follow in their order
      assert.deepStrictEqual(calls.map((c) => c.summary), ["g0"])
      assert.strictEqual(
        yield* memory.summary,
        `g1\n\n${section("x_3 x_2 /dev/null", "src/ a.ts", " cli/b.ts", "https://example.com/", "x_1")}`
      )
      assert.deepStrictEqual(figure, {
        named: 7,
        kept: 7,
        byKind: { id: { named: 3, kept: 3 }, path: { named: 3, kept: 3 }, url: { named: 1, kept: 1 } }
      })
    }))

  it.effect("a RollingMemory's folds keep the evicted turns' artifacts; the context names them", () =>
    Effect.gen(function*() {
      const memory = yield* RollingMemory.make({ maxTokens: 6, maxSummaryTokens: 40, ledger: { maxTokens: 20 } }).pipe(
        Effect.provide(recording().layer)
      )
      const tracker = Retention.tracker()
      const figure = yield* addAll(memory, tracker, [
        "read docs/a.md please",
        "and docs/b.md too",
        "then ops@example.com",
        "ok thanks"
      ])
      assert.deepStrictEqual(Retention.ledgerOf(yield* memory.summary), ["docs/b.md", "docs/a.md"])
      assert.deepStrictEqual(figure, {
        named: 3,
        kept: 3,
        byKind: { email: { named: 1, kept: 1 }, path: { named: 2, kept: 2 } }
      })
    }))

  it.effect("ledger.maxTokens must stay below maxSummaryTokens; patterns are checked", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip(
        RollingMemory.make({ maxSummaryTokens: 100, ledger: { maxTokens: 100 } }).pipe(
          Effect.provide(Summarizer.layerDrop)
        )
      )
      assert.instanceOf(refused, ConfigError)
      assert.strictEqual(refused.option, "ledger.maxTokens")
      assert.strictEqual(
        refused.description,
        "must be less than maxSummaryTokens (100, which holds the ledger's section and the summarizer's summary), " +
          "got 100"
      )
      const empty = yield* Effect.flip(
        SummaryMemory.make({ ledger: { maxTokens: 10, patterns: [{ kind: "any", regex: /x*/ }] } }).pipe(
          Effect.provide(recording().layer)
        )
      )
      assert.strictEqual(empty.option, "ledger.patterns")
      assert.strictEqual(empty.description, "must not match the empty text, got /x*/ at 0")
    }))

  it.effect("a ledger with Summarizer.drop is refused: a memory that drops its turns keeps no summary", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip(
        RollingMemory.make({ maxTokens: 100, ledger: { maxTokens: 20 } }).pipe(Effect.provide(Summarizer.layerDrop))
      )
      assert.instanceOf(refused, ConfigError)
      assert.strictEqual(refused.option, "ledger")
      assert.strictEqual(
        refused.description,
        "needs a summarizer: the ledger's section ends the summary, and a memory that drops its evicted turns " +
          "keeps no summary"
      )
    }))

  it.effect("user patterns: the ledger keeps what they find", () =>
    Effect.gen(function*() {
      const memory = yield* SummaryMemory.make({
        ledger: { maxTokens: 10, patterns: [...Retention.defaultPatterns, { kind: "ticket", regex: /\bJIRA\d+\b/ }] }
      }).pipe(Effect.provide(recording().layer))
      yield* addAll(memory, Retention.tracker(), ["JIRA42 is done"])
      assert.strictEqual(yield* memory.summary, `g1\n\n${section("JIRA42")}`)
    }))

  const counters: ReadonlyArray<readonly [string, Layer.Layer<TokenCounter.TokenCounter, ConfigError>]> = [
    ["words", TokenCounter.layerWordCount],
    ["o200k_base", Tokenizers.layerByName("o200k_base")],
    ["cl100k_base", Tokenizers.layerByName("cl100k_base")],
    ["claude-sonnet-4-5", Tokenizers.layerByName("claude-sonnet-4-5")],
    ["gemini-2.5-pro", Tokenizers.layerByName("gemini-2.5-pro")]
  ]
  for (const [name, counter] of counters) {
    it.effect(`the section within ledger.maxTokens and the summary within maxSummaryTokens: ${name}`, () =>
      Effect.gen(function*() {
        const memory = yield* RollingMemory.make({
          maxTokens: 60,
          maxSummaryTokens: 120,
          ledger: { maxTokens: 50 }
        }).pipe(Effect.provide(ExtractiveSummarizer.layer()))
        const counterService = yield* TokenCounter.TokenCounter
        let largest = 0
        for (let i = 0; i < 120; i++) {
          yield* memory.add(
            Message.user(`step ${i}: edit src/mod${i % 7}/file_${i}.ts, see https://x.example/${i} and id_${i * 13}`)
          )
          const summary = yield* memory.summary
          const split = Ledger.splitSection(summary)
          if (split === undefined) continue
          const sectionTokens = yield* TokenCounter.countText(
            counterService,
            summary.slice(split.body === "" ? 0 : split.body.length + 2)
          )
          largest = Math.max(largest, sectionTokens)
          assert.isAtMost(sectionTokens, 50)
          assert.isAtMost(yield* memory.summaryTokens, 120)
        }
        // the ledger was used, not left empty
        assert.isAbove(largest, 25)
      }).pipe(Effect.provide(counter)))
  }
})

describe("folds never commit an empty summary", () => {
  const returning = (result: string) => Layer.succeed(Summarizer.Summarizer, Summarizer.fromFunction(() => result))

  it.effect("refused when an evicted turn had content: SummarizerError, nothing committed, the turn kept", () =>
    Effect.gen(function*() {
      const memory = yield* SummaryMemory.make().pipe(Effect.provide(returning(" \n")))
      const exit = yield* Effect.exit(memory.add(Message.user("hello")))
      assert.deepStrictEqual(
        exit,
        Exit.fail(
          new SummarizerError({
            description: "summarizer returned an empty summary for evicted turns with content: nothing committed"
          })
        )
      )
      assert.strictEqual(yield* memory.summary, "")
      assert.deepStrictEqual((yield* memory.buffer).map((m) => m.content), ["hello"])
    }))

  it.effect("refused when the previous summary was not empty, even for turns without content", () =>
    Effect.gen(function*() {
      const memory = yield* SummaryMemory.fromJSON({ version: 2, summary: "earlier", buffer: [] }, {}).pipe(
        Effect.provide(returning(""))
      )
      const result = Message.make("tool", "", { toolCallId: "c1" })
      const error = yield* Effect.flip(memory.add(result))
      assert.strictEqual(
        (error as SummarizerError).description,
        "summarizer returned an empty summary for a summary that was not empty: nothing committed"
      )
      assert.strictEqual(yield* memory.summary, "earlier")
      assert.strictEqual((yield* memory.buffer).length, 1)
    }))

  it.effect("accepted for turns without content on an empty summary (the extractive summarizer's \"\")", () =>
    Effect.gen(function*() {
      const memory = yield* SummaryMemory.make().pipe(Effect.provide(ExtractiveSummarizer.layer()))
      yield* memory.add(Message.make("tool", "", { toolCallId: "c1" }))
      assert.strictEqual(yield* memory.summary, "")
      assert.strictEqual((yield* memory.buffer).length, 0)
      const rolling = yield* SummaryMemory.make().pipe(Effect.provide(returning("")))
      yield* rolling.add(Message.make("tool", "  ", { toolCallId: "c2" }))
      assert.strictEqual((yield* rolling.buffer).length, 0)
    }))
})
