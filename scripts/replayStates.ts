/**
 * The Effect 3 line's half of the identical-state check (issue 31): replays
 * every conversation of the transcripts through each option set of
 * `test/support/replaySets.ts` and prints one JSON line per conversation,
 * `{ set, file, index, state }` (`state` the memory's state JSON as a string,
 * or `error`, the failure's tag). `effect4/test/identicalState.test.ts` runs
 * it and compares the Effect 4 line's states byte for byte.
 *
 *     node --import tsx scripts/replayStates.ts
 */
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { Memory, Message, Summarizer } from "../src/index.js"
import { dataPath, hasData } from "../test/support/data.js"
import { REPLAY_FILES, REPLAY_SETS, summarize } from "../test/support/replaySets.js"

const summarizer = Layer.succeed(
  Summarizer.Summarizer,
  Summarizer.fromFunction((summary, messages, request) => summarize(summary, messages, request.maxSummaryTokens))
)

const out: Array<string> = []
for (const file of REPLAY_FILES) {
  if (!hasData(file)) continue
  const lines = fs.readFileSync(dataPath(file), "utf8").split("\n").filter((line) => line.trim() !== "")
  for (const set of REPLAY_SETS) {
    lines.forEach((line, index) => {
      const raw = (JSON.parse(line) as { readonly messages: ReadonlyArray<unknown> }).messages
      const messages = raw.map((m) => Message.decodeUnknown(m)).flatMap((m) => m._tag === "Right" ? [m.right] : [])
      const result = Effect.runSync(Effect.either(
        Effect.gen(function*() {
          const memory = yield* Memory.make({ strategy: set.strategy, ...set.options } as Memory.Options)
          for (const message of messages) yield* memory.add(message)
          return JSON.stringify(yield* memory.toJSON)
        }).pipe(Effect.provide(summarizer))
      ))
      out.push(JSON.stringify(
        result._tag === "Right"
          ? { set: set.name, file: path.basename(file), index, state: result.right }
          : { set: set.name, file: path.basename(file), index, error: result.left._tag }
      ))
    })
  }
}
process.stdout.write(out.join("\n") + "\n")
