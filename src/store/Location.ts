/**
 * Where conversations are stored, as one string names it: parsing it,
 * describing it without its password, and the store layer it names.
 *
 * @since 0.3.0
 */
import type { SqlError } from "@effect/sql/SqlError"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Core from "../core/location.js"
import { ConfigError } from "../Errors.js"
import { layerMemory } from "./backends/Memory.js"
import { layerRedis } from "./backends/Redis.js"
import { layerPg, layerSqlite } from "./backends/Sql.js"
import type { ConversationStore, ConversationStoreError } from "./Service.js"

/**
 * Where conversations are stored, as one string names it (the Promise
 * facade's `store` option, the command line's `--store`):
 *
 * - `"memory"`: {@link layerMemory};
 * - `"sqlite:PATH"`: {@link layerSqlite} on the file `PATH`;
 * - `"postgres://…"` or `"postgresql://…"`: {@link layerPg} on that URL;
 * - `"redis://…"` or `"rediss://…"`: {@link layerRedis} on that URL.
 *
 * @since 0.2.0
 * @category models
 */
export type Location = Core.Location

/**
 * Reads a {@link Location} from its string. Fails with `ConfigError`
 * (option `option`) for anything else: a bare word (`"redis"`), an empty
 * path, a URL that does not parse; and for `"memory"` when `allowMemory` is
 * false (a command whose process ends would lose it). The rules are
 * `core/location.ts`'s, shared with the Effect 4 line.
 *
 * @example
 * ```ts
 * import { ConversationStore } from "rollmem/store"
 *
 * ConversationStore.parseLocation("sqlite:conversations.db", "store") // Either.right({ _tag: "Sqlite", filename: "conversations.db" })
 * ConversationStore.parseLocation("redis", "store") // Either.left(ConfigError, option "store")
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const parseLocation = (
  text: string,
  option: string,
  allowMemory = true
): Either.Either<Location, ConfigError> => {
  const parsed = Core.parseLocation(text, option, allowMemory)
  return parsed._tag === "Location" ? Either.right(parsed.location) : Either.left(new ConfigError(parsed.problem))
}

/**
 * A location as messages name it: `sqlite:PATH`, or the URL with its
 * password replaced by `***`.
 *
 * @example
 * ```ts
 * import { ConversationStore } from "rollmem/store"
 *
 * ConversationStore.describeLocation({ _tag: "Postgres", url: "postgres://app:secret@db:5432/app" })
 * // "postgres://app:***@db:5432/app"
 * ```
 *
 * @since 0.2.0
 * @category combinators
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
 * @since 0.4.0
 * @category models
 */
export type StoreNames = Core.StoreNames

/**
 * The store layer of a {@link Location}, with the layer's own defaults
 * (table `rollmem_conversations`, archive table `rollmem_archive`, key
 * prefix `rollmem-conversation:`) or the {@link StoreNames} given: `table`
 * and `archiveTable` for SQLite and PostgreSQL, `prefix` for Redis. Fails
 * as that layer does: `SqlError` (SQLite, PostgreSQL),
 * {@link ConversationStoreError} (Redis); and with `ConfigError` naming the
 * option for a name that is not a non-empty string or does not apply to
 * the location (a `table` for Redis, a `prefix` for SQLite, any for
 * `"memory"`), before anything is opened.
 *
 * @example
 * ```ts
 * import { Either, Layer } from "effect"
 * import { ConversationStore } from "rollmem/store"
 *
 * const location = ConversationStore.parseLocation(process.env.STORE ?? "memory", "STORE")
 * const StoreLive = Either.isRight(location)
 *   ? ConversationStore.layerLocation(location.right, { table: "support_conversations" }) // a table for SQL stores
 *   : Layer.fail(location.left)
 * ```
 *
 * @since 0.2.0
 * @category layers
 */
export const layerLocation = (
  location: Location,
  names?: StoreNames
): Layer.Layer<ConversationStore, SqlError | ConversationStoreError | ConfigError> => {
  const problem = Core.locationValueProblem(location) ?? Core.storeNamesProblem(location, names ?? {})
  if (problem !== undefined) return Layer.fail(new ConfigError(problem))
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
