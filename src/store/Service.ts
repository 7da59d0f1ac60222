/**
 * The `ConversationStore` service, what it stores and its errors. Every
 * backend (`backends/Memory.ts`, `backends/KeyValue.ts`, `backends/Sql.ts`,
 * `backends/Redis.ts`) provides this one service; the public namespace
 * `ConversationStore` (`ConversationStore.ts`) re-exports them all.
 *
 * @since 0.3.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Rules from "../core/store.js"
import { describeParseError } from "../schema/Json.js"
import * as MemoryState from "../schema/MemoryState.js"
import type * as Archive from "../services/Archive.js"

/**
 * A stored conversation: its memory state and the revision it was saved at.
 *
 * @since 0.1.0
 * @category models
 */
export interface Stored {
  /** A positive integer: `1` after the first save, one more after each save. */
  readonly revision: number
  /** The memory state (summary and buffer). */
  readonly state: MemoryState.MemoryState
  /**
   * The ids of the requests applied to this state, oldest first, as the
   * last save wrote them (its {@link SaveOptions.requestIds}); absent when
   * that save gave none. A writer that applies each request once (the
   * conversation entity of `rollmem/cluster`) writes them in the same
   * compare-and-set as the state and skips a request whose id is listed.
   */
  readonly requestIds?: ReadonlyArray<string> | undefined
}

/**
 * Options of a save, beside the state.
 *
 * @since 0.3.0
 * @category models
 */
export interface SaveOptions {
  /**
   * Request ids to store with the state, in the same compare-and-set (one
   * record, one statement, one script): a later load returns them as
   * {@link Stored.requestIds}. Default: none (a save without them removes
   * those of the previous save). The state's wire format is unchanged: the
   * ids sit beside it (a `requestIds` key of the key-value record, a
   * `request_ids` column of the SQL row, a `requestIds` field of the Redis
   * hash).
   */
  readonly requestIds?: ReadonlyArray<string> | undefined
  /**
   * Messages to archive beside the conversation (docs/contract.md section
   * 17.2), one array per archive write (each the next fold of the
   * conversation's archive), written with the state: in the same
   * transaction (SQL stores), the same script (Redis), or before the state
   * (the key-value stores, whose archive keeps the last write of a
   * position). Only a store with an {@link Service.archive} takes them; the
   * others ignore them. Default: none.
   */
  readonly archive?: ReadonlyArray<ReadonlyArray<Archive.Entry>> | undefined
}

/**
 * The revision of a conversation that is not stored. Pass it to `save` to
 * create a conversation.
 *
 * @example
 * ```ts
 * import { Effect, Option } from "effect"
 * import { MemoryState } from "rollmem"
 * import { ConversationStore } from "rollmem/store"
 *
 * // the first save of a conversation expects no revision; it returns revision 1
 * const program = Effect.gen(function*() {
 *   const store = yield* ConversationStore.ConversationStore
 *   const revision = yield* store.save("chat-42", MemoryState.empty, ConversationStore.NO_REVISION)
 *   const loaded = yield* store.load("chat-42")
 *   return [revision, Option.map(loaded, (stored) => stored.revision)] // [1, Option.some(1)]
 * }).pipe(Effect.provide(ConversationStore.layerMemory))
 * ```
 *
 * @since 0.1.0
 * @category constants
 */
export const NO_REVISION = Rules.NO_REVISION

/**
 * A conversation store. A conversation id is a non-empty string: `load`,
 * `save` and `delete` of every layer refuse `""` with
 * {@link ConversationStoreError} (its cause saying so) before the backend
 * is asked.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * The stored conversation, or `Option.none()` when it is not stored (absent
   * is not an error). Fails with {@link ConversationDecodeError} when the
   * stored value does not decode, {@link ConversationStoreError} when the
   * backend fails.
   */
  readonly load: (id: string) => Effect.Effect<Option.Option<Stored>, ConversationDecodeError | ConversationStoreError>
  /**
   * Writes `state` if the stored revision is still `expectedRevision`
   * ({@link NO_REVISION} when the caller found no stored conversation), and
   * returns the new revision (`expectedRevision + 1`). Otherwise fails with
   * {@link ConversationConflictError} and writes nothing. A conversation
   * deleted since it was loaded is a conflict too. Fails with
   * {@link ConversationStoreError} when the backend fails, and with
   * {@link ConversationDecodeError} when a store that must read the stored
   * record to compare revisions (the key-value layers) cannot decode it:
   * nothing is overwritten. `options.requestIds` are written with the
   * state, in the same compare-and-set ({@link SaveOptions}).
   */
  readonly save: (
    id: string,
    state: MemoryState.MemoryState,
    expectedRevision: number,
    options?: SaveOptions
  ) => Effect.Effect<number, ConversationConflictError | ConversationDecodeError | ConversationStoreError>
  /**
   * Removes the conversation; removing one that is not stored succeeds.
   * Fails with {@link ConversationStoreError} when the backend fails.
   */
  readonly delete: (id: string) => Effect.Effect<void, ConversationStoreError>
  /**
   * The archive this store keeps beside its conversations (docs/contract.md
   * section 17.2), under the conversation ids: what `Conversation.withMemory`
   * writes with `archive: true` and what `rollmem recall` searches. Every
   * layer of `rollmem/store` has one; a store without one (the conversation
   * entity's client) cannot archive. `delete` removes a conversation's
   * archived messages with it.
   */
  readonly archive?: Archive.Service | undefined
}

