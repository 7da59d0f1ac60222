/**
 * Would a chat API accept these messages? {@link violations} lists what a
 * target rejects in a context (the messages sent in one request), each
 * violation tagged and carrying the index of the message at fault. Which
 * rules apply is the target's ({@link rulesOf}, docs/contract.md section 15.2):
 *
 * | rule | none given | `openai` | `anthropic` | `gemini` | `strict-template` |
 * |---|---|---|---|---|---|
 * | {@link FirstTurnNotUser} | yes | no | yes | yes | yes |
 * | {@link OrphanedToolResult} | yes | yes | yes | yes | yes |
 * | {@link UnansweredToolCall} | yes | yes | yes | yes | yes |
 * | {@link SystemAfterFirstTurn} | no | no | yes | yes | yes |
 * | {@link ConsecutiveSameRole} | no | no | no | no | yes |
 *
 * - `openai` (Chat Completions and Responses) accepts an assistant turn
 *   first, a system or developer message anywhere, and consecutive messages
 *   of one role.
 * - `anthropic` takes system text only before the messages (no
 *   mid-conversation system role) and needs a user turn first; it merges
 *   consecutive turns of one role.
 * - `gemini` takes system text only as `systemInstruction` and needs a user
 *   turn first; it accepts consecutive contents of one role.
 * - `strict-template`: strict open-model chat templates (the Jinja templates
 *   that raise "roles must alternate user/assistant" or "system message must
 *   be at the beginning") reject all five.
 * - No target given: the three rules of 0.2.0, what the command line and the
 *   report measured before targets existed.
 *
 * Pure (no `effect` import), O(n) in the messages and their calls; the
 * messages are only read, as plain shapes ({@link MessageLike}): a rollmem
 * `Message` is one.
 *
 * @example
 * ```ts
 * import { Message, Validity } from "rollmem"
 *
 * const context = [Message.user("hi"), Message.system("late rule"), Message.assistant("ok")]
 * Validity.violations(context, { provider: "openai" }) // []
 * Validity.violations(context, { provider: "anthropic" }).map((v) => v.description)
 * // ["message 1: a system message after the first turn"]
 * ```
 *
 * @since 0.5.0
 */

/**
 * What {@link violations} reads of a message: its role, the id of the call
 * it answers (a tool result), and the ids of the calls it makes. A rollmem
 * `Message` has these fields.
 *
 * @since 0.5.0
 * @category models
 */
export interface MessageLike {
  readonly role: string
  readonly toolCallId?: string | undefined
  readonly toolCalls?: ReadonlyArray<{ readonly id: string }> | undefined
}

/**
 * A target whose rules {@link violations} applies (see the module's table):
 * `"openai"`, `"anthropic"`, `"gemini"` or `"strict-template"`.
 *
 * @since 0.5.0
 * @category models
 */
export type Provider = "openai" | "anthropic" | "gemini" | "strict-template"

/**
 * Every {@link Provider}, in the table's order.
 *
 * @example
 * ```ts
 * import { Message, Validity } from "rollmem"
 *
 * const context = [Message.system("Be brief."), Message.user("hi")]
 * Validity.providers.filter((provider) => !Validity.isValid(context, { provider })) // []
 * ```
 *
 * @since 0.5.0
 * @category constants
 */
export const providers: ReadonlyArray<Provider> = ["openai", "anthropic", "gemini", "strict-template"]

/**
 * The tag of each rule.
 *
 * @since 0.5.0
 * @category models
 */
export type Rule = Violation["_tag"]

const allRules: ReadonlyArray<Rule> = [
  "FirstTurnNotUser",
  "OrphanedToolResult",
  "UnansweredToolCall",
  "SystemAfterFirstTurn",
  "ConsecutiveSameRole"
]

