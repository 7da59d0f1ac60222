/**
 * Running conversation entities on Effect 4's `effect/cluster`: one layer
 * per process, as on the Effect 3 line. A **runner** owns a share of the
 * conversations and applies their requests ({@link layerRunner}); a
 * **client** only sends ({@link layerClient}). Both give
 * `Conversation.withMemory` (and the Promise facade's `Conversations`) what
 * it needs, a `ConversationStore` and a `Conversation.Writer`, so the code
 * that uses conversations does not change: only the layer it is given does.
 *
 * Every process of a cluster shares one PostgreSQL database (the `url`):
 * `effect/cluster`'s own tables (`cluster_runners`, `cluster_locks`,
 * `cluster_messages`, `cluster_replies` and their migration records), the
 * conversations (`rollmem_conversations`, the store's table) and
 * `rollmem_cluster_config`, which records the cluster's `shardsPerGroup`.
 * To run two clusters on one database, give each its own schema
 * (`?options=-c%20search_path%3Dmy_schema` in the URL).
 *
 * `shardsPerGroup` must be the same in every process, clients included: the
 * first process to start records its value; a process started with another
 * one fails to build with `ConfigError` (option `shardsPerGroup`) naming
 * both, instead of hanging. To change it, stop every process and run
 * `DELETE FROM rollmem_cluster_config` in the cluster's schema.
 *
 * Needs the optional peers `@effect/platform-node` 4 (the socket runner) and
 * `@effect/sql-pg` 4 (`npm i @effect/platform-node@4.1.0 @effect/sql-pg@4.0.5`),
 * imported by this entry only.
 *
 * @example
 * ```ts
 * import { NodeRuntime } from "@effect/platform-node"
 * import { Effect, Layer } from "effect"
 * import { Message, Summarizer } from "rollmem"
 * import { ConversationCluster } from "rollmem/cluster"
 * import { Conversation } from "rollmem/store"
 *
 * // runner.ts: one per host (or several), each with its own port
 * const RunnerLive = ConversationCluster.layerRunner({
 *   url: "postgres://app@db:5432/app",
 *   host: "10.0.0.5", // how the other runners reach this one
 *   port: 34431
 * }).pipe(Layer.provide(Summarizer.layerFunction((summary, turns) => `${summary} +${turns.length}`.trim())))
 * Layer.launch(RunnerLive).pipe(NodeRuntime.runMain)
 *
 * // api.ts: any number of processes that only send
 * const reply = Conversation.withMemory("chat-42", { strategy: "rolling", maxTokens: 2000 }, (memory) =>
 *   memory.add(Message.user("Book me a flight to Rome"))
 * ).pipe(Effect.provide(ConversationCluster.layerClient({ url: "postgres://app@db:5432/app" })))
 * ```
 *
 * @since 1.0.0
 */
import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import * as PgClient from "@effect/sql-pg/PgClient"
import { type MessageStorage, RunnerAddress, type Runners, type Sharding, type ShardingConfig } from "effect/cluster"
import type * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { SocketServer } from "effect/socket"
import { SqlClient, type SqlError } from "effect/sql"
import * as Rules from "../../../src/core/cluster.js"
import { ConfigError } from "../Errors.js"
import type * as Summarizer from "../services/Summarizer.js"
import { layerSql, withCreationLock } from "../store/backends/Sql.js"
import * as Conversation from "../store/Conversation.js"
import { checkingIds } from "../store/internal/records.js"
import { ConversationStore, ConversationStoreError, type Stored } from "../store/Service.js"
import * as ConversationEntity from "./ConversationEntity.js"
import { resendOnHandover, resendOnIdCollision } from "./internal/handover.js"

/**
 * Options shared by {@link layerRunner} and {@link layerClient}.
 *
 * @since 1.0.0
 * @category models
 */
export interface Options {
  /**
   * The PostgreSQL database of the cluster, `postgres://user:password@host:port/database`:
   * the same for every process.
   */
  readonly url: string | Redacted.Redacted<string>
  /**
   * Shards per shard group; default 300 (`effect/cluster`'s default). The
   * same in every process, clients included (checked: `ConfigError`
   * otherwise).
   */
  readonly shardsPerGroup?: number | undefined
  /** Connections of this process's pool; default 10. */
  readonly maxConnections?: number | undefined
  /**
   * Further `effect/cluster` settings (durations, mailbox capacity, ...),
   * over the defaults of {@link defaultSharding}. Settings not given here
   * may also be read from the environment (`ShardingConfig.layerFromEnv`).
   */
  readonly sharding?: Partial<ShardingConfig.ShardingConfig["Service"]> | undefined
}

