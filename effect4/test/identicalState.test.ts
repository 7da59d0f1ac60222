/**
 * Identical state across the two lines (issue 31): every conversation of the
 * real transcripts, replayed through each option set of
 * `test/support/replaySets.ts` with the same summarizer, leaves the Effect 4
 * line with byte for byte the state JSON the Effect 3 line writes. The
 * Effect 3 half runs as its own process (`scripts/replayStates.ts`, on the
 * repository's own `effect` 3 install); this file replays the Effect 4 half
 * and compares. Skipped when the transcripts are absent.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Result } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { dataPath, hasData } from "../../test/support/data.js"
import { REPLAY_FILES, REPLAY_SETS, type ReplaySet, summarize } from "../../test/support/replaySets.js"
import { BufferMemory, Message, RollingMemory, Summarizer, SummaryMemory, WindowMemory } from "../src/index.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")

interface Line {
  readonly set: string
  readonly file: string
  readonly index: number
  readonly state?: string
  readonly error?: string
}

const summarizer = Layer.succeed(
  Summarizer.Summarizer,
  Summarizer.fromFunction((summary, messages, request) => summarize(summary, messages, request.maxSummaryTokens))
)

const build = (set: ReplaySet) => {
  const options = set.options as never
  switch (set.strategy) {
    case "rolling":
      return RollingMemory.make(options)
    case "buffer":
      return BufferMemory.make(options)
    case "window":
      return WindowMemory.make(options)
    case "summary":
      return SummaryMemory.make(options)
  }
}

const replay = (set: ReplaySet, messages: ReadonlyArray<Message.Message>): Line["state"] | Line["error"] => {
  const exit = Effect.runSync(Effect.result(
    Effect.gen(function*() {
      const memory = yield* build(set)
      for (const message of messages) yield* memory.add(message)
      return JSON.stringify(yield* memory.toJSON)
    }).pipe(Effect.provide(summarizer))
  ))
  return Result.isSuccess(exit) ? exit.success : `error:${exit.failure._tag}`
}

const present = REPLAY_FILES.every(hasData)

describe("identical state on both lines", () => {
  it.skipIf(!present)("replaying the transcripts gives byte-identical state JSON after every conversation", () => {
    const output = execFileSync(process.execPath, ["--import", "tsx", "scripts/replayStates.ts"], {
      cwd: root,
      maxBuffer: 1 << 30,
      encoding: "utf8"
    })
    const expected = output.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Line)
    let compared = 0
    let k = 0
    for (const file of REPLAY_FILES) {
      const lines = fs.readFileSync(dataPath(file), "utf8").split("\n").filter((line) => line.trim() !== "")
      const conversations = lines.map((line) =>
        (JSON.parse(line) as { readonly messages: ReadonlyArray<unknown> }).messages
          .map(Message.decodeUnknown).flatMap((m) => Result.isSuccess(m) ? [m.success] : [])
      )
      for (const set of REPLAY_SETS) {
        for (let index = 0; index < conversations.length; index++) {
          const line = expected[k++]
          assert.deepStrictEqual([line.set, line.file, line.index], [set.name, file, index])
          const mine = replay(set, conversations[index])
          const theirs = line.state ?? `error:${line.error}`
          if (mine !== theirs) assert.strictEqual(mine, theirs, `${set.name} ${file}[${index}]`)
          compared++
        }
      }
    }
    assert.strictEqual(k, expected.length)
    // every conversation of the four files, through the six option sets
    assert.strictEqual(compared, 515 * REPLAY_SETS.length)
  }, 180_000)
})
