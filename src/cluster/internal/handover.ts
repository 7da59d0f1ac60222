/**
 * A writer's requests across an owner's handover (internal).
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"

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
