/**
 * The interface every strategy implements: add turns, read the context back,
 * clear, and export the state (docs/contract.md sections 2 and 5 to 8).
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type { AddError } from "../Errors.js"
import type * as MemoryState from "../schema/MemoryState.js"
import type { Message } from "../schema/Message.js"

/**
 * A conversation memory.
 *
 * Adds may run concurrently; reads see every completed append at once.
 *
 * @since 0.1.0
 * @category models
 */
export interface Memory {
  /** Which strategy this is: `"rolling"`, `"buffer"`, `"window"` or `"summary"`. */
  readonly strategy: "rolling" | "buffer" | "window" | "summary"
  /**
   * Appends one turn, then prunes or folds as the strategy says. The token
   * counter sees the message's token text once. Fails with `TokenCountError`
   * (nothing appended) or `SummarizerError` (the turn stays appended; nothing
   * else changes). Completes after its own prune.
   */
  readonly add: (message: Message) => Effect.Effect<void, AddError>
  /**
   * Appends several turns in order, then prunes or folds once
   * (docs/contract.md section 10.7): for concurrency, failure and
   * interruption it is one add. Use it for an agent step that yields a tool
   * call and its results together, so no prune ever splits the call from
   * them. Each message is counted once; a failed count appends none of them.
   * An empty list does nothing.
   */
  readonly addMessages: (messages: ReadonlyArray<Message>) => Effect.Effect<void, AddError>
  /** The running summary, `""` when none. */
  readonly summary: Effect.Effect<string>
  /** The buffered messages, oldest first. */
  readonly buffer: Effect.Effect<ReadonlyArray<Message>>
  /** The buffer's size in tokens (sum of its messages' counts, pinned ones included; the summary is not counted). */
  readonly bufferTokens: Effect.Effect<number>
  /**
   * The summary's tokens, with the memory's counter: counted once when a fold
   * commits or a state is restored, never on read (O(1)). 0 without a summary.
   */
  readonly summaryTokens: Effect.Effect<number>
  /**
   * Tokens of what {@link Memory.messages} sends, without any per-message
   * overhead of a provider: pinned messages, summary and buffer
   * (`summaryTokens + bufferTokens`). O(1).
   */
  readonly contextTokens: Effect.Effect<number>
  /**
   * What to send the model: the buffer, preceded by a message holding the
   * summary when it is not empty (role `system`, or `user` with
   * `summaryRole: "user"`); pinned system messages (`pinSystem`) that open
   * the buffer come before the summary.
   */
  readonly messages: Effect.Effect<ReadonlyArray<Message>>
  /** The string forms of {@link Memory.messages} joined with `"\n"`. */
  readonly context: Effect.Effect<string>
  /** Empties summary and buffer; a summarizer call in flight is discarded. */
  readonly clear: Effect.Effect<void>
  /** The state (summary and buffer). */
  readonly state: Effect.Effect<MemoryState.MemoryState>
  /** The state in the wire format (version 2), ready for `JSON.stringify`. */
  readonly toJSON: Effect.Effect<MemoryState.Encoded>
}