/**
 * Options of {@link layerRunner}.
 *
 * @since 1.0.0
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
  readonly maxIdleTime?: Duration.Input | undefined
}

/**
 * The `effect/cluster` settings these layers start from, the Effect 3
 * line's (each may be overridden with {@link Options.sharding}):
 * `shardLockDisableAdvisory: true` (shards locked by rows of `cluster_locks`
 * with an expiry, not by advisory locks, whose numbers every schema of a
 * database shares), `shardLockExpiration` 10 seconds,
 * `shardLockRefreshInterval` 3 seconds, `entityMessagePollInterval` 1
 * second, `runnerHealthCheckInterval` 5 seconds.
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import { ConversationCluster } from "rollmem/cluster"
 *
 * ConversationCluster.defaultSharding.entityMessagePollInterval // 1 second
 * // the `sharding` option changes some of them; the others stay
 * const ClientLive = ConversationCluster.layerClient({
 *   url: "postgres://app@db:5432/app",
 *   sharding: { entityMessagePollInterval: Duration.millis(500) }
 * })
 * ```
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultSharding: Partial<ShardingConfig.ShardingConfig["Service"]> = {
  shardLockDisableAdvisory: true,
  shardLockExpiration: Duration.seconds(10),
  shardLockRefreshInterval: Duration.seconds(3),
  entityMessagePollInterval: Duration.seconds(1),
  runnerHealthCheckInterval: Duration.seconds(5)
}

/**
 * The table recording the cluster's settings that every process must share
 * (the Effect 3 line's table).
 *
 * @example
 * ```ts
 * import { ConversationCluster } from "rollmem/cluster"
 *
 * ConversationCluster.CONFIG_TABLE // "rollmem_cluster_config": where shardsPerGroup is recorded
 * ```
 *
 * @since 1.0.0
 * @category constants
 */
export const CONFIG_TABLE: string = Rules.CONFIG_TABLE

/**
 * Records `shardsPerGroup` in {@link CONFIG_TABLE} if no process has, and
 * fails with `ConfigError` (option `shardsPerGroup`) when the recorded value
 * differs. Race-free when many processes start at once, at any isolation
 * level (an advisory lock on the table's name, in one READ COMMITTED
 * transaction: the Effect 3 line's lock). {@link layerRunner} and
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
 * @since 1.0.0
 * @category constructors
 */
export const checkShardsPerGroup = (
  shardsPerGroup: number
): Effect.Effect<void, ConfigError | SqlError.SqlError, SqlClient.SqlClient> =>
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

const isOwnError = (error: unknown): boolean => {
  const tag = typeof error === "object" && error !== null ? (error as { readonly _tag?: unknown })._tag : undefined
  return tag === "ConfigError" || tag === "TokenCountError" || tag === "ConversationConflictError" ||
    tag === "ConversationDecodeError" || tag === "ConversationStoreError"
}

/**
 * What `Conversation.withMemory` needs, over the entity: a
 * `ConversationStore` whose `load` reads through the entity (`Read`) and
 * whose `delete` deletes through it (`Delete`), and a `Conversation.Writer`
 * that sends each call's operations as one `Apply`. A cluster failure (a
 * full mailbox, a message that cannot be persisted) is a
 * `ConversationStoreError`. `save` is not offered: it fails with
 * `ConversationStoreError` (the entity is the only writer).
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import type { Sharding } from "effect/cluster"
 * import { Message } from "rollmem"
 * import { ConversationCluster } from "rollmem/cluster"
 * import { Conversation } from "rollmem/store"
 *
 * // over a Sharding built elsewhere (layerRunner and layerClient include this layer)
 * declare const ShardingLive: Layer.Layer<Sharding.Sharding>
 * const WriterLive = ConversationCluster.layerWriter.pipe(Layer.provide(ShardingLive))
 * const added = Conversation.withMemory("chat-42", { strategy: "buffer" }, (memory) =>
 *   memory.add(Message.user("hello"))).pipe(Effect.provide(WriterLive))
 * ```
 *
 * @since 1.0.0
 * @category layers
 */
