/**
 * The `conversation_search` tool in each provider's format (docs/contract.md
 * section 17.1): the definition to put in the request's tools, and the
 * handler that answers the model's call with the archived turns that match,
 * as that provider's tool result. The answer is bounded by a token budget
 * (`maxTokens`, default 2,000, counted by `count`, default the word count),
 * a turn that does not fit cut with a marker. Any memory with `recall`
 * works: a facade memory (synchronous or asynchronous) or an object
 * searching an archive in a conversation. Pure, no `effect` import: both
 * lines' `rollmem/adapters` expose it as `ConversationSearch`.
 *
 * @example
 * ```ts
 * import { ConversationSearch } from "rollmem/adapters"
 * import { Archive, AsyncRollingMemory } from "rollmem/promise"
 *
 * const memory = new AsyncRollingMemory({ maxTokens: 8000, summarize: "drop", archive: Archive.memory() })
 * const tools = [ConversationSearch.openAIChatTool] // in the request's tools
 * // the model's call answered with the archived turns that match, as the tool message to send back
 * const answer = await ConversationSearch.answerOpenAIChat(memory, {
 *   id: "call_1",
 *   function: { arguments: "{\"query\":\"invoice\"}" }
 * })
 * ```
 *
 * @since 0.4.0
 */
import type { SearchOptions } from "./archive.js"
import * as Core from "./conversationSearch.js"
import { wordCount } from "./tokens.js"

/**
 * The tool's name: `conversation_search`.
 *
 * @example
 * ```ts
 * import { ConversationSearch } from "rollmem/adapters"
 *
 * ConversationSearch.NAME // "conversation_search"
 * ```
 *
 * @since 0.4.0
 * @category constants
 */
export const NAME = Core.NAME

/**
 * What the model reads of the tool.
 *
 * @example
 * ```ts
 * import { ConversationSearch } from "rollmem/adapters"
 *
 * const description: string = ConversationSearch.DESCRIPTION
 * ```
 *
 * @since 0.4.0
 * @category constants
 */
export const DESCRIPTION = Core.DESCRIPTION

/**
 * The tool's parameters as JSON Schema: `query` (required), `limit` (1 to
 * 20, default 5), `before`, `roles`.
 *
 * @example
 * ```ts
 * import { ConversationSearch } from "rollmem/adapters"
 *
 * ConversationSearch.parameters.required // ["query"]
 * ```
 *
 * @since 0.4.0
 * @category constants
 */
export const parameters = Core.parameters

/**
 * What the handler searches: anything with `recall(query, options)`
 * returning the matches (at once or as a Promise), as the facade's memories
 * have.
 *
 * @since 0.4.0
 * @category models
 */
export interface Recaller {
  readonly recall: (
    query: string,
    options?: SearchOptions
  ) => ReadonlyArray<Core.Found> | PromiseLike<ReadonlyArray<Core.Found>>
}

/**
 * The answer's budget: `maxTokens` (default 2,000) counted by `count`
 * (default the word count, docs/contract.md section 3).
 *
 * @since 0.4.0
 * @category models
 */
export interface Options {
  readonly maxTokens?: number | undefined
  readonly count?: ((text: string) => number) | undefined
}

/**
 * A handler's answer: the text, and whether it reports an error (bad
 * arguments, a failed search), which the model is told.
 *
 * @since 0.4.0
 * @category models
 */
export interface Answer {
  readonly text: string
  readonly isError: boolean
}

/**
 * Answers the model's arguments (an object, or its JSON text): the archived
 * turns that match, rendered within the budget; bad arguments or a failed
 * search are an answer with `isError` (never a rejection), so the model can
 * correct itself.
 *
 * @example
 * ```ts
 * import { ConversationSearch } from "rollmem/adapters"
 *
 * const found = await ConversationSearch.answer({ recall: () => [] }, { query: "invoice" })
 * found.text // "No archived turn matches \"invoice\"."
 * ```
 *
 * @since 0.4.0
 * @category combinators
 */
export const answer = async (recaller: Recaller, args: unknown, options?: Options): Promise<Answer> => {
  const parsed = Core.parseArguments(args)
  if (typeof parsed === "string") return { text: `invalid arguments: ${parsed}`, isError: true }
  try {
    const found = await recaller.recall(parsed.query, {
      ...(parsed.limit === undefined ? {} : { limit: parsed.limit }),
      ...(parsed.before === undefined ? {} : { before: parsed.before }),
      ...(parsed.roles === undefined ? {} : { roles: parsed.roles })
    })
    const text = Core.render(parsed.query, found, { maxTokens: options?.maxTokens, count: options?.count ?? wordCount })
    return { text, isError: false }
  } catch (error) {
    return { text: `search failed: ${error instanceof Error ? error.message : String(error)}`, isError: true }
  }
}

/**
 * The tool for OpenAI Chat Completions' `tools`.
 *
 * @example
 * ```ts
 * import { ConversationSearch } from "rollmem/adapters"
 *
 * const tools = [ConversationSearch.openAIChatTool] // Chat Completions' tools
 * ```
 *
 * @since 0.4.0
 * @category constants
 */
