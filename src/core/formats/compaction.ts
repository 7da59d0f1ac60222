/**
 * A provider's own compaction as rollmem keeps it (docs/contract.md section
 * 15.6), as plain functions over the messages' fields, for both lines'
 * `compactionOf` and `fromProviderHistory`: Anthropic's `compaction` block
 * and OpenAI Responses' `compaction` item, read by the provider's reader,
 * become a memory state's version 3 `compaction` field (verbatim, never
 * edited), everything before the latest one treated as folded.
 *
 * @since 1.0.0
 */
import type { MessageFields } from "../message.js"
import { failed, type Json, markerOf, METADATA_KEY, type Outcome } from "./engine.js"

type JsonObject = { [key: string]: Json }

/** A state's `compaction` field: the provider format, its item verbatim, its readable content. @since 1.0.0 */
export interface Compaction {
  readonly format: "anthropic" | "openai-responses"
  readonly item: JsonObject
  readonly content: string
}

const isObject = (u: unknown): u is JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * Where a message holds a provider's compaction item: the state's
 * `compaction` field, and what the message holds after it (an Anthropic
 * assistant message's blocks after the compaction block), or `undefined`.
 *
 * @since 1.0.0
 */
export const found = (
  message: Pick<MessageFields, "metadata">
): { readonly compaction: Compaction; readonly after: ReadonlyArray<Json> } | undefined => {
  const anthropic = markerOf(message, "anthropic")
  if (anthropic !== undefined && anthropic.messages === 1) {
    const item = anthropic.items[0]
    const blocks = isObject(item) && item.role === "assistant" && Array.isArray(item.content) ? item.content : []
    const at = blocks.findIndex((b) => isObject(b) && b.type === "compaction")
    if (at >= 0) {
      const block = blocks[at] as JsonObject
      const content = typeof block.content === "string" ? block.content : ""
      return { compaction: { format: "anthropic", item: block, content }, after: blocks.slice(at + 1) }
    }
  }
  const responses = markerOf(message, "openai-responses")
  if (responses !== undefined && responses.messages === 1) {
    const item = responses.items.find((i) => isObject(i) && i.type === "compaction")
    if (isObject(item)) return { compaction: { format: "openai-responses", item, content: "" }, after: [] }
  }
  return undefined
}

/** Whether a message holds a provider's compaction item (kept under `"rollmem.provider"`). @since 1.0.0 */
export const isCompactionMessage = (message: Pick<MessageFields, "metadata">): boolean =>
  message.metadata[METADATA_KEY] !== undefined && found(message) !== undefined

/**
 * A provider history as a state's fields: everything before the latest
 * compaction item folded (empty summary, not kept), the item the state's
 * `compaction`, the messages after it the buffer (an Anthropic message's
 * blocks after the compaction block read with `readAnthropic` as an
 * assistant message of their own); without a compaction item, the history
 * is the buffer. A failure names what after the compaction block cannot be
 * read.
 *
 * @since 1.0.0
 */
export const fromProviderHistory = <M extends MessageFields>(
  messages: ReadonlyArray<M>,
  readAnthropic: (request: unknown) => Outcome<ReadonlyArray<M>>
): Outcome<{ readonly summary: string; readonly buffer: ReadonlyArray<M>; readonly compaction?: Compaction }> => {
  for (let i = messages.length - 1; i >= 0; i--) {
    const at = found(messages[i])
    if (at === undefined) continue
    const rest = messages.slice(i + 1)
    let buffer: ReadonlyArray<M> = rest
    if (at.after.length > 0) {
      const read = readAnthropic({ messages: [{ role: "assistant", content: at.after }] })
      if (failed(read)) return { error: { description: `after the compaction block: ${read.error.description}` } }
      buffer = [...read.ok, ...rest]
    }
    return { ok: { summary: "", buffer, compaction: at.compaction } }
  }
  return { ok: { summary: "", buffer: messages } }
}
