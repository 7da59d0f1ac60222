/**
 * BufferMemory: every turn, kept (docs/contract.md section 6). No summary is made and
 * nothing is evicted; a summary present in a restored state is kept and read
 * back as the leading system message.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { BufferMemory, Message } from "rollmem"
 *
 * const program = Effect.gen(function*() {
 *   const memory = yield* BufferMemory.make()
 *   yield* memory.add(Message.user("hello"))
 *   return yield* memory.buffer
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import type * as Schema from "effect/Schema"
import type { ConfigError, StateDecodeError, TokenCountError } from "../Errors.js"
import * as MemoryState from "../schema/MemoryState.js"
import * as OptionsSchema from "../schema/Options.js"
import type * as TokenCounter from "../services/TokenCounter.js"
import { buildBuffer } from "./internal/builders.js"
import { type Fill, fillEmpty, fillState, fillWith, memoryOf, withCounter } from "./internal/core.js"
import type * as Memory from "./Memory.js"

/**
 * A BufferMemory.
 *
 * @since 0.1.0
 * @category models
 */
export interface BufferMemory extends Memory.Memory {
  readonly strategy: "buffer"
}

/**
 * Options of a BufferMemory: the type of the schema `Options.BufferOptions`
 * (`schema/Options.ts`): `summaryRole`, the role a restored summary reads
 * back as, `"system"` (default) or `"user"` (docs/contract.md section 10.6).
 *
 * @since 0.1.0
 * @category models
 */
export type Options = Schema.Schema.Type<typeof OptionsSchema.BufferOptions>

// An empty memory (`fillEmpty`) cannot fail to count; a restored one (`fillState`) can.
const build = <E>(fill: Fill<E>, options?: Options): Effect.Effect<BufferMemory, ConfigError | E> => {
  const decoded = OptionsSchema.decode(OptionsSchema.BufferOptions, options)
  return Either.isLeft(decoded)
    ? Effect.fail(decoded.left)
    : withCounter((counter) =>
      Effect.map(buildBuffer({ counter, summarizer: undefined }, fill, decoded.right), memoryOf)
    )
}

/**
 * Builds an empty BufferMemory. Reads `TokenCounter` (default: word count)
 * from the context, for `bufferTokens` only. Fails with `ConfigError` for
 * options that are not an object, an unknown key (naming it and the known
 * ones) or a wrong `summaryRole`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { BufferMemory, Message } from "rollmem"
 *
 * const program = Effect.gen(function*() {
 *   const memory = yield* BufferMemory.make() // keeps every turn, needs no summarizer
 *   yield* memory.add(Message.user("Book me a flight to Rome"))
 *   return yield* memory.messages // [user: Book me a flight to Rome]
 * })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options?: Options): Effect.Effect<BufferMemory, ConfigError> => build(fillEmpty, options)

/**
 * Builds a BufferMemory holding a state. Fails with `TokenCountError`, or
 * `StateDecodeError` when `state` is not a decoded state (a parsed document:
 * use {@link fromJSON}).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { BufferMemory, MemoryState, Message } from "rollmem"
 *
 * const program = Effect.gen(function*() {
 *   const memory = yield* BufferMemory.fromState(MemoryState.make("The user flies to Rome.", [Message.user("On May 3")]))
 *   return yield* memory.context // "system: The user flies to Rome.\nuser: On May 3"
 * })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromState = (
  state: MemoryState.MemoryState,
  options?: Options
): Effect.Effect<BufferMemory, ConfigError | TokenCountError | StateDecodeError> => build(fillState(state), options)

/**
 * Restores a BufferMemory from a parsed JSON state (any strategy's). Fails
 * with `StateDecodeError` or `TokenCountError`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { BufferMemory } from "rollmem"
 *
 * const program = Effect.gen(function*() {
 *   const memory = yield* BufferMemory.fromJSON({ version: 2, summary: "", buffer: [{ role: "user", content: "hi" }] })
 *   return yield* memory.buffer // [user: hi]
 * })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromJSON = (
  input: unknown,
  options?: Options
): Effect.Effect<BufferMemory, StateDecodeError | ConfigError | TokenCountError> =>
  Effect.flatMap(MemoryState.fromJSON(input), (state) => build(fillState(state), options))

/**
 * Builds a BufferMemory with the token counter given (not read from a context)
 * and returns it with the synchronous parts of its adds (a
 * `Memory.Stepper`): what runs an add without a fiber, as the Promise facade
 * does. Empty, or holding `state` (each message counted once). The result
 * is an `Exit` when nothing suspends (a counter built from a plain
 * function). Fails with `ConfigError` as {@link make}, `TokenCountError`
 * restoring.
 *
 * @example
 * ```ts
 * import { Effect, Exit } from "effect"
 * import { BufferMemory, Message, TokenCounter } from "rollmem"
 *
 * const stepper = Effect.runSync(BufferMemory.makeStepper(undefined, { counter: TokenCounter.wordCounter }))
 * const rest = stepper.step(Message.user("hello"))
 * if (!Exit.isExit(rest)) Effect.runSync(rest)
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const makeStepper = (
  options: Options | undefined,
  services: { readonly counter: TokenCounter.Service },
  state?: MemoryState.MemoryState
): Effect.Effect<Memory.Stepper<BufferMemory>, ConfigError | TokenCountError | StateDecodeError> => {
  const decoded = OptionsSchema.decode(OptionsSchema.BufferOptions, options)
  if (Either.isLeft(decoded)) return Exit.fail(decoded.left)
  return buildBuffer({ counter: services.counter, summarizer: undefined }, fillWith(state), decoded.right)
}
