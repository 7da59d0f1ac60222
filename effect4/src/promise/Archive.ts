/**
 * Archives for the Promise facade on the Effect 4 line (docs/contract.md
 * section 17), as the Effect 3 facade's: where a facade memory's `archive`
 * option writes the messages that leave its buffer, and what `recall`
 * searches. `memory()` keeps them in this process (any class takes it);
 * `sqlite(filename)` (Node's own `node:sqlite`) and `postgres(url)`
 * (`@effect/sql-pg` 4) keep them in a database, which needs I/O: the
 * asynchronous classes take them, a synchronous class refuses them with
 * `ConfigError` naming the class to use.
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
 * @since 1.0.0
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Redacted from "effect/Redacted"
import { SqlClient } from "effect/sql"
import { DEFAULT_ARCHIVE_TABLE } from "../../../src/core/sqlStore.js"
import * as Archives from "../services/Archive.js"
import * as SqlArchive from "../store/backends/SqlArchive.js"
import { makeClient } from "../store/backends/Sqlite.js"
import { importModule } from "../store/internal/peers.js"

/**
 * An archive of the facade: give it as a memory's `archive` option; search
 * it with `search` and `messages` (Promises); `close()` closes its database
 * connections (nothing for `memory()`). `kind` says where it keeps the
 * messages; `service` is the Effect API's archive it runs on.
 *
 * @since 1.0.0
 */
export interface Archive {
  readonly kind: "memory" | "sqlite" | "postgres"
  readonly service: Archives.Service
  /** The archived messages of a conversation that match `query`, best first. */
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

const run = async <A, E>(effect: Effect.Effect<A, E>): Promise<A> => {
  const exit = await Effect.runPromiseExit(effect)
  if (Exit.isSuccess(exit)) return exit.value
  throw Cause.squash(exit.cause)
}

const facade = (kind: Archive["kind"], service: Archives.Service, close: () => Promise<void>): Archive => ({
  kind,
  service,
  search: (conversationId, query, options) => run(service.search(conversationId, query, options)),
  messages: (conversationId) => run(service.messages(conversationId)),
  close
})

/**
 * An archive in this process's memory (`Archive.makeMemory()` of the Effect
 * API): every facade class takes it.
 *
 * @example
 * ```ts
 * import { Archive, RollingMemory } from "rollmem/promise"
 *
 * const memory = new RollingMemory({ maxTokens: 50, summarize: "drop", archive: Archive.memory(), conversationId: "c1" })
 * memory.recall("invoice", { limit: 3 }) // the evicted turns that match, best first
 * ```
 *
 * @since 1.0.0
 */
export const memory = (): Archive => facade("memory", Archives.makeMemory(), () => Promise.resolve())

// An archive whose service is built from `layer` on first use, in a runtime of its own that `close()` disposes.
const layered = (kind: Archive["kind"], layer: Layer.Layer<Archives.Archive, unknown>): Archive => {
  const runtime = ManagedRuntime.make(layer)
  // a layer that cannot be built (a failure, or a defect such as a driver not installed) is the archive's
  // typed error, naming the cause: never a bare Error
  const service = Effect.catchCause(
    Effect.map(runtime.contextEffect, (context) => Context.get(context, Archives.Archive)),
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

// The archive's service on the SqlClient in context, in `table`.
const onClient = (table: string | undefined) =>
  Layer.effect(
    Archives.Archive,
    Effect.map(SqlClient.SqlClient, (sql) => SqlArchive.makeOn(sql, table ?? DEFAULT_ARCHIVE_TABLE).service)
  )

/**
 * Where a database archive keeps its rows: `table`, its table (default
 * `rollmem_archive`, the Effect 3 line's), created if missing with its
 * full-text index.
 *
 * @since 1.0.0
 */
export interface DatabaseOptions {
  readonly table?: string | undefined
}

/**
 * An archive in an SQLite file (FTS5) through Node's own `node:sqlite`
 * (Node 22.13 or later, nothing to install), opened on first use; the
 * Effect 3 line's table and rows. The asynchronous classes take it.
 *
 * @example
 * ```ts
 * import { Archive, AsyncRollingMemory } from "rollmem/promise"
 *
 * // the async classes only (a database needs I/O)
 * const memory = new AsyncRollingMemory({ maxTokens: 2000, summarize: "drop", archive: Archive.sqlite("archive.db") })
 * ```
 *
 * @since 1.0.0
 */
export const sqlite = (filename: string, options?: DatabaseOptions): Archive =>
  layered("sqlite", Layer.provide(onClient(options?.table), Layer.effect(SqlClient.SqlClient, makeClient(filename))))

/**
 * An archive in PostgreSQL (`tsvector` with a GIN index) through
 * `@effect/sql-pg` 4 (an optional peer: `npm i @effect/sql-pg@4.0.5`),
 * connected on first use; the Effect 3 line's table and rows. The
 * asynchronous classes take it.
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
 * @since 1.0.0
 */
export const postgres = (
  url: string,
  options?: DatabaseOptions & { readonly maxConnections?: number | undefined }
): Archive =>
  layered(
    "postgres",
    Layer.unwrap(Effect.map(
      importModule("@effect/sql-pg/PgClient"),
      (PgClient) =>
        Layer.provide(
          onClient(options?.table),
          PgClient.layer({
            url: Redacted.make(url),
            maxConnections: options?.maxConnections,
            applicationName: "rollmem"
          })
        )
    ))
  )

/**
 * Whether an archive writes at once (`memory()`), which a synchronous class
 * needs.
 *
 * @example
 * ```ts
 * import { Archive } from "rollmem/promise"
 *
 * Archive.isSync(Archive.memory()) // true
 * ```
 *
 * @since 1.0.0
 */
export const isSync = (archive: Archive): boolean => archive.kind === "memory"
