/**
 * Running conversation entities: one layer per process. A **runner** owns a
 * share of the conversations and applies their requests
 * ({@link layerRunner}); a **client** only sends ({@link layerClient}).
 * Both give `Conversation.withMemory` (and the Promise facade's
 * `Conversations`) what it needs, a `ConversationStore` and a
 * `Conversation.Writer`, so the code that uses conversations does not change:
 * only the layer it is given does.
 *
 * Every process of a cluster shares one PostgreSQL database (the `url`):
 * the cluster's own tables (`cluster_runners`, `cluster_locks`,
 * `cluster_messages`, `cluster_replies`: runners, shard locks, persisted
 * messages and replies), the conversations (`rollmem_conversations`) and
 * `rollmem_cluster_config`, which records the cluster's `shardsPerGroup`.
 * To run two clusters on one database, give each its own schema
 * (`?options=-c%20search_path%3Dmy_schema` in the URL).
 *
 * `shardsPerGroup` must be the same in every process, clients included:
 * `@effect/cluster` maps a conversation to a shard by it, and a message
 * addressed to a shard that no runner knows waits forever. The first process
 * to start records its value; a process started with another one fails to
 * build with `ConfigError` (option `shardsPerGroup`) naming both, instead of
 * hanging. To change it, stop every process and run
 * `DELETE FROM rollmem_cluster_config` in the cluster's schema.
 *
 * @example
 * ```ts
 * // runner.ts: one per host (or several), each with its own port
 * import { NodeRuntime } from "@effect/platform-node"
 * import { Effect, Layer } from "effect"
 * import { Message, Summarizer } from "rollmem"
 * import { ConversationCluster } from "rollmem/cluster"
 * import { Conversation } from "rollmem/store"
 *
 * declare const mySummarize: (summary: string, turns: ReadonlyArray<Message.Message>) => string
 * const RunnerLive = ConversationCluster.layerRunner({
 *   url: "postgres://app@db:5432/app",
 *   host: "10.0.0.5", // how the other runners reach this one
 *   port: 34431
 * }).pipe(Layer.provide(Summarizer.layerFunction(mySummarize)))
 * Layer.launch(RunnerLive).pipe(NodeRuntime.runMain)
 *
 * // api.ts: any number of processes that only send
 * const reply = Conversation.withMemory("chat-42", { strategy: "rolling", maxTokens: 2000 }, (memory) =>
 *   memory.add(Message.user("Book me a flight to Rome"))
 * ).pipe(Effect.provide(ConversationCluster.layerClient({ url: "postgres://app@db:5432/app" })))
 * ```
 *
 * @since 0.3.0
 */
import type * as MessageStorage from "@effect/cluster/MessageStorage"
import { RunnerAddress } from "@effect/cluster/RunnerAddress"
import type * as Runners from "@effect/cluster/Runners"
import type { Sharding } from "@effect/cluster/Sharding"
import type * as ShardingConfig from "@effect/cluster/ShardingConfig"
import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import type { SocketServerError } from "@effect/platform/SocketServer"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { ConfigError as EffectConfigError } from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Rules from "../core/cluster.js"
import { ConfigError } from "../Errors.js"
import { withCreationLock } from "../internal/creationLock.js"
import type * as Summarizer from "../services/Summarizer.js"
import * as Conversation from "../store/Conversation.js"
import * as ConversationStore from "../store/ConversationStore.js"
import { checkingIds } from "../store/internal/records.js"
import * as ConversationEntity from "./ConversationEntity.js"
import { resendOnHandover, resendOnIdCollision } from "./internal/handover.js"

/**
 * Options shared by {@link layerRunner} and {@link layerClient}.
 *
 * @since 0.3.0
 * @category models
 */
