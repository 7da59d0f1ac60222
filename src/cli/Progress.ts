/**
 * The progress bar of `rollmem replay`, drawn on stderr when stderr is a
 * terminal and the run holds more than {@link THRESHOLD} messages, so that
 * stdout stays clean for the report and pipes never see it.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

/**
 * Where the bar is drawn: whether it is a terminal, and how to write to it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly isTTY: boolean
  readonly write: (text: string) => Effect.Effect<void>
}

/**
 * The bar's output. Defaults to the process's stderr.
 *
 * @since 0.1.0
 * @category tags
 */
export class ProgressOutput extends Context.Reference<ProgressOutput>()("rollmem/cli/ProgressOutput", {
  defaultValue: (): Service => ({
    isTTY: process.stderr.isTTY === true,
    write: (text) =>
      Effect.sync(() => {
        process.stderr.write(text)
      })
  })
}) {}

/**
 * The bar is shown for runs of more than this many messages.
 *
 * @since 0.1.0
 * @category constants
 */
export const THRESHOLD = 300

/**
 * The bar is shown for inputs of more than this many bytes, when progress
 * is counted in bytes (a streamed input: 1 MiB).
 *
 * @since 0.2.0
 * @category constants
 */
export const THRESHOLD_BYTES = 2 ** 20

/**
 * What progress is counted in: messages replayed, or bytes of input read
 * (a streamed input, whose messages are not known in advance).
 *
 * @since 0.2.0
 * @category models
 */
export type Unit = "messages" | "bytes"

const WIDTH = 30

/**
 * Whether to show the bar: stderr is a terminal and the run has more than
 * {@link THRESHOLD} messages.
 *
 * @since 0.1.0
 * @category guards
 */
export const shouldShow = (isTTY: boolean, total: number, unit: Unit = "messages"): boolean =>
  isTTY && total > (unit === "bytes" ? THRESHOLD_BYTES : THRESHOLD)

const MiB = 2 ** 20

/**
 * One frame of the bar: carriage return, `[####------] done/total messages`
 * (or `done/total MB` when counted in bytes).
 *
 * @since 0.1.0
 * @category combinators
 */
export const frame = (done: number, total: number, unit: Unit = "messages"): string => {
  const filled = total === 0 ? WIDTH : Math.min(WIDTH, Math.floor((done / total) * WIDTH))
  const count = unit === "bytes"
    ? `${(done / MiB).toFixed(0)}/${(total / MiB).toFixed(0)} MB`
    : `${done}/${total} messages`
  return `\r[${"#".repeat(filled)}${"-".repeat(WIDTH - filled)}] ${count}`
}

/**
 * A bar for a run of `total` messages (or bytes of input, `unit: "bytes"`): `update` draws a frame when the
 * filled width changes, `done` erases the line. Both do nothing when the bar
 * is not to be shown (see {@link shouldShow}).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (total: number, unit: Unit = "messages"): Effect.Effect<{
  readonly update: (done: number, total: number) => Effect.Effect<void>
  readonly done: Effect.Effect<void>
}> =>
  Effect.map(ProgressOutput, (output) => {
    if (!shouldShow(output.isTTY, total, unit)) return { update: () => Effect.void, done: Effect.void }
    let last = ""
    return {
      update: (done, all) =>
        Effect.suspend(() => {
          const text = frame(done, all, unit)
          const bar = text.slice(0, WIDTH + 3)
          if (bar === last.slice(0, WIDTH + 3) && done !== all) return Effect.void
          last = text
          return output.write(text)
        }),
      done: Effect.suspend(() => last === "" ? Effect.void : output.write("\r\x1b[K"))
    }
  })
