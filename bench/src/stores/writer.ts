/**
 * One writer process of the "stores" bench section (bundled once with
 * esbuild, run with plain node):
 *
 *   node writer.mjs <store JSON> <hot|cold> <writer index> <turns>
 *
 * Opens the store, prints `ready`, waits for a line on stdin, then makes
 * `<turns>` `Conversation.withMemory` calls adding one turn each: all on the
 * conversation `hot`, or (cold) on `cold-<k>` for k cycling through 1,000
 * conversations from an offset of its own. Prints one JSON line: saves,
 * conflicts, wall and CPU milliseconds of the timed loop.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Message from "../../../src/schema/Message.js"
import * as Summarizer from "../../../src/services/Summarizer.js"
import * as Conversation from "../../../src/store/Conversation.js"
import * as ConversationStore from "../../../src/store/ConversationStore.js"

type Spec =
  | { readonly kind: "sqlite"; readonly filename: string }
  | { readonly kind: "pg"; readonly url: string }
  | { readonly kind: "redis"; readonly url: string; readonly prefix: string }

const [specJson, mode, index, turns] = process.argv.slice(2)
const spec = JSON.parse(specJson) as Spec
const base: Layer.Layer<ConversationStore.ConversationStore, unknown> = spec.kind === "sqlite"
  ? ConversationStore.layerSqlite({ filename: spec.filename })
  : spec.kind === "pg"
  ? ConversationStore.layerPg({ url: spec.url, maxConnections: 1 })
  : ConversationStore.layerRedis({ url: spec.url, prefix: spec.prefix })

const counts = { saves: 0, conflicts: 0 }
const Store = ConversationStore.ConversationStore
const counted = Layer.effect(
  Store,
  Effect.map(Store, (store) =>
    Store.of({
      ...store,
      save: (id, state, revision) =>
        Effect.suspend(() => {
          counts.saves++
          return Effect.tapErrorTag(store.save(id, state, revision), "ConversationConflictError", () =>
            Effect.sync(() => {
              counts.conflicts++
            }))
        })
    }))
).pipe(Layer.provide(base))

const retry = Schedule.exponential("10 millis").pipe(
  Schedule.union(Schedule.spaced("250 millis")),
  Schedule.jittered,
  Schedule.intersect(Schedule.recurs(1000))
)

const COLD = 1_000
const go = Effect.async<void>((resume) => {
  process.stdin.once("data", () => resume(Effect.void))
})

const program = Effect.gen(function*() {
  process.stdout.write("ready\n")
  yield* go
  process.stdin.pause()
  const cpu = process.cpuUsage()
  const start = performance.now()
  for (let i = 0; i < Number(turns); i++) {
    const id = mode === "hot" ? "hot" : `cold-${(Number(index) * 137 + i) % COLD}`
    yield* Conversation.withMemory(
      id,
      { strategy: "rolling", maxTokens: 200, retry },
      (memory) =>
        memory.add(Message.user(`writer ${index} turn ${i}: a line of about twelve words, as a chat turn would be`))
    ).pipe(Effect.provide(Summarizer.layerDrop)) // no summarizer: evicted turns are dropped
  }
  const used = process.cpuUsage(cpu)
  process.stdout.write(
    `${
      JSON.stringify({
        turns: Number(turns),
        saves: counts.saves,
        conflicts: counts.conflicts,
        wallMs: performance.now() - start,
        cpuMs: (used.user + used.system) / 1000
      })
    }\n`
  )
}).pipe(Effect.provide(counted))

Effect.runPromiseExit(program).then((exit) => {
  if (exit._tag === "Failure") {
    process.stderr.write(`${String(exit.cause)}\n`)
    process.exitCode = 1
  }
})
