/**
 * Where conversations are stored, as one string names it (docs/contract.md
 * section 12.2: the Promise facade's `store` option, the command line's
 * `--store`), and the rules of the facade's `Conversations` that need no
 * Effect, pure (no `effect` import): reading a location, describing it
 * without its password, checking a `store` option, the refusals'
 * messages. Both lines call them (the Effect 3 line's `store/Location.ts`
 * and `promise/Conversations.ts`, the Effect 4 line's
 * `effect4/src/store/Location.ts` and `effect4/src/promise/Conversations.ts`),
 * so a location reads, and a refusal reads, the same on both.
 *
 * @since 0.4.0
 */
import { describeValue, type Problem, unknownOption } from "./options.js"
import { DEFAULT_TABLE } from "./store.js"

/**
 * Where conversations are stored:
 *
 * - `{ _tag: "Memory" }`: `"memory"`, this process only;
 * - `{ _tag: "Sqlite", filename }`: `"sqlite:PATH"`;
 * - `{ _tag: "Postgres", url }`: `"postgres://…"` or `"postgresql://…"`;
 * - `{ _tag: "Redis", url }`: `"redis://…"` or `"rediss://…"`.
 *
 * @since 0.4.0
 */
export type Location =
  | { readonly _tag: "Memory" }
  | { readonly _tag: "Sqlite"; readonly filename: string }
  | { readonly _tag: "Postgres"; readonly url: string }
  | { readonly _tag: "Redis"; readonly url: string }

/**
 * A location read, or the problem of one refused (a `ConfigError`'s option
 * and description).
 *
 * @since 0.4.0
 */
export type Parsed =
  | { readonly _tag: "Location"; readonly location: Location }
  | { readonly _tag: "Refused"; readonly problem: Problem }

const URL_SCHEMES: ReadonlyArray<readonly [string, "Postgres" | "Redis"]> = [
  ["postgres://", "Postgres"],
  ["postgresql://", "Postgres"],
  ["redis://", "Redis"],
  ["rediss://", "Redis"]
]

const located = (location: Location): Parsed => ({ _tag: "Location", location })
const refused = (option: string, description: string): Parsed => ({ _tag: "Refused", problem: { option, description } })

/**
 * What a location may be, as a refusal lists it: `expected "memory",
 * sqlite:<path>, postgres://… or redis://…` (without `"memory"` when it is
 * not allowed).
 *
 * @example
 * ```ts
 * expectedLocation(false) // "expected sqlite:<path>, postgres://… or redis://…"
 * ```
 *
 * @since 0.4.0
 */
export const expectedLocation = (allowMemory: boolean): string =>
  `expected ${allowMemory ? "\"memory\", " : ""}sqlite:<path>, postgres://… or redis://…`

/**
 * Reads a {@link Location} from its string; refuses (option `option`) a
 * bare word (`"redis"`), an empty path, a URL that does not parse or has no
 * host, and `"memory"` when `allowMemory` is false (a command whose process
 * ends would lose it).
 *
 * @example
 * ```ts
 * parseLocation("sqlite:conversations.db", "store") // { _tag: "Location", location: { _tag: "Sqlite", filename: "conversations.db" } }
 * parseLocation("redis", "store") // { _tag: "Refused", problem: { option: "store", description: "expected \"memory\", ... got \"redis\"" } }
 * ```
 *
 * @since 0.4.0
 */
export const parseLocation = (text: string, option: string, allowMemory = true): Parsed => {
  const expected = expectedLocation(allowMemory)
  if (text === "memory" && allowMemory) return located({ _tag: "Memory" })
  if (text.startsWith("sqlite:")) {
    const filename = text.slice("sqlite:".length)
    return filename === ""
      ? refused(option, `${expected}, got "sqlite:" with no path`)
      : located({ _tag: "Sqlite", filename })
  }
  const scheme = URL_SCHEMES.find(([prefix]) => text.startsWith(prefix))
  if (scheme === undefined) return refused(option, `${expected}, got ${JSON.stringify(text.slice(0, 200))}`)
  if (!URL.canParse(text) || new URL(text).host === "") {
    return refused(option, `${JSON.stringify(redact(text))} is not a URL with a host (${scheme[0]}host:port/…)`)
  }
  return located({ _tag: scheme[1], url: text })
}

/**
 * A URL with its password replaced by `***`, for messages: the password of
 * its user part and the value of a `password` query parameter (which the
 * PostgreSQL driver reads as well), whatever its case.
 *
 * @example
 * ```ts
 * redact("redis://:secret@cache:6379") // "redis://:***@cache:6379"
 * redact("postgres://app@db/app?password=secret") // "postgres://app@db/app?password=***"
 * ```
 *
 * @since 0.4.0
 */
