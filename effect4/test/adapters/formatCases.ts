/**
 * A table-driven check of one provider format on the Effect 4 line: each
 * case is a provider input with the messages it becomes (their `String`
 * forms, chosen fields, kept token estimates) and what it is written back as
 * through a memory's JSON state (the input itself unless said); each
 * refusal a call with the exact description of its `AdapterError`. The
 * expected values are the Effect 3 line's (the same core conversions).
 */
import { assert, describe, it } from "@effect/vitest"
import { AdapterError, METADATA_KEY } from "../../src/adapters.js"
import { BufferMemory } from "../../src/promise/index.js"
import type * as Message from "../../src/schema/Message.js"

/** As JSON data (what a request body holds). */
export const json = (u: unknown): unknown => JSON.parse(JSON.stringify(u))

/** The messages through a memory and its JSON state: add each, save, restore, read back. */
export const throughMemory = (messages: ReadonlyArray<Message.Message>): Array<Message.Message> => {
  const memory = new BufferMemory()
  for (const m of messages) memory.addMessage(m.role, m.content, m)
  return BufferMemory.fromJSON(JSON.parse(JSON.stringify(memory))).getMessages()
}

/** A message's wire fields (`toJSON` without `metadata`). */
export const wire = (messages: ReadonlyArray<Message.Message>): unknown =>
  json(messages.map((m) => {
    const { metadata: _, ...rest } = m.toJSON() as unknown as Record<string, unknown>
    return rest
  }))

/** `x` with `x_future: { since: "2027-01" }` added to every object, `top`'s own keys excepted (`inner` read as parts). */
export const withFuture = (x: unknown, top = false): unknown => {
  if (Array.isArray(x)) return x.map((v) => withFuture(v))
  if (typeof x !== "object" || x === null) return x
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(x)) {
    out[k] = top && k === "systemInstruction" ? { parts: withFuture((v as { parts: unknown }).parts) } : withFuture(v)
  }
  if (!top) out.x_future = { since: "2027-01" }
  return out
}

/** One provider input and what it becomes. */
export interface Case {
  readonly name: string
  readonly input: unknown
  /** `String(message)` of each message read. */
  readonly strings: ReadonlyArray<string>
  /** The wire fields of the messages read (`toJSON` without `metadata`), when the case pins them. */
  readonly wire?: unknown
  /** The kept token estimate (`metadata["rollmem.provider"].tokens`) of the message at each index named. */
  readonly tokens?: { readonly [index: number]: number | undefined }
  /** Whether `to…` checks the context (default `true`: the provider would take it). */
  readonly check?: boolean
  /** What `to…` writes back through a memory: the input itself unless given. */
  readonly written?: unknown
}

/** Rollmem messages and what `to…` writes for them. */
export interface Write {
  readonly name: string
  readonly messages: ReadonlyArray<Message.Message>
  readonly options?: { readonly check?: boolean; readonly arrange?: boolean }
  readonly output: unknown
}

/** One call that must fail, with its `AdapterError`'s exact description. */
export interface Refusal {
  readonly name: string
  readonly run: () => unknown
  readonly description: string
}

/** A format as the table drives it. */
export interface Suite {
  /** `AdapterError.format` of every refusal. */
  readonly format: string
  readonly from: (input: unknown, options?: { readonly strict?: boolean }) => Array<Message.Message>
  readonly to: (
    messages: ReadonlyArray<Message.Message>,
    options?: { readonly check?: boolean; readonly arrange?: boolean }
  ) => unknown
  readonly cases: ReadonlyArray<Case>
  readonly writes: ReadonlyArray<Write>
  readonly refusals: ReadonlyArray<Refusal>
  /** Whether the input is a request object (its own keys get no invented field), not a list. */
  readonly request?: boolean
}

/** The description of the `AdapterError` a call throws. */
export const refusal = (format: string, f: () => unknown): string => {
  try {
    f()
  } catch (error) {
    assert.instanceOf(error, AdapterError)
    assert.strictEqual(error.format, format)
    return error.description
  }
  return "(no error)"
}

const tokensOf = (m: Message.Message): unknown => (m.metadata[METADATA_KEY] as { tokens?: unknown } | undefined)?.tokens

/**
 * The checks of a {@link Suite}: every case read, kept and written back, an
 * invented field kept (strict: refused); every write; every refusal.
 */
export const describeFormat = (title: string, suite: Suite): void => {
  describe(title, () => {
    for (const c of suite.cases) {
      it(`${c.name}: the messages, the kept estimates, the identity through a memory`, () => {
        const messages = suite.from(json(c.input))
        assert.deepStrictEqual(messages.map(String), c.strings)
        if (c.wire !== undefined) assert.deepStrictEqual(wire(messages), c.wire)
        for (const [i, tokens] of Object.entries(c.tokens ?? {})) {
          assert.strictEqual(tokensOf(messages[Number(i)]), tokens, `tokens of message ${i}`)
        }
        assert.deepStrictEqual(
          json(suite.to(throughMemory(messages), c.check === false ? { check: false } : undefined)),
          json(c.written ?? c.input)
        )
      })

      if (c.written !== undefined) continue
      it(`${c.name}: a field added since, in every object, read, kept and written back; strict refuses it`, () => {
        const x = withFuture(json(c.input), suite.request === true)
        assert.deepStrictEqual(json(suite.to(throughMemory(suite.from(x)), { check: false })), x)
        assert.include(refusal(suite.format, () => suite.from(x, { strict: true })), "x_future")
      })
    }

    for (const w of suite.writes) {
      it(`writes ${w.name}`, () => {
        assert.deepStrictEqual(json(suite.to(w.messages, w.options)), w.output)
      })
    }

    for (const r of suite.refusals) {
      it(`refuses ${r.name}`, () => {
        assert.strictEqual(refusal(suite.format, r.run), r.description)
      })
    }
  })
}
