/**
 * The text of the summarization prompt, as plain strings, once for both
 * lines (pure, no `effect` import): the instructions, the request (current
 * summary + new turns), the compression request, and the rendering of
 * messages with their roles, tool calls and tool results. Each line's
 * `rollmem/ai` exports it as `SummaryPrompt`, and its
 * `LanguageModelSummarizer` builds its default prompts from it; the same
 * text can feed any SDK.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 * import { SummaryPrompt } from "rollmem/ai"
 *
 * const summary = "The user wants to fly to Rome."
 * const turns = [Message.user("On May 3, please"), Message.assistant("Booked AZ 611.")]
 * const system = SummaryPrompt.instructions(300)
 * const user = SummaryPrompt.request({ summary, transcript: SummaryPrompt.renderTranscript(turns), maxTokens: 300 })
 * ```
 *
 * @since 0.4.0
 */
import type { MessageFields as Message, ToolCallFields as ToolCall } from "./message.js"

const callLine = (call: ToolCall): string =>
  `-> calls tool ${call.name} (call id ${call.id}) ${
    call.arguments === "" ? "with no arguments" : `with arguments: ${call.arguments}`
  }`

/**
 * Renders messages for a prompt, one block per message separated by a blank
 * line: a header `[role]` (for a tool result, `[role: result of tool NAME,
 * call id ID]`, the name taken from the latest earlier call with that id,
 * or `[role: tool result, call id ID]` when the call is not in the list),
 * then the content when not empty, then one line per tool call:
 * `-> calls tool NAME (call id ID) with arguments: ARGS`. Ids and metadata
 * of messages are not rendered.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 * import { SummaryPrompt } from "rollmem/ai"
 *
 * SummaryPrompt.renderTranscript([
 *   Message.user("Weather in Rome?"),
 *   Message.assistant("", { toolCalls: [{ id: "c1", name: "weather", arguments: "{\"city\":\"Rome\"}" }] }),
 *   Message.tool("18C, sunny", { toolCallId: "c1" })
 * ])
 * // [user]
 * // Weather in Rome?
 * //
 * // [assistant]
 * // -> calls tool weather (call id c1) with arguments: {"city":"Rome"}
 * //
 * // [tool: result of tool weather, call id c1]
 * // 18C, sunny
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const renderTranscript = (messages: ReadonlyArray<Message>): string => {
  const names = new Map<string, string>()
  const blocks: Array<string> = []
  for (const message of messages) {
    const lines: Array<string> = []
    if (message.toolCallId === undefined) lines.push(`[${message.role}]`)
    else {
      const name = names.get(message.toolCallId)
      lines.push(
        name === undefined
          ? `[${message.role}: tool result, call id ${message.toolCallId}]`
          : `[${message.role}: result of tool ${name}, call id ${message.toolCallId}]`
      )
    }
    if (message.content !== "") lines.push(message.content)
    for (const call of message.toolCalls) {
      lines.push(callLine(call))
      names.set(call.id, call.name)
    }
    blocks.push(lines.join("\n"))
  }
  return blocks.join("\n\n")
}

/**
 * The sections of a structured summary, in order (docs/contract.md section
 * 14.3): the headings {@link instructions} asks the model to write under.
 *
 * @example
 * ```ts
 * import { SummaryPrompt } from "rollmem/ai"
 *
 * SummaryPrompt.SECTIONS // ["Goal and constraints", "Decisions", "State of the work", "Open tasks", "User preferences"]
 * ```
 *
 * @since 0.4.0
 * @category constants
 */
export const SECTIONS: ReadonlyArray<string> = [
  "Goal and constraints",
  "Decisions",
  "State of the work",
  "Open tasks",
  "User preferences"
]