export interface Options {
  /**
   * The PostgreSQL database of the cluster, `postgres://user:password@host:port/database`:
   * the same for every process.
   */
  readonly url: string | Redacted.Redacted<string>
  /**
   * Shards per shard group; default 300 (`@effect/cluster`'s default). The
   * same in every process, clients included (checked: `ConfigError`
   * otherwise).
   */
  readonly shardsPerGroup?: number | undefined
  /** Connections of this process's pool; default 10. */
  readonly maxConnections?: number | undefined
  /**
   * Further `@effect/cluster` settings (durations, mailbox capacity, ...),
   * over the defaults of {@link defaultSharding}. Settings not given here
   * may also be read from the environment (`@effect/cluster`'s
   * `ShardingConfig.layerFromEnv`, e.g. `ENTITY_MAX_IDLE_TIME`).
   */
  readonly sharding?: Partial<ShardingConfig.ShardingConfig["Type"]> | undefined
}

/**
 * Options of {@link layerRunner}.
 *
 * @since 0.3.0
 * @category models
 */
export interface RunnerOptions extends Options {
  /** The host name or address the other processes reach this runner at. */
  readonly host: string
  /** The port this runner listens on and is reached at. */
  readonly port: number
  /** The address to listen on, when it differs from `host` (e.g. `"0.0.0.0"`); default `host`. */
  readonly listenHost?: string | undefined
  /** The conversations' table; default `rollmem_conversations`. */
  readonly table?: string | undefined
  /** An entity with no message for this long stops (its state is stored); default one minute. */
  readonly maxIdleTime?: Duration.DurationInput | undefined
}

/**
 * The `@effect/cluster` settings these layers start from (each may be
 * overridden with {@link Options.sharding}); the others keep the cluster's
 * defaults:
 *
 * - `shardLockDisableAdvisory: true`: shards are locked by rows of
 *   `cluster_locks` with an expiry rather than PostgreSQL advisory locks,
 *   whose numbers are shared by every schema of a database (two clusters on
 *   one database would take each other's locks);
 * - `shardLockExpiration: 10 seconds`, `shardLockRefreshInterval: 3
 *   seconds`: a runner that dies without stopping (SIGKILL, a lost host)
 *   has its shards taken over about 10 seconds later instead of 35. A
 *   runner paused longer than this may still believe it owns a shard: the
 *   store's compare-and-set then makes its save a conflict (fencing);
 * - `entityMessagePollInterval: 1 second`: how soon a new owner finds the
 *   persisted messages the dead one left unanswered (default 10 seconds);
 * - `runnerHealthCheckInterval: 5 seconds` (default one minute).
 *
 * @example
 * ```ts
 * import { ConversationCluster } from "rollmem/cluster"
 *
 * import { Duration } from "effect"
 *
 * ConversationCluster.defaultSharding.entityMessagePollInterval // 1 second
 * // the `sharding` option changes some of them; the others stay
 * const ClientLive = ConversationCluster.layerClient({
 *   url: "postgres://app@db:5432/app",
 *   sharding: { entityMessagePollInterval: Duration.millis(500) }
 * })
 * ```
 *
 * @since 0.3.0
 * @category constants
 */
export const defaultSharding: Partial<ShardingConfig.ShardingConfig["Type"]> = {
  shardLockDisableAdvisory: true,
  shardLockExpiration: Duration.seconds(10),
  shardLockRefreshInterval: Duration.seconds(3),
  entityMessagePollInterval: Duration.seconds(1),
  runnerHealthCheckInterval: Duration.seconds(5)
}

/**
 * The table recording the cluster's settings that every process must share.
 *
 * @example
 * ```ts
 * import { ConversationCluster } from "rollmem/cluster"
 *
 * ConversationCluster.CONFIG_TABLE // "rollmem_cluster_config": where shardsPerGroup is recorded
 * ```
 *
 * @since 0.3.0
 * @category constants
 */
export const CONFIG_TABLE: string = Rules.CONFIG_TABLE

