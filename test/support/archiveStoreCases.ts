/**
 * The archive kept beside stored conversations (docs/contract.md section
 * 17.2), on both lines: `Conversation.withMemory(id, { ..., archive: true })`
 * on every store layer; rows saved with the state, none doubled after a
 * conflict's re-apply, removed with the conversation; the key-value log
 * record by record (an archive written by either line reads in the other).
 * The scenarios and their exact values are here; each line's test
 * (test/store/archiveStore.test.ts, effect4/test/store/archiveStore.test.ts)
 * gives its stores and services as Promise-returning calls.
 */

/** Options of the archived conversations. */
export const archiveOptions = { strategy: "rolling", maxTokens: 6, archive: true } as const

/** Options of a conversation that archives nothing. */
export const plainOptions = { strategy: "rolling", maxTokens: 6 } as const

/** The options a scenario opens a conversation with. */
export type ConversationOptions = typeof archiveOptions | typeof plainOptions

/** A message as a case gives it: `Message.make`'s first two arguments. */
export interface CaseMessage {
  readonly role: "system" | "user" | "assistant"
  readonly content: string
}

/** A message as a line gives it back (a `Message` is one). */
export interface MessageView {
  readonly role: string
  readonly content: string
}

/** An archived message as a line gives it back (an `Archive.Archived` is one). */
export interface ArchivedView {
  readonly position: number
  readonly fold: number
  readonly message: MessageView
}

/** A search hit as a line gives it back. */
export interface FoundView extends ArchivedView {
  readonly neighbours: ReadonlyArray<ArchivedView>
}

/** A stored state as a line gives it back (a `MemoryState` is one). */
export interface StateView {
  readonly conversationId?: string | undefined
  readonly positions?: ReadonlyArray<number> | undefined
  readonly nextPosition?: number | undefined
  readonly buffer: ReadonlyArray<MessageView>
}

/** The memory a `withMemory` call hands its callback, its calls run to a Promise. */
export interface CallMemory {
  /** `memory.add(Message.user(text))`. */
  readonly add: (text: string) => Promise<void>
  /** `memory.addMessages(texts.map(Message.user))`. */
  readonly addUsers: (texts: ReadonlyArray<string>) => Promise<void>
  readonly recall: (query: string) => Promise<ReadonlyArray<ArchivedView>>
  readonly messages: () => Promise<ReadonlyArray<MessageView>>
}

/** One store layer, built fresh (empty) for one test, with the dropping summarizer. */
export interface StoreSession {
  /** `Conversation.withMemory(id, options, body)`, the callback's memory run through this session. */
  readonly withMemory: <A>(
    id: string,
    options: ConversationOptions,
    body: (memory: CallMemory) => Promise<A>
  ) => Promise<A>
  /** The store's `archive.messages(id)`. */
  readonly archived: (id: string) => Promise<ReadonlyArray<ArchivedView>>
  /** The stored state of `id` (which must be stored). */
  readonly load: (id: string) => Promise<StateView>
  /** The store's `archive.search(id, query)`. */
  readonly search: (id: string, query: string) => Promise<ReadonlyArray<ArchivedView>>
  readonly delete: (id: string) => Promise<void>
  /** Releases the layer. */
  readonly close: () => Promise<void>
}

/** `ConversationStore.makeKeyValueStore()` over an in-memory `KeyValueStore` the test reads too. */
export interface KeyValueSession {
  /** The raw record at `key` (`undefined`: none). */
  readonly get: (key: string) => Promise<string | undefined>
  readonly set: (key: string, value: string) => Promise<void>
  /** `store.save(id, MemoryState.make("", buffer), expected, { archive })`. */
  readonly save: (
    id: string,
    buffer: ReadonlyArray<CaseMessage>,
    expected: number,
    archive: ReadonlyArray<ReadonlyArray<{ readonly position: number; readonly message: CaseMessage }>>
  ) => Promise<void>
  /** `store.archive.append(id, rows)`. */
  readonly append: (
    id: string,
    rows: ReadonlyArray<{ readonly position: number; readonly message: CaseMessage }>
  ) => Promise<void>
  /** `store.archive.messages(id)`. */
  readonly messages: (id: string) => Promise<ReadonlyArray<ArchivedView>>
  /** `store.archive.messages(id)`'s failure as `[_tag, message]`. */
  readonly messagesFailure: (id: string) => Promise<ReadonlyArray<unknown>>
  readonly search: (id: string, query: string, neighbours: number) => Promise<ReadonlyArray<FoundView>>
  readonly delete: (id: string) => Promise<void>
}

