/**
 * Preloaded (`node --import`) into a `rollmem` child process: sends the
 * process `$ROLLMEM_TEST_SIGNAL` (default SIGINT) as soon as the first
 * module of Effect is resolved, that is while the command line's modules
 * are still loading, before anything is read or replayed.
 */
import { register } from "node:module"
import { MessageChannel } from "node:worker_threads"

const { port1, port2 } = new MessageChannel()
port1.once("message", () => {
  port1.close()
  process.kill(process.pid, (process.env.ROLLMEM_TEST_SIGNAL ?? "SIGINT") as NodeJS.Signals)
})
port1.unref()
register("./signalOnLoadHooks.mjs", import.meta.url, { data: { port: port2 }, transferList: [port2] })
