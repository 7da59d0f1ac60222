/**
 * The conversation entity in one process (the cluster's `TestRunner`:
 * in-memory sharding, messages serialized as between runners), over the
 * in-memory store, on both lines: `withMemory` through the entity, requests
 * applied once, appends committed before the fold, a clear during a fold,
 * the store's compare-and-set as a fencing guard. The scenarios and their
 * exact values are here; each line's test
 * (test/cluster/ConversationEntity.test.ts,
 * effect4/test/cluster/ConversationEntity.test.ts) gives its cluster as
 * Promise-returning calls. Waits on the store's saves and on promises the
 * summarizer settles, never sleeps.
 */

/** A message as the cases give it and read it back (a `Message` is one). */
export interface MessageView {
  readonly role: string
  readonly content: string
}

/** A state as a line gives it back (a `MemoryState` is one). */
export interface StateView {
  readonly summary: string
  readonly buffer: ReadonlyArray<MessageView>
}

/** A stored record as a line gives it back. */
export interface StoredView {
  readonly state: StateView
  readonly revision: number
  readonly requestIds?: ReadonlyArray<string> | undefined
}

/** Appends the folded turns to the summary as one bracketed group. */
export const fold = (summary: string, messages: ReadonlyArray<MessageView>): string =>
  `${summary}[${messages.map((m) => m.content).join(",")}]`

/**
 * The runner's summarizer: `"folding"` ({@link fold}, synchronous),
 * `"identity"` (keeps the summary), or a gate: an effectful summarizer that
 * calls it with the summary and the folded turns' contents, waits
 * (interruptibly) until its promise settles, then answers {@link fold}.
 */
export type SummarizerCase =
  | "folding"
  | "identity"
  | ((summary: string, turns: ReadonlyArray<string>) => Promise<void>)

/** The options every conversation of the cases is opened with. */
export const entityOptions = { strategy: "rolling", maxTokens: 3 } as const

/** The entity on a test runner, with `withMemory`'s services over it, and the store it persists to. */
export interface EntitySession {
  /** `Conversation.withMemory(id, entityOptions, add(Message.user(text)))`, the writer's own summarizer dropping. */
  readonly add: (id: string, text: string) => Promise<void>
  /** `Conversation.withMemory(id, entityOptions, (m) => m.context)`. */
  readonly context: (id: string) => Promise<string>
  /** `Conversation.withMemory(id, entityOptions, clear, then add(Message.user(text)))`, the writer's summarizer dropping. */
  readonly clearThenAdd: (id: string, text: string) => Promise<void>
  /** The state the entity holds, through its `Read` (`MemoryState.empty` when none). */
  readonly read: (id: string) => Promise<StateView>
  /** Waits until the store saved a state satisfying `done` (the fold runs in the background): the saves signal it. */
  readonly storedWhen: (id: string, done: (state: StateView) => boolean) => Promise<StateView>
  /** The entity client's `Apply({ requestId, options, operations: [add the user messages] })`'s reply. */
  readonly apply: (id: string, requestId: string, options: unknown, users: ReadonlyArray<string>) => Promise<unknown>
  /** The same `Apply`'s failure's `_tag`. */
  readonly applyFailure: (
    id: string,
    requestId: string,
    options: unknown,
    users: ReadonlyArray<string>
  ) => Promise<string>
  /** The store the entity persists to, reached directly: its `load` (`undefined`: none). */
  readonly rawLoad: (id: string) => Promise<StoredView | undefined>
  /** Its `save(id, MemoryState.make("", buffer), expected, requestIds && { requestIds })`. */
  readonly rawSave: (
    id: string,
    buffer: ReadonlyArray<MessageView>,
    expected: number,
    requestIds?: ReadonlyArray<string>
  ) => Promise<void>
  /** The `ConversationStore` in context (reading through the entity): `load`, `undefined` for none. */
  readonly load: (id: string) => Promise<StoredView | undefined>
  /** The `ConversationStore` in context: `delete`. */
  readonly delete: (id: string) => Promise<void>
  /** Releases the cluster. */
  readonly close: () => Promise<void>
}

/** A line's side: its cluster, with the runner's summarizer. */
export interface Line {
  readonly open: (summarizer: SummarizerCase) => Promise<EntitySession>
}

/** What {@link runConversationEntityCases} needs of a line's test tooling. */
export interface Vitest {
  readonly it: (name: string, body: () => Promise<void>) => void
  readonly assert: {
    strictEqual: (actual: unknown, expected: unknown, message?: string) => void
    deepStrictEqual: (actual: unknown, expected: unknown, message?: string) => void
  }
}

/** A promise with its resolve at hand. */
const deferred = <A = void>() => {
  let resolve!: (a: A) => void
  const promise = new Promise<A>((r) => {
    resolve = r
  })
  return { promise, resolve }
}

/** An unbounded queue: `offer` never waits, `take` waits for the next item. */
const queue = <A>() => {
  const items: Array<A> = []
  const takers: Array<(a: A) => void> = []
  return {
    offer: (a: A) => {
      const taker = takers.shift()
      if (taker === undefined) items.push(a)
      else taker(a)
    },
    take: (): Promise<A> =>
      items.length > 0 ? Promise.resolve(items.shift()!) : new Promise<A>((resolve) => takers.push(resolve))
  }
}

const contents = (state: StateView) => state.buffer.map((m) => m.content)

