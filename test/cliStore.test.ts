/**
 * `rollmem replay --store sqlite:<path>` and `rollmem show`, run in-process on
 * a real SQLite file in a temporary folder: the report is the one of a run
 * without the store, the stored state is the final state of a replay by hand
 * through the library, `show` prints it back, and every bad input is one line
 * with a non-zero exit.
 */
import * as ValidationError from "@effect/cli/ValidationError"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Option, Schema } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { CliFailure } from "../src/cli/Command.js"
import {
  BufferMemory,
  ExtractiveSummarizer,
  type Memory,
  MemoryState,
  Message,
  RollingMemory,
  Summarizer,
  SummaryMemory,
  TokenCounter,
  WindowMemory
} from "../src/index.js"
import { ConversationStore } from "../src/store.js"
import { example, failureOf, readJsonl, type Run, runCli } from "./support/cli.js"

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rollmem-cli-store-"))
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }))

const run = runCli

const succeeded = (r: Run): string => {
  assert.isTrue(Exit.isSuccess(r.exit), r.stderr)
  assert.strictEqual(r.stderr, "")
  return r.stdout
}

const assertOneLineFailure = (r: Run, line: string) => {
  assert.isTrue(Exit.isFailure(r.exit))
  assert.instanceOf(failureOf(r), CliFailure)
  assert.strictEqual(r.stderr, line)
  assert.strictEqual(r.stdout, "")
}

const supportChat = readJsonl(example)[0]

/**
 * The final state of a replay by hand through the library (word counts), the
 * memory built with the extractive summarizer (400 tokens) unless `summarize`
 * is false.
 */
const finalState = (
  messages: ReadonlyArray<Message.Message>,
  make: Effect.Effect<Memory.Memory, unknown, Summarizer.Summarizer>,
  summarize = true
) =>
  Effect.gen(function*() {
    const summarizer = yield* ExtractiveSummarizer.make({ maxTokens: 400 })
    const memory = yield* Effect.provideService(make, Summarizer.Summarizer, summarize ? summarizer : Summarizer.drop)
    for (const message of messages) yield* memory.add(message)
    return {
      state: MemoryState.toJSON(yield* memory.state),
      context: yield* memory.context,
      summary: yield* memory.summary,
      buffer: yield* memory.buffer
    }
  }).pipe(Effect.provide(TokenCounter.layerWordCount))

/** The stored record of `id`, read through the library's own store. */
const stored = (db: string, id: string) =>
  Effect.map(
    Effect.flatMap(ConversationStore.ConversationStore, (store) => store.load(id)),
    Option.map((s) => ({ revision: s.revision, state: MemoryState.toJSON(s.state) }))
  ).pipe(Effect.provide(ConversationStore.layerSqlite({ filename: db })))

const cases: ReadonlyArray<
  readonly [ReadonlyArray<string>, Effect.Effect<Memory.Memory, unknown, Summarizer.Summarizer>]
> = [
  [[], RollingMemory.make({ maxTokens: 2000 })],
  [["--max-tokens", "300", "--summarizer", "none"], RollingMemory.make({ maxTokens: 300 })],
  [["--strategy", "buffer"], BufferMemory.make()],
  [["--strategy", "window", "--max-messages", "8"], WindowMemory.make({ maxMessages: 8 })],
  [["--strategy", "summary"], SummaryMemory.make()]
]

