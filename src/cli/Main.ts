/**
 * The `rollmem` executable's run, loaded by `bin.ts` once it listens for
 * stop signals (`Signals.ts`). Every expected failure (a command line that
 * does not parse, an unreadable input, a bad value) was already printed on
 * stderr: it only sets exit code 1. Defects (bugs) are reported with their
 * trace.
 *
 * SIGINT or SIGTERM, received at any time (while the modules load, before
 * the first conversation is read or replayed, or later), stops the command
 * where it stands (nothing more is written: no report, no HTML file),
 * prints `rollmem: interrupted (SIGINT)` on stderr and exits with 128 plus
 * the signal's number: 130 for SIGINT, 143 for SIGTERM, as a shell reports a
 * command killed by it.
 *
 * @since 0.4.0
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { defaultTeardown, type Teardown } from "@effect/platform/Runtime"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Colour from "./Colour.js"
import { cli } from "./Command.js"
import { interruptedLine, signalExitCode, type StopSignal } from "./Failure.js"
import * as Signals from "./Signals.js"

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

const stop = (signal: StopSignal, onExit: (code: number) => void) => {
  process.stderr.write(`${interruptedLine(signal)}\n`)
  onExit(signalExitCode(signal))
}

// The runtime interrupts the command on either signal; which one it was sets the exit code. A signal
// that came while the modules loaded (the runtime was not listening yet) ends the command before it starts.
const early = Signals.received()
if (early !== undefined) {
  stop(early, (code) => process.exit(code))
} else {
  const teardown: Teardown = (exit, onExit) => {
    const received = Signals.received()
    if (received !== undefined && Exit.isFailure(exit) && Cause.isInterrupted(exit.cause)) {
      return stop(received, onExit)
    }
    defaultTeardown(exit, onExit)
  }
  NodeRuntime.runMain(main, { teardown })
}