const table: Readonly<Record<Provider | "default", ReadonlyArray<Rule>>> = {
  default: ["FirstTurnNotUser", "OrphanedToolResult", "UnansweredToolCall"],
  openai: ["OrphanedToolResult", "UnansweredToolCall"],
  anthropic: ["FirstTurnNotUser", "OrphanedToolResult", "UnansweredToolCall", "SystemAfterFirstTurn"],
  gemini: ["FirstTurnNotUser", "OrphanedToolResult", "UnansweredToolCall", "SystemAfterFirstTurn"],
  "strict-template": allRules
}

/**
 * The rules `provider` applies (the module's table), in the table's order;
 * without a provider, the three rules of 0.2.0.
 *
 * @example
 * ```ts
 * import { Validity } from "rollmem"
 *
 * Validity.rulesOf("openai") // ["OrphanedToolResult", "UnansweredToolCall"]
 * ```
 *
 * @since 0.5.0
 * @category getters
 */
export const rulesOf = (provider?: Provider | undefined): ReadonlyArray<Rule> => table[provider ?? "default"]

const article = (word: string): string => /^[aeiou]/i.test(word) ? "an" : "a"

/**
 * The first message that is not a system message (role `system` or
 * `developer`) is not a user turn: its role is not `user`, or it is a tool
 * result (it has a tool call id). `index` is that message's position in the
 * messages checked, `role` its role.
 *
 * @example
 * ```ts
 * import { Message, Validity } from "rollmem"
 *
 * const [violation] = Validity.violations([Message.assistant("Welcome back!")])
 * violation instanceof Validity.FirstTurnNotUser // true
 * violation.description // "message 0: the first turn is an assistant message, not a user turn"
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export class FirstTurnNotUser {
  readonly _tag = "FirstTurnNotUser" as const
  readonly index: number
  readonly role: string
  constructor(fields: { readonly index: number; readonly role: string }) {
    this.index = fields.index
    this.role = fields.role
  }
  /** One line for people: `message 0: the first turn is a tool message, not a user turn`. */
  get description(): string {
    return `message ${this.index}: the first turn is ${article(this.role)} ${this.role} message, not a user turn`
  }
}

/**
 * A tool result that is not in the block of tool results right after the
 * message that made its call: its call is absent (folded away, or never
 * made), made earlier, or separated from it by a message that is not a tool
 * result. `index` is the result's position, `toolCallId` the id it answers.
 *
 * @example
 * ```ts
 * import { Message, Validity } from "rollmem"
 *
 * Validity.violations([Message.user("hi"), Message.tool("42", { toolCallId: "c1" })])
 * // [OrphanedToolResult { index: 1, toolCallId: "c1" }]: its call is not right before it
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export class OrphanedToolResult {
  readonly _tag = "OrphanedToolResult" as const
  readonly index: number
  readonly toolCallId: string
  constructor(fields: { readonly index: number; readonly toolCallId: string }) {
    this.index = fields.index
    this.toolCallId = fields.toolCallId
  }
  /** One line for people: `message 3: tool result "c1" does not follow its call`. */
  get description(): string {
    return `message ${this.index}: tool result ${JSON.stringify(this.toolCallId)} does not follow its call`
  }
}

/**
 * A tool call with no result in the block of tool results right after the
 * message that made it. `index` is the position of the message carrying the
 * call, `toolCallId` the call's id (one violation per unanswered call).
 *
 * @example
 * ```ts
 * import { Message, Validity } from "rollmem"
 *
 * Validity.violations([Message.user("hi"), Message.assistant("", { toolCalls: [{ id: "c1", name: "clock", arguments: "{}" }] })])
 * // [UnansweredToolCall { index: 1, toolCallId: "c1" }]
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export class UnansweredToolCall {
  readonly _tag = "UnansweredToolCall" as const
  readonly index: number
  readonly toolCallId: string
  constructor(fields: { readonly index: number; readonly toolCallId: string }) {
    this.index = fields.index
    this.toolCallId = fields.toolCallId
  }
  /** One line for people: `message 2: tool call "c1" has no result right after it`. */
  get description(): string {
    return `message ${this.index}: tool call ${JSON.stringify(this.toolCallId)} has no result right after it`
  }
}

