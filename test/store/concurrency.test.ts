/**
 * 50 fibers of one process write the same conversation through
 * Conversation.withMemory on every store layer, with a summarizer that
 * folds: no turn is lost or applied twice, and each writer's order holds.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Schedule } from "effect"
import * as Message from "../../src/schema/Message.js"
import * as Conversation from "../../src/store/Conversation.js"
import * as ConversationStore from "../../src/store/ConversationStore.js"
import { assertAccounting } from "./accounting.js"
import { countingSaves, layerFold, turn } from "./fold.js"
import { stores } from "./layers.js"

const Store = ConversationStore.ConversationStore
const FIBERS = 50
const CALLS = 2

// At most FIBERS * CALLS saves succeed, so no writer conflicts more often than that.
const options: Conversation.Options = {
  strategy: "rolling",
  maxTokens: 8,
  retry: Schedule.recurs(FIBERS * CALLS)
}

describe("Conversation.withMemory under 50 concurrent fibers", () => {
  for (const { layer: base, name } of stores) {
    it.effect(name, () => {
      const { counts, layer } = countingSaves(base)
      return Effect.gen(function*() {
        const writers = Array.from({ length: FIBERS }, (_, w) => `f${w}`)
        yield* Effect.forEach(
          writers,
          (writer) =>
            Effect.forEach(
              Array.from({ length: CALLS }, (_, k) => k),
              (k) =>
                Conversation.withMemory("shared", options, (memory) =>
                  Effect.gen(function*() {
                    yield* Effect.yieldNow()
                    yield* memory.add(Message.user(turn(writer, 2 * k)))
                    yield* memory.add(Message.assistant(turn(writer, 2 * k + 1)))
                  })),
              { discard: true }
            ),
          { concurrency: "unbounded", discard: true }
        )
        const stored = Option.getOrThrow(yield* Effect.flatMap(Store, (store) => store.load("shared")))
        assert.strictEqual(stored.revision, FIBERS * CALLS, "one save per call")
        assertAccounting(stored.state, writers, 2 * CALLS)
        assert.isAbove(counts.conflicts, 0, "writers did conflict")
      }).pipe(Effect.provide(layer), Effect.provide(layerFold))
    })
  }
})
