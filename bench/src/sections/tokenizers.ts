/**
 * Section 4: every TokenCounter layer of `rollmem/tokenizers` on the same
 * text (every message's token text, once per sample), through the service
 * as a memory calls it, with cold merge caches before every sample: speed,
 * and agreement with a reference on the same messages.
 *
 * The reference of an OpenAI encoding is gpt-tokenizer's count (exact; the
 * tests prove all three engines equal on every real message). Claude and
 * Gemini layers are estimates with no provider count to compare with: their
 * rows compare with o200k_base, to show how far apart the vocabularies
 * count. Framing rows add the provider's per-message overhead: their total
 * minus the plain layer's is what the framing adds on this data.
 */
import { Effect, Layer } from "effect"
import { TokenCounter } from "../../../dist/index.js"
import {
  layerCl100kBase,
  layerGptTokenizer,
  layerJsTiktoken,
  layerModel,
  layerO200kBase
} from "../../../dist/tokenizers.js"
import type { Conversation } from "../data.js"
import { measure, type RunOptions, type Timing } from "../harness.js"
import { clearCaches } from "../rollmem.js"

export interface TokenizerRow {
  readonly layer: string
  /** Exact (the provider's encoding), an estimate, or the word count. */
  readonly counts: "exact" | "estimate" | "words"
  readonly timing: Timing
  /** Tokens the layer counts in the text (its own unit). */
  readonly tokens: number
  readonly tokensPerSecond: number
  /** Million UTF-16 characters per second. */
  readonly mcharsPerSecond: number
  /** Mean µs per message. */
  readonly usPerMessage: number
  /** The row compared with: its counts per message. */
  readonly reference: string
  /** Messages whose count equals the reference's. */
  readonly equalMessages: number
  /** This layer's total over the reference's total. */
  readonly totalOverReference: number
}

type AnyLayer = Layer.Layer<TokenCounter.TokenCounter, unknown>

interface Contender {
  readonly name: string
  readonly counts: TokenizerRow["counts"]
  readonly layer: AnyLayer
  readonly reference: string
}

const GPT_O200K = "gpt-tokenizer o200k_base (layerGptTokenizer)"
const GPT_CL100K = "gpt-tokenizer cl100k_base (layerGptTokenizer)"
const CLAUDE = "ai-tokenizer claude-sonnet-4-5 (layerModel)"
const GEMINI = "ai-tokenizer gemini-2.5-pro (layerModel)"
const GPT_4O = "ai-tokenizer o200k_base (layerO200kBase)"

const contenders: ReadonlyArray<Contender> = [
  { name: GPT_4O, counts: "exact", layer: layerO200kBase, reference: GPT_O200K },
  { name: GPT_O200K, counts: "exact", layer: layerGptTokenizer("o200k_base"), reference: GPT_O200K },
  {
    name: "js-tiktoken o200k_base (layerJsTiktoken)",
    counts: "exact",
    layer: layerJsTiktoken("o200k_base"),
    reference: GPT_O200K
  },
  {
    name: "ai-tokenizer cl100k_base (layerCl100kBase)",
    counts: "exact",
    layer: layerCl100kBase,
    reference: GPT_CL100K
  },
  { name: GPT_CL100K, counts: "exact", layer: layerGptTokenizer("cl100k_base"), reference: GPT_CL100K },
  {
    name: "js-tiktoken cl100k_base (layerJsTiktoken)",
    counts: "exact",
    layer: layerJsTiktoken("cl100k_base"),
    reference: GPT_CL100K
  },
  { name: CLAUDE, counts: "estimate", layer: layerModel("claude-sonnet-4-5"), reference: GPT_O200K },
  { name: GEMINI, counts: "estimate", layer: layerModel("gemini-2.5-pro"), reference: GPT_O200K },
  {
    name: "gpt-4o with framing (+4 per message)",
    counts: "exact",
    layer: layerModel("gpt-4o", { framing: true }),
    reference: GPT_4O
  },
  {
    name: "gpt-5 with framing (+5 per message)",
    counts: "exact",
    layer: layerModel("gpt-5", { framing: true }),
    reference: GPT_4O
  },
  {
    name: "claude-sonnet-4-5 with framing (+3 per message)",
    counts: "estimate",
    layer: layerModel("claude-sonnet-4-5", { framing: true }),
    reference: CLAUDE
  },
  {
    name: "gemini-2.5-pro with framing (+0 per message)",
    counts: "estimate",
    layer: layerModel("gemini-2.5-pro", { framing: true }),
    reference: GEMINI
  },
  { name: "word count (default)", counts: "words", layer: TokenCounter.layerWordCount, reference: GPT_O200K }
]

export const runTokenizers = async (
  conversations: ReadonlyArray<Conversation>,
  options: RunOptions
): Promise<Array<TokenizerRow>> => {
  const texts = conversations.flatMap((c) => c.messages.map((m) => m.tokenText))
  let chars = 0
  for (const t of texts) chars += t.length
  const countsOf = new Map<string, ReadonlyArray<number>>()
  const rows: Array<TokenizerRow> = []
  // References first: every row's reference is counted before the row.
  const ordered = [...contenders].sort((a, b) => Number(a.name !== a.reference) - Number(b.name !== b.reference))
  for (const { counts: kind, layer, name, reference } of ordered) {
    const counter = await Effect.runPromise(Effect.provide(TokenCounter.TokenCounter, layer))
    const countAll = Effect.reduce(texts, 0, (n, t) => Effect.map(counter.count(t), (k) => n + k))
    const perMessage = Effect.runSync(Effect.forEach(texts, counter.count))
    countsOf.set(name, perMessage)
    const expected = countsOf.get(reference)!
    let tokens = 0
    let equalMessages = 0
    let referenceTokens = 0
    for (let i = 0; i < perMessage.length; i++) {
      tokens += perMessage[i]
      referenceTokens += expected[i]
      if (perMessage[i] === expected[i]) equalMessages++
    }
    const [timing] = await measure(`tokenizer ${name}`, [{
      name,
      fn: () => Effect.runSync(countAll),
      beforeEach: clearCaches
    }], options)
    const seconds = timing.median / 1000
    rows.push({
      layer: name,
      counts: kind,
      timing,
      tokens,
      tokensPerSecond: tokens / seconds,
      mcharsPerSecond: chars / seconds / 1e6,
      usPerMessage: (timing.median * 1000) / texts.length,
      reference,
      equalMessages,
      totalOverReference: tokens / referenceTokens
    })
  }
  // Back in the order of the table.
  return contenders.map((c) => rows.find((r) => r.layer === c.name)!)
}