export const redact = (text: string): string => {
  if (!URL.canParse(text)) {
    return text.replace(/:[^:@/]*@/, ":***@").replace(/([?&]password=)[^&#]*/gi, "$1***")
  }
  const url = new URL(text)
  if (url.password !== "") url.password = "***"
  for (const key of [...url.searchParams.keys()]) {
    if (key.toLowerCase() === "password") url.searchParams.set(key, "***")
  }
  return url.toString()
}

/**
 * A location as messages name it: `memory`, `sqlite:PATH`, or the URL with
 * its password replaced by `***`.
 *
 * @example
 * ```ts
 * describeLocation({ _tag: "Postgres", url: "postgres://app:secret@db:5432/app" }) // "postgres://app:***@db:5432/app"
 * ```
 *
 * @since 0.4.0
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
 * The facade's `store` option that is not a store layer (each line checks
 * for its own `Layer` first): a location string, or `{ sqlite: PATH }`;
 * anything else refused, naming `store` (or `store.sqlite` for a path that
 * is not a non-empty string).
 *
 * @example
 * ```ts
 * storeLocation({ sqlite: "c.db" }) // { _tag: "Location", location: { _tag: "Sqlite", filename: "c.db" } }
 * storeLocation(42) // refused: option "store", "expected \"memory\", sqlite:<path>, postgres://… or redis://…, got number"
 * ```
 *
 * @since 0.4.0
 */
export const storeLocation = (store: unknown): Parsed => {
  if (typeof store === "string") return parseLocation(store, "store")
  if (typeof store === "object" && store !== null && !Array.isArray(store)) {
    const keys = Object.keys(store)
    const filename = (store as { readonly sqlite?: unknown }).sqlite
    if (keys.length === 1 && keys[0] === "sqlite") {
      if (typeof filename === "string" && filename !== "") return located({ _tag: "Sqlite", filename })
      return refused(
        "store.sqlite",
        `must be the path of the database file, got ${
          typeof filename === "string" ? "\"\"" : filename === null ? "null" : typeof filename
        }`
      )
    }
    return refused(
      "store",
      `an object must be { sqlite: path }, got the keys ${keys.map((k) => JSON.stringify(k)).join(", ")}`
    )
  }
  return refused("store", `${expectedLocation(true)}, got ${store === null ? "null" : typeof store}`)
}

/**
 * The names a store keeps its conversations under, besides its location:
 * an SQL store's (`sqlite:PATH`, `postgres://…`) `table` (default
 * `rollmem_conversations`) and `archiveTable` (the archive kept beside the
 * conversations, default `rollmem_archive`), a Redis store's key `prefix`
 * (default `rollmem-conversation:`). The store layers' own options of
 * these names (`layerSqlite`, `layerPg`, `layerRedis`).
 *
 * @since 0.4.0
 */
export interface StoreNames {
  readonly table?: string | undefined
  readonly archiveTable?: string | undefined
  readonly prefix?: string | undefined
}

/**
 * The default table of the SQL archive (beside the store's
 * `rollmem_conversations`).
 *
 * @since 0.4.0
 */
export const DEFAULT_ARCHIVE_TABLE = "rollmem_archive"

/**
 * The keys of {@link StoreNames}, in the order refusals list them.
 *
 * @since 0.4.0
 */
export const STORE_NAME_KEYS: ReadonlyArray<keyof StoreNames> = ["table", "archiveTable", "prefix"]

const SQL_NAMES = "applies to an SQL store (sqlite:PATH, postgres://…)"
const REDIS_NAMES = "applies to a Redis store (redis://…)"

/**
 * The refusal of {@link StoreNames} given with a store, if any (a
 * `ConfigError`'s option and description), one rule for
 * `ConversationStore.layerLocation` and the facade's `Conversations` (both
 * lines), in the order of {@link STORE_NAME_KEYS}: a name that is
 * not a non-empty string (`must be a non-empty string, got ""`); a table
 * given for a store that is not SQL, a prefix for one that is not Redis
 * (`applies to an SQL store (sqlite:PATH, postgres://…), not to
 * redis://cache:6379`); any of them with a store layer (`undefined`), which
 * takes its names in its own options. `names` may be any value (the facade
 * checks untyped options); a key absent or `undefined` is not given.
 *
 * @example
 * ```ts
 * storeNamesProblem({ _tag: "Redis", url: "redis://cache:6379" }, { table: "chat" })
 * // { option: "table", description: "applies to an SQL store (sqlite:PATH, postgres://…), not to redis://cache:6379" }
 * storeNamesProblem({ _tag: "Sqlite", filename: "c.db" }, { table: "chat", archiveTable: "chat_archive" }) // undefined
 * ```
 *
 * @since 0.4.0
 */
export const storeNamesProblem = (
  store: Location | undefined,
  names: { readonly [K in keyof StoreNames]?: unknown },
  option: (key: keyof StoreNames) => string = (key) => key
): Problem | undefined => {
  if (typeof names === "object" && names !== null) {
    const unknown = Object.keys(names).find((key) => !(STORE_NAME_KEYS as ReadonlyArray<string>).includes(key))
    if (unknown !== undefined) return { option: unknown, description: unknownOption(STORE_NAME_KEYS) }
  }
  for (const key of STORE_NAME_KEYS) {
    const value = names[key]
    if (value === undefined) continue
    if (typeof value !== "string" || value === "") {
      return {
        option: option(key),
        description: `must be a non-empty string, got ${
          value === "" ? "\"\"" : value === null ? "null" : Array.isArray(value) ? "an array" : typeof value
        }`
      }
    }
    const sql = key !== "prefix"
    const where = store === undefined ? STORE_LAYER : describeLocation(store)
    if (store === undefined) {
      return {
        option: option(key),
        description: `applies to a store given as a location, not to ${where}: give it to the layer's own options`
      }
    }
    const fits = sql ? store._tag === "Sqlite" || store._tag === "Postgres" : store._tag === "Redis"
    if (!fits) return { option: option(key), description: `${sql ? SQL_NAMES : REDIS_NAMES}, not to ${where}` }
  }
  const table = names.table ?? DEFAULT_TABLE
  if (
    (names.table !== undefined || names.archiveTable !== undefined) &&
    (names.archiveTable ?? DEFAULT_ARCHIVE_TABLE) === table
  ) {
    return {
      option: option(names.archiveTable !== undefined ? "archiveTable" : "table"),
      description: `must differ from ${names.archiveTable !== undefined ? "table" : "archiveTable"} (both are ${
        JSON.stringify(table)
      }): the archive is kept in a table of its own`
    }
  }
  return undefined
}

/**
 * The problem of a value given as a parsed {@link Location} that is none
 * (option `location`): a location string (`"sqlite:c.db"`) given where
 * `parseLocation`'s result is expected, or any other value, from code
 * without types; `undefined` for a location.
 *
 * @example
 * ```ts
 * locationValueProblem("sqlite:c.db")
 * // { option: "location", description: "expected a location read by parseLocation (ConversationStore.parseLocation(\"sqlite:c.db\")), got a string" }
 * locationValueProblem({ _tag: "Memory" }) // undefined
 * ```
 *
 * @since 0.4.0
 */
export const locationValueProblem = (value: unknown): Problem | undefined => {
  if (typeof value === "object" && value !== null) {
    const location = value as { readonly _tag?: unknown; readonly filename?: unknown; readonly url?: unknown }
    if (location._tag === "Memory") return undefined
    if (location._tag === "Sqlite" && typeof location.filename === "string") return undefined
    if ((location._tag === "Postgres" || location._tag === "Redis") && typeof location.url === "string") {
      return undefined
    }
  }
  return {
    option: "location",
    description: typeof value === "string"
      ? `expected a location read by parseLocation (ConversationStore.parseLocation(${
        JSON.stringify(value)
      })), got a string`
      : `expected a location read by parseLocation, got ${describeValue(value)}`
  }
}

/**
 * What `Conversations` calls a store layer given as its `store` option, in messages.
 *
 * @since 0.4.0
 */
export const STORE_LAYER = "the store layer"

/**
 * The refusal of a store that could not be opened (option `store`): `cannot
 * open sqlite:/tmp/c.db: ...`, naming the store as {@link describeLocation}
 * does, and the error's message.
 *
 * @example
 * ```ts
 * cannotOpen("redis://:***@cache:6379", new Error("connect ECONNREFUSED")).description
 * // "cannot open redis://:***@cache:6379: connect ECONNREFUSED"
 * ```
 *
 * @since 0.4.0
 */
export const cannotOpen = (store: string, error: unknown): Problem => ({
  option: "store",
  description: `cannot open ${store}: ${error instanceof Error ? error.message : String(error)}`
})

/**
 * The description of a `DisposedError` of `Conversations` used after `dispose()`.
 *
 * @since 0.4.0
 */
export const CONVERSATIONS_DISPOSED =
  "these Conversations were disposed: create a new Conversations to use the store again"

/**
 * The description of a `DisposedError` of a conversation's memory changed
 * after its `use()` call ended (nothing of it would be saved).
 *
 * @example
 * ```ts
 * memoryAfterUse("c") // "the memory of conversation \"c\" belongs to a use() call that has ended: ..."
 * ```
 *
 * @since 0.4.0
 */
export const memoryAfterUse = (id: string): string =>
  `the memory of conversation ${
    JSON.stringify(id)
  } belongs to a use() call that has ended: what is added now would never be saved; add inside the use() callback`

/**
 * The refusal of `recall` (and of `archive: true`) on a store that keeps no
 * archive (option `archive`).
 *
 * @since 0.4.0
 */
export const noArchive: Problem = {
  option: "archive",
  description: "this store keeps no archive: use a store of rollmem/store"
}

/**
 * The keys `Conversations` takes besides a strategy's own, in the order its
 * refusal of an unknown key lists them (after the strategy's): `retry`,
 * `archive`, `store`, `table`, `archiveTable`, `prefix`, `summarize`,
 * `tokenCounter`, `timeout`.
 *
 * @since 0.4.0
 */
export const CONVERSATIONS_KEYS: ReadonlyArray<string> = [
  "retry",
  "archive",
  "store",
  ...STORE_NAME_KEYS,
  "summarize",
  "tokenCounter",
  "timeout"
]
