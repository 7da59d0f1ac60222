/**
 * Loading a store's optional peer dependency when its layer is built, never
 * when `rollmem/store` is imported.
 *
 * @internal
 */
import * as Effect from "effect/Effect"

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

export const importModule = <A>(load: () => Promise<A>, what: keyof typeof PEERS): Effect.Effect<A> =>
  Effect.orDie(Effect.tryPromise({
    try: load,
    catch: (cause) => new Error(`rollmem/store: ${what} is not installed (npm i ${PEERS[what]})`, { cause })
  }))
