/**
 * A committed summary is counted only when its count is needed
 * (docs/contract.md section 10.4): the Effect 3 line's cases
 * (`test/support/lazySummaryCases.ts`), through the Effect API and the
 * Promise facade.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { type Outcome, runLazySummaryCases } from "../../test/support/lazySummaryCases.js"
import { Message, RollingMemory, Summarizer, TokenCounter } from "../src/index.js"
import { RollingMemory as FacadeRollingMemory } from "../src/promise/index.js"

const outcomeOf = (exit: Exit.Exit<number | void, { readonly _tag: string; readonly message: string }>) => {
  if (Exit.isSuccess(exit)) return exit.value === undefined ? undefined : { value: exit.value }
  const reason = exit.cause.reasons[0]
  if (reason === undefined || reason._tag !== "Fail") throw new Error("expected a typed failure")
  return { error: reason.error._tag, message: reason.error.message }
}

const thrown = (f: () => number | void): Outcome | undefined => {
  try {
    const value = f()
    return value === undefined ? undefined : { value }
  } catch (error) {
    const e = error as { _tag: string; message: string }
    return { error: e._tag, message: e.message }
  }
}

runLazySummaryCases({
  name: "Effect 4",
  nanMessage: "token counter failed: token counter returned NaN, not a non-negative integer",
  apis: [
    {
      name: "Effect API",
      make: ({ count, maxSummaryTokens, summarize }) => {
        const layer = Layer.merge(
          TokenCounter.layerFunction(count),
          Layer.succeed(
            Summarizer.Summarizer,
            Summarizer.fromFunction((summary, messages) => summarize(summary, messages.map((m) => m.content)))
          )
        )
        const memory = Effect.runSync(Effect.provide(RollingMemory.make({ maxTokens: 4, maxSummaryTokens }), layer))
        return {
          add: (role, content) =>
            Effect.runSync(memory.add(role === "user" ? Message.user(content) : Message.assistant(content))),
          summary: () => Effect.runSync(memory.summary),
          summaryTokens: () => outcomeOf(Effect.runSyncExit(memory.summaryTokens))!,
          contextTokens: () => outcomeOf(Effect.runSyncExit(memory.contextTokens))!,
          messages: () => void Effect.runSync(memory.messages),
          recordUsage: (inputTokens) => outcomeOf(Effect.runSyncExit(memory.recordUsage({ inputTokens })))
        }
      }
    },
    {
      name: "Promise facade",
      make: ({ count, maxSummaryTokens, summarize }) => {
        const memory = new FacadeRollingMemory({
          maxTokens: 4,
          tokenCounter: count,
          summarize: (summary, turns) => summarize(summary, turns.map((m) => m.content)),
          ...(maxSummaryTokens === undefined ? {} : { maxSummaryTokens })
        })
        return {
          add: (role, content) =>
            role === "user" ? memory.addUserMessage(content) : memory.addAssistantMessage(content),
          summary: () => memory.summary,
          summaryTokens: () => thrown(() => memory.summaryTokens)!,
          contextTokens: () => thrown(() => memory.contextTokens)!,
          messages: () => void memory.getMessages(),
          recordUsage: (inputTokens) => thrown(() => memory.recordUsage({ inputTokens }))
        }
      }
    }
  ]
}, { assert, describe, it })