export const layerWriter: Layer.Layer<ConversationStore | Conversation.Writer, never, Sharding.Sharding> = Layer
  .effectContext(Effect.gen(function*() {
    const client = yield* ConversationEntity.ConversationEntity.client
    const own = <A, E, R>(id: string, operation: "load" | "save" | "delete", effect: Effect.Effect<A, E, R>) =>
      Effect.mapError(
        resendOnHandover(resendOnIdCollision(effect)),
        (error) =>
          isOwnError(error)
            ? error as unknown as Conversation.WithMemoryError
            : new ConversationStoreError({ conversationId: id, operation, cause: error })
      )
    const store = ConversationStore.of(checkingIds({
      load: (id) =>
        Effect.map(
          own(id, "load", client(id).Read(undefined)),
          (stored) => Option.fromNullishOr(stored)
        ) as Effect.Effect<
          Option.Option<Stored>,
          never
        >,
      save: (id) =>
        Effect.fail(
          new ConversationStoreError({
            conversationId: id,
            operation: "save",
            cause: new Error("a conversation entity is written through Conversation.withMemory only (its Writer)")
          })
        ),
      delete: (id) => own(id, "delete", client(id).Delete(undefined)) as Effect.Effect<void, ConversationStoreError>
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
    return Context.make(ConversationStore, store).pipe(Context.add(Conversation.Writer, writer))
  }))

type Cluster = Sharding.Sharding | Runners.Runners | MessageStorage.MessageStorage

/**
 * Runs `effect` holding a session advisory lock of the cluster's schema, on
 * a connection of its own, closed after: `effect/cluster` creates its tables
 * when its storage layers are built, and building under this lock makes
 * starting any number of processes at once safe (the Effect 3 line's lock).
 */
const holdingStartLock = <A, E, R>(
  options: Options,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | SqlError.SqlError, R> =>
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
  address: Partial<ShardingConfig.ShardingConfig["Service"]>
): Layer.Layer<
  Cluster,
  ConfigError | SqlError.SqlError | SocketServer.SocketServerError | Config.ConfigError,
  SqlClient.SqlClient
> =>
  Layer.effectContext(Effect.gen(function*() {
    const shardsPerGroup = yield* checkedShards(options)
    yield* checkShardsPerGroup(shardsPerGroup)
    const shardingConfig = { ...defaultSharding, ...options.sharding, ...address, shardsPerGroup }
    const layer: Layer.Layer<
      Cluster,
      SocketServer.SocketServerError | Config.ConfigError,
      SqlClient.SqlClient
    > = clientOnly
      ? NodeClusterSocket.layer({ clientOnly: true, storage: "sql", shardingConfig })
      : NodeClusterSocket.layer({ storage: "sql", shardingConfig })
    const scope = yield* Effect.scope
    return yield* holdingStartLock(options, Layer.buildWithScope(layer, scope))
  }))

/**
 * A runner: joins the cluster on `host:port`, serves the conversation
 * entities of its shards (persisting them with `ConversationStore.layerSql`
 * on the same database), and provides `withMemory`'s services
 * ({@link layerWriter}) to this process. Needs the `Summarizer` the
 * entities fold with (`Summarizer.layerDrop` to drop evicted turns on
 * purpose); the summarizer runs on the runner that owns the conversation.
 *
 * Building it checks `shardsPerGroup` against the cluster's
 * ({@link checkShardsPerGroup}: `ConfigError`), connects to the database
 * (`SqlError`) and listens (`SocketServerError`). Closing its scope stops
 * its entities and hands their shards to the other runners.
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
 * @since 1.0.0
 * @category layers
 */
export const layerRunner = (
  options: RunnerOptions
): Layer.Layer<
  ConversationStore | Conversation.Writer,
  ConfigError | SqlError.SqlError | SocketServer.SocketServerError | Config.ConfigError,
  Summarizer.Summarizer
> => {
  const address = {
    runnerAddress: Option.some(RunnerAddress.make(options.host, options.port)),
    runnerListenAddress: options.listenHost === undefined
      ? Option.none()
      : Option.some(RunnerAddress.make(options.listenHost, options.port))
  }
  const entities = ConversationEntity.layer({ maxIdleTime: options.maxIdleTime }).pipe(
    Layer.provide(layerSql({ table: options.table }))
  )
  return Layer.merge(layerWriter, entities).pipe(
    Layer.provide(sharding(options, false, address)),
    Layer.provide(pg(options))
  )
}

/**
 * A client: sends to the conversation entities without serving any
 * (`effect/cluster`'s client-only mode, no port), and provides
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
 * @since 1.0.0
 * @category layers
 */
export const layerClient = (
  options: Options
): Layer.Layer<
  ConversationStore | Conversation.Writer,
  ConfigError | SqlError.SqlError | Config.ConfigError
> =>
  layerWriter.pipe(
    Layer.provide(sharding(options, true, { runnerAddress: Option.none() })),
    Layer.provide(pg(options))
  ) as Layer.Layer<ConversationStore | Conversation.Writer, ConfigError | SqlError.SqlError | Config.ConfigError>
