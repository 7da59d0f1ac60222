/**
 * Reading transcripts for `rollmem replay`: JSON Lines with one conversation
 * per line, or one JSON document holding a conversation (an OpenAI-style
 * chat export).
 *
 * - A `.json` file, or a file whose text starts with `[`, is one document: an
 *   array of messages or an object with `messages`. Its conversation id is
 *   the file name.
 * - Any other file is JSON Lines: each non-blank line is
 *   `{"id": "...", "messages": [...]}` (other keys ignored; a line without an
 *   id gets `file:line`). A file that is one JSON object spread over several
 *   lines is read as a document.
 *
 * Messages are the wire format of docs/contract.md section 2, also accepting OpenAI's
 * shapes: `content: null` (or missing) is `""`, a content array keeps its
 * text parts, a tool call may be `{"id", "type": "function", "function":
 * {"name", "arguments"}}`, and unknown keys are ignored.
 *
 * Nothing here fails: a file that cannot be read, a malformed line or
 * document becomes a one-line {@link Inputs.problems problem} and is skipped.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { Message } from "../schema/Message.js"
import { formatParseError } from "../schema/ParseIssue.js"
import * as Lines from "./Lines.js"

/**
 * One conversation to replay.
 *
 * @since 0.1.0
 * @category models
 */
export interface Conversation {
  readonly id: string
  readonly messages: ReadonlyArray<Message>
}

/**
 * What was read: the conversations in file and line order, and one line per
 * problem (`file:line: what is wrong`), in the same order.
 *
 * @since 0.1.0
 * @category models
 */
export interface Inputs {
  readonly conversations: ReadonlyArray<Conversation>
  readonly problems: ReadonlyArray<string>
}

const NullableString = Schema.optional(Schema.NullOr(Schema.String))

const WireToolCall = Schema.Struct({ id: Schema.String, name: Schema.String, arguments: NullableString }).annotations({
  identifier: "ToolCall"
})

const OpenAiToolCall = Schema.Struct({
  id: Schema.String,
  type: Schema.optional(Schema.String),
  function: Schema.Struct({ name: Schema.String, arguments: NullableString })
}).annotations({ identifier: "OpenAiToolCall" })

const ContentPart = Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) }).annotations({
  identifier: "ContentPart"
})

const InputWire = Schema.Struct({
  role: Schema.String,
  content: Schema.optional(Schema.NullOr(Schema.Union(Schema.String, Schema.Array(ContentPart)))),
  id: NullableString,
  tool_calls: Schema.optional(Schema.NullOr(Schema.Array(Schema.Union(WireToolCall, OpenAiToolCall)))),
  tool_call_id: NullableString,
  metadata: Schema.optional(Schema.Unknown)
}).annotations({ identifier: "Message" })

type InputWire = typeof InputWire.Type

const contentOf = (content: InputWire["content"]): string => {
  if (content === undefined || content === null) return ""
  if (typeof content === "string") return content
  return content.flatMap((part) => part.type === "text" && part.text !== undefined ? [part.text] : []).join("\n")
}

const toWire = (input: InputWire): typeof Message.Encoded => ({
  role: input.role,
  content: contentOf(input.content),
  ...(input.id === undefined || input.id === null ? {} : { id: input.id }),
  ...(input.tool_call_id === undefined || input.tool_call_id === null ? {} : { tool_call_id: input.tool_call_id }),
  ...(input.tool_calls === undefined || input.tool_calls === null ? {} : {
    tool_calls: input.tool_calls.map((call) =>
      "function" in call
        ? { id: call.id, name: call.function.name, arguments: call.function.arguments ?? "" }
        : { id: call.id, name: call.name, arguments: call.arguments ?? "" }
    )
  }),
  // Checked by the message schema (JSON data, nesting depth).
  ...(input.metadata === undefined
    ? {}
    : { metadata: input.metadata as NonNullable<typeof Message.Encoded["metadata"]> })
})

/**
 * A message as found in a transcript: the wire format, or OpenAI's chat
 * format (see the module docs), decoded to a {@link Message}.
 *
 * @since 0.1.0
 * @category schemas
 */
export const InputMessage: Schema.Schema<Message, InputWire> = Schema.transform(InputWire, Message, {
  strict: true,
  decode: toWire,
  encode: (wire): InputWire => wire
}).annotations({ identifier: "Message" })

const Messages = Schema.Array(InputMessage)

/**
 * One line of a JSON Lines transcript: `{"id", "messages"}`, other keys ignored.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ConversationLine = Schema.Struct({ id: Schema.optional(Schema.String), messages: Messages }).annotations({
  identifier: "an object {\"id\", \"messages\"}"
})

const decodeLine = Schema.decodeUnknownEither(Schema.parseJson(ConversationLine))
const decodeMessages = Schema.decodeUnknownEither(Messages)
const decodeDocument = Schema.decodeUnknownEither(Schema.Struct({ messages: Messages }))
const parseJson = Schema.decodeUnknownEither(Schema.parseJson())

const describe = (error: ParseResult.ParseError): string => formatParseError(error)

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * Reads one JSON document (array of messages, or object with `messages`) as
 * a conversation named `id`.
 */
const readDocument = (file: string, id: string, value: unknown): Inputs => {
  const decoded = Array.isArray(value)
    ? decodeMessages(value, { errors: "first" })
    : isObject(value)
    ? Either.map(decodeDocument(value, { errors: "first" }), (doc) => doc.messages)
    : Either.left(undefined)
  return Either.match(decoded, {
    onLeft: (error) => ({
      conversations: [],
      problems: [
        `${file}: ${
          error === undefined ? "expected an array of messages or an object with \"messages\"" : describe(error)
        }`
      ]
    }),
    onRight: (messages) => ({ conversations: [{ id, messages }], problems: [] })
  })
}

