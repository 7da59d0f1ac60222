/**
 * `rollmem/ai` on the Effect 4 line: the Effect 3 line's `rollmem/ai` on
 * Effect 4's own AI modules (`effect/ai`, part of `effect`, so this entry
 * needs no other package):
 *
 * - {@link LanguageModelSummarizer}: a `Summarizer` backed by a `LanguageModel`;
 * - {@link SummarizerPolicy}: run calls through a policy, retry only transient failures, fall back to another summarizer;
 * - {@link TokenizerCounter}: a `TokenCounter` backed by a `Tokenizer`;
 * - {@link AiPrompt}: `Message` to `Prompt` and back;
 * - {@link ConversationSearch}: the `conversation_search` tool as a `Toolkit` on a memory's `recall`;
 * - {@link SummaryPrompt}: the summarization prompt as plain text, for any SDK.
 *
 * @since 1.0.0
 */

/** @since 1.0.0 */
export * as AiPrompt from "./ai/AiPrompt.js"
/** @since 1.0.0 */
export * as ConversationSearch from "./ai/ConversationSearch.js"
/** @since 1.0.0 */
export * as LanguageModelSummarizer from "./ai/LanguageModelSummarizer.js"
/** @since 1.0.0 */
export * as SummarizerPolicy from "./ai/SummarizerPolicy.js"
/** The summarization prompt's text, pure (`src/core/summaryPrompt.ts`, the Effect 3 line's). @since 1.0.0 */
export * as SummaryPrompt from "../../src/core/summaryPrompt.js"
/** @since 1.0.0 */
export * as TokenizerCounter from "./ai/TokenizerCounter.js"
