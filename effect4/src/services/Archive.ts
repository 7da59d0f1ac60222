/**
 * The archive (docs/contract.md section 17) on the Effect 4 line: where a
 * memory writes every message that leaves its buffer, by (conversation,
 * position), and what `recall` searches. The in-memory archive is the pure
 * core's (`src/core/archive.ts`), the one the Effect 3 line wraps too.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Archive, Message } from "rollmem"
 *
 * const archive = Archive.makeMemory()
 * const found = Effect.runSync(Effect.andThen(
 *   archive.append("c1", [{ position: 0, message: Message.user("hello there") }]),
 *   archive.search("c1", "hello")
 * ))
 * found.map((match) => match.position) // [0]
 * ```
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Store from "../../../src/core/archive.js"
import * as Rules from "../../../src/core/options.js"
import { ArchiveError, ConfigError } from "../Errors.js"
import type { Message } from "../schema/Message.js"

/** A message to archive and its position in its conversation. @since 1.0.0 */
export interface Entry {
  readonly position: number
  readonly message: Message
}

/** An archived message: its conversation, position and fold (numbered from 1). @since 1.0.0 */
export type Archived = Store.Archived<Message>

/** A search's match: the archived message with `score`, `exact` and `neighbours`. @since 1.0.0 */
export type Match = Store.Match<Message>

/**
 * A search's options: `limit` (a positive integer, default 5), `before` (only
 * positions below it), `roles` (only these roles), `neighbours` (the archived
 * messages around each match, that many each side, default 0).
 *
 * @since 1.0.0
 */
export type SearchOptions = Store.SearchOptions

/**
 * An archive: `append` (ignoring a position it already holds; each write
 * that stores a new position is the conversation's next fold), `search` and
 * `messages` (in position order).
 *
 * @since 1.0.0
 */
export interface Service {
  readonly append: (conversationId: string, entries: ReadonlyArray<Entry>) => Effect.Effect<void, ArchiveError>
  readonly search: (
    conversationId: string,
    query: string,
    options?: SearchOptions
  ) => Effect.Effect<ReadonlyArray<Match>, ArchiveError | ConfigError>
  readonly messages: (conversationId: string) => Effect.Effect<ReadonlyArray<Archived>, ArchiveError>
}

/**
 * The archive service, for a layer (`layerMemory`); a memory takes its
 * archive as its `archive` option.
 *
 * @since 1.0.0
 */
export class Archive extends Context.Service<Archive, Service>()("rollmem/Archive") {}

/**
 * The `ConfigError` of a search's options, if any (docs/contract.md section 17).
 *
 * @since 1.0.0
 */
export const checkOptions = (options: unknown): ConfigError | undefined => {
  const problem = Rules.recallOptions(options)
  return problem === undefined ? undefined : new ConfigError(problem)
}

/**
 * An archive in this process's memory. Search ranks with `core/recall.ts`
 * (BM25, exact artifact matches first); each message is indexed once, by
 * the first search after it is stored.
 *
 * @since 1.0.0
 */
export const makeMemory = (): Service => {
  const store = Store.makeStore<Message>()
  return {
    append: (conversationId, entries) => Effect.sync(() => store.append(conversationId, entries)),
    search: (conversationId, query, options) =>
      Effect.suspend(() => {
        const refused = checkOptions(options)
        return refused !== undefined
          ? Effect.fail(refused)
          : Effect.succeed(store.search(conversationId, query, options))
      }),
    messages: (conversationId) => Effect.sync(() => store.messages(conversationId))
  }
}

/**
 * A layer of {@link makeMemory}.
 *
 * @since 1.0.0
 */
export const layerMemory: Layer.Layer<Archive> = Layer.sync(Archive, makeMemory)

/**
 * An `ArchiveError` for a backend's failure.
 *
 * @since 1.0.0
 */
export const failed = (description: string, cause?: unknown): ArchiveError =>
  new ArchiveError({ description, ...(cause === undefined ? {} : { cause }) })
