import { assert, describe, it } from "@effect/vitest"
import { Effect, FastCheck as fc, Layer } from "effect"
import {
  ConfigError,
  ExtractiveSummarizer,
  Message,
  RollingMemory,
  Summarizer,
  SummarizerError,
  TokenCounter,
  TokenCountError
} from "../src/index.js"
import * as Tokenizers from "../src/tokenizers.js"
import * as Arbitraries from "./support/arbitraries.js"
import * as Model from "./support/extractiveModel.js"

const { gists } = ExtractiveSummarizer

const call = (id: string, name: string, args: string) =>
  Message.assistant("", { toolCalls: [{ id, name, arguments: args }] })

// the counter in context plays the memory's, as a memory passes it in the request
const summarize = (maxTokens: number, summary: string, messages: ReadonlyArray<Message.Message>) =>
  Effect.flatMap(
    Effect.zip(ExtractiveSummarizer.make({ maxTokens }), TokenCounter.TokenCounter),
    ([s, counter]) => s.summarize(summary, messages, Summarizer.request({ counter }))
  )

describe("ExtractiveSummarizer.gists", () => {
  it("keeps the first sentence and the key terms of the rest", () => {
    assert.deepStrictEqual(
      gists([
        Message.user(
          "The parcel with order 48213 never arrived at my flat. I paid $39.90 on May 2 to Acme Shipping in New York, tracking 1Z999."
        )
      ]),
      ["user: The parcel with order 48213 never arrived at my flat. [$39.90, May, Acme Shipping, New York, 1Z999]"]
    )
  })

  it("extends a first sentence shorter than 6 words with the next ones", () => {
    assert.deepStrictEqual(gists([Message.user("Great! I'd like reservation UM3OG5, please. Thanks a lot, Omar.")]), [
      "user: Great! I'd like reservation UM3OG5, please. [Omar]"
    ])
  })

  it("cuts a first sentence longer than 30 words", () => {
    const words = Array.from({ length: 35 }, (_, i) => `w${i}`)
    assert.deepStrictEqual(gists([Message.assistant(`${words.join(" ")}.`)]), [
      `assistant: ${words.slice(0, 30).join(" ")}…`
    ])
  })

  it("flattens markdown and line breaks", () => {
    assert.deepStrictEqual(
      gists([Message.system("# Airline Policy\n\nBe **brief** and polite with every customer.")]),
      [
        "system: Airline Policy Be brief and polite with every customer."
      ]
    )
  })

  it("shows tool calls with short arguments and names results after their call", () => {
    const lines = gists([
      Message.assistant("Let me check.", {
        toolCalls: [{ id: "c1", name: "lookup", arguments: "{\"order_id\": 48213, \"full\": true}" }]
      }),
      Message.tool("{\"status\": \"lost\", \"carrier\": {\"name\": \"Acme\"}, \"events\": [1, 2]}", {
        toolCallId: "c1"
      }),
      call("c2", "search", "not json"),
      Message.tool("[{\"id\": 1, \"name\": \"a\"}, {\"id\": 2}]", { toolCallId: "c2" }),
      call("c3", "tags", "{}"),
      Message.tool("[\"x\", \"y\"]", { toolCallId: "c3" })
    ])
    assert.deepStrictEqual(lines, [
      "assistant: Let me check. → lookup(order_id=48213, full=true)",
      "tool lookup: status=lost, carrier={name=Acme}, events=[2]",
      "assistant: → search(not json)",
      "tool search: 2 items, first: id=1, name=a",
      "assistant: → tags()",
      "tool tags: 2 items: x, y"
    ])
  })

  it("skips turns with nothing to keep and leaves unknown calls unnamed", () => {
    assert.deepStrictEqual(
      gists([
        Message.tool("", { toolCallId: "c1" }),
        Message.assistant("   "),
        Message.tool("Done. Refund issued.", { toolCallId: "elsewhere" })
      ]),
      ["tool: Done. Refund issued."]
    )
  })

  it("cuts long argument and result values", () => {
    const long = "x".repeat(50)
    assert.deepStrictEqual(
      gists([
        call("c1", "note", JSON.stringify({ text: long })),
        Message.tool(JSON.stringify({ text: long }), { toolCallId: "c1" })
      ]),
      [`assistant: → note(text=${"x".repeat(29)}…)`, `tool note: text=${"x".repeat(29)}…`]
    )
  })
})

