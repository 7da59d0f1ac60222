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
