/**
 * The `--store` option of the command line: `rollmem replay --store
 * sqlite:<path>` (or `postgres://…`, `redis://…`) saves the final state of
 * every replayed conversation under its id (through
 * `Conversation.withMemory`), and `rollmem show <id> --store …` prints a
 * stored conversation back.
 *
 * Replaying into a store replaces what was stored under the same id: the
 * stored memory is cleared, then every message is added, in one
 * `withMemory` call per conversation (one save, revision one more than
 * before). The figures are those of a replay without the store.
 *
 * @example
 * ```sh
 * rollmem replay conversations.jsonl --store sqlite:conversations.db
 * rollmem show support-chat --store sqlite:conversations.db
 * rollmem show support-chat --store sqlite:conversations.db --format json
 * rollmem replay conversations.jsonl --store postgres://postgres@127.0.0.1:5432/app
 * rollmem show support-chat --store redis://127.0.0.1:6379
 * ```
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { ConfigError } from "../Errors.js"
import * as MemoryState from "../schema/MemoryState.js"
import * as Conversation from "../store/Conversation.js"
import * as ConversationStore from "../store/ConversationStore.js"
import * as BufferMemory from "../strategies/BufferMemory.js"
import { exists } from "./Input.js"
import { memoryOptions, type Open, withSummarizer } from "./Replay.js"

/**
 * A checked `--store` value: where the conversations are, and how messages
 * name it.
 *
 * @since 0.1.0
 * @category models
 */
export interface StoreSpec {
  readonly location: ConversationStore.Location
  /** `sqlite:PATH`, or the URL with its password replaced by `***`. */
  readonly label: string
}

/**
 * Checks a `--store` value: `sqlite:<path>` with a non-empty path,
 * `postgres://…` (or `postgresql://`) or `redis://…` (or `rediss://`).
 * Fails with `ConfigError` (option `--store`) otherwise, and for `memory`
 * (nothing would outlive the command).
 *
 * @since 0.1.0
 * @category constructors
 */
export const parse = (text: string): Effect.Effect<StoreSpec, ConfigError> =>
  Effect.map(
    ConversationStore.parseLocation(text, "--store", false),
    (location) => ({ location, label: ConversationStore.describeLocation(location) })
  )

/**
 * The store of a spec: `ConversationStore.layerLocation` (an SQLite file is
 * created if missing). An error while opening it (an SQL error creating the
 * table, a server that does not answer, a driver that cannot be loaded
 * because its optional peer is not installed, a file that cannot be opened)
 * fails with `ConfigError` (option `--store`), so the command line prints
 * one line instead of a stack trace.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (spec: StoreSpec): Layer.Layer<ConversationStore.ConversationStore, ConfigError> =>
  ConversationStore.layerLocation(spec.location).pipe(
    Layer.catchAllCause((cause) => {
      const error = Option.getOrElse(Cause.failureOption(cause), () => Cause.squash(cause))
      const detail = error instanceof Error ? error.message : String(error)
      return Layer.fail(new ConfigError({ option: "--store", description: `cannot open ${spec.label}: ${detail}` }))
    })
  )

/**
 * Opens a conversation's memory in the `ConversationStore` for a replay:
 * `Conversation.withMemory` with the configured strategy, the stored state
 * cleared first so the replay starts empty and its final state replaces the
 * stored one.
 *
 * @since 0.1.0
 * @category constructors
 */
export const open: Open<Conversation.WithMemoryError, ConversationStore.ConversationStore> = (
  id,
  config,
  summarizer,
  use
) =>
  withSummarizer(
    Conversation.withMemory(id, memoryOptions(config) as Conversation.StrategyOptions, (memory) =>
      Effect.zipRight(memory.clear, use(memory))),
    summarizer
  )

/**
 * {@link open} that also archives (`rollmem replay --store S --archive`,
 * docs/contract.md section 17.2): the conversation is deleted first (its
 * state and its archive), then replayed with `archive: true`, so a replay
 * replaces both and archives every message that leaves the buffer once.
 *
 * @since 0.4.0
 * @category constructors
 */
