/**
 * The Effect 4 cluster on PostgreSQL (a schema of its own per test, dropped
 * after): `ConversationCluster.checkShardsPerGroup` recording and refusing
 * with the Effect 3 line's exact `ConfigError`; a runner
 * (`ConversationCluster.layerRunner` on 127.0.0.1, a free port) and a
 * client-only process's layer (`layerClient`) in this process, writing one
 * conversation through the entity into the store's table (read back with
 * `ConversationStore.layerPg`, the table both lines share, with its request
 * ids); a client with another `shardsPerGroup` refused at build. Without a
 * PostgreSQL server the suite is skipped with one line saying how to point
 * it at one; under `CI=true` that is a failure.
 */
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { execFileSync } from "node:child_process"
import * as net from "node:net"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { ConversationCluster } from "../../src/cluster.js"
import * as Message from "../../src/schema/Message.js"
import * as Summarizer from "../../src/services/Summarizer.js"
import * as Conversation from "../../src/store/Conversation.js"
import * as ConversationStore from "../../src/store/ConversationStore.js"
import { reportUnreachable, servers } from "../store/layers.js"
import { pgRun, pgSchema } from "../store/servers.js"

/** A port of 127.0.0.1 free right now (the system's pick). */
const freePort = Effect.callback<number>((resume) => {
  const server = net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as net.AddressInfo
    server.close(() => resume(Effect.succeed(port)))
  })
})

const mismatch = (mine: number, recorded: number) =>
  `invalid option shardsPerGroup: is ${mine} in this process but ${recorded} in the cluster (recorded in ` +
  `rollmem_cluster_config by the first process): every runner and client must use the same value, or messages ` +
  `to the shards a runner does not know wait forever. To change it, stop every process and run DELETE FROM ` +
  `rollmem_cluster_config`

const loadStored = (url: string, id: string) =>
  Effect.provide(
    Effect.flatMap(Effect.service(ConversationStore.ConversationStore), (store) => store.load(id)),
    Layer.orDie(ConversationStore.layerPg({ url }))
  ).pipe(Effect.map(Option.getOrThrow))

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..")

/** The PATH without the `node_modules/.bin` folders `npm test` puts first (as `test/store/crossLine.test.ts`). */
const systemPath = (process.env.PATH ?? "").split(path.delimiter).filter((entry) =>
  !entry.split(path.sep).includes("node_modules")
).join(path.delimiter)

/** The Effect 3 line's store on the same database (`scripts/storeRoundTrip.ts`, its own process). */
const effect3 = (url: string, ...args: ReadonlyArray<string>): unknown =>
  JSON.parse(
    execFileSync(
      "node",
      ["--import", "tsx", "scripts/storeRoundTrip.ts", JSON.stringify({ kind: "pg", url }), ...args],
      {
        cwd: root,
        encoding: "utf8",
        env: { ...process.env, PATH: systemPath }
      }
    )
  )

const turn = (id: string, text: string) =>
  Conversation.withMemory(id, { strategy: "buffer" }, (memory) => memory.add(Message.user(text)))

