/**
 * The `conversation_search` tool in each provider's format (docs/contract.md
 * section 17.1): `core/searchTools.ts`, pure, which the Effect 4 line's
 * `rollmem/adapters` exposes too.
 *
 * @example
 * ```ts
 * import OpenAI from "openai"
 * import { Archive, AsyncRollingMemory } from "rollmem/promise"
 * import { ConversationSearch, fromOpenAIChat, toOpenAIChat } from "rollmem/adapters"
 *
 * const client = new OpenAI()
 * const memory = new AsyncRollingMemory({ maxTokens: 8000, summarize: "drop", archive: Archive.memory() })
 * const completion = await client.chat.completions.create({
 *   model: "gpt-4o-mini",
 *   messages: toOpenAIChat(memory.getMessages()),
 *   tools: [ConversationSearch.openAIChatTool]
 * })
 * for (const call of completion.choices[0].message.tool_calls ?? []) {
 *   if (call.type === "function" && call.function.name === ConversationSearch.NAME) {
 *     const answer = await ConversationSearch.answerOpenAIChat(memory, call)
 *     await memory.addMessages(fromOpenAIChat([answer]))
 *   }
 * }
 * ```
 *
 * @since 0.4.0
 */
export * from "../core/searchTools.js"