/**
 * Records `shardsPerGroup` in {@link CONFIG_TABLE} if no process has, and
 * fails with `ConfigError` (option `shardsPerGroup`) when the recorded value
 * differs. Race-free when many processes start at once, at any isolation
 * level (an advisory lock on the table's name, in one READ COMMITTED
 * transaction). {@link layerRunner} and
 * {@link layerClient} run it before they join the cluster.
 *
 * @example
 * ```ts
 * import { PgClient } from "@effect/sql-pg"
 * import { Effect, Redacted } from "effect"
 * import { ConversationCluster } from "rollmem/cluster"
 *
 * // fails with ConfigError when the cluster's recorded shardsPerGroup differs
 * const check = ConversationCluster.checkShardsPerGroup(300).pipe(
 *   Effect.provide(PgClient.layer({ url: Redacted.make("postgres://app@db:5432/app") }))
 * )
 * ```
 *
 * @since 0.3.0
 * @category constructors
 */
export const checkShardsPerGroup = (
  shardsPerGroup: number
): Effect.Effect<void, ConfigError | SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const table = sql(CONFIG_TABLE)
    const stored = yield* withCreationLock(
      sql,
      CONFIG_TABLE,
      Effect.gen(function*() {
        yield* sql`CREATE TABLE IF NOT EXISTS ${table} (name TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)`
        yield* sql`INSERT INTO ${table} (name, value) VALUES ('shardsPerGroup', ${String(shardsPerGroup)})
        ON CONFLICT (name) DO NOTHING`
        return yield* sql<{ readonly value: string }>`SELECT value FROM ${table} WHERE name = 'shardsPerGroup'`
      })
    )
    const description = Rules.shardsMismatch(shardsPerGroup, Number(stored[0]?.value))
    if (description !== undefined) return yield* new ConfigError({ option: "shardsPerGroup", description })
  })

const checkedShards = (options: Options): Effect.Effect<number, ConfigError> => {
  const shards = options.shardsPerGroup ?? options.sharding?.shardsPerGroup ?? Rules.DEFAULT_SHARDS_PER_GROUP
  const description = Rules.shardsPerGroupProblem(shards)
  return description === undefined
    ? Effect.succeed(shards)
    : Effect.fail(new ConfigError({ option: "shardsPerGroup", description }))
}

const pg = (options: Options) =>
  PgClient.layer({
    url: typeof options.url === "string" ? Redacted.make(options.url) : options.url,
    maxConnections: options.maxConnections,
    applicationName: "rollmem-cluster"
  })

const isOwnError = (error: { readonly _tag: string }): boolean =>
  error._tag === "ConfigError" || error._tag === "TokenCountError" || error._tag === "ConversationConflictError" ||
  error._tag === "ConversationDecodeError" || error._tag === "ConversationStoreError"

/**
 * What `Conversation.withMemory` needs, over the entity: a
 * `ConversationStore` whose `load` reads through the entity (`Read`) and
 * whose `delete` deletes through it (`Delete`), and a `Conversation.Writer`
 * that sends each call's adds and clears as one `Apply`. A cluster failure
 * (a full mailbox, a message that cannot be persisted) is a
 * `ConversationStoreError`. `save` is not offered: it fails with
 * `ConversationStoreError` (the entity is the only writer; write through
 * `withMemory`).
 *
 * Needs the `Sharding` of a runner or client; {@link layerRunner} and
 * {@link layerClient} include it.
 *
 * @example
 * ```ts
 * import type { Sharding } from "@effect/cluster/Sharding"
 * import { Effect, Layer } from "effect"
 * import { Message } from "rollmem"
 * import { ConversationCluster } from "rollmem/cluster"
 * import { Conversation } from "rollmem/store"
 *
 * // over a Sharding built elsewhere (layerRunner and layerClient include this layer)
 * declare const ShardingLive: Layer.Layer<Sharding>
 * const WriterLive = ConversationCluster.layerWriter.pipe(Layer.provide(ShardingLive))
 * const added = Conversation.withMemory("chat-42", { strategy: "buffer" }, (memory) =>
 *   memory.add(Message.user("hello"))).pipe(Effect.provide(WriterLive))
 * ```
 *
 * @since 0.3.0
 * @category layers
 */
