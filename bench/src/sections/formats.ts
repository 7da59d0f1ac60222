/**
 * Section "formats" (`--only=formats`): the provider formats of
 * `rollmem/adapters` on the real data, and the command line's input on a
 * generated file far larger than memory should hold.
 *
 * 1. Round trips: every conversation of every data file (the first 20 with
 *    `--quick`), converted to each
 *    format (`encode`, unchecked), then `from… → memory → JSON → memory →
 *    to…`; counted identical when the result equals the first conversion as
 *    JSON data. Also the conversations a strict `to…` refuses (a context a
 *    provider would reject) and the time per message of the round trip.
 * 2. Input: a JSONL file of N MB (2,048; 20 with `--quick`) built by
 *    repeating the real conversations (ids renamed per copy) is replayed by
 *    the built command line (`node dist/bin.js replay FILE --tokenizer words
 *    --summarizer none --format json`) in a child process: MB/s over the
 *    wall time, and the child's peak resident memory (`maxRSS`, read at its
 *    exit by a preloaded hook) against the largest conversation's JSON size.
 *    The file is written to the system's temporary folder and removed after.
 */
import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { isDeepStrictEqual } from "node:util"
import * as Adapters from "../../../dist/adapters.js"
import { BufferMemory } from "../../../dist/promise/index.js"
import { dataDir, repoRoot } from "../data.js"

const DATA_FILES = [
  "conversations-chat.jsonl",
  "conversations-agentic.jsonl",
  "conversations-tooltalk.jsonl",
  "conversations-long.jsonl"
] as const

type Messages = Parameters<typeof Adapters.OpenAiChat.encode>[0]

interface Format {
  readonly name: string
  readonly decode: (input: unknown) => Effect.Effect<Messages, unknown>
  readonly encode: (messages: Messages, options?: { readonly check?: boolean }) => Effect.Effect<unknown, unknown>
}

const FORMATS: ReadonlyArray<Format> = [
  { name: "openai-chat", decode: Adapters.OpenAiChat.decode, encode: Adapters.OpenAiChat.encode },
  { name: "openai-responses", decode: Adapters.OpenAiResponses.decode, encode: Adapters.OpenAiResponses.encode },
  { name: "anthropic", decode: Adapters.Anthropic.decode, encode: Adapters.Anthropic.encode },
  { name: "ai-sdk", decode: Adapters.AiSdk.decode, encode: Adapters.AiSdk.encode },
  { name: "gemini", decode: Adapters.Gemini.decode, encode: Adapters.Gemini.encode },
  { name: "langchain", decode: Adapters.LangChain.decode, encode: Adapters.LangChain.encode }
]

export interface RoundTripRow {
  readonly file: string
  readonly format: string
  readonly conversations: number
  readonly messages: number
  /** Conversations whose round trip gave back exactly the first conversion. */
  readonly identical: number
  /** Conversations a checked `to…` refuses (a context the provider rejects). */
  readonly refused: number
  /** Wall µs per message for the whole round trip (decode, memory, JSON, restore, encode). */
  readonly microsPerMessage: number
}

export interface InputRun {
  readonly megabytes: number
  readonly conversations: number
  readonly messages: number
  readonly seconds: number
  readonly megabytesPerSecond: number
  /** The replaying process's peak resident memory, MB. */
  readonly peakRssMegabytes: number
  /** The largest conversation's JSON line, MB. */
  readonly largestConversationMegabytes: number
  readonly exitCode: number | null
}

export interface FormatsResults {
  readonly roundTrips: ReadonlyArray<RoundTripRow>
  readonly input: InputRun | undefined
}

const json = (u: unknown): unknown => JSON.parse(JSON.stringify(u))

const throughMemory = (messages: Messages): Messages => {
  const memory = new BufferMemory()
  for (const m of messages) {
    memory.addMessage(m.role, m.content, {
      ...(m.id === undefined ? {} : { id: m.id }),
      toolCalls: m.toolCalls,
      ...(m.toolCallId === undefined ? {} : { toolCallId: m.toolCallId }),
      metadata: m.metadata
    })
  }
  return BufferMemory.fromJSON(JSON.parse(JSON.stringify(memory))).getMessages()
}

const readLines = (file: string): Array<string> =>
  fs.readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "")

const roundTrips = async (log: (line: string) => void, quick: boolean): Promise<Array<RoundTripRow>> => {
  const rows: Array<RoundTripRow> = []
  for (const file of DATA_FILES) {
    const full = path.join(dataDir, file)
    if (!fs.existsSync(full)) {
      log(`  ${file}: not found in ${dataDir}, skipped`)
      continue
    }
    const conversations = readLines(full).slice(0, quick ? 20 : undefined).map((line) => {
      const parsed = JSON.parse(line) as { readonly messages: ReadonlyArray<unknown> }
      const memory = BufferMemory.fromJSON({ version: 2, summary: "", buffer: parsed.messages })
      return memory.getMessages()
    })
    for (const format of FORMATS) {
      let identical = 0
      let refused = 0
      let messages = 0
      const started = performance.now()
      for (const conversation of conversations) {
        messages += conversation.length
        if (Effect.runSync(Effect.either(format.encode(conversation)))._tag === "Left") refused++
        const first = json(Effect.runSync(format.encode(conversation, { check: false })))
        const decoded = Effect.runSync(format.decode(json(first)))
        const back = json(Effect.runSync(format.encode(throughMemory(decoded), { check: false })))
        if (isDeepStrictEqual(back, first)) identical++
      }
      const elapsed = performance.now() - started
      rows.push({
        file,
        format: format.name,
        conversations: conversations.length,
        messages,
        identical,
        refused,
        microsPerMessage: (elapsed * 1000) / messages
      })
      log(`  ${file} ${format.name}: ${identical}/${conversations.length} identical, ${refused} refused`)
    }
  }
  return rows
}