const words = TokenCounter.layerWordCount

describe("ExtractiveSummarizer.make", () => {
  it.effect("appends one line per turn to the existing summary", () =>
    Effect.gen(function*() {
      const summary = yield* summarize(400, "user: earlier line", [
        Message.user("My card was charged twice for order 77."),
        Message.assistant("I will refund one of the two charges.")
      ])
      assert.strictEqual(
        summary,
        "user: earlier line\nuser: My card was charged twice for order 77.\nassistant: I will refund one of the two charges."
      )
    }).pipe(Effect.provide(words)))

  it.effect("drops the oldest lines first to stay within maxTokens", () =>
    Effect.gen(function*() {
      const first = yield* summarize(10, "", [Message.user("one two three four five six")])
      assert.strictEqual(first, "user: one two three four five six")
      const second = yield* summarize(10, first, [Message.user("seven eight nine ten eleven twelve")])
      assert.strictEqual(second, "user: seven eight nine ten eleven twelve")
      const both = yield* summarize(14, first, [Message.user("seven eight nine ten eleven twelve")])
      assert.strictEqual(both, "user: one two three four five six\nuser: seven eight nine ten eleven twelve")
    }).pipe(Effect.provide(words)))

  it.effect("cuts a single line over budget at a word boundary, or empties it", () =>
    Effect.gen(function*() {
      const turn = [Message.user("alpha beta gamma delta epsilon zeta")]
      assert.strictEqual(yield* summarize(4, "", turn), "user: alpha beta …")
      assert.strictEqual(yield* summarize(1, "old line", turn), "")
    }).pipe(Effect.provide(words)))

  it.effect("counts with the TokenCounter in context", () =>
    Effect.gen(function*() {
      // 20 characters: "user: abcdef ghijkl" is 19, both lines with the "\n" are 39.
      const summary = yield* summarize(20, "user: abcdef ghijkl", [Message.user("mnopqr stuvwx")]).pipe(
        Effect.provide(TokenCounter.layerFunction((text) => text.length))
      )
      assert.strictEqual(summary, "user: mnopqr stuvwx")
    }))

  it.effect("refuses a budget that is not a positive integer", () =>
    Effect.gen(function*() {
      for (const maxTokens of [0, -1, 1.5]) {
        const error = yield* Effect.flip(ExtractiveSummarizer.make({ maxTokens }))
        assert.instanceOf(error, ConfigError)
        assert.strictEqual(error.option, "maxTokens")
      }
      const summarizer = yield* ExtractiveSummarizer.make()
      assert.strictEqual(ExtractiveSummarizer.DEFAULT_MAX_TOKENS, 400)
      const lines = Array.from({ length: 500 }, (_, i) => Message.user(`w${i}`))
      const summary = yield* summarizer.summarize("", lines, Summarizer.request())
      // 500 lines of 2 words: the newest 200 fit in the default 400.
      assert.strictEqual(summary.split("\n").length, 200)
      assert.strictEqual(summary.split("\n")[0], "user: w300")
    }).pipe(Effect.provide(words)))

  it.effect("fails with SummarizerError when the counter fails or returns a bad count", () =>
    Effect.gen(function*() {
      const throwing = yield* Effect.flip(
        summarize(10, "", [Message.user("hello there")]).pipe(
          Effect.provide(TokenCounter.layerFunction(() => {
            throw new Error("boom")
          }))
        )
      )
      assert.instanceOf(throwing, SummarizerError)
      assert.instanceOf(throwing.cause, TokenCountError)
      const negative = yield* Effect.flip(
        summarize(10, "", [Message.user("hello there")]).pipe(Effect.provide(TokenCounter.layerFunction(() => -1)))
      )
      assert.instanceOf(negative, SummarizerError)
      assert.strictEqual(
        negative.description,
        "token counter failed: token counter returned -1, not a non-negative integer"
      )
    }))

  it.effect("is the summarizer of a RollingMemory through its layer", () =>
    Effect.gen(function*() {
      const memory = yield* RollingMemory.make({ maxTokens: 6 })
      yield* memory.add(Message.user("first question about order 12"))
      yield* memory.add(Message.assistant("first answer"))
      // 5 + 2 words: the user turn goes, the assistant turn stays (it is the last unit).
      assert.strictEqual(yield* memory.summary, "user: first question about order 12")
      yield* memory.add(Message.user("second question about the refund"))
      assert.strictEqual(yield* memory.summary, "user: first question about order 12\nassistant: first answer")
      assert.deepStrictEqual((yield* memory.buffer).map(String), ["user: second question about the refund"])
    }).pipe(
      Effect.provide(
        ExtractiveSummarizer.layer({ maxTokens: 50 }).pipe(Layer.provideMerge(TokenCounter.layerWordCount))
      )
    ))

  it.effect.prop(
    "never exceeds maxTokens and always keeps the newest gist when it fits",
    [Arbitraries.conversation(20), fc.integer({ min: 1, max: 60 })],
    ([messages, maxTokens]) =>
      Effect.gen(function*() {
        const summarizer = yield* ExtractiveSummarizer.make({ maxTokens })
        let summary = ""
        for (let i = 0; i < messages.length; i += 3) {
          const batch = messages.slice(i, i + 3)
          summary = yield* summarizer.summarize(summary, batch, Summarizer.request())
          assert.isAtMost(TokenCounter.wordCount(summary), maxTokens)
          const newest = gists(batch).at(-1)
          if (newest !== undefined && TokenCounter.wordCount(newest) <= maxTokens) {
            assert.isTrue(summary.endsWith(newest))
          }
        }
      }).pipe(Effect.provide(words))
  )
})

