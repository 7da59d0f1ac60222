/**
 * The `conversation_search` tool as an Effect 4 `Toolkit` (`effect/ai`,
 * docs/contract.md section 17.1): give {@link toolkit} to
 * `LanguageModel.generateText` with {@link layer} (a memory's `recall`
 * behind it), and the model can get back the turns a fold took out of its
 * context. The answer is the same text as `rollmem/adapters`'
 * `ConversationSearch` gives (`src/core/conversationSearch.ts`), bounded by
 * `maxTokens` (default 2,000, counted with the word count unless `count` is
 * given); a failed search is returned to the model as the tool's failure (a
 * string), never an error of the call. The Effect 3 line's toolkit, on
 * Effect 4's `Tool` (its parameters one `Schema.Struct`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { LanguageModel } from "effect/ai"
 * import { Archive, RollingMemory } from "rollmem"
 * import { AiPrompt, ConversationSearch } from "rollmem/ai"
 *
 * const program = Effect.gen(function*() {
 *   const memory = yield* RollingMemory.make({ maxTokens: 8000, archive: Archive.makeMemory() })
 *   const messages = yield* memory.messages
 *   return yield* LanguageModel.generateText({ prompt: AiPrompt.toPrompt(messages), toolkit: ConversationSearch.toolkit })
 *     .pipe(Effect.provide(ConversationSearch.layer(memory)))
 * })
 * ```
 *
 * @since 1.0.0
 */
import { Tool, Toolkit } from "effect/ai"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Core from "../../../src/core/conversationSearch.js"
import { wordCount } from "../../../src/core/tokens.js"
import type { ArchiveError, ConfigError } from "../Errors.js"
import type * as Archive from "../services/Archive.js"

/**
 * The tool: `conversation_search`, its parameters as a Schema (`query`,
 * optional `limit` from 1 to 20, `before`, `roles`), a string as success
 * and as failure (returned to the model).
 *
 * @example
 * ```ts
 * import { ConversationSearch } from "rollmem/ai"
 *
 * ConversationSearch.ConversationSearchTool.name // "conversation_search"
 * ```
 *
 * @since 1.0.0
 */
export const ConversationSearchTool = Tool.make(Core.NAME, {
  description: Core.DESCRIPTION,
  parameters: Schema.Struct({
    query: Schema.String.annotate({ description: Core.parameters.properties.query.description }),
    limit: Schema.optional(
      Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: Core.MAX_LIMIT })).annotate({
        description: Core.parameters.properties.limit.description
      })
    ),
    before: Schema.optional(
      Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({
        description: Core.parameters.properties.before.description
      })
    ),
    roles: Schema.optional(
      Schema.Array(Schema.Literals(["user", "assistant", "tool", "system"])).annotate({
        description: Core.parameters.properties.roles.description
      })
    )
  }),
  success: Schema.String,
  failure: Schema.String,
  failureMode: "return"
})

/**
 * The toolkit holding {@link ConversationSearchTool}.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { LanguageModel } from "effect/ai"
 * import { Archive, Message, RollingMemory, Summarizer } from "rollmem"
 * import { AiPrompt, ConversationSearch } from "rollmem/ai"
 *
 * const program = Effect.gen(function*() {
 *   const memory = yield* RollingMemory.make({ maxTokens: 4000, archive: Archive.makeMemory() })
 *   yield* memory.add(Message.user("What hotel did we pick?"))
 *   const prompt = AiPrompt.toPrompt(yield* memory.messages)
 *   return yield* LanguageModel.generateText({ prompt, toolkit: ConversationSearch.toolkit }).pipe(
 *     Effect.provide(ConversationSearch.layer(memory))
 *   )
 * }).pipe(Effect.provide(Summarizer.layerDrop))
 * ```
 *
 * @since 1.0.0
 */
export const toolkit = Toolkit.make(ConversationSearchTool)

/**
 * The answer's budget: `maxTokens` (default 2,000) counted by `count`
 * (default the word count).
 *
 * @since 1.0.0
 */
export interface Options {
  readonly maxTokens?: number | undefined
  readonly count?: ((text: string) => number) | undefined
}

/**
 * What the tool needs of a memory: its `recall` (every memory built with an
 * `archive` has it).
 *
 * @since 1.0.0
 */
export interface Recaller {
  readonly recall: (
    query: string,
    options?: Archive.SearchOptions
  ) => Effect.Effect<ReadonlyArray<Archive.Match>, ArchiveError | ConfigError>
}

/**
 * The handler of {@link toolkit} on a memory's `recall` (a memory built with
 * an `archive`): the matches rendered within the budget; a failed search
 * (no archive, the archive's error) fails the tool with `search failed: ` and
 * its message.
 *
 * @example
 * ```ts
 * import type { RollingMemory } from "rollmem"
 * import { ConversationSearch } from "rollmem/ai"
 *
 * declare const memory: RollingMemory.RollingMemory
 * // the tool's handler on this memory's recall, answers within 500 tokens
 * const handlers = ConversationSearch.layer(memory, { maxTokens: 500 })
 * ```
 *
 * @since 1.0.0
 */
export const layer = (
  memory: Recaller,
  options?: Options
): Layer.Layer<Tool.Handler<typeof Core.NAME>> =>
  toolkit.toLayer({
    conversation_search: (params) =>
      memory.recall(params.query, {
        ...(params.limit === undefined ? {} : { limit: params.limit }),
        ...(params.before === undefined ? {} : { before: params.before }),
        ...(params.roles === undefined ? {} : { roles: params.roles })
      }).pipe(
        Effect.map((found) =>
          Core.render(params.query, found, { maxTokens: options?.maxTokens, count: options?.count ?? wordCount })
        ),
        Effect.mapError((error) => `search failed: ${error.message}`)
      )
  })
