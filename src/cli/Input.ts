/**
 * Reading transcripts for `rollmem replay`: JSON Lines with one conversation
 * per line, or one JSON document holding a conversation (an OpenAI-style
 * chat export).
 *
 * - A `.json` file, or a file whose text starts with `[`, is one document: an
 *   array of messages or a conversation object, whose id is the file name;
 *   or an array of conversation objects, each named by its `id` (else
 *   `file[i]`). An empty array (`[]`) holds no conversation.
 * - A conversation with no message (`{"messages": []}`) is not replayed: it
 *   is a warning naming where it was read.
 * - Any other file is JSON Lines: each non-blank line is
 *   `{"id": "...", "messages": [...]}` (other keys ignored; a line without an
 *   id gets `file:line`). A file that is one JSON object spread over several
 *   lines is read as a document.
 *
 * Each conversation is read in the format `--input-format` names, or
 * detected per conversation (`auto`, the default): OpenAI chat, Anthropic
 * Messages, AI SDK, Gemini or rollmem's wire format (docs/contract.md
 * section 2), see `Formats.ts`. A message the format does not define (an
 * unknown key, an unknown part type, a tool call that cannot be read) refuses
 * its conversation with a problem naming `file:line` and the field; nothing
 * is dropped silently. So does an `id` that is an empty string (`""`, which
 * `--show` and `--store` could not name): `file:line: a conversation id must
 * be a non-empty string, got ""`.
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
import { idProblem } from "../core/store.js"
import * as Usage from "../core/usage.js"
import type { Message } from "../schema/Message.js"
import { formatParseError, formatValue } from "../schema/ParseIssue.js"
import * as Formats from "./Formats.js"
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
  /**
   * Where it was read, when the command line read it: `file:line`,
   * `file[i]` or `file` (see {@link Item}); what names it in an error.
   */
  readonly where?: string | undefined
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
  /**
   * What was read but looks like a mistake, one line each
   * (`file:line: unknown role "asistant" at message 1 ...`, see
   * {@link roleWarnings}, and, across files, a conversation id read twice):
   * replayed all the same.
   */
  readonly warnings: ReadonlyArray<string>
}

/**
 * One thing read from the input, in file and line order: a conversation, a
 * problem line (`file:line: ...`) for something that could not be read, a
 * warning line (`file:line: ...`) for something read that looks like a
 * mistake (it is replayed all the same), or
 * a blank JSON Lines line (`Blank`: nothing to replay, nothing to report).
 * `bytes` is how much of the input it stands for (a JSON Lines line with its
 * line break, or a whole file): what progress is counted in.
 *
 * @since 0.2.0
 * @category models
 */
export type Item =
  | {
    readonly _tag: "Conversation"
    readonly conversation: Conversation
    readonly bytes: number
    /** Where it was read: `file:line`, `file[i]` (an array of conversations) or `file` (a whole document). */
    readonly where?: string | undefined
  }
  | { readonly _tag: "Warning"; readonly warning: string; readonly bytes: number }
  | { readonly _tag: "Problem"; readonly problem: string; readonly bytes: number }
  | { readonly _tag: "Blank"; readonly bytes: number }

const parseJson = Schema.decodeUnknownEither(Schema.parseJson())

/** What a read gathers: each conversation with where it was read, problems and warnings. */
interface Into {
  readonly conversations: Array<Conversation>
  readonly wheres: Array<string>
  readonly problems: Array<string>
  readonly warnings: Array<string>
}

const emptyInto = (): Into => ({ conversations: [], wheres: [], problems: [], warnings: [] })

/**
 * The roles a provider defines: a message in any other role (`"asistant"`)
 * is replayed as given, with a warning.
 *
 * @since 0.3.0
 * @category constants
 */
export const knownRoles: ReadonlyArray<string> = ["system", "developer", "user", "assistant", "tool"]

const knownRoleSet = new Set(knownRoles)