describe("Summarizer wrapping", () => {
  it.effect("works under Summarizer.withPolicy like any summarizer", () =>
    Effect.gen(function*() {
      const summarizer = yield* Summarizer.Summarizer
      assert.strictEqual(yield* summarizer.summarize("", [Message.user("hi")], Summarizer.request()), "user: hi")
    }).pipe(
      Effect.provide(
        Summarizer.withPolicy((call) => call).pipe(
          Layer.provide(ExtractiveSummarizer.layer().pipe(Layer.provide(words)))
        )
      )
    ))
})

describe("ExtractiveSummarizer cuts between characters (emoji, CJK, combining marks)", () => {
  /** Whether `text` has no lone surrogate (UTF-8 round-trips it unchanged). */
  const wellFormed = (text: string): boolean => Buffer.from(text, "utf8").toString("utf8") === text
  const weather = call("c1", "weather", "{}")
  const result = (content: string) => Message.tool(content, { toolCallId: "c1" })

  it("a tool result of emoji is cut after a whole emoji, not inside its surrogate pair", () => {
    // each emoji counts as a word of the 30-word cap (contract 13): cut after the 30th
    const [, line] = gists([weather, result("😀".repeat(100))])
    assert.strictEqual(line, `tool weather: ${"😀".repeat(30)}…`)
    assert.isTrue(wellFormed(line))
    // the character caps cut after a whole emoji: a JSON value at 30 characters
    const [, json] = gists([weather, result(JSON.stringify({ mood: "😀".repeat(100) }))])
    assert.strictEqual(json, `tool weather: mood=${"😀".repeat(14)}…`)
    assert.isTrue(wellFormed(json))
  })

  it("emoji sequences (ZWJ families, skin tones) stay whole", () => {
    assert.strictEqual(gists([weather, result("👨‍👩‍👧".repeat(25))])[1], `tool weather: ${"👨‍👩‍👧".repeat(14)}…`)
    assert.strictEqual(gists([weather, result("👍🏽".repeat(50))])[1], `tool weather: ${"👍🏽".repeat(29)}…`)
  })

  it("CJK is cut between any two characters", () => {
    // each CJK character counts as a word of the 30-word cap (contract 13): cut after the 30th
    assert.strictEqual(gists([weather, result("東京".repeat(100))])[1], `tool weather: ${"東京".repeat(15)}…`)
    // the character caps cut between any two: a JSON value at 30 characters
    const json = gists([weather, result(JSON.stringify({ city: "東京".repeat(20) }))])[1]
    assert.strictEqual(json, `tool weather: city=${"東京".repeat(14)}東…`)
  })

  it("a combining accent stays with its letter", () => {
    assert.strictEqual(gists([weather, result("e\u0301".repeat(100))])[1], `tool weather: ${"e\u0301".repeat(59)}…`)
  })

  it("tool call arguments and JSON values are cut the same way", () => {
    assert.deepStrictEqual(gists([call("c2", "f", "😀".repeat(60))]), [`assistant: → f(${"😀".repeat(49)}…)`])
    const json = gists([weather, result(JSON.stringify({ city: "😀".repeat(20) }))])[1]
    assert.strictEqual(json, `tool weather: city=${"😀".repeat(14)}…`)
  })

  it.effect("a summary line over budget with no space in it is cut between characters, not emptied", () =>
    Effect.gen(function*() {
      const codePoints = TokenCounter.layerFunction((text) => [...text].length)
      const cjk = yield* summarize(5, "東京都渋谷区神南一丁目", []).pipe(Effect.provide(codePoints))
      assert.strictEqual(cjk, "東京都渋…")
      const emoji = yield* summarize(4, "👍🏽👍🏽👍🏽", []).pipe(Effect.provide(codePoints))
      assert.strictEqual(emoji, "👍🏽…")
      assert.isTrue(wellFormed(emoji))
      // a CJK sentence is one "word": kept in part after the role, not dropped whole
      const turn = yield* summarize(12, "", [Message.user("あ".repeat(50))]).pipe(Effect.provide(codePoints))
      assert.strictEqual(turn, "user: あああああ…")
    }))

  it.prop(
    "every line is well formed, whatever the content",
    [fc.string({ unit: fc.constantFrom("a", " ", "東", "😀", "👍🏽", "e\u0301", "🇫🇷", ".", "7") })],
    ([content]) => {
      for (const line of gists([weather, result(content), Message.user(content), call("c3", "g", content)])) {
        assert.isTrue(wellFormed(line), JSON.stringify(line))
      }
    }
  )
})

