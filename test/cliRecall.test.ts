/**
 * `rollmem replay --store S --archive` and `rollmem recall` (docs/contract.md
 * sections 13 and 17.2), run in-process on a real SQLite file: every message
 * that left the buffer archived once, a replay again replacing the archive,
 * the matches printed ranked with position and role, and every bad input one
 * line with a non-zero exit.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { CliFailure } from "../src/cli/Command.js"
import { ConversationStore } from "../src/store.js"
import { example, failureOf, type Run, runCli } from "./support/cli.js"

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rollmem-cli-recall-"))
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }))

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

const archived = (db: string, id: string) =>
  Effect.flatMap(ConversationStore.ConversationStore, (store) => store.archive!.messages(id)).pipe(
    Effect.map((rows) => rows.map((row) => row.position)),
    Effect.provide(ConversationStore.layerSqlite({ filename: db }))
  )

const replay = ["--tokenizer", "words", "--max-tokens", "200"]

describe("rollmem replay --archive", () => {
  it.effect("archives every evicted message once; replaying again replaces the archive", () =>
    Effect.gen(function*() {
      const db = path.join(tmp, "a.db")
      const out = succeeded(yield* runCli(["replay", example, ...replay, "--store", `sqlite:${db}`, "--archive"]))
      assert.include(
        out,
        `Saved 1 conversation to sqlite:${db}, with its archive (read one back: rollmem show <id> --store ` +
          `sqlite:${db}; search one: rollmem recall <id> "query" --store sqlite:${db}).`
      )
      const json = JSON.parse(succeeded(yield* runCli(["replay", example, ...replay, "--format", "json"])))
      const evicted = json.conversations[0].evictedMessages as number
      const first = yield* archived(db, "support-chat")
      assert.deepStrictEqual(first, Array.from({ length: evicted }, (_, i) => i))
      succeeded(yield* runCli(["replay", example, ...replay, "--store", `sqlite:${db}`, "--archive"]))
      assert.deepStrictEqual(yield* archived(db, "support-chat"), first)
    }))

  it.effect("without --store it is refused before anything is read", () =>
    Effect.gen(function*() {
      assertOneLineFailure(
        yield* runCli(["replay", example, "--archive"]),
        "rollmem: invalid option --archive: archives beside the stored conversations: give --store"
      )
    }))
})

describe("rollmem recall", () => {
  const db = path.join(tmp, "r.db")
  const ready = Effect.asVoid(runCli(["replay", example, ...replay, "--store", `sqlite:${db}`, "--archive"]))

  it.effect("prints the matches, best first, with position, role and fold", () =>
    Effect.gen(function*() {
      yield* ready
      const out = succeeded(
        yield* runCli([
          "recall",
          "support-chat",
          "dana.whitfield@example.com",
          "--store",
          `sqlite:${db}`,
          "--limit",
          "2"
        ])
      )
      assert.strictEqual(
        out,
        `2 archived turns of support-chat in sqlite:${db} matching "dana.whitfield@example.com", best first:\n\n` +
          `1. position 4, assistant (fold 3, exact 1, score 12.11)\n` +
          `   lookup_customer({"email": "dana.whitfield@example.com"})\n\n` +
          `2. position 3, user (fold 3, exact 1, score 12.11)\n` +
          `   Sure, it's dana.whitfield@example.com`
      )
      const json = JSON.parse(succeeded(
        yield* runCli([
          "recall",
          "support-chat",
          "dana.whitfield@example.com",
          "--store",
          `sqlite:${db}`,
          "--format",
          "json",
          "--limit",
          "1"
        ])
      ))
      assert.deepStrictEqual(Object.keys(json), ["conversation", "query", "matches"])
      assert.deepStrictEqual(
        json.matches.map((
          m: { position: number; fold: number; role: string; exact: number }
        ) => [m.position, m.fold, m.role, m.exact]),
        [[4, 3, "assistant", 1]]
      )
      assert.strictEqual(json.matches[0].message.tool_calls[0].name, "lookup_customer")
      assertOneLineFailure(
        yield* runCli(["recall", "nobody", "tent", "--store", `sqlite:${db}`]),
        `rollmem: conversation nobody has no archived turns in sqlite:${db} (not stored, or stored without --archive)`
      )
      assert.strictEqual(
        succeeded(yield* runCli(["recall", "support-chat", "zzzqx", "--store", `sqlite:${db}`])),
        `No archived turn of support-chat in sqlite:${db} matches "zzzqx".`
      )
      for (const query of ["", "   "]) {
        assertOneLineFailure(
          yield* runCli(["recall", "support-chat", query, "--store", `sqlite:${db}`]),
          "rollmem: invalid option query: is empty: give the words to search for"
        )
      }
    }))

  it.effect("no --store, a missing file, a limit below 1: one line each", () =>
    Effect.gen(function*() {
      yield* ready
      assertOneLineFailure(
        yield* runCli(["recall", "support-chat", "tent"]),
        "rollmem: invalid option --store: is required (sqlite:<path>, postgres://… or redis://…)"
      )
      const missing = path.join(tmp, "missing.db")
      assertOneLineFailure(
        yield* runCli(["recall", "support-chat", "tent", "--store", `sqlite:${missing}`]),
        `rollmem: invalid option --store: no such file ${missing}`
      )
      assertOneLineFailure(
        yield* runCli(["recall", "support-chat", "tent", "--store", `sqlite:${db}`, "--limit", "0"]),
        "rollmem: invalid option --limit: must be a positive integer, got 0"
      )
      assert.isFalse(fs.existsSync(missing))
    }))
})
