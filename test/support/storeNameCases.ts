/**
 * The names a store keeps its conversations under, given with a location
 * (docs/contract.md section 12.2): `table` and `archiveTable` for an SQL
 * store, `prefix` for Redis, on `ConversationStore.layerLocation` and the
 * facade's `Conversations` (`core/location.ts` `storeNamesProblem`). The
 * cases and their exact values are here once; each line runs them with its
 * own classes and layers (test/store/storeNames.test.ts,
 * effect4/test/store/storeNames.test.ts), on SQLite, PostgreSQL and Redis.
 */
import type { Vitest } from "./adapterCases.js"

let counter = 0
/** A name no other test (or parallel run) uses. */
export const unique = (): string => `${process.pid}_${Date.now().toString(36)}_${counter++}`

/** The names given: any value (the facade checks untyped options). */
export interface Names {
  readonly table?: unknown
  readonly archiveTable?: unknown
  readonly prefix?: unknown
  /** A key no store takes (misspelt), for the refusals of layerLocation. */
  readonly [misspelt: string]: unknown
}

/** What a line's `Conversations` does that the cases use. */
export interface ConversationsLike {
  use<A>(
    id: string,
    fn: (memory: {
      addUserMessage(content: string): Promise<void>
      addAssistantMessage(content: string): Promise<void>
    }) => Promise<A>
  ): Promise<A>
  load(id: string): Promise<unknown>
  recall(
    id: string,
    query: string
  ): Promise<ReadonlyArray<{ readonly position: number; readonly fold: number; readonly message: unknown }>>
  dispose(): Promise<void>
}

/** How one line runs the cases. */
export interface StoreNamesLine {
  readonly name: "effect3" | "effect4"
  /** `new Conversations(options)`, the options unchecked by the compiler. */
  readonly conversations: (options: unknown) => ConversationsLike
  /** The `ConfigError` (option, description) `f` throws, or a failure of the test. */
  readonly configError: (f: () => unknown) => { readonly option: string; readonly description: string }
  /** A store layer of one's own (`ConversationStore.layerMemory`), as `store`. */
  readonly storeLayer: unknown
  /** `layerLocation(parseLocation(store), names)` built, conversation `id` loaded (`{ revision, state }` as JSON) or its failure. */
  readonly layerLoad: (
    store: string,
    names: Names,
    id: string
  ) => Promise<
    | { readonly _tag: "Loaded"; readonly stored: unknown }
    | { readonly _tag: "ConfigError"; readonly option: string; readonly description: string }
  >
}

/** Refusals of `Conversations` (option, description), the same with `layerLocation` where the store is a location. */
export const refusals: ReadonlyArray<{
  readonly name: string
  readonly store: "sqlite" | "redis" | "memory" | "layer"
  readonly names: Names
  readonly option: string
  readonly description: string
}> = [
  {
    name: "an empty table",
    store: "sqlite",
    names: { table: "" },
    option: "table",
    description: "must be a non-empty string, got \"\""
  },
  {
    name: "a table that is a number",
    store: "sqlite",
    names: { table: 42 },
    option: "table",
    description: "must be a non-empty string, got number"
  },
  {
    name: "a null archive table",
    store: "sqlite",
    names: { archiveTable: null },
    option: "archiveTable",
    description: "must be a non-empty string, got null"
  },
  {
    name: "a prefix that is an array",
    store: "redis",
    names: { prefix: ["a"] },
    option: "prefix",
    description: "must be a non-empty string, got an array"
  },
  {
    name: "a table for Redis",
    store: "redis",
    names: { table: "chat" },
    option: "table",
    description: "applies to an SQL store (sqlite:PATH, postgres://…), not to redis://:***@cache.invalid:6379"
  },
  {
    name: "an archive table for memory",
    store: "memory",
    names: { archiveTable: "chat_archive" },
    option: "archiveTable",
    description: "applies to an SQL store (sqlite:PATH, postgres://…), not to memory"
  },
  {
    name: "a prefix for SQLite",
    store: "sqlite",
    names: { table: "chat", prefix: "chat:" },
    option: "prefix",
    description: "applies to a Redis store (redis://…), not to sqlite:never-opened.db"
  },
  {
    name: "a table and an archive table that are one",
    store: "sqlite",
    names: { table: "same", archiveTable: "same" },
    option: "archiveTable",
    description: "must differ from table (both are \"same\"): the archive is kept in a table of its own"
  },
  {
    name: "an archive table that is the default table",
    store: "sqlite",
    names: { archiveTable: "rollmem_conversations" },
    option: "archiveTable",
    description:
      "must differ from table (both are \"rollmem_conversations\"): the archive is kept in a table of its own"
  },
  {
    name: "a table that is the default archive table",
    store: "sqlite",
    names: { table: "rollmem_archive" },
    option: "table",
    description:
      "must differ from archiveTable (both are \"rollmem_archive\"): the archive is kept in a table of its own"
  },
  {
    name: "a table with a store layer",
    store: "layer",
    names: { table: "chat" },
    option: "table",
    description: "applies to a store given as a location, not to the store layer: give it to the layer's own options"
  }
]

