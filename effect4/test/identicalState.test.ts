/**
 * Identical state across the two lines (issue 31): every conversation of the
 * real transcripts, replayed through each option set of
 * `test/support/replaySets.ts` with the same summarizer, leaves the Effect 4
 * line with byte for byte the state JSON the Effect 3 line writes. The
 * Effect 3 half runs as its own process (`scripts/replayStates.ts`, on the
 * repository's own `effect` 3 install); this file replays the Effect 4 half
 * and compares. The sets with summary segments (docs/contract.md section
 * 10.9) also cross the lines: each Effect 3 state restored here writes the
 * same JSON back, and each of this line's states restored by the Effect 3
 * line (`scripts/replayStates.ts --restore`) too. Skipped when the
 * transcripts are absent. A state holding a provider's compaction
 * (docs/contract.md section 15.6, the states of
 * `test/support/compactionCases.ts`) crosses both ways too, with no
 * transcript needed.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Result } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { compactionCases } from "../../test/support/compactionCases.js"
import { dataPath, hasData } from "../../test/support/data.js"
import {
  keepsSegments,
  REPLAY_FILES,
  REPLAY_SETS,
  type ReplaySet,
  summarizeRequest
} from "../../test/support/replaySets.js"
import {
  BufferMemory,
  Memory,
  MemoryState,
  Message,
  RollingMemory,
  Summarizer,
  SummaryMemory,
  WindowMemory
} from "../src/index.js"

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
  Summarizer.fromFunction(Summarizer.honouringMode(summarizeRequest))
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

/** A state JSON text restored on this line with the set's options, written back (or the failure's tag). */
const restoreHere = (set: ReplaySet, state: string): string => {
  const exit = Effect.runSync(Effect.result(
    Effect.gen(function*() {
      const restored = yield* MemoryState.fromJSON(JSON.parse(state))
      const memory = yield* Memory.make({ strategy: set.strategy, ...set.options } as Memory.Options, restored)
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
    // this line's segment states, restored by the Effect 3 line below
    const crossing: Array<{ readonly set: string; readonly state: string }> = []
    let restoredHere = 0
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
          if (keepsSegments(set) && line.state !== undefined) {
            // the Effect 3 line's state restored here writes the same JSON back
            const back = restoreHere(set, line.state)
            if (back !== line.state) assert.strictEqual(back, line.state, `restored ${set.name} ${file}[${index}]`)
            restoredHere++
            crossing.push({ set: set.name, state: mine! })
          }
        }
      }
    }
    assert.strictEqual(k, expected.length)
    // every conversation of the four files, through the eight option sets
    assert.strictEqual(compared, 515 * REPLAY_SETS.length)
    assert.strictEqual(REPLAY_SETS.length, 8)
    // this line's segment states restored by the Effect 3 line write the same JSON back
    const input = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "rollmem-segments-")), "states.jsonl")
    fs.writeFileSync(input, crossing.map((c) => JSON.stringify(c)).join("\n") + "\n")
    const restored = execFileSync(
      process.execPath,
      ["--import", "tsx", "scripts/replayStates.ts", "--restore", input],
      { cwd: root, maxBuffer: 1 << 30, encoding: "utf8" }
    ).split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as { state?: string; error?: string })
    fs.rmSync(path.dirname(input), { recursive: true, force: true })
    assert.strictEqual(restored.length, crossing.length)
    for (let i = 0; i < crossing.length; i++) {
      if (restored[i].state !== crossing[i].state) {
        assert.strictEqual(
          restored[i].state ?? `error:${restored[i].error}`,
          crossing[i].state,
          `${crossing[i].set} #${i}`
        )
      }
    }
    // every conversation of both segment sets crossed both ways, and at least one state has segments
    assert.strictEqual(restoredHere, 515 * 2)
    assert.isTrue(crossing.some((c) => c.state.includes("\"segments\"")))
  }, 180_000)

  it("a state holding a provider compaction crosses the lines both ways byte for byte", () => {
    // the states both lines write in test/support/compactionCases.ts, restored with a set of their strategy
    const states = compactionCases.filter((c) => c.expected.state.includes("\"compaction\"")).map((c) => ({
      set: c.options.summary === "segments" ? "rolling-segments" : c.strategy,
      state: c.expected.state
    }))
    assert.strictEqual(states.length, 7)
    for (const { set, state } of states) {
      assert.strictEqual(restoreHere(REPLAY_SETS.find((s) => s.name === set)!, state), state, set)
    }
    const input = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "rollmem-compaction-")), "states.jsonl")
    fs.writeFileSync(input, states.map((c) => JSON.stringify(c)).join("\n") + "\n")
    const restored = execFileSync(
      process.execPath,
      ["--import", "tsx", "scripts/replayStates.ts", "--restore", input],
      { cwd: root, maxBuffer: 1 << 30, encoding: "utf8" }
    ).split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as { state?: string; error?: string })
    fs.rmSync(path.dirname(input), { recursive: true, force: true })
    assert.deepStrictEqual(
      restored.map((r) => r.state ?? `error:${r.error}`),
      states.map((c) => c.state)
    )
  }, 60_000)
})
