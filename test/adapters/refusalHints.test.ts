/**
 * The refusals a memory option avoids name it, on the Effect 3 line (the
 * case table: test/support/refusalHints.ts; the Effect 4 line runs it in
 * effect4/test/adapters/refusalHints.test.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Adapters from "../../src/adapters.js"
import { RollingMemory } from "../../src/promise/index.js"
import * as Message from "../../src/schema/Message.js"
import { runHintCases } from "../support/refusalHints.js"

runHintCases<Message.Message>({
  name: "effect3",
  make: (m) => Message.make(m.role, m.content, m.options),
  to: {
    toOpenAIChat: Adapters.toOpenAIChat,
    toOpenAIResponses: Adapters.toOpenAIResponses,
    toAnthropic: Adapters.toAnthropic,
    toGemini: Adapters.toGemini,
    toAiSdk: Adapters.toAiSdk
  },
  context: (options, turns) => {
    const memory = new RollingMemory(options)
    for (const m of turns) memory.addMessage(m.role, m.content, m.options)
    return memory.getMessages()
  },
  role: (m) => m.role
}, { assert, describe, it })
