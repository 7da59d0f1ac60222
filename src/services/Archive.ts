/**
 * The `Archive` service: every message that leaves a memory's buffer, kept
 * with its conversation, its position and the fold it left in, and searched
 * by `recall` (docs/contract.md section 17).
 *
 * An archive stores by (conversation, position) and ignores a position it
 * already holds, so a retried write never doubles a message. A memory given
 * an archive (its `archive` option) writes the messages a fold, a drop, a
 * window's eviction, a tool result's clearing or cut takes out of the buffer
 * before it commits, and commits nothing when the write fails.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Archive, Message, RollingMemory, Summarizer } from "rollmem"
 *
 * const program = Effect.gen(function*() {
 *   const archive = Archive.makeMemory()
 *   const memory = yield* RollingMemory.make({ maxTokens: 4, archive, conversationId: "c1" })
 *   yield* memory.add(Message.user("the build fails in src/cli/Measure.ts"))
 *   yield* memory.add(Message.assistant("fixed it"))
 *   return yield* memory.recall("src/cli/Measure.ts", { limit: 1 })
 * }).pipe(Effect.provide(Summarizer.layerDrop))
 * // [{ conversationId: "c1", position: 0, fold: 1, message: user "the build fails ...", ... }]
 * ```
 *
 * @since 0.4.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Store from "../core/archive.js"
import * as Rules from "../core/options.js"
import { ArchiveError, ConfigError } from "../Errors.js"
import type { Message } from "../schema/Message.js"

/**
 * A message to archive: its position in the conversation (the number of
 * messages added before it) and the message, with its original content.
 *
 * @since 0.4.0
 * @category models
 */
export interface Entry {
  readonly position: number
  readonly message: Message
}

/**
 * An archived message: its conversation, its position, the fold it left the
 * buffer in (the conversation's archive writes that stored something,
 * numbered from 1) and the message.
 *
 * @since 0.4.0
 * @category models
 */
export interface Archived {
  readonly conversationId: string
  readonly position: number
  readonly fold: number
  readonly message: Message
}

/**
 * A recall's match: the archived message, its rank's figures (`exact`: how
 * many of the query's artifacts it names, which rank first; `score`: its
 * BM25 score, or the database's rank) and, when asked for, its
 * `neighbours`: the archived messages around it, in position order.
 *
 * @since 0.4.0
 * @category models
 */
export interface Match extends Archived {
  readonly score: number
  readonly exact: number
  readonly neighbours: ReadonlyArray<Archived>
}

/**
 * The options of a search or a recall: `limit` (a positive integer, default
 * 5), `before` (only positions below it), `roles` (only these roles),
 * `neighbours` (the archived messages around each match to include, on each
 * side; default 0).
 *
 * @since 0.4.0
 * @category models
 */
export interface SearchOptions {
  readonly limit?: number | undefined
  readonly before?: number | undefined
  readonly roles?: ReadonlyArray<string> | undefined
  readonly neighbours?: number | undefined
}

/**
 * An archive. `append` stores the entries of one write (a fold's), ignoring
 * the positions already stored; `appendSync`, when present, does the same at
 * once (what a synchronous memory needs: `undefined` on success); `search`
 * ranks a conversation's archived messages for a query; `messages` lists
 * them in position order.
 *
 * @since 0.4.0
 * @category models
 */
export interface Service {
  readonly append: (conversationId: string, entries: ReadonlyArray<Entry>) => Effect.Effect<void, ArchiveError>
  readonly appendSync?:
    | ((conversationId: string, entries: ReadonlyArray<Entry>) => ArchiveError | undefined)
    | undefined
  readonly search: (
    conversationId: string,
    query: string,
    options?: SearchOptions
  ) => Effect.Effect<ReadonlyArray<Match>, ArchiveError | ConfigError>
  readonly messages: (conversationId: string) => Effect.Effect<ReadonlyArray<Archived>, ArchiveError>
}

