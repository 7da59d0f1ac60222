/**
 * The stop signals a `rollmem` process received, listened for from its
 * first line (`bin.ts`), before the command line's modules load: a Ctrl-C
 * while they load, or while the runtime starts, is recorded here instead of
 * killing the process silently, and `Main.ts` ends the command with the
 * interrupted line and exit code (130, or 143 for SIGTERM). This module
 * imports nothing, so that listening starts at once.
 *
 * @since 0.4.0
 */
import type { StopSignal } from "./Failure.js"

let first: StopSignal | undefined

/**
 * Starts listening for SIGINT and SIGTERM (once each); the first received is
 * kept for {@link received}. A listener keeps Node from ending the process
 * on the signal: whoever reads {@link received} ends it.
 *
 * @example
 * ```ts
 * listen()
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const listen = (): void => {
  process.once("SIGINT", () => {
    first ??= "SIGINT"
  })
  process.once("SIGTERM", () => {
    first ??= "SIGTERM"
  })
}

/**
 * The first stop signal received since {@link listen}, if any.
 *
 * @example
 * ```ts
 * const stoppedBy = received() // "SIGINT" after a Ctrl-C, else undefined
 * ```
 *
 * @since 0.4.0
 * @category getters
 */
export const received = (): StopSignal | undefined => first
