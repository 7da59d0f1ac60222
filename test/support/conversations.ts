/**
 * Every real conversation of the data folder ({@link dataDir}), decoded,
 * read in place (never copied). Tests that use them skip when the folder is
 * absent (`dataNotice.ts` says so once per run).
 */
import { Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Message from "../../src/schema/Message.js"
import { dataDir } from "./data.js"

const files = fs.existsSync(dataDir) ? fs.readdirSync(dataDir).filter((f) => f.endsWith(".jsonl")).sort() : []

/** Whether the data folder is absent (or holds no conversations). */
export const absent = files.length === 0

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
