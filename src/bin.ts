/**
 * The `rollmem` executable (built to `dist/bin.js`). Every expected failure
 * was already printed as one line on stderr: it only sets the exit code.
 * Defects (bugs) are reported with their trace.
 *
 * @since 0.1.0
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import { cli } from "./cli/Command.js"

const main = cli(process.argv).pipe(
  Effect.catchAll(() =>
    Effect.sync(() => {
      process.exitCode = 1
    })
  ),
  Effect.provide(NodeContext.layer)
)

NodeRuntime.runMain(main)
