/**
 * Section 4: throughput of each TokenCounter layer on the same text (every
 * message's token text, once per sample), through the service as a memory
 * calls it. gpt-tokenizer's merge cache is cleared before every sample.
 */
import { Effect, Layer } from "effect"
import { clearMergeCache as clearCl100k } from "gpt-tokenizer/encoding/cl100k_base"
import { clearMergeCache as clearO200k } from "gpt-tokenizer/encoding/o200k_base"
import { TokenCounter } from "../../../dist/index.js"
import { layerCl100kBase, layerJsTiktoken, layerO200kBase } from "../../../dist/tokenizers.js"
import type { Conversation } from "../data.js"
import { measure, type RunOptions, type Timing } from "../harness.js"

export interface TokenizerRow {
  readonly layer: string
  readonly timing: Timing
  /** Tokens the layer counts in the text (its own unit). */
  readonly tokens: number
  readonly tokensPerSecond: number
  /** Million UTF-16 characters per second. */
  readonly mcharsPerSecond: number
  /** Mean µs per message. */
  readonly usPerMessage: number
}

const layers: ReadonlyArray<readonly [string, Layer.Layer<TokenCounter.TokenCounter>]> = [
  ["gpt-tokenizer o200k_base (layerO200kBase)", layerO200kBase],
  ["gpt-tokenizer cl100k_base (layerCl100kBase)", layerCl100kBase],
  ["js-tiktoken o200k_base (layerJsTiktoken)", layerJsTiktoken("o200k_base")],
  ["js-tiktoken cl100k_base (layerJsTiktoken)", layerJsTiktoken("cl100k_base")],
  ["word count (default)", TokenCounter.layerWordCount]
]

export const runTokenizers = async (
  conversations: ReadonlyArray<Conversation>,
  options: RunOptions
): Promise<Array<TokenizerRow>> => {
  const texts = conversations.flatMap((c) => c.messages.map((m) => m.tokenText))
  let chars = 0
  for (const t of texts) chars += t.length
  const rows: Array<TokenizerRow> = []
  for (const [name, layer] of layers) {
    const counter = await Effect.runPromise(Effect.provide(TokenCounter.TokenCounter, layer))
    const countAll = Effect.reduce(texts, 0, (n, t) => Effect.map(counter.count(t), (k) => n + k))
    const tokens = Effect.runSync(countAll)
    const [timing] = await measure(`tokenizer ${name}`, [{
      name,
      fn: () => Effect.runSync(countAll),
      beforeEach: () => {
        clearO200k()
        clearCl100k()
      }
    }], options)
    const seconds = timing.median / 1000
    rows.push({
      layer: name,
      timing,
      tokens,
      tokensPerSecond: tokens / seconds,
      mcharsPerSecond: chars / seconds / 1e6,
      usPerMessage: (timing.median * 1000) / texts.length
    })
  }
  return rows
}
