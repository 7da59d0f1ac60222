/**
 * WindowMemory: the last `maxMessages` messages (docs/contract.md section 7).
 *
 * After each add the buffer is pruned by message count with the unit and
 * alignment rules of docs/contract.md section 4: the newest unit is always kept, and
 * alignment may evict more. Evicted turns are dropped, never summarized. A
 * restored summary is kept as is and read back as the leading system message.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message, WindowMemory } from "rollmem"
 *
 * const program = Effect.gen(function*() {
 *   const memory = yield* WindowMemory.make({ maxMessages: 20 })
 *   yield* memory.add(Message.user("hello"))
 *   return yield* memory.context // "user: hello"
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
import { buildWindow } from "./internal/builders.js"
import { type Fill, fillEmpty, fillState, fillWith, memoryOf, withCounter } from "./internal/core.js"
import type * as Memory from "./Memory.js"

/**
 * Options of a WindowMemory: the type of the schema `Options.WindowOptions`
 * (`schema/Options.ts`, where each option is documented): `maxMessages`
 * (required), `targetMessages`, `boundary`, `pinSystem`, `summaryRole`
 * (docs/contract.md section 10).
 *
 * @since 0.1.0
 * @category models
 */
export type Options = Schema.Schema.Type<typeof OptionsSchema.WindowOptions>

/**
 * A WindowMemory.
 *
 * @since 0.1.0
 * @category models
 */
export interface WindowMemory extends Memory.Memory {
  readonly strategy: "window"
  /** The message budget of the buffer. */
  readonly maxMessages: number
  /** The low-water mark a prune evicts down to (`maxMessages` unless set). */
  readonly targetMessages: number
}

// An empty memory (`fillEmpty`) cannot fail to count; a restored one (`fillState`) can.
const build = <E>(options: Options, fill: Fill<E>): Effect.Effect<WindowMemory, ConfigError | E> => {
  const decoded = OptionsSchema.decode(OptionsSchema.WindowOptions, options)
  return Either.isLeft(decoded)
    ? Effect.fail(decoded.left)
    : withCounter((counter) =>
      Effect.map(buildWindow({ counter, summarizer: undefined }, decoded.right, fill), memoryOf)
    )
}

/**
 * Builds an empty WindowMemory. Reads `TokenCounter` (default: word count)
 * from the context, for `bufferTokens` only.
 *
 * Fails with `ConfigError` when the options are not an object, hold an
 * unknown key (naming it and the known ones), or an option is wrong: `maxMessages` or
 * `targetMessages` not a positive integer, `targetMessages` over
 * `maxMessages`, `boundary`, `pinSystem` or `summaryRole` of the wrong type
 * or value.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Message, WindowMemory } from "rollmem"
 *
 * const program = Effect.gen(function*() {
 *   const memory = yield* WindowMemory.make({ maxMessages: 2 })
 *   yield* memory.add(Message.user("Book me a flight to Rome"))
 *   yield* memory.add(Message.assistant("For which dates?"))
 *   yield* memory.add(Message.user("May 3"))
 *   return yield* memory.messages // the last two: [assistant: For which dates?, user: May 3]
 * })
 * // WindowMemory.make({ maxMessages: 0 }) fails with ConfigError (option maxMessages)
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<WindowMemory, ConfigError> => build(options, fillEmpty)

/**
 * Builds a WindowMemory holding a state, restored verbatim (not pruned).
 * Fails with `ConfigError`, `TokenCountError`, or `StateDecodeError` when
 * `state` is not a decoded state (a parsed document: use {@link fromJSON}).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { MemoryState, Message, WindowMemory } from "rollmem"
 *
 * const state = MemoryState.make("", [Message.user("a"), Message.user("b"), Message.user("c")])
 * // restored verbatim: three messages, pruned to two by the next add
 * const program = WindowMemory.fromState(state, { maxMessages: 2 }).pipe(Effect.flatMap((memory) => memory.buffer))
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromState = (
  state: MemoryState.MemoryState,
  options: Options
): Effect.Effect<WindowMemory, ConfigError | TokenCountError | StateDecodeError> => build(options, fillState(state))

/**
 * Restores a WindowMemory from a parsed JSON state (any strategy's). Fails
 * with `StateDecodeError`, `ConfigError` or `TokenCountError`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { WindowMemory } from "rollmem"
 *
 * const saved: unknown = JSON.parse("{\"version\":2,\"summary\":\"\",\"buffer\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
 * const program = WindowMemory.fromJSON(saved, { maxMessages: 20 }).pipe(Effect.flatMap((memory) => memory.messages))
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromJSON = (
  input: unknown,
  options: Options
): Effect.Effect<WindowMemory, StateDecodeError | ConfigError | TokenCountError> =>
  Effect.flatMap(MemoryState.fromJSON(input), (state) => build(options, fillState(state)))

/**
 * Builds a WindowMemory with the token counter given (not read from a context)
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
 * import { WindowMemory, Message, TokenCounter } from "rollmem"
 *
 * const stepper = Effect.runSync(WindowMemory.makeStepper({ maxMessages: 10 }, { counter: TokenCounter.wordCounter }))
 * const rest = stepper.step(Message.user("hello"))
 * if (!Exit.isExit(rest)) Effect.runSync(rest)
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const makeStepper = (
  options: Options,
  services: { readonly counter: TokenCounter.Service },
  state?: MemoryState.MemoryState
): Effect.Effect<Memory.Stepper<WindowMemory>, ConfigError | TokenCountError | StateDecodeError> => {
  const decoded = OptionsSchema.decode(OptionsSchema.WindowOptions, options)
  if (Either.isLeft(decoded)) return Exit.fail(decoded.left)
  return buildWindow({ counter: services.counter, summarizer: undefined }, decoded.right, fillWith(state))
}
