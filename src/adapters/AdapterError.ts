/**
 * The typed error of the provider adapters (`rollmem/adapters`).
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import type { Provider } from "../core/validity.js"
import * as ValiditySchema from "../schema/Violation.js"

/**
 * A conversion between rollmem messages and a provider's format that cannot
 * be made:
 *
 * - reading (`from…`): the input is not that provider's shape (a missing or
 *   mistyped field, a part type or field the adapter does not know);
 *   `description` names the path (`[3].content[1].type`) and what is wrong;
 * - writing (`to…`): the messages would not make a request the provider
 *   accepts (a role it has no place for, a system message after the first
 *   turn where the provider takes system text only up front, an orphaned tool
 *   result, a context that opens on an assistant turn); `description` names
 *   the message (by index) and the violation.
 *
 * `format` is the provider format: `"openai-chat"`, `"openai-responses"`,
 * `"anthropic"`, `"ai-sdk"`, `"ai-sdk-ui"` (`UIMessage`), `"gemini"` or
 * `"langchain"`. `violations` holds
 * the `Validity` violations when writing was refused for them.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { fromOpenAIChat } from "rollmem/adapters"
 *
 * const read = Effect.try({ try: () => fromOpenAIChat([{ role: "robot", content: "hi" }]), catch: (e) => e })
 * // fails with AdapterError (format "openai-chat") naming messages[0].role
 * ```
 *
 * @since 0.2.0
 * @category errors
 */
export class AdapterError extends Schema.TaggedError<AdapterError>("rollmem/AdapterError")("AdapterError", {
  format: Schema.String,
  description: Schema.String,
  violations: Schema.optional(Schema.Array(ValiditySchema.Violation)),
  cause: Schema.optional(Schema.Defect)
}) {
  override get message(): string {
    return `${this.format}: ${this.description}`
  }
}

/**
 * What every checked `to…` / `encode` takes: `check` (default `true`)
 * refuses, with `AdapterError` listing the `Validity` violations, messages
 * the target rejects, by the target's rules only (docs/contract.md section
 * 15.2: an orphaned tool result and a tool call without its results right
 * after it everywhere; a first turn that is not a user turn and a system
 * message after the first turn for Anthropic and Gemini; consecutive
 * messages of one role for strict templates). `check: false` writes them as
 * they are. `provider` names the target whose rules apply; default: the
 * format's own (`openai` for OpenAI's formats, the AI SDK's and LangChain's,
 * `anthropic`, `gemini`), so a transcript the provider accepts is never
 * refused. `arrange` writes a memory's read-back in a form the target
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
 * @since 0.2.0
 * @category models
 */
export interface CheckOptions {
  readonly check?: boolean | undefined
  readonly provider?: Provider | undefined
  readonly arrange?: Arrange | undefined
}

/**
 * How a `to…` arranges a memory's read-back for a target that would refuse
 * it as it is (docs/contract.md section 15.5); the memory's own read-back is
 * unchanged. `true`, or `{ summary }` (the memory's summary text): for a
 * target that rejects a system message after the first turn (`anthropic`,
 * `gemini`, `strict-template`), every `system` / `developer` message after
 * the first turn moves up to the leading system messages, in order, before
 * the leading system message holding `summary` when given (so that, with
 * `pinSystem`, every pinned message comes before the summary); for a target
 * that rejects consecutive messages of one kind (`strict-template`), such
 * messages are merged into one, their contents joined with a blank line
 * (`"\n\n"`), written from their fields (what a merged message kept under
 * `"rollmem.provider"` is not written). Default: as they are (refused by
 * `check` where the target rejects them).
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
 * @since 0.4.0
 * @category models
 */
export type Arrange = boolean | { readonly summary: string }

/**
 * What every `from…` / `decode` takes. `strict` (default `false`): refuse,
 * with `AdapterError` naming the path, a key or part type the adapter does
 * not model. By default such a key or part is kept verbatim under the
 * metadata key `"rollmem.provider"` (the provider's items the message came
 * from), so the same provider's `to…` writes it back; only what cannot be
 * placed is refused (an unknown role, a malformed known field).
 *
 * @example
 * ```ts
 * import { fromOpenAIChat } from "rollmem/adapters"
 *
 * fromOpenAIChat([{ role: "user", content: "hi", x_future: 1 }]) // kept
 * // fromOpenAIChat([{ role: "user", content: "hi", x_future: 1 }], { strict: true }) throws: [0].x_future: is unexpected
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export interface DecodeOptions {
  readonly strict?: boolean | undefined
}
