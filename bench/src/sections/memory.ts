/**
 * Section 5: heap bytes per buffered message against its JSON size.
 *
 * Every message of the data set is decoded from its JSON line and added to
 * one RollingMemory whose budget never evicts; the heap is measured (after
 * forced collections) before and after. "Whole" counts everything the
 * memory holds per message (the Message object, its strings, the index);
 * "index" repeats the run with messages already decoded and kept elsewhere,
 * so only rollmem's own bookkeeping remains.
 */
import { Effect, Schema } from "effect"
import { Message, RollingMemory, Summarizer, TokenCounter } from "../../../dist/index.js"
import type { Conversation } from "../data.js"

export interface MemoryFigures {
  readonly messages: number
  /** Mean UTF-8 bytes of a message's wire JSON. */
  readonly jsonBytesPerMessage: number
  /** Heap bytes per buffered message, message included. */
  readonly heapBytesPerMessage: number
  /** Heap bytes per buffered message for rollmem's bookkeeping alone (messages held elsewhere). */
  readonly indexBytesPerMessage: number
  readonly heapOverJson: number
}

const gc = (): void => {
  const collect = (globalThis as { gc?: () => void }).gc
  if (collect === undefined) throw new Error("run node with --expose-gc")
  for (let i = 0; i < 4; i++) collect()
}

const heap = (): number => {
  gc()
  return process.memoryUsage().heapUsed
}

const decode = Schema.decodeUnknownSync(Message.Message)

export const runMemory = (conversations: ReadonlyArray<Conversation>): MemoryFigures => {
  const lines = conversations.flatMap((c) => c.wire.map((w) => JSON.stringify(w)))
  let jsonBytes = 0
  for (const l of lines) jsonBytes += Buffer.byteLength(l, "utf8")
  // Word count: no tokenizer state in the figure.
  const fill = (messages: () => Iterable<Message.Message>) =>
    Effect.runSync(
      Effect.gen(function*() {
        const memory = yield* RollingMemory.make({ maxTokens: Number.MAX_SAFE_INTEGER })
        for (const m of messages()) yield* memory.add(m)
        return memory
      }).pipe(Effect.provide(TokenCounter.layerWordCount), Effect.provide(Summarizer.layerDrop))
    )
  // Whole: each message decoded from JSON here, held only by the memory.
  const before = heap()
  let whole: unknown = fill(function*() {
    for (const l of lines) yield decode(JSON.parse(l))
  })
  const after = heap()
  whole = undefined
  // Index only: messages decoded first and kept alive outside the memory.
  const kept = lines.map((l) => decode(JSON.parse(l)))
  const before2 = heap()
  let index: unknown = fill(() => kept)
  const after2 = heap()
  index = undefined
  void whole
  void index
  const heapBytesPerMessage = (after - before) / lines.length
  const jsonBytesPerMessage = jsonBytes / lines.length
  return {
    messages: lines.length,
    jsonBytesPerMessage,
    heapBytesPerMessage,
    indexBytesPerMessage: (after2 - before2) / kept.length,
    heapOverJson: heapBytesPerMessage / jsonBytesPerMessage
  }
}
