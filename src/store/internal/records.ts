/**
 * The record every backend keeps per conversation (a stored state or a
 * tombstone), its codecs, the revision rule of a compare-and-set and the
 * errors' constructors, shared by the backends of `src/store/backends/`.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Rules from "../../core/store.js"
import * as MemoryState from "../../schema/MemoryState.js"
import {
  ConversationConflictError,
  ConversationDecodeError,
  ConversationStoreError,
  Revision,
  type SaveOptions,
  type Service,
  type Stored
} from "../Service.js"

/**
 * A record as the layers keep it: a stored conversation, or the tombstone of
 * a deleted one (`state` null), which keeps its last revision so that a
 * revision is never used twice for one id.
 *
 * @internal
 */
export interface Record {
  readonly revision: number
  readonly state: MemoryState.MemoryState | null
  readonly requestIds?: ReadonlyArray<string> | undefined
}

/** @internal */
export const RequestIds = Schema.Array(Schema.String)

/**
 * The key-value layers' record as one JSON string.
 *
 * @internal
 */
export const RecordJson: Schema.Schema<Record, string> = Schema.parseJson(
  Schema.Struct({
    revision: Revision,
    state: Schema.NullOr(MemoryState.MemoryStateSchema),
    requestIds: Schema.optional(RequestIds)
  })
)

/** @internal */
export const encodeRecord = Schema.encodeSync(RecordJson)
/** @internal */
export const encodeState = Schema.encodeSync(Schema.parseJson(MemoryState.MemoryStateSchema))
/** @internal */
export const encodeRequestIds = (options: SaveOptions | undefined): string | null =>
  options?.requestIds === undefined ? null : JSON.stringify(options.requestIds)

/**
 * A decoder of a backend's stored form to a {@link Record}, failing with
 * `ConversationDecodeError` naming the conversation.
 *
 * @internal
 */
export const decodeWith = <I>(schema: Schema.Schema<Record, I>) => {
  const decode = Schema.decodeUnknown(schema)
  return (id: string, input: unknown): Effect.Effect<Record, ConversationDecodeError> =>
    Effect.mapError(
      decode(input, { errors: "all" }),
      (error) => ConversationDecodeError.fromParseError({ conversationId: id, error, input })
    )
}

/**
 * A stored conversation, or none for a tombstone.
 *
 * @internal
 */
export const live = (record: Record): Option.Option<Stored> =>
  record.state === null
    ? Option.none()
    : Option.some(
      record.requestIds === undefined
        ? { revision: record.revision, state: record.state }
        : { revision: record.revision, state: record.state, requestIds: record.requestIds }
    )

/** @internal */
export const conflict = (id: string, expectedRevision: number) =>
  new ConversationConflictError({ conversationId: id, expectedRevision })

/** @internal */
export const storeError = (id: string, operation: ConversationStoreError["operation"]) => (cause: unknown) =>
  new ConversationStoreError({ conversationId: id, operation, cause })

// An id no conversation can have (docs/contract.md section 12.1): the operation's ConversationStoreError.
const refuseId = (id: string, operation: "load" | "save" | "delete") => {
  const problem = Rules.idProblem(id)
  return problem === undefined
    ? undefined
    : Effect.fail(storeError(typeof id === "string" ? id : String(id), operation)(new Error(problem)))
}

/**
 * A store whose `load`, `save` and `delete` refuse an id that is not a
 * non-empty string with `ConversationStoreError` (its cause saying so)
 * before the backend is asked: every layer's service goes through it.
 *
 * @internal
 */
export const checkingIds = (service: Service): Service => ({
  ...service,
  load: (id) => refuseId(id, "load") ?? service.load(id),
  save: (id, state, expectedRevision, options) =>
    refuseId(id, "save") ?? service.save(id, state, expectedRevision, options),
  delete: (id) => refuseId(id, "delete") ?? service.delete(id)
})

/**
 * The revision a save expecting `expectedRevision` writes, or `undefined`
 * when the save is a conflict: a first save (`NO_REVISION`) needs no
 * stored conversation and continues after a tombstone's revision; any other
 * save needs the stored conversation at `expectedRevision`.
 *
 * @internal
 */
export const nextRevision = (stored: Option.Option<Record>, expectedRevision: number): number | undefined =>
  Rules.nextRevision(
    Option.isNone(stored) ? undefined : { revision: stored.value.revision, deleted: stored.value.state === null },
    expectedRevision
  )

/**
 * The key prefix of the key-value and Redis layers.
 *
 * @internal
 */
export const DEFAULT_PREFIX = Rules.DEFAULT_PREFIX