/**
 * One warning line per role of `messages` that is not one of
 * {@link knownRoles}, naming `where` and the first message in it:
 * `t.jsonl:3: unknown role "asistant" at message 1 (roles: system,
 * developer, user, assistant, tool); replayed as given`. Empty when every
 * role is known.
 *
 * @example
 * ```ts
 * roleWarnings("t.jsonl:3", [Message.user("hi"), Message.make("asistant", "hello")])
 * // ['t.jsonl:3: unknown role "asistant" at message 1 (roles: system, developer, user, assistant, tool); replayed as given']
 * ```
 *
 * @since 0.3.0
 * @category combinators
 */
export const roleWarnings = (where: string, messages: ReadonlyArray<Message>): Array<string> => {
  const warnings: Array<string> = []
  const seen = new Set<string>()
  messages.forEach((message, index) => {
    if (knownRoleSet.has(message.role) || seen.has(message.role)) return
    seen.add(message.role)
    warnings.push(
      `${where}: unknown role ${JSON.stringify(message.role)} at message ${index} (roles: ${
        knownRoles.join(", ")
      }); replayed as given`
    )
  })
  return warnings
}

/**
 * One warning line per assistant message of `messages` whose usage cannot be
 * read (docs/contract.md section 13.2: `Usage.reportedUsageProblem`), naming
 * `where` and the message: `t.jsonl:3: the usage of message 1 (assistant)
 * is skipped: prompt_tokens is "812", not a non-negative integer`. The
 * replay records no sample for it. Empty when every usage reads.
 *
 * @example
 * ```ts
 * usageWarnings("t.jsonl:3", [Message.user("hi"), Message.assistant("hello", { metadata: { usage: { prompt_tokens: -1 } } })])
 * // ["t.jsonl:3: the usage of message 1 (assistant) is skipped: prompt_tokens is -1, not a non-negative integer"]
 * ```
 *
 * @since 0.4.0
 * @category combinators
 */
export const usageWarnings = (where: string, messages: ReadonlyArray<Message>): Array<string> => {
  const warnings: Array<string> = []
  messages.forEach((message, index) => {
    if (message.role !== "assistant") return
    const problem = Usage.reportedUsageProblem(message.metadata)
    if (problem !== undefined) {
      warnings.push(`${where}: the usage of message ${index} (assistant) is skipped: ${problem}`)
    }
  })
  return warnings
}

/**
 * The warning for a conversation with no message, read at `where` and
 * skipped: `t.jsonl:3: conversation "a" has no message; skipped`.
 *
 * @example
 * ```ts
 * emptyConversation("t.jsonl:3", "a")
 * // 't.jsonl:3: conversation "a" has no message; skipped'
 * ```
 *
 * @since 0.4.0
 * @category constructors
 */
export const emptyConversation = (where: string, id: string): string =>
  `${where}: conversation ${JSON.stringify(id)} has no message; skipped`

/**
 * Adds a conversation read at `where`, with the warnings about its roles and
 * usages; a conversation with no message is not one to replay: a warning
 * ({@link emptyConversation}) instead.
 */
const pushConversation = (into: Into, where: string, conversation: Conversation): void => {
  if (conversation.messages.length === 0) {
    into.warnings.push(emptyConversation(where, conversation.id))
    return
  }
  for (const warning of roleWarnings(where, conversation.messages)) into.warnings.push(warning)
  for (const warning of usageWarnings(where, conversation.messages)) into.warnings.push(warning)
  into.conversations.push(conversation)
  into.wheres.push(where)
}

const describe = (error: ParseResult.ParseError): string => formatParseError(error)

const LineId = Schema.Struct({ id: Schema.optional(Schema.String) })
const decodeId = Schema.decodeUnknownEither(LineId)

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** Whether a value is a conversation object rather than a message: it holds `messages` or `contents`, no `role`. */
const isConversation = (u: unknown): u is Record<string, unknown> =>
  isObject(u) && !("role" in u) && (Array.isArray(u.messages) || Array.isArray(u.contents))

