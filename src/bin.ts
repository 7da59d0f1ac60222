/**
 * The `rollmem` executable (built to `dist/bin.js`). Every expected failure
 * (a command line that does not parse, an unreadable input, a bad value) was
 * already printed on stderr: it only sets exit code 1.
 * Defects (bugs) are reported with their trace.
 *
 * @since 0.1.0
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Colour from "./cli/Colour.js"
import { cli } from "./cli/Command.js"

const main = cli(process.argv).pipe(
  Effect.catchAll(() =>
    Effect.sync(() => {
      process.exitCode = 1
    })
  ),
  // --help and parse errors in colour on a terminal only (and never with NO_COLOR)
  Colour.withColour({
    stdout: Colour.useColour(process.stdout.isTTY, process.env),
    stderr: Colour.useColour(process.stderr.isTTY, process.env)
  }),
  Effect.provide(NodeContext.layer)
)

NodeRuntime.runMain(main)
