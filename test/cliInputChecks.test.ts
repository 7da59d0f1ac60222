/**
 * `rollmem replay` says what a new user would otherwise miss: a `--report`
 * path that is a directory (refused before anything is read), an input with
 * no conversation in it (exit code 1, not an empty table), and, as warnings
 * naming `file:line`, a message in an unknown role and a conversation id
 * read twice (both replayed all the same), and a provider usage that cannot
 * be read (skipped: no sample recorded for it); a conversation whose memory
 * fails is named with `file:line` and left out, the others still replayed.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { CliFailure } from "../src/cli/Command.js"
import * as Input from "../src/cli/Input.js"
import * as Usage from "../src/core/usage.js"
import { Message } from "../src/index.js"
import { example, failureOf, runCli } from "./support/cli.js"

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rollmem-input-checks-"))
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }))

const write = (name: string, text: string): string => {
  const file = path.join(tmp, name)
  fs.writeFileSync(file, text)
  return file
}

const line = (id: string, messages: ReadonlyArray<{ readonly role: string; readonly content: string }>) =>
  JSON.stringify({ id, messages })

const ROLES = "(roles: system, developer, user, assistant, tool)"

describe("rollmem replay --report that cannot be written", () => {
  it.effect("is refused before anything is read, and leaves nothing behind", () =>
    Effect.gen(function*() {
      const absent = path.join(tmp, "absent.jsonl")
      const file = write("a-file.txt", "not a directory")
      const r = yield* runCli(["replay", absent, "--tokenizer", "words", "--report", path.join(file, "r.html")])
      assert.isTrue(Exit.isFailure(r.exit))
      assert.instanceOf(failureOf(r), CliFailure)
      assert.strictEqual(
        r.stderr,
        `rollmem: invalid option --report: ${path.join(file, "r.html")} cannot be written (ENOTDIR: not a directory)`
      )
      assert.strictEqual(r.stdout, "")
      // a writable path passes the check and is not created by it: the unreadable input is said instead
      const fresh = path.join(tmp, "fresh.html")
      const ok = yield* runCli(["replay", absent, "--tokenizer", "words", "--report", fresh])
      assert.include(ok.stderr, "absent.jsonl")
      assert.isFalse(fs.existsSync(fresh))
    }))
})

describe("rollmem replay --report naming an input or the store", () => {
  it.effect("is refused before anything is read or written: the input and the database stay as they were", () =>
    Effect.gen(function*() {
      const input = write("keep.jsonl", line("k", [{ role: "user", content: "hi" }]) + "\n")
      const r = yield* runCli(["replay", input, "--tokenizer", "words", "--report", input])
      assert.isTrue(Exit.isFailure(r.exit))
      assert.strictEqual(
        r.stderr,
        `rollmem: invalid option --report: ${input} is an input file (${input}): the report would replace it; ` +
          "give another path"
      )
      assert.strictEqual(fs.readFileSync(input, "utf8"), line("k", [{ role: "user", content: "hi" }]) + "\n")
      // the same file under another name
      const relative = path.relative(process.cwd(), input)
      const again = yield* runCli(["replay", input, "--tokenizer", "words", "--report", relative])
      assert.include(again.stderr, "is an input file")
      const db = path.join(tmp, "same.db")
      const store = yield* runCli(["replay", input, "--tokenizer", "words", "--store", `sqlite:${db}`, "--report", db])
      assert.strictEqual(
        store.stderr,
        `rollmem: invalid option --report: ${db} is the --store database (${db}): the report would replace it; ` +
          "give another path"
      )
      assert.isFalse(fs.existsSync(db))
    }))
})

describe("rollmem replay --report naming a directory", () => {
  it.effect("is refused before anything is read, as a missing directory is", () =>
    Effect.gen(function*() {
      const absent = path.join(tmp, "absent.jsonl")
      // an unreadable input would be said first if anything were read
      const r = yield* runCli(["replay", absent, "--tokenizer", "words", "--report", tmp])
      assert.isTrue(Exit.isFailure(r.exit))
      assert.instanceOf(failureOf(r), CliFailure)
      assert.strictEqual(
        r.stderr,
        `rollmem: invalid option --report: ${tmp} is a directory: give the path of a file to write ` +
          `(e.g. ${path.join(tmp, "report.html")})`
      )
      assert.strictEqual(r.stdout, "")
      // under --compare too
      const compared = yield* runCli([
        "replay",
        absent,
        "--tokenizer",
        "words",
        "--compare",
        "max-tokens=100",
        "--report",
        tmp
      ])
      assert.strictEqual(compared.stderr, r.stderr)
      assert.strictEqual(compared.stdout, "")
    }))
})

describe("rollmem replay of an input with no conversation", () => {
  it.effect("says so on stderr and fails (exit code 1): an empty file, a file of blank lines, an empty array", () =>
    Effect.gen(function*() {
      const empty = write("empty.jsonl", "")
      const blank = write("blank.jsonl", "\n  \n\n")
      const noneInArray = write("none.json", "[]")
      for (const args of [[empty], [blank], [empty, blank], [noneInArray], [noneInArray, empty]]) {
        const r = yield* runCli(["replay", ...args, "--tokenizer", "words"])
        assert.isTrue(Exit.isFailure(r.exit))
        assert.instanceOf(failureOf(r), CliFailure)
        assert.strictEqual(r.stderr, `rollmem: nothing to replay: no conversation in ${args.join(", ")}`)
        assert.strictEqual(r.stdout, "")
      }
      // with --format json and --compare alike: no empty document
      for (const extra of [["--format", "json"], ["--compare", "max-tokens=100"]]) {
        const r = yield* runCli(["replay", empty, "--tokenizer", "words", ...extra])
        assert.isTrue(Exit.isFailure(r.exit))
        assert.strictEqual(r.stderr, `rollmem: nothing to replay: no conversation in ${empty}`)
        assert.strictEqual(r.stdout, "")
      }
      // an empty array holds no conversation: beside an input that holds one, only that one is replayed
      const one = write("one.jsonl", line("a", [{ role: "user", content: "hello there" }]) + "\n")
      const r = yield* runCli(["replay", noneInArray, one, "--tokenizer", "words", "--format", "json"])
      assert.isTrue(Exit.isSuccess(r.exit), r.stderr)
      assert.strictEqual(r.stderr, "")
      const report = JSON.parse(r.stdout) as {
        totals: { conversations: number }
        conversations: ReadonlyArray<{ id: string }>
      }
      assert.strictEqual(report.totals.conversations, 1)
      assert.deepStrictEqual(report.conversations.map((c) => c.id), ["a"])
    }))
})

describe("rollmem replay of a conversation whose id is an empty string", () => {
  it.effect("refuses it as an input that could not be read, naming file:line (or file[i]); the others replay, exit code 1", () =>
    Effect.gen(function*() {
      const lines = write(
        "emptyid.jsonl",
        [line("", [{ role: "user", content: "empty id" }]), line("b", [{ role: "user", content: "kept" }])].join("\n")
      )
      const doc = write("emptyid.json", JSON.stringify([{ id: "", messages: [{ role: "user", content: "x" }] }]))
      const r = yield* runCli(["replay", lines, doc, "--tokenizer", "words", "--format", "json"])
      assert.isTrue(Exit.isFailure(r.exit))
      assert.instanceOf(failureOf(r), CliFailure)
      assert.strictEqual(
        r.stderr,
        [
          `rollmem: ${lines}:1: a conversation id must be a non-empty string, got ""`,
          `rollmem: ${doc}[0]: a conversation id must be a non-empty string, got ""`,
          "rollmem: skipped 2 inputs that could not be read (see above)"
        ].join("\n")
      )
      const report = JSON.parse(r.stdout) as { conversations: ReadonlyArray<{ id: string }> }
      assert.deepStrictEqual(report.conversations.map((c) => c.id), ["b"])
      // alone, as any input that could not be read alone: that line, no report, exit code 1
      const alone = write("emptyid-alone.jsonl", line("", [{ role: "user", content: "empty id" }]) + "\n")
      const a = yield* runCli(["replay", alone, "--tokenizer", "words"])
      assert.isTrue(Exit.isFailure(a.exit))
      assert.strictEqual(a.stdout, "")
      assert.strictEqual(a.stderr, `rollmem: ${alone}:1: a conversation id must be a non-empty string, got ""`)
    }))
})

describe("rollmem replay of a conversation with no message", () => {
  it.effect("alone it is nothing to replay (exit code 1); beside others it is a warning naming where, and skipped", () =>
    Effect.gen(function*() {
      const doc = write("em2.json", JSON.stringify({ messages: [] }))
      const alone = yield* runCli(["replay", doc, "--tokenizer", "words"])
      assert.isTrue(Exit.isFailure(alone.exit))
      assert.instanceOf(failureOf(alone), CliFailure)
      assert.strictEqual(
        alone.stderr,
        `rollmem: warning: ${doc}: conversation "em2.json" has no message; skipped\n` +
          `rollmem: nothing to replay: no conversation in ${doc}`
      )
      assert.strictEqual(alone.stdout, "")
      const lines = write(
        "em2.jsonl",
        line("a", [{ role: "user", content: "hello there" }]) + "\n" + line("b", []) + "\n"
      )
      const both = yield* runCli(["replay", lines, doc, "--tokenizer", "words", "--format", "json"])
      assert.isTrue(Exit.isSuccess(both.exit), both.stderr)
      assert.strictEqual(
        both.stderr,
        `rollmem: warning: ${lines}:2: conversation "b" has no message; skipped\n` +
          `rollmem: warning: ${doc}: conversation "em2.json" has no message; skipped`
      )
      const report = JSON.parse(both.stdout) as {
        totals: { conversations: number }
        conversations: ReadonlyArray<{ id: string }>
      }
      assert.strictEqual(report.totals.conversations, 1)
      assert.deepStrictEqual(report.conversations.map((c) => c.id), ["a"])
      const inArray = write("arr.json", JSON.stringify([{ id: "x", messages: [] }, { id: "y", contents: [] }]))
      assert.deepStrictEqual(Input.parseText(inArray, "arr.json", JSON.stringify([{ id: "x", messages: [] }])), {
        conversations: [],
        problems: [],
        warnings: [`${inArray}[0]: conversation "x" has no message; skipped`]
      })
    }))
})

describe("rollmem replay warnings", () => {
  it.effect("an unknown role is replayed with a warning naming file:line and the message, once per role", () =>
    Effect.gen(function*() {
      const file = write(
        "roles.jsonl",
        [
          line("a", [{ role: "user", content: "hello there" }, { role: "assistant", content: "hi" }]),
          line("b", [
            { role: "user", content: "where is my parcel" },
            { role: "asistant", content: "on its way" },
            { role: "user", content: "thanks" },
            { role: "asistant", content: "welcome" },
            { role: "Tool", content: "{}" }
          ])
        ].join("\n") + "\n"
      )
      const r = yield* runCli(["replay", file, "--tokenizer", "words", "--format", "json"])
      assert.isTrue(Exit.isSuccess(r.exit), r.stderr)
      assert.strictEqual(
        r.stderr,
        [
          `rollmem: warning: ${file}:2: unknown role "asistant" at message 1 ${ROLES}; replayed as given`,
          `rollmem: warning: ${file}:2: unknown role "Tool" at message 4 ${ROLES}; replayed as given`
        ].join("\n")
      )
      const report = JSON.parse(r.stdout) as { conversations: ReadonlyArray<{ id: string; messages: number }> }
      assert.deepStrictEqual(report.conversations.map((c) => [c.id, c.messages]), [["a", 2], ["b", 5]])
    }))

  it.effect("a conversation id read twice, in one file or across files, is replayed with a warning naming both", () =>
    Effect.gen(function*() {
      const first = write(
        "first.jsonl",
        [line("a", [{ role: "user", content: "one" }]), "", line("a", [{ role: "user", content: "two" }])].join("\n")
      )
      const second = write("second.json", JSON.stringify([{ id: "a", messages: [{ role: "user", content: "3" }] }]))
      const r = yield* runCli(["replay", first, second, "--tokenizer", "words", "--format", "json"])
      assert.isTrue(Exit.isSuccess(r.exit), r.stderr)
      assert.strictEqual(
        r.stderr,
        [
          `rollmem: warning: ${first}:3: conversation id "a" was already read at ${first}:1; both are replayed`,
          `rollmem: warning: ${second}[0]: conversation id "a" was already read at ${first}:1; both are replayed`
        ].join("\n")
      )
      const report = JSON.parse(r.stdout) as { conversations: ReadonlyArray<{ id: string }> }
      assert.deepStrictEqual(report.conversations.map((c) => c.id), ["a", "a", "a"])
      // --show of that id shows the first, and says which of how many
      const shown = yield* runCli(["replay", first, second, "--tokenizer", "words", "--format", "json", "--show", "a"])
      assert.isTrue(Exit.isSuccess(shown.exit), shown.stderr)
      assert.strictEqual(
        shown.stderr,
        [
          `rollmem: warning: ${first}:3: conversation id "a" was already read at ${first}:1; both are replayed`,
          `rollmem: warning: ${second}[0]: conversation id "a" was already read at ${first}:1; both are replayed`,
          `rollmem: showing the first of 3 conversations with id "a" (${first}:1)`
        ].join("\n")
      )
      assert.strictEqual((JSON.parse(shown.stdout) as { show: { context: string } }).show.context, "user: one")
      // an id read once: nothing said
      const once = yield* runCli(["replay", second, "--tokenizer", "words", "--format", "json", "--show", "a"])
      assert.isTrue(Exit.isSuccess(once.exit), once.stderr)
      assert.strictEqual(once.stderr, "")
    }))

  it.effect("the example transcript gives no warning", () =>
    Effect.gen(function*() {
      const r = yield* runCli(["replay", example, "--tokenizer", "words", "--format", "json"])
      assert.isTrue(Exit.isSuccess(r.exit))
      assert.strictEqual(r.stderr, "")
    }))

  it.effect("a malformed usage is skipped with a warning naming file:line, the message and the figure (contract 13.2)", () =>
    Effect.gen(function*() {
      const ask = { role: "user", content: "alpha beta gamma delta" }
      const file = write(
        "usage-malformed.jsonl",
        [
          { id: "good", messages: [ask, { role: "assistant", content: "ok", usage: { prompt_tokens: 6 } }] },
          {
            id: "openai",
            messages: [
              ask,
              { role: "assistant", content: "ok", usage: { prompt_tokens: "6" } },
              { role: "user", content: "epsilon" },
              { role: "assistant", content: "done", usage: { prompt_tokens: -3 } },
              { role: "user", content: "zeta" },
              { role: "assistant", content: "end", usage: { prompt_tokens: 10 } }
            ]
          },
          {
            id: "anthropic",
            system: "be brief",
            messages: [ask, {
              role: "assistant",
              content: [{ type: "text", text: "ok" }],
              usage: { input_tokens: 2, cache_read_input_tokens: -1, output_tokens: 1 }
            }]
          },
          { id: "wire", messages: [ask, { role: "assistant", content: "ok", metadata: { usage: "12" } }] },
          {
            id: "gemini",
            contents: [
              { role: "user", parts: [{ text: "alpha beta gamma delta" }] },
              { role: "model", parts: [{ text: "ok" }], usageMetadata: { promptTokenCount: 1.5 } }
            ]
          },
          { id: "none", messages: [ask, { role: "assistant", content: "ok", usage: { completion_tokens: 3 } }] }
        ].map((c) => JSON.stringify(c)).join("\n") + "\n"
      )
      const r = yield* runCli(["replay", file, "--tokenizer", "words", "--strategy", "buffer", "--format", "json"])
      assert.isTrue(Exit.isSuccess(r.exit), r.stderr)
      const skipped = (line: number, message: number, problem: string) =>
        `rollmem: warning: ${file}:${line}: the usage of message ${message} (assistant) is skipped: ${problem}`
      assert.strictEqual(
        r.stderr,
        [
          skipped(2, 1, `prompt_tokens is "6", not a non-negative integer`),
          skipped(2, 3, "prompt_tokens is -3, not a non-negative integer"),
          skipped(3, 2, "cache_read_input_tokens is -1, not a non-negative integer"),
          skipped(4, 1, `usage is "12", not an object`),
          skipped(5, 1, "promptTokenCount is 1.5, not a non-negative integer"),
          skipped(6, 1, "it holds no prompt count (inputTokens, input_tokens, prompt_tokens, promptTokenCount)")
        ].join("\n")
      )
      const report = JSON.parse(r.stdout) as {
        conversations: ReadonlyArray<{ id: string; usageSamples: number; usageRatio: number | null }>
        totals: { usageSamples: number }
      }
      // good: 6 over 4 words. openai: only its last answer, 10 over the 8 words read back before it.
      assert.deepStrictEqual(report.conversations.map((c) => [c.id, c.usageSamples, c.usageRatio]), [
        ["good", 1, 1.5],
        ["openai", 1, 10 / 8],
        ["anthropic", 0, null],
        ["wire", 0, null],
        ["gemini", 0, null],
        ["none", 0, null]
      ])
      assert.strictEqual(report.totals.usageSamples, 2)
    }))

  it("Input.usageWarnings: one line per assistant message whose usage cannot be read; none for a readable one", () => {
    const answer = (usage: unknown) => Message.assistant("ok", { metadata: { usage: usage as never } })
    assert.deepStrictEqual(
      Input.usageWarnings("t.jsonl:3", [
        Message.user("hi"),
        answer({ prompt_tokens: -0.5 }),
        answer({ inputTokens: 12 }),
        answer({ input_tokens: 5, cache_creation_input_tokens: "7" }),
        answer(null),
        Message.user("no usage read on a user message", { metadata: { usage: "x" } })
      ]),
      [
        "t.jsonl:3: the usage of message 1 (assistant) is skipped: prompt_tokens is -0.5, not a non-negative integer",
        `t.jsonl:3: the usage of message 3 (assistant) is skipped: cache_creation_input_tokens is "7", not a non-negative integer`,
        "t.jsonl:3: the usage of message 4 (assistant) is skipped: usage is null, not an object"
      ]
    )
    assert.deepStrictEqual(Input.usageWarnings("x", [answer({ input_tokens: 5, cache_read_input_tokens: null })]), [])
    // a prompt count of 0 is a usage read wrong (contract 16.4: recordUsage refuses it), skipped with a warning
    assert.deepStrictEqual(
      Input.usageWarnings("x", [
        answer({ promptTokenCount: 0 }),
        answer({ input_tokens: 0, cache_read_input_tokens: 0 })
      ]),
      [
        "x: the usage of message 0 (assistant) is skipped: its prompt count is 0, not a positive integer",
        "x: the usage of message 1 (assistant) is skipped: its prompt count is 0, not a positive integer"
      ]
    )
    assert.strictEqual(Usage.reportedInputTokens({ usage: { prompt_tokens: 0 } }), undefined)
    // a message's metadata holds JSON only; an object built by hand may hold NaN
    assert.strictEqual(
      Usage.reportedUsageProblem({ usage: { prompt_tokens: Number.NaN } }),
      "prompt_tokens is NaN, not a non-negative integer"
    )
    assert.strictEqual(Usage.reportedInputTokens({ usage: { prompt_tokens: Number.NaN } }), undefined)
  })

  it("Input.roleWarnings: one line per unknown role, at its first message; none for the known roles", () => {
    assert.deepStrictEqual(
      Input.roleWarnings("t.jsonl:3", [
        Message.user("hi"),
        Message.make("asistant", "hello"),
        Message.make("developer", "be brief"),
        Message.make("asistant", "again")
      ]),
      [`t.jsonl:3: unknown role "asistant" at message 1 ${ROLES}; replayed as given`]
    )
    assert.deepStrictEqual(
      Input.roleWarnings("x", Input.knownRoles.map((role) => Message.make(role, "text"))),
      []
    )
  })
})

describe("rollmem replay of a conversation whose memory fails", () => {
  // 200 words of system message, pinned, in a window of 100 words: the memory fails with ContextWindowError
  const system = "You are a helpful assistant. ".repeat(40).trim()
  const ok = (id: string) => line(id, [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }])
  const big = line("big", [
    { role: "system", content: system },
    { role: "user", content: "hi" },
    { role: "assistant", content: "hello" }
  ])
  const failure =
    "conversation \"big\": pinned message (200 tokens) cannot fit: with the pinned messages held (0) it would exceed " +
    "the context window less the reserve (100 - 0 = 100); not added"
  const args = ["--tokenizer", "words", "--context-window", "100", "--pin-system"]

  it.effect("is named with file:line, left out, and the others are still replayed; exit code 1 at the end", () =>
    Effect.gen(function*() {
      const file = write("one-fails.jsonl", `${ok("ok1")}\n${big}\n${ok("ok2")}\n`)
      const r = yield* runCli(["replay", file, ...args, "--format", "json"])
      assert.isTrue(Exit.isFailure(r.exit))
      assert.instanceOf(failureOf(r), CliFailure)
      assert.strictEqual(
        r.stderr,
        `rollmem: ${file}:2: ${failure}\nrollmem: 1 conversation failed and is left out of the report (see above)`
      )
      const report = JSON.parse(r.stdout) as {
        conversations: ReadonlyArray<{ id: string }>
        totals: { conversations: number; messages: number }
      }
      assert.deepStrictEqual(report.conversations.map((c) => c.id), ["ok1", "ok2"])
      assert.deepStrictEqual([report.totals.conversations, report.totals.messages], [2, 4])
    }))

  it.effect("every conversation failing prints no empty report; --show of a failed one says it failed", () =>
    Effect.gen(function*() {
      const file = write("all-fail.jsonl", `${big}\n`)
      const r = yield* runCli(["replay", file, ...args])
      assert.isTrue(Exit.isFailure(r.exit))
      assert.strictEqual(r.stdout, "")
      assert.strictEqual(
        r.stderr,
        `rollmem: ${file}:1: ${failure}\nrollmem: 1 conversation failed and is left out of the report (see above)`
      )
      const mixed = write("show-failed.jsonl", `${ok("ok1")}\n${big}\n`)
      const shown = yield* runCli(["replay", mixed, ...args, "--show", "big"])
      assert.isTrue(Exit.isFailure(shown.exit))
      assert.strictEqual(
        shown.stderr,
        `rollmem: ${mixed}:2: ${failure}\nrollmem: invalid option --show: conversation "big" failed (see above)`
      )
      // the first conversation of a repeated id failed: the first that replayed is shown, and stderr says so
      const again = write("show-again.jsonl", `${big}\n${ok("big")}\n`)
      const second = yield* runCli(["replay", again, ...args, "--format", "json", "--show", "big"])
      assert.isTrue(Exit.isFailure(second.exit))
      assert.strictEqual(
        second.stderr,
        [
          `rollmem: ${again}:1: ${failure}`,
          `rollmem: warning: ${again}:2: conversation id "big" was already read at ${again}:1; both are replayed`,
          `rollmem: showing the first of 2 conversations with id "big" that replayed (${again}:2)`,
          "rollmem: 1 conversation failed and is left out of the report (see above)"
        ].join("\n")
      )
      assert.strictEqual(
        (JSON.parse(second.stdout) as { show: { context: string } }).show.context,
        "user: hi\nassistant: hello"
      )
    }))

  it.effect("in --compare: named with its set, left out of every column", () =>
    Effect.gen(function*() {
      const file = write("compare-fails.jsonl", `${ok("ok1")}\n${big}\n${ok("ok2")}\n`)
      const r = yield* runCli([
        "replay",
        file,
        "--tokenizer",
        "words",
        "--format",
        "json",
        "--compare",
        "context-window=100,pin-system"
      ])
      assert.isTrue(Exit.isFailure(r.exit))
      assert.strictEqual(
        r.stderr,
        `rollmem: ${file}:2: conversation "big" (--compare "context-window=100,pin-system"): ${
          failure.replace(/^conversation "big": /, "")
        }\nrollmem: 1 conversation failed and is left out of the report (see above)`
      )
      const { compare } = JSON.parse(r.stdout) as {
        compare: ReadonlyArray<{ conversations: ReadonlyArray<{ id: string }> }>
      }
      assert.deepStrictEqual(compare.map((c) => c.conversations.map((f) => f.id)), [["ok1", "ok2"], ["ok1", "ok2"]])
    }))
})
