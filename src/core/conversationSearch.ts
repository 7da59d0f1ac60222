/**
 * The `conversation_search` tool, pure (no `effect` import; docs/contract.md
 * section 17.1): its name, description and JSON Schema parameters, the
 * check of the model's arguments, and the text the model gets back: the
 * archived turns found, best first, within a token budget, a turn that does
 * not fit cut with a marker saying how much was cut. `rollmem/adapters`
 * writes it in each provider's tool format, `rollmem/ai` as an `@effect/ai`
 * toolkit.
 *
 * @example
 * ```ts
 * import { ConversationSearch } from "rollmem"
 *
 * ConversationSearch.parseArguments("{\"query\":\"src/cli/Measure.ts\"}") // { query: "src/cli/Measure.ts" }
 * ```
 *
 * @since 0.4.0
 */
import { cut } from "./toolResults.js"

/**
 * The tool's name: `conversation_search`.
 *
 * @example
 * ```ts
 * import { ConversationSearch } from "rollmem"
 *
 * ConversationSearch.NAME // "conversation_search": the tool's name in every provider's format
 * ```
 *
 * @since 0.4.0
 * @category constants
 */
export const NAME = "conversation_search"

/**
 * What the model reads of the tool.
 *
 * @example
 * ```ts
 * import { ConversationSearch } from "rollmem"
 *
 * // what the model reads about the tool, the same for every provider
 * const tool = { name: ConversationSearch.NAME, description: ConversationSearch.DESCRIPTION }
 * ```
 *
 * @since 0.4.0
 * @category constants
 */
export const DESCRIPTION = "Search the earlier turns of this conversation that are no longer in your context " +
  "(the summary kept only their gist). Returns the archived turns that match, best first, each with its " +
  "position in the conversation. Search with an exact file path, identifier or value to find the turn naming it, " +
  "or with a few words of what was said."

/**
 * The most matches the model may ask for: 20.
 *
 * @example
 * ```ts
 * import { ConversationSearch } from "rollmem"
 *
 * ConversationSearch.parseArguments({ query: "Rome", limit: ConversationSearch.MAX_LIMIT + 1 })
 * // "limit must be an integer from 1 to 20"
 * ```
 *
 * @since 0.4.0
 * @category constants
 */
export const MAX_LIMIT = 20

/**
 * The tool's parameters as JSON Schema (draft 2020-12 subset every provider
 * takes): `query` (required), `limit` (1 to {@link MAX_LIMIT}, default 5),
 * `before` (only turns before this position), `roles`.
 *
 * @example
 * ```ts
 * import { ConversationSearch } from "rollmem"
 *
 * // the JSON Schema of the arguments, for a provider not adapted in rollmem/adapters
 * const tool = { name: ConversationSearch.NAME, input_schema: ConversationSearch.parameters }
 * ConversationSearch.parameters.required // ["query"]
 * ```
 *
 * @since 0.4.0
 * @category constants
 */
export const parameters: {
  type: "object"
  properties: {
    query: { type: "string"; description: string }
    limit: { type: "integer"; minimum: number; maximum: number; description: string }
    before: { type: "integer"; minimum: number; description: string }
    roles: { type: "array"; items: { type: "string"; enum: Array<string> }; description: string }
  }
  required: Array<string>
  additionalProperties: false
} = {
  type: "object",
  properties: {
    query: {
      type: "string",
      description: "What to look for: an exact file path, identifier or value, or a few words"
    },
    limit: { type: "integer", minimum: 1, maximum: MAX_LIMIT, description: "How many turns to return (default 5)" },
    before: { type: "integer", minimum: 0, description: "Only turns before this position" },
    roles: {
      type: "array",
      items: { type: "string", enum: ["user", "assistant", "tool", "system"] },
      description: "Only turns of these roles"
    }
  },
  required: ["query"],
  additionalProperties: false
}

/**
 * The model's arguments, checked.
 *
 * @since 0.4.0
 * @category models
 */
export interface Arguments {
  readonly query: string
  readonly limit?: number | undefined
  readonly before?: number | undefined
  readonly roles?: ReadonlyArray<string> | undefined
}

const isInteger = (u: unknown, min: number, max: number): u is number =>
  typeof u === "number" && Number.isSafeInteger(u) && u >= min && u <= max

/**
 * Reads the model's arguments (an object, or its JSON text as OpenAI sends
 * it): the {@link Arguments}, or a string saying what is wrong (which the
 * model is given back).
 *
 * @example
 * ```ts
 * import { ConversationSearch } from "rollmem"
 *
 * ConversationSearch.parseArguments("{\"query\":\"flight to Rome\",\"limit\":3}") // { query: "flight to Rome", limit: 3 }
 * ConversationSearch.parseArguments({ q: "Rome" }) // "unknown argument q"
 * ```
 *
 * @since 0.4.0
 * @category combinators
 */
