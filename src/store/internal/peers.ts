/**
 * Loading a store's optional peer dependency when its layer is built, never
 * when `rollmem/store` is imported, and out of a bundler's sight: the module
 * is named by a computed specifier (with the comments webpack and Vite read
 * to leave an `import()` alone), so bundling an application that imports
 * `rollmem/promise` or `rollmem/store` without the peers installed succeeds
 * (esbuild, Vite and webpack do not try to resolve it); the peer is loaded
 * from `node_modules` when a store layer is built, as without a bundler.
 * The package of a module and the message of a missing peer are
 * `core/peers.ts`'s, shared with the Effect 4 line; this line's version
 * table and its `import()` stay here.
 *
 * @internal
 */
import type * as PgClient from "@effect/sql-pg/PgClient"
import type * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import type * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlError from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import type * as IORedis from "ioredis"
import * as Peers from "../../core/peers.js"

/**
 * The versions of the optional peers a store loads, as the hint of a
 * missing one pins them (a bare `npm i @effect/sql-pg` would pull the
 * Effect 4 line, which needs another `effect`).
 */
export const PEERS = {
  "@effect/sql": "@effect/sql@0.52.1",
  "@effect/sql-sqlite-node": "@effect/sql-sqlite-node@0.53.0",
  "@effect/sql-pg": "@effect/sql-pg@0.53.0",
  "ioredis": "ioredis@5.9.2"
} as const

/** The peers' modules a store loads, each with what it gives. */
export interface Modules {
  readonly "@effect/sql/SqlClient": typeof SqlClient
  readonly "@effect/sql/SqlError": typeof SqlError
  readonly "@effect/sql-sqlite-node/SqliteClient": typeof SqliteClient
  readonly "@effect/sql-pg/PgClient": typeof PgClient
  readonly "ioredis": typeof IORedis
}

/**
 * `import(specifier)`, which no bundler follows: the specifier is computed, and marked for webpack and Vite.
 * Here, not in `core/peers.ts`: the specifier resolves from this module, beside this line's package.
 */
const load = (specifier: string): Promise<unknown> => import(/* webpackIgnore: true */ /* @vite-ignore */ specifier)

/**
 * Loads a peer's module; a missing peer is a defect naming the package to
 * install (`rollmem/store: ioredis is not installed (npm i ioredis@5.9.2)`).
 */
export const importModule = <S extends keyof Modules>(specifier: S): Effect.Effect<Modules[S]> =>
  Effect.orDie(Effect.tryPromise({
    try: () => load(specifier) as Promise<Modules[S]>,
    catch: (cause) => Peers.notInstalled(specifier, PEERS, cause)
  }))