/**
 * A system message (role `system` or `developer`) after the first message
 * that is not one: Anthropic and Gemini take system text only before the
 * conversation, strict templates only as the first message. `index` is its
 * position, `role` its role.
 *
 * @example
 * ```ts
 * import { Message, Validity } from "rollmem"
 *
 * Validity.violations([Message.user("hi"), Message.system("Be brief.")], { provider: "anthropic" }).map((v) => v._tag)
 * // ["SystemAfterFirstTurn"]
 * ```
 *
 * @since 0.5.0
 * @category models
 */
export class SystemAfterFirstTurn {
  readonly _tag = "SystemAfterFirstTurn" as const
  readonly index: number
  readonly role: string
  constructor(fields: { readonly index: number; readonly role: string }) {
    this.index = fields.index
    this.role = fields.role
  }
  /** One line for people: `message 1: a system message after the first turn`. */
  get description(): string {
    return `message ${this.index}: ${article(this.role)} ${this.role} message after the first turn`
  }
}

/**
 * A message of the same kind as the message right before it: two user turns,
 * two assistant messages, two system messages (`system` or `developer`), or
 * two messages of one other role. Tool results (messages with a tool call
 * id) are exempt: the results of parallel calls follow one another. `index`
 * is the second message's position, `role` its role.
 *
 * @example
 * ```ts
 * import { Message, Validity } from "rollmem"
 *
 * Validity.violations([Message.user("hi"), Message.user("hello?")], { provider: "strict-template" })
 * // [ConsecutiveSameRole { index: 1, role: "user" }]
 * ```
 *
 * @since 0.5.0
 * @category models
 */
export class ConsecutiveSameRole {
  readonly _tag = "ConsecutiveSameRole" as const
  readonly index: number
  readonly role: string
  constructor(fields: { readonly index: number; readonly role: string }) {
    this.index = fields.index
    this.role = fields.role
  }
  /** One line for people: `message 2: a second user message in a row`. */
  get description(): string {
    return `message ${this.index}: a second ${this.role} message in a row`
  }
}

/**
 * One reason a target rejects a context. Each is a plain object with `_tag`,
 * `index` and its fields (what `JSON.stringify` writes) and a `description`
 * getter; `ValiditySchema.Violation` reads one back from JSON.
 *
 * @since 0.2.0
 * @category models
 */
export type Violation =
  | FirstTurnNotUser
  | OrphanedToolResult
  | UnansweredToolCall
  | SystemAfterFirstTurn
  | ConsecutiveSameRole

/**
 * Whether a message counts as a system message: role `system` or
 * `developer` (OpenAI's name for the system prompt of reasoning models),
 * whatever its other fields.
 *
 * @example
 * ```ts
 * import { Message, Validity } from "rollmem"
 *
 * Validity.isSystem(Message.system("Be brief.")) // true
 * Validity.isSystem({ role: "developer" }) // true
 * ```
 *
 * @since 0.2.0
 * @category guards
 */
export const isSystem = (message: MessageLike): boolean => message.role === "system" || message.role === "developer"

/**
 * Whether a message is a user turn: role `user` and no tool call id.
 *
 * @example
 * ```ts
 * import { Message, Validity } from "rollmem"
 *
 * Validity.isUserTurn(Message.user("hi")) // true
 * Validity.isUserTurn(Message.tool("42", { toolCallId: "c1" })) // false
 * ```
 *
 * @since 0.2.0
 * @category guards
 */
export const isUserTurn = (message: MessageLike): boolean => message.role === "user" && message.toolCallId === undefined

/**
 * Options of {@link violations}: `provider`, the target whose rules apply
 * (the module's table); omitted: the three rules of 0.2.0.
 *
 * @since 0.5.0
 * @category models
 */
export interface Options {
  readonly provider?: Provider | undefined
}

const noCalls: ReadonlyArray<{ readonly id: string }> = []

