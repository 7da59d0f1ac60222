/**
 * The typed error of the provider adapters (`rollmem/adapters`) on the
 * Effect 4 line, and the options every `from…` and `to…` takes: the Effect 3
 * line's, with the same tag, fields and message (docs/contract.md section 15).
 *
 * @since 1.0.0
 */
import * as Schema from "effect/Schema"
import * as Validity from "../../../src/core/validity.js"

const isViolation = (u: unknown): u is Validity.Violation =>
  u instanceof Validity.FirstTurnNotUser || u instanceof Validity.OrphanedToolResult ||
  u instanceof Validity.UnansweredToolCall || u instanceof Validity.SystemAfterFirstTurn ||
  u instanceof Validity.ConsecutiveSameRole

/** A `Validity` violation, as `AdapterError` carries it. */
const Violation = Schema.declare(isViolation, { identifier: "Violation", description: "a Validity violation" })

/**
 * A conversion between rollmem messages and a provider's format that cannot
 * be made:
 *
 * - reading (`from…`): the input is not that provider's shape (a missing or
 *   mistyped field, a part type or field the adapter does not know);
 *   `description` names the path (`[3].content[1].type`) and what is wrong;
 * - writing (`to…`): the messages would not make a request the provider
 *   accepts (a role it has no place for, an orphaned tool result, a context
 *   the target's rules refuse); `description` names the message (by index)
 *   and the violation, `violations` holds the `Validity` violations when
 *   writing was refused for them.
 *
 * `format` is the provider format (`"openai-chat"`). The message is
 * `format: description`.
 *
 * @example
 * ```ts
 * import { AdapterError, fromOpenAIChat } from "rollmem/adapters"
 *
 * try {
 *   fromOpenAIChat([{ role: "robot", content: "hi" }])
 * } catch (error) {
 *   if (error instanceof AdapterError) error.format // "openai-chat"; error.description names [0].role
 * }
 * ```
 *
 * @since 1.0.0
 * @category errors
 */
export class AdapterError extends Schema.TaggedError<AdapterError>("rollmem/AdapterError")("AdapterError", {
  format: Schema.String,
  description: Schema.String,
  violations: Schema.optional(Schema.Array(Violation)),
  cause: Schema.optional(Schema.Defect())
}) {
  /** Its tag, as the Effect 3 line names its errors (`error.name`, docs/contract.md section 9). */
  override get name(): string {
    return this._tag
  }
  override get message(): string {
    return `${this.format}: ${this.description}`
  }
}

/**
 * What every checked `to…` / `encode` takes (docs/contract.md sections 15.2
 * and 15.5): `check` (default `true`) refuses, with `AdapterError` listing
 * the `Validity` violations, messages the target rejects, by the target's
 * rules only; `check: false` writes them as they are. `provider` names the
 * target whose rules apply (default: the format's own, `openai` for OpenAI's
 * formats). `arrange` writes a memory's read-back in a form the target
 * accepts instead (see {@link Arrange}).
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 * import { toOpenAIChat } from "rollmem/adapters"
 *
 * const messages = [Message.user("summary"), Message.user("hi")]
 * toOpenAIChat(messages) // accepted: OpenAI takes two user messages in a row
 * // toOpenAIChat(messages, { provider: "strict-template" }) throws: message 1: a second user message in a row
 * ```
 *
 * @since 1.0.0
 * @category models
 */
export interface CheckOptions {
  readonly check?: boolean | undefined
  readonly provider?: Validity.Provider | undefined
  readonly arrange?: Arrange | undefined
}

/**
 * How a `to…` arranges a memory's read-back for a target that would refuse
 * it as it is (docs/contract.md section 15.5): `true`, or `{ summary }` (the
 * memory's summary text): system messages after the first turn moved up to
 * the leading ones (before the one holding `summary`) for `anthropic`,
 * `gemini` and `strict-template`; consecutive messages of one kind merged,
 * contents joined with `"\n\n"`, for `strict-template`. Default: as they are.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 * import { toOpenAIChat } from "rollmem/adapters"
 *
 * const readBack = [Message.system("Be brief."), Message.user("Summary: ..."), Message.user("hi")]
 * toOpenAIChat(readBack, { provider: "strict-template", arrange: true })
 * // [{ role: "system", content: "Be brief." }, { role: "user", content: "Summary: ...\n\nhi" }]
 * ```
 *
 * @since 1.0.0
 * @category models
 */
export type Arrange = boolean | { readonly summary: string }

/**
 * What every `from…` / `decode` takes. `strict` (default `false`): refuse,
 * with `AdapterError` naming the path, a key or part type the adapter does
 * not model. By default such a key or part is kept verbatim under the
 * metadata key `"rollmem.provider"`, so the same provider's `to…` writes it
 * back; only what cannot be placed is refused (an unknown role, a malformed
 * known field).
 *
 * @example
 * ```ts
 * import { fromOpenAIChat } from "rollmem/adapters"
 *
 * fromOpenAIChat([{ role: "user", content: "hi", x_future: 1 }]) // kept
 * // fromOpenAIChat([{ role: "user", content: "hi", x_future: 1 }], { strict: true }) throws: [0].x_future
 * ```
 *
 * @since 1.0.0
 * @category models
 */
export interface DecodeOptions {
  readonly strict?: boolean | undefined
}
