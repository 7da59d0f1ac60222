/**
 * A writer's requests across an owner's handover (internal), as the Effect 3
 * line's `src/cluster/internal/handover.ts`; which failure is a message id
 * drawn twice is `core/cluster.ts`'s.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as Rules from "../../../../src/core/cluster.js"

/** A request the cluster ended with an interruption the caller did not ask for. */
class HandedOver {
  readonly _tag = "HandedOver"
}

/**
 * How long a writer keeps sending a request again while its conversation is
 * handed over: every 100 ms, then doubling up to 2 seconds, for 2 minutes.
 */
const handoverSchedule = Schedule.min([Schedule.exponential("100 millis"), Schedule.spaced("2 seconds")]).pipe(
  Schedule.upTo({ duration: "2 minutes" })
)

/**
 * Sends `request` again when the cluster answers it with an interruption
 * while the caller was not interrupted (an owner stopping can end its
 * in-flight requests so). `Apply` is applied once per request id and `Read`
 * and `Delete` are idempotent, so sending again is safe.
 *
 * @internal
 */
export const resendOnHandover = <A, E, R>(request: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  request.pipe(
    Effect.catchCause((cause): Effect.Effect<never, E | HandedOver> =>
      Cause.hasInterruptsOnly(cause) ? Effect.fail(new HandedOver()) : Effect.failCause(cause)
    ),
    Effect.retry({ schedule: handoverSchedule, while: (error) => error instanceof HandedOver }),
    Effect.catch((error) => error instanceof HandedOver ? Effect.interrupt : Effect.fail(error as E))
  )

/**
 * Sends `request` again, at once and at most 5 times, while the cluster
 * refuses it for a message id another process also generated.
 *
 * @internal
 */
export const resendOnIdCollision = <A, E, R>(request: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.retry(request, { times: 5, while: Rules.isMessageIdCollision })
