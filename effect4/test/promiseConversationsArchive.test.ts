/**
 * The facade's stored conversations with `archive: true` on the Effect 4 line
 * (docs/contract.md section 17.2), as the Effect 3 suite has them: archived
 * beside the conversation, found by the memory's `recall` inside `use()` and
 * by `Conversations.recall`, on the memory store as on SQLite. A store
 * layer that keeps no archive refuses `archive: true` at the first call.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigError } from "../src/Errors.js"
import { Conversations } from "../src/promise/index.js"
import * as ConversationStore from "../src/store/ConversationStore.js"

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

// the memory store without its archive: a store of one's own that keeps none
const noArchive = Layer.effect(
  ConversationStore.ConversationStore,
  Effect.gen(function*() {
    const { archive: _, ...store } = yield* ConversationStore.ConversationStore
    return store
  })
).pipe(Layer.provide(ConversationStore.layerMemory))

it("a store without an archive refuses archive: true at the first call, saving nothing", async () => {
  const conversations = new Conversations({ store: noArchive, strategy: "window", maxMessages: 2, archive: true })
  try {
    const error = await conversations.use("chat-1", (memory) => memory.addUserMessage("lost")).then(
      () => undefined,
      (e: unknown) => e
    )
    assert.instanceOf(error, ConfigError)
    assert.deepStrictEqual([(error as ConfigError).option, (error as ConfigError).description], [
      "archive",
      "this store keeps no archive: use a store of rollmem/store"
    ])
    assert.strictEqual(await conversations.load("chat-1"), undefined)
  } finally {
    await conversations.dispose()
  }
})

it("archive must be a boolean", () => {
  assert.throws(
    () => new Conversations({ store: "memory", strategy: "window", maxMessages: 2, archive: "yes" as never }),
    ConfigError,
    "must be a boolean"
  )
})