describe.skipIf(servers.pg.unreachable !== undefined)("ConversationCluster on PostgreSQL (Effect 4)", () => {
  it.live("checkShardsPerGroup records the first value and refuses another with ConfigError", () =>
    Effect.gen(function*() {
      const { url } = yield* pgSchema()
      const check = (shards: number) =>
        Effect.provide(
          Effect.result(ConversationCluster.checkShardsPerGroup(shards)),
          PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })
        )
      assert.strictEqual((yield* check(300))._tag, "Success")
      assert.strictEqual((yield* check(300))._tag, "Success")
      const other = yield* check(200)
      assert.strictEqual(other._tag, "Failure")
      if (other._tag === "Failure") {
        assert.strictEqual(other.failure._tag, "ConfigError")
        assert.strictEqual(other.failure.message, mismatch(200, 300))
      }
      assert.deepStrictEqual(
        yield* pgRun(url, `SELECT name, value FROM ${ConversationCluster.CONFIG_TABLE}`),
        [{ name: "shardsPerGroup", value: "300" }]
      )
    }))

  it.live(
    "a runner and a client: turns written through the entity land in the store's table with their request ids",
    () =>
      Effect.gen(function*() {
        const { url } = yield* pgSchema()
        const port = yield* freePort
        const runner = ConversationCluster.layerRunner({
          url,
          host: "127.0.0.1",
          port,
          shardsPerGroup: 16,
          maxConnections: 4
        }).pipe(Layer.provide(Summarizer.layerDrop))
        yield* Effect.gen(function*() {
          yield* turn("shared", "from the runner")
          // a client-only layer in the same process: it sends to the runner over its socket
          yield* Effect.provide(
            turn("shared", "from a client"),
            ConversationCluster.layerClient({ url, shardsPerGroup: 16, maxConnections: 2 })
          )
          const read = yield* Effect.provide(
            Conversation.withMemory("shared", { strategy: "buffer" }, (memory) => memory.context),
            ConversationCluster.layerClient({ url, shardsPerGroup: 16, maxConnections: 2 })
          )
          assert.strictEqual(read, "user: from the runner\nuser: from a client")
          // another shardsPerGroup: refused when the layer is built, before it joins
          const refused = yield* Effect.flip(
            Effect.provide(turn("shared", "never"), ConversationCluster.layerClient({ url, shardsPerGroup: 32 }))
          )
          assert.strictEqual(refused._tag, "ConfigError")
          assert.strictEqual(refused.message, mismatch(32, 16))
        }).pipe(Effect.provide(runner))
        const stored = yield* loadStored(url, "shared")
        assert.strictEqual(stored.revision, 2)
        assert.deepStrictEqual(stored.state.buffer.map((m) => m.content), ["from the runner", "from a client"])
        assert.strictEqual(stored.requestIds?.length, 2)
        // the Effect 3 line's store reads the same row: the state and its request ids
        const read = effect3(url, "read", "shared") as {
          readonly revision: number
          readonly state: string
          readonly requestIds: ReadonlyArray<string>
        }
        assert.strictEqual(read.revision, 2)
        assert.strictEqual(
          read.state,
          "{\"version\":2,\"summary\":\"\",\"buffer\":[{\"role\":\"user\",\"content\":\"from the runner\"}," +
            "{\"role\":\"user\",\"content\":\"from a client\"}]}"
        )
        assert.deepStrictEqual(read.requestIds, stored.requestIds)
      }),
    120_000
  )

  it.live(
    "a request id the Effect 3 line stored with a conversation is known to the Effect 4 entity",
    () =>
      Effect.gen(function*() {
        const { url } = yield* pgSchema()
        // the Effect 3 store writes the conversation with request ids ["r1", "r2"] (revision 1)
        effect3(url, "write", "c")
        const runner = ConversationCluster.layerRunner({
          url,
          host: "127.0.0.1",
          port: yield* freePort,
          shardsPerGroup: 16
        })
          .pipe(Layer.provide(Summarizer.layerDrop))
        // the Writer withMemory sends through: each request once, by its id
        yield* Effect.gen(function*() {
          const writer = yield* Effect.service(Conversation.Writer)
          const apply = (requestId: string) =>
            writer.apply("c", {
              requestId,
              options: { strategy: "buffer" },
              operations: [{ _tag: "add", messages: [Message.user("again")] }]
            })
          yield* apply("r2")
          yield* apply("r3")
        }).pipe(Effect.provide(runner))
        const stored = yield* loadStored(url, "c")
        assert.deepStrictEqual(stored.requestIds, ["r1", "r2", "r3"])
        assert.strictEqual(stored.revision, 2)
        assert.deepStrictEqual(stored.state.buffer.map((m) => m.content), [
          "where is my refund?",
          "",
          "refund sent",
          "again"
        ])
      }),
    120_000
  )
})

if (servers.pg.unreachable !== undefined) describe("servers", () => reportUnreachable())
