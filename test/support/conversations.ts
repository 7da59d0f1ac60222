/**
 * The real conversations of the shared data folder, read in place (never
 * copied): `$ROLLMEM_DATA`, else `../shared/data` from the repository root.
 * Tests that use them skip with {@link skipped} when the folder is absent.
 */
import { Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Message from "../../src/schema/Message.js"

const repoRoot = fileURLToPath(new URL("../..", import.meta.url))
const dataDir = process.env.ROLLMEM_DATA ?? path.resolve(repoRoot, "../shared/data")
const files = fs.existsSync(dataDir) ? fs.readdirSync(dataDir).filter((f) => f.endsWith(".jsonl")).sort() : []

/** Whether the data folder is absent (or holds no conversations). */
export const absent = files.length === 0

/** The suffix of a skipped test's name, saying why it was skipped. */
export const skipped = absent
  ? ` (skipped: no *.jsonl conversations in ${dataDir}; set ROLLMEM_DATA to the data folder)`
  : ""

/** One real conversation. */
export interface Conversation {
  readonly file: string
  readonly id: string
  readonly messages: ReadonlyArray<Message.Message>
}

const decodeMessages = Schema.decodeUnknownSync(Schema.Array(Message.Message))

/** Every conversation of every file, in file order. */
export const conversations: ReadonlyArray<Conversation> = files.flatMap((file) =>
  fs.readFileSync(path.join(dataDir, file), "utf8").split("\n").filter((line) => line.trim() !== "").map((line) => {
    const raw = JSON.parse(line) as { readonly id: string; readonly messages: unknown }
    return { file, id: raw.id, messages: decodeMessages(raw.messages) }
  })
)
