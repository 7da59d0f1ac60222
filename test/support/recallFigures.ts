/**
 * The recall figures of issue 30 (docs/contract.md section 17), one
 * definition for the real-data test (`test/realDataRecall.test.ts`, on
 * `src/`) and the bench (`bench/src/sections/recall.ts`, on `dist/`): each
 * conversation replayed through a facade memory with an archive, then
 *
 * - *artifact recall*: for every artifact (the default patterns of
 *   `Retention`) named in archived turns and in no message of the final
 *   buffer, a recall with the artifact as the query (limit 5) returns a turn
 *   naming it;
 * - *three-word recall*: for every archived turn with at least three
 *   distinct words of four letters or more (runs of letters: never an
 *   artifact), three of them chosen by a seeded generator (mulberry32,
 *   seeded with the conversation's index and the turn's position) are the
 *   query; the turn itself is in the top 5.
 *
 * The library is passed in (`src/` or `dist/`), so both measure the same way.
 */

/** The message shape the figures read. */
export interface Msg {
  readonly role: string
  readonly content: string
  readonly toolCalls: ReadonlyArray<{ readonly signature: string; readonly name: string; readonly arguments: string }>
}

/** A facade memory with an archive, as the figures drive it. */
export interface RecallMemory {
  readonly addMessage: (role: string, content: string, options?: never) => void
  readonly recall: (
    query: string,
    options?: { readonly limit?: number }
  ) => ReadonlyArray<{ readonly position: number; readonly message: Msg }>
  readonly buffer: ReadonlyArray<Msg>
}

/** What the figures need of the library. */
export interface Library {
  /** A memory at `maxTokens` archiving the conversation `id`. */
  readonly memory: (id: string, maxTokens: number) => RecallMemory
  /** The archived messages of the conversation `id`. */
  readonly archived: (id: string) => Promise<ReadonlyArray<{ readonly position: number; readonly message: Msg }>>
  /** The artifacts of a text (`Retention.extract`). */
  readonly extract: (text: string) => ReadonlyArray<{ readonly kind: string; readonly text: string }>
}

/** One conversation: its id and each message's facade arguments. */
export interface Replayed {
  readonly id: string
  readonly facade: ReadonlyArray<{ readonly role: string; readonly content: string; readonly options: unknown }>
}

/** Found / asked, in all and per kind (artifacts). */
export interface Figure {
  readonly asked: number
  readonly found: number
}

/** The figures of a run. */
export interface RecallFigures {
  readonly conversations: number
  readonly archived: number
  readonly artifacts: Figure & { readonly byKind: { readonly [kind: string]: Figure } }
  readonly threeWords: Figure & { readonly skipped: number }
  /** The queries asked, for latency measurements: artifacts first, then three-word queries. */
  readonly queries: {
    readonly artifacts: ReadonlyArray<string>
    readonly threeWords: ReadonlyArray<string>
    /** Every query with its conversation and what counts as found, to ask another archive the same. */
    readonly cases: ReadonlyArray<Case>
  }
}

/**
 * One query of the figures: its conversation, and what counts as found in
 * the top 5 (a turn naming `artifact`, or the turn at `position`).
 */
export type Case =
  | { readonly id: string; readonly query: string; readonly artifact: string }
  | { readonly id: string; readonly query: string; readonly position: number }

/** A message's text as the archive ranks it: content, then each tool call's `name(arguments)`. */
export const textOf = (message: Msg): string =>
  message.toolCalls.length === 0
    ? message.content
    : [message.content, ...message.toolCalls.map((call) => call.signature)].join("\n")

/** mulberry32: a small seeded generator of numbers in [0, 1). */
export const mulberry32 = (seed: number): () => number => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const WORD = /\p{L}{4,}/gu

/** The three-word query of a turn (see the module's description), or `undefined` with fewer than three words. */
export const threeWordQuery = (text: string, conversation: number, position: number): string | undefined => {
  const words = [...new Set(Array.from(text.matchAll(WORD), (m) => m[0]))]
  if (words.length < 3) return undefined
  const random = mulberry32(conversation * 1_000_003 + position)
  const chosen: Array<string> = []
  while (chosen.length < 3) {
    const word = words[Math.floor(random() * words.length)]
    if (!chosen.includes(word)) chosen.push(word)
  }
  return chosen.join(" ")
}

