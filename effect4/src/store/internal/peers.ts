/**
 * Loading a store's optional peer dependency (a database driver) when its
 * layer is built, never when `rollmem/store` is imported, and out of a
 * bundler's sight, as the Effect 3 line's `src/store/internal/peers.ts`
 * does, with the same package rule and message (`core/peers.ts`); the
 * Effect 4 drivers' version table and the `import()` (which resolves from
 * here, beside this package) are this line's. A missing driver is a defect naming the exact
 * install (a bare `npm i @effect/sql-pg` would pull the line of another
 * `effect`).
 *
 * @internal
 */
import type * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import type * as IORedis from "ioredis"
import * as Peers from "../../../../src/core/peers.js"

/** The versions of the optional peers a store loads, as the hint of a missing one pins them. */
export const PEERS = {
  "@effect/sql-pg": "@effect/sql-pg@4.0.5",
  "ioredis": "ioredis@5.9.2"
} as const

/** The peers' modules a store loads, each with what it gives. */
export interface Modules {
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
 *
 * @internal
 */
export const importModule = <S extends keyof Modules>(specifier: S): Effect.Effect<Modules[S]> =>
  Effect.orDie(Effect.tryPromise({
    try: () => load(specifier) as Promise<Modules[S]>,
    catch: (cause) => Peers.notInstalled(specifier, PEERS, cause)
  }))