describe("rollmem replay --store sqlite:<path>", () => {
  it.effect("reports exactly the figures of a run without the store, and saves the final state of a replay by hand", () =>
    Effect.gen(function*() {
      for (const [i, [options, make]] of cases.entries()) {
        const db = path.join(tmp, `strategies-${i}.db`)
        const args = [example, "--tokenizer", "words", "--format", "json", ...options]
        const without = succeeded(yield* run(["replay", ...args]))
        const withStore = succeeded(yield* run(["replay", ...args, "--store", `sqlite:${db}`]))
        assert.strictEqual(withStore, without, options.join(" "))
        const byHand = yield* finalState(supportChat.messages, make, !options.includes("none"))
        assert.deepStrictEqual(yield* stored(db, "support-chat"), Option.some({ revision: 1, state: byHand.state }))
      }
    }))

  it.effect("the table gains one closing line naming the file; replaying again replaces the state (revision 2)", () =>
    Effect.gen(function*() {
      const db = path.join(tmp, "table.db")
      const without = succeeded(yield* run(["replay", example, "--tokenizer", "words"]))
      const first = succeeded(yield* run(["replay", example, "--tokenizer", "words", "--store", `sqlite:${db}`]))
      assert.strictEqual(
        first,
        `${without}\n\nSaved 1 conversation to sqlite:${db} (read one back: rollmem show <id> --store sqlite:${db}).`
      )
      const { state } = yield* finalState(supportChat.messages, RollingMemory.make({ maxTokens: 2000 }))
      succeeded(yield* run(["replay", example, "--tokenizer", "words", "--store", `sqlite:${db}`, "--format", "json"]))
      assert.deepStrictEqual(yield* stored(db, "support-chat"), Option.some({ revision: 2, state }))
    }))

  it.effect("stores every conversation of a file under its own id", () =>
    Effect.gen(function*() {
      const db = path.join(tmp, "two.jsonl.db")
      const second = supportChat.messages.slice(0, 5)
      const file = path.join(tmp, "two.jsonl")
      const line = fs.readFileSync(example, "utf8").trim()
      fs.writeFileSync(
        file,
        `${line}\n${
          JSON.stringify({ id: "short", messages: Schema.encodeSync(Schema.Array(Message.Message))(second) })
        }\n`
      )
      const out = succeeded(
        yield* run(["replay", file, "--tokenizer", "words", "--strategy", "buffer", "--store", `sqlite:${db}`])
      )
      assert.isTrue(
        out.endsWith(`Saved 2 conversations to sqlite:${db} (read one back: rollmem show <id> --store sqlite:${db}).`)
      )
      // A store whose name a shell would split or glob is printed quoted, ready to paste.
      const spaced = path.join(tmp, "it's here.db")
      const quoted = succeeded(
        yield* run(["replay", file, "--tokenizer", "words", "--strategy", "buffer", "--store", `sqlite:${spaced}`])
      )
      assert.isTrue(
        quoted.endsWith(`(read one back: rollmem show <id> --store 'sqlite:${spaced.replace("'", "'\\''")}').`),
        quoted
      )
      const short = yield* finalState(second, BufferMemory.make())
      assert.deepStrictEqual(yield* stored(db, "short"), Option.some({ revision: 1, state: short.state }))
      assert.strictEqual(Option.getOrThrow(yield* stored(db, "support-chat")).state.buffer?.length, 47)
    }))
})

describe("rollmem show <id> --store sqlite:<path>", () => {
  const db = path.join(tmp, "show.db")
  const replayed = Effect.gen(function*() {
    if (!fs.existsSync(db)) {
      succeeded(
        yield* run(["replay", example, "--tokenizer", "words", "--max-tokens", "300", "--store", `sqlite:${db}`])
      )
    }
    return yield* finalState(supportChat.messages, RollingMemory.make({ maxTokens: 300 }))
  })

  it.effect("prints the restored summary apart from its buffered turns; the context is the one replay --show gives", () =>
    Effect.gen(function*() {
      const { buffer, context, state, summary } = yield* replayed
      assert.strictEqual(state.buffer?.length, 11)
      assert.notStrictEqual(state.summary, "")
      const out = succeeded(yield* run(["show", "support-chat", "--store", `sqlite:${db}`]))
      const header = "Stored conversation support-chat (revision 1): a summary and 11 buffered messages"
      assert.strictEqual(
        out,
        [
          header,
          "=".repeat(header.length),
          "",
          "Summary (sent first, as one system message):",
          ...summary.split("\n").map((line) => `  ${line}`),
          "",
          "Buffer (the recent turns, verbatim: 11 messages):",
          ...buffer.map(String)
        ].join("\n")
      )
      const report = JSON.parse(
        succeeded(
          yield* run([
            "replay",
            example,
            "--tokenizer",
            "words",
            "--max-tokens",
            "300",
            "--show",
            "support-chat",
            "--format",
            "json"
          ])
        )
      ) as { readonly show: { readonly context: string } }
      assert.strictEqual(report.show.context, context)
    }))

  it.effect("--format json prints the stored state in the wire format", () =>
    Effect.gen(function*() {
      const { state } = yield* replayed
      const out = succeeded(yield* run(["show", "support-chat", "--store", `sqlite:${db}`, "--format", "json"]))
      assert.strictEqual(out, JSON.stringify(state, null, 2))
      assert.deepStrictEqual(
        Object.keys(JSON.parse(out) as Record<string, unknown>),
        ["version", "summary", "buffer"]
      )
    }))
})

describe("rollmem show: an option it does not know", () => {
  it.effect("is refused, named with the closest known option, wherever it stands", () =>
    Effect.gen(function*() {
      const db = path.join(tmp, "unknown-option.db")
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [["show", "support-chat", "--stor", `sqlite:${db}`], "rollmem: unknown option --stor; did you mean --store?"],
        [["show", "--stor", `sqlite:${db}`, "support-chat"], "rollmem: unknown option --stor; did you mean --store?"],
        [
          ["show", "support-chat", "--store", `sqlite:${db}`, "--fromat", "json"],
          "rollmem: unknown option --fromat; did you mean --format?"
        ],
        [
          ["show", "support-chat", "--store", `sqlite:${db}`, "--json"],
          "rollmem: unknown option --json; see rollmem show --help"
        ],
        [
          ["show", "support-chat", "--store", `sqlite:${db}`, "--format"],
          "rollmem: option --format given twice, without its value, or out of place"
        ]
      ]
      for (const [args, line] of cases) {
        const r = yield* run(args)
        assert.isTrue(Exit.isFailure(r.exit))
        assert.isTrue(ValidationError.isValidationError(failureOf(r)), args.join(" "))
        // One line, no blank line after it.
        assert.strictEqual(r.stderr, line)
        assert.strictEqual(r.stdout, "")
      }
    }))
})