describe("ExtractiveSummarizer and the memory's summary budget (contract 10.4)", () => {
  const conversation = [
    Message.user("My parcel with order 48213 never arrived at my flat in Lyon last Tuesday."),
    Message.assistant("I am sorry to hear that. Let me check order 48213 with Acme Shipping right away."),
    Message.user("Thanks. I paid $39.90 for express delivery and I need it before Friday."),
    Message.assistant("The carrier lost it. I can refund or resend.")
  ]

  it.effect("a 52-word conversation folded at a 20-token budget gives a summary of at most 20", () =>
    Effect.gen(function*() {
      assert.strictEqual(conversation.reduce((n, m) => n + TokenCounter.wordCount(m.tokenText), 0), 52)
      const memory = yield* RollingMemory.make({ maxTokens: 16, maxSummaryTokens: 20 })
      for (const message of conversation) yield* memory.add(message)
      const summary = yield* memory.summary
      assert.strictEqual(yield* memory.summaryTokens, TokenCounter.wordCount(summary))
      // the older gists are dropped, oldest first, until the summary fits
      assert.strictEqual(summary, "user: Thanks. I paid $39.90 for express delivery and I need it before Friday.")
      assert.strictEqual(yield* memory.summaryTokens, 14)
    }).pipe(Effect.provide(ExtractiveSummarizer.layer())))

  it.effect("counts with the memory's counter even when the tokenizer layer is merged beside it", () =>
    Effect.gen(function*() {
      const memory = yield* RollingMemory.make({ maxTokens: 60, maxSummaryTokens: 40 })
      for (const message of conversation) yield* memory.add(message)
      const summary = yield* memory.summary
      assert.isTrue(summary.length > 0)
      // 40 characters, not 40 words
      assert.isAtMost(summary.length, 40)
      assert.strictEqual(summary, "user: Thanks. I paid $39.90 for …")
      assert.strictEqual(yield* memory.summaryTokens, summary.length)
    }).pipe(
      Effect.provide(Layer.merge(ExtractiveSummarizer.layer(), TokenCounter.layerFunction((text) => text.length)))
    ))

  it.effect("RollingMemory.make() compiles and runs with ExtractiveSummarizer.layer() alone", () =>
    Effect.gen(function*() {
      const memory = yield* RollingMemory.make().pipe(Effect.provide(ExtractiveSummarizer.layer()))
      assert.strictEqual(memory.maxTokens, 2000)
    }))
})