/** Refusals of `layerLocation` alone (`Conversations` refuses an unknown key among all its options). */
export const layerOnlyRefusals: ReadonlyArray<(typeof refusals)[number]> = [
  {
    name: "a misspelt table key",
    store: "sqlite",
    names: { tabel: "chat" },
    option: "tabel",
    description: "unknown option (known: table, archiveTable, prefix)"
  },
  {
    name: "a misspelt prefix key",
    store: "redis",
    names: { prefx: "chat:" },
    option: "prefx",
    description: "unknown option (known: table, archiveTable, prefix)"
  }
]

const locationOf = (store: "sqlite" | "redis" | "memory"): string =>
  store === "sqlite" ? "sqlite:never-opened.db" : store === "redis" ? "redis://:secret@cache.invalid:6379" : "memory"

/** Registers the refusals on `line`: nothing is opened (the SQLite file is never created, the host never asked). */
export const runRefusals = (line: StoreNamesLine, { assert, describe, it }: Vitest): void => {
  describe(`store names refused (${line.name})`, () => {
    for (const c of refusals) {
      it(`Conversations: ${c.name}`, () => {
        const store = c.store === "layer" ? line.storeLayer : locationOf(c.store)
        assert.deepStrictEqual(
          line.configError(() => line.conversations({ store, strategy: "buffer", ...c.names })),
          { option: c.option, description: c.description }
        )
      })
    }
  })
}

/**
 * Registers, for `line`, the layerLocation refusals (async: the layer fails
 * when built, before it opens anything).
 */
export const layerRefusals = (line: StoreNamesLine) =>
  Promise.all(
    [...refusals, ...layerOnlyRefusals].filter((c) => c.store !== "layer").map(async (c) => ({
      name: c.name,
      got: await line.layerLoad(locationOf(c.store as "sqlite" | "redis" | "memory"), c.names, "x"),
      expected: { _tag: "ConfigError" as const, option: c.option, description: c.description }
    }))
  )

/**
 * Two memories kept apart in one store by their names: a conversation
 * written under `names` (rolling, `archive: true`: "a b c" folded into the
 * archive) is read back under them, by `Conversations` and by
 * `layerLocation`, and is absent under the default names. Returns the
 * conversation's id (unique), for the caller's check of the database's
 * own listing.
 */
export const keptApart = async (
  line: StoreNamesLine,
  store: string,
  names: Names,
  assert: Vitest["assert"]
): Promise<string> => {
  const id = `names-${unique()}`
  const named = line.conversations({
    store,
    ...names,
    strategy: "rolling",
    maxTokens: 4,
    summarize: "drop",
    archive: true
  })
  await named.use(id, async (memory) => {
    await memory.addUserMessage("a b c")
    await memory.addAssistantMessage("d e")
  })
  const state = {
    version: 3,
    summary: "",
    buffer: [{ role: "assistant", content: "d e" }],
    conversationId: id,
    positions: [1],
    nextPosition: 2
  }
  assert.deepStrictEqual(await named.load(id), state)
  assert.deepStrictEqual(
    (await named.recall(id, "a b c")).map((m) => ({
      position: m.position,
      fold: m.fold,
      message: JSON.parse(JSON.stringify(m.message))
    })),
    [{ position: 0, fold: 1, message: { role: "user", content: "a b c" } }]
  )
  await named.dispose()
  const plain = line.conversations({ store, strategy: "buffer" })
  assert.strictEqual(await plain.load(id), undefined)
  await plain.dispose()
  assert.deepStrictEqual(await line.layerLoad(store, names, id), { _tag: "Loaded", stored: { revision: 1, state } })
  assert.deepStrictEqual(await line.layerLoad(store, {}, id), { _tag: "Loaded", stored: undefined })
  return id
}