export const openAIChatTool = {
  type: "function",
  function: { name: NAME, description: DESCRIPTION, parameters }
} as const

/**
 * Answers an OpenAI Chat Completions tool call (`{ id, function: { name,
 * arguments } }`) with the `tool` message to send back.
 *
 * @example
 * ```ts
 * import { ConversationSearch } from "rollmem/adapters"
 *
 * const message = await ConversationSearch.answerOpenAIChat({ recall: () => [] }, {
 *   id: "call_1",
 *   function: { arguments: "{\"query\":\"invoice\"}" }
 * }) // { role: "tool", tool_call_id: "call_1", content: ... }
 * ```
 *
 * @since 0.4.0
 * @category combinators
 */
export const answerOpenAIChat = async (
  recaller: Recaller,
  call: { readonly id: string; readonly function: { readonly arguments: string } },
  options?: Options
): Promise<{ readonly role: "tool"; readonly tool_call_id: string; readonly content: string }> => ({
  role: "tool",
  tool_call_id: call.id,
  content: (await answer(recaller, call.function.arguments, options)).text
})

/**
 * The tool for OpenAI Responses' `tools`.
 *
 * @example
 * ```ts
 * import { ConversationSearch } from "rollmem/adapters"
 *
 * const tools = [ConversationSearch.openAIResponsesTool] // Responses' tools
 * ```
 *
 * @since 0.4.0
 * @category constants
 */
export const openAIResponsesTool = {
  type: "function",
  name: NAME,
  description: DESCRIPTION,
  parameters,
  strict: false
} as const

/**
 * Answers an OpenAI Responses `function_call` item (`{ call_id, arguments
 * }`) with the `function_call_output` item to send back.
 *
 * @example
 * ```ts
 * import { ConversationSearch } from "rollmem/adapters"
 *
 * const item = await ConversationSearch.answerOpenAIResponses({ recall: () => [] }, {
 *   call_id: "fc_1",
 *   arguments: "{\"query\":\"invoice\"}"
 * }) // { type: "function_call_output", call_id: "fc_1", output: ... }
 * ```
 *
 * @since 0.4.0
 * @category combinators
 */
export const answerOpenAIResponses = async (
  recaller: Recaller,
  call: { readonly call_id: string; readonly arguments: string },
  options?: Options
): Promise<{ readonly type: "function_call_output"; readonly call_id: string; readonly output: string }> => ({
  type: "function_call_output",
  call_id: call.call_id,
  output: (await answer(recaller, call.arguments, options)).text
})

/**
 * The tool for Anthropic Messages' `tools`.
 *
 * @example
 * ```ts
 * import { ConversationSearch } from "rollmem/adapters"
 *
 * const tools = [ConversationSearch.anthropicTool] // Messages' tools
 * ```
 *
 * @since 0.4.0
 * @category constants
 */
export const anthropicTool = { name: NAME, description: DESCRIPTION, input_schema: parameters } as const

/**
 * Answers an Anthropic `tool_use` block (`{ id, input }`) with the
 * `tool_result` block to send back in a user message (`is_error` when the
 * arguments were wrong or the search failed).
 *
 * @example
 * ```ts
 * import { ConversationSearch } from "rollmem/adapters"
 *
 * const block = await ConversationSearch.answerAnthropic({ recall: () => [] }, { id: "tu_1", input: { query: "invoice" } })
 * // { type: "tool_result", tool_use_id: "tu_1", content: ... }
 * ```
 *
 * @since 0.4.0
 * @category combinators
 */
export const answerAnthropic = async (
  recaller: Recaller,
  block: { readonly id: string; readonly input: unknown },
  options?: Options
): Promise<{
  readonly type: "tool_result"
  readonly tool_use_id: string
  readonly content: string
  readonly is_error?: true
}> => {
  const { isError, text } = await answer(recaller, block.input, options)
  return { type: "tool_result", tool_use_id: block.id, content: text, ...(isError ? { is_error: true as const } : {}) }
}

/**
 * The tool for the AI SDK's `tools` (`{ conversation_search: aiSdkTool(...) }`):
 * pass the SDK's `jsonSchema` (`import { jsonSchema } from "ai"`); its
 * `execute` answers the call.
 *
 * @example
 * ```ts
 * import { ConversationSearch } from "rollmem/adapters"
 *
 * const tool = ConversationSearch.aiSdkTool({ recall: () => [] }, (schema) => schema) // pass the AI SDK's jsonSchema
 * const text = await tool.execute({ query: "invoice" })
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const aiSdkTool = <S>(
  recaller: Recaller,
  jsonSchema: (schema: typeof parameters) => S,
  options?: Options
): {
  readonly description: string
  readonly inputSchema: S
  readonly execute: (input: unknown) => Promise<string>
} => ({
  description: DESCRIPTION,
  inputSchema: jsonSchema(parameters),
  execute: async (input) => (await answer(recaller, input, options)).text
})