export const layerWriter: Layer.Layer<ConversationStore.ConversationStore | Conversation.Writer, never, Sharding> =
  Layer.effectContext(Effect.gen(function*() {
    const client = yield* ConversationEntity.ConversationEntity.client
    const own = <A, E extends { readonly _tag: string }, R>(
      id: string,
      operation: "load" | "save" | "delete",
      effect: Effect.Effect<A, E, R>
    ) =>
      Effect.mapError(resendOnHandover(resendOnIdCollision(effect)), (error) =>
        isOwnError(error)
          ? error as unknown as Conversation.WithMemoryError
          : new ConversationStore.ConversationStoreError({ conversationId: id, operation, cause: error }))
    const store = ConversationStore.ConversationStore.of(checkingIds({
      load: (id) =>
        Effect.map(own(id, "load", client(id).Read()), (stored) => Option.fromNullable(stored)) as Effect.Effect<
          Option.Option<ConversationStore.Stored>,
          ConversationStore.ConversationDecodeError | ConversationStore.ConversationStoreError
        >,
      save: (id) =>
        Effect.fail(
          new ConversationStore.ConversationStoreError({
            conversationId: id,
            operation: "save",
            cause: new Error("a conversation entity is written through Conversation.withMemory only (its Writer)")
          })
        ),
      delete: (id) =>
        own(id, "delete", client(id).Delete()) as Effect.Effect<void, ConversationStore.ConversationStoreError>
    }))
    const writer = Conversation.Writer.of({
      apply: (id, request) =>
        Effect.asVoid(own(
          id,
          "save",
          client(id).Apply({
            requestId: request.requestId,
            options: request.options as typeof ConversationEntity.StrategyOptions.Type,
            operations: request.operations
          })
        ))
    })
    return Context.make(ConversationStore.ConversationStore, store).pipe(Context.add(Conversation.Writer, writer))
  }))

type Cluster = Sharding | Runners.Runners | MessageStorage.MessageStorage

/**
 * Runs `effect` holding a session advisory lock of the cluster's schema, on
 * a connection of its own (outside the pool, which the cluster's storage
 * needs meanwhile), closed after. `@effect/cluster` creates its tables
 * (migrations) when its storage layers are built, and two processes creating
 * them at once fail (PostgreSQL: duplicate key in
 * `pg_type_typname_nsp_index`): building under this lock makes starting
 * any number of processes at once safe.
 */
