/**
 * Where conversations are stored, as one string names it, on the Effect 4
 * line: the Effect 3 line's `src/store/Location.ts`, its rules
 * `core/location.ts`'s (the same strings, the same refusals), the layers
 * this line's.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import type { SqlError } from "effect/sql"
import * as Core from "../../../src/core/location.js"
import { ConfigError } from "../Errors.js"
import { layerMemory } from "./backends/Memory.js"
import { layerRedis } from "./backends/Redis.js"
import { layerPg } from "./backends/Sql.js"
import { layerSqlite } from "./backends/Sqlite.js"
import { ConversationStore, type ConversationStoreError } from "./Service.js"

/**
 * Where conversations are stored, as one string names it (the Promise
 * facade's `store` option): `"memory"` ({@link layerMemory}),
 * `"sqlite:PATH"` ({@link layerSqlite} on the file `PATH`),
 * `"postgres://…"` or `"postgresql://…"` ({@link layerPg} on that URL),
 * `"redis://…"` or `"rediss://…"` ({@link layerRedis} on that URL).
 *
 * @since 1.0.0
 */
export type Location = Core.Location

/**
 * Reads a {@link Location} from its string. Fails with `ConfigError`
 * (option `option`) for anything else: a bare word (`"redis"`), an empty
 * path, a URL that does not parse; and for `"memory"` when `allowMemory` is
 * false. The Effect 3 line's rules and messages (`core/location.ts`).
 *
 * @example
 * ```ts
 * import { ConversationStore } from "rollmem/store"
 *
 * ConversationStore.parseLocation("sqlite:conversations.db", "store") // Result.succeed({ _tag: "Sqlite", filename: "conversations.db" })
 * ConversationStore.parseLocation("redis", "store") // Result.fail(ConfigError, option "store")
 * ```
 *
 * @since 1.0.0
 */
export const parseLocation = (
  text: string,
  option: string,
  allowMemory = true
): Result.Result<Location, ConfigError> => {
  const parsed = Core.parseLocation(text, option, allowMemory)
  return parsed._tag === "Location" ? Result.succeed(parsed.location) : Result.fail(new ConfigError(parsed.problem))
}

/**
 * A location as messages name it: `memory`, `sqlite:PATH`, or the URL with
 * its password replaced by `***`.
 *
 * @example
 * ```ts
 * import { ConversationStore } from "rollmem/store"
 *
 * ConversationStore.describeLocation({ _tag: "Postgres", url: "postgres://app:secret@db:5432/app" })
 * // "postgres://app:***@db:5432/app"
 * ```
 *
 * @since 1.0.0
 */
export const describeLocation: (location: Location) => string = Core.describeLocation

/**
 * The names a store of a {@link Location} keeps its conversations under:
 * an SQL store's `table` and `archiveTable`, a Redis store's key `prefix`
 * (the layers' options of these names; `core/location.ts`).
 *
 * @example
 * ```ts
 * import type { ConversationStore } from "rollmem/store"
 *
 * const names: ConversationStore.StoreNames = { table: "support_conversations", archiveTable: "support_archive" }
 * ```
 *
 * @since 1.0.0
 */
export type StoreNames = Core.StoreNames

/**
 * The store layer of a {@link Location}, with the layer's own defaults
 * (table `rollmem_conversations`, archive table `rollmem_archive`, key
 * prefix `rollmem-conversation:`) or the {@link StoreNames} given (`table`
 * and `archiveTable` for SQLite and PostgreSQL, `prefix` for Redis; a name
 * that is not a non-empty string or does not apply to the location fails
 * the layer with `ConfigError` naming the option, the Effect 3 line's
 * rule, `core/location.ts`). Its
 * driver is loaded when the layer is built (`@effect/sql-pg`, `ioredis`;
 * SQLite is Node's own `node:sqlite`). Fails as that layer does: `SqlError`
 * (SQLite, PostgreSQL), `ConversationStoreError` (Redis).
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { ConversationStore } from "rollmem/store"
 *
 * const location = ConversationStore.parseLocation(process.env.STORE ?? "memory", "STORE")
 * if (Result.isSuccess(location)) {
 *   const StoreLive = ConversationStore.layerLocation(location.success, { prefix: "support:" }) // a prefix for Redis
 * }
 * ```
 *
 * @since 1.0.0
 */
export const layerLocation = (
  location: Location,
  names?: StoreNames
): Layer.Layer<ConversationStore, SqlError.SqlError | ConversationStoreError | ConfigError> => {
  const problem = Core.locationValueProblem(location) ?? Core.storeNamesProblem(location, names ?? {})
  if (problem !== undefined) return Layer.effect(ConversationStore, Effect.fail(new ConfigError(problem)))
  switch (location._tag) {
    case "Memory":
      return layerMemory
    case "Sqlite":
      return layerSqlite({ filename: location.filename, table: names?.table, archiveTable: names?.archiveTable })
    case "Postgres":
      return layerPg({ url: location.url, table: names?.table, archiveTable: names?.archiveTable })
    case "Redis":
      return layerRedis({ url: location.url, prefix: names?.prefix })
  }
}