/**
 * Reads one JSON document as a conversation named `id`: a conversation
 * object, or an array of messages; or, an array of conversation objects,
 * each as a conversation named by its `id` (else `file[i]`), a problem
 * naming `file[i]`. An empty array holds no conversation (neither messages
 * nor conversations): nothing is read from it, as from an empty file.
 */
const readDocument = (file: string, id: string, value: unknown, format: Formats.InputFormat): Into => {
  if (Array.isArray(value) && value.length === 0) return emptyInto()
  if (Array.isArray(value) && value.length > 0 && value.every(isConversation)) {
    const into = emptyInto()
    value.forEach((item, i) => {
      const where = `${file}[${i}]`
      const badId = "id" in item && typeof item.id === "string" ? idProblem(item.id) : undefined
      if (badId !== undefined) {
        into.problems.push(`${where}: ${badId}`)
        return
      }
      Either.match(Formats.decode(item, format), {
        onLeft: (problem) => into.problems.push(`${where}: ${problem}`),
        onRight: (decoded) =>
          pushConversation(into, where, {
            id: typeof item.id === "string" ? item.id : where,
            messages: decoded.messages
          })
      })
    })
    return into
  }
  const into = emptyInto()
  const conversation = Formats.conversationOf(value)
  if (conversation === undefined) {
    into.problems.push(`${file}: expected an array of messages or a conversation object`)
    return into
  }
  Either.match(Formats.decode(conversation, format), {
    onLeft: (problem) => into.problems.push(`${file}: ${problem}`),
    onRight: (decoded) => pushConversation(into, file, { id, messages: decoded.messages })
  })
  return into
}

/** Reads one line of a JSON Lines file into `into`. */
const readLine = (
  file: string,
  number: number,
  text: string,
  into: Into,
  format: Formats.InputFormat
) => {
  const line = text.trim()
  if (line === "") return
  const where = `${file}:${number}`
  const parsed = parseJson(line)
  if (Either.isLeft(parsed)) return into.problems.push(`${where}: ${describe(parsed.left)}`)
  const value = parsed.right
  if (!isObject(value)) {
    return into.problems.push(
      `${where}: expected a conversation object ({"id", "messages"}), got ${formatValue(value)}`
    )
  }
  const id = decodeId(value)
  if (Either.isLeft(id)) return into.problems.push(`${where}: ${describe(id.left)}`)
  const badId = id.right.id === undefined ? undefined : idProblem(id.right.id)
  if (badId !== undefined) return into.problems.push(`${where}: ${badId}`)
  Either.match(Formats.decode(value, format), {
    onLeft: (problem) => into.problems.push(`${where}: ${problem}`),
    onRight: (decoded) => pushConversation(into, where, { id: id.right.id ?? where, messages: decoded.messages })
  })
}

