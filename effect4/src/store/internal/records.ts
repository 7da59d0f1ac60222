/**
 * The record every backend keeps per conversation (a stored state or a
 * tombstone), read and written as the Effect 3 line writes it: one JSON text
 * `{"revision":n,"state":<wire state>|null,"requestIds":[...]}`.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Rules from "../../../../src/core/store.js"
import { describe } from "../../schema/Issue.js"
import * as MemoryState from "../../schema/MemoryState.js"
import {
  ConversationConflictError,
  ConversationDecodeError,
  ConversationStoreError,
  type SaveOptions,
  type Service,
  type Stored
} from "../Service.js"

/** A stored conversation, or the tombstone of a deleted one (`state` null). @internal */
export interface Record {
  readonly revision: number
  readonly state: MemoryState.MemoryState | null
  readonly requestIds?: ReadonlyArray<string> | undefined
}

const Shape = Schema.Struct({
  revision: Schema.Int.check(Schema.isGreaterThan(0)),
  state: Schema.Unknown,
  requestIds: Schema.optionalKey(Schema.Array(Schema.String))
})

const decodeShape = Schema.decodeUnknownResult(Shape)

/** A record from its parsed JSON, or the `ConversationDecodeError` naming the conversation and the path. @internal */
export const decodeParsed = (id: string, input: unknown): Result.Result<Record, ConversationDecodeError> => {
  const shape = decodeShape(input, { errors: "all" })
  if (Result.isFailure(shape)) {
    return Result.fail(new ConversationDecodeError({ conversationId: id, description: describe(shape.failure.issue) }))
  }
  const { requestIds, revision, state } = shape.success
  const decoded = state === null ? Result.succeed(null) : MemoryState.decode(state, "state")
  if (Result.isFailure(decoded)) {
    return Result.fail(
      new ConversationDecodeError({ conversationId: id, description: decoded.failure.description })
    )
  }
  return Result.succeed(
    requestIds === undefined
      ? { revision, state: decoded.success }
      : { revision, state: decoded.success, requestIds }
  )
}

/** A record from its JSON text. @internal */
export const decodeText = (id: string, text: string): Effect.Effect<Record, ConversationDecodeError> =>
  Effect.suspend(() => {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch (cause) {
      return Effect.fail(
        new ConversationDecodeError({ conversationId: id, description: `malformed JSON: ${String(cause)}`, cause })
      )
    }
    return Effect.fromResult(decodeParsed(id, parsed))
  })

/** A state's JSON text in the wire format. @internal */
export const encodeState = (state: MemoryState.MemoryState): string => JSON.stringify(MemoryState.toJSON(state))

/** A record's JSON text (the key-value form). @internal */
export const encodeRecord = (record: Record): string =>
  `{"revision":${record.revision},"state":${record.state === null ? "null" : encodeState(record.state)}${
    record.requestIds === undefined ? "" : `,"requestIds":${JSON.stringify(record.requestIds)}`
  }}`

/** The request ids of a save as JSON text, or null. @internal */
export const encodeRequestIds = (options: SaveOptions | undefined): string | null =>
  options?.requestIds === undefined ? null : JSON.stringify(options.requestIds)

/** A stored conversation, or none for a tombstone. @internal */
export const live = (record: Record): Option.Option<Stored> =>
  record.state === null
    ? Option.none()
    : Option.some(
      record.requestIds === undefined
        ? { revision: record.revision, state: record.state }
        : { revision: record.revision, state: record.state, requestIds: record.requestIds }
    )

/** What the compare-and-set rules of `core/store.ts` read of a record. @internal */
export const held = (record: Record | undefined): Rules.Held | undefined =>
  record === undefined ? undefined : { revision: record.revision, deleted: record.state === null }

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
 * before the backend is asked, as the Effect 3 line's do: every layer's
 * service goes through it.
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