/** A line's side: its stores and services, each call run to a Promise. */
export interface Line {
  /** The other line's name (`"Effect 4"` on the Effect 3 line). */
  readonly other: string
  /** The store layers under test, by name. */
  readonly stores: ReadonlyArray<{ readonly name: string; readonly open: () => Promise<StoreSession> }>
  /**
   * `Conversation.withMemory(id, options, add(text))` over the memory store
   * with a conversation entity's `Writer` that is never sent to: its failure
   * as `[_tag, option, message]`.
   */
  readonly entityRefusal: (id: string, options: ConversationOptions, text: string) => Promise<ReadonlyArray<unknown>>
  /** `Conversation.checkOptions(options)`'s failure as `[option, description]`. */
  readonly optionRefusal: (options: unknown) => Promise<ReadonlyArray<unknown>>
  /** A fresh key-value store session. */
  readonly keyValue: () => Promise<KeyValueSession>
}

/** What {@link runArchiveStoreCases} needs of a line's test tooling. */
export interface Vitest {
  readonly describe: (name: string, body: () => void) => void
  readonly it: (name: string, body: () => Promise<void>) => void
  readonly assert: {
    strictEqual: (actual: unknown, expected: unknown, message?: string) => void
    deepStrictEqual: (actual: unknown, expected: unknown, message?: string) => void
  }
}

/** The key-value log's keys: the head, then one record a write. */
export const LOG_KEYS = ["#0", "#1", "#2", "#3"].map((write) => `rollmem-archive:rollmem-conversation:c${write}`)

/** The key-value log, record by record, as both lines write it. */
export const LOG_RECORDS = [
  `{"writes":3,"folds":3}`,
  `[{"position":0,"fold":1,"message":{"role":"user","content":"order 4411"}}]`,
  `[{"position":1,"fold":2,"message":{"role":"assistant","content":"refund for 4411"}},` +
  `{"position":2,"fold":2,"message":{"role":"user","content":"thanks"}}]`,
  `[{"position":3,"fold":3,"message":{"role":"system","content":"refund policy"}}]`
]

const rows = (archived: ReadonlyArray<ArchivedView>) =>
  archived.map((row) => [row.position, row.fold, row.message.content])

/** The raw records at {@link LOG_KEYS}, read one after the other. */
const records = async (kv: KeyValueSession) => {
  const all: Array<string | undefined> = []
  for (const key of LOG_KEYS) all.push(await kv.get(key))
  return all
}

const contents = (messages: ReadonlyArray<MessageView>) => messages.map((m) => m.content)

