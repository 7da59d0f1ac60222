/**
 * A provider's own compaction as rollmem keeps it (docs/contract.md section
 * 15.6): Anthropic's `compaction` block (server-side compaction, the
 * `compaction` request parameter) and OpenAI Responses' `compaction` item
 * (`/responses/compact`, `context_management`), read by `fromAnthropic` /
 * `fromOpenAIResponses`, become a memory's version 3 `compaction` field:
 * verbatim and never edited, read back before the summary, its readable
 * content counted.
 *
 * @since 0.4.0
 */
import * as Either from "effect/Either"
import * as MemoryState from "../schema/MemoryState.js"
import type * as Message from "../schema/Message.js"
import { AdapterError } from "./AdapterError.js"
import * as Anthropic from "./Anthropic.js"
import { type Json, markerOf, METADATA_KEY } from "./internal/engine.js"

type JsonObject = { [key: string]: Json }

const isObject = (u: unknown): u is JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * Where a message holds a provider's compaction item: the state's
 * `compaction` field, and what the message holds after it (an Anthropic
 * assistant message's blocks after the compaction block), or `undefined`.
 */
const found = (
  message: Message.Message
): { readonly compaction: MemoryState.Compaction; readonly after: ReadonlyArray<Json> } | undefined => {
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

/**
 * The provider compaction item a message holds (as `fromAnthropic` /
 * `fromOpenAIResponses` read it), as a state's `compaction` field, or
 * `undefined`.
 *
 * @example
 * ```ts
 * import { compactionOf, fromOpenAIResponses } from "rollmem/adapters"
 *
 * const [m] = fromOpenAIResponses([{ type: "compaction", id: "cmp_1", encrypted_content: "gAAA" }])
 * compactionOf(m) // { format: "openai-responses", item: { type: "compaction", ... }, content: "" }
 * ```
 *
 * @since 0.4.0
 * @category getters
 */
export const compactionOf = (message: Message.Message): MemoryState.Compaction | undefined => found(message)?.compaction

/**
 * A provider history (messages read by `fromAnthropic` or
 * `fromOpenAIResponses`) as a memory state that every strategy's `fromJSON`
 * takes: everything before the latest compaction item is treated as folded,
 * as each provider documents (the summary is empty and those messages are
 * not kept); the item becomes the state's version 3 `compaction` field
 * (verbatim), and the messages after it the buffer (an Anthropic message's
 * blocks after the compaction block make an assistant message of their
 * own). A history without a compaction item is the buffer as it is
 * (version 2). Throws `AdapterError` when the blocks after an Anthropic
 * compaction block cannot be read.
 *
 * @example
 * ```ts
 * import { fromOpenAIResponses, fromProviderHistory } from "rollmem/adapters"
 * import { RollingMemory } from "rollmem/promise"
 *
 * const compacted = [
 *   { role: "user", content: "Plan the trip." },
 *   { type: "compaction", id: "cmp_1", encrypted_content: "gAAA" }
 * ]
 * const memory = RollingMemory.fromJSON(
 *   fromProviderHistory([...fromOpenAIResponses(compacted), ...fromOpenAIResponses([{ role: "user", content: "Next?" }])]),
 *   { maxTokens: 4000, summarize: "drop" }
 * )
 * memory.getMessages().length // 2: the compaction item, then "Next?"
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const fromProviderHistory = (messages: ReadonlyArray<Message.Message>): MemoryState.Encoded => {
  for (let i = messages.length - 1; i >= 0; i--) {
    const at = found(messages[i])
    if (at === undefined) continue
    const rest = messages.slice(i + 1)
    let buffer: ReadonlyArray<Message.Message> = rest
    if (at.after.length > 0) {
      const read = Either.getOrThrowWith(
        Either.mapLeft(
          Anthropic.decodeEither({ messages: [{ role: "assistant", content: at.after }] }),
          (e) => new AdapterError({ format: "anthropic", description: `after the compaction block: ${e.description}` })
        ),
        (e) => e
      )
      buffer = [...read, ...rest]
    }
    return MemoryState.toJSON({ summary: "", buffer, compaction: at.compaction })
  }
  return MemoryState.toJSON({ summary: "", buffer: messages })
}

/** @internal */
export const isCompactionMessage = (message: Message.Message): boolean =>
  message.metadata[METADATA_KEY] !== undefined && found(message) !== undefined
