/**
 * A conversation as an entity of Effect 4's `effect/cluster` (the Effect 3
 * line's `ConversationEntity`, with the same RPCs, records and semantics):
 * one entity per conversation id, owned by one runner at a time, which
 * applies every writer's requests to that conversation in turn. Writers on
 * any number of hosts never conflict: they send their turns to the owner
 * instead of racing on the store.
 *
 * The entity keeps the conversation's state in memory while it runs and
 * persists it through the `ConversationStore` (PostgreSQL in a cluster) with
 * the store's compare-and-set, which stays as a fencing guard: if two runners
 * ever believe they own the conversation (a paused runner whose shard lease
 * ran out), the stale one's save conflicts, it reloads, and nothing is
 * overwritten.
 *
 * A request is applied in two steps (the rules are `core/cluster.ts`'s):
 *
 * 1. **Append.** Its operations are applied to the state as they are (adds
 *    appended, clears emptying summary, buffer and usage ratio, recorded
 *    usages moving the usage ratio by their sample), and the state is saved
 *    with the request's id among the stored request ids, in one
 *    compare-and-set. The writer gets its reply here: a slow summarizer never
 *    holds a writer.
 * 2. **Fold.** Then, in the background, the entity prunes the state with the
 *    strategy of the newest request, the state's usage ratio and the
 *    `Summarizer` of the runner, runs the compactions the requests asked for
 *    at their places among the turns, and saves the result. Requests
 *    appended while the summarizer runs are kept after the folded state; a
 *    clear meanwhile discards the fold. A failed fold leaves the turns in the
 *    buffer (and its compactions pending), to be folded after the next
 *    request.
 *
 * Delivery is at-least-once: `Apply` messages are persisted by the cluster.
 * A request whose id is already stored with the state is not applied again
 * (its reply says `duplicate: true`), so each request is applied once.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { TestRunner } from "effect/cluster"
 * import { Summarizer } from "rollmem"
 * import { ConversationEntity } from "rollmem/cluster"
 * import { ConversationStore } from "rollmem/store"
 *
 * // one process, in memory: the entity served by a test runner, then an Apply and a Read
 * const Live = ConversationEntity.layer().pipe(
 *   Layer.provide([ConversationStore.layerMemory, Summarizer.layerDrop]),
 *   Layer.provideMerge(TestRunner.layer)
 * )
 * const read = Effect.gen(function*() {
 *   const client = yield* ConversationEntity.ConversationEntity.client
 *   yield* client("chat-42").Apply({ requestId: "r1", options: { strategy: "buffer" }, operations: [] })
 *   return yield* client("chat-42").Read(undefined)
 * }).pipe(Effect.provide(Live))
 * ```
 *
 * @since 1.0.0
 */
import * as Cause from "effect/Cause"
import { ClusterSchema, Entity, type Sharding } from "effect/cluster"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import { Rpc } from "effect/rpc"
import * as Schema from "effect/Schema"
import * as SchemaGetter from "effect/SchemaGetter"
import * as SchemaIssue from "effect/SchemaIssue"
import * as Semaphore from "effect/Semaphore"
import * as Rules from "../../../src/core/cluster.js"
import { ConfigError, TokenCountError } from "../Errors.js"
import * as MemoryState from "../schema/MemoryState.js"
import * as Message from "../schema/Message.js"
import * as Summarizer from "../services/Summarizer.js"
import * as TokenCounter from "../services/TokenCounter.js"
import * as Conversation from "../store/Conversation.js"
import {
  ConversationConflictError,
  ConversationDecodeError,
  ConversationStore,
  ConversationStoreError,
  NO_REVISION,
  type Service as StoreService
} from "../store/Service.js"

/**
 * How many request ids the entity keeps with the state (the newest ones):
 * a request delivered again after this many newer requests were applied to
 * the same conversation would be applied twice.
 *
 * @example
 * ```ts
 * import { ConversationEntity } from "rollmem/cluster"
 *
 * ConversationEntity.REQUEST_IDS_KEPT // 256
 * ```
 *
 * @since 1.0.0
 * @category constants
 */
