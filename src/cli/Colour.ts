/**
 * Colour on the command line: @effect/cli renders `--help` and its parse
 * errors with ANSI colour codes. They belong on a terminal only: piped into
 * a file, a pager or another program, or with `NO_COLOR` set
 * (https://no-color.org), `rollmem` prints plain text.
 *
 * @since 0.1.0
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"

// ANSI "select graphic rendition" sequences: colours, bold, underline, reset.

const SGR = /\u001b\[[0-9;]*m/g

/**
 * `text` without ANSI colour and style codes.
 *
 * @example
 * ```ts
 * stripColour("\u001b[1mUSAGE\u001b[0m") // "USAGE"
 * ```
 *
 * @since 0.1.0
 * @category combinators
 */
export const stripColour = (text: string): string => text.replace(SGR, "")

/**
 * Whether a stream gets colour: it is a terminal and `NO_COLOR` is unset or
 * empty.
 *
 * @since 0.1.0
 * @category combinators
 */
export const useColour = (isTTY: boolean | undefined, env: Readonly<Record<string, string | undefined>>): boolean =>
  isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === "")

const plain =
  (write: (...args: ReadonlyArray<unknown>) => Effect.Effect<void>) =>
  (...args: ReadonlyArray<unknown>): Effect.Effect<void> =>
    write(...args.map((arg) => typeof arg === "string" ? stripColour(arg) : arg))

/**
 * Runs `self` with the `Console` in context, minus colour codes on the
 * streams that get none: `stdout` for `Console.log`, `stderr` for
 * `Console.error`.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withColour =
  (colour: { readonly stdout: boolean; readonly stderr: boolean }) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    colour.stdout && colour.stderr ? self : Effect.flatMap(Effect.console, (console) => {
      const wrapped: Console.Console = Object.assign(Object.create(console) as Console.Console, {
        log: colour.stdout ? console.log : plain(console.log),
        error: colour.stderr ? console.error : plain(console.error)
      })
      return Effect.withConsole(self, wrapped)
    })
