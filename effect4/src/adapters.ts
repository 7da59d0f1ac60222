/**
 * `rollmem/adapters` on the Effect 4 line: what of the Effect 3 line's
 * `rollmem/adapters` runs here, from the same pure code (`src/core/`). So
 * far the `conversation_search` tool in each provider's format
 * (`ConversationSearch`, docs/contract.md section 17.1); the provider
 * message formats (`toOpenAIChat`, `fromAnthropic`, ...) are the Effect 3
 * line's only.
 *
 * @example
 * ```ts
 * import { ConversationSearch } from "rollmem/adapters"
 * import { Archive, AsyncRollingMemory } from "rollmem/promise"
 *
 * const memory = new AsyncRollingMemory({ maxTokens: 8000, summarize: "drop", archive: Archive.memory() })
 * const tools = [ConversationSearch.openAIChatTool] // in the request's tools
 * // the model's call answered with the archived turns that match, as a tool message
 * const answer = await ConversationSearch.answerOpenAIChat(memory, {
 *   id: "call_1",
 *   function: { arguments: "{\"query\":\"invoice\"}" }
 * })
 * ```
 *
 * @since 1.0.0
 */

/**
 * The `conversation_search` tool (docs/contract.md section 17.1): its
 * definition per provider (`openAIChatTool`, `openAIResponsesTool`,
 * `anthropicTool`, `aiSdkTool`) and the handlers that answer the model's
 * call from any memory with `recall`, within a token budget.
 *
 * @example
 * ```ts
 * import { ConversationSearch } from "rollmem/adapters"
 *
 * ConversationSearch.NAME // "conversation_search"
 * ```
 *
 * @since 1.0.0
 */
export * as ConversationSearch from "../../src/core/searchTools.js"