export const REQUEST_IDS_KEPT: number = Rules.REQUEST_IDS_KEPT

const TokenCount = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/**
 * One operation of a request, as it travels (`Conversation.Operation`):
 * `{ _tag: "add", messages }` (messages in the wire format, docs/contract.md
 * section 2), `{ _tag: "clear" }`, `{ _tag: "compact", targetTokens?, focus? }`
 * or `{ _tag: "usage", inputTokens, overheadTokens, contextTokens }`; the
 * Effect 3 line's encoding.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ConversationEntity } from "rollmem/cluster"
 *
 * const add = Schema.decodeUnknownSync(ConversationEntity.Operation)({
 *   _tag: "add",
 *   messages: [{ role: "user", content: "hi" }]
 * })
 * add._tag // "add"; its messages are Message instances
 * ```
 *
 * @since 1.0.0
 * @category schemas
 */
export const Operation = Schema.Union([
  Schema.Struct({ _tag: Schema.Literal("add"), messages: Schema.Array(Message.Wire) }),
  Schema.Struct({ _tag: Schema.Literal("clear") }),
  Schema.Struct({
    _tag: Schema.Literal("compact"),
    targetTokens: Schema.optional(Schema.Int.check(Schema.isGreaterThan(0))),
    focus: Schema.optional(Schema.String)
  }),
  Schema.Struct({
    _tag: Schema.Literal("usage"),
    inputTokens: TokenCount,
    overheadTokens: TokenCount,
    contextTokens: TokenCount
  })
])

/**
 * The strategy options of a request: `strategy` and that strategy's options
 * as plain data (checked by the entity with `Conversation.checkOptions`).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ConversationEntity } from "rollmem/cluster"
 *
 * Schema.decodeUnknownSync(ConversationEntity.StrategyOptions)({ strategy: "rolling", maxTokens: 2000 })
 * // { strategy: "rolling", maxTokens: 2000 }: the strategy's options are checked by the entity
 * ```
 *
 * @since 1.0.0
 * @category schemas
 */
