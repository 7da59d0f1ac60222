/**
 * One process of the "cluster" bench section (bundled once with esbuild, run
 * with plain node):
 *
 *   node node.mjs runner <url> <shardsPerGroup> <port>
 *   node node.mjs entity <url> <shardsPerGroup> <writer index> <turns>
 *   node node.mjs cas <url> <writer index> <turns>
 *
 * `runner` joins the cluster (`ConversationCluster.layerRunner`), prints
 * `ready` and serves until killed. `entity` (a client-only process,
 * `layerClient`) and `cas` (`ConversationStore.layerPg`) print `ready`,
 * wait for a line on stdin, then make `<turns>` `Conversation.withMemory`
 * calls adding one turn each to the conversation `hot`, and print one JSON
 * line: each call's latency in milliseconds and the loop's wall time.
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

const write = (index: string, turns: number) =>
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
      ).pipe(Effect.provide(Summarizer.layerDrop)) // the client drops nothing: the runner folds
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
      }).pipe(Layer.provide(Summarizer.layerDrop))
    )
  )
  : mode === "entity"
  ? Effect.provide(
    write(rest[1], Number(rest[2])),
    ConversationCluster.layerClient({ url, shardsPerGroup: Number(rest[0]), maxConnections: 2 })
  )
  : Effect.provide(write(rest[0], Number(rest[1])), Layer.orDie(ConversationStore.layerPg({ url, maxConnections: 1 })))

NodeRuntime.runMain(program)
