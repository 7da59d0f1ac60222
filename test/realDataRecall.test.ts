/**
 * The recall goals of issue 30 on real transcripts (docs/contract.md section
 * 17): `conversations-long.jsonl` replayed at `maxTokens` 8,000 (o200k_base,
 * a summarizer that answers at once) with an in-memory archive. Artifacts
 * named only in archived turns, recalled with the artifact as the query:
 * a turn naming it in the top 5 for at least 98% of them; a three-word
 * query of an archived turn (seeded rule, `support/recallFigures.ts`): the
 * turn itself in the top 5, goal at least 90%. The counts are asserted
 * exactly, so a change of ranking shows here: 2,557 of 2,837 (90.1%) since
 * the words as written rank before the score (2,540, 89.5%, before); 179
 * of the 280 misses are turns whose text another archived turn repeats word
 * for word, which no query can tell apart.
 *
 * The data is read in place (`$ROLLMEM_DATA`, else `../shared/data`).
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as Retention from "../src/core/artifacts.js"
import { loadTokenCounter } from "../src/layers/Tokenizers.js"
import { Archive, RollingMemory } from "../src/promise/index.js"
import { dataPath, hasData } from "./support/data.js"
import { measureRecall, type Replayed, share } from "./support/recallFigures.js"

const FILE = "conversations-long.jsonl"

const load = (): Array<Replayed> =>
  fs.readFileSync(dataPath(FILE), "utf8").split("\n").filter((line) => line.trim() !== "").map((line) => {
    const parsed = JSON.parse(line) as {
      id: string
      messages: Array<{ role: string; content: string; tool_calls?: Array<unknown>; tool_call_id?: string }>
    }
    return {
      id: parsed.id,
      facade: parsed.messages.map((m) => ({
        role: m.role,
        content: m.content,
        options: m.tool_calls === undefined && m.tool_call_id === undefined ? undefined : {
          ...(m.tool_calls === undefined || m.tool_calls.length === 0 ? {} : { toolCalls: m.tool_calls }),
          ...(m.tool_call_id === undefined ? {} : { toolCallId: m.tool_call_id })
        }
      }))
    }
  })

describe.skipIf(!hasData(FILE))("recall on the long sessions at 8,000 tokens", () => {
  it(
    "artifacts top-5: 100% (goal 98%); three-word queries top-5: 90.1% (goal 90%)",
    { timeout: 300_000 },
    async () => {
      const count = await loadTokenCounter("o200k_base")
      const archive = Archive.memory()
      const figures = await measureRecall(load(), {
        memory: (id, maxTokens) =>
          new RollingMemory({
            maxTokens,
            summarize: () => "summary",
            tokenCounter: count,
            archive,
            conversationId: id
          }),
        archived: (id) => archive.messages(id),
        extract: Retention.extract
      }, 8000)
      const { queries: _, ...counts } = figures
      assert.deepStrictEqual(counts, {
        conversations: 24,
        archived: 3716,
        artifacts: {
          asked: 1880,
          found: 1880,
          byKind: {
            code: { asked: 6, found: 6 },
            hash: { asked: 209, found: 209 },
            id: { asked: 291, found: 291 },
            path: { asked: 977, found: 977 },
            url: { asked: 261, found: 261 },
            uuid: { asked: 136, found: 136 }
          }
        },
        threeWords: { asked: 2837, found: 2557, skipped: 879 }
      })
      assert.isAtLeast(share(figures.artifacts), 0.98)
      assert.isAtLeast(share(figures.threeWords), 0.9)
    }
  )
})
