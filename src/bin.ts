/**
 * The `rollmem` executable (built to `dist/bin.js`). It listens for SIGINT
 * and SIGTERM first (`cli/Signals.ts`, which imports nothing), then loads
 * and runs the command line (`cli/Main.ts`): a Ctrl-C while the modules
 * load is an interrupted command like any other (`rollmem: interrupted
 * (SIGINT)`, exit code 130; 143 for SIGTERM), never a silent kill.
 *
 * @since 0.1.0
 */
import * as Signals from "./cli/Signals.js"

Signals.listen()
await import("./cli/Main.js")