/** Writes `megabytes` MB of JSONL by repeating the data's conversations with renamed ids. */
const generate = (file: string, megabytes: number) => {
  const lines = DATA_FILES.flatMap((f) => {
    const full = path.join(dataDir, f)
    return fs.existsSync(full) ? readLines(full) : []
  })
  const parsed = lines.map((line) => JSON.parse(line) as { id: string; messages: unknown })
  const largest = Math.max(...lines.map((line) => Buffer.byteLength(line)))
  const fd = fs.openSync(file, "w")
  let written = 0
  let conversations = 0
  let messages = 0
  const limit = megabytes * 2 ** 20
  try {
    for (let copy = 0; written < limit; copy++) {
      const chunk: Array<string> = []
      for (const c of parsed) {
        chunk.push(JSON.stringify({ id: `${c.id}#${copy}`, messages: c.messages }))
        conversations++
        messages += (c.messages as ReadonlyArray<unknown>).length
      }
      const text = `${chunk.join("\n")}\n`
      fs.writeSync(fd, text)
      written += Buffer.byteLength(text)
    }
  } finally {
    fs.closeSync(fd)
  }
  return { bytes: written, conversations, messages, largest }
}

const input = async (megabytes: number, log: (line: string) => void): Promise<InputRun | undefined> => {
  const bin = path.join(repoRoot, "dist", "bin.js")
  if (!fs.existsSync(bin)) {
    log("  dist/bin.js missing: input run skipped")
    return undefined
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rollmem-formats-"))
  const file = path.join(dir, "generated.jsonl")
  const hook = path.join(dir, "rss.cjs")
  fs.writeFileSync(
    hook,
    "process.on('exit', () => process.stderr.write(`\\nmaxRSS ${process.resourceUsage().maxRSS}\\n`))\n"
  )
  try {
    log(`  generating ${megabytes} MB in ${dir}`)
    const generated = generate(file, megabytes)
    log(`  replaying ${generated.conversations} conversations`)
    const started = performance.now()
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ["--require", hook, bin, "replay", file, "--tokenizer", "words", "--summarizer", "none", "--format", "json"],
        { stdio: ["ignore", "ignore", "pipe"] }
      )
      let err = ""
      child.stderr.setEncoding("utf8")
      child.stderr.on("data", (d: string) => {
        err = (err + d).slice(-10_000)
      })
      child.on("error", reject)
      child.on("close", (exit) => resolve({ code: exit, stderr: err }))
    })
    const seconds = (performance.now() - started) / 1000
    const rss = /maxRSS (\d+)/.exec(stderr)
    if (code !== 0) log(`  replay exited ${code}: ${stderr.slice(-500)}`)
    const mb = generated.bytes / 2 ** 20
    return {
      megabytes: mb,
      conversations: generated.conversations,
      messages: generated.messages,
      seconds,
      megabytesPerSecond: mb / seconds,
      peakRssMegabytes: rss === null ? Number.NaN : Number(rss[1]) / 1024,
      largestConversationMegabytes: generated.largest / 2 ** 20,
      exitCode: code
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

export const runFormats = async (log: (line: string) => void, quick: boolean): Promise<FormatsResults> => ({
  roundTrips: await roundTrips(log, quick),
  input: await input(quick ? 20 : 2_048, log)
})

type Table = (title: string, header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) => string

export const renderFormats = (r: FormatsResults, table: Table): string => {
  const out: Array<string> = []
  out.push(table(
    "8. Provider formats: round trips on the real data (from… → memory → JSON → memory → to…)",
    ["file", "format", "conversations", "messages", "identical", "refused by a checked to…", "µs / message"],
    r.roundTrips.map((row) => [
      row.file,
      row.format,
      String(row.conversations),
      String(row.messages),
      `${row.identical}/${row.conversations}`,
      String(row.refused),
      row.microsPerMessage.toFixed(1)
    ])
  ))
  if (r.input !== undefined) {
    const i = r.input
    out.push(table(
      "8b. Command-line input: a generated JSONL file, streamed (replay --tokenizer words --summarizer none)",
      ["MB", "conversations", "messages", "seconds", "MB/s", "peak RSS (MB)", "largest conversation (MB)", "exit"],
      [[
        i.megabytes.toFixed(0),
        String(i.conversations),
        String(i.messages),
        i.seconds.toFixed(1),
        i.megabytesPerSecond.toFixed(1),
        i.peakRssMegabytes.toFixed(0),
        i.largestConversationMegabytes.toFixed(2),
        String(i.exitCode)
      ]]
    ))
  }
  return out.join("\n")
}
