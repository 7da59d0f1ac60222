/**
 * Loading a store's optional peer, shared by both lines (`src/core/peers.ts`,
 * docs/contract.md section 12): the package of a module, the error of a
 * missing one with the install a line's version table pins.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Peers from "../../src/core/peers.js"
import { PEERS as EFFECT3 } from "../../src/store/internal/peers.js"

describe("core/peers", () => {
  it("packageOf: a scoped package is its first two segments, any other its first", () => {
    assert.deepStrictEqual(
      ["@effect/sql-pg/PgClient", "@effect/sql/SqlError", "ioredis", "ioredis/built/cluster", "@effect/sql-pg"].map(
        Peers.packageOf
      ),
      ["@effect/sql-pg", "@effect/sql", "ioredis", "ioredis", "@effect/sql-pg"]
    )
  })

  it("notInstalled: names the package and the pinned install of the line's table, keeps the cause", () => {
    const cause = new Error("Cannot find package '@effect/sql-pg'")
    const error = Peers.notInstalled("@effect/sql-pg/PgClient", EFFECT3, cause)
    assert.strictEqual(error.message, "rollmem/store: @effect/sql-pg is not installed (npm i @effect/sql-pg@0.53.0)")
    assert.strictEqual(error.cause, cause)
    assert.strictEqual(
      Peers.notInstalled("ioredis", { "ioredis": "ioredis@5.9.2" }, undefined).message,
      "rollmem/store: ioredis is not installed (npm i ioredis@5.9.2)"
    )
    // a package the table does not pin is named as it is
    assert.strictEqual(
      Peers.notInstalled("left-pad", {}, undefined).message,
      "rollmem/store: left-pad is not installed (npm i left-pad)"
    )
  })
})
