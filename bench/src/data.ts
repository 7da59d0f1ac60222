/**
 * The real transcripts of `../shared/data` (or `$ROLLMEM_DATA`), decoded
 * once, outside every timed region, into the shapes each contender takes:
 * rollmem `Message`s (Effect API), raw fields (the Promise facade), and the
 * JSON size of each message (the memory figure).
 */
import { Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Message } from "../../dist/index.js"

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")

export const dataDir = process.env.ROLLMEM_DATA ?? path.resolve(repoRoot, "..", "shared", "data")

export const FILES = [
  "conversations-agentic.jsonl",
  "conversations-chat.jsonl",
  "conversations-tooltalk.jsonl"
] as const

/** One message as it is on the wire. */
export interface WireMessage {
  readonly role: string
  readonly content: string
  readonly tool_calls?: ReadonlyArray<{ readonly id: string; readonly name: string; readonly arguments?: string }>
  readonly tool_call_id?: string
}

/** The arguments of the facade's `addMessage(role, content, options)`. */
export interface FacadeArgs {
  readonly role: string
  readonly content: string
  readonly options: Message.MessageOptions | undefined
}

export interface Conversation {
  readonly file: string
  readonly id: string
  readonly wire: ReadonlyArray<WireMessage>
  readonly messages: ReadonlyArray<Message.Message>
  readonly facade: ReadonlyArray<FacadeArgs>
}

const decodeMessage = Schema.decodeUnknownSync(Message.Message)

const facadeArgs = (m: WireMessage): FacadeArgs => {
  const options: {
    toolCalls?: ReadonlyArray<{ readonly id: string; readonly name: string; readonly arguments?: string }>
    toolCallId?: string
  } = {}
  if (m.tool_calls !== undefined && m.tool_calls.length > 0) options.toolCalls = m.tool_calls
  if (m.tool_call_id !== undefined) options.toolCallId = m.tool_call_id
  return {
    role: m.role,
    content: m.content,
    options: options.toolCalls === undefined && options.toolCallId === undefined ? undefined : options
  }
}

export const loadFile = (file: string): Array<Conversation> =>
  fs.readFileSync(path.join(dataDir, file), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const parsed = JSON.parse(line) as { id: string; messages: Array<WireMessage> }
      return {
        file,
        id: parsed.id,
        wire: parsed.messages,
        messages: parsed.messages.map((m) => decodeMessage(m)),
        facade: parsed.messages.map(facadeArgs)
      }
    })

/** Every conversation of the three files, in file order. */
/** A smoke run (`--quick`) takes every this many conversations (and the sections' smaller settings). */
export const QUICK_EVERY = 8

export const loadAll = (): Array<Conversation> => FILES.flatMap(loadFile)

/** Sum of a list of numbers. */
export const sum = (xs: ReadonlyArray<number>): number => {
  let s = 0
  for (const x of xs) s += x
  return s
}
