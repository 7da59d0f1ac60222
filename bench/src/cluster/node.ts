/**
 * One process of the "cluster" bench section (bundled once with esbuild, run
 * with plain node):
 *
 *   node node.mjs runner <url> <shardsPerGroup> <port> <summarizer ms>
 *   node node.mjs entity <url> <shardsPerGroup> <writer index> <turns>
 *   node node.mjs cas <url> <writer index> <turns> <summarizer ms>
 *
 * `runner` joins the cluster (`ConversationCluster.layerRunner`), prints
 * `ready` and serves until killed. `entity` (a client-only process,
 * `layerClient`) and `cas` (`ConversationStore.layerPg`) print `ready`,
 * wait for a line on stdin, then make `<turns>` `Conversation.withMemory`
 * calls adding one turn each to the conversation `hot`, and print one JSON
 * line: each call's latency in milliseconds and the loop's wall time.
 * Where the memory folds (the runner, or a `cas` writer), the summarizer
 * takes `<summarizer ms>` (a timer, as a model call would) or, with 0,
 * evicted turns are dropped (`Summarizer.layerDrop`).
 */
import { NodeRuntime } from "@effect/platform-node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as ConversationCluster from "../../../src/cluster/ConversationCluster.js"
import * as Message from "../../../src/schema/Message.js"
import * as Summarizer from "../../../src/services/Summarizer.js"
import * as Conversation from "../../../src/store/Conversation.js"
import * as ConversationStore from "../../../src/store/ConversationStore.js"

const [mode, url, ...rest] = process.argv.slice(2)

const retry = Schedule.exponential("10 millis").pipe(
  Schedule.union(Schedule.spaced("250 millis")),
  Schedule.jittered,
  Schedule.intersect(Schedule.recurs(1000))
)

const go = Effect.async<void>((resume) => {
  process.stdin.once("data", () => resume(Effect.void))
})

/** A summarizer that takes `ms` (0: drops). */
const summarizer = (ms: number): Layer.Layer<Summarizer.Summarizer> =>
  ms === 0 ?
    Summarizer.layerDrop :
    Summarizer.layerEffect((summary, messages) =>
      Effect.as(Effect.sleep(`${ms} millis`), `${summary} +${messages.length}`.slice(-200))
    )

const write = (index: string, turns: number, folding: Layer.Layer<Summarizer.Summarizer>) =>
  Effect.gen(function*() {
    process.stdout.write("ready\n")
    yield* go
    process.stdin.pause()
    const latencies: Array<number> = []
    const start = performance.now()
    for (let i = 0; i < turns; i++) {
      const t0 = performance.now()
      yield* Conversation.withMemory(
        "hot",
        { strategy: "rolling", maxTokens: 200, retry },
        (memory) =>
          memory.add(Message.user(`writer ${index} turn ${i}: a line of about twelve words, as a chat turn would be`))
      ).pipe(Effect.provide(folding))
      latencies.push(performance.now() - t0)
    }
    process.stdout.write(`${JSON.stringify({ latencies, wallMs: performance.now() - start })}\n`)
  })

const program: Effect.Effect<void, unknown> = mode === "runner"
  ? Effect.zipRight(Effect.sync(() => process.stdout.write("ready\n")), Effect.never).pipe(
    Effect.provide(
      ConversationCluster.layerRunner({
        url,
        shardsPerGroup: Number(rest[0]),
        host: "127.0.0.1",
        port: Number(rest[1]),
        maxConnections: 4
      }).pipe(Layer.provide(summarizer(Number(rest[2]))))
    )
  )
  : mode === "entity"
  ? Effect.provide(
    // a client never folds: the runner that owns the conversation does
    write(rest[1], Number(rest[2]), Summarizer.layerDrop),
    ConversationCluster.layerClient({ url, shardsPerGroup: Number(rest[0]), maxConnections: 2 })
  )
  : Effect.provide(
    write(rest[0], Number(rest[1]), summarizer(Number(rest[2]))),
    Layer.orDie(ConversationStore.layerPg({ url, maxConnections: 1 }))
  )

NodeRuntime.runMain(program)
