/**
 * `ConversationSearch` of `rollmem/ai` on the Effect 4 line: the Effect 3
 * line's toolkit case (`test/adapters/conversationSearch.test.ts`) with the
 * same answer, on `effect/ai`'s `Toolkit`, and its failure and budget.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as Core from "../../../src/core/conversationSearch.js"
import * as ConversationSearch from "../../src/ai/ConversationSearch.js"
import { Archive, Message, RollingMemory, Summarizer } from "../../src/index.js"

const expected = "[position 0, user]\nthe build fails in src/cli/Measure.ts"

const run = (
  memory: ConversationSearch.Recaller,
  params: { readonly query: string; readonly limit?: number },
  options?: ConversationSearch.Options
) =>
  Effect.gen(function*() {
    const handlers = yield* ConversationSearch.toolkit
    const results = yield* Stream.runCollect(yield* handlers.handle("conversation_search", params))
    const last = results[results.length - 1]
    return [last.isFailure, last.result] as const
  }).pipe(Effect.provide(ConversationSearch.layer(memory, options)))

const folded = Effect.gen(function*() {
  const memory = yield* RollingMemory.make({ maxTokens: 6, archive: Archive.makeMemory(), conversationId: "c" })
  yield* memory.add(Message.user("the build fails in src/cli/Measure.ts"))
  yield* memory.add(Message.assistant("fixed the import"))
  yield* memory.add(Message.user("thanks a lot"))
  return memory
})

describe("ConversationSearch (rollmem/ai on Effect 4)", () => {
  it("is the conversation_search tool with the shared description", () => {
    assert.strictEqual(ConversationSearch.ConversationSearchTool.name, "conversation_search")
    assert.strictEqual(
      ConversationSearch.ConversationSearchTool.description?.startsWith("Search the earlier turns"),
      true
    )
  })

  it.effect("the toolkit's handler on a memory's recall", () =>
    Effect.gen(function*() {
      const memory = yield* folded
      assert.deepStrictEqual(yield* run(memory, { query: "src/cli/Measure.ts", limit: 1 }), [false, expected])
      assert.deepStrictEqual(yield* run(memory, { query: "Paris" }), [false, "No archived turn matches \"Paris\"."])
    }).pipe(Effect.provide(Summarizer.layerDrop)))

  it.effect("answers within its budget, counted with its count: the shared render of the recall", () =>
    Effect.gen(function*() {
      const memory = yield* folded
      const count = (text: string) => text.length
      const found = yield* memory.recall("src/cli/Measure.ts", { limit: 1 })
      const answer = yield* run(memory, { query: "src/cli/Measure.ts", limit: 1 }, { count, maxTokens: 40 })
      assert.deepStrictEqual(answer, [false, Core.render("src/cli/Measure.ts", found, { count, maxTokens: 40 })])
      assert.notStrictEqual(answer[1], expected)
    }).pipe(Effect.provide(Summarizer.layerDrop)))

  it.effect("a memory without an archive: the search fails as the tool's failure, returned to the model", () =>
    Effect.gen(function*() {
      const memory = yield* RollingMemory.make({ maxTokens: 6 })
      assert.deepStrictEqual(yield* run(memory, { query: "x" }), [
        true,
        "search failed: invalid option archive: recall needs an archive: build the memory with one"
      ])
    }).pipe(Effect.provide(Summarizer.layerDrop)))
})