const holdingStartLock = <A, E, R>(
  options: Options,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | SqlError | EffectConfigError, R> =>
  Effect.scoped(Effect.gen(function*() {
    const context = yield* Layer.build(pg({ ...options, maxConnections: 1 }))
    const sql = Context.get(context, PgClient.PgClient)
    const key = `/${CONFIG_TABLE}/start`
    return yield* Effect.acquireUseRelease(
      sql`SELECT pg_advisory_lock(hashtext(current_schema() || ${key}))`,
      () => effect,
      () => Effect.ignore(sql`SELECT pg_advisory_unlock(hashtext(current_schema() || ${key}))`)
    )
  }))

const sharding = (
  options: Options,
  clientOnly: boolean,
  address: Partial<ShardingConfig.ShardingConfig["Type"]>
): Layer.Layer<Cluster, ConfigError | SqlError | SocketServerError | EffectConfigError, SqlClient.SqlClient> =>
  Layer.scopedContext(Effect.gen(function*() {
    const shardsPerGroup = yield* checkedShards(options)
    yield* checkShardsPerGroup(shardsPerGroup)
    const shardingConfig = { ...defaultSharding, ...options.sharding, ...address, shardsPerGroup }
    const layer = clientOnly
      ? NodeClusterSocket.layer({ clientOnly: true, storage: "sql", shardingConfig }) as Layer.Layer<
        Cluster,
        EffectConfigError,
        SqlClient.SqlClient
      >
      : NodeClusterSocket.layer({ storage: "sql", shardingConfig })
    const scope = yield* Effect.scope
    return yield* holdingStartLock(options, Layer.buildWithScope(layer, scope))
  }))

/**
 * A runner: joins the cluster on `host:port`, serves the conversation
 * entities of its shards (persisting them with
 * `ConversationStore.layerSql` on the same database), and provides
 * `withMemory`'s services ({@link layerWriter}) to this process. Needs
 * the `Summarizer` the entities fold with (`Summarizer.layerDrop` to drop
 * evicted turns on purpose), and uses the `TokenCounter` provided to it
 * (default: the word count): the summarizer runs on the runner that owns
 * the conversation.
 *
 * Building it checks `shardsPerGroup` against the cluster's
 * ({@link checkShardsPerGroup}: `ConfigError`), connects to the database
 * (`SqlError`) and listens (`SocketServerError`). Closing its scope (e.g.
 * SIGTERM under `NodeRuntime.runMain`) stops its entities and hands their
 * shards to the other runners; unanswered persisted messages are delivered
 * to the new owners.
 *
 * @example
 * ```ts
 * import { NodeRuntime } from "@effect/platform-node"
 * import { Layer } from "effect"
 * import { Summarizer } from "rollmem"
 * import { ConversationCluster } from "rollmem/cluster"
 *
 * const RunnerLive = ConversationCluster.layerRunner({
 *   url: "postgres://app@db:5432/app",
 *   host: "10.0.0.5", // how the other runners reach this one
 *   port: 34431
 * }).pipe(Layer.provide(Summarizer.layerFunction((summary, turns) => `${summary} +${turns.length}`.trim())))
 * Layer.launch(RunnerLive).pipe(NodeRuntime.runMain)
 * ```
 *
 * @since 0.3.0
 * @category layers
 */
export const layerRunner = (
  options: RunnerOptions
): Layer.Layer<
  ConversationStore.ConversationStore | Conversation.Writer,
  ConfigError | SqlError | SocketServerError | EffectConfigError,
  Summarizer.Summarizer
> => {
  const address = {
    runnerAddress: Option.some(RunnerAddress.make({ host: options.host, port: options.port })),
    runnerListenAddress: options.listenHost === undefined
      ? Option.none()
      : Option.some(RunnerAddress.make({ host: options.listenHost, port: options.port }))
  }
  const entities = ConversationEntity.layer({ maxIdleTime: options.maxIdleTime }).pipe(
    Layer.provide(ConversationStore.layerSql({ table: options.table }))
  )
  return Layer.merge(layerWriter, entities).pipe(
    Layer.provide(sharding(options, false, address)),
    Layer.provide(pg(options))
  )
}

/**
 * A client: sends to the conversation entities without serving any
 * (`@effect/cluster`'s client-only mode, no port), and provides
 * `withMemory`'s services ({@link layerWriter}). Building it checks
 * `shardsPerGroup` against the cluster's ({@link checkShardsPerGroup}:
 * `ConfigError`) and connects to the database (`SqlError`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message } from "rollmem"
 * import { ConversationCluster } from "rollmem/cluster"
 * import { Conversation } from "rollmem/store"
 *
 * const reply = Conversation.withMemory("chat-42", { strategy: "rolling", maxTokens: 2000 }, (memory) =>
 *   memory.add(Message.user("Book me a flight to Rome"))).pipe(
 *     Effect.provide(ConversationCluster.layerClient({ url: "postgres://app@db:5432/app" }))
 *   )
 * ```
 *
 * @since 0.3.0
 * @category layers
 */
export const layerClient = (
  options: Options
): Layer.Layer<ConversationStore.ConversationStore | Conversation.Writer, ConfigError | SqlError | EffectConfigError> =>
  layerWriter.pipe(
    Layer.provide(sharding(options, true, { runnerAddress: Option.none() })),
    Layer.provide(pg(options))
  ) as Layer.Layer<
    ConversationStore.ConversationStore | Conversation.Writer,
    ConfigError | SqlError | EffectConfigError
  >
