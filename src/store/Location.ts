/**
 * Where conversations are stored, as one string names it: parsing it,
 * describing it without its password, and the store layer it names.
 *
 * @since 0.3.0
 */
import type { SqlError } from "@effect/sql/SqlError"
import * as Either from "effect/Either"
import type * as Layer from "effect/Layer"
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
export type Location =
  | { readonly _tag: "Memory" }
  | { readonly _tag: "Sqlite"; readonly filename: string }
  | { readonly _tag: "Postgres"; readonly url: string }
  | { readonly _tag: "Redis"; readonly url: string }

const URL_SCHEMES: ReadonlyArray<readonly [string, "Postgres" | "Redis"]> = [
  ["postgres://", "Postgres"],
  ["postgresql://", "Postgres"],
  ["redis://", "Redis"],
  ["rediss://", "Redis"]
]

/**
 * Reads a {@link Location} from its string. Fails with `ConfigError`
 * (option `option`) for anything else: a bare word (`"redis"`), an empty
 * path, a URL that does not parse; and for `"memory"` when `allowMemory` is
 * false (a command whose process ends would lose it).
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
  const refuse = (why: string) => Either.left(new ConfigError({ option, description: why }))
  const EXPECTED = `expected ${allowMemory ? "\"memory\", " : ""}sqlite:<path>, postgres://… or redis://…`
  if (text === "memory" && allowMemory) return Either.right({ _tag: "Memory" })
  if (text.startsWith("sqlite:")) {
    const filename = text.slice("sqlite:".length)
    return filename === ""
      ? refuse(`${EXPECTED}, got "sqlite:" with no path`)
      : Either.right({ _tag: "Sqlite", filename })
  }
  const scheme = URL_SCHEMES.find(([prefix]) => text.startsWith(prefix))
  if (scheme === undefined) return refuse(`${EXPECTED}, got ${JSON.stringify(text.slice(0, 200))}`)
  if (!URL.canParse(text) || new URL(text).host === "") {
    return refuse(`${JSON.stringify(redact(text))} is not a URL with a host (${scheme[0]}host:port/…)`)
  }
  return Either.right({ _tag: scheme[1], url: text })
}

/** A URL with its password replaced by `***`, for messages. */
const redact = (text: string): string => {
  if (!URL.canParse(text)) return text.replace(/:[^:@/]*@/, ":***@")
  const url = new URL(text)
  if (url.password !== "") url.password = "***"
  return url.toString()
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
export const describeLocation = (location: Location): string => {
  switch (location._tag) {
    case "Memory":
      return "memory"
    case "Sqlite":
      return `sqlite:${location.filename}`
    case "Postgres":
    case "Redis":
      return redact(location.url)
  }
}

/**
 * The store layer of a {@link Location}, with the layer's own defaults
 * (table `rollmem_conversations`, key prefix `rollmem-conversation:`).
 * Fails as that layer does: `SqlError` (SQLite, PostgreSQL),
 * {@link ConversationStoreError} (Redis).
 *
 * @example
 * ```ts
 * import { Either, Layer } from "effect"
 * import { ConversationStore } from "rollmem/store"
 *
 * const location = ConversationStore.parseLocation(process.env.STORE ?? "memory", "STORE")
 * const StoreLive = Either.isRight(location)
 *   ? ConversationStore.layerLocation(location.right)
 *   : Layer.fail(location.left)
 * ```
 *
 * @since 0.2.0
 * @category layers
 */
export const layerLocation = (
  location: Location
): Layer.Layer<ConversationStore, SqlError | ConversationStoreError> => {
  switch (location._tag) {
    case "Memory":
      return layerMemory
    case "Sqlite":
      return layerSqlite({ filename: location.filename })
    case "Postgres":
      return layerPg({ url: location.url })
    case "Redis":
      return layerRedis({ url: location.url })
  }
}
