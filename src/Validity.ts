/**
 * Would a strict chat API accept these messages? {@link violations} lists
 * what OpenAI's Chat Completions, Anthropic's Messages and Gemini's
 * `generateContent` reject in a context (the messages sent in one request),
 * each violation tagged and carrying the index of the message at fault:
 *
 * - {@link FirstTurnNotUser}: the first message that is not a system message
 *   (role `system` or `developer`) is not a user turn (role `user`, no tool
 *   call id). Gemini rejects such a request; Anthropic needs the first turn
 *   to be a user turn too.
 * - {@link OrphanedToolResult}: a tool result (a message with a tool call id)
 *   that is not in the block of tool results right after the message that
 *   made its call (the run of consecutive tool results that follows it).
 * - {@link UnansweredToolCall}: a tool call with no result in the block of
 *   tool results right after it, before the next message that is not a tool
 *   result (or the end of the messages: the model's own turn comes next).
 *
 * Pure and O(n) in the messages and their calls; the messages are only read.
 *
 * @example
 * ```ts
 * import { Message, Validity } from "rollmem"
 *
 * const context = [
 *   Message.tool("42", { toolCallId: "c1" }),
 *   Message.user("and the return flight?")
 * ]
 * Validity.violations(context)
 * // [FirstTurnNotUser { index: 0, role: "tool" }, OrphanedToolResult { index: 0, toolCallId: "c1" }]
 * Validity.isValid(context) // false
 * ```
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import * as Message from "./schema/Message.js"

/**
 * The first message that is not a system message (role `system` or
 * `developer`) is not a user turn: its role is not `user`, or it is a tool
 * result (it has a tool call id). `index` is that message's position in the
 * messages checked, `role` its role.
 *
 * @since 0.2.0
 * @category models
 */
export class FirstTurnNotUser extends Schema.TaggedClass<FirstTurnNotUser>("rollmem/Validity/FirstTurnNotUser")(
  "FirstTurnNotUser",
  { index: Schema.Int, role: Schema.String }
) {
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
 * @since 0.2.0
 * @category models
 */
export class OrphanedToolResult extends Schema.TaggedClass<OrphanedToolResult>(
  "rollmem/Validity/OrphanedToolResult"
)("OrphanedToolResult", { index: Schema.Int, toolCallId: Schema.String }) {
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
 * @since 0.2.0
 * @category models
 */
export class UnansweredToolCall extends Schema.TaggedClass<UnansweredToolCall>(
  "rollmem/Validity/UnansweredToolCall"
)("UnansweredToolCall", { index: Schema.Int, toolCallId: Schema.String }) {
  /** One line for people: `message 2: tool call "c1" has no result right after it`. */
  get description(): string {
    return `message ${this.index}: tool call ${JSON.stringify(this.toolCallId)} has no result right after it`
  }
}

/**
 * One reason a strict chat API rejects a context.
 *
 * @since 0.2.0
 * @category models
 */
export type Violation = FirstTurnNotUser | OrphanedToolResult | UnansweredToolCall

/**
 * The schema of a {@link Violation} (encoded: `{ "_tag", "index", ... }`),
 * for reading violations back from JSON.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Violation: Schema.Union<[typeof FirstTurnNotUser, typeof OrphanedToolResult, typeof UnansweredToolCall]> =
  Schema.Union(FirstTurnNotUser, OrphanedToolResult, UnansweredToolCall)

const article = (word: string): string => /^[aeiou]/i.test(word) ? "an" : "a"

/**
 * Whether a message counts as a system message for {@link FirstTurnNotUser}:
 * role `system` or `developer` (OpenAI's name for the system prompt of
 * reasoning models), whatever its other fields.
 *
 * @since 0.2.0
 * @category guards
 */
export const isSystem = (message: Message.Message): boolean =>
  message.role === Message.SYSTEM || message.role === "developer"

/**
 * Whether a message is a user turn: role `user` and no tool call id.
 *
 * @since 0.2.0
 * @category guards
 */
export const isUserTurn = (message: Message.Message): boolean =>
  message.role === Message.USER && message.toolCallId === undefined

/**
 * Every violation in `messages`, ordered by message index (at one index: the
 * first-turn violation, then the others as found). Empty when a strict chat
 * API accepts them, and for no messages, or system messages only (there is no
 * first turn to check).
 *
 * A tool result belongs to the block that follows the nearest message before
 * it that is not a tool result (the block's head, whatever its role): it is
 * orphaned unless the head carries a call with its id. When the block ends
 * (at the next message that is not a tool result, or the end), every call of
 * the head without a result in the block is unanswered. Ids reused across
 * messages are matched within a block only, as the APIs do.
 *
 * @since 0.2.0
 * @category combinators
 */
export const violations = (messages: ReadonlyArray<Message.Message>): ReadonlyArray<Violation> => {
  const found: Array<Violation> = []
  let firstChecked = false
  let head = -1
  let answered = new Set<string>()
  const closeBlock = () => {
    if (head < 0) return
    const calls = messages[head].toolCalls
    for (let c = 0; c < calls.length; c++) {
      const id = calls[c].id
      // a call id repeated within one message is reported once
      if (!answered.has(id)) {
        answered.add(id)
        found.push(new UnansweredToolCall({ index: head, toolCallId: id }))
      }
    }
  }
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]
    if (!firstChecked && !isSystem(message)) {
      firstChecked = true
      if (!isUserTurn(message)) found.push(new FirstTurnNotUser({ index: i, role: message.role }))
    }
    const id = message.toolCallId
    if (id !== undefined) {
      if (head >= 0 && messages[head].toolCalls.some((call) => call.id === id)) answered.add(id)
      else found.push(new OrphanedToolResult({ index: i, toolCallId: id }))
    } else {
      closeBlock()
      head = i
      answered = new Set()
    }
  }
  closeBlock()
  // closing a block reports its head after the block's orphans: restore index order (stable)
  return found.sort((a, b) => a.index - b.index)
}

/**
 * Whether a strict chat API accepts `messages`: {@link violations} is empty.
 *
 * @since 0.2.0
 * @category guards
 */
export const isValid = (messages: ReadonlyArray<Message.Message>): boolean => violations(messages).length === 0
