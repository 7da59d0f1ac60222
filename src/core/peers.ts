/**
 * Loading a store's optional peer dependency (a database driver), the part
 * both lines share, pure (no `effect` import): the package of a module and
 * the error of a missing one naming the exact install (docs/contract.md
 * section 12). Each line's `store/internal/peers.ts` keeps its own version
 * table and its own `import()`: a bare specifier resolves from the module
 * that imports it, and each line's drivers are those beside its own package
 * (in this repository, `effect4/node_modules` holds the Effect 4 drivers).
 *
 * @since 0.4.0
 */

/**
 * The package of a peer's module: `@effect/sql-pg/PgClient` is in
 * `@effect/sql-pg`, `ioredis` in `ioredis`.
 *
 * @example
 * ```ts
 * packageOf("@effect/sql-pg/PgClient") // "@effect/sql-pg"
 * packageOf("ioredis") // "ioredis"
 * ```
 *
 * @since 0.4.0
 */
export const packageOf = (specifier: string): string =>
  specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]

/**
 * The error of a peer that could not be loaded: `rollmem/store: ioredis is
 * not installed (npm i ioredis@5.9.2)`, the install pinned by `peers` (the
 * line's version table, package → `package@version`), `cause` the loader's
 * error.
 *
 * @example
 * ```ts
 * notInstalled("ioredis", { ioredis: "ioredis@5.9.2" }, undefined).message
 * // "rollmem/store: ioredis is not installed (npm i ioredis@5.9.2)"
 * ```
 *
 * @since 0.4.0
 */
export const notInstalled = (specifier: string, peers: Readonly<Record<string, string>>, cause: unknown): Error => {
  const what = packageOf(specifier)
  return new Error(`rollmem/store: ${what} is not installed (npm i ${peers[what] ?? what})`, { cause })
}
