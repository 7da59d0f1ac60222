/**
 * Archives for the Promise facade (docs/contract.md section 17): where a
 * facade memory's `archive` option writes the messages that leave its
 * buffer, and what `recall` searches. `memory()` keeps them in this
 * process (any class takes it); `sqlite(filename)` and `postgres(url)` keep
 * them in a database (SQLite FTS5, PostgreSQL full-text search), which
 * needs I/O: the asynchronous classes take them, a synchronous class
 * refuses them with `ConfigError` naming the class to use.
 *
 * @example
 * ```ts
 * import { Archive, AsyncRollingMemory } from "rollmem/promise"
 *
 * const archive = Archive.sqlite("archive.db")
 * const memory = new AsyncRollingMemory({ maxTokens: 8000, summarize: "drop", archive, conversationId: "chat-42" })
 * await memory.addUserMessage("the tests in src/cli/Measure.ts fail")
 * const matches = await memory.recall("src/cli/Measure.ts", { limit: 5 })
 * await archive.close()
 * ```
 *
 * @since 0.4.0
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Archives from "../services/Archive.js"
import * as SqlArchive from "../store/backends/SqlArchive.js"
import { squash } from "./internal.js"

/**
 * An archive of the facade: give it as a memory's `archive` option; search
 * it with `search` and `messages` (Promises); `close()` closes its database
 * connections (nothing for `memory()`). `kind` says where it keeps the
 * messages; `service` is the Effect API's archive it runs on.
 *
 * @since 0.4.0
 * @category models
 */
export interface Archive {
  readonly kind: "memory" | "sqlite" | "postgres"
  readonly service: Archives.Service
  /** The archived messages of a conversation that match `query`, best first (`Archive.search` of the Effect API). */
  readonly search: (
    conversationId: string,
    query: string,
    options?: Archives.SearchOptions
  ) => Promise<ReadonlyArray<Archives.Match>>
  /** Every archived message of a conversation, in position order. */
  readonly messages: (conversationId: string) => Promise<ReadonlyArray<Archives.Archived>>
  /** Closes the database connections; the archive is unusable after. */
  readonly close: () => Promise<void>
}

const run = async <A, E>(effect: Effect.Effect<A, E>): Promise<A> => squash(await Effect.runPromiseExit(effect))

const facade = (kind: Archive["kind"], service: Archives.Service, close: () => Promise<void>): Archive => ({
  kind,
  service,
  search: (conversationId, query, options) => run(service.search(conversationId, query, options)),
  messages: (conversationId) => run(service.messages(conversationId)),
  close
})

/**
 * An archive in this process's memory (`Archive.makeMemory()` of the Effect
 * API): synchronous, so every facade class takes it.
 *
 * @example
 * ```ts
 * import { Archive, RollingMemory } from "rollmem/promise"
 *
 * const memory = new RollingMemory({ maxTokens: 50, summarize: "drop", archive: Archive.memory(), conversationId: "c1" })
 * memory.recall("invoice", { limit: 3 }) // the evicted turns that match, best first
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const memory = (): Archive => facade("memory", Archives.makeMemory(), () => Promise.resolve())

// An archive whose service is built from `layer` on first use, in a runtime of its own that `close()` disposes.
const layered = (kind: Archive["kind"], layer: Layer.Layer<Archives.Archive, unknown>): Archive => {
  const runtime = ManagedRuntime.make(layer)
  // a layer that cannot be built (a failure, or a defect such as a driver not installed) is the archive's
  // typed error, naming the cause: never a bare Error
  const service = Effect.catchAllCause(
    Effect.map(runtime.runtimeEffect, (rt) => Context.get(rt.context, Archives.Archive)),
    (cause) => {
      const error = Cause.squash(cause)
      return Effect.fail(
        Archives.failed(
          `cannot open the ${kind} archive: ${error instanceof Error ? error.message : String(error)}`,
          error
        )
      )
    }
  )
  const via = <A, E>(f: (s: Archives.Service) => Effect.Effect<A, E>) => Effect.flatMap(service, f)
  return facade(kind, {
    append: (conversationId, entries) => via((s) => s.append(conversationId, entries)),
    search: (conversationId, query, options) => via((s) => s.search(conversationId, query, options)),
    messages: (conversationId) => via((s) => s.messages(conversationId))
  }, () => runtime.dispose())
}

/**
 * Where a database archive keeps its rows: `table`, its table (default
 * `rollmem_archive`), created if missing with its full-text index. Declared
 * here rather than taken from the store's `SqlArchive.Options`, so that a
 * project importing `rollmem/promise` type-checks without the optional
 * peers' types (`@effect/sql`) installed.
 *
 * @since 0.4.0
 * @category models
 */
export interface DatabaseOptions {
  readonly table?: string | undefined
}

/**
 * An archive in an SQLite file (FTS5), through `@effect/sql-sqlite-node` (an
 * optional peer: `npm i @effect/sql-sqlite-node@0.53.0`), opened on first
 * use. The asynchronous classes take it.
 *
 * @example
 * ```ts
 * import { Archive, AsyncRollingMemory } from "rollmem/promise"
 *
 * // needs @effect/sql-sqlite-node; the async classes only (a database needs I/O)
 * const memory = new AsyncRollingMemory({ maxTokens: 2000, summarize: "drop", archive: Archive.sqlite("archive.db") })
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const sqlite = (filename: string, options?: DatabaseOptions): Archive =>
  layered("sqlite", SqlArchive.layerSqlite({ ...options, filename }))

/**
 * An archive in PostgreSQL (`tsvector` with a GIN index), through
 * `@effect/sql-pg` (an optional peer: `npm i @effect/sql-pg@0.53.0`),
 * connected on first use. The asynchronous classes take it.
 *
 * @example
 * ```ts
 * import { Archive, AsyncRollingMemory } from "rollmem/promise"
 *
 * // needs @effect/sql-pg; the async classes only
 * const archive = Archive.postgres("postgres://localhost/app")
 * const memory = new AsyncRollingMemory({ maxTokens: 2000, summarize: "drop", archive, conversationId: "c1" })
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const postgres = (
  url: string,
  options?: DatabaseOptions & { readonly maxConnections?: number | undefined }
): Archive => layered("postgres", SqlArchive.layerPg({ ...options, url }))

/**
 * Whether an archive writes at once (`memory()`), which a synchronous class
 * needs.
 *
 * @example
 * ```ts
 * import { Archive } from "rollmem/promise"
 *
 * Archive.isSync(Archive.memory()) // true: a synchronous RollingMemory can take it
 * Archive.isSync(Archive.sqlite("archive.db")) // false: for AsyncRollingMemory
 * ```
 *
 * @since 0.4.0
 * @category predicates
 */
export const isSync = (archive: Archive): boolean => archive.service.appendSync !== undefined
