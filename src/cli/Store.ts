/**
 * The `--store` option of the command line: `rollmem replay --store
 * sqlite:<path>` saves the final state of every replayed conversation under
 * its id in an SQLite file (through `Conversation.withMemory`), and `rollmem
 * show <id> --store sqlite:<path>` prints a stored conversation back.
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
import { type Config, type Open, withSummarizer } from "./Replay.js"

/**
 * A checked `--store` value: an SQLite database file.
 *
 * @since 0.1.0
 * @category models
 */
export interface StoreSpec {
  readonly kind: "sqlite"
  /** Path of the database file, as given. */
  readonly filename: string
}

const SQLITE = "sqlite:"

/**
 * Checks a `--store` value: `sqlite:<path>` with a non-empty path. Fails
 * with `ConfigError` (option `--store`) otherwise.
 *
 * @since 0.1.0
 * @category constructors
 */
export const parse = (text: string): Effect.Effect<StoreSpec, ConfigError> =>
  text.startsWith(SQLITE) && text.length > SQLITE.length
    ? Effect.succeed({ kind: "sqlite", filename: text.slice(SQLITE.length) })
    : Effect.fail(new ConfigError({ option: "--store", description: `expected sqlite:<path>, got "${text}"` }))

/**
 * The store of a spec: `ConversationStore.layerSqlite` on its file (created
 * if missing). An SQL error while creating the table, and a driver that
 * cannot be loaded (`@effect/sql-sqlite-node` not installed) or cannot open
 * the file, fail with `ConfigError` (option `--store`), so the command line
 * prints one line instead of a stack trace.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (spec: StoreSpec): Layer.Layer<ConversationStore.ConversationStore, ConfigError> =>
  ConversationStore.layerSqlite({ filename: spec.filename }).pipe(
    Layer.mapError(
      (error) => new ConfigError({ option: "--store", description: `cannot open ${spec.filename}: ${error.message}` })
    ),
    Layer.catchAllCause((cause) =>
      Layer.fail(Option.getOrElse(Cause.failureOption(cause), () => {
        const defect = Cause.squash(cause)
        return new ConfigError({
          option: "--store",
          description: defect instanceof Error ? defect.message : String(defect)
        })
      }))
    )
  )

/**
 * The `withMemory` options of a replay configuration.
 *
 * @since 0.1.0
 * @category combinators
 */
export const strategyOptions = (config: Config): Conversation.StrategyOptions => {
  switch (config.strategy) {
    case "rolling":
      return { strategy: "rolling", maxTokens: config.maxTokens }
    case "buffer":
      return { strategy: "buffer" }
    case "window":
      return { strategy: "window", maxMessages: config.maxMessages }
    case "summary":
      return { strategy: "summary" }
  }
}

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
    Conversation.withMemory(id, strategyOptions(config), (memory) => Effect.zipRight(memory.clear, use(memory))),
    summarizer
  )

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
 * `spec` does not exist, so that reading never creates one.
 *
 * @since 0.1.0
 * @category constructors
 */
export const requireFile = (spec: StoreSpec): Effect.Effect<void, ConfigError, FileSystem.FileSystem> =>
  Effect.flatMap(exists(spec.filename), missing("file", spec.filename))

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
  Effect.flatMap(Path.Path, (path) => {
    const directory = path.dirname(spec.filename)
    return Effect.flatMap(exists(directory), missing("directory", directory))
  })

/**
 * The stored state in the wire format (docs/contract.md section 2), as 2-space JSON.
 *
 * @since 0.1.0
 * @category combinators
 */
export const stateJson = (state: MemoryState.MemoryState): string => JSON.stringify(MemoryState.toJSON(state), null, 2)
