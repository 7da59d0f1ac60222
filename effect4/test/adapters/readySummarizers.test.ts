/**
 * The ready summarizers of `rollmem/adapters` on the Effect 4 line, held to
 * the case runner both lines run (../../../test/support/summarizerCases.ts;
 * test/adapters/readySummarizers.test.ts runs it on the Effect 3 line): the
 * same request bodies, SDK options, replies, usage and option errors.
 */
import { assert, describe, it } from "@effect/vitest"
import { runSummarizerCases } from "../../../test/support/summarizerCases.js"
import * as Adapters from "../../src/adapters.js"
import { ConfigError, SummarizerError } from "../../src/Errors.js"
import { AsyncRollingMemory } from "../../src/promise/index.js"
import * as Message from "../../src/schema/Message.js"
import * as TokenCounter from "../../src/services/TokenCounter.js"

runSummarizerCases<Message.Message>({
  name: "effect4",
  openAIChatSummarizer: Adapters.openAIChatSummarizer,
  anthropicSummarizer: Adapters.anthropicSummarizer,
  aiSdkSummarizer: Adapters.aiSdkSummarizer,
  user: (content) => Message.user(content),
  request: ({ focus, maxSummaryTokens, mode }) => ({
    maxSummaryTokens,
    counter: TokenCounter.wordCounter,
    ...(focus === undefined ? {} : { focus }),
    ...(mode === undefined ? {} : { mode })
  }),
  memory: (options) => new AsyncRollingMemory(options),
  configError: (error) => error instanceof ConfigError ? [error.option, error.description] : undefined,
  summarizerError: (error) => error instanceof SummarizerError ? error.description : undefined
}, { assert, describe, it })
