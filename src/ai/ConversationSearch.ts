/**
 * The `conversation_search` tool as an `@effect/ai` `Toolkit`
 * (docs/contract.md section 17.1): give {@link toolkit} to
 * `LanguageModel.generateText` with {@link layer} (a memory's `recall`
 * behind it), and the model can get back the turns a fold took out of its
 * context. The answer is the same text as `rollmem/adapters`'
 * `ConversationSearch` gives, bounded by `maxTokens` (default 2,000, counted
 * with the word count unless `count` is given); a failed search is returned
 * to the model as the tool's failure (a string), never an error of the call.
 *
 * @example
 * ```ts
 * import { LanguageModel } from "@effect/ai"
 * import { Effect } from "effect"
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
 * @since 0.4.0
 */
import * as Tool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Core from "../core/conversationSearch.js"
import type { ArchiveError, ConfigError } from "../Errors.js"
import type * as Archive from "../services/Archive.js"
import { wordCount } from "../services/TokenCounter.js"

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
 * @since 0.4.0
 * @category tools
 */
export const ConversationSearchTool = Tool.make(Core.NAME, {
  description: Core.DESCRIPTION,
  parameters: {
    query: Schema.String.annotations({ description: Core.parameters.properties.query.description }),
    limit: Schema.optional(
      Schema.Int.pipe(Schema.between(1, Core.MAX_LIMIT)).annotations({
        description: Core.parameters.properties.limit.description
      })
    ),
    before: Schema.optional(
      Schema.Int.pipe(Schema.nonNegative()).annotations({ description: Core.parameters.properties.before.description })
    ),
    roles: Schema.optional(
      Schema.Array(Schema.Literal("user", "assistant", "tool", "system")).annotations({
        description: Core.parameters.properties.roles.description
      })
    )
  },
  success: Schema.String,
  failure: Schema.String,
  failureMode: "return"
})

/**
 * The toolkit holding {@link ConversationSearchTool}.
 *
 * @example
 * ```ts
 * import { LanguageModel } from "@effect/ai"
 * import { Effect } from "effect"
 * import { Archive, Message, RollingMemory, Summarizer } from "rollmem"
 * import { AiPrompt, ConversationSearch } from "rollmem/ai"
 *
 * const program = Effect.gen(function*() {
 *   const archive = yield* Archive.Archive
 *   const memory = yield* RollingMemory.make({ maxTokens: 4000, archive })
 *   yield* memory.add(Message.user("What hotel did we pick?"))
 *   const prompt = AiPrompt.toPrompt(yield* memory.messages)
 *   return yield* LanguageModel.generateText({ prompt, toolkit: ConversationSearch.toolkit }).pipe(
 *     Effect.provide(ConversationSearch.layer(memory))
 *   )
 * }).pipe(Effect.provide(Archive.layerMemory), Effect.provide(Summarizer.layerDrop))
 * ```
 *
 * @since 0.4.0
 * @category toolkits
 */
export const toolkit = Toolkit.make(ConversationSearchTool)

/**
 * The answer's budget: `maxTokens` (default 2,000) counted by `count`
 * (default the word count).
 *
 * @since 0.4.0
 * @category models
 */
export interface Options {
  readonly maxTokens?: number | undefined
  readonly count?: ((text: string) => number) | undefined
}

/**
 * What the tool needs of a memory: its `recall` (every memory built with an
 * `archive` has it), so that this layer reaches no strategy's module.
 *
 * @since 0.4.0
 * @category models
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
 * (no archive, the archive's error) fails the tool with its message.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ConversationSearch } from "rollmem/ai"
 * import type { RollingMemory } from "rollmem"
 *
 * declare const memory: RollingMemory.RollingMemory
 * // the tool's handler on this memory's recall, answers within 500 tokens
 * const handlers = ConversationSearch.layer(memory, { maxTokens: 500 })
 * ```
 *
 * @since 0.4.0
 * @category layers
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