describe("ExtractiveSummarizer.gists on long input", () => {
  const pieces = fc.constantFrom(
    "a",
    "Zeta",
    "New",
    "York",
    "ab_c",
    "SEA",
    "OK",
    "48213",
    "$3.9",
    " ",
    "\n",
    "\r\n",
    "\u2028",
    "\u00a0",
    "\t",
    "*",
    "**",
    "__",
    "`",
    "## ",
    "- ",
    "1. ",
    ".",
    "!",
    "?",
    ":",
    ",",
    "(",
    ")",
    "\"",
    "{",
    "}",
    "😀",
    "東",
    "あ",
    "👨‍👩‍👧",
    "🇫🇷",
    "™",
    "e\u0301",
    "x".repeat(45)
  )
  const text = fc.array(pieces, { maxLength: 80 }).map((parts) => parts.join(""))

  it.prop(
    "equal the lines of the model that flattens every text whole, on text, tool calls and JSON",
    [text],
    ([s]) => {
      const json = JSON.stringify({ k: s, n: [s, 1, { a: s }], more: s.repeat(3) })
      const messages = [
        Message.user(s),
        call("c1", "f", s),
        Message.tool(s, { toolCallId: "c1" }),
        call("c2", "g", json),
        Message.tool(json, { toolCallId: "c2" }),
        Message.tool(`[${JSON.stringify(s)}, 2, ${json}]`, { toolCallId: "c3" })
      ]
      assert.deepStrictEqual(gists(messages), Model.gists(messages))
    }
  )

  it("a turn of megabytes gives one short line: an opening sentence of one word is cut at 1,000 characters", () => {
    const [line] = gists([Message.user(`Order ${"x".repeat(8_000_000)} lost.`)])
    assert.strictEqual(line, `user: Order ${"x".repeat(993)}…`)
    // 30 words, and the key terms of the rest, read only until 8 are found
    const words = "the quick brown fox jumps over the lazy dog ".repeat(200_000)
    assert.strictEqual(
      gists([Message.user(`${words}. Ticket n1 n2 n3 n4 n5 n6 n7 n8 n9 ${words}`)])[0],
      `user: ${words.split(" ").slice(0, 30).join(" ")}… [n1, n2, n3, n4, n5, n6, n7, n8]`
    )
  })
})

