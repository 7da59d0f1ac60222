/**
 * A provider's own compaction as rollmem keeps it (docs/contract.md section
 * 15.6), on the Effect 4 line: Anthropic's `compaction` block and OpenAI
 * Responses' `compaction` item, read by `fromAnthropic` /
 * `fromOpenAIResponses`, become a memory's version 3 `compaction` field:
 * verbatim and never edited, read back before the summary. The reading is
 * `core/formats/compaction.ts`'s, shared with the Effect 3 line.
 *
 * @since 1.0.0
 */
import * as Result from "effect/Result"
import * as Core from "../../../src/core/formats/compaction.js"
import * as MemoryState from "../schema/MemoryState.js"
import type * as Message from "../schema/Message.js"
import { AdapterError } from "./AdapterError.js"
import * as Anthropic from "./Anthropic.js"

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
 * @since 1.0.0
 * @category getters
 */
export const compactionOf = (message: Message.Message): MemoryState.Compaction | undefined =>
  Core.found(message)?.compaction

/**
 * A provider history (messages read by `fromAnthropic` or
 * `fromOpenAIResponses`) as a memory state that every strategy's `fromJSON`
 * takes: everything before the latest compaction item is treated as folded
 * (the summary is empty and those messages are not kept); the item becomes
 * the state's version 3 `compaction` field (verbatim), and the messages
 * after it the buffer (an Anthropic message's blocks after the compaction
 * block make an assistant message of their own). A history without a
 * compaction item is the buffer as it is (version 2). Throws `AdapterError`
 * when the blocks after an Anthropic compaction block cannot be read.
 *
 * @example
 * ```ts
 * import { fromOpenAIResponses, fromProviderHistory } from "rollmem/adapters"
 *
 * const compacted = [
 *   { role: "user", content: "Plan the trip." },
 *   { type: "compaction", id: "cmp_1", encrypted_content: "gAAA" }
 * ]
 * const state = fromProviderHistory([...fromOpenAIResponses(compacted), ...fromOpenAIResponses([{ role: "user", content: "Next?" }])])
 * state.compaction // { format: "openai-responses", item: { type: "compaction", ... }, content: "" }
 * ```
 *
 * @since 1.0.0
 * @category constructors
 */
export const fromProviderHistory = (messages: ReadonlyArray<Message.Message>): MemoryState.Encoded => {
  const state = Core.fromProviderHistory(messages, (request) => {
    const read = Anthropic.decodeResult(request)
    return Result.isFailure(read) ? { error: { description: read.failure.description } } : { ok: read.success }
  })
  if ("error" in state) throw new AdapterError({ format: "anthropic", description: state.error.description })
  return MemoryState.toJSON(state.ok)
}