describe("rollmem show --help", () => {
  it.effect("names the type of every option: --format lists its choices", () =>
    Effect.gen(function*() {
      const r = yield* run(["show", "--help"])
      const lines = r.stdout.replace(/\u001b\[[0-9;]*m/g, "").split("\n")
      assert.isTrue(Exit.isSuccess(r.exit))
      assert.strictEqual(
        lines.find((line) => line.startsWith("$ rollmem show")),
        "$ rollmem show [--store STORE] [--format table | json] <id>"
      )
      const typeOf = (heading: string) => lines[lines.indexOf(heading) + 2]
      assert.strictEqual(typeOf("<id>"), "  A user-defined piece of text.")
      assert.strictEqual(typeOf("--store STORE"), "  A user-defined piece of text.")
      assert.strictEqual(typeOf("--format table | json"), "  One of the following: table, json")
    }))
})

describe("rollmem --store bad input: one line, non-zero exit", () => {
  it.effect("an unknown id, a malformed --store value, a missing file or directory, no --store", () =>
    Effect.gen(function*() {
      const db = path.join(tmp, "errors.db")
      succeeded(yield* run(["replay", example, "--tokenizer", "words", "--store", `sqlite:${db}`]))
      const absent = path.join(tmp, "absent.db")
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [["show", "nobody", "--store", `sqlite:${db}`], `rollmem: no conversation with id "nobody" in sqlite:${db}`],
        [
          ["show", "support-chat", "--store", "postgres:/x"],
          "rollmem: invalid option --store: expected sqlite:<path>, postgres://… or redis://…, got \"postgres:/x\""
        ],
        [
          ["show", "support-chat", "--store", "memory"],
          "rollmem: invalid option --store: expected sqlite:<path>, postgres://… or redis://…, got \"memory\""
        ],
        [
          ["show", "support-chat", "--store", "redis://"],
          "rollmem: invalid option --store: \"redis://\" is not a URL with a host (redis://host:port/…)"
        ],
        [
          ["show", "support-chat", "--store", "postgres://rollmem:secret@127.0.0.1:1/x"],
          "rollmem: invalid option --store: cannot open postgres://rollmem:***@127.0.0.1:1/x: PgClient: Failed to connect"
        ],
        [
          ["show", "support-chat", "--store", db],
          `rollmem: invalid option --store: expected sqlite:<path>, postgres://… or redis://…, got "${db}"`
        ],
        [
          ["show", "support-chat", "--store", "sqlite:"],
          "rollmem: invalid option --store: expected sqlite:<path>, postgres://… or redis://…, got \"sqlite:\" with no path"
        ],
        [
          ["show", "support-chat", "--store", `sqlite:${absent}`],
          `rollmem: invalid option --store: no such file ${absent}`
        ],
        [
          ["show", "support-chat"],
          "rollmem: invalid option --store: is required (sqlite:<path>, postgres://… or redis://…)"
        ],
        [
          ["replay", example, "--tokenizer", "words", "--store", "sqlite"],
          "rollmem: invalid option --store: expected sqlite:<path>, postgres://… or redis://…, got \"sqlite\""
        ],
        [
          ["replay", example, "--tokenizer", "words", "--store", `sqlite:${path.join(tmp, "no", "dir", "x.db")}`],
          `rollmem: invalid option --store: no such directory ${path.join(tmp, "no", "dir")}`
        ]
      ]
      for (const [args, line] of cases) assertOneLineFailure(yield* run(args), line)
      // A --format that is not a choice is refused by @effect/cli's parser, naming the option.
      const xml = yield* run(["show", "support-chat", "--store", `sqlite:${db}`, "--format", "xml"])
      assert.isTrue(Exit.isFailure(xml.exit))
      assert.isTrue(ValidationError.isValidationError(failureOf(xml)))
      assert.strictEqual(xml.stderr, "rollmem: --format: 'xml' is not one of table, json")
      assert.strictEqual(xml.stdout, "")
      assert.isFalse(fs.existsSync(absent))
      assert.isFalse(fs.existsSync(path.join(tmp, "no")))
    }))

  it.effect("a stored value that does not decode is named in one line", () =>
    Effect.gen(function*() {
      const db = path.join(tmp, "corrupt.db")
      succeeded(yield* run(["replay", example, "--tokenizer", "words", "--store", `sqlite:${db}`]))
      yield* Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql`UPDATE rollmem_conversations SET state = '{"version": 2, "summary": 3}' WHERE id = 'support-chat'`
      ).pipe(Effect.provide(SqliteClient.layer({ filename: db })))
      const r = yield* run(["show", "support-chat", "--store", `sqlite:${db}`])
      assert.isTrue(Exit.isFailure(r.exit))
      assert.strictEqual(r.stdout, "")
      assert.match(r.stderr, /^rollmem: cannot read stored conversation "support-chat": [^\n]*summary[^\n]*$/)
    }))
})