describe("ExtractiveSummarizer on scripts written without spaces (contract 13)", () => {
  const line = (content: string) => gists([Message.user(content)])[0]

  it("a CJK sentence is cut after its 30th grapheme, each counted as one word", () => {
    assert.strictEqual(line("完了しました" + "漢字".repeat(400)), `user: 完了しました${"漢字".repeat(12)}…`)
    assert.strictEqual(line("漢".repeat(30)), `user: ${"漢".repeat(30)}`)
    assert.strictEqual(line("漢".repeat(31)), `user: ${"漢".repeat(30)}…`)
    assert.strictEqual(line("ข".repeat(31)), `user: ${"ข".repeat(30)}…`)
  })

  it("an emoji sequence (ZWJ family, skin tone, flag) is one grapheme and one word", () => {
    assert.strictEqual(line("👨‍👩‍👧".repeat(40)), `user: ${"👨‍👩‍👧".repeat(30)}…`)
    assert.strictEqual(line("👨‍👩‍👧".repeat(30)), `user: ${"👨‍👩‍👧".repeat(30)}`)
    assert.strictEqual(line("👍🏽🇫🇷".repeat(20)), `user: ${"👍🏽🇫🇷".repeat(15)}…`)
    assert.strictEqual(line(`Done ✅ ${"🙂".repeat(500)}`), `user: Done ✅ ${"🙂".repeat(28)}…`)
  })

  it("mixed CJK and Latin: each grapheme of CJK is a word, each run of other characters between them one", () => {
    assert.strictEqual(line(`${"a ".repeat(28)}東京Tower`), `user: ${"a ".repeat(28)}東京…`)
    assert.strictEqual(line(`${"a ".repeat(27)}東京Tower`), `user: ${"a ".repeat(27)}東京Tower`)
    assert.strictEqual(
      line(`Ticket for 新幹線のぞみ to 京都 ${"then ".repeat(20)}`),
      `user: Ticket for 新幹線のぞみ to 京都 ${"then ".repeat(19).trimEnd()}…`
    )
    assert.strictEqual(line("東京Tower🇫🇷 👨‍👩‍👧x café"), "user: 東京Tower🇫🇷 👨‍👩‍👧x café")
  })

  it("text with spaces counts its words as before: Latin with ™ and ©, Korean", () => {
    const latin = Array.from({ length: 30 }, (_, i) => `Acme™${i}`).join(" ")
    assert.strictEqual(line(`${latin} ©`), `user: ${latin}…`)
    assert.strictEqual(line(latin), `user: ${latin}`)
    const korean = Array.from({ length: 31 }, () => "안녕하세요").join(" ")
    assert.strictEqual(line(korean), `user: ${korean.split(" ").slice(0, 30).join(" ")}…`)
  })

  it("a turn of megabytes of CJK or emoji gives a line of 30 graphemes", () => {
    assert.strictEqual(line("漢".repeat(8_000_000)), `user: ${"漢".repeat(30)}…`)
    assert.strictEqual(line("漢 ".repeat(4_000_000)), `user: ${"漢 ".repeat(30).trimEnd()}…`)
    assert.strictEqual(line("🙂".repeat(4_000_000)), `user: ${"🙂".repeat(30)}…`)
  })

  const conversation = (big: string) => [
    Message.user("Please book flight AZ611 to Rome."),
    Message.assistant("Booked AZ611 for May 3."),
    Message.user("Also a hotel near Termini."),
    Message.assistant(big),
    Message.user("Thanks, what about a car?"),
    Message.assistant("Car booked at FCO, code X7."),
    Message.user(
      "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty twenty-one"
    ),
    Message.assistant("ok")
  ]
  const replay = (big: string) =>
    Effect.gen(function*() {
      const memory = yield* RollingMemory.make({ maxTokens: 60, maxSummaryTokens: 400 })
      for (const message of conversation(big)) yield* memory.add(message)
      return [yield* memory.summary, yield* memory.summaryTokens] as const
    }).pipe(Effect.provide(Layer.merge(ExtractiveSummarizer.layer(), Tokenizers.layerByName("o200k_base"))))

  it.effect("one CJK or emoji turn keeps every older line of the summary", () =>
    Effect.gen(function*() {
      const older =
        "user: Please book flight AZ611 to Rome.\nassistant: Booked AZ611 for May 3.\nuser: Also a hotel near Termini."
      assert.deepStrictEqual(yield* replay("完了しました" + "漢字".repeat(400)), [
        `${older}\nassistant: 完了しました${"漢字".repeat(12)}…`,
        60
      ])
      assert.deepStrictEqual(yield* replay(`Done ✅ ${"🙂".repeat(500)}`), [
        `${older}\nassistant: Done ✅ ${"🙂".repeat(28)}…`,
        63
      ])
    }))
})
