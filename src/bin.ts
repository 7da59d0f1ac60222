/**
 * The `rollmem` executable (built to `dist/bin.js`). Every expected failure
 * (a command line that does not parse, an unreadable input, a bad value) was
 * already printed on stderr: it only sets exit code 1.
 * Defects (bugs) are reported with their trace.
 *
 * SIGINT or SIGTERM interrupts the command where it stands (nothing more is
 * written: no report, no HTML file), prints `rollmem: interrupted (SIGINT)`
 * on stderr and exits with 128 plus the signal's number: 130 for SIGINT, 143
 * for SIGTERM, as a shell reports a command killed by it.
 *
 * @since 0.1.0
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { defaultTeardown, type Teardown } from "@effect/platform/Runtime"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Colour from "./cli/Colour.js"
import { cli } from "./cli/Command.js"
import { interruptedLine, signalExitCode, type StopSignal } from "./cli/Failure.js"

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

// The runtime interrupts the command on either signal; which one it was sets the exit code.
let received: StopSignal | undefined
const onSignal = (signal: StopSignal) => () => {
  received ??= signal
}
process.once("SIGINT", onSignal("SIGINT"))
process.once("SIGTERM", onSignal("SIGTERM"))

const teardown: Teardown = (exit, onExit) => {
  if (received !== undefined && Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)) {
    process.stderr.write(`${interruptedLine(received)}\n`)
    return onExit(signalExitCode(received))
  }
  defaultTeardown(exit, onExit)
}

NodeRuntime.runMain(main, { teardown })
