/**
 * The facade's stored conversations with `archive: true` (docs/contract.md
 * section 17.2): archived beside the conversation, found by the memory's
 * `recall` inside `use()` and by `Conversations.recall`.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "vitest"
import { ConfigError } from "../src/Errors.js"
import { Conversations } from "../src/promise/index.js"

const dir = mkdtempSync(join(tmpdir(), "rollmem-conversations-archive-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

for (const store of ["memory", `sqlite:${join(dir, "c.db")}`] as const) {
  describe(store.split(":")[0], () => {
    it("archives what leaves the window and finds it", async () => {
      const conversations = new Conversations({ store, strategy: "window", maxMessages: 2, archive: true })
      try {
        for (const text of ["the build fails in src/cli/Measure.ts", "fixed the import", "thanks", "next task"]) {
          await conversations.use("chat-1", (memory) => memory.addUserMessage(text))
        }
        const inside = await conversations.use("chat-1", (memory) => memory.recall("src/cli/Measure.ts"))
        assert.deepStrictEqual(inside.map((m) => [m.position, m.fold, m.message.content]), [
          [0, 1, "the build fails in src/cli/Measure.ts"]
        ])
        const found = await conversations.recall("chat-1", "import", { limit: 1 })
        assert.deepStrictEqual(found.map((m) => [m.position, m.message.role, m.message.content]), [
          [1, "user", "fixed the import"]
        ])
        await conversations.delete("chat-1")
        assert.deepStrictEqual(await conversations.recall("chat-1", "import"), [])
      } finally {
        await conversations.dispose()
      }
    })
  })
}

it("archive must be a boolean", () => {
  assert.throws(
    () => new Conversations({ store: "memory", strategy: "window", maxMessages: 2, archive: "yes" as never }),
    ConfigError,
    "must be a boolean"
  )
})