/**
 * The `Archive` service's tag.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Archive, Message, RollingMemory, Summarizer } from "rollmem"
 *
 * // the archive in context, handed to a memory: evicted turns stay searchable
 * const program = Effect.gen(function*() {
 *   const archive = yield* Archive.Archive
 *   const memory = yield* RollingMemory.make({ maxTokens: 2000, archive, conversationId: "chat-42" })
 *   yield* memory.add(Message.user("Book me a flight to Rome"))
 *   return yield* memory.recall("Rome")
 * }).pipe(Effect.provide(Archive.layerMemory), Effect.provide(Summarizer.layerDrop))
 * ```
 *
 * @since 0.4.0
 * @category tags
 */
export class Archive extends Context.Tag("rollmem/Archive")<Archive, Service>() {}

/**
 * Checks a search's options (docs/contract.md section 17): a `ConfigError`
 * naming the option, or `undefined`.
 *
 * @example
 * ```ts
 * import { Archive } from "rollmem"
 *
 * Archive.checkOptions({ limit: 5 }) // undefined: valid
 * Archive.checkOptions({ limit: 0 }) // ConfigError naming limit
 * ```
 *
 * @since 0.4.0
 * @category combinators
 */
export const checkOptions = (options: unknown): ConfigError | undefined => {
  const problem = Rules.recallOptions(options)
  return problem === undefined ? undefined : new ConfigError(problem)
}

/**
 * An archive in this process's memory, with `appendSync`: a memory writes
 * to it in the add's own step (a synchronous summarizer's fold stays one
 * step). The Promise facade's `Archive.memory()` wraps one; the facade's
 * classes take that, not this service. Search ranks
 * with `core/recall.ts` (BM25, exact artifact matches first); each message
 * is indexed once, by the first search after it is stored, so a write
 * costs a fold next to nothing and the ranking's work is done only for a
 * conversation that is searched.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Archive, Message } from "rollmem"
 *
 * const archive = Archive.makeMemory()
 * await Effect.runPromise(archive.append("c1", [{ position: 0, message: Message.user("hello there") }]))
 * const found = await Effect.runPromise(archive.search("c1", "hello"))
 * found.map((match) => match.position) // [0]
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const makeMemory = (): Service => makeMemoryOf([])

/**
 * An in-memory archive ({@link makeMemory}) holding `archived` as they are,
 * their fold numbers kept (the first of a position wins); the next write of
 * a conversation is its highest fold plus one. What a store that keeps its
 * archive as a plain log (the key-value and Redis stores) ranks a search
 * with.
 *
 * @internal
 */
export const makeMemoryOf = (archived: ReadonlyArray<Archived>): Service => {
  const store = Store.makeStore<Message>(archived)
  const appendSync = (conversationId: string, entries: ReadonlyArray<Entry>): undefined => {
    store.append(conversationId, entries)
    return undefined
  }
  return {
    append: (conversationId, entries) => Effect.sync(() => appendSync(conversationId, entries)),
    appendSync,
    search: (conversationId, query, options) =>
      Effect.suspend(() => {
        const refused = checkOptions(options)
        return refused !== undefined ? Exit.fail(refused) : Exit.succeed(store.search(conversationId, query, options))
      }),
    messages: (conversationId) => Effect.sync(() => store.messages(conversationId))
  }
}

/**
 * A layer of a new {@link makeMemory} archive.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Archive } from "rollmem"
 *
 * const program = Effect.gen(function*() {
 *   const archive = yield* Archive.Archive // kept in this process, lost with it
 *   return archive
 * }).pipe(Effect.provide(Archive.layerMemory))
 * ```
 *
 * @since 0.4.0
 * @category layers
 */
export const layerMemory: Layer.Layer<Archive> = Layer.sync(Archive, makeMemory)

/**
 * Wraps a failure of an archive's backend (`cause`) as an {@link ArchiveError}.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Archive } from "rollmem"
 *
 * declare const fetchRows: (id: string) => Promise<ReadonlyArray<string>>
 * // a backend's own failure, typed as the archive's error
 * const rows = (id: string) =>
 *   Effect.tryPromise({ try: () => fetchRows(id), catch: (cause) => Archive.failed(`cannot read ${id}`, cause) })
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const failed = (description: string, cause?: unknown): ArchiveError =>
  new ArchiveError({ description, ...(cause === undefined ? {} : { cause }) })