/** The kind {@link ConsecutiveSameRole} compares; undefined for a tool result. */
const kindOf = (message: MessageLike): string | undefined =>
  message.toolCallId !== undefined ? undefined : isSystem(message) ? "system" : message.role

/**
 * Every violation of the target's rules in `messages`, ordered by message
 * index (at one index: the first-turn violation, then the others as found).
 * Empty when the target accepts them, and for no messages.
 *
 * A tool result belongs to the block that follows the nearest message before
 * it that is not a tool result (the block's head, whatever its role): it is
 * orphaned unless the head carries a call with its id. When the block ends
 * (at the next message that is not a tool result, or the end), every call of
 * the head without a result in the block is unanswered. Ids reused across
 * messages are matched within a block only, as the APIs do. The first turn
 * and "after the first turn" are counted from the first message that is not
 * a system message (a context of system messages only has no first turn).
 *
 * @example
 * ```ts
 * import { Message, Validity } from "rollmem"
 *
 * const context = [Message.tool("42", { toolCallId: "c1" }), Message.user("and the return flight?")]
 * Validity.violations(context).map((v) => v._tag) // ["FirstTurnNotUser", "OrphanedToolResult"]
 * Validity.violations([Message.user("summary"), Message.user("hi")], { provider: "strict-template" })
 * // [ConsecutiveSameRole { index: 1, role: "user" }]
 * ```
 *
 * @since 0.2.0
 * @category combinators
 */
export const violations = (
  messages: ReadonlyArray<MessageLike>,
  options?: Options | undefined
): ReadonlyArray<Violation> => {
  const rules = rulesOf(options?.provider)
  const firstTurn = rules.includes("FirstTurnNotUser")
  const tools = rules.includes("OrphanedToolResult")
  const lateSystem = rules.includes("SystemAfterFirstTurn")
  const sameRole = rules.includes("ConsecutiveSameRole")
  const found: Array<Violation> = []
  let started = false
  let head = -1
  let answered = new Set<string>()
  const closeBlock = () => {
    if (head < 0) return
    const calls = messages[head].toolCalls ?? noCalls
    for (let c = 0; c < calls.length; c++) {
      const id = calls[c].id
      // a call id repeated within one message is reported once
      if (!answered.has(id)) {
        answered.add(id)
        found.push(new UnansweredToolCall({ index: head, toolCallId: id }))
      }
    }
  }
  let previousKind: string | undefined
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]
    const system = isSystem(message)
    if (!started && !system) {
      started = true
      if (firstTurn && !isUserTurn(message)) found.push(new FirstTurnNotUser({ index: i, role: message.role }))
    } else if (started && system && lateSystem) {
      found.push(new SystemAfterFirstTurn({ index: i, role: message.role }))
    }
    const kind = kindOf(message)
    if (sameRole && kind !== undefined && kind === previousKind) {
      found.push(new ConsecutiveSameRole({ index: i, role: message.role }))
    }
    previousKind = kind
    if (!tools) continue
    const id = message.toolCallId
    if (id !== undefined) {
      if (head >= 0 && (messages[head].toolCalls ?? noCalls).some((call) => call.id === id)) answered.add(id)
      else found.push(new OrphanedToolResult({ index: i, toolCallId: id }))
    } else {
      closeBlock()
      head = i
      answered = new Set()
    }
  }
  if (tools) closeBlock()
  // closing a block reports its head after the block's orphans: restore index order (stable)
  return found.sort((a, b) => a.index - b.index)
}

/**
 * Whether the target accepts `messages`: {@link violations} is empty.
 *
 * @example
 * ```ts
 * import { Message, Validity } from "rollmem"
 *
 * Validity.isValid([Message.user("hi"), Message.assistant("hello")]) // true
 * Validity.isValid([Message.assistant("hello")], { provider: "anthropic" }) // false
 * ```
 *
 * @since 0.2.0
 * @category guards
 */
export const isValid = (messages: ReadonlyArray<MessageLike>, options?: Options | undefined): boolean =>
  violations(messages, options).length === 0