/** Reads one line of a JSON Lines file into `into`. */
const readLine = (
  file: string,
  number: number,
  text: string,
  into: { conversations: Array<Conversation>; problems: Array<string> }
) => {
  const line = text.trim()
  if (line === "") return
  Either.match(decodeLine(line, { errors: "first" }), {
    onLeft: (error) => into.problems.push(`${file}:${number}: ${describe(error)}`),
    onRight: (conversation) =>
      into.conversations.push({ id: conversation.id ?? `${file}:${number}`, messages: conversation.messages })
  })
}

const readLines = (file: string, text: string): Inputs => {
  const into = { conversations: [] as Array<Conversation>, problems: [] as Array<string> }
  const lines = text.split("\n")
  for (let i = 0; i < lines.length; i++) readLine(file, i + 1, lines[i], into)
  return into
}

/**
 * The problem line for a line longer than `limit` bytes (default
 * {@link Lines.MAX_LINE_BYTES}).
 *
 * @since 0.2.0
 * @category constructors
 */
export const tooLong = (file: string, line: number, bytes: number, limit: number = Lines.MAX_LINE_BYTES): string =>
  `${file}:${line}: a line of ${bytes.toLocaleString("en-US")} bytes is longer than ${
    limit.toLocaleString("en-US")
  } bytes, the longest line read (V8's longest string); skipped`

/**
 * Reads a JSON Lines file as a stream, one line at a time, so no more than
 * one line is ever held as text; a line over `limit` bytes is a problem
 * (`file:line: a line of N bytes, longer than ...`) and the lines after it
 * are still read.
 *
 * @since 0.2.0
 * @category constructors
 */
export const streamLines = (
  file: string,
  limit: number = Lines.MAX_LINE_BYTES
): Effect.Effect<Inputs, never, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const into = { conversations: [] as Array<Conversation>, problems: [] as Array<string> }
    let first = true
    const read = yield* Effect.either(Stream.runForEach(
      Lines.lines(fs.stream(file, { chunkSize: FileSystem.MiB(1) }), limit),
      (line) =>
        Effect.sync(() => {
          const text = line._tag === "Text" && first && line.text.charCodeAt(0) === 0xfeff
            ? line.text.slice(1)
            : undefined
          first = false
          if (line._tag === "TooLong") into.problems.push(tooLong(file, line.line, line.bytes, limit))
          else readLine(file, line.line, text ?? line.text, into)
        })
    ))
    if (Either.isLeft(read)) into.problems.push(`${file}: ${describeReadError(read.left)}`)
    return into
  })

/**
 * Reads the text of one transcript (see the module docs for the formats).
 * `file` names the file in problems; `name` (the file name) is the id of a
 * plain JSON document. Pure.
 *
 * @since 0.1.0
 * @category constructors
 */
export const parseText = (file: string, name: string, text: string): Inputs => {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  const start = body.trimStart()
  const lower = name.toLowerCase()
  if (lower.endsWith(".jsonl") || lower.endsWith(".ndjson")) return readLines(file, body)
  if (lower.endsWith(".json") || start.startsWith("[")) {
    return Either.match(parseJson(body), {
      onLeft: (error) => ({ conversations: [], problems: [`${file}: ${describe(error)}`] }),
      onRight: (value) => readDocument(file, name, value)
    })
  }
  if (start.startsWith("{") && /\n\s*\S/.test(start)) {
    // One object over several lines (a pretty-printed export), or JSON Lines.
    const whole = parseJson(body)
    if (Either.isRight(whole) && isObject(whole.right)) return readDocument(file, name, whole.right)
  }
  return readLines(file, body)
}

const describeReadError = (error: unknown): string => {
  if (isObject(error) && error._tag === "SystemError") {
    switch (error.reason) {
      case "NotFound":
        return "no such file"
      case "PermissionDenied":
        return "permission denied"
    }
    if (typeof error.description === "string" && error.description.includes("EISDIR")) return "is a directory"
  }
  return isObject(error) && typeof error.message === "string" ? error.message : String(error)
}

/**
 * Whether anything (a file, a directory) exists at `path`; false as well
 * when that cannot be told (no permission to look).
 *
 * @since 0.1.0
 * @category constructors
 */
export const exists = (path: string): Effect.Effect<boolean, never, FileSystem.FileSystem> =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => Effect.orElseSucceed(fs.exists(path), () => false))

/**
 * Reads every file in order with the platform `FileSystem`. A file that
 * cannot be read is a problem (`file: no such file`), and the others are
 * still read.
 *
 * @since 0.1.0
 * @category constructors
 */
export const readInputs = (
  files: ReadonlyArray<string>
): Effect.Effect<Inputs, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const conversations: Array<Conversation> = []
    const problems: Array<string> = []
    for (const file of files) {
      // JSON Lines, and any file too big to be one string, are streamed line by line.
      const lower = file.toLowerCase()
      const info = yield* Effect.either(fs.stat(file))
      const big = Either.isRight(info) && Number(info.right.size) > Lines.MAX_LINE_BYTES
      if (
        Either.isRight(info) && info.right.type === "File" &&
        (big || lower.endsWith(".jsonl") || lower.endsWith(".ndjson"))
      ) {
        const inputs = yield* streamLines(file)
        conversations.push(...inputs.conversations)
        problems.push(...inputs.problems)
        continue
      }
      const read = yield* Effect.either(fs.readFileString(file))
      if (Either.isLeft(read)) {
        problems.push(`${file}: ${describeReadError(read.left)}`)
        continue
      }
      const inputs = parseText(file, path.basename(file), read.right)
      conversations.push(...inputs.conversations)
      problems.push(...inputs.problems)
    }
    return { conversations, problems }
  })
