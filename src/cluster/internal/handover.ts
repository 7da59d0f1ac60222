/**
 * A writer's requests across an owner's handover (internal).
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as Rules from "../../core/cluster.js"

/** A request the cluster ended with an interruption the caller did not ask for. */
class HandedOver {
  readonly _tag = "HandedOver"
}

/**
 * How long a writer keeps sending a request again while its conversation is
 * handed over: every 100 ms, then doubling up to 2 seconds, for 2 minutes
 * (the handover waits for the old owner's shard locks to expire).
 */
const handoverSchedule = Schedule.exponential("100 millis").pipe(
  Schedule.union(Schedule.spaced("2 seconds")),
  Schedule.upTo("2 minutes")
)

/**
 * Sends `request` again when the cluster answers it with an interruption
 * while the caller was not interrupted: an owner stopping (SIGTERM, shards
 * moved) can end its in-flight requests so, and the caller would otherwise
 * see its fiber interrupted without a reply (a process run by `runMain`
 * then exits 0 mid-run). `Apply` is applied once per request id and `Read`
 * and `Delete` are idempotent, so sending again is safe. A caller that is
 * itself interrupted is not retried: the recovery never runs then.
 */
export const resendOnHandover = <A, E, R>(request: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  request.pipe(
    Effect.catchAllCause((cause): Effect.Effect<never, E | HandedOver> =>
      Cause.isInterruptedOnly(cause) ? Effect.fail(new HandedOver()) : Effect.failCause(cause)
    ),
    Effect.retry({ schedule: handoverSchedule, while: (error) => error instanceof HandedOver }),
    Effect.catchIf((error): error is HandedOver => error instanceof HandedOver, () => Effect.interrupt)
  )

/**
 * Whether `error` is `@effect/cluster`'s refusal of a request whose message
 * id another process generated too (`core/cluster.ts`, the rule both lines
 * share).
 */
export const isMessageIdCollision: (error: unknown) => boolean = Rules.isMessageIdCollision

/**
 * Sends `request` again, at once and at most 5 times, while the cluster
 * refuses it for a message id another process also generated
 * ({@link isMessageIdCollision}): nothing was stored or delivered, and each
 * send draws a new id. `Apply` is applied once per request id, so sending
 * again is safe. Any other failure is returned as it is.
 */
export const resendOnIdCollision = <A, E, R>(request: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.retry(request, { times: 5, while: isMessageIdCollision })