/** Runs the archive cases against one line. */
export const runArchiveStoreCases = (line: Line, { assert, describe, it }: Vitest): void => {
  /** One test on a fresh session of `store`, released after. */
  const session = (open: () => Promise<StoreSession>, body: (s: StoreSession) => Promise<void>) => async () => {
    const s = await open()
    try {
      await body(s)
    } finally {
      await s.close()
    }
  }

  for (const store of line.stores) {
    describe(store.name, () => {
      // each turn is 2 words: a budget of 6 keeps the newest 3 turns in the buffer
      const turn = (s: StoreSession, id: string, text: string) =>
        s.withMemory(id, archiveOptions, (memory) => memory.add(text))

      it(
        "archives what leaves the buffer beside the conversation, each write one fold",
        session(store.open, async (s) => {
          for (const word of ["alpha", "bravo", "charlie", "delta", "echo"]) await turn(s, "c1", `word ${word}`)
          assert.deepStrictEqual(rows(await s.archived("c1")), [[0, 1, "word alpha"], [1, 2, "word bravo"]])
          const state = await s.load("c1")
          assert.strictEqual(state.conversationId, "c1")
          assert.deepStrictEqual(state.positions, [2, 3, 4])
          assert.strictEqual(state.nextPosition, 5)
          // a recall inside a call sees what is stored and what this call archived, before its save
          const found = await s.withMemory("c1", archiveOptions, async (memory) => {
            await memory.add("word foxtrot")
            return [...await memory.recall("charlie"), ...await memory.recall("alpha")]
          })
          assert.deepStrictEqual(rows(found), [
            [2, 0, "word charlie"],
            [0, 1, "word alpha"]
          ])
          assert.deepStrictEqual((await s.search("c1", "charlie")).map((m) => m.fold), [3])
          // delete removes the archive with the conversation
          await s.delete("c1")
          assert.deepStrictEqual(rows(await s.archived("c1")), [])
        })
      )

      it(
        "a conflict's re-apply archives the newer positions, none doubled or lost",
        session(store.open, async (s) => {
          for (const word of ["alpha", "bravo", "charlie"]) await turn(s, "c2", `word ${word}`)
          // A loads, B saves meanwhile, A's save conflicts and is re-applied on B's state
          const interleaved = await s.withMemory("c2", archiveOptions, async (memory) => {
            await memory.add("word delta")
            await turn(s, "c2", "word echo")
            return await memory.messages()
          })
          assert.deepStrictEqual(contents(interleaved), ["word bravo", "word charlie", "word delta"])
          assert.deepStrictEqual(rows(await s.archived("c2")), [[0, 1, "word alpha"], [1, 2, "word bravo"]])
          const stored = await s.load("c2")
          assert.deepStrictEqual(contents(stored.buffer), ["word charlie", "word echo", "word delta"])
          assert.deepStrictEqual(stored.positions, [2, 3, 4])
        })
      )

      it(
        "a save that conflicts writes none of its rows: its positions are the newer state's",
        session(store.open, async (s) => {
          for (const word of ["alpha", "bravo", "charlie"]) await turn(s, "c4", `word ${word}`)
          // A's call archives its own first turn at position 3, which B's turn takes meanwhile
          await s.withMemory("c4", archiveOptions, async (memory) => {
            await memory.addUsers(["d1", "d2", "d3", "d4"].map((w) => `word ${w}`))
            await turn(s, "c4", "word echo")
          })
          assert.deepStrictEqual(rows(await s.archived("c4")), [
            [0, 1, "word alpha"],
            [1, 2, "word bravo"],
            [2, 2, "word charlie"],
            [3, 2, "word echo"],
            [4, 2, "word d1"]
          ])
        })
      )

      it(
        "finds a word inside a run of Han or kana, and text by its NFKC form, on every backend",
        session(store.open, async (s) => {
          const texts = [
            "word 漢字漢字漢字",
            "word カタカナです",
            "word e\u0301cole",
            "word delta",
            "word alpha",
            "word bravo"
          ]
          for (const text of texts) await turn(s, "c6", text)
          assert.deepStrictEqual((await s.archived("c6")).map((m) => m.position), [0, 1, 2])
          const found = async (query: string) => (await s.search("c6", query)).map((m) => m.position)
          assert.deepStrictEqual(await found("字"), [0])
          assert.deepStrictEqual(await found("漢字"), [0])
          assert.deepStrictEqual(await found("カナ"), [1])
          assert.deepStrictEqual(await found("\u00e9cole"), [2])
          assert.deepStrictEqual(await found("e\u0301cole"), [2])
        })
      )

      it(
        "without archive: true nothing is archived and the state stays version 2",
        session(store.open, async (s) => {
          for (const word of ["alpha", "bravo", "charlie", "delta"]) {
            await s.withMemory("c3", plainOptions, (memory) => memory.add(`word ${word}`))
          }
          assert.deepStrictEqual(rows(await s.archived("c3")), [])
          assert.strictEqual((await s.load("c3")).positions, undefined)
        })
      )
    })
  }

  describe("refused", () => {
    it("the conversation entity's writer refuses archive: true before anything is loaded", async () => {
      assert.deepStrictEqual(await line.entityRefusal("c5", archiveOptions, "word alpha"), [
        "ConfigError",
        "archive",
        "invalid option archive: the conversation entity (rollmem/cluster) does not archive: use a store of rollmem/store"
      ])
    })

    it("archive must be a boolean", async () => {
      assert.deepStrictEqual(await line.optionRefusal({ strategy: "rolling", archive: "yes" }), [
        "archive",
        "must be a boolean, got \"yes\""
      ])
    })
  })

  describe("the key-value archive's records", () => {
    it(`are the ${line.other} line's: a head, then each write's rows; read, searched and deleted with them`, async () => {
      const kv = await line.keyValue()
      await kv.save("c", [{ role: "user", content: "now" }], 0, [
        [{ position: 0, message: { role: "user", content: "order 4411" } }],
        [],
        [
          { position: 1, message: { role: "assistant", content: "refund for 4411" } },
          { position: 2, message: { role: "user", content: "thanks" } }
        ]
      ])
      await kv.append("c", [{ position: 3, message: { role: "system", content: "refund policy" } }])
      assert.deepStrictEqual(await records(kv), LOG_RECORDS)
      const messages = await kv.messages("c")
      assert.deepStrictEqual(messages.map((a) => [a.position, a.fold, a.message.role, a.message.content]), [
        [0, 1, "user", "order 4411"],
        [1, 2, "assistant", "refund for 4411"],
        [2, 2, "user", "thanks"],
        [3, 3, "system", "refund policy"]
      ])
      const found = await kv.search("c", "refund 4411", 1)
      assert.deepStrictEqual(found.map((m) => [m.position, m.neighbours.map((n) => n.position)]), [
        [1, [0, 2]],
        [3, [2]],
        [0, [1]]
      ])
      await kv.delete("c")
      assert.deepStrictEqual(await records(kv), [undefined, undefined, undefined, undefined])
      assert.deepStrictEqual(await kv.messages("c"), [])
    })

    it(`a log written by the ${line.other} line reads here; a head that does not decode is an ArchiveError`, async () => {
      const kv = await line.keyValue()
      for (const [i, key] of LOG_KEYS.entries()) await kv.set(key, LOG_RECORDS[i])
      const messages = await kv.messages("c")
      assert.deepStrictEqual(rows(messages), [
        [0, 1, "order 4411"],
        [1, 2, "refund for 4411"],
        [2, 2, "thanks"],
        [3, 3, "refund policy"]
      ])
      await kv.set(LOG_KEYS[0], "{\"writes\":\"x\"}")
      assert.deepStrictEqual(await kv.messagesFailure("c"), [
        "ArchiveError",
        "archive failed: archive read: the head of \"c\" does not decode"
      ])
    })
  })
}
