/**
 * The ready summarizers of `rollmem/adapters` on the Effect 3 line, held to
 * the case runner both lines run (test/support/summarizerCases.ts;
 * effect4/test/adapters/readySummarizers.test.ts runs it on the Effect 4
 * line), with this line's summarizer-usage counters (contract 16.5).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Metric } from "effect"
import * as Adapters from "../../src/adapters.js"
import { ConfigError, SummarizerError } from "../../src/Errors.js"
import { AsyncRollingMemory } from "../../src/promise/index.js"
import * as Message from "../../src/schema/Message.js"
import * as Summarizer from "../../src/services/Summarizer.js"
import * as Telemetry from "../../src/Telemetry.js"
import { runSummarizerCases } from "../support/summarizerCases.js"

runSummarizerCases<Message.Message>({
  name: "effect3",
  openAIChatSummarizer: Adapters.openAIChatSummarizer,
  anthropicSummarizer: Adapters.anthropicSummarizer,
  aiSdkSummarizer: Adapters.aiSdkSummarizer,
  user: (content) => Message.user(content),
  request: ({ focus, maxSummaryTokens, mode }) => ({
    ...Summarizer.request({ maxSummaryTokens }),
    ...(focus === undefined ? {} : { focus }),
    ...(mode === undefined ? {} : { mode })
  }),
  memory: (options) => new AsyncRollingMemory(options),
  configError: (error) => error instanceof ConfigError ? [error.option, error.description] : undefined,
  summarizerError: (error) => error instanceof SummarizerError ? error.description : undefined,
  counters: (summarizer) =>
    Effect.runSync(Effect.all([
      Effect.map(
        Metric.value(Metric.tagged(Telemetry.summarizerInputTokens, "summarizer", summarizer)),
        (v) => v.count
      ),
      Effect.map(
        Metric.value(Metric.tagged(Telemetry.summarizerOutputTokens, "summarizer", summarizer)),
        (v) => v.count
      )
    ]))
}, { assert, describe, it })