/**
 * Registers the cases (within the line's `describe`): each opens its own
 * cluster and releases it after.
 */
export const runConversationEntityCases = (line: Line, { assert, it }: Vitest): void => {
  const test = (
    name: string,
    summarizer: SummarizerCase,
    body: (session: EntitySession) => Promise<void>
  ) =>
    it(name, async () => {
      const session = await line.open(summarizer)
      try {
        await body(session)
      } finally {
        await session.close()
      }
    })

  test(
    "withMemory writes through the entity; the entity folds with its runner's summarizer",
    "folding",
    async (s) => {
      for (const text of ["a", "b", "c", "d", "e"]) await s.add("c1", text)
      const state = await s.storedWhen("c1", (s) => s.summary !== "" && s.buffer.length <= 3)
      assert.deepStrictEqual(contents(state), ["c", "d", "e"])
      assert.deepStrictEqual(state.summary.match(/[a-e]/g), ["a", "b"])
      const loaded = await s.context("c1")
      assert.strictEqual(loaded, `system: ${state.summary}\nuser: c\nuser: d\nuser: e`)
    }
  )

  test("a request delivered twice is applied once: the second reply says duplicate", "folding", async (s) => {
    const first = await s.apply("c2", "req-1", entityOptions, ["once"])
    const second = await s.apply("c2", "req-1", entityOptions, ["once"])
    assert.deepStrictEqual(first, { revision: 1, duplicate: false })
    assert.deepStrictEqual(second, { revision: 1, duplicate: true })
    const stored = (await s.rawLoad("c2"))!
    assert.deepStrictEqual(contents(stored.state), ["once"])
    assert.deepStrictEqual(stored.requestIds, ["req-1"])
  })

  test(
    "a request id stored before a restart is still known: a redelivery after a crash is applied once",
    "folding",
    async (s) => {
      // The store already holds the request (the owner saved it, then died before replying).
      await s.rawSave("c3", [{ role: "user", content: "saved" }], 0, ["req-9"])
      const again = await s.apply("c3", "req-9", entityOptions, ["saved"])
      assert.deepStrictEqual(again, { revision: 1, duplicate: true })
      assert.deepStrictEqual(contents(await s.read("c3")), ["saved"])
    }
  )

  {
    const release = deferred()
    const started = deferred()
    test(
      "a slow summarizer holds no writer: appends are stored while it runs, and kept after its fold",
      () => {
        started.resolve()
        return release.promise
      },
      async (s) => {
        for (const text of ["a", "b", "c", "d"]) await s.add("c4", text)
        await started.promise
        // The fold of [a] waits; writers go on.
        await s.add("c4", "e")
        await s.add("c4", "f")
        assert.deepStrictEqual(contents(await s.read("c4")), ["a", "b", "c", "d", "e", "f"])
        release.resolve()
        const state = await s.storedWhen("c4", (s) => s.buffer.length <= 3)
        const all = [...state.summary.match(/[a-f]/g)!, ...contents(state)]
        assert.deepStrictEqual(all, ["a", "b", "c", "d", "e", "f"])
      }
    )
  }

  {
    const release = deferred()
    const calls = queue<{ readonly summary: string; readonly turns: ReadonlyArray<string> }>()
    test(
      "a clear while a fold runs wins: the fold is discarded",
      // The first call waits for `release`; each call is reported, so the test knows when the next fold started.
      (summary, turns) => {
        calls.offer({ summary, turns: [...turns] })
        return release.promise
      },
      async (s) => {
        for (const text of ["a", "b", "c", "d"]) await s.add("c5", text)
        assert.deepStrictEqual(await calls.take(), { summary: "", turns: ["a"] })
        await s.clearThenAdd("c5", "x")
        release.resolve()
        // Folds run one at a time: the next fold's call comes after the discarded one ended, and sees no summary.
        for (const text of ["y", "z", "w"]) await s.add("c5", text)
        assert.deepStrictEqual(await calls.take(), { summary: "", turns: ["x"] })
        const state = await s.storedWhen("c5", (s) => s.summary !== "")
        assert.deepStrictEqual(state.summary.match(/[a-z]/g), ["x"])
        assert.deepStrictEqual(contents(state), ["y", "z", "w"])
      }
    )
  }

  test(
    "another writer's save (a second owner) is never overwritten: the entity reloads and applies on top",
    "identity",
    async (s) => {
      await s.add("c6", "a")
      const stored = (await s.rawLoad("c6"))!
      await s.rawSave("c6", [...stored.state.buffer, { role: "user", content: "elsewhere" }], stored.revision)
      await s.add("c6", "b")
      assert.deepStrictEqual(contents((await s.rawLoad("c6"))!.state), ["a", "elsewhere", "b"])
    }
  )

  test("bad strategy options are a ConfigError from the entity; nothing is applied", "folding", async (s) => {
    const error = await s.applyFailure("c7", "r", { strategy: "rolling", maxTokens: -1 }, ["no"])
    assert.strictEqual(error, "ConfigError")
    assert.strictEqual(await s.rawLoad("c7"), undefined)
  })

  test("a Delete through the store over the entity leaves nothing to read", "folding", async (s) => {
    await s.add("c8", "a")
    await s.delete("c8")
    assert.strictEqual(await s.load("c8"), undefined)
    assert.strictEqual(await s.rawLoad("c8"), undefined)
  })
}
