/**
 * The baseline the original would give: a straightforward transcription of
 * the Python package's RollingMemory (contract sections 4 and 5) as it is
 * written there: a list buffer, every message recounted on every add, units
 * recomputed by a scan, then step 1, alignment, one summarizer call.
 *
 * It is also the correctness reference of the bench: rollmem's buffer and
 * summarizer calls must be the same after every turn.
 */
import type { Message } from "../../dist/index.js"

const isResponseLike = (m: Message.Message): boolean =>
  m.role === "assistant" || m.role === "tool" || m.toolCallId !== undefined

/** Unit starts, recomputed from scratch (contract 4). */
const unitStarts = (buffer: ReadonlyArray<Message.Message>): Array<number> => {
  const lastResult = new Map<string, number>()
  for (let i = 0; i < buffer.length; i++) {
    const id = buffer[i].toolCallId
    if (id !== undefined) lastResult.set(id, i)
  }
  const starts: Array<number> = []
  let end = -1
  for (let i = 0; i < buffer.length; i++) {
    if (i > end) starts.push(i)
    let reach = i
    for (const call of buffer[i].toolCalls) {
      const j = lastResult.get(call.id)
      if (j !== undefined && j > reach) reach = j
    }
    if (reach > end) end = reach
  }
  return starts
}

export type Summarize = (summary: string, messages: ReadonlyArray<Message.Message>) => string

export class PythonRollingMemory {
  summary = ""
  buffer: Array<Message.Message> = []
  constructor(
    readonly maxTokens: number,
    readonly count: (text: string) => number,
    readonly summarize: Summarize | undefined
  ) {}

  add(message: Message.Message): void {
    this.buffer.push(message)
    this.prune()
  }

  private prune(): void {
    const counts = this.buffer.map((m) => this.count(m.tokenText))
    let total = 0
    for (const c of counts) total += c
    if (total <= this.maxTokens) return
    const starts = unitStarts(this.buffer)
    let u = 0
    while (starts.length - u > 1 && total > this.maxTokens) {
      const end = starts[u + 1]
      for (let i = starts[u]; i < end; i++) total -= counts[i]
      u++
    }
    if (u === 0) return
    let cut = starts[u]
    for (let v = u; v < starts.length; v++) {
      if (!isResponseLike(this.buffer[starts[v]])) {
        cut = starts[v]
        break
      }
    }
    const evicted = this.buffer.slice(0, cut)
    if (this.summarize !== undefined) this.summary = this.summarize(this.summary, evicted)
    this.buffer = this.buffer.slice(cut)
  }
}