const TOP = 5

/** Replays `conversations` at `maxTokens` with an archive and measures the recall figures. */
export const measureRecall = async (
  conversations: ReadonlyArray<Replayed>,
  library: Library,
  maxTokens: number
): Promise<RecallFigures> => {
  let archivedCount = 0
  let artifactsAsked = 0
  let artifactsFound = 0
  const byKind: { [kind: string]: { asked: number; found: number } } = {}
  let wordsAsked = 0
  let wordsFound = 0
  let skipped = 0
  const artifactQueries: Array<string> = []
  const wordQueries: Array<string> = []
  const cases: Array<Case> = []
  for (let c = 0; c < conversations.length; c++) {
    const conversation = conversations[c]
    const memory = library.memory(conversation.id, maxTokens)
    for (const m of conversation.facade) memory.addMessage(m.role, m.content, m.options as never)
    const archived = await library.archived(conversation.id)
    archivedCount += archived.length
    const inBuffer = new Set<string>()
    for (const m of memory.buffer) for (const a of library.extract(textOf(m))) inBuffer.add(a.text)
    const evictedOnly = new Map<string, string>()
    for (const { message } of archived) {
      for (const a of library.extract(textOf(message))) {
        if (!inBuffer.has(a.text)) evictedOnly.set(a.text, a.kind)
      }
    }
    for (const [artifact, kind] of evictedOnly) {
      const matches = memory.recall(artifact, { limit: TOP })
      const hit = matches.some((m) => library.extract(textOf(m.message)).some((a) => a.text === artifact))
      artifactsAsked++
      const k = (byKind[kind] ??= { asked: 0, found: 0 })
      k.asked++
      if (hit) {
        artifactsFound++
        k.found++
      }
      artifactQueries.push(artifact)
      cases.push({ id: conversation.id, query: artifact, artifact })
    }
    for (const { message, position } of archived) {
      const query = threeWordQuery(textOf(message), c, position)
      if (query === undefined) {
        skipped++
        continue
      }
      wordsAsked++
      if (memory.recall(query, { limit: TOP }).some((m) => m.position === position)) wordsFound++
      wordQueries.push(query)
      cases.push({ id: conversation.id, query, position })
    }
  }
  const kinds: { [kind: string]: Figure } = {}
  for (const kind of Object.keys(byKind).sort()) kinds[kind] = byKind[kind]
  return {
    conversations: conversations.length,
    archived: archivedCount,
    artifacts: { asked: artifactsAsked, found: artifactsFound, byKind: kinds },
    threeWords: { asked: wordsAsked, found: wordsFound, skipped },
    queries: { artifacts: artifactQueries, threeWords: wordQueries, cases }
  }
}

/** `found / asked`, or 1 when nothing was asked. */
export const share = (figure: Figure): number => figure.asked === 0 ? 1 : figure.found / figure.asked

/**
 * The figures' queries (`queries.cases`) asked of another archive holding
 * the same archived turns (`search`: its top 5 in a conversation): found /
 * asked for the artifacts and the three-word queries, counted as
 * {@link measureRecall} counts them.
 */
export const askCases = async (
  cases: ReadonlyArray<Case>,
  search: (id: string, query: string) => Promise<ReadonlyArray<{ readonly position: number; readonly message: Msg }>>,
  extract: Library["extract"]
): Promise<{ readonly artifacts: Figure; readonly threeWords: Figure }> => {
  const artifacts = { asked: 0, found: 0 }
  const threeWords = { asked: 0, found: 0 }
  for (const c of cases) {
    const matches = await search(c.id, c.query)
    if ("artifact" in c) {
      artifacts.asked++
      if (matches.some((m) => extract(textOf(m.message)).some((a) => a.text === c.artifact))) artifacts.found++
    } else {
      threeWords.asked++
      if (matches.some((m) => m.position === c.position)) threeWords.found++
    }
  }
  return { artifacts, threeWords }
}
