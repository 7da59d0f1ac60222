/**
 * The Promise facade's archives on the Effect 4 line (docs/contract.md
 * section 17), as the Effect 3 line's test/promiseArchive.test.ts runs them:
 * `Archive.memory()` in every class, the database archives in the
 * asynchronous classes only (a synchronous class refuses them, naming the
 * class to use), `recall` synchronous or a Promise as the class's adds.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import {
  Archive,
  ArchiveError,
  AsyncRollingMemory,
  AsyncSummaryMemory,
  BufferMemory,
  ConfigError,
  RollingMemory,
  SummaryMemory,
  WindowMemory
} from "../src/promise/index.js"
import { ci, pgSchema, probePg, skipNote } from "./store/servers.js"

const pg = await probePg()

const tempFile = (name: string) => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "rollmem-e4-archive-")), name)

const at = (matches: ReadonlyArray<{ readonly position: number }>) => matches.map((m) => m.position)

describe("Archive.memory() on Effect 4", () => {
  it("a synchronous memory archives into it and recalls synchronously", async () => {
    const archive = Archive.memory()
    const memory = new RollingMemory({ maxTokens: 4, summarize: "drop", archive, conversationId: "c" })
    memory.addUserMessage("read src/cli/Measure.ts")
    memory.addAssistantMessage("done")
    memory.addUserMessage("next step")
    assert.deepStrictEqual(
      (await archive.messages("c")).map((a) => [a.position, a.fold, a.message.content]),
      [[0, 1, "read src/cli/Measure.ts"], [1, 1, "done"]]
    )
    assert.deepStrictEqual(at(memory.recall("src/cli/Measure.ts")), [0])
    assert.deepStrictEqual(at(await archive.search("c", "done")), [1])
    assert.deepStrictEqual(memory.toJSON(), {
      version: 3,
      summary: "",
      buffer: [{ role: "user", content: "next step" }],
      conversationId: "c",
      nextPosition: 3,
      positions: [2]
    })
    assert.isTrue(Archive.isSync(archive))
    await archive.close()
  })

  it("window and summary memories take it", () => {
    const archive = Archive.memory()
    const window = new WindowMemory({ maxMessages: 1, archive, conversationId: "w" })
    window.addUserMessage("alpha")
    window.addUserMessage("beta")
    assert.deepStrictEqual(at(window.recall("alpha")), [0])
    const summary = new SummaryMemory({ summarize: (s, m) => `${s}${m.length}`, archive, conversationId: "s" })
    summary.addUserMessage("gamma")
    assert.deepStrictEqual(at(summary.recall("gamma")), [0])
  })

  it("recall without an archive throws ConfigError", () => {
    assert.throws(() => new BufferMemory().recall("x"), ConfigError, "recall needs an archive")
  })
})

describe("database archives on Effect 4", () => {
  it("a synchronous class refuses them, naming the class to use", () => {
    const archive = Archive.sqlite(tempFile("a.db"))
    assert.isFalse(Archive.isSync(archive))
    const refused = (make: () => unknown) => {
      try {
        make()
      } catch (error) {
        return error instanceof ConfigError ? [error.option, error.description] : error
      }
      return "not refused"
    }
    assert.deepStrictEqual(refused(() => new RollingMemory({ summarize: "drop", archive })), [
      "archive",
      "a sqlite archive needs I/O, which a synchronous memory cannot wait for: use AsyncRollingMemory, or Archive.memory()"
    ])
    assert.deepStrictEqual(refused(() => new SummaryMemory({ summarize: (s) => s, archive })), [
      "archive",
      "a sqlite archive needs I/O, which a synchronous memory cannot wait for: use AsyncSummaryMemory, or Archive.memory()"
    ])
    assert.deepStrictEqual(refused(() => new WindowMemory({ maxMessages: 2, archive })), [
      "archive",
      "a sqlite archive needs I/O, which a synchronous memory cannot wait for: use AsyncRollingMemory with " +
      "summarize: \"drop\", or the Effect API's, or Archive.memory()"
    ])
    assert.deepStrictEqual(refused(() => new RollingMemory({ summarize: "drop", archive: {} as Archive.Archive })), [
      "archive",
      "must be an archive (Archive.memory(), Archive.sqlite(path) or Archive.postgres(url)), got object"
    ])
  })

  it("an archive that cannot be opened rejects the add with ArchiveError naming why, never a bare Error", async () => {
    const archive = Archive.sqlite(path.join(os.tmpdir(), "rollmem-no-such-dir", "sub", "x.db"))
    const memory = new AsyncRollingMemory({
      maxTokens: 4,
      summarize: "drop",
      archive,
      tokenCounter: (text) => text.split(" ").length
    })
    await memory.addUserMessage("hello 0")
    await memory.addUserMessage("hello 1")
    const error = await memory.addUserMessage("hello 2").then(() => undefined, (e: unknown) => e)
    assert.instanceOf(error, ArchiveError)
    assert.strictEqual(
      (error as ArchiveError).message,
      `archive failed: cannot open the sqlite archive: cannot open ${
        path.join(os.tmpdir(), "rollmem-no-such-dir", "sub", "x.db")
      }: unable to open database file`
    )
    // nothing lost: the turns are still in the buffer
    assert.deepStrictEqual(memory.buffer.map((m) => m.content), ["hello 0", "hello 1", "hello 2"])
  })

  it("AsyncRollingMemory folds into SQLite and recalls; the file holds the Effect 3 line's rows", async () => {
    const file = tempFile("b.db")
    const archive = Archive.sqlite(file)
    const memory = new AsyncRollingMemory({
      maxTokens: 4,
      summarize: async (summary, messages) => `${summary}${messages.length}`,
      archive,
      conversationId: "c"
    })
    await memory.addUserMessage("open src/core/recall.ts")
    await memory.addAssistantMessage("opened")
    await memory.addUserMessage("now the bench")
    assert.strictEqual(memory.summary, "2")
    assert.deepStrictEqual(at(await memory.recall("src/core/recall.ts")), [0])
    assert.deepStrictEqual((await archive.messages("c")).map((a) => a.message.content), [
      "open src/core/recall.ts",
      "opened"
    ])
    const summary = new AsyncSummaryMemory({ summarize: async (s) => `${s}.`, archive, conversationId: "s" })
    await summary.addUserMessage("delta")
    assert.deepStrictEqual(at(await summary.recall("delta")), [0])
    await archive.close()
    // another archive on the same file reads what this one wrote
    const again = Archive.sqlite(file)
    assert.deepStrictEqual((await again.messages("c")).map((a) => [a.position, a.fold, a.message.content]), [
      [0, 1, "open src/core/recall.ts"],
      [1, 1, "opened"]
    ])
    await again.close()
  })
})

describe("Archive.postgres on Effect 4", () => {
  if (pg.unreachable !== undefined) {
    if (ci) it(`PostgreSQL at ${pg.url} answers (CI=true)`, () => assert.fail(pg.unreachable))
    else it.skip(`PostgreSQL tests ${skipNote(pg)}`, () => {})
    return
  }
  it("AsyncRollingMemory folds into PostgreSQL (a schema of its own) and recalls", async () => {
    const scope = await Effect.runPromise(Scope.make())
    try {
      const { url } = await Effect.runPromise(Scope.provide(pgSchema(), scope))
      const archive = Archive.postgres(url, { table: "facade_archive" })
      assert.isFalse(Archive.isSync(archive))
      const memory = new AsyncRollingMemory({
        maxTokens: 4,
        summarize: async (summary, messages) => `${summary}${messages.length}`,
        archive,
        conversationId: "c"
      })
      await memory.addUserMessage("open src/core/recall.ts")
      await memory.addAssistantMessage("opened")
      await memory.addUserMessage("now the bench")
      assert.strictEqual(memory.summary, "2")
      assert.deepStrictEqual(at(await memory.recall("src/core/recall.ts")), [0])
      assert.deepStrictEqual((await archive.messages("c")).map((a) => [a.position, a.fold, a.message.content]), [
        [0, 1, "open src/core/recall.ts"],
        [1, 1, "opened"]
      ])
      await archive.close()
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })
})