export const parseArguments = (input: unknown): Arguments | string => {
  let value = input
  if (typeof input === "string") {
    try {
      value = JSON.parse(input)
    } catch {
      return "arguments are not JSON"
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "arguments must be an object"
  const args = value as { readonly [key: string]: unknown }
  for (const key of Object.keys(args)) {
    if (!(key in parameters.properties)) return `unknown argument ${key}`
  }
  if (typeof args.query !== "string" || args.query.trim() === "") return "query must be a non-empty string"
  if (args.limit !== undefined && !isInteger(args.limit, 1, MAX_LIMIT)) {
    return `limit must be an integer from 1 to ${MAX_LIMIT}`
  }
  if (args.before !== undefined && !isInteger(args.before, 0, Number.MAX_SAFE_INTEGER)) {
    return "before must be a non-negative integer"
  }
  if (args.roles !== undefined && !(Array.isArray(args.roles) && args.roles.every((r) => typeof r === "string"))) {
    return "roles must be an array of strings"
  }
  return {
    query: args.query,
    ...(args.limit === undefined ? {} : { limit: args.limit }),
    ...(args.before === undefined ? {} : { before: args.before }),
    ...(args.roles === undefined ? {} : { roles: args.roles as ReadonlyArray<string> })
  }
}

/**
 * An archived turn as the tool renders it (a recall's match has this shape).
 *
 * @since 0.4.0
 * @category models
 */
export interface Found {
  readonly position: number
  readonly message: {
    readonly role: string
    readonly content: string
    readonly toolCalls: ReadonlyArray<{ readonly name: string; readonly arguments: string }>
  }
}

/**
 * How the answer is bounded: at most `maxTokens` (default
 * {@link DEFAULT_MAX_TOKENS}) counted by `count`.
 *
 * @since 0.4.0
 * @category models
 */
export interface RenderOptions {
  readonly maxTokens?: number | undefined
  readonly count: (text: string) => number
}

/**
 * The answer's default budget: 2,000 tokens.
 *
 * @example
 * ```ts
 * import { ConversationSearch } from "rollmem"
 *
 * ConversationSearch.DEFAULT_MAX_TOKENS // 2000: render's budget when maxTokens is not given
 * ```
 *
 * @since 0.4.0
 * @category constants
 */
export const DEFAULT_MAX_TOKENS = 2000

const headerOf = (found: Found): string => `[position ${found.position}, ${found.message.role}]`

const bodyOf = (found: Found): string => {
  const calls = found.message.toolCalls.map((call) => `${call.name}(${call.arguments})`)
  return calls.length === 0 ? found.message.content : [found.message.content, ...calls].join("\n")
}

/**
 * The text the model gets: `No archived turn matches "<query>".`, or each
 * turn found, best first, as `[position N, role]` and its content (then
 * its tool calls as `name(arguments)`), separated by a blank line, while the
 * turns count at most `maxTokens`; the first turn that does not fit is cut
 * to what is left less its header and the marker (head and tail kept,
 * `[... N tokens cut ...]` between them, the share planned in tokens and made
 * in characters, as a tool result cut at the door, section 10.8), and the
 * turns after it are named in a last line (`2 more turns matched: positions
 * 3, 9.`), which the budget does not count.
 *
 * @example
 * ```ts
 * import { ConversationSearch } from "rollmem"
 *
 * const count = (text: string) => text.split(/\s+/).filter((word) => word !== "").length
 * ConversationSearch.render("Rome", [{ position: 3, message: { role: "user", content: "Fly me to Rome", toolCalls: [] } }], { count })
 * // "[position 3, user]\nFly me to Rome"
 * ConversationSearch.render("Paris", [], { count }) // "No archived turn matches \"Paris\"."
 * ```
 *
 * @since 0.4.0
 * @category combinators
 */
export const render = (query: string, found: ReadonlyArray<Found>, options: RenderOptions): string => {
  if (found.length === 0) return `No archived turn matches ${JSON.stringify(query)}.`
  const max = options.maxTokens ?? DEFAULT_MAX_TOKENS
  const parts: Array<string> = []
  let used = 0
  let i = 0
  for (; i < found.length; i++) {
    const header = headerOf(found[i])
    const body = bodyOf(found[i])
    const entry = `${header}\n${body}`
    const tokens = options.count(entry)
    if (used + tokens <= max) {
      parts.push(entry)
      used += tokens
      continue
    }
    const bodyTokens = options.count(body)
    const room = max - used - options.count(header) - options.count(cut("", 1, 0))
    if (room > 0 && bodyTokens > 0) {
      parts.push(`${header}\n${cut(body, bodyTokens, Math.min(room, bodyTokens))}`)
      i++
    }
    break
  }
  if (i < found.length) {
    const rest = found.slice(i).map((f) => f.position)
    parts.push(`${rest.length} more turn${rest.length === 1 ? "" : "s"} matched: positions ${rest.join(", ")}.`)
  }
  return parts.join("\n\n")
}
