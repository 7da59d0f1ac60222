/**
 * The SQLite driver is a native library: importing the core, or even
 * `rollmem/store`, must not load it; building the SQLite layer does.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"

const ROOT = fileURLToPath(new URL("../../", import.meta.url))
const PROBE = fileURLToPath(new URL("./fixtures/probe.ts", import.meta.url))

describe("imports", () => {
  it.effect("neither rollmem nor rollmem/store loads SQLite until its layer is built", () =>
    Effect.gen(function*() {
      const stdout = yield* Effect.async<string, Error>((resume) => {
        execFile(process.execPath, ["--import", "tsx", PROBE], { cwd: ROOT }, (error, out, err) =>
          resume(error === null ? Effect.succeed(out) : Effect.fail(new Error(`${error.message}\n${err}`))))
      })
      assert.deepStrictEqual(JSON.parse(stdout), {
        afterCore: [],
        afterStore: [],
        afterLayer: ["better_sqlite3.node"]
      })
    }), 60_000)
})
