/**
 * A state's provider compaction in the memory (docs/contract.md sections
 * 2.1 and 15.6): read back first, counted, kept across folds, written back
 * byte for byte, removed by `clear`: the cases of
 * `test/support/compactionCases.ts`, which the Effect 4 line runs too.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Memory, MemoryState, Message, Summarizer } from "../src/index.js"
import { runCompactionCases, summarize } from "./support/compactionCases.js"

const summarizer = Layer.succeed(Summarizer.Summarizer, Summarizer.fromFunction(Summarizer.honouringMode(summarize)))

runCompactionCases({
  name: "Effect 3",
  run: (c) =>
    Effect.runSync(
      Effect.gen(function*() {
        const state = yield* MemoryState.fromJSON(JSON.parse(c.state))
        const memory = yield* Memory.make({ strategy: c.strategy, ...c.options } as Memory.Options, state)
        for (const [role, content] of c.adds) yield* memory.add(Message.make(role, content))
        if (c.clear === true) yield* memory.clear
        const messages = yield* memory.messages
        return {
          messages: MemoryState.toJSON(MemoryState.make("", messages)).buffer ?? [],
          tokens: [
            yield* memory.bufferTokens,
            yield* memory.pinnedTokens,
            yield* memory.summaryTokens,
            yield* memory.contextTokens
          ] as const,
          state: JSON.stringify(yield* memory.toJSON)
        }
      }).pipe(Effect.provide(summarizer))
    )
}, { assert, describe, it })