export const openArchiving: Open<Conversation.WithMemoryError, ConversationStore.ConversationStore> = (
  id,
  config,
  summarizer,
  use
) =>
  withSummarizer(
    Effect.zipRight(
      Effect.flatMap(ConversationStore.ConversationStore, (store) => store.delete(id)),
      Conversation.withMemory(
        id,
        { ...memoryOptions(config) as Conversation.StrategyOptions, archive: true },
        (memory) => Effect.zipRight(memory.clear, use(memory))
      )
    ),
    summarizer
  )

/**
 * Searches conversation `id`'s archive in the store in context
 * (`rollmem recall`, docs/contract.md section 17.2): its matches, best first.
 * Fails with `ConfigError` (option `--limit`) for a limit the archive
 * refuses, `ArchiveError` when the store fails.
 *
 * @since 0.4.0
 * @category constructors
 */
export const recall = (id: string, query: string, limit: number) =>
  Effect.flatMap(ConversationStore.ConversationStore, (store) =>
    store.archive === undefined
      ? Effect.fail(new ConfigError({ option: "--store", description: "this store keeps no archive" }))
      : Effect.mapError(
        store.archive.search(id, query, { limit }),
        (error) =>
          error._tag === "ConfigError" ? new ConfigError({ option: "--limit", description: error.description }) : error
      ))

/**
 * Whether conversation `id` has any archived turn in the store in context
 * (`rollmem recall` tells a conversation it cannot search from a query
 * that matches nothing). Fails with `ArchiveError` when the store fails.
 *
 * @since 0.4.0
 * @category constructors
 */
export const hasArchive = (id: string) =>
  Effect.flatMap(ConversationStore.ConversationStore, (store) =>
    store.archive === undefined
      ? Effect.succeed(false)
      : Effect.map(store.archive.messages(id), (archived) => archived.length > 0))

/**
 * A stored conversation as `rollmem show` prints it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Shown {
  readonly id: string
  readonly revision: number
  readonly state: MemoryState.MemoryState
  /** Messages of the restored memory's context (the summary message, if any, then the buffer). */
  readonly messages: number
  /** What `memory.context` gives for the restored state. */
  readonly context: string
}

/**
 * Loads conversation `id` and restores it (as a BufferMemory: loading never
 * prunes, so any strategy gives the same context). `Option.none()` when it
 * is not stored. Fails with the store's errors, or `TokenCountError` from the
 * `TokenCounter` in context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const load = (id: string) =>
  Effect.gen(function*() {
    const store = yield* ConversationStore.ConversationStore
    const stored = yield* store.load(id)
    if (Option.isNone(stored)) return Option.none<Shown>()
    const memory = yield* BufferMemory.fromState(stored.value.state)
    return Option.some<Shown>({
      id,
      revision: stored.value.revision,
      state: stored.value.state,
      messages: (yield* memory.messages).length,
      context: yield* memory.context
    })
  })

const missing = (what: string, path: string) => (found: boolean): Effect.Effect<void, ConfigError> =>
  found ? Effect.void : Effect.fail(new ConfigError({ option: "--store", description: `no such ${what} ${path}` }))

/**
 * Fails with `ConfigError` (option `--store`) when the database file of
 * `spec` (SQLite) does not exist, so that reading never creates one.
 *
 * @since 0.1.0
 * @category constructors
 */
export const requireFile = (spec: StoreSpec): Effect.Effect<void, ConfigError, FileSystem.FileSystem> =>
  spec.location._tag === "Sqlite"
    ? Effect.flatMap(exists(spec.location.filename), missing("file", spec.location.filename))
    : Effect.void

/**
 * Fails with `ConfigError` (option `--store`) when the directory that would
 * hold the database file of `spec` does not exist (SQLite creates the file,
 * not its directory).
 *
 * @since 0.1.0
 * @category constructors
 */
export const requireDirectory = (
  spec: StoreSpec
): Effect.Effect<void, ConfigError, FileSystem.FileSystem | Path.Path> =>
  spec.location._tag === "Sqlite"
    ? Effect.flatMap(Path.Path, (path) => {
      const directory = path.dirname((spec.location as { readonly filename: string }).filename)
      return Effect.flatMap(exists(directory), missing("directory", directory))
    })
    : Effect.void

/**
 * The stored state in the wire format (docs/contract.md section 2), as 2-space JSON.
 *
 * @since 0.1.0
 * @category combinators
 */
export const stateJson = (state: MemoryState.MemoryState): string => JSON.stringify(MemoryState.toJSON(state), null, 2)