/**
 * The conversation store service. Provide one of the `layer*` layers.
 *
 * @example
 * ```ts
 * import { Effect, Option } from "effect"
 * import { MemoryState, Message } from "rollmem"
 * import { ConversationStore } from "rollmem/store"
 *
 * const program = Effect.gen(function*() {
 *   const store = yield* ConversationStore.ConversationStore
 *   const stored = yield* store.load("chat-42") // Option.none() the first time
 *   const expected = Option.match(stored, { onNone: () => ConversationStore.NO_REVISION, onSome: (s) => s.revision })
 *   // fails with ConversationConflictError when another writer saved in between
 *   yield* store.save("chat-42", MemoryState.make("", [Message.user("hi")]), expected)
 * }).pipe(Effect.provide(ConversationStore.layerSqlite({ filename: "conversations.db" })))
 * ```
 *
 * @since 0.1.0
 * @category tags
 */
export class ConversationStore extends Context.Tag("rollmem/ConversationStore")<ConversationStore, Service>() {}

/**
 * A save whose expected revision is stale: another writer saved (or deleted)
 * the conversation since it was loaded. Nothing was written.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { MemoryState } from "rollmem"
 * import { ConversationStore } from "rollmem/store"
 *
 * const program = Effect.gen(function*() {
 *   const store = yield* ConversationStore.ConversationStore
 *   yield* store.save("chat-42", MemoryState.empty, ConversationStore.NO_REVISION)
 *   // a second first save is stale: ConversationConflictError { conversationId: "chat-42", expectedRevision: 0 }
 *   yield* store.save("chat-42", MemoryState.empty, ConversationStore.NO_REVISION)
 * }).pipe(
 *   Effect.catchTag("ConversationConflictError", (error) => Effect.succeed(`reload ${error.conversationId}`)),
 *   Effect.provide(ConversationStore.layerMemory)
 * )
 * ```
 *
 * @since 0.1.0
 * @category errors
 */
export class ConversationConflictError extends Schema.TaggedError<ConversationConflictError>(
  "rollmem/ConversationConflictError"
)("ConversationConflictError", {
  conversationId: Schema.String,
  expectedRevision: Schema.Number
}) {
  override get message(): string {
    return Rules.conflictMessage(this.conversationId, this.expectedRevision)
  }
}

/**
 * A stored value that does not decode: malformed JSON, a missing or
 * non-positive revision, or a state that is not in the wire format.
 * `description` names the path of what is wrong.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ConversationStore } from "rollmem/store"
 *
 * // a stored record that is not a state: the load fails, naming the conversation and the field
 * const program = Effect.flatMap(ConversationStore.ConversationStore, (store) => store.load("chat-42")).pipe(
 *   Effect.catchTag("ConversationDecodeError", (error) => Effect.logError(error.conversationId, error.description))
 * )
 * ```
 *
 * @since 0.1.0
 * @category errors
 */
export class ConversationDecodeError extends Schema.TaggedError<ConversationDecodeError>(
  "rollmem/ConversationDecodeError"
)("ConversationDecodeError", {
  conversationId: Schema.String,
  description: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {
  /**
   * The error for a stored record of conversation `conversationId` that did
   * not decode: `input` is what was decoded (the stored JSON text or row),
   * `error` the Schema's. The description names the wrong paths, bounded as
   * `Json.describeParseError` bounds every decoder's (a huge wrong value cut
   * to 80 characters, at most 2,000 characters in all).
   *
   * @since 0.2.0
   */
  static fromParseError({ conversationId, error, input }: {
    readonly conversationId: string
    readonly error: ParseResult.ParseError
    readonly input: unknown
  }): ConversationDecodeError {
    return new ConversationDecodeError({
      conversationId,
      // A record holds its state's messages at state.buffer[i].
      ...describeParseError(error, input, { messageLevel: 4, name: "record" })
    })
  }

  override get message(): string {
    return Rules.decodeMessage(this.conversationId, this.description)
  }
}

/**
 * The storage backend failed (an I/O or SQL error); `cause` holds its error.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ConversationStore } from "rollmem/store"
 *
 * // the backend failed (or the id is empty): `operation` says which call
 * const program = Effect.flatMap(ConversationStore.ConversationStore, (store) => store.delete("")).pipe(
 *   Effect.catchTag("ConversationStoreError", (error) => Effect.succeed(error.operation)), // "delete"
 *   Effect.provide(ConversationStore.layerMemory)
 * )
 * ```
 *
 * @since 0.1.0
 * @category errors
 */
export class ConversationStoreError extends Schema.TaggedError<ConversationStoreError>(
  "rollmem/ConversationStoreError"
)("ConversationStoreError", {
  conversationId: Schema.String,
  operation: Schema.Literal("open", "load", "save", "delete"),
  cause: Schema.Defect
}) {
  override get message(): string {
    return Rules.storeErrorMessage(this.conversationId, this.operation, this.cause)
  }
}

/**
 * Any error of a conversation store.
 *
 * @since 0.1.0
 * @category errors
 */
export type ConversationError = ConversationConflictError | ConversationDecodeError | ConversationStoreError

/**
 * A revision as stored: a positive integer.
 *
 * @internal
 */
export const Revision = Schema.Int.pipe(Schema.positive())

/**
 * The stored record as one JSON string, `{"revision": n, "state": <wire state>}`
 * (what the key-value layers write for a stored conversation).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ConversationStore } from "rollmem/store"
 *
 * const stored = Schema.decodeUnknownSync(ConversationStore.StoredJson)(
 *   "{\"revision\":3,\"state\":{\"version\":2,\"summary\":\"\",\"buffer\":[]}}"
 * )
 * stored.revision // 3
 * ```
 *
 * @since 0.1.0
 * @category schemas
 */
export const StoredJson: Schema.Schema<Stored, string> = Schema.parseJson(
  Schema.Struct({
    revision: Revision,
    state: MemoryState.MemoryStateSchema,
    requestIds: Schema.optional(Schema.Array(Schema.String))
  })
)
