/**
 * The Effect 3 line's half of the stores' cross-line check (issue 31): the
 * Effect 4 store tests (`effect4/test/store/crossLine.test.ts`) run it, on
 * the repository's own `effect` 3 install, to write a conversation through
 * the Effect 3 store and to read back what the Effect 4 store wrote.
 *
 *     node --import tsx scripts/storeRoundTrip.ts '<target JSON>' write <id>
 *     node --import tsx scripts/storeRoundTrip.ts '<target JSON>' save <id> <expected revision>
 *     node --import tsx scripts/storeRoundTrip.ts '<target JSON>' read <id>
 *
 * The target is `{"kind":"pg","url":"postgres://..."}` (`layerPg`) or
 * `{"kind":"redis","url":"redis://...","prefix":"..."}` (`layerRedis`) or
 * `{"kind":"sqlite","url":"<file>"}` (`layerSqlite` on that file).
 * `write` saves the state and archive writes of {@link written} as a first
 * save; `save` saves {@link saved} at the expected revision; `read` prints
 * one JSON line: `{ revision, state, requestIds, archive, search }`
 * (`state` the wire JSON text, `archive` the archived messages as
 * `{position, fold, message}` with the wire message, `search` the positions
 * a search for `ABC-123 refund` finds), or `null` when none is stored.
 */
import { Effect, type Layer, Option, Schema } from "effect"
import * as MemoryState from "../src/schema/MemoryState.js"
import * as Message from "../src/schema/Message.js"
import * as ConversationStore from "../src/store/ConversationStore.js"

interface Target {
  readonly kind: "pg" | "redis" | "sqlite"
  readonly url: string
  readonly prefix?: string
}

/** The state and archive writes of `write` (the Effect 4 test builds the same on its line). */
export const written = {
  state: MemoryState.make("summary of ABC-123", [
    Message.user("where is my refund?", { id: "m3", metadata: { n: 1, nested: [true, null] } }),
    Message.assistant("", { toolCalls: [{ id: "c1", name: "lookup", arguments: "{\"ticket\":\"ABC-123\"}" }] }),
    Message.tool("refund sent", { toolCallId: "c1" })
  ]),
  requestIds: ["r1", "r2"],
  archive: [
    [{ position: 0, message: Message.user("Ticket ABC-123: refund please") }],
    [{ position: 1, message: Message.assistant("Looking into ABC-123") }, {
      position: 2,
      message: Message.user("thanks")
    }]
  ]
}

/** The state and archive write of `save`. */
export const saved = {
  state: MemoryState.make("later", [Message.user("é 😀")]),
  archive: [[{ position: 3, message: Message.system("refund policy") }]]
}

const encodeMessage = Schema.encodeSync(Message.Message)

const [targetJson, command, id, expected] = process.argv.slice(2)
const target = JSON.parse(targetJson) as Target
const layer: Layer.Layer<ConversationStore.ConversationStore, unknown> = target.kind === "pg"
  ? ConversationStore.layerPg({ url: target.url })
  : target.kind === "sqlite"
  ? ConversationStore.layerSqlite({ filename: target.url })
  : ConversationStore.layerRedis({ url: target.url, prefix: target.prefix })

const program = Effect.gen(function*() {
  const store = yield* ConversationStore.ConversationStore
  if (command === "write") {
    return yield* store.save(id, written.state, 0, { requestIds: written.requestIds, archive: written.archive })
  }
  if (command === "save") return yield* store.save(id, saved.state, Number(expected), { archive: saved.archive })
  const stored = yield* store.load(id)
  if (Option.isNone(stored)) return null
  const archive = yield* store.archive!.messages(id)
  const search = yield* store.archive!.search(id, "ABC-123 refund")
  return {
    revision: stored.value.revision,
    state: JSON.stringify(MemoryState.toJSON(stored.value.state)),
    requestIds: stored.value.requestIds ?? null,
    archive: archive.map((a) => ({ position: a.position, fold: a.fold, message: encodeMessage(a.message) })),
    search: search.map((match) => match.position)
  }
}).pipe(Effect.provide(layer))

Effect.runPromise(program).then(
  (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
  (error) => {
    process.stderr.write(`${String(error)}\n`)
    process.exit(1)
  }
)
