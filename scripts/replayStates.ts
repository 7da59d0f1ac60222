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
import { Memory, MemoryState, Message, Summarizer } from "../src/index.js"
import { dataPath, hasData } from "../test/support/data.js"
import { REPLAY_FILES, REPLAY_SETS, summarizeRequest } from "../test/support/replaySets.js"

const summarizer = Layer.succeed(
  Summarizer.Summarizer,
  Summarizer.fromFunction(Summarizer.honouringMode(summarizeRequest))
)

const out: Array<string> = []
// `--restore FILE`: each line `{ set, state }` (a state JSON text the other line wrote) restored with the
// set's options and written back, one line `{ state }` or `{ error }` each (docs/contract.md section 2.1)
const restore = process.argv.indexOf("--restore")
if (restore >= 0) {
  const input = fs.readFileSync(process.argv[restore + 1], "utf8").split("\n").filter((line) => line !== "")
  for (const line of input) {
    const { set: name, state } = JSON.parse(line) as { readonly set: string; readonly state: string }
    const set = REPLAY_SETS.find((s) => s.name === name)!
    const result = Effect.runSync(Effect.either(
      Effect.gen(function*() {
        const restored = yield* MemoryState.fromJSON(JSON.parse(state))
        const memory = yield* Memory.make({ strategy: set.strategy, ...set.options } as Memory.Options, restored)
        return JSON.stringify(yield* memory.toJSON)
      }).pipe(Effect.provide(summarizer))
    ))
    out.push(JSON.stringify(result._tag === "Right" ? { state: result.right } : { error: result.left._tag }))
  }
}
for (const file of restore >= 0 ? [] : REPLAY_FILES) {
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
