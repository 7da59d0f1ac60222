/**
 * How the `rollmem` commands fail: every expected failure becomes one line
 * on stderr, `rollmem: ...`, and the command fails with {@link CliFailure}
 * (exit code 1, `bin.ts`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ConfigError } from "rollmem"
 *
 * const run = reportFailures(Effect.fail(new ConfigError({ option: "--show", description: "no such id" })))
 * // prints "rollmem: invalid option --show: no such id" on stderr, fails with CliFailure
 * ```
 *
 * @since 0.2.0
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

/**
 * The command failed; why was already printed on stderr as one line.
 *
 * @since 0.1.0
 * @category errors
 */
export class CliFailure extends Schema.TaggedError<CliFailure>("rollmem/CliFailure")("CliFailure", {
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/**
 * Prints `rollmem: reason` on stderr, then fails with {@link CliFailure}.
 *
 * @since 0.2.0
 * @category constructors
 */
export const fail = (reason: string): Effect.Effect<never, CliFailure> =>
  Effect.zipRight(Console.error(`rollmem: ${reason}`), Effect.fail(new CliFailure({ reason })))

/**
 * Turns every typed failure of a command's handler (a `ConfigError`, a
 * store's or a summarizer's error, ...: each names what is wrong in its
 * `message`) into one line `rollmem: <message>` on stderr and a
 * {@link CliFailure}. A `CliFailure` passes through unprinted (it was
 * printed when it was raised). Defects and interruption are left alone.
 *
 * @since 0.2.0
 * @category combinators
 */
export const reportFailures = <A, E extends { readonly message: string }, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, CliFailure, R> =>
  Effect.catchAll(
    effect,
    (error): Effect.Effect<never, CliFailure> =>
      Predicate.isTagged(error, "CliFailure") ? Effect.fail(error as unknown as CliFailure) : fail(error.message)
  )

/**
 * The signals that stop a running command: Ctrl-C (`SIGINT`), and what
 * `kill` and process managers send (`SIGTERM`).
 *
 * @since 0.3.0
 * @category models
 */
export type StopSignal = "SIGINT" | "SIGTERM"

/**
 * The exit code of a command stopped by `signal`: 128 plus the signal's
 * number, as a shell reports it (130 for `SIGINT`, 143 for `SIGTERM`).
 *
 * @example
 * ```ts
 * signalExitCode("SIGINT") // 130
 * ```
 *
 * @since 0.3.0
 * @category constructors
 */
export const signalExitCode = (signal: StopSignal): number => signal === "SIGINT" ? 130 : 143

/**
 * The line printed on stderr when a command is stopped by `signal`
 * (without its line break).
 *
 * @example
 * ```ts
 * interruptedLine("SIGTERM") // "rollmem: interrupted (SIGTERM)"
 * ```
 *
 * @since 0.3.0
 * @category constructors
 */
export const interruptedLine = (signal: StopSignal): string => `rollmem: interrupted (${signal})`
