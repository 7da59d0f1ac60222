/**
 * Every real conversation of the shared data folder, converted to each
 * provider format, comes back identical through `from… → memory → JSON →
 * memory → to…`. The data is read in place ($ROLLMEM_DATA, else
 * ../shared/data); the tests are skipped, saying so, when it is absent.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { AdapterError } from "../../src/adapters/AdapterError.js"
import * as Message from "../../src/schema/Message.js"
import * as Validity from "../../src/Validity.js"
import { FORMATS, json, roundTrip, withFuture } from "./support.js"

const dataDir = process.env.ROLLMEM_DATA ??
  path.resolve(fileURLToPath(new URL("../..", import.meta.url)), "../shared/data")

const Conversation = Schema.Struct({ id: Schema.String, messages: Schema.Array(Message.Message) })
const decodeLine = Schema.decodeUnknownSync(Schema.parseJson(Conversation))

// SOURCES.md: conversations per file; one long transcript ends on a tool call whose results were never recorded.
const EXPECTED: Record<string, { readonly conversations: number; readonly refused: number }> = {
  "conversations-agentic.jsonl": { conversations: 202, refused: 0 },
  "conversations-chat.jsonl": { conversations: 211, refused: 0 },
  "conversations-long.jsonl": { conversations: 24, refused: 1 },
  "conversations-tooltalk.jsonl": { conversations: 78, refused: 0 }
}

for (const file of Object.keys(EXPECTED)) {
  const present = fs.existsSync(path.join(dataDir, file))
  const note = present ? "" : ` (skipped: ${file} not found in ${dataDir}; set ROLLMEM_DATA)`
  const conversations = present
    ? fs.readFileSync(path.join(dataDir, file), "utf8").split("\n").filter((l) => l.trim() !== "").map((line) =>
      decodeLine(line)
    )
    : []
  describe(`${file}: every conversation, converted to each format, round-trips${note}`, () => {
    for (const format of FORMATS) {
      it.effect.skipIf(!present)(format.name, () =>
        Effect.gen(function*() {
          let identical = 0
          let refused = 0
          for (const conversation of conversations) {
            const written = yield* Effect.either(format.encode(conversation.messages))
            // LangChain is a storage format: it writes any context; a UIMessage list takes a pending call.
            if (Either.isLeft(written)) {
              refused++
              assert.instanceOf(written.left, AdapterError)
              assert.deepStrictEqual(written.left.violations?.map((v) => v._tag), ["UnansweredToolCall"])
            }
            const x = json(yield* format.encode(conversation.messages, { check: false }))
            const back = yield* roundTrip(format, x, { check: false })
            assert.deepStrictEqual(back, x, `${conversation.id}`)
            // what a provider adds next month: an invented field in every object, read, kept and written back
            const future = withFuture(x, !Array.isArray(x))
            assert.deepStrictEqual(
              yield* roundTrip(format, future, { check: false }),
              future,
              `${conversation.id} (x_future)`
            )
            identical++
          }
          assert.strictEqual(identical, EXPECTED[file].conversations)
          if (file === "conversations-long.jsonl") {
            // 14 of the 24 long sessions hold consecutive user messages: valid for every provider, so none is
            // refused for them (only the documented unanswered call is)
            const twoUsers = conversations.filter((c) =>
              Validity.violations(c.messages, { provider: "strict-template" }).some((v) =>
                v._tag === "ConsecutiveSameRole" && v.role === "user"
              )
            )
            assert.strictEqual(twoUsers.length, 14)
          }
          // LangChain writes any context; a UIMessage list shows the last turn's unanswered call as pending
          assert.strictEqual(
            refused,
            format.name === "langchain" || format.name === "ai-sdk-ui" ? 0 : EXPECTED[file].refused
          )
        }))
    }
  })
}
