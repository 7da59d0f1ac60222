/**
 * The artifact ledger on real data (docs/contract.md section 14.2): the long
 * coding sessions replayed exactly as the bench's policy section replays its
 * "turn + pinned + ledger 1000" set (`bench/src/sections/policies.ts`), the
 * retention figure it reports asserted exactly. The data is read in place
 * (`$ROLLMEM_DATA`, else `../shared/data`); skipped when the file is absent.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Compare from "../src/cli/Compare.js"
import * as Input from "../src/cli/Input.js"
import * as Replay from "../src/cli/Replay.js"
import { Retention } from "../src/index.js"
import * as Tokenizers from "../src/tokenizers.js"
import { dataPath, hasData } from "./support/data.js"

const LONG = "conversations-long.jsonl"

/** The bench's base options (the command line's defaults, 8,000 tokens) and its ledger set of 1,000 tokens. */
const base: Replay.Options = {
  strategy: "rolling",
  maxTokens: 8_000,
  maxMessages: 20,
  summarizer: "extractive",
  summaryTokens: 400
}
const ledger1000 = "boundary=turn,pin-system,max-summary-tokens=1400,ledger-tokens=1000"

describe("the artifact ledger on the long coding sessions", () => {
  it.skipIf(!hasData(LONG))(
    "8,000 tokens, turn, pinned, extractive, ledger 1,000: 88.5% of the file paths kept (1,175 of 1,327)",
    () =>
      Effect.gen(function*() {
        const inputs = yield* Input.readInputs([dataPath(LONG)])
        const columns = yield* Compare.columnsOf(base, [ledger1000])
        const outcome = yield* Replay.replay(inputs.conversations, columns[1].config)
        const totals = outcome.report.totals
        assert.strictEqual(totals.conversations, 24)
        assert.deepStrictEqual(Retention.ofKinds(totals.artifacts, ["path"]), { named: 1327, kept: 1175 })
        assert.strictEqual(Retention.ratio(Retention.ofKinds(totals.artifacts, ["path"])).toFixed(3), "0.885")
        assert.deepStrictEqual(totals.artifacts, {
          named: 2432,
          kept: 1837,
          byKind: {
            code: { named: 10, kept: 9 },
            hash: { named: 237, kept: 64 },
            id: { named: 371, kept: 275 },
            path: { named: 1327, kept: 1175 },
            url: { named: 333, kept: 290 },
            uuid: { named: 154, kept: 24 }
          }
        })
        // the ledger costs no summarizer call: the same 628 as without it (the bench's calls goal)
        assert.strictEqual(totals.summarizerCalls, 628)
      }).pipe(
        Effect.provide(Layer.merge(NodeContext.layer, Tokenizers.layerByName("o200k_base"))),
        Effect.runPromise
      ),
    120_000
  )
})