const readLines = (file: string, text: string, format: Formats.InputFormat): Into => {
  const into = emptyInto()
  const lines = text.split("\n")
  for (let i = 0; i < lines.length; i++) readLine(file, i + 1, lines[i], into, format)
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

/** The items of what one read gave, the first standing for `bytes`: warnings first, then conversations, problems. */
const itemsOf = (inputs: Into, bytes: number): Array<Item> => {
  const items: Array<Item> = []
  for (const warning of inputs.warnings) items.push({ _tag: "Warning", warning, bytes: 0 })
  inputs.conversations.forEach((conversation, i) =>
    items.push({ _tag: "Conversation", conversation, bytes: 0, where: inputs.wheres[i] })
  )
  for (const problem of inputs.problems) items.push({ _tag: "Problem", problem, bytes: 0 })
  if (items.length > 0) items[0] = { ...items[0], bytes }
  return items
}

/**
 * The items of a JSON Lines file, read as a stream, one line at a time, so
 * no more than one line is ever held as text; a line over `limit` bytes is
 * a problem (`file:line: a line of N bytes, longer than ...`) and the lines
 * after it are still read.
 *
 * @since 0.2.0
 * @category constructors
 */
export const streamLineItems = (
  file: string,
  limit: number = Lines.MAX_LINE_BYTES,
  format: Formats.InputFormat = "auto"
): Stream.Stream<Item, never, FileSystem.FileSystem> =>
  Stream.unwrap(Effect.map(FileSystem.FileSystem, (fs) => {
    let first = true
    return Lines.lines(fs.stream(file, { chunkSize: FileSystem.MiB(1) }), limit).pipe(
      Stream.mapConcat((line): Array<Item> => {
        const bytes = line.bytes + 1
        if (line._tag === "TooLong") {
          return [{ _tag: "Problem", problem: tooLong(file, line.line, line.bytes, limit), bytes }]
        }
        const text = first && line.text.charCodeAt(0) === 0xfeff ? line.text.slice(1) : line.text
        first = false
        const into = emptyInto()
        readLine(file, line.line, text, into, format)
        const items = itemsOf(into, bytes)
        return items.length === 0 ? [{ _tag: "Blank", bytes }] : items
      }),
      Stream.catchAll((error) =>
        Stream.make<Array<Item>>({ _tag: "Problem", problem: `${file}: ${describeReadError(error)}`, bytes: 0 })
      )
    )
  }))

/**
 * Reads a JSON Lines file as a stream (see {@link streamLineItems}) and
 * collects what it read.
 *
 * @since 0.2.0
 * @category constructors
 */
export const streamLines = (
  file: string,
  limit: number = Lines.MAX_LINE_BYTES,
  format: Formats.InputFormat = "auto"
): Effect.Effect<Inputs, never, FileSystem.FileSystem> =>
  Effect.map(Stream.runCollect(streamLineItems(file, limit, format)), collect)

const collect = (items: Iterable<Item>): Inputs => {
  const conversations: Array<Conversation> = []
  const problems: Array<string> = []
  const warnings: Array<string> = []
  for (const item of items) {
    if (item._tag === "Conversation") conversations.push(item.conversation)
    else if (item._tag === "Problem") problems.push(item.problem)
    else if (item._tag === "Warning") warnings.push(item.warning)
  }
  return { conversations, problems, warnings }
}

/**
 * Reads the text of one transcript (see the module docs for the formats).
 * `file` names the file in problems; `name` (the file name) is the id of a
 * plain JSON document; `format` is `--input-format` (default `auto`). Its
 * warnings are those of unknown roles ({@link roleWarnings}). Pure.
 *
 * @since 0.1.0
 * @category constructors
 */
export const parseText = (
  file: string,
  name: string,
  text: string,
  format: Formats.InputFormat = "auto"
): Inputs => {
  const { conversations, problems, warnings } = readText(file, name, text, format)
  return { conversations, problems, warnings }
}

const readText = (file: string, name: string, text: string, format: Formats.InputFormat): Into => {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  const start = body.trimStart()
  const lower = name.toLowerCase()
  if (lower.endsWith(".jsonl") || lower.endsWith(".ndjson")) return readLines(file, body, format)
  if (lower.endsWith(".json") || start.startsWith("[")) {
    return Either.match(parseJson(body), {
      onLeft: (error) => ({ ...emptyInto(), problems: [`${file}: ${describe(error)}`] }),
      onRight: (value) => readDocument(file, name, value, format)
    })
  }
  if (start.startsWith("{") && /\n\s*\S/.test(start)) {
    // One object over several lines (a pretty-printed export), or JSON Lines.
    const whole = parseJson(body)
    if (Either.isRight(whole) && isObject(whole.right)) return readDocument(file, name, whole.right, format)
  }
  return readLines(file, body, format)
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
 * Whether `path` is a directory; false when nothing is there or that cannot
 * be told.
 *
 * @since 0.3.0
 * @category constructors
 */
export const isDirectory = (path: string): Effect.Effect<boolean, never, FileSystem.FileSystem> =>
  Effect.flatMap(
    FileSystem.FileSystem,
    (fs) => Effect.map(Effect.either(fs.stat(path)), (info) => Either.isRight(info) && info.right.type === "Directory")
  )

/**
 * The items of every file, in order, with the platform `FileSystem`, each
 * conversation in `format` (`--input-format`, default `auto`): JSON Lines
 * files, and any file too big to be one string, are streamed line by line
 * (memory bounded by the longest line, not the file); other files are read
 * whole. A file that cannot be read is a problem (`file: no such file`), and
 * the others are still read. An empty line is an item with an empty problem
 * (its bytes only): skip it. A conversation whose id was already read
 * comes after a warning saying where (`t.jsonl:7: conversation id "a" was
 * already read at t.jsonl:2; both are replayed`).
 *
 * @since 0.2.0
 * @category constructors
 */
export const stream = (
  files: ReadonlyArray<string>,
  format: Formats.InputFormat = "auto"
): Stream.Stream<Item, never, FileSystem.FileSystem | Path.Path> =>
  Stream.flatMap(Stream.fromIterable(files), (file) =>
    Stream.unwrap(Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const lower = file.toLowerCase()
      const info = yield* Effect.either(fs.stat(file))
      const size = Either.isRight(info) ? Number(info.right.size) : 0
      if (
        Either.isRight(info) && info.right.type === "File" &&
        (size > Lines.MAX_LINE_BYTES || lower.endsWith(".jsonl") || lower.endsWith(".ndjson"))
      ) {
        return streamLineItems(file, Lines.MAX_LINE_BYTES, format)
      }
      const read = yield* Effect.either(fs.readFileString(file))
      if (Either.isLeft(read)) {
        return Stream.make<Array<Item>>({
          _tag: "Problem",
          problem: `${file}: ${describeReadError(read.left)}`,
          bytes: size
        })
      }
      return Stream.fromIterable(itemsOf(readText(file, path.basename(file), read.right, format), size))
    })), { concurrency: 1 }).pipe(warnRepeatedIds)

