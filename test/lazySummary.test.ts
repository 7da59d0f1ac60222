/**
 * A committed summary is counted only when its count is needed
 * (docs/contract.md section 10.4): the cases of
 * `test/support/lazySummaryCases.ts`, through the Effect API and the
 * Promise facade; the Effect 4 line runs the same cases.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Message, RollingMemory, Summarizer, TokenCounter } from "../src/index.js"
import { RollingMemory as FacadeRollingMemory } from "../src/promise/index.js"
import { type Outcome, runLazySummaryCases } from "./support/lazySummaryCases.js"

const outcomeOf = (exit: Exit.Exit<number | void, { readonly _tag: string; readonly message: string }>) => {
  if (Exit.isSuccess(exit)) return exit.value === undefined ? undefined : { value: exit.value }
  const error = Option.getOrThrow(Cause.failureOption(exit.cause))
  return { error: error._tag, message: error.message }
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
  name: "Effect 3",
  nanMessage: "token counter failed: token counter returned NaN, not a non-negative integer",
  apis: [
    {
      name: "Effect API",
      make: ({ count, maxSummaryTokens, summarize }) => {
        const layer = Layer.merge(
          TokenCounter.layerFunction(count),
          Summarizer.layerFunction((summary, messages) => summarize(summary, messages.map((m) => m.content)))
        )
        const memory = Effect.runSync(Effect.provide(RollingMemory.make({ maxTokens: 4, maxSummaryTokens }), layer))
        return {
          add: (role, content) => Effect.runSync(memory.add(Message.make(role, content))),
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
