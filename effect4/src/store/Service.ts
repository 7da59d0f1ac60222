/**
 * The `ConversationStore` service on the Effect 4 line (docs/contract.md
 * section 12), what it stores and its errors: the Effect 3 line's service
 * with the same records, revisions, tags and messages (the rules are
 * `core/store.ts`'s). Every backend (`backends/KeyValue.ts`,
 * `backends/Memory.ts`, `backends/Sql.ts`, `backends/Redis.ts`) provides
 * this one service.
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Rules from "../../../src/core/store.js"
import type * as MemoryState from "../schema/MemoryState.js"
import type * as Archive from "../services/Archive.js"

/**
 * A stored conversation: its memory state and the revision it was saved at.
 *
 * @since 1.0.0
 */
export interface Stored {
  /** A positive integer: `1` after the first save, one more after each save. */
  readonly revision: number
  /** The memory state (summary and buffer). */
  readonly state: MemoryState.MemoryState
  /** The request ids the last save wrote with the state, oldest first; absent when it gave none. */
  readonly requestIds?: ReadonlyArray<string> | undefined
}

/**
 * Options of a save beside the state:
 *
 * - `requestIds`: written in the same compare-and-set and returned by a
 *   later load as {@link Stored.requestIds} (default: none; a save without
 *   them removes those of the previous save);
 * - `archive`: messages to archive beside the conversation
 *   (docs/contract.md section 17.2), one array per archive write (each the
 *   conversation's next fold), written only with the state: in the same
 *   transaction (the SQL stores), the same script (Redis), or under the
 *   store's lock before the state (memory, key-value). Only a store
 *   with a {@link Service.archive} takes them; the others ignore them.
 *   Default: none.
 *
 * @since 1.0.0
 */
export interface SaveOptions {
  readonly requestIds?: ReadonlyArray<string> | undefined
  readonly archive?: ReadonlyArray<ReadonlyArray<Archive.Entry>> | undefined
}

/**
 * The revision of a conversation that is not stored: pass it to `save` to create one.
 *
 * @since 1.0.0
 */
export const NO_REVISION: number = Rules.NO_REVISION

/**
 * A conversation store.
 *
 * - `load(id)`: the stored conversation, or `Option.none()` when it is not
 *   stored; `ConversationDecodeError` when the stored value does not decode,
 *   `ConversationStoreError` when the backend fails.
 * - `save(id, state, expectedRevision, options?)`: a compare-and-set. Writes
 *   `state` if the stored revision is still `expectedRevision`
 *   ({@link NO_REVISION} for a conversation not stored, or deleted) and returns
 *   the new revision (`expectedRevision + 1`, or the tombstone's plus one);
 *   otherwise fails with `ConversationConflictError`, writing nothing.
 * - `delete(id)`: removes the conversation (leaving a tombstone that keeps its
 *   revision) and its archived messages; removing one that is not stored
 *   succeeds.
 * - `archive`: the archive the store keeps beside its conversations, under
 *   the conversation ids (the PostgreSQL and Redis stores); absent for the
 *   memory and key-value stores.
 *
 * @since 1.0.0
 */
export interface Service {
  readonly load: (id: string) => Effect.Effect<Option.Option<Stored>, ConversationDecodeError | ConversationStoreError>
  readonly save: (
    id: string,
    state: MemoryState.MemoryState,
    expectedRevision: number,
    options?: SaveOptions
  ) => Effect.Effect<number, ConversationConflictError | ConversationDecodeError | ConversationStoreError>
  readonly delete: (id: string) => Effect.Effect<void, ConversationStoreError>
  readonly archive?: Archive.Service | undefined
}

/**
 * The conversation store service. Provide one of the `layer*` layers of `ConversationStore`.
 *
 * @since 1.0.0
 */
export class ConversationStore extends Context.Service<ConversationStore, Service>()("rollmem/ConversationStore") {}

/**
 * A save whose expected revision is stale: another writer saved (or deleted)
 * the conversation since it was loaded. Nothing was written.
 *
 * @example
 * ```ts
 * import { ConversationConflictError } from "rollmem/store"
 * new ConversationConflictError({ conversationId: "c", expectedRevision: 1 }).message
 * // "conversation \"c\" is no longer at revision 1: another writer saved or deleted it"
 * ```
 *
 * @since 1.0.0
 */
export class ConversationConflictError extends Schema.TaggedError<ConversationConflictError>(
  "rollmem/ConversationConflictError"
)("ConversationConflictError", {
  conversationId: Schema.String,
  expectedRevision: Schema.Number
}) {
  /** Its tag, as the Effect 3 line names its errors (`error.name`, docs/contract.md section 9). */
  override get name(): string {
    return this._tag
  }
  override get message(): string {
    return Rules.conflictMessage(this.conversationId, this.expectedRevision)
  }
}

/**
 * A stored value that does not decode: malformed JSON, a missing or
 * non-positive revision, or a state that is not in the wire format;
 * `description` names the path of what is wrong (`state.summary: ...`).
 *
 * @since 1.0.0
 */
export class ConversationDecodeError extends Schema.TaggedError<ConversationDecodeError>(
  "rollmem/ConversationDecodeError"
)("ConversationDecodeError", {
  conversationId: Schema.String,
  description: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {
  /** Its tag, as the Effect 3 line names its errors (`error.name`, docs/contract.md section 9). */
  override get name(): string {
    return this._tag
  }
  override get message(): string {
    return Rules.decodeMessage(this.conversationId, this.description)
  }
}

/**
 * The storage backend failed (an I/O or SQL error); `cause` holds its error.
 *
 * @since 1.0.0
 */
export class ConversationStoreError extends Schema.TaggedError<ConversationStoreError>(
  "rollmem/ConversationStoreError"
)("ConversationStoreError", {
  conversationId: Schema.String,
  operation: Schema.Literals(["open", "load", "save", "delete"]),
  cause: Schema.Defect()
}) {
  /** Its tag, as the Effect 3 line names its errors (`error.name`, docs/contract.md section 9). */
  override get name(): string {
    return this._tag
  }
  override get message(): string {
    return Rules.storeErrorMessage(this.conversationId, this.operation, this.cause)
  }
}

/**
 * Any error of a conversation store.
 *
 * @since 1.0.0
 */
export type ConversationError = ConversationConflictError | ConversationDecodeError | ConversationStoreError
