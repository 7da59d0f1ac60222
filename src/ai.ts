/**
 * rollmem's `@effect/ai` integration, a separate entry (`rollmem/ai`) so the
 * core import never loads `@effect/ai` (an optional peer dependency):
 *
 * - {@link LanguageModelSummarizer}: a `Summarizer` backed by a `LanguageModel`;
 * - {@link SummarizerPolicy}: retry only transient failures, fall back to another summarizer;
 * - {@link TokenizerCounter}: a `TokenCounter` backed by a `Tokenizer`;
 * - {@link AiPrompt}: `Message` to `Prompt` and back;
 * - {@link ConversationSearch}: the `conversation_search` tool as a `Toolkit` on a memory's `recall`;
 * - {@link SummaryPrompt}: the summarization prompt as plain text, for any SDK.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as AiPrompt from "./ai/AiPrompt.js"
/** @since 0.4.0 */
export * as ConversationSearch from "./ai/ConversationSearch.js"
/** @since 0.1.0 */
export * as LanguageModelSummarizer from "./ai/LanguageModelSummarizer.js"
/** @since 0.1.0 */
export * as SummaryPrompt from "./ai/SummaryPrompt.js"
/** @since 0.1.0 */
export * as SummarizerPolicy from "./ai/SummarizerPolicy.js"
/** @since 0.1.0 */
export * as TokenizerCounter from "./ai/TokenizerCounter.js"
