/**
 * Summary segments through the adapters (contract 10.9, 15.5): each segment
 * is a block of Anthropic's `system` (and a part of Gemini's
 * `systemInstruction`), `cacheControl.summary` puts one breakpoint on the
 * last segment, `arrange` moves a late pinned message before the first
 * segment, a strict template gets the segments as one system message, and
 * with `summaryRole: "user"` one user message.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Adapters from "../../src/adapters.js"
import { honouringMode, RollingMemory } from "../../src/promise/index.js"
import type * as Message from "../../src/schema/Message.js"
import { json } from "./support.js"

const summarize = honouringMode((_summary: string, messages: ReadonlyArray<Message.Message>) =>
  messages.map((m) => m.content).join(" / ")
)

// word counts: "Be brief." pinned, two folds commit two segments, a late pinned rule after them
const memoryWithSegments = (summaryRole: "system" | "user" = "system") => {
  const memory = new RollingMemory({ maxTokens: 4, pinSystem: true, summary: "segments", summaryRole, summarize })
  memory.addMessage("system", "Be brief.")
  memory.addMessage("user", "one two")
  memory.addMessage("assistant", "three four")
  memory.addMessage("user", "five six")
  memory.addMessage("assistant", "seven eight")
  memory.addMessage("user", "nine ten")
  return memory
}

describe("summary segments in the adapters", () => {
  it("the read-back: pinned, then one system message per segment", () => {
    const memory = memoryWithSegments()
    assert.deepStrictEqual(memory.getMessages().map(String), [
      "system: Be brief.",
      "system: one two / three four",
      "system: five six / seven eight",
      "user: nine ten"
    ])
  })

  it("Anthropic: a block per segment, one breakpoint on the last segment (cacheControl.summary)", () => {
    const memory = memoryWithSegments()
    memory.addMessage("assistant", "eleven")
    const messages = memory.getMessages()
    const system = messages.filter((m) => m.role === "system").map((m) => m.content)
    const request = json(Adapters.toAnthropic(messages, { cacheControl: { pinned: 1, summary: true } })) as {
      readonly system: ReadonlyArray<{ readonly text: string; readonly cache_control?: unknown }>
    }
    assert.deepStrictEqual(
      request.system,
      system.map((text, i) =>
        i === 0 || i === system.length - 1
          ? { type: "text", text, cache_control: { type: "ephemeral" } }
          : { type: "text", text }
      )
    )
    // without pinned messages the summary's breakpoint alone; with a single summary, on it
    const alone = json(Adapters.toAnthropic(messages.slice(1), { cacheControl: { summary: true, lastMessage: false } }))
    assert.deepStrictEqual((alone as { readonly system: ReadonlyArray<unknown> }).system.at(-1), {
      type: "text",
      text: system.at(-1),
      cache_control: { type: "ephemeral" }
    })
    // every leading system message pinned: no summary breakpoint
    const pinnedOnly = json(Adapters.toAnthropic(messages.slice(0, 1), { cacheControl: { pinned: 1, summary: true } }))
    assert.deepStrictEqual((pinnedOnly as { readonly system: unknown }).system, [
      { type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }
    ])
  })

  it("arrange: a late pinned message moves before the first segment; strict templates get one system message", () => {
    const memory = memoryWithSegments()
    memory.addMessage("system", "late rule")
    memory.addMessage("assistant", "eleven")
    const messages = memory.getMessages()
    const segments = memory.toJSON().segments ?? []
    assert.isAtLeast(segments.length, 2)
    const arrange = { summary: memory.summary }
    const gemini = json(Adapters.toGemini(messages, { arrange })) as {
      readonly systemInstruction: { readonly parts: ReadonlyArray<{ readonly text: string }> }
    }
    assert.deepStrictEqual(gemini.systemInstruction.parts.map((p) => p.text), ["Be brief.", "late rule", ...segments])
    const strict = Adapters.toOpenAIChat(messages, { arrange, provider: "strict-template" })
    assert.deepStrictEqual(strict[0], {
      role: "system",
      content: ["Be brief.", "late rule", ...segments].join("\n\n")
    })
  })

  it("summaryRole \"user\": the segments are one user message", () => {
    const memory = memoryWithSegments("user")
    const messages = memory.getMessages()
    assert.deepStrictEqual(messages.slice(0, 2).map((m) => m.role), ["system", "user"])
    assert.strictEqual(messages[1].content, memory.summary)
    assert.include(memory.summary, "\n\n")
  })
})
