/**
 * Running the `rollmem` command in-process for the command-line tests: its
 * console output captured, progress silenced, the exit kept.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Cause, Console, Effect, Exit, Option, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { cli } from "../../src/cli/Command.js"
import * as Progress from "../../src/cli/Progress.js"
import * as Message from "../../src/schema/Message.js"

export const repoRoot = fileURLToPath(new URL("../..", import.meta.url))
export const example = path.join(repoRoot, "examples", "support-chat.jsonl")

export interface Run {
  readonly exit: Exit.Exit<void, unknown>
  readonly stdout: string
  readonly stderr: string
}

const capture = (out: Array<string>, err: Array<string>): Console.Console => {
  const none = () => Effect.void
  const write = (into: Array<string>) => (...args: ReadonlyArray<unknown>) =>
    Effect.sync(() => {
      into.push(args.map(String).join(" "))
    })
  return {
    [Console.TypeId]: Console.TypeId,
    assert: none,
    clear: Effect.void,
    count: none,
    countReset: none,
    debug: none,
    dir: none,
    dirxml: none,
    error: write(err),
    group: none,
    groupEnd: Effect.void,
    info: none,
    log: write(out),
    table: none,
    time: none,
    timeEnd: none,
    timeLog: none,
    trace: none,
    warn: none,
    unsafe: { ...globalThis.console, log: () => {}, error: () => {} }
  }
}

/** Progress output that writes nothing. */
export const quiet: Progress.Service = { isTTY: false, write: () => Effect.void }

/** Runs `rollmem <args>` in-process. */
export const runCli = (args: ReadonlyArray<string>, progress: Progress.Service = quiet): Effect.Effect<Run> =>
  Effect.gen(function*() {
    const out: Array<string> = []
    const err: Array<string> = []
    const exit = yield* cli(["node", "rollmem", ...args]).pipe(
      Effect.withConsole(capture(out, err)),
      Effect.provideService(Progress.ProgressOutput, progress),
      Effect.provide(NodeContext.layer),
      Effect.exit
    )
    return { exit, stdout: out.join("\n"), stderr: err.join("\n") }
  })

/** The typed failure of a run, if it failed with one. */
export const failureOf = (r: Run): unknown =>
  Exit.isFailure(r.exit) ? Option.getOrUndefined(Cause.failureOption(r.exit.cause)) : undefined

const decodeMessages = Schema.decodeUnknownSync(Schema.Array(Message.Message))

/** The conversations of a JSONL file (`{ id, messages }` per line), decoded. */
export const readJsonl = (file: string) =>
  fs.readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "").map((line) => {
    const raw = JSON.parse(line) as { readonly id: string; readonly messages: unknown }
    return { id: raw.id, messages: decodeMessages(raw.messages) }
  })
