import { assert, describe, it } from "@effect/vitest"
import {
  AsyncRollingMemory,
  ConfigError,
  ContextOverflowError,
  type Message,
  RollingMemory,
  UsageError,
  withOverflowRetry
} from "../src/promise/index.js"

const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ")
const size = (messages: ReadonlyArray<Message>) =>
  messages.reduce((n, m) => n + m.content.split(" ").filter((w) => w !== "").length, 0)

describe("Promise facade: budgets in the model's terms (contract 16)", () => {
  it("contextWindow, compact with focus, recordUsage and usageRatio", () => {
    const focuses: Array<string | undefined> = []
    const memory = new RollingMemory({
      contextWindow: { tokens: 40, reserveTokens: 10 },
      summarize: (_summary, turns, request) => {
        focuses.push(request.focus)
        return `s${turns.length}`
      }
    })
    assert.strictEqual(memory.maxTokens, 30)
    for (let i = 0; i < 4; i++) memory.addMessage(i % 2 === 0 ? "user" : "assistant", words(5, `m${i}x`))
    memory.compact({ targetTokens: 5, focus: "names" })
    assert.deepStrictEqual(focuses, ["names"])
    assert.strictEqual(memory.bufferTokens, 5)
    memory.getMessages()
    memory.recordUsage({ inputTokens: 10 + 12 })
    assert.strictEqual(memory.usageRatio, 2)
    assert.throws(() => memory.recordUsage({ inputTokens: -1 }), UsageError)
    assert.throws(
      () => memory.recordUsage({ inputTokens: 0 }),
      UsageError,
      "inputTokens: must be a positive integer, got 0"
    )
    assert.strictEqual(memory.usageRatio, 2)
    assert.throws(() => memory.compact({ targetTokens: 1.5 }), ConfigError)
    assert.throws(
      () => new RollingMemory({ maxTokens: 10, contextWindow: { tokens: 40, reserveTokens: 10 }, summarize: "drop" }),
      ConfigError
    )
  })

  it("withOverflowRetry: compacts and succeeds; gives up with ContextOverflowError", async () => {
    const memory = new AsyncRollingMemory({ maxTokens: 1000, summarize: async (_s, turns) => `s ${turns.length}` })
    for (let i = 0; i < 10; i++) await memory.addMessage(i % 2 === 0 ? "user" : "assistant", words(10, `m${i}x`))
    const sizes: Array<number> = []
    const provider = (limit: number) => async (messages: Array<Message>) => {
      sizes.push(size(messages))
      if (size(messages) > limit) {
        throw new Error(
          `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${
            size(messages)
          } tokens.`
        )
      }
      return "ok"
    }
    assert.strictEqual(await withOverflowRetry(memory, provider(45)), "ok")
    assert.deepStrictEqual(sizes, [100, 42])
    const error = await withOverflowRetry(memory, provider(3), { retries: 1 }).catch((e: unknown) => e)
    assert.instanceOf(error, ContextOverflowError)
    assert.strictEqual((error as ContextOverflowError).provider, "openai")
    assert.strictEqual((error as ContextOverflowError).maxTokens, 3)
    const other = await withOverflowRetry(memory, () => Promise.reject(new Error("rate limit"))).catch((e: unknown) =>
      e
    )
    assert.strictEqual((other as Error).message, "rate limit")
  })
})

it("withOverflowRetry refuses a misspelt option (ConfigError naming it and the known keys)", async () => {
  const memory = new RollingMemory({ summarize: (s) => s })
  const error = await withOverflowRetry(memory, async () => "ok", { retry: 3 } as never).catch((e: unknown) => e)
  assert.instanceOf(error, ConfigError)
  assert.strictEqual((error as ConfigError).option, "retry")
  assert.strictEqual(
    (error as ConfigError).description,
    "unknown option (known: retries, recognizers, schedule, focus)"
  )
})
