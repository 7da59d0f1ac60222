/**
 * The text of the summarization prompt, as plain strings: the instructions,
 * the request (current summary + new turns), the compression request, and
 * the rendering of messages with their roles, tool calls and tool results.
 *
 * `LanguageModelSummarizer` builds its default prompts from these. The
 * module imports nothing from `@effect/ai`, so the same text can feed any
 * SDK (an OpenAI client behind the Promise facade's `summarize`).
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
 * @since 0.1.0
 */
export { compressRequest, instructions, renderTranscript, request, SECTIONS } from "../core/summaryPrompt.js"