export const StrategyOptions = Schema.StructWithRest(
  Schema.Struct({ strategy: Schema.Literals(["rolling", "buffer", "window", "summary"]) }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)

/**
 * The errors an `Apply` can end with, as they travel back to the writer.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ConfigError } from "rollmem"
 * import { ConversationEntity } from "rollmem/cluster"
 *
 * const encoded = Schema.encodeSync(ConversationEntity.ApplyError)(
 *   new ConfigError({ option: "maxTokens", description: "must be a positive integer, got 0" })
 * )
 * encoded._tag // "ConfigError"
 * ```
 *
 * @since 1.0.0
 * @category schemas
 */
export const ApplyError = Schema.Union([
  ConfigError,
  TokenCountError,
  ConversationConflictError,
  ConversationDecodeError,
  ConversationStoreError
])

const isState = (u: unknown): u is MemoryState.MemoryState =>
  typeof u === "object" && u !== null && typeof (u as { summary?: unknown }).summary === "string" &&
  Array.isArray((u as { buffer?: unknown }).buffer)

/**
 * A memory state as it travels: its file form (docs/contract.md section 2,
 * `MemoryState.toJSON`), read back with `MemoryState.fromJSON`'s rules.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ConversationEntity } from "rollmem/cluster"
 *
 * Schema.decodeUnknownSync(ConversationEntity.State)({ version: 2, summary: "s", buffer: [] }).summary // "s"
 * ```
 *
 * @since 1.0.0
 * @category schemas
 */
export const State: Schema.Codec<MemoryState.MemoryState, unknown> = Schema.Unknown.pipe(
  Schema.decodeTo(Schema.declare(isState, { identifier: "MemoryState" }), {
    decode: SchemaGetter.transformEffect((input: unknown) => {
      const decoded = MemoryState.decode(input)
      return Result.isSuccess(decoded)
        ? Effect.succeed(decoded.success)
        : Effect.fail(new SchemaIssue.InvalidValue({ message: decoded.failure.description }))
    }),
    encode: SchemaGetter.transform((state: MemoryState.MemoryState): unknown => MemoryState.toJSON(state))
  })
)

/**
 * A stored conversation as `Read` returns it (`null` when not stored).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ConversationEntity } from "rollmem/cluster"
 *
 * Schema.decodeUnknownSync(ConversationEntity.StoredSchema)(null) // null: not stored
 * ```
 *
 * @since 1.0.0
 * @category schemas
 */
export const StoredSchema = Schema.NullOr(Schema.Struct({ revision: Schema.Number, state: State }))

/**
 * Applies one request: its operations, in order, once. Persisted
 * (`ClusterSchema.Persisted`): delivered at least once, even when the owner
 * dies. Replies with the revision that holds the request and whether it had
 * been applied before (`duplicate`).
 *
 * @example
 * ```ts
 * import { ConversationEntity } from "rollmem/cluster"
 *
 * ConversationEntity.Apply._tag // "Apply"
 * ```
 *
 * @since 1.0.0
 * @category rpcs
 */
export const Apply = Rpc.make("Apply", {
  payload: {
    requestId: Schema.String,
    options: StrategyOptions,
    operations: Schema.Array(Operation)
  },
  success: Schema.Struct({ revision: Schema.Number, duplicate: Schema.Boolean }),
  error: ApplyError
}).annotate(ClusterSchema.Persisted, true)

/**
 * Reads the conversation as the entity holds it (appended requests included,
 * folds that have not finished excluded).
 *
 * @example
 * ```ts
 * import { ConversationEntity } from "rollmem/cluster"
 *
 * ConversationEntity.Read._tag // "Read"
 * ```
 *
 * @since 1.0.0
 * @category rpcs
 */
export const Read = Rpc.make("Read", {
  success: StoredSchema,
  error: Schema.Union([ConversationDecodeError, ConversationStoreError])
})

/**
 * Deletes the conversation (`ConversationStore.delete`: a tombstone keeps
 * its revision). Persisted.
 *
 * @example
 * ```ts
 * import { ConversationEntity } from "rollmem/cluster"
 *
 * ConversationEntity.Delete._tag // "Delete"
 * ```
 *
 * @since 1.0.0
 * @category rpcs
 */
export const Delete = Rpc.make("Delete", {
  error: Schema.Union([ConversationDecodeError, ConversationStoreError])
}).annotate(ClusterSchema.Persisted, true)

/**
 * The entity type `rollmem/Conversation`, one entity per conversation id,
 * with the RPCs {@link Apply}, {@link Read} and {@link Delete}: the Effect 3
 * line's entity type and messages. Runners serve it with {@link layer}.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ConversationEntity } from "rollmem/cluster"
 *
 * // what ConversationCluster's layers do: a client of the entity, then a Read of one conversation
 * const stored = Effect.gen(function*() {
 *   const client = yield* ConversationEntity.ConversationEntity.client
 *   return yield* client("chat-42").Read(undefined)
 * })
 * ```
 *
 * @since 1.0.0
 * @category entities
 */
export const ConversationEntity = Entity.make("rollmem/Conversation", [Apply, Read, Delete])

interface Services {
  readonly store: StoreService
  readonly provide: <A, E>(effect: Effect.Effect<A, E, Summarizer.Summarizer>) => Effect.Effect<A, E>
}

interface Current {
  readonly revision: number
  readonly state: MemoryState.MemoryState
  readonly requestIds: ReadonlyArray<string>
}

const EMPTY: Current = { revision: NO_REVISION, state: MemoryState.empty, requestIds: [] }

/** A state with `usageRatio` set, or without it when `undefined`. */
const withRatio = (state: MemoryState.MemoryState, usageRatio: number | undefined): MemoryState.MemoryState =>
  usageRatio === undefined ? state : { ...state, usageRatio }

/** The handlers of one conversation entity (built per entity, on the runner that owns it). */
const makeHandlers = (services: Services) =>
  Effect.gen(function*() {
    const address = yield* Entity.CurrentAddress
    const id = address.entityId
    const store = services.store
    const scope = yield* Effect.scope
    const lock = yield* Semaphore.make(1)
    let current: Current | undefined
    // Bumped by every clear and every reload: a fold begun before it is discarded.
    let epoch = 0
    let foldOptions: Conversation.StrategyOptions | undefined
    let folding: Fiber.Fiber<void> | undefined
    let again = false
    // The compactions requested and not yet folded, oldest first; dropped with a clear or a reload.
    let pending: Array<Rules.Pending> = []

    const reload = Effect.gen(function*() {
      const loaded = yield* store.load(id)
      epoch++
      pending = []
      current = Option.match(loaded, {
        onNone: () => EMPTY,
        onSome: (stored) => ({ revision: stored.revision, state: stored.state, requestIds: stored.requestIds ?? [] })
      })
      return current
    })
    const loadedState = Effect.suspend(() => current === undefined ? reload : Effect.succeed(current))

    // Appends the request and saves, in one compare-and-set; on a conflict (another owner wrote: fencing),
    // reloads and tries again, which also finds the request if the other owner applied it.
    const append = (payload: typeof Apply.payloadSchema.Type) =>
      Effect.gen(function*() {
        for (let attempt = 0;; attempt++) {
          const before = yield* loadedState
          if (Rules.isDuplicate(before.requestIds, payload.requestId)) {
            return { revision: before.revision, duplicate: true }
          }
          const raw = Rules.append(before.state, payload.operations)
          const state = withRatio(MemoryState.make(raw.summary, raw.buffer), raw.usageRatio)
          const requestIds = Rules.withRequestId(before.requestIds, payload.requestId)
          const saved = yield* Effect.result(store.save(id, state, before.revision, { requestIds }))
          if (Result.isSuccess(saved)) {
            if (raw.cleared) epoch++
            pending = Rules.pendingAfter(pending, before.state.buffer.length, raw)
            current = { revision: saved.success, state, requestIds }
            return { revision: saved.success, duplicate: false }
          }
          if (saved.failure._tag !== "ConversationConflictError" || attempt >= 5) return yield* saved.failure
          yield* reload
        }
      })

    // Prunes the state with the newest request's strategy, with its usage ratio, running the compactions
    // requested at their places, and saves it; appends made meanwhile stay after it.
    const foldOnce = Effect.gen(function*() {
      const options = foldOptions
      const snapshot = current
      if (options === undefined || snapshot === undefined || snapshot.state.buffer.length === 0) return
      const startEpoch = epoch
      const compactions = pending.slice()
      const done = () => {
        if (epoch === startEpoch) pending = pending.filter((p) => !compactions.includes(p))
      }
      const buffer = snapshot.state.buffer
      const memory = yield* Conversation.restoreMemory(
        options,
        withRatio(MemoryState.make(snapshot.state.summary, []), snapshot.state.usageRatio)
      )
      let from = 0
      const places = Rules.compactionPlaces(buffer.length, compactions)
      for (const [i, compaction] of compactions.entries()) {
        const at = places[i]
        yield* memory.addMessages(buffer.slice(from, at))
        from = at
        const compact = (memory as Partial<Conversation.StoredMemory>).compact
        if (compact !== undefined) yield* compact(compaction.options)
      }
      yield* memory.addMessages(buffer.slice(from))
      const folded = yield* memory.state
      if (folded.summary === snapshot.state.summary && folded.buffer.length === buffer.length) return done()
      yield* lock.withPermits(1)(Effect.gen(function*() {
        const now = current
        if (now === undefined || epoch !== startEpoch) return
        const state = withRatio(
          MemoryState.make(folded.summary, Rules.keptAfterFold(folded.buffer, now.state.buffer, buffer.length)),
          now.state.usageRatio
        )
        const saved = yield* Effect.result(store.save(id, state, now.revision, { requestIds: now.requestIds }))
        if (Result.isSuccess(saved)) {
          current = { ...now, revision: saved.success, state }
          done()
        } else yield* Effect.andThen(reload, Effect.fail(saved.failure))
      }))
    })

    // One fold at a time; a request appended while a fold runs asks for another after it.
    const scheduleFold: Effect.Effect<void> = Effect.suspend(() => {
      if (folding !== undefined) {
        again = true
        return Effect.void
      }
      const loop = Effect.gen(function*() {
        do {
          again = false
          yield* Effect.catchCause(
            services.provide(foldOnce),
            (cause) =>
              Cause.hasInterruptsOnly(cause)
                ? Effect.failCause(cause)
                : Effect.logWarning("rollmem: a fold of the conversation failed; its turns stay", cause)
          )
        } while (again)
      }).pipe(Effect.ensuring(Effect.sync(() => (folding = undefined))))
      return Effect.asVoid(Effect.tap(
        Effect.forkIn(loop, scope),
        (fiber) => Effect.sync(() => (folding = fiber as Fiber.Fiber<void>))
      ))
    })

    return ConversationEntity.of({
      Apply: (envelope) =>
        services.provide(Effect.gen(function*() {
          const options = yield* Conversation.checkOptions(envelope.payload.options)
          // the entity keeps no archive: an archive asked for is refused before the request leaves withMemory
          const { retry: _retry, archive: _archive, ...strategy } = options
          const reply = yield* lock.withPermits(1)(append(envelope.payload))
          if (!reply.duplicate) foldOptions = strategy as Conversation.StrategyOptions
          yield* scheduleFold
          return reply
        })),
      Read: () =>
        Effect.map(
          lock.withPermits(1)(loadedState),
          (c) => c.revision === NO_REVISION ? null : { revision: c.revision, state: c.state }
        ),
      Delete: () =>
        lock.withPermits(1)(Effect.gen(function*() {
          yield* store.delete(id)
          epoch++
          pending = []
          current = undefined
        }))
    })
  })

/**
 * Serves {@link ConversationEntity} on this runner: registers the entity
 * with the `Sharding` in context. Needs the `ConversationStore` the entity
 * persists to (every runner must use the same one) and the `Summarizer` its
 * memories fold with (`Summarizer.layerDrop` to drop evicted turns on
 * purpose); uses the `TokenCounter` in context when the layer is built
 * (default: the word count).
 *
 * An entity stops after `maxIdleTime` without a message (default: the
 * cluster's `entityMaxIdleTime`, one minute); its state is in the store, and
 * the next message loads it again.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import type { Sharding } from "effect/cluster"
 * import { Summarizer } from "rollmem"
 * import { ConversationEntity } from "rollmem/cluster"
 * import { ConversationStore } from "rollmem/store"
 *
 * // what ConversationCluster.layerRunner builds, from parts given by hand
 * declare const ShardingLive: Layer.Layer<Sharding.Sharding>
 * const EntitiesLive = ConversationEntity.layer({ maxIdleTime: "5 minutes" }).pipe(
 *   Layer.provide([ConversationStore.layerMemory, Summarizer.layerDrop, ShardingLive])
 * )
 * ```
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = (options?: {
  readonly maxIdleTime?: import("effect").Duration.Input | undefined
}): Layer.Layer<never, never, ConversationStore | Sharding.Sharding | Summarizer.Summarizer> =>
  Layer.unwrap(Effect.gen(function*() {
    const summarizer = yield* Summarizer.Summarizer
    const counter = yield* TokenCounter.TokenCounter
    const store = yield* ConversationStore
    // The services captured here, given to each request (and the fold it forks) whatever the runner's context.
    const services: Services = {
      store,
      provide: <A, E>(effect: Effect.Effect<A, E, Summarizer.Summarizer>) =>
        effect.pipe(
          Effect.provideService(TokenCounter.TokenCounter, counter),
          Effect.provideService(Summarizer.Summarizer, summarizer)
        )
    }
    return ConversationEntity.toLayer(makeHandlers(services), { maxIdleTime: options?.maxIdleTime })
  }))