/**
 * Adds a warning before each conversation whose id was already read in the
 * same stream (`t.jsonl:7: conversation id "a" was already read at
 * t.jsonl:2; both are replayed`): ids are what `--show` and `--store` go by.
 */
const warnRepeatedIds = <E, R>(items: Stream.Stream<Item, E, R>): Stream.Stream<Item, E, R> =>
  Stream.suspend(() => {
    const firstAt = new Map<string, string>()
    return Stream.mapConcat(items, (item): Array<Item> => {
      if (item._tag !== "Conversation") return [item]
      const id = item.conversation.id
      const where = item.where ?? id
      const first = firstAt.get(id)
      if (first === undefined) {
        firstAt.set(id, where)
        return [item]
      }
      const warning = `${where}: conversation id ${JSON.stringify(id)} was already read at ${first}; both are replayed`
      return [{ _tag: "Warning", warning, bytes: 0 }, item]
    })
  })

/**
 * The total size of the files in bytes (what {@link stream}'s items add up
 * to); a file that cannot be read counts 0.
 *
 * @since 0.2.0
 * @category constructors
 */
export const totalBytes = (files: ReadonlyArray<string>): Effect.Effect<number, never, FileSystem.FileSystem> =>
  Effect.flatMap(
    FileSystem.FileSystem,
    (fs) =>
      Effect.reduce(
        files,
        0,
        (sum, file) =>
          Effect.map(
            Effect.either(fs.stat(file)),
            (info) => sum + (Either.isRight(info) && info.right.type === "File" ? Number(info.right.size) : 0)
          )
      )
  )

/**
 * Reads every file in order (see {@link stream}) and collects what it read:
 * the conversations and the problem lines.
 *
 * @since 0.1.0
 * @category constructors
 */
export const readInputs = (
  files: ReadonlyArray<string>,
  format: Formats.InputFormat = "auto"
): Effect.Effect<Inputs, never, FileSystem.FileSystem | Path.Path> =>
  Effect.map(Stream.runCollect(stream(files, format)), collect)