/**
 * The system instructions: update (never restart) the running summary with
 * the new turns, as one self-contained text under the fixed headings of
 * {@link SECTIONS} (a section with nothing to say is left out); keep
 * artifacts verbatim (file paths, URLs, e-mail addresses, identifiers,
 * hashes, codes, exact error messages) and every fact, name, number, date
 * and each tool call's request and outcome; drop filler; write in the
 * conversation's language; at most `maxTokens` tokens; reply with the
 * summary only. With summary segments (`mode`, the fold's
 * `Summarizer.Request.mode`, docs/contract.md section 10.9): `"segment"`
 * asks for what the new turns add alone, the earlier segments being
 * context; `"consolidate"` for one summary replacing every segment.
 *
 * @example
 * ```ts
 * import { SummaryPrompt } from "rollmem/ai"
 *
 * const system: string = SummaryPrompt.instructions(500)
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const instructions = (maxTokens: number, mode?: "segment" | "consolidate" | undefined): string =>
  [
    "You maintain the running summary of a conversation between a user and an assistant that may use tools.",
    ...(mode === "segment"
      ? [
        "The summary is a list of segments that are never rewritten. You receive the earlier segments (possibly none),",
        "as context only, and the oldest turns, which are leaving the assistant's context.",
        "Write the next segment: what the new turns add, without repeating the earlier segments,",
        "under these headings, in this order,"
      ]
      : mode === "consolidate"
      ? [
        "The summary is a list of segments, oldest first, that has grown too long.",
        "Write one self-contained summary that replaces them all, the later segments taking precedence,",
        "under these headings, in this order,"
      ]
      : [
        "You receive the current summary (possibly empty) and the oldest turns, which are leaving the assistant's context.",
        "Update the current summary with the new turns: keep what it says unless the new turns change it,",
        "and do not start over. Write one self-contained text under these headings, in this order,"
      ]),
    `leaving out a heading with nothing under it: ${SECTIONS.map((s) => `"${s}"`).join(", ")}.`,
    "Keep every fact, name, number, date, preference and decision; the tasks and questions still open;",
    "and for each tool call what was asked and what came back (results and errors).",
    "Copy artifacts verbatim, never paraphrased: file paths, URLs, e-mail addresses, identifiers, hashes,",
    "codes and exact error messages.",
    "Drop greetings, filler and repetition. Do not invent anything.",
    "Write in the language of the conversation.",
    `The summary must not exceed ${maxTokens} tokens.`,
    "Reply with the summary only, without a preamble."
  ].join(" ")

/**
 * The request: the current summary (`(none yet)` when empty) in
 * `<summary>` tags, the rendered turns in `<turns>` tags, what to keep when
 * the fold was asked for with a focus (`compact({ focus })`,
 * docs/contract.md section 16.2), and the budget. With `mode` (summary
 * segments, docs/contract.md section 10.9): `"segment"` gives the earlier
 * segments as context and asks for the new segment only; `"consolidate"`
 * gives the segments (no turns) and asks for one summary replacing them.
 *
 * @example
 * ```ts
 * import { Message } from "rollmem"
 * import { SummaryPrompt } from "rollmem/ai"
 *
 * const user = SummaryPrompt.request({
 *   summary: "The user flies to Rome on May 3.",
 *   transcript: SummaryPrompt.renderTranscript([Message.user("Add a hotel near Termini")]),
 *   maxTokens: 300,
 *   focus: "booking references"
 * })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const request = (input: {
  readonly summary: string
  readonly transcript: string
  readonly maxTokens: number
  readonly focus?: string | undefined
  readonly mode?: "segment" | "consolidate" | undefined
}): string =>
  [
    ...(input.mode === "segment"
      ? ["Earlier segments (context only, not to repeat):"]
      : input.mode === "consolidate"
      ? ["Segments to replace, oldest first:"]
      : ["Current summary:"]),
    "<summary>",
    input.summary === "" ? "(none yet)" : input.summary,
    "</summary>",
    "",
    ...(input.mode === "consolidate" ? [] : ["New turns:", "<turns>", input.transcript, "</turns>", ""]),
    ...(input.focus === undefined || input.focus.trim() === ""
      ? []
      : [`Keep in particular, in full detail: ${input.focus.trim()}`, ""]),
    input.mode === "segment"
      ? `Reply with the new segment only, at most ${input.maxTokens} tokens.`
      : input.mode === "consolidate"
      ? `Reply with the one summary that replaces them, at most ${input.maxTokens} tokens.`
      : `Reply with the updated summary, at most ${input.maxTokens} tokens.`
  ].join("\n")

/**
 * The compression request: the over-budget summary, its size and the
 * budget, asking for a shorter version in the same language that keeps
 * names, numbers, decisions, open tasks and tool outcomes first.
 *
 * @example
 * ```ts
 * import { SummaryPrompt } from "rollmem/ai"
 *
 * declare const draft: string
 * const user = SummaryPrompt.compressRequest({ draft, draftTokens: 420, maxTokens: 300 })
 * // "This summary is 420 tokens, over the limit of 300: ..."
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const compressRequest = (input: {
  readonly draft: string
  readonly draftTokens: number
  readonly maxTokens: number
}): string =>
  [
    `This summary is ${input.draftTokens} tokens, over the limit of ${input.maxTokens}:`,
    "<summary>",
    input.draft,
    "</summary>",
    "",
    `Rewrite it in at most ${input.maxTokens} tokens, in the same language.`,
    "Keep names, numbers, decisions, open tasks and tool outcomes first; drop the least important details.",
    "Reply with the shorter summary only."
  ].join("\n")
